"""Capture: hook payloads become journal events and transient-tier files. No model.

Each function takes one Claude Code hook payload and records what the agent will need
after compaction: the tool it ran and on what, the files it changed, the tests it ran and
how they ended, its live plan (``TodoWrite`` or the ``Task*`` tools), and what the user
said (prompts, and the feedback typed when rejecting a tool call, which never passes
through ``UserPromptSubmit``). Times come from the transcript, never the clock, so two
replays of one session write the same bytes.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from time import monotonic
from typing import Any

from charter.fileio import fault_point, write_all
from charter.session import testruns
from charter.session.journal import Journal
from charter.session.schema import norm
from charter.session.transcript import read_tail, tool_use_time
from charter.session.writes import write_file

EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
PLAN_TOOLS = {"TodoWrite", "TaskCreate", "TaskUpdate", "TaskList"}
#: Claude Code's own wording when a user rejects a tool call and types a reason.
_FEEDBACK = re.compile(
    r"(?:the user said:|reason for the rejection:)\s*(.+)\Z", re.IGNORECASE | re.DOTALL
)


def rel_path(root: Path, raw: object) -> str:
    """A tool's path argument relative to the project (POSIX form) when it is inside it."""
    if not isinstance(raw, str):  # an object or a list is no path: not its repr
        return ""
    text = raw.strip()
    if not text:
        return ""
    text = text.replace("\\", "/")
    root_text = root.as_posix().rstrip("/")
    for base in (root_text, str(root.resolve().as_posix()).rstrip("/")):
        if text == base:
            return "."
        if text.startswith(base + "/"):
            return text[len(base) + 1 :]
    return text


def portable(root: Path, text: str) -> str:
    """``text`` with the project's absolute path made relative: files Charter writes into
    the repository (work log, test output, audit log) carry no machine-specific paths."""
    for base in sorted({root.as_posix(), root.resolve().as_posix()}, key=len, reverse=True):
        base = base.rstrip("/")
        if base:
            text = text.replace(base + "/", "").replace(base, ".")
    return text


def _target(tool: str, tool_input: dict[str, Any], root: Path) -> str:
    # a value that is not a string (an object, a list) names nothing: not its repr
    for key in ("file_path", "notebook_path", "path"):
        if tool_input.get(key) and isinstance(tool_input[key], str):
            return rel_path(root, tool_input[key])
    # the project's path is made relative before the cut: a cut through it would leave a
    # machine-specific prefix no later pass recognises
    if tool == "Bash":
        return norm(portable(root, _text(tool_input.get("command"))))[:200]
    # a task's subject is its title, its description the long text under it
    for key in ("pattern", "url", "query", "subject", "description", "prompt", "skill"):
        if tool_input.get(key) and isinstance(tool_input[key], str):
            return norm(portable(root, tool_input[key]))[:120]
    return ""


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        parts = [str(value.get(k) or "") for k in ("stdout", "stderr", "error", "output")]
        joined = "\n".join(p for p in parts if p)
        return joined or json.dumps(value, sort_keys=True, ensure_ascii=False)[:4000]
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    return "" if value is None else str(value)


def user_feedback(error: str) -> str:
    """The words a user typed when rejecting a tool call ("" when there are none)."""
    match = _FEEDBACK.search(error or "")
    return norm(match.group(1)) if match else ""


class Capture:
    """Writes one session's events into the journal and its transient tier."""

    def __init__(
        self,
        root: Path,
        journal: Journal,
        session: str,
        track: str,
        session_dir: Path,
        limits: Any,
        lock: Callable[[], AbstractContextManager[None]],
        scrub: Callable[[str], str] | None = None,
    ) -> None:
        self.lock = lock
        #: secret redaction for what the transient files keep (work log, test output, diff)
        self.scrub = scrub or (lambda text: text)
        self.root = root
        self.journal = journal
        self.session = session
        self.track = track
        self.dir = session_dir
        self.limits = limits

    # -- tools ----------------------------------------------------------------------------

    def tool(self, payload: dict[str, Any], *, failed: bool) -> None:
        tool = str(payload.get("tool_name") or "")
        tool_input = payload.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        response = payload.get("tool_response")
        error = str(payload.get("error") or "") if failed else ""
        if not failed and isinstance(response, dict) and response.get("is_error"):
            failed, error = True, _text_of(response.get("error") or response)
        time = tool_use_time(
            read_tail(payload.get("transcript_path")), str(payload.get("tool_use_id") or "")
        )
        target = _target(tool, tool_input, self.root)
        interrupted = bool(payload.get("is_interrupt")) or (
            isinstance(response, dict) and bool(response.get("interrupted"))
        )
        outcome = "interrupted" if interrupted else ("error" if failed else "ok")
        self.journal.add(
            self.session,
            self.track,
            "tool",
            {"tool": tool, "target": target, "outcome": outcome},
            time,
        )
        self._work_log(time, tool, target, outcome)
        if failed:
            said = user_feedback(error)
            if said:
                self.journal.add(
                    self.session,
                    self.track,
                    "instruction",
                    self._read_forbids({"text": said, "via": "feedback"}),
                    time,
                )
        if tool in EDIT_TOOLS and not failed:
            path = rel_path(
                self.root, tool_input.get("file_path") or tool_input.get("notebook_path")
            )
            if path:
                self.journal.add(self.session, self.track, "edit", {"path": path}, time)
                self._refresh_diff()
        elif tool == "Bash":
            self._bash(tool_input, response, error, failed, interrupted, time)
        elif tool in PLAN_TOOLS and not failed:
            self._plan(tool, tool_input, response, time)

    def _bash(
        self,
        tool_input: dict[str, Any],
        response: Any,
        error: str,
        failed: bool,
        interrupted: bool,
        time: str,
    ) -> None:
        command = _text(tool_input.get("command"))
        if not testruns.is_test_command(command):
            return
        output = error if failed else _text_of(response)
        background = bool(tool_input.get("run_in_background")) or (
            isinstance(response, dict) and bool(response.get("backgroundTaskId"))
        )
        result = testruns.outcome(output, failed=failed, finished=not (interrupted or background))
        self.journal.add(
            self.session,
            self.track,
            "test",
            {"command": testruns.normalise(command), "outcome": result},
            time,
        )
        cap = self.limits.test_output_max_bytes
        tail = output.encode("utf-8", errors="replace")[-cap:].decode("utf-8", errors="ignore")
        report = f"$ {testruns.normalise(command)}\n[{result}]\n{tail}\n"
        self._write("test_output.txt", portable(self.root, report))

    # -- plan -----------------------------------------------------------------------------

    def _plan(self, tool: str, tool_input: dict[str, Any], response: Any, time: str) -> None:
        if tool == "TodoWrite":
            todos = tool_input.get("todos")
            if not isinstance(todos, list):
                return
            # a step whose text is not a string (an object, a list) is skipped, not
            # written into PLAN.md as Python's repr of it
            steps = [
                {
                    "id": f"P{i}",
                    "content": norm(t.get("content") or ""),
                    "status": _status(t.get("status")),
                }
                for i, t in enumerate(
                    (
                        t
                        for t in todos
                        if isinstance(t, dict) and isinstance(t.get("content") or "", str)
                    ),
                    start=1,
                )
            ]
            self.journal.add(
                self.session, self.track, "plan", {"source": "todo", "steps": steps}, time
            )
            return

        def change(current: dict[str, Any] | None) -> dict[str, Any] | None:
            tasks: dict[str, dict[str, Any]] = {}
            if current and current.get("source") == "tasks":
                tasks = {s["id"][1:]: dict(s) for s in current.get("steps", [])}
            if tool == "TaskCreate":
                task = response.get("task") if isinstance(response, dict) else None
                if not isinstance(task, dict) or not task.get("id"):
                    return current
                tid = str(task["id"])
                subject = _text(task.get("subject")) or _text(tool_input.get("subject"))
                tasks[tid] = {"id": f"T{tid}", "content": subject, "status": "pending"}
            elif tool == "TaskUpdate":
                tid = str(tool_input.get("taskId") or "")
                if tid not in tasks:
                    return current
                status = tool_input.get("status")
                if status == "deleted":
                    del tasks[tid]
                elif status:
                    tasks[tid]["status"] = _status(status)
                if _text(tool_input.get("subject")):
                    tasks[tid]["content"] = _text(tool_input["subject"])
            elif tool == "TaskList":
                listed = response.get("tasks") if isinstance(response, dict) else None
                if not isinstance(listed, list):
                    return current
                tasks = {}
                for item in listed:
                    if isinstance(item, dict) and item.get("id"):
                        tid = str(item["id"])
                        tasks[tid] = {
                            "id": f"T{tid}",
                            "content": _text(item.get("subject")),
                            "status": _status(item.get("status")),
                        }
            ordered = sorted(tasks.values(), key=lambda s: _task_order(s["id"][1:]))
            return {"source": "tasks", "steps": ordered}

        self.journal.update_latest(self.session, self.track, "plan", change, time)

    # -- prompts and notes ----------------------------------------------------------------

    def prompt(self, payload: dict[str, Any]) -> None:
        prompt = payload.get("prompt")
        text = prompt.strip() if isinstance(prompt, str) else ""  # an object is no prompt
        if not text:
            return
        entries = read_tail(payload.get("transcript_path"), 64 * 1024)
        time = entries[-1].get("timestamp", "") if entries else ""
        self.journal.add(
            self.session,
            self.track,
            "prompt",
            self._read_forbids({"text": text[:20000]}),
            str(time or ""),
        )

    def _read_forbids(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` with the files its words forbid editing (``forbids``: pattern and
        sentence pairs) and those it asks to edit (``permits``), the commands they forbid
        running (``forbids_commands``: each as a rule's forbidden command, quoting the
        sentence) and those they ask to run (``permits_commands``), read once here so the
        PreToolUse guardrail of every later tool call reads a few marked rows, not every
        prompt of a days-long session."""
        from charter.session.forbidden import forbidden_in, permitted_in
        from charter.session.forbidden_commands import (
            commands_forbidden_in,
            commands_permitted_in,
        )

        text, root = str(data["text"]), str(self.root)
        found, permitted = forbidden_in(text, root), permitted_in(text, root)
        if found:
            data = {**data, "forbids": [list(pair) for pair in found]}
        if permitted:  # asked to edit there after all: lifts earlier words (forbidden.py)
            data = {**data, "permits": [list(pair) for pair in permitted]}
        commands = commands_forbidden_in(text)
        if commands:
            data = {**data, "forbids_commands": [c.to_dict() for c in commands]}
        allowed = commands_permitted_in(text)
        if allowed:  # asked to run it after all: lifts earlier words (forbidden_commands.py)
            data = {**data, "permits_commands": [list(pair) for pair in allowed]}
        return data

    # -- transient files ------------------------------------------------------------------

    def _work_log(self, time: str, tool: str, target: str, outcome: str) -> None:
        """One line ``- <time> <tool> <target> → <outcome>``. The time is the transcript's
        (never the clock) and is missing when the transcript has not yet recorded the
        tool call; a plan tool has no target. A missing field is left out, not shown as
        a placeholder or a double space, so every line reads the same way."""
        fields = " ".join(field for field in (time, tool, target) if field)
        line = f"- {fields} → {outcome}".replace("\n", " ")
        line = self.scrub(portable(self.root, line)) + "\n"
        path = self.dir / "work_log.md"
        cap = self.limits.work_log_max_bytes
        self.dir.mkdir(parents=True, exist_ok=True)
        with self.lock():
            size = path.stat().st_size if path.exists() else 0
            if size == 0 or size + len(line.encode()) > cap:
                kept = ""
                if size:  # rolling window: keep the newer half
                    data = path.read_bytes()[-(cap // 2) :]
                    cut = data.find(b"\n")
                    kept = data[cut + 1 :].decode("utf-8", errors="ignore") if cut >= 0 else ""
                    if kept and not kept.endswith("\n"):
                        kept += "\n"  # a line torn by a killed writer stays on its own
                write_file(path, "# Work log (rolling window)\n" + kept + line, "worklog.roll")
                return
            fault_point("session.worklog")
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW)
            try:
                # A writer killed mid-line left no newline: start on a line of our own so
                # the torn line is the only damage (fileio.append_line's rule).
                if os.pread(fd, 1, size - 1) != b"\n":
                    line = "\n" + line
                write_all(fd, line.encode("utf-8"), "session.worklog")
            finally:
                os.close(fd)
            fault_point("session.worklog.done")

    def _write(self, name: str, text: str) -> None:
        with self.lock():  # every writer of a session file holds the lock (temp sweep)
            write_file(self.dir / name, self.scrub(text), "transient")

    def _refresh_diff(self) -> None:
        if not (self.root / ".git").exists():
            return
        cap = self.limits.recent_diff_max_bytes
        # Files over BIG_FILE are named, not diffed: git reads and diffs them line by line
        # (seconds of CPU and hundreds of MB for a rewritten 50 MB file, on every edit,
        # running into the timeout so no diff is written at all) for a text cut at ``cap``.
        listing = git_output_head(
            self.root, ["diff", "--raw", "-z", "--no-renames", "HEAD"], 1 << 20
        )
        if listing is None:
            return
        big: list[tuple[str, int]] = []
        fields = listing.split(b"\0")
        for meta, raw in zip(fields[::2], fields[1::2], strict=False):
            name = os.fsdecode(raw)
            if meta.endswith(b" D") or not name:
                continue
            try:
                size = (self.root / name).lstat().st_size
            except OSError:
                continue
            if size > BIG_FILE:
                big.append((name, size))
        out = git_output_head(
            self.root,
            [
                "diff",
                "--no-color",
                "--no-ext-diff",
                "-U1",
                "HEAD",
                "--",
                *(f":(top,exclude,literal){name}" for name, _ in big),
            ],
            cap + 1,
        )
        if out is None:
            return
        data = out[:cap].decode("utf-8", errors="ignore")
        if len(out) > cap:
            data += "\n[… diff cut at the session.recent_diff_max_bytes cap]\n"
        for name, size in big:
            data += f"[… {name}: changed, {size:,} bytes, too large to diff]\n"
        self._write("recent_diff.txt", data)


#: Changed files larger than this are named in ``recent_diff.txt``, not diffed.
BIG_FILE = 4 * 1024 * 1024
GIT_SECONDS = 5.0


def git_output_head(root: Path, args: list[str], limit: int) -> bytes | None:
    """The first ``limit`` bytes ``git ARGS`` writes (git is stopped there), or None when
    it fails or runs past :data:`GIT_SECONDS`: memory stays bounded by ``limit`` however
    large the output would be. ``--no-optional-locks``: a hook never takes the index's
    lock (``git diff`` may refresh a stale index) from under the agent's own git command."""
    try:
        proc = subprocess.Popen(
            ["git", "--no-optional-locks", "-C", str(root), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    finished = False
    deadline = monotonic() + GIT_SECONDS
    try:
        fd = proc.stdout.fileno()
        while size < limit:
            left = deadline - monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, min(1 << 16, limit - size))
            if not chunk:
                finished = True
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        if not finished:
            proc.kill()
        proc.stdout.close()
        code = proc.wait()
    if finished and code != 0:
        return None
    return b"".join(chunks)


def _text(value: object) -> str:
    """A plan step's text: a string, one line; anything else (an object, a list) is none."""
    return norm(value) if isinstance(value, str) else ""


def _status(value: object) -> str:
    text = str(value or "pending").lower()
    return text if text in {"pending", "in_progress", "completed", "cancelled"} else "pending"


def _task_order(tid: str) -> tuple[int, str]:
    return (int(tid), "") if tid.isdigit() else (1 << 30, tid)
