"""Crash safety and parallel writers of the SESSION store (issues 9 and 10).

Real ``charter`` subprocesses (``hook pre-compact`` / ``post-tool-use`` with Claude
Code's hook JSON on stdin, ``session note decision``, ``track switch``) are killed with
SIGKILL at each write step (``$CHARTER_FAULT``) and at random moments; a reader right
after the kill must find the previous state intact or the new one complete, every file
parsing, a torn compaction reported; the next run must complete and (for a compaction)
end byte-identical to a run that was never killed. ``tests/session_crash_support.py``
holds the scenario; ``bench/crash_safety.py`` runs it by the hundred.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.session.compaction import compact, interrupted
from charter.session.journal import Journal
from charter.session.service import Session
from tests.crash_support import Trial
from tests.session_crash_support import (
    CHARTER,
    SESSION,
    TRACK,
    SessionScenario,
    hook,
    must,
    parallel_session,
    plan_of,
    run,
    task_create,
)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> SessionScenario:
    return SessionScenario(tmp_path_factory.mktemp("session-crash"))


def _assert_clean(trials: list[Trial], steps: list[str]) -> None:
    bad = [(t.step, t.lost, t.corrupted, t.detail) for t in trials if t.lost or t.corrupted]
    assert not bad, bad
    killed = {t.step for t in trials if t.killed}
    # every named step was reached and killed the writer: the seam is live
    assert set(steps) <= killed, sorted(set(steps) - killed)


@pytest.mark.parametrize("op", list(SessionScenario.OPS))
def test_kill_at_every_session_write_step(scenario: SessionScenario, op: str) -> None:
    steps = [s for s in scenario.steps if s.startswith(f"{op}:")]
    assert steps
    trials = [scenario.trial(i, step, random.Random(i)) for i, step in enumerate(steps)]
    _assert_clean(trials, steps)


def test_kill_session_writers_at_random_moments(scenario: SessionScenario) -> None:
    rng = random.Random(10)
    trials = [scenario.trial(100 + i, "random", rng) for i in range(6)]
    _assert_clean(trials, [])


def test_parallel_session_writers_lose_nothing(tmp_path: Path) -> None:
    result = parallel_session(tmp_path, processes=12, rounds=3)
    assert result.writers == 3 * (12 + 4 + 1)  # hooks, decision notes, pre-compact
    assert result.failed == 0, result.problems
    assert result.acknowledged == result.writers, result.problems
    assert result.lost == 0 and result.corrupted == 0, result.problems


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text(
        '[embed]\nprovider = "hash"\n\n[hooks]\nwarm_worker = false\n', encoding="utf-8"
    )
    assert run([*CHARTER, "track", "new", TRACK], root).returncode == 0
    return root


def test_torn_compaction_is_reported_and_finished_by_the_next_pre_compact(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    must(task_create(root, "1", "Write the seams", "t1"), root)
    must(hook(root, "pre-compact", {"trigger": "auto"}), root)
    must(task_create(root, "2", "Kill at each one", "t2"), root)
    with (root / "transcript.jsonl").open("a", encoding="utf-8") as handle:
        text = "Decision: Journal first, files after\nReason: recovery replays the journal"
        message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
        entry = {"type": "assistant", "timestamp": "2026-01-02T00:00:00Z", "message": message}
        handle.write(json.dumps(entry) + "\n")
    clean = tmp_path / "clean"
    subprocess.run(["cp", "-a", str(root), str(clean)], check=True)
    must(hook(clean, "pre-compact", {"trigger": "auto"}), clean)

    argv, stdin = hook(root, "pre-compact", {"trigger": "auto"})
    killed = run(argv, root, stdin, fault="session.plan.done")  # DECISIONS + PLAN, no checkpoint
    assert killed.returncode == -9
    rec = run([*CHARTER, "session", "recover", "--json"], root)
    assert rec.returncode == 0, rec.stderr
    notes = json.loads(rec.stdout)["notes"]
    assert any("interrupted" in n and "PLAN.md" in n and "DECISIONS.md" in n for n in notes), notes
    state = json.loads(rec.stdout)
    assert [p["content"] for p in state["plan"]] == ["Write the seams", "Kill at each one"]
    assert "Journal first, files after" in [d["decision"] for d in state["decisions"]]

    done = must(hook(root, "pre-compact", {"trigger": "auto"}), root)
    assert "finishing a compaction that was interrupted" in done.stderr
    for rel in (
        f"docs/tracks/{TRACK}/DECISIONS.md",
        f"docs/tracks/{TRACK}/PLAN.md",
        f"artifacts/checkpoints/{TRACK}/latest.json",
        f"artifacts/checkpoints/{TRACK}/history/00002.json",
    ):
        assert (root / rel).read_bytes() == (clean / rel).read_bytes(), rel
    rec = run([*CHARTER, "session", "recover", "--json"], root)
    assert not any("interrupted" in n for n in json.loads(rec.stdout)["notes"])
    again = must(hook(root, "pre-compact", {"trigger": "auto"}), root)  # idempotent
    assert "nothing new" in again.stderr


def test_checkpoint_covers_only_the_events_it_read(tmp_path: Path, monkeypatch: Any) -> None:
    """A hook that journals an event while PreCompact runs must reach the NEXT compaction
    (the checkpoint used to record the journal's last seq, skipping that event for good)."""
    root = _project(tmp_path)
    must(task_create(root, "1", "First task", "t1"), root)
    real_heads = Journal.heads  # the read that fixes the range a compaction covers

    def heads_then_a_concurrent_hook(self: Journal, **kwargs: Any) -> Any:
        found = real_heads(self, **kwargs)
        if kwargs.get("after") is not None and not getattr(self, "_raced", False):
            self._raced = True  # type: ignore[attr-defined]
            # what TaskCreate's hook journals meanwhile (the journal takes no session lock)
            with Journal(self.path) as other:
                steps = [
                    {"id": "T1", "content": "First task", "status": "pending"},
                    {"id": "T2", "content": "Second task", "status": "pending"},
                ]
                other.add(SESSION, TRACK, "plan", {"source": "tasks", "steps": steps})
        return found

    monkeypatch.setattr(Journal, "heads", heads_then_a_concurrent_hook)
    session = Session(Project.load(root))
    try:
        compact(session, SESSION, trigger="auto")
    finally:
        session.close()
    monkeypatch.setattr(Journal, "heads", real_heads)
    assert [s[1] for s in plan_of(root, SESSION)] == ["First task", "Second task"]
    must(hook(root, "pre-compact", {"trigger": "auto"}), root)
    plan = (root / "docs" / "tracks" / TRACK / "PLAN.md").read_text(encoding="utf-8")
    assert "Second task" in plan
    rec = json.loads(run([*CHARTER, "session", "recover", "--json"], root).stdout)
    assert [p["content"] for p in rec["plan"]] == ["First task", "Second task"]
    session = Session(Project.load(root))
    assert interrupted(session, TRACK) is None
    session.close()


OPEN_JOURNAL = (
    "import sys\nfrom pathlib import Path\nfrom charter.session.journal import Journal\n"
    "with Journal(Path(sys.argv[1])) as j:\n    j.add('s', 't', 'tool', {'n': sys.argv[2]})\n"
)


def test_first_use_of_the_journal_by_parallel_hooks(tmp_path: Path) -> None:
    """A brand-new project's first tool calls run in parallel: each hook finds the journal
    unmigrated (the CREATE TABLE race used to crash one of them)."""
    for attempt in range(3):
        db = tmp_path / f"a{attempt}" / "session.db"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_JOURNAL, str(db), str(i)], stderr=subprocess.PIPE
            )
            for i in range(12)
        ]
        errors = [p.communicate(timeout=120)[1].decode() for p in procs]
        assert all(p.returncode == 0 for p in procs), [e for e in errors if e][:1]
        with Journal(db) as journal:
            assert sorted(e.data["n"] for e in journal.events()) == sorted(
                str(i) for i in range(12)
            )


def test_track_new_killed_before_its_switch_is_finished_by_the_next_one(tmp_path: Path) -> None:
    root = _project(tmp_path)
    killed = run([*CHARTER, "track", "new", "gamma"], root, fault="session.track.switch")
    assert killed.returncode == -9
    assert (root / "docs" / "tracks" / "ACTIVE_TRACK").read_text() == f"{TRACK}\n"  # intact
    done = run([*CHARTER, "track", "new", "gamma"], root)
    assert done.returncode == 0, done.stderr
    assert (root / "docs" / "tracks" / "ACTIVE_TRACK").read_text() == "gamma\n"
    (root / "docs" / "tracks" / "gamma" / "SPEC.md").write_text("# Spec\n", encoding="utf-8")
    again = run([*CHARTER, "track", "new", "gamma"], root)
    assert again.returncode != 0 and again.stderr.startswith("charter: error: ")
    assert "already exists" in again.stderr and "Traceback" not in again.stderr


def test_journal_opens_inside_another_hooks_migration_window(tmp_path: Path) -> None:
    """The race's window, made deterministic: another hook has created the table but not
    yet recorded its migration when this one opens the journal."""
    import sqlite3

    db = tmp_path / "session.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE _migrations (namespace TEXT NOT NULL, version INTEGER NOT NULL, "
            "PRIMARY KEY (namespace, version))"
        )
        conn.execute(
            "CREATE TABLE session_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT "
            "NOT NULL, track TEXT NOT NULL, kind TEXT NOT NULL, time TEXT NOT NULL DEFAULT '', "
            "data TEXT NOT NULL)"
        )
    with Journal(db) as journal:
        journal.add("s", "t", "tool", {"n": 1})
        assert [e.data for e in journal.events()] == [{"n": 1}]
