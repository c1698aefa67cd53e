"""Crash safety of every store: kill -9 at each write step and at random, parallel writers.

Real subprocesses (the ``charter`` CLI, or the library's log writer) are killed with
SIGKILL through the ``$CHARTER_FAULT`` seam (:func:`charter.fileio.fault_point`) or at a
random moment; then a reader and the next run must find the previous or the new state
whole (see ``tests/crash_support.py``). ``bench/crash_safety.py`` runs the same trials
by the hundred.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from charter.errors import CharterError
from charter.fileio import (
    TornState,
    commit_files,
    locked,
    locked_update_json,
    read_committed,
)
from tests.crash_support import (
    CHARTER,
    DecisionsScenario,
    LogScenario,
    RulesScenario,
    SearchScenario,
    Trial,
    charter,
    new_project,
    parallel_decisions,
    parallel_log,
)


def _assert_clean(trials: list[Trial], steps: list[str]) -> None:
    bad = [t for t in trials if t.lost or t.corrupted]
    assert not bad, [(t.step, t.lost, t.corrupted, t.detail) for t in bad]
    fault_steps = [s for s in steps if s != "random"]
    killed = {t.step for t in trials if t.killed}
    # every named step was really reached and killed the writer (the seam is live)
    assert set(fault_steps) <= killed, sorted(set(fault_steps) - killed)


def _run(scenario: object, steps: list[str], randoms: int, seed: int) -> list[Trial]:
    rng = random.Random(seed)
    plan = [s for s in steps if s != "random"] + ["random"] * randoms
    return [scenario.trial(i, step, rng) for i, step in enumerate(plan)]  # type: ignore[attr-defined]


def test_decisions_survive_kill_at_every_step(tmp_path: Path) -> None:
    scenario = DecisionsScenario(tmp_path)
    _assert_clean(_run(scenario, scenario.steps, 2, 1), scenario.steps)


def test_rules_compile_state_is_never_torn(tmp_path: Path) -> None:
    scenario = RulesScenario(tmp_path)
    _assert_clean(_run(scenario, scenario.steps, 1, 2), scenario.steps)


def test_search_index_and_bm25_survive_kill_at_every_step(tmp_path: Path) -> None:
    scenario = SearchScenario(tmp_path)
    _assert_clean(_run(scenario, scenario.steps, 1, 3), scenario.steps)


def test_actions_log_survives_torn_appends(tmp_path: Path) -> None:
    scenario = LogScenario(tmp_path)
    _assert_clean(_run(scenario, scenario.steps, 2, 4), scenario.steps)


def test_parallel_decision_writers_lose_nothing(tmp_path: Path) -> None:
    result = parallel_decisions(tmp_path, processes=12, rounds=2)
    assert result.acknowledged == 24, result.detail
    assert result.lost == 0 and result.corrupted == 0, result.detail
    res = charter("decisions", "verify", "--json", cwd=tmp_path / "parallel-decisions")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["ok"] and info["entries"] == 24 and info["problems"] == []


def test_parallel_log_writers_interleave_no_rows(tmp_path: Path) -> None:
    result = parallel_log(tmp_path, processes=8, rows_each=10)
    assert result.acknowledged == 80
    assert result.lost == 0 and result.corrupted == 0


def test_verify_catches_lost_update_that_the_hash_chain_hides(tmp_path: Path) -> None:
    """Two writers decide on the same stale read (what callers did before ``update``)."""
    from charter.config import Project
    from charter.decisions.models import PgcClarifications
    from charter.decisions.service import add_decision, store_for

    root = new_project(tmp_path / "p")
    project = Project.load(root)
    add_decision(project, {"id": "FIRST", "text": "q?", "answer_type": "yes_no", "answer": "yes"})
    store = store_for(project)
    stale = store.load()
    add_decision(project, {"id": "SECOND", "text": "q?", "answer_type": "yes_no", "answer": "no"})
    extra = add_decision.__globals__["build_clarification"](
        {"id": "THIRD", "text": "q?", "answer_type": "yes_no", "answer": "yes"},
        {"id": "THIRD", "text": "q?", "answer_type": "yes_no", "answer": "yes"},
        "add",
    )
    blind = PgcClarifications(pgc_clarifications=[*stale.pgc_clarifications, extra])
    store.write(blind, op="add", clarification_id="THIRD")  # chain intact, SECOND dropped
    store.verify()  # the hash chain alone cannot see it
    assert any("dropped SECOND" in p for p in store.audit())
    res = charter("decisions", "verify", cwd=root)
    assert res.returncode == 3
    assert res.stderr.startswith("charter: error: ") and "dropped SECOND" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_interrupted_decision_write_is_finished_by_the_next_one(tmp_path: Path) -> None:
    root = new_project(tmp_path / "p")
    args = ["decisions", "add", "--text", "q?", "--type", "yes_no", "--answer", "yes"]
    assert charter(*args, "--id", "ONE", cwd=root).returncode == 0
    env = {**os.environ, "CHARTER_FAULT": "decisions.history"}
    killed = subprocess.run(
        [*CHARTER, *args, "--id", "TWO"], cwd=root, env=env, capture_output=True, text=True
    )
    assert killed.returncode == -9
    res = charter("decisions", "verify", "--json", cwd=root)
    assert res.returncode == 0 and json.loads(res.stdout)["pending"] is True
    listed = json.loads(charter("decisions", "list", "--json", cwd=root).stdout)
    assert [e["id"] for e in listed["pgc_clarifications"]] == ["ONE"]  # old state, whole
    assert charter(*args, "--id", "THREE", cwd=root).returncode == 0
    listed = json.loads(charter("decisions", "list", "--json", cwd=root).stdout)
    assert [e["id"] for e in listed["pgc_clarifications"]] == ["ONE", "TWO", "THREE"]
    res = charter("decisions", "verify", "--json", cwd=root)
    assert json.loads(res.stdout) | {"sha256": ""} == {
        "ok": True,
        "entries": 3,
        "sha256": "",
        "pending": False,
        "problems": [],
    }


def test_commit_files_detects_a_torn_pair(tmp_path: Path) -> None:
    manifest = tmp_path / "state.meta.json"
    commit_files(manifest, {"a.bin": b"one", "b.bin": b"two"}, {"v": 1})
    meta, files = read_committed(manifest) or ({}, {})
    assert meta["v"] == 1 and files == {"a.bin": b"one", "b.bin": b"two"}
    (tmp_path / "a.bin").write_bytes(b"ONE")  # a later commit that died before its manifest
    with pytest.raises(TornState, match=r"a\.bin"):
        read_committed(manifest)
    assert read_committed(tmp_path / "missing.json") is None


def test_lock_refuses_a_planted_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    state = tmp_path / "state.json"
    (tmp_path / "state.json.lock").symlink_to(victim)
    with pytest.raises(CharterError, match="symlink"), locked(state):
        pass
    assert victim.read_text() == "precious"
    other = tmp_path / "other.json"
    with locked(other):
        pass
    assert oct((tmp_path / "other.json.lock").stat().st_mode & 0o777) == "0o600"


def test_locked_update_json_keeps_parallel_fields(tmp_path: Path) -> None:
    path = tmp_path / "sho.json"
    script = (
        "import sys\nfrom pathlib import Path\nfrom charter.fileio import locked_update_json\n"
        "for n in range(20):\n"
        "    locked_update_json(Path(sys.argv[1]), lambda d: {**d, f'{sys.argv[2]}{n}': n})\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), f"w{i}_"]) for i in range(6)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    data = locked_update_json(path, lambda d: None)
    assert len(data) == 120
