"""Kill -9 and parallel-writer trials for the SESSION store (tests and bench share them).

Every writer is a real ``charter`` subprocess fed what Claude Code sends: ``charter hook
pre-compact`` / ``post-tool-use`` with real hook JSON on stdin, ``charter session note
decision``, ``charter track switch``. It is killed with SIGKILL at a named write step
(``$CHARTER_FAULT``; the seams are ``session.<step>`` in ``charter.session`` and
``atomic.<file>`` between a temp file and its rename) or at a random moment. Then, as a
later reader and the next run would:

- **corrupted**: a reader right after the kill finds a task file that no longer parses,
  DECISIONS.md whose old bytes are not a prefix of the new ones, a torn plan or pointer,
  a torn compaction that recovery does not report, a work-log line glued to another, an
  unreadable journal, or the next run fails / leaves a temp file behind;
- **lost**: an acknowledged write (exit 0, or committed to the journal before the kill,
  which the next compaction must finish) missing after the next run, or a previous
  entry gone.

A compaction killed anywhere and re-run must end byte-identical to one that never died.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tests.conftest import commit_all
from tests.crash_support import CHARTER, Trial

CONFIG = '[embed]\nprovider = "hash"\n\n[hooks]\nwarm_worker = false\n'
SESSION = "s-1"
WORK_LOG_CAP = 65536


def _env(fault: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CHARTER_FAULT"}
    if fault:
        env["CHARTER_FAULT"] = fault
    return env


def run(
    argv: list[str], cwd: Path, stdin: str = "", fault: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, input=stdin, env=_env(fault), capture_output=True, text=True, timeout=300
    )


def run_killed(
    argv: list[str], cwd: Path, stdin: str, step: str, rng: random.Random, duration: float
) -> tuple[int, str]:
    """Run ``argv`` killed at ``step`` (fault seam) or, for ``random``, at a random time.

    Returns (exit code, stderr); -9 means it was killed.
    """
    if step != "random":
        done = run(argv, cwd, stdin, step)
        return done.returncode, done.stderr
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=_env(None),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    try:
        proc.wait(timeout=rng.uniform(0.3 * duration, 1.05 * duration))
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=300)
    err = proc.stderr.read() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    return proc.returncode, err


def hook(root: Path, event: str, payload: dict[str, Any]) -> tuple[list[str], str]:
    """(argv, stdin) of ``charter hook EVENT`` with Claude Code's JSON for ``root``."""
    name = "".join(part.title() for part in event.split("-"))
    body = {
        "session_id": SESSION,
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "hook_event_name": name,
        **payload,
    }
    return [*CHARTER, "hook", event], json.dumps(body)


def tool_call(
    root: Path, tool: str, tool_input: dict[str, Any], response: Any, use_id: str
) -> tuple[list[str], str]:
    return hook(
        root,
        "post-tool-use",
        {
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_response": response,
            "tool_use_id": use_id,
            "permission_mode": "default",
        },
    )


def edit(root: Path, rel: str, use_id: str) -> tuple[list[str], str]:
    path = str(root / rel)
    return tool_call(
        root,
        "Edit",
        {"file_path": path, "old_string": "a", "new_string": "b"},
        {"filePath": path, "oldString": "a", "newString": "b", "structuredPatch": []},
        use_id,
    )


def task_create(root: Path, tid: str, subject: str, use_id: str) -> tuple[list[str], str]:
    return tool_call(
        root,
        "TaskCreate",
        {"subject": subject, "description": subject},
        {"task": {"id": tid, "subject": subject}},
        use_id,
    )


def task_update(root: Path, tid: str, status: str, use_id: str) -> tuple[list[str], str]:
    return tool_call(
        root, "TaskUpdate", {"taskId": tid, "status": status}, {"success": True}, use_id
    )


def transcript_entry(uuid: str, stamp: str, text: str) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": uuid,
            "sessionId": SESSION,
            "timestamp": stamp,
            "isSidechain": False,
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        }
    )


#: The only notes an acknowledged session write prints (hooks fail open: any other note
#: on stderr, e.g. "skipped" or "no answer within 20s", means the write did not happen).
ACK_NOTES = ("charter: session compacted", "charter: finishing a compaction")


def acknowledged(done: subprocess.CompletedProcess[str]) -> bool:
    notes = [ln for ln in done.stderr.splitlines() if ln.strip()]
    return done.returncode == 0 and all(ln.startswith(ACK_NOTES) for ln in notes)


def must(argv_stdin: tuple[list[str], str], cwd: Path) -> subprocess.CompletedProcess[str]:
    argv, stdin = argv_stdin
    done = run(argv, cwd, stdin)
    assert acknowledged(done), (argv[-2:], done.returncode, done.stderr)
    return done


def note_decision(text: str, reason: str) -> tuple[list[str], str]:
    return [*CHARTER, "session", "note", "decision", text, "--reason", reason], ""


# -- what readers see ---------------------------------------------------------------------


def read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def temp_files(root: Path) -> list[str]:
    """Temp files of an interrupted atomic write left in the user's tree."""
    return sorted(
        p.relative_to(root).as_posix()
        for base in (root / "docs", root / "artifacts")
        if base.exists()
        for p in base.rglob(".*.tmp")
    )


def schema_problems(root: Path, track: str) -> list[str]:
    """Parse every task-tier file of ``track`` and the checkpoint as a reader would."""
    from charter.config import Project
    from charter.errors import CharterError
    from charter.session.compaction import CHECKPOINT_SCHEMA
    from charter.session.service import Session

    problems: list[str] = []
    session = Session(Project.load(root))
    try:
        active = session.tracks.active()
        if active not in session.tracks.list():
            problems.append(f"ACTIVE_TRACK names no track: {active!r}")
        session.task_tier(track)
        latest = root / "artifacts" / "checkpoints" / track / "latest.json"
        if latest.exists():
            data = json.loads(latest.read_text(encoding="utf-8"))
            if data.get("schema") != CHECKPOINT_SCHEMA:
                problems.append("latest.json has no checkpoint schema")
    except (CharterError, ValueError, OSError) as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        session.close()
    return problems


def journal_rows(root: Path) -> list[tuple[int, str, str, dict[str, Any]]]:
    """(seq, session, kind, data) of every journal event; raises on an unreadable file."""
    db = root / ".charter" / "session.db"
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"integrity_check: {check}")
        rows = conn.execute("SELECT seq, session, kind, data FROM session_events ORDER BY seq")
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]


def decision_ids(root: Path, track: str) -> list[str]:
    from charter.session.schema import parse_decisions

    text = read(root / "docs" / "tracks" / track / "DECISIONS.md")
    return [d.id for d in parse_decisions(text.decode())] if text else []


def plan_of(root: Path, session: str) -> list[tuple[str, str, str]]:
    """The session's live plan: the latest ``plan`` event (what TaskCreate/Update built)."""
    plans = [d for _, s, k, d in journal_rows(root) if s == session and k == "plan"]
    if not plans:
        return []
    return [(s["id"], s["content"], s["status"]) for s in plans[-1]["steps"]]


def work_log_lines(root: Path, session: str) -> list[str]:
    text = read(root / "artifacts" / "sessions" / session / "work_log.md")
    return text.decode("utf-8", errors="replace").splitlines() if text else []


def well_formed(line: str) -> bool:
    return line.startswith("# Work log") or (line.startswith("- ") and line.endswith(" → ok"))


# -- the scenario ---------------------------------------------------------------------------

TRACK = "alpha"
KILLED_LINE = "- Edit src/third.py → ok"
NEXT_LINE = "- Edit src/other.py → ok"
PENDING_TEXT = (
    "Plan settled.\n\nDecision: Adopt WAL mode for the journal\nReason: readers never block\n"
    "Impact: global\n\nRisk: Disk full during compaction\nSeverity: high\n"
    "Mitigation: check free space first\n"
)


@dataclass
class Op:
    """One kind of session write: how to run it, its steps, how to check it."""

    name: str
    steps: list[str]
    duration: float = 1.0


@dataclass
class _Reference:
    files: dict[str, bytes | None] = field(default_factory=dict)


class SessionScenario:
    """The session store's writers killed at each write step and at random moments."""

    name = "session"
    COMPACT_STEPS: ClassVar[list[str]] = [
        "session.compact.begin",
        "session.decisions",
        "atomic.DECISIONS.md",
        "session.decisions.done",
        "session.risks",
        "atomic.RISKS.md",
        "session.risks.done",
        "session.plan",
        "atomic.PLAN.md",
        "session.plan.done",
        "session.core",
        "atomic.CONTEXT_CORE.proposed.md",
        "session.core.done",
        "session.history",
        "atomic.00002.json",
        "session.history.done",
        "session.checkpoint",
        "atomic.latest.json",
        "session.checkpoint.done",
        "session.compact.done",
    ]
    DECISION_STEPS: ClassVar[list[str]] = [
        "session.journal",
        "session.journal.done",
        "session.decisions",
        "atomic.DECISIONS.md",
        "session.decisions.done",
    ]
    SWITCH_STEPS: ClassVar[list[str]] = [
        "session.track.switch",
        "atomic.ACTIVE_TRACK",
        "session.track.switch.done",
    ]
    EDIT_STEPS: ClassVar[list[str]] = [
        "session.journal",
        "session.journal.done",
        "session.worklog",
        "session.worklog.torn",
        "session.worklog.done",
        "session.journal@2",
        "session.journal.done@2",
        "session.transient",
        "atomic.recent_diff.txt",
        "session.transient.done",
    ]
    TASK_STEPS: ClassVar[list[str]] = ["session.journal@2", "session.journal.done@2"]
    ROLL_STEPS: ClassVar[list[str]] = [
        "session.worklog.roll",
        "atomic.work_log.md",
        "session.worklog.roll.done",
    ]
    OPS: ClassVar[dict[str, list[str]]] = {
        "compact": COMPACT_STEPS,
        "decision": DECISION_STEPS,
        "switch": SWITCH_STEPS,
        "edit": EDIT_STEPS,
        "task": TASK_STEPS,
        "roll": ROLL_STEPS,
    }

    def __init__(self, work: Path, ops: list[str] | None = None) -> None:
        self.work = work
        self.ops = ops or list(self.OPS)
        self.steps = [f"{op}:{step}" for op in self.ops for step in self.OPS[op]] + ["random"]
        self.template = self._build(work / "session-template")
        self.durations: dict[str, float] = {}
        self.reference: dict[str, dict[str, bytes | None]] = {}
        for op in self.ops:  # an undisturbed run of each op: its duration and outcome
            root = _copy(self.template, work / f"session-ref-{op}")
            self._prepare(op, root)
            argv, stdin = self._writer(op, root)
            started = time.perf_counter()
            done = run(argv, root, stdin)
            self.durations[op] = time.perf_counter() - started
            assert acknowledged(done), (op, done.stderr)
            self._next(op, root)
            self.reference[op] = self._snapshot(root)

    # -- the template project ------------------------------------------------------------

    def _build(self, root: Path) -> Path:
        root.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "charter.toml").write_text(CONFIG, encoding="utf-8")
        (root / "src").mkdir()
        for name in ("app.py", "other.py", "third.py"):
            (root / "src" / name).write_text(f"print('{name}')\n", encoding="utf-8")
        commit_all(root, "i")
        for argv in (["track", "new", "beta"], ["track", "new", TRACK]):
            assert run([*CHARTER, *argv], root).returncode == 0
        (root / "transcript.jsonl").write_text(
            transcript_entry(
                "a1", "2026-01-01T10:00:00Z", "Decision: Use SQLite for the journal\nReason: ACID"
            )
            + "\n",
            encoding="utf-8",
        )
        must(task_create(root, "1", "Write the crash seams", "t1"), root)
        must(task_create(root, "2", "Test every write step", "t2"), root)
        must(task_update(root, "1", "in_progress", "t3"), root)
        must(edit(root, "src/app.py", "t4"), root)
        must(note_decision("Keep the CLI thin", "front doors stay small"), root)
        must(([*CHARTER, "session", "note", "risk", "Lost writes", "--severity", "high"], ""), root)
        must(hook(root, "pre-compact", {"trigger": "auto"}), root)
        # pending for the next compaction: plan deltas, assistant decision + risk blocks
        must(task_create(root, "3", "Measure the bench", "t5"), root)
        must(task_update(root, "1", "completed", "t6"), root)
        with (root / "transcript.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(transcript_entry("a2", "2026-01-01T10:05:00Z", PENDING_TEXT) + "\n")
        (root / "src" / "app.py").write_text("print('changed')\n", encoding="utf-8")
        return root

    # -- one op ----------------------------------------------------------------------------

    def _prepare(self, op: str, root: Path) -> None:
        if op == "roll":  # the work log at its cap: the next line rolls the window
            log = root / "artifacts" / "sessions" / SESSION / "work_log.md"
            size = log.stat().st_size
            filler = "- Read src/filler.py → ok\n"
            with log.open("a", encoding="utf-8") as handle:
                handle.write(filler * ((WORK_LOG_CAP - size - 10) // len(filler.encode())))

    def _writer(self, op: str, root: Path) -> tuple[list[str], str]:
        if op == "compact":
            return hook(root, "pre-compact", {"trigger": "auto"})
        if op == "decision":
            return note_decision("Prefer explicit locks", "parallel hooks")
        if op == "switch":
            return [*CHARTER, "track", "switch", "beta"], ""
        if op == "task":
            return task_create(root, "7", "Killed task", "k1")
        return edit(root, "src/third.py", "k1")  # edit, roll

    def _next(self, op: str, root: Path) -> None:
        """The next run: it must complete and finish what the killed one committed."""
        if op == "compact":
            must(hook(root, "pre-compact", {"trigger": "auto"}), root)
        elif op == "decision":
            must(note_decision("Record every write step", "crash suite"), root)
            must(hook(root, "pre-compact", {"trigger": "auto"}), root)
        elif op == "switch":
            must(([*CHARTER, "track", "switch", "beta"], ""), root)
        elif op == "task":
            must(task_create(root, "8", "Next task", "n1"), root)
        else:
            must(edit(root, "src/other.py", "n1"), root)

    def _snapshot(self, root: Path) -> dict[str, bytes | None]:
        track = root / "docs" / "tracks" / TRACK
        names = {
            "DECISIONS.md": track / "DECISIONS.md",
            "PLAN.md": track / "PLAN.md",
            "RISKS.md": track / "RISKS.md",
            "latest.json": root / "artifacts" / "checkpoints" / TRACK / "latest.json",
            "proposal": root / "docs" / "context" / "CONTEXT_CORE.proposed.md",
            "ACTIVE_TRACK": root / "docs" / "tracks" / "ACTIVE_TRACK",
        }
        return {k: read(p) for k, p in names.items()}

    # -- a trial ----------------------------------------------------------------------------

    def trial(self, index: int, step: str, rng: random.Random) -> Trial:
        if step == "random":
            op, fault = rng.choice(self.ops), "random"
        else:
            op, _, fault = step.partition(":")
        root = _copy(self.template, self.work / f"session-{index}")
        self._prepare(op, root)
        before = self._snapshot(root)
        log_before = work_log_lines(root, SESSION)
        rows_before = journal_rows(root)
        argv, stdin = self._writer(op, root)
        started = time.perf_counter()
        code, _ = run_killed(argv, root, stdin, fault, rng, self.durations[op])
        trial = Trial(self.name, step, killed=code == -signal.SIGKILL)
        check = getattr(self, f"_check_{'edit' if op == 'roll' else op}")
        problems, lost = check(root, code, before, log_before, rows_before)
        trial.corrupted += len(problems)
        trial.lost += lost
        if problems:
            trial.detail = f"{op}/{fault}: {problems[0]}"
        elif lost:
            trial.detail = f"{op}/{fault}: {lost} acknowledged write(s) lost"
        trial.seconds = time.perf_counter() - started
        shutil.rmtree(root, ignore_errors=True)
        return trial

    def _common_after(self, root: Path, track: str) -> list[str]:
        problems = schema_problems(root, track)
        try:
            journal_rows(root)
        except (sqlite3.Error, ValueError) as exc:
            problems.append(f"journal unreadable: {exc}")
        return problems

    def _finish(self, op: str, root: Path, problems: list[str]) -> bool:
        """Run the next op; False (and a problem) when it fails."""
        try:
            self._next(op, root)
        except AssertionError as exc:
            problems.append(f"next run failed: {exc}")
            return False
        left = temp_files(root)
        if left:
            problems.append(f"temp files left after the next run: {left}")
        return True

    def _check_compact(
        self, root: Path, code: int, before: dict[str, bytes | None], *_: Any
    ) -> tuple[list[str], int]:
        from charter.config import Project
        from charter.session.compaction import interrupted
        from charter.session.recovery import recover
        from charter.session.service import Session

        problems = self._common_after(root, TRACK)
        now = self._snapshot(root)
        ref = self.reference["compact"]
        for name in ("PLAN.md", "RISKS.md", "latest.json", "proposal"):
            if now[name] not in (before[name], ref[name]):
                problems.append(f"{name} is neither the old nor the new file")
        old, new = before["DECISIONS.md"] or b"", now["DECISIONS.md"] or b""
        if not new.startswith(old):
            problems.append("DECISIONS.md: the old bytes are not a prefix (not append-only)")
        torn = [n for n in ("DECISIONS.md", "PLAN.md", "RISKS.md") if now[n] != before[n]]
        if now["latest.json"] == before["latest.json"] and torn:
            session = Session(Project.load(root))
            try:
                record = interrupted(session, TRACK)
                notes = recover(session, SESSION).notes
            finally:
                session.close()
            if record is None or sorted(record["files"]) != sorted(torn):
                problems.append(f"torn compaction ({torn} newer than the checkpoint) not noticed")
            elif not any("interrupted" in n for n in notes):
                problems.append("recovery does not report the torn compaction")
        if not self._finish("compact", root, problems):
            return problems, 0
        final = self._snapshot(root)
        lost = sum(final[k] != ref[k] for k in ref)  # the finished state is the clean one
        if lost:
            diff = [k for k in ref if final[k] != ref[k]]
            problems.append(f"after the next PreCompact {diff} differ from an undisturbed run")
        return problems, 0

    def _check_decision(
        self, root: Path, code: int, before: dict[str, bytes | None], *_: Any
    ) -> tuple[list[str], int]:
        from charter.session.schema import Decision

        problems = self._common_after(root, TRACK)
        old, new = before["DECISIONS.md"] or b"", read_decisions(root)
        if not new.startswith(old):
            problems.append("DECISIONS.md: the old bytes are not a prefix (not append-only)")
        killed_id = Decision.make("Prefer explicit locks", "parallel hooks", "", "user (cli)").id
        journaled = any(k == "decision" and d.get("id") == killed_id for _, _, k, d in _rows(root))
        base = decision_ids(self.template, TRACK)
        if not self._finish("decision", root, problems):
            return problems, 0
        ids = decision_ids(root, TRACK)
        if len(ids) != len(set(ids)):
            problems.append(f"a decision appears twice: {ids}")
        expected = set(base) | set(decision_ids_of(self.reference["decision"]))
        if code != 0 and not journaled:
            expected.discard(killed_id)
        lost = len(expected - set(ids))
        if not read_decisions(root).startswith(old):
            problems.append("DECISIONS.md rewritten by the next run")
        return problems, lost

    def _check_switch(
        self, root: Path, code: int, before: dict[str, bytes | None], *_: Any
    ) -> tuple[list[str], int]:
        problems = self._common_after(root, TRACK)
        pointer = read(root / "docs" / "tracks" / "ACTIVE_TRACK")
        if pointer not in (b"alpha\n", b"beta\n"):
            problems.append(f"ACTIVE_TRACK torn: {pointer!r}")
        lost = int(code == 0 and pointer != b"beta\n")
        for name in ("DECISIONS.md", "PLAN.md", "RISKS.md"):
            if read(root / "docs" / "tracks" / TRACK / name) != before[name]:
                problems.append(f"switching changed {name} of the old track")
        if self._finish("switch", root, problems):
            lost += int(read(root / "docs" / "tracks" / "ACTIVE_TRACK") != b"beta\n")
        return problems, lost

    def _check_task(
        self,
        root: Path,
        code: int,
        before: dict[str, bytes | None],
        log_before: list[str],
        rows_before: list[Any],
    ) -> tuple[list[str], int]:
        problems = self._common_after(root, TRACK)
        base_plan = plan_of(self.template, SESSION)
        now_plan = plan_of(root, SESSION)
        killed = ("T7", "Killed task", "pending")
        if now_plan not in (base_plan, [*base_plan, killed]):
            problems.append(f"live plan torn after the kill: {now_plan}")
        committed = killed in now_plan
        lost = int(code == 0 and not committed)
        if not self._finish("task", root, problems):
            return problems, lost
        expected = [*base_plan, *([killed] if committed else []), ("T8", "Next task", "pending")]
        final = plan_of(root, SESSION)
        if final != expected:
            lost += len(set(expected) - set(final)) or 1
            problems.append(f"plan after the next TaskCreate: {final}")
        return problems, lost

    def _check_edit(
        self,
        root: Path,
        code: int,
        before: dict[str, bytes | None],
        log_before: list[str],
        rows_before: list[Any],
    ) -> tuple[list[str], int]:
        problems = self._common_after(root, TRACK)
        lines = work_log_lines(root, SESSION)
        kept = len(lines) - 2  # a rolled window: header, the old log's tail, the new line
        rolled = (
            lines[:1] == log_before[:1]
            and 0 <= kept < len(log_before) - 1
            and lines[1:-1] == log_before[len(log_before) - kept :]
            and lines[-1] == KILLED_LINE
        )
        if not rolled and lines[: len(log_before)] != log_before:
            problems.append("work log: earlier lines changed")
        if not self._finish("edit", root, problems):
            return problems, 0
        lines = work_log_lines(root, SESSION)
        extra = [ln for ln in lines if not well_formed(ln)]
        if extra and not (code == -signal.SIGKILL and len(extra) == 1):
            problems.append(f"work log lines glued or torn: {extra[:2]}")
        if lines.count(NEXT_LINE) != 1:
            problems.append(f"the next run's work-log line is not there once: {lines[-3:]}")
        if lines.count(KILLED_LINE) > 1:
            problems.append("the killed run's work-log line is there twice")
        lost = int(code == 0 and KILLED_LINE not in lines)
        rows = journal_rows(root)
        base = rows[: len(rows_before)]
        if [r[:3] for r in base] != [r[:3] for r in rows_before]:
            problems.append("journal: earlier events changed")
        targets = [d.get("target") for _, s, k, d in rows[len(rows_before) :] if k == "tool"]
        if code == 0 and "src/third.py" not in targets:
            lost += 1
        if targets.count("src/other.py") != 1:
            lost += 1
        return problems, lost


def _copy(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    return dest


def _rows(root: Path) -> list[tuple[int, str, str, dict[str, Any]]]:
    try:
        return journal_rows(root)
    except (sqlite3.Error, ValueError):
        return []


def read_decisions(root: Path) -> bytes:
    return read(root / "docs" / "tracks" / TRACK / "DECISIONS.md") or b""


def decision_ids_of(snapshot: dict[str, bytes | None]) -> list[str]:
    from charter.session.schema import parse_decisions

    text = snapshot.get("DECISIONS.md")
    return [d.id for d in parse_decisions(text.decode())] if text else []


# -- parallel writers -------------------------------------------------------------------------


@dataclass
class SessionParallel:
    writers: int
    acknowledged: int
    lost: int
    corrupted: int
    failed: int
    detail: str = ""
    problems: list[str] = field(default_factory=list)


def parallel_session(work: Path, processes: int, rounds: int) -> SessionParallel:
    """``processes`` concurrent ``post-tool-use`` hooks per round on a brand-new project,
    with ``processes // 3`` concurrent ``session note decision`` and one ``pre-compact``.

    Each round mixes ``post-tool-use`` hooks (TaskCreate and TaskUpdate in one session,
    whose live plan is a read-modify-write of the journal; TodoWrite in another; Edit in a
    third), ``charter session note decision`` and one ``pre-compact``. Round ``r``
    completes the tasks round ``r - 1`` created, as an agent would. Then: every
    acknowledged capture must be in the journal and the work log once, every decision in
    DECISIONS.md exactly once, the live plan equal to what the deltas say, and PLAN.md and
    recovery equal to it after the last compaction.
    """
    root = work / "parallel-session"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text(CONFIG, encoding="utf-8")
    jobs_done: list[tuple[str, str, bool]] = []  # (kind, key, acknowledged)
    failures: list[str] = []
    created: list[str] = []
    todo_lists: list[list[str]] = []

    def job(spec: tuple[str, str, tuple[list[str], str]]) -> tuple[str, str, bool, str]:
        kind, key, (argv, stdin) = spec
        done = run(argv, root, stdin)
        return kind, key, acknowledged(done), done.stderr.strip()

    writers = 0
    for r in range(rounds):
        specs: list[tuple[str, str, tuple[list[str], str]]] = []
        for j in range(processes + processes // 3):
            # ``processes`` hooks (four tool kinds in turn), then the decision notes
            kind = ("task", "update", "edit", "todo")[j % 4] if j < processes else "decision"
            key = f"{r}-{j}"
            if kind == "task":
                tid = str(r * 100 + j)
                created.append(tid)
                specs.append(
                    (kind, tid, _as(root, "tasks", task_create(root, tid, f"T {key}", key)))
                )
            elif kind == "update":
                prev = [t for t in created if int(t) // 100 == r - 1]
                if not prev:  # nothing from the last round yet: one more task instead
                    tid = str(r * 100 + j)
                    created.append(tid)
                    spec = _as(root, "tasks", task_create(root, tid, f"T {key}", key))
                    specs.append(("task", tid, spec))
                    continue
                tid = prev[j // 4 % len(prev)]
                specs.append(
                    (kind, tid, _as(root, "tasks", task_update(root, tid, "completed", key)))
                )
            elif kind == "edit":
                rel = f"src/f{r}_{j}.py"
                specs.append((kind, rel, _as(root, "edits", edit(root, rel, key))))
            elif kind == "todo":
                todos = [f"todo {key} a", f"todo {key} b"]
                todo_lists.append(todos)
                payload = tool_call(
                    root,
                    "TodoWrite",
                    {
                        "todos": [
                            {"content": t, "status": "pending", "activeForm": t} for t in todos
                        ]
                    },
                    {"newTodos": [], "oldTodos": []},
                    key,
                )
                specs.append((kind, key, _as(root, "todo", payload)))
            else:
                text = f"Decision number {key} is final"
                specs.append((kind, text, note_decision(text, f"round {r}")))
        specs.append(("compact", str(r), hook(root, "pre-compact", {"trigger": "auto"})))
        writers += len(specs)
        with ThreadPoolExecutor(len(specs)) as pool:
            for kind, key, ok, err in pool.map(job, specs):
                jobs_done.append((kind, key, ok))
                if not ok:
                    failures.append(f"{kind} {key}: {err[:200]}")
    return _judge(root, jobs_done, failures, todo_lists, writers)


def _as(root: Path, session: str, argv_stdin: tuple[list[str], str]) -> tuple[list[str], str]:
    argv, stdin = argv_stdin
    body = json.loads(stdin)
    body["session_id"] = session
    return argv, json.dumps(body)


def _judge(
    root: Path,
    jobs: list[tuple[str, str, bool]],
    failures: list[str],
    todo_lists: list[list[str]],
    writers: int,
) -> SessionParallel:
    from charter.session.schema import parse_decisions, parse_plan

    problems: list[str] = list(failures)
    lost = 0
    corrupted = 0
    acknowledged = [(k, key) for k, key, ok in jobs if ok]
    # the agent's last word on the plan, after everything (so that the track's last plan
    # event is this session's, not a TodoWrite of the other one): one more task
    tasks_done = {key for k, key, ok in jobs if k == "update" and ok}
    created = [key for k, key, ok in jobs if k == "task" and ok]
    must(_as(root, "tasks", task_create(root, "99999", "Final task", "final")), root)
    created.append("99999")
    must(hook(root, "pre-compact", {"trigger": "auto"}), root)
    rows = journal_rows(root)
    tools = [(s, d.get("tool"), d.get("target")) for _, s, k, d in rows if k == "tool"]
    for kind, key in acknowledged:
        if kind == "edit" and tools.count(("edits", "Edit", key)) != 1:
            lost += 1
            problems.append(f"edit {key}: {tools.count(('edits', 'Edit', key))} journal events")
        if kind == "todo" and not any(s == "todo" and t == "TodoWrite" for s, t, _ in tools):
            lost += 1
    edits_log = work_log_lines(root, "edits")
    bad = [ln for ln in edits_log if not well_formed(ln)]
    corrupted += len(bad)
    if bad:
        problems.append(f"work log lines glued or torn: {bad[:2]}")
    for kind, key in acknowledged:
        if kind == "edit" and sum(ln.endswith(f" Edit {key} → ok") for ln in edits_log) != 1:
            lost += 1
            problems.append(f"edit {key}: not exactly one work-log line")
    # decisions: each acknowledged one exactly once
    track = (root / "docs" / "tracks" / "ACTIVE_TRACK").read_text().strip()
    tdir = root / "docs" / "tracks" / track
    decided = [d.decision for d in parse_decisions((tdir / "DECISIONS.md").read_text())]
    for kind, key in acknowledged:
        if kind == "decision" and decided.count(key) != 1:
            lost += decided.count(key) == 0
            corrupted += decided.count(key) > 1
            problems.append(f"decision {key!r} appears {decided.count(key)} times")
    # the live plan from TaskCreate/TaskUpdate deltas
    plan = plan_of(root, "tasks")
    expected = sorted((f"T{t}", "completed" if t in tasks_done else "pending") for t in created)
    got = sorted((sid, status) for sid, _, status in plan)
    if got != expected:
        missing = set(expected) - set(got)
        lost += len(missing) or 1
        problems.append(f"live plan differs from the deltas: missing {sorted(missing)[:4]}")
    todo_plans = [d for _, s, k, d in rows if s == "todo" and k == "plan"]
    for d in todo_plans:
        if [x["content"] for x in d["steps"]] not in todo_lists:
            corrupted += 1
            problems.append("a TodoWrite plan mixes two lists")
    acked_todos = sum(k == "todo" for k, _ in acknowledged)
    if len(todo_plans) != acked_todos:
        lost += max(0, acked_todos - len(todo_plans))
        problems.append(f"{len(todo_plans)} TodoWrite plans for {acked_todos} acknowledged")
    steps = parse_plan((tdir / "PLAN.md").read_text())
    if sorted((s.id, s.status) for s in steps) != expected:
        corrupted += 1
        problems.append("PLAN.md after the last compaction is not the live plan")
    rec = run([*CHARTER, "session", "recover", "--json", "--session", "tasks"], root)
    if rec.returncode != 0:
        corrupted += 1
        problems.append(f"recover failed: {rec.stderr.strip()}")
    else:
        recovered = json.loads(rec.stdout)["plan"]
        if sorted((p["id"], p["status"]) for p in recovered) != expected:
            corrupted += 1
            problems.append("recovered plan is not the live plan")
    detail = (
        f"{len(rows)} journal events, {len(decided)} decisions, {len(plan)} tasks, "
        f"{len(edits_log) - 1} work-log lines"
    )
    return SessionParallel(
        writers,
        len(acknowledged),
        lost,
        corrupted,
        len(failures),
        detail,
        problems,
    )
