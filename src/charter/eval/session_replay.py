"""``charter eval session``: replay real Claude Code sessions through Charter's hooks.

Each session directory holds ``transcript.jsonl`` (Claude Code's own file) and
``labels.json``. The replay follows the protocol of ``shared/bench/session/README.md``:
a fresh git repository stands in for the project, the transcript is copied into a file
that grows line by line, and ``CHARTER_BIN hook <event>`` is called as a subprocess for
each event Claude Code would have sent (SessionStart, UserPromptSubmit, PreToolUse,
PostToolUse / PostToolUseFailure, Stop, PreCompact, SessionEnd), with the project as
working directory and ``$CLAUDE_PROJECT_DIR``. Edits are applied to the repository before
their PostToolUse so git sees real diffs; Bash commands are not run. At each compaction
and at the end the harness asks what the agent would be given (the SessionStart(compact)
answer plus ``CHARTER_BIN session recover --json``) and scores it against the labels.

Only subprocesses: the harness measures what Claude Code would see, latency included, and
works against any Charter build (or a stand-in) given as a command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charter.errors import CharterError
from charter.eval import transcript as tr
from charter.eval.session_data import Scan, Session, discover, scan, target_path
from charter.eval.session_paths import PathMap, project_name, safe_rel
from charter.eval.session_repo import apply_edit, make_repo
from charter.eval.session_score import (
    MAX_EXAMPLES,
    Bars,
    CallStats,
    PointOutput,
    RunOutput,
    check_bars,
    latency,
    merge_stats,
    pool,
    score_session,
)

HOOK_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "post-tool-use-failure": "PostToolUseFailure",
    "stop": "Stop",
    "pre-compact": "PreCompact",
    "session-end": "SessionEnd",
}
RECOVER = "session-recover"
PLACEHOLDER = "<REPLAY>"
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class ReplayOptions:
    charter_cmd: list[str]
    runs: int = 2
    jobs: int = 1
    event_names: str = "kebab"  # or "pascal"
    failures: str = "failure"  # or "post": failed results as PostToolUse
    timeout: float = 60.0
    keep: Path | None = None
    bars: Bars = field(default_factory=Bars)


# -- hook calls ----------------------------------------------------------------------------


@dataclass
class CallResult:
    code: int | None
    stdout: str
    stderr: str
    seconds: float


def run_command(
    cmd: list[str], stdin: str, cwd: Path, env: dict[str, str], timeout: float
) -> CallResult:
    """Run ``cmd``; on timeout kill its whole process group (code None)."""
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise CharterError(f"--charter-bin {cmd[0]}: cannot run it ({exc.strerror})") from None
    try:
        out, err = proc.communicate(stdin.encode("utf-8", "surrogatepass"), timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
        code = None
    seconds = time.perf_counter() - start
    return CallResult(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), seconds)


# -- one replay ----------------------------------------------------------------------------


class Replay:
    """One replay of one session in a fresh run directory."""

    def __init__(
        self, session: Session, info: Scan, seed_dir: Path, root: Path, opts: ReplayOptions
    ):
        self.session, self.info, self.opts = session, info, opts
        self.root = root
        self.project = root / project_name(info.cwd)
        self.copy = (
            root
            / "claude"
            / "projects"
            / self.project.name
            / f"{_safe_name(info.session_id)}.jsonl"
        )
        self.paths = PathMap(info.cwd, self.project)
        self.stats = CallStats()
        self.points: list[PointOutput] = []
        self.env = {**os.environ, "CLAUDE_PROJECT_DIR": str(self.project)}
        self.seed_dir = seed_dir
        self.cwd = info.cwd
        self.permission_mode = "default"
        self.line_no = 0
        self.chars = 0
        self._copy_handle: Any = None

    # setup -------------------------------------------------------------------------------

    def _make_repo(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        dirs = [self.paths.temp_path(rel) for rel in sorted(self.info.dirs)]
        make_repo(self.project, self.seed_dir, dirs)
        self.copy.parent.mkdir(parents=True, exist_ok=True)

    # hooks -------------------------------------------------------------------------------

    def _payload(self, event: str, **own: Any) -> dict[str, Any]:
        return {
            "session_id": self.info.session_id,
            "transcript_path": str(self.copy),
            "cwd": self.paths.temp_cwd(self.cwd),
            "permission_mode": self.permission_mode,
            "hook_event_name": HOOK_EVENTS[event],
            **own,
        }

    def hook(self, event: str, **own: Any) -> CallResult:
        if self._copy_handle is not None:
            self._copy_handle.flush()
        payload = self._payload(event, **own)
        name = HOOK_EVENTS[event] if self.opts.event_names == "pascal" else event
        result = run_command(
            [*self.opts.charter_cmd, "hook", name],
            json.dumps(payload, ensure_ascii=False),
            self.project,
            self.env,
            self.opts.timeout,
        )
        self._account(event, result)
        return result

    def _account(self, event: str, result: CallResult) -> None:
        stats = self.stats
        if event != RECOVER:
            stats.calls += 1
        stats.latencies.setdefault(event, []).append(result.seconds * 1000)
        reason = ""
        if result.code is None:
            reason = f"timeout after {self.opts.timeout:.0f}s"
        elif TRACEBACK in result.stderr:
            reason = "traceback on stderr"
        elif result.code not in (0, 2) and event != RECOVER:
            reason = f"exit {result.code}"
        if reason:
            stats.crashes += 1
            if len(stats.crash_examples) < MAX_EXAMPLES:
                stats.crash_examples.append(
                    {
                        "event": event,
                        "line": self.line_no,
                        "reason": reason,
                        "stderr": self._mask(result.stderr[-600:]),
                    }
                )
        elif result.code == 2 and event != RECOVER:
            stats.blocks += 1
            if len(stats.block_examples) < MAX_EXAMPLES:
                stats.block_examples.append(
                    {
                        "event": event,
                        "line": self.line_no,
                        "stderr": self._mask(result.stderr[-300:]),
                    }
                )

    def _mask(self, text: str) -> str:
        return text.replace(str(self.root), PLACEHOLDER)

    # the transcript copy -------------------------------------------------------------------

    def _append(self, line: tr.Line) -> None:
        assert self._copy_handle is not None
        text = self.paths.mask_json_line(line.raw) + "\n"
        self._copy_handle.write(text.encode("utf-8", "surrogateescape"))

    # points -------------------------------------------------------------------------------

    def _point(self, point_id: str, line: int, trigger: str) -> None:
        """PreCompact has fired and the boundary is in the copy: restore and record."""
        result = self.hook("session-start", source="compact", model=self.info.model)
        context = _additional_context(result.stdout)
        recover = run_command(
            [*self.opts.charter_cmd, "session", "recover", "--json"],
            "",
            self.project,
            self.env,
            self.opts.timeout,
        )
        self._account(RECOVER, recover)
        parsed: dict[str, Any] = {}
        ok = recover.code == 0
        if ok:
            try:
                obj = json.loads(recover.stdout)
                parsed = obj if isinstance(obj, dict) else {}
            except ValueError:
                ok = False
        masked = self._mask(recover.stdout) + "\n\0\n" + self._mask(context)
        self.points.append(PointOutput(point_id, line, context, parsed, ok, masked, self.chars))

    # the replay ---------------------------------------------------------------------------

    def run(self) -> None:
        self._make_repo()
        with self.copy.open("wb") as handle:
            self._copy_handle = handle
            try:
                self._replay()
            finally:
                self._copy_handle = None

    def _replay(self) -> None:
        info = self.info
        dupes = tr.DuplicateFilter()
        uses: dict[str, tuple[str, Any]] = {}
        turn_open = False
        last_text = ""
        pending: tuple[str, int, str] | None = None  # compaction waiting for its summary
        compactions = 0
        self.hook("session-start", source="startup", model=info.model)
        for line in tr.iter_lines(self.session.transcript):
            self.line_no = line.number
            entry = line.entry
            if pending is not None and not (entry is not None and tr.is_compact_summary(entry)):
                self._point(*pending)
                pending = None
            if entry is None or entry.get("isSidechain"):
                self._append(line)
                continue
            if isinstance(entry.get("cwd"), str):
                self.cwd = entry["cwd"]
            if isinstance(entry.get("permissionMode"), str):
                self.permission_mode = entry["permissionMode"]
            kind = entry.get("type")
            if tr.is_compact_boundary(entry):
                compactions += 1
                trigger = tr.compact_trigger(entry)
                self.hook("pre-compact", trigger=trigger, custom_instructions="")
                self._append(line)
                pending = (f"c{compactions}", line.number, trigger)
                continue
            if tr.is_compact_summary(entry):
                self._append(line)
                if pending is not None:
                    self._point(*pending)
                    pending = None
                continue
            if kind == "user":
                prompt = tr.prompt_text(entry)
                if prompt is not None:
                    if line.number not in info.copy_prompts:
                        if turn_open:
                            self._stop(last_text)
                        self.hook("user-prompt-submit", prompt=self.paths.mask_text(prompt))
                        self.chars += len(prompt)
                        turn_open, last_text = True, ""
                    self._append(line)
                    continue
                if tr.is_interrupt(entry):
                    turn_open = False
                self._results(line, entry, dupes, uses)
                continue
            self._append(line)
            if kind == "assistant":
                copy = dupes.assistant_is_copy(entry)
                if copy:
                    continue
                self.chars += tr.content_chars(entry)
                for block in tr.content_blocks(entry):
                    if block.get("type") == "text" and str(block.get("text", "")).strip():
                        last_text = str(block["text"])
                    elif block.get("type") == "tool_use":
                        tool_id = str(block.get("id", ""))
                        name = str(block.get("name", ""))
                        uses[tool_id] = (name, block.get("input"))
                        self.hook(
                            "pre-tool-use",
                            tool_name=name,
                            tool_input=self.paths.mask_value(block.get("input")),
                            tool_use_id=tool_id,
                        )
        if pending is not None:
            self._point(*pending)
        self.line_no += 1
        if turn_open:
            self._stop(last_text)
        self.hook("pre-compact", trigger="auto", custom_instructions="")
        self._point("end", self.line_no, "auto")
        self.hook("session-end", reason="other")

    def _stop(self, last_text: str) -> None:
        self.hook(
            "stop", stop_hook_active=False, last_assistant_message=self.paths.mask_text(last_text)
        )

    def _results(
        self,
        line: tr.Line,
        entry: dict[str, Any],
        dupes: tr.DuplicateFilter,
        uses: dict[str, tuple[str, Any]],
    ) -> None:
        """Tool results: apply edits, then PostToolUse / PostToolUseFailure, then the line."""
        blocks = [b for b in tr.content_blocks(entry) if b.get("type") == "tool_result"]
        structured = entry.get("toolUseResult") if len(blocks) == 1 else None
        for block in blocks:
            if dupes.seen_result(block):
                continue
            use = uses.pop(str(block.get("tool_use_id", "")), None)
            if use is None:
                continue
            name, tool_input = use
            text = tr.block_text(block.get("content"))
            self.chars += len(text)
            common = {
                "tool_name": name,
                "tool_input": self.paths.mask_value(tool_input),
                "tool_use_id": str(block.get("tool_use_id")),
            }
            if block.get("is_error"):
                interrupt = tr.INTERRUPT_PREFIX in text or (
                    isinstance(structured, dict) and bool(structured.get("interrupted"))
                )
                error = self.paths.mask_text(text)
                if self.opts.failures == "post":
                    self.hook(
                        "post-tool-use",
                        **common,
                        tool_response={"error": error, "is_error": True},
                    )
                else:
                    self.hook(
                        "post-tool-use-failure", **common, error=error, is_interrupt=interrupt
                    )
                continue
            if name in tr.EDIT_TOOLS:
                self._apply(name, tool_input, structured)
            response = structured if structured is not None else text
            self.hook("post-tool-use", **common, tool_response=self.paths.mask_value(response))
        self._append(line)

    def _apply(self, name: str, tool_input: Any, result: Any) -> None:
        """Make the edit in the stand-in repository (inside the project only)."""
        rel = self.paths.relative(target_path(tool_input), self.cwd)
        if rel is None or not safe_rel(rel) or not isinstance(tool_input, dict):
            return
        path = self.paths.temp_path(rel)
        with contextlib.suppress(OSError, ValueError):  # a name the stand-in cannot hold
            apply_edit(path, name, tool_input, result)


def _additional_context(stdout: str) -> str:
    """The hook's ``hookSpecificOutput.additionalContext``; plain stdout counts too."""
    text = stdout.strip()
    if not text:
        return ""
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    if isinstance(obj, dict):
        specific = obj.get("hookSpecificOutput")
        if isinstance(specific, dict) and isinstance(specific.get("additionalContext"), str):
            return str(specific["additionalContext"])
        return ""
    return text


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "session"


def stop_warm_worker(project: Path) -> None:
    """End the warm worker Charter's SessionStart hook started for this stand-in project.

    The harness started it (through the hook), so it ends it rather than leaving one idle
    process per replayed session; a worker of another Charter build idles out by itself
    once the project directory is gone.
    """
    try:
        from charter.paths import worker_socket

        lock = worker_socket(project).with_suffix(".lock")
        pid = int(lock.read_text().strip() or "0")
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if pid > 0 and b"charter" in cmdline and str(project).encode() in cmdline:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


# -- the whole benchmark ------------------------------------------------------------------


def replay_session(session: Session, opts: ReplayOptions) -> dict[str, Any]:
    """Replay one session ``opts.runs`` times and score it."""
    start = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix=f"charter-replay-{_safe_name(session.key)}-"))
    try:
        info = scan(session, base / "seed")
        runs: list[Replay] = []
        for n in range(1, max(1, opts.runs) + 1):
            root = (opts.keep / session.key / f"run{n}") if opts.keep else base / f"run{n}"
            if root.exists():
                shutil.rmtree(root)
            replay = Replay(session, info, base / "seed", root, opts)
            try:
                replay.run()
            finally:
                stop_warm_worker(replay.project)
            runs.append(replay)
        outputs = [RunOutput(r.points, r.stats, str(r.project)) for r in runs]
        result = score_session(
            session.labels, info.uuid_lines, outputs, time.perf_counter() - start
        )
        latencies = merge_stats([r.stats for r in runs]).latencies
    finally:
        shutil.rmtree(base, ignore_errors=True)
    result["_latencies"] = latencies
    return result


def evaluate_sessions(
    data: Path,
    opts: ReplayOptions,
    only: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Replay every session under ``data``; per-session rows, pooled figures, bar verdict."""
    sessions = discover(data, only)
    lock = threading.Lock()
    done: list[str] = []

    def work(session: Session) -> dict[str, Any]:
        result = replay_session(session, opts)
        with lock:
            done.append(session.key)
            if progress:
                progress(f"replayed {len(done)}/{len(sessions)} sessions ({session.key})")
        return result

    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool_:
        results = list(pool_.map(work, sessions))
    per_session: dict[str, Any] = {}
    all_points: list[dict[str, Any]] = []
    samples: dict[str, list[float]] = {}
    crashes = blocks = calls = 0
    for session, result in zip(sessions, results, strict=True):
        for event, values in result.pop("_latencies").items():
            samples.setdefault(event, []).extend(values)
        per_session[session.key] = result
        all_points.extend(result["points"])
        crashes += result["crashes"]
        blocks += result["blocks"]
        calls += result["hook_calls"]
    overall = pool(all_points)
    overall.update(
        {
            "sessions": len(sessions),
            "hook_calls": calls,
            "crashes": crashes,
            "blocks": blocks,
            "latency_ms": latency(samples),
            "recover_failures": sum(r["recover_failures"] for r in per_session.values()),
        }
    )
    failed = check_bars(overall, opts.bars, opts.runs)
    overall["pass"] = not failed
    overall["failed_bars"] = failed
    return {
        "sessions": per_session,
        "overall": overall,
        "bars": {k: v for k, v in vars(opts.bars).items()},
        "runs": opts.runs,
        "charter_bin": " ".join(opts.charter_cmd),
    }
