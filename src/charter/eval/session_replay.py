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
from charter.eval import session_metrics as sm
from charter.eval import transcript as tr
from charter.eval.session_paths import PathMap, project_name, safe_rel
from charter.fileio import read_text

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
#: Fixed author/committer data: the stand-in repository is byte-identical across replays.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "replay",
    "GIT_AUTHOR_EMAIL": "replay@example.invalid",
    "GIT_COMMITTER_NAME": "replay",
    "GIT_COMMITTER_EMAIL": "replay@example.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}
MAX_EXAMPLES = 5


@dataclass
class Bars:
    """The pass bars; None switches a bar off."""

    min_plan: float | None = 1.0
    min_determinism: float | None = 1.0
    min_edited: float | None = 0.95
    min_constraints: float | None = 0.80
    max_crashes: int | None = 0
    max_context_ratio: float | None = 0.10
    min_tests: float | None = None
    max_blocks: int | None = None


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


@dataclass
class Session:
    key: str
    directory: Path
    transcript: Path
    labels: dict[str, Any]


def discover(data: Path, only: list[str] | None = None) -> list[Session]:
    """The session directories under ``data`` (``<key>/transcript.jsonl`` + labels)."""
    if not data.is_dir():
        raise CharterError(f"{data}: not a directory (expected session dirs with transcripts)")
    wanted = {k for k in (only or []) if k}
    sessions = []
    for sub in sorted(p for p in data.iterdir() if p.is_dir()):
        if wanted and sub.name not in wanted:
            continue
        transcript = sub / "transcript.jsonl"
        if not transcript.is_file():
            continue
        labels_path = sub / "labels.json"
        if not labels_path.is_file():
            raise CharterError(f"{labels_path}: missing (each session needs its labels)")
        try:
            labels = json.loads(read_text(labels_path, what="labels file"))
        except ValueError as exc:
            raise CharterError(f"{labels_path}: invalid JSON: {exc}") from None
        check_labels(labels_path, labels)
        sessions.append(Session(sub.name, sub, transcript, labels))
    missing = wanted - {s.key for s in sessions}
    if missing:
        raise CharterError(f"{data}: no session named {', '.join(sorted(missing))}")
    if not sessions:
        raise CharterError(f"{data}: no <key>/transcript.jsonl found")
    return sessions


def check_labels(path: Path, labels: Any) -> None:
    """The parts of labels.json the scorer reads, with the right types (else one error)."""
    if not isinstance(labels, dict):
        raise CharterError(f"{path}: expected a JSON object")
    mechanical = labels.get("mechanical")
    points = mechanical.get("points") if isinstance(mechanical, dict) else None
    if not isinstance(points, list):
        raise CharterError(f"{path}: mechanical.points must be a list of points")
    for n, point in enumerate(points):
        where = f"{path}: mechanical.points[{n}]"
        if not isinstance(point, dict) or not isinstance(point.get("id"), str):
            raise CharterError(f"{where}: each point needs an 'id' string")
        if not isinstance(point.get("line"), int):
            raise CharterError(f"{where}: 'line' must be an integer")
        for key, kind in (("plan", list), ("edited_files", list), ("test_runs", list)):
            if key in point and not isinstance(point[key], kind):
                raise CharterError(f"{where}: '{key}' must be a list")
    hand = labels.get("hand") or {}
    constraints = hand.get("user_constraints") if isinstance(hand, dict) else None
    if constraints is not None and not (
        isinstance(constraints, list)
        and all(
            isinstance(c, dict) and isinstance(c.get("key_terms", []), list) for c in constraints
        )
    ):
        raise CharterError(f"{path}: hand.user_constraints must be objects with key_terms lists")


# -- the pre-scan ------------------------------------------------------------------------


@dataclass
class Scan:
    """What the replay must know before it starts (one streaming pass over the file)."""

    cwd: str
    session_id: str
    model: str
    copy_prompts: set[int]
    seeded: list[str]  # files that existed before the session (relative), with seed content
    dirs: set[str]
    uuid_lines: dict[str, int]


def scan(session: Session, seed_dir: Path) -> Scan:
    """First pass: project path, model, resume-copy prompts, files to seed the repo with.

    A file the session edits must exist in the stand-in repository before its first
    edit; its content is the ``originalFile`` Claude Code recorded with that edit, when
    there is one. Seed files go straight to ``seed_dir`` so nothing large stays in memory.
    """
    labels = session.labels
    cwd = str(labels.get("cwd") or "")
    session_id = str(labels.get("session_id") or "")
    model = ""
    wanted_uuids = {
        str(c.get("revoked_by_uuid"))
        for c in (labels.get("hand") or {}).get("user_constraints") or []
        if isinstance(c, dict) and c.get("revoked_by_uuid")
    }
    uuid_lines: dict[str, int] = {}
    dupes = tr.DuplicateFilter()
    copy_prompts: set[int] = set()
    pending_prompt: int | None = None
    uses: dict[str, tuple[str, Any]] = {}
    touched: set[str] = set()
    seeded: list[str] = []
    dirs: set[str] = set()
    current_cwd = cwd
    paths: PathMap | None = None
    for line in tr.iter_lines(session.transcript):
        entry = line.entry
        if entry is None:
            continue
        if not cwd and isinstance(entry.get("cwd"), str):
            cwd = entry["cwd"]
        if not session_id and isinstance(entry.get("sessionId"), str):
            session_id = entry["sessionId"]
        if isinstance(entry.get("cwd"), str):
            current_cwd = entry["cwd"]
        if str(entry.get("uuid")) in wanted_uuids:
            uuid_lines[str(entry["uuid"])] = line.number
        if entry.get("isSidechain"):
            continue
        kind = entry.get("type")
        if kind == "assistant":
            message = entry.get("message")
            name = message.get("model") if isinstance(message, dict) else None
            if not model and isinstance(name, str) and name != "<synthetic>":
                model = name
            copy = dupes.assistant_is_copy(entry)
            if pending_prompt is not None:
                if copy:
                    copy_prompts.add(pending_prompt)
                pending_prompt = None
            if not copy:
                for block in tr.content_blocks(entry):
                    if block.get("type") == "tool_use" and block.get("name") in tr.EDIT_TOOLS:
                        uses[str(block.get("id"))] = (str(block.get("name")), block.get("input"))
        elif kind == "user":
            if tr.prompt_text(entry) is not None:
                pending_prompt = line.number
                continue
            for block in tr.content_blocks(entry):
                if block.get("type") != "tool_result" or dupes.seen_result(block):
                    continue
                use = uses.pop(str(block.get("tool_use_id")), None)
                if use is None or block.get("is_error"):
                    continue
                paths = paths or PathMap(cwd, seed_dir)
                _note_seed(
                    paths, current_cwd, use, entry.get("toolUseResult"), touched, seeded, dirs
                )
    return Scan(cwd, session_id or session.key, model, copy_prompts, seeded, dirs, uuid_lines)


def _target(tool_input: Any) -> str:
    if not isinstance(tool_input, dict):
        return ""
    return str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")


def _note_seed(
    paths: PathMap,
    current_cwd: str,
    use: tuple[str, Any],
    result: Any,
    touched: set[str],
    seeded: list[str],
    dirs: set[str],
) -> None:
    name, tool_input = use
    rel = paths.relative(_target(tool_input), current_cwd)
    if rel is None or not safe_rel(rel) or rel in touched:
        return
    touched.add(rel)
    parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
    if parent:
        dirs.add(parent)
    created = name == "Write" and not (isinstance(result, dict) and result.get("type") == "update")
    if created:
        return
    original = result.get("originalFile") if isinstance(result, dict) else None
    path = paths.temp_path(rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        original if isinstance(original, str) else "", encoding="utf-8", errors="surrogatepass"
    )
    seeded.append(rel)


# -- hook calls ----------------------------------------------------------------------------


@dataclass
class CallStats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    calls: int = 0
    crashes: int = 0
    blocks: int = 0
    crash_examples: list[dict[str, Any]] = field(default_factory=list)
    block_examples: list[dict[str, Any]] = field(default_factory=list)


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


@dataclass
class PointOutput:
    id: str
    line: int
    additional_context: str
    recover: dict[str, Any]
    recover_ok: bool
    masked: str  # recover stdout + additionalContext with temp paths masked
    transcript_chars: int


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
        if self.seed_dir.is_dir():
            shutil.copytree(self.seed_dir, self.project, dirs_exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)
        for rel in sorted(self.info.dirs):
            self.paths.temp_path(rel).mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **_GIT_ENV}
        for args in (
            ["git", "init", "-q", "-b", "main"],
            ["git", "add", "-A"],
            ["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", "before the session"],
        ):
            done = subprocess.run(args, cwd=self.project, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise CharterError(f"git {args[1]} failed in {self.project}: {done.stderr.strip()}")
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
        rel = self.paths.relative(_target(tool_input), self.cwd)
        if rel is None or not safe_rel(rel) or not isinstance(tool_input, dict):
            return
        path = self.paths.temp_path(rel)
        with contextlib.suppress(OSError, ValueError):  # a name the stand-in cannot hold
            apply_edit(path, name, tool_input, result)


def apply_edit(path: Path, name: str, tool_input: dict[str, Any], result: Any) -> None:
    """Apply a Write / Edit / MultiEdit / NotebookEdit the way Claude Code did."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if name == "Write":
        path.write_text(
            str(tool_input.get("content", "")), encoding="utf-8", errors="surrogatepass"
        )
        return
    text = path.read_text(encoding="utf-8", errors="surrogatepass") if path.is_file() else ""
    if name == "NotebookEdit":
        text = _notebook_edit(text, tool_input)
    else:
        edits = tool_input.get("edits") if name == "MultiEdit" else [tool_input]
        original = result.get("originalFile") if isinstance(result, dict) else None
        first = edits[0] if isinstance(edits, list) and edits else {}
        if (
            isinstance(original, str)
            and isinstance(first, dict)
            and str(first.get("old_string", "")) not in text
        ):
            text = original  # the stand-in drifted from the real file: resync
        for edit in edits if isinstance(edits, list) else []:
            if not isinstance(edit, dict):
                continue
            old, new = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
            if old and old in text:
                text = (
                    text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
                )
            elif not old and not text:
                text = new
            else:
                text = text + ("" if text.endswith("\n") or not text else "\n") + new
    path.write_text(text, encoding="utf-8", errors="surrogatepass")


def _notebook_edit(text: str, tool_input: dict[str, Any]) -> str:
    source = str(tool_input.get("new_source", ""))
    try:
        notebook: dict[str, Any] = json.loads(text) if text.strip() else {}
        cells: list[dict[str, Any]] = notebook.setdefault("cells", [])
        notebook.setdefault("nbformat", 4)
        notebook.setdefault("nbformat_minor", 5)
        notebook.setdefault("metadata", {})
        cell_id = tool_input.get("cell_id")
        mode = tool_input.get("edit_mode") or "replace"
        index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
        cell: dict[str, Any] = {
            "cell_type": tool_input.get("cell_type") or "code",
            "source": source,
            "metadata": {},
        }
        if mode == "insert":
            cells.insert(0 if index is None else index + 1, cell)
        elif mode == "delete" and index is not None:
            cells.pop(index)
        elif index is not None:
            cells[index]["source"] = source
        else:
            cells.append(cell)
        return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    except (ValueError, AttributeError, TypeError):
        return text + source


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


# -- scoring ------------------------------------------------------------------------------


def score_session(
    session: Session, info: Scan, runs: list[Replay], seconds: float
) -> dict[str, Any]:
    """Per-point metrics of the first replay, determinism across replays, hook figures."""
    labels = session.labels
    mech = labels.get("mechanical") or {}
    label_points = [p for p in mech.get("points") or [] if isinstance(p, dict)]
    hand = [
        c for c in (labels.get("hand") or {}).get("user_constraints") or [] if isinstance(c, dict)
    ]
    first = runs[0]
    got = {p.id: p for p in first.points}
    by_line = {p.line: p for p in first.points}
    points = []
    for label in label_points:
        pid = str(label.get("id"))
        out = got.get(pid) or by_line.get(int(label.get("line") or -1))
        points.append(_score_point(label, hand, info, out, first, runs))
    stats = _merge_stats([r.stats for r in runs])
    row = pool(points)
    row.update(
        {
            "points": points,
            "hook_calls": stats.calls,
            "crashes": stats.crashes,
            "blocks": stats.blocks,
            "crash_examples": stats.crash_examples,
            "block_examples": stats.block_examples,
            "latency_ms": latency(stats.latencies),
            "recover_failures": sum(1 for p in first.points if not p.recover_ok),
            "seconds": round(seconds, 2),
        }
    )
    return row


def _score_point(
    label: dict[str, Any],
    hand: list[dict[str, Any]],
    info: Scan,
    out: PointOutput | None,
    first: Replay,
    runs: list[Replay],
) -> dict[str, Any]:
    recover = out.recover if out else {}
    text = recover.get("text") if isinstance(recover.get("text"), str) else ""
    visible = ((out.additional_context if out else "") + "\n" + str(text)).strip()
    plan, plan_unordered = sm.plan_scores(label.get("plan"), recover.get("plan"))
    files = [str(f) for f in label.get("edited_files") or []]
    edited = sm.edited_found(files, recover.get("edited_files"), visible, str(first.project))
    tests = sm.tests_found(
        [t for t in label.get("test_runs") or [] if isinstance(t, dict)], recover.get("test_runs")
    )
    held = sm.constraints_in_force(label, hand, info.uuid_lines)
    found = sm.constraints_found(held, visible)
    deterministic: bool | None = None
    if len(runs) > 1:
        outs = [next((p for p in r.points if out and p.id == out.id), None) for r in runs]
        deterministic = out is not None and all(
            o is not None and o.masked == out.masked for o in outs
        )
    transcript_tokens = (out.transcript_chars + 3) // 4 if out else 0
    visible_tokens = sm.tokens_of(visible)
    return {
        "id": str(label.get("id")),
        "line": label.get("line"),
        "replayed": out is not None,
        "recover_ok": bool(out and out.recover_ok),
        "plan": plan,
        "plan_unordered": plan_unordered,
        "edited_found": sum(edited),
        "edited_total": len(edited),
        "edited_missing": [f for f, ok in zip(files, edited, strict=True) if not ok][:20],
        "tests_found": sum(tests),
        "tests_total": len(tests),
        "constraints_found": sum(found.values()),
        "constraints_total": len(found),
        "constraints_missing": [k for k, ok in found.items() if not ok],
        "visible_tokens": visible_tokens,
        "transcript_tokens": transcript_tokens,
        "context_ratio": sm.ratio(visible_tokens, transcript_tokens),
        "deterministic": deterministic,
    }


def pool(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Micro-averages over points (each metric over the points where it is defined)."""
    plans = [p["plan"] for p in points if p["plan"] is not None]
    plans_u = [p["plan_unordered"] for p in points if p["plan_unordered"] is not None]
    ratios = [p["context_ratio"] for p in points if p["context_ratio"] is not None]
    dets = [p["deterministic"] for p in points if p["deterministic"] is not None]

    def frac(key: str) -> float | None:
        return sm.ratio(
            sum(p[f"{key}_found"] for p in points), sum(p[f"{key}_total"] for p in points)
        )

    return {
        "point_count": len(points),
        "plan_fidelity": sm.ratio(sum(plans), len(plans)),
        "plan_fidelity_unordered": sm.ratio(sum(plans_u), len(plans_u)),
        "edited_recall": frac("edited"),
        "test_recall": frac("tests"),
        "constraint_recall": frac("constraints"),
        "visible_tokens": sum(p["visible_tokens"] for p in points),
        "transcript_tokens": sum(p["transcript_tokens"] for p in points),
        "context_ratio": sm.ratio(sum(ratios), len(ratios)),
        "context_ratio_max": max(ratios) if ratios else None,
        "determinism": sm.ratio(sum(1 for d in dets if d), len(dets)),
    }


def latency(samples: dict[str, list[float]]) -> dict[str, dict[str, float | int | None]]:
    return {
        event: {
            "n": len(values),
            "p50": _round(sm.percentile(values, 50)),
            "p90": _round(sm.percentile(values, 90)),
        }
        for event, values in sorted(samples.items())
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _merge_stats(all_stats: list[CallStats]) -> CallStats:
    merged = CallStats()
    for stats in all_stats:
        merged.calls += stats.calls
        merged.crashes += stats.crashes
        merged.blocks += stats.blocks
        merged.crash_examples.extend(stats.crash_examples)
        merged.block_examples.extend(stats.block_examples)
        for event, values in stats.latencies.items():
            merged.latencies.setdefault(event, []).extend(values)
    merged.crash_examples = merged.crash_examples[:MAX_EXAMPLES]
    merged.block_examples = merged.block_examples[:MAX_EXAMPLES]
    return merged


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
        result = score_session(session, info, runs, time.perf_counter() - start)
        latencies = _merge_stats([r.stats for r in runs]).latencies
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


def check_bars(overall: dict[str, Any], bars: Bars, runs: int) -> list[str]:
    """Names of the bars that do not hold (a metric with no scored point holds vacuously)."""
    failed = []

    def low(name: str, metric: str, bar: float | None) -> None:
        value = overall.get(metric)
        if bar is not None and value is not None and value < bar - 1e-12:
            failed.append(f"{name} {value:.3f} < {bar:g}")

    def high(name: str, metric: str, bar: float | None) -> None:
        value = overall.get(metric)
        if bar is not None and value is not None and value > bar + 1e-12:
            failed.append(f"{name} {value:g} > {bar:g}")

    low("plan", "plan_fidelity", bars.min_plan)
    if runs > 1:
        low("determinism", "determinism", bars.min_determinism)
    low("edited", "edited_recall", bars.min_edited)
    low("constraints", "constraint_recall", bars.min_constraints)
    low("tests", "test_recall", bars.min_tests)
    high("crashes", "crashes", bars.max_crashes)
    high("blocks", "blocks", bars.max_blocks)
    high("ctx/transcript", "context_ratio", bars.max_context_ratio)
    return failed
