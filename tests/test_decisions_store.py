"""Hash chain, tamper detection, renegotiation history, crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from charter.config import Project
from charter.decisions import service
from charter.decisions.store import DecisionStore
from charter.errors import CharterError, TamperError
from tests.decisions_support import decisions, write_inputs


@pytest.fixture
def project(repo: Path) -> Project:
    proj = Project.load(repo)
    service.record(proj, decisions(), "merge")
    return proj


def test_record_writes_file_and_history(project: Project) -> None:
    store = service.store_for(project)
    assert store.load().canonical_text() == decisions().canonical_text()
    (entry,) = store.history()
    assert entry["op"] == "merge" and entry["seq"] == 1
    assert store.path.read_text(encoding="utf-8") == decisions().canonical_text()


def test_outside_edit_is_tamper_for_every_reader(
    project: Project, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    store = service.store_for(project)
    data = json.loads(store.path.read_text())
    data["pgc_clarifications"][0]["user_answer"] = "mobile"
    store.path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    with pytest.raises(TamperError):
        service.load_decisions(project)
    for args in (
        ["decisions", "list"],
        ["decisions", "invariants", "--json"],
        ["drift", "check", "-"],
        ["decisions", "renegotiate", "DATABASE", "--answer", "mongodb", "--reason", "x", "--yes"],
    ):
        res = run_charter(*args, cwd=project.root, stdin="hello")
        assert res.returncode == 3, (args, res.stdout, res.stderr)
        assert res.stderr.count("\n") == 1 and "changed outside renegotiation" in res.stderr
        assert "Traceback" not in res.stderr
    tpl = project.root / "t.md"
    tpl.write_text("$$PGC_INVARIANTS", encoding="utf-8")
    assert run_charter("render", str(tpl), cwd=project.root).returncode == 3
    # restore puts back the recorded state
    assert run_charter("decisions", "restore", cwd=project.root).returncode == 0
    assert service.load_decisions(project).canonical_text() == decisions().canonical_text()


def test_file_without_history_is_tamper(repo: Path) -> None:
    store = DecisionStore(repo / ".charter")
    store.path.parent.mkdir(parents=True)
    store.path.write_text(decisions().canonical_text(), encoding="utf-8")
    with pytest.raises(TamperError, match="no recorded history"):
        store.load()


def test_history_edit_breaks_the_chain(project: Project) -> None:
    service.renegotiate(project, "DATABASE", "mongodb", "scale-out reads")
    store = service.store_for(project)
    lines = store.history_path.read_text().splitlines()
    first = json.loads(lines[0])
    first["op"] = "import"
    lines[0] = json.dumps(first, sort_keys=True)
    store.history_path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TamperError, match="line 1"):
        store.load()


def test_renegotiation_appends_old_new_reason_time(project: Project) -> None:
    store = service.store_for(project)
    before = store.history_path.read_bytes()
    old, new, line = service.renegotiate(project, "TARGET_PLATFORM", "mobile", "field sales")
    after = store.history_path.read_bytes()
    assert after.startswith(before)  # append-only: earlier bytes untouched
    assert line["op"] == "renegotiate" and line["reason"] == "field sales"
    assert line["old"]["user_answer"] == "web" and line["new"]["user_answer"] == "mobile"
    assert line["time"].endswith("Z") and line["prev"] == json.loads(before)["hash"]
    assert old.user_answer == "web" and new.binding
    assert service.load_decisions(project).require("TARGET_PLATFORM").user_answer == "mobile"


def test_renegotiation_rules(project: Project) -> None:
    with pytest.raises(CharterError, match="not bound"):
        service.renegotiate(project, "THEME", "dark", "x")
    with pytest.raises(CharterError, match="reason"):
        service.renegotiate(project, "DATABASE", "mongodb", " ")
    with pytest.raises(CharterError, match="equals the bound one"):
        service.renegotiate(project, "DATABASE", "postgres", "x")
    with pytest.raises(CharterError, match="renegotiate DATABASE"):
        service.answer_decision(project, "DATABASE", "mongodb")
    updated = service.answer_decision(project, "BILLING", "usage")
    assert updated.binding and updated.binding_reason == "must_answered"


def test_crash_between_temp_write_and_rename_loses_nothing(project: Project) -> None:
    store = service.store_for(project)
    old_file = store.path.read_bytes()
    old_history = store.history_path.read_bytes()

    def crash() -> None:
        raise OSError("simulated power loss")

    current = store.load()
    changed = current.model_copy(deep=True)
    changed.pgc_clarifications[0].user_answer = "mobile"
    with pytest.raises(OSError):
        store.write(changed, op="renegotiate", reason="x", before_rename=crash)
    assert store.path.read_bytes() == old_file
    assert store.history_path.read_bytes().startswith(old_history)
    status = store.verify()  # not tamper: the last change simply never landed
    assert status.pending
    assert service.renegotiate(project, "DATABASE", "mongodb", "retry")[2]["seq"] == 3
    assert store.verify().pending is False


CRASHER = """
import sys, time
from pathlib import Path
from charter.config import Project
from charter.decisions import service
from charter.decisions.store import DecisionStore

proj = Project.load(sys.argv[1])
store = service.store_for(proj)
current = store.load()
changed = current.model_copy(deep=True)
changed.pgc_clarifications[1].user_answer = "mongodb"
def hang():
    print("ready", flush=True)
    time.sleep(60)
store.write(changed, op="renegotiate", reason="killed", before_rename=hang)
"""


def test_killed_writer_leaves_consistent_state(project: Project) -> None:
    store = service.store_for(project)
    old_file = store.path.read_bytes()
    old_history = store.history_path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHER, str(project.root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert store.path.read_bytes() == old_file
    assert store.history_path.read_bytes().startswith(old_history)
    assert store.verify().pending
    assert service.load_decisions(project).require("DATABASE").user_answer == "postgres"


def test_torn_history_line_is_skipped_and_chain_continues(project: Project) -> None:
    store = service.store_for(project)
    with open(store.history_path, "a", encoding="utf-8") as handle:
        handle.write('{"seq": 2, "op": "renegot')  # a write cut short, no newline
    assert store.verify().skipped_lines == 1
    service.renegotiate(project, "DATABASE", "mongodb", "after crash")
    status = store.verify()
    assert [e["seq"] for e in status.entries] == [1, 2] and status.skipped_lines == 1


def test_merge_cli_records_history(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    q, a = write_inputs(repo)
    res = run_charter("decisions", "merge", "--questions", str(q), "--answers", str(a), cwd=repo)
    assert res.returncode == 0, res.stderr
    res = run_charter("decisions", "history", "--json", cwd=repo)
    assert [e["op"] for e in json.loads(res.stdout)["history"]] == ["merge"]
    started = time.time()
    res = run_charter("decisions", "verify", "--json", cwd=repo)
    assert json.loads(res.stdout)["ok"] is True and time.time() - started < 60


def test_a_secret_is_never_recorded(project: Project) -> None:
    """Decisions are committed and served verbatim, with an append-only history: a key
    pasted as an answer is refused before anything is written."""
    from tests.secrets_support import make_secrets

    secrets = make_secrets()
    store = service.store_for(project)
    before = (store.path.read_bytes(), store.history_path.read_bytes())
    for value in (secrets["aws_key_id"], secrets["github"], secrets["stripe"]):
        spec = {"id": "CI_TOKEN", "text": "Which token does CI use?", "answer_type": "free_text"}
        with pytest.raises(CharterError, match="looks like a secret"):
            service.add_decision(project, {**spec, "answer": f"use {value}"})
        assert (store.path.read_bytes(), store.history_path.read_bytes()) == before
    where = "In Vault at secret/data/ci; CI reads CI_TOKEN from the environment"
    spec = {"id": "CI_TOKEN", "text": "Where does the CI token live?", "answer_type": "free_text"}
    service.add_decision(project, {**spec, "answer": where})
    assert store.load().get("CI_TOKEN").user_answer == where


def test_a_secret_already_stored_does_not_block_other_changes(project: Project) -> None:
    """A store written before the check (or with it off) can still change; only a secret
    the change itself brings is refused."""
    from charter.decisions.merge import build_clarification
    from charter.decisions.models import PgcClarifications
    from charter.decisions.store import Change
    from tests.secrets_support import make_secrets

    key = make_secrets()["github"]
    spec = {"id": "OLD", "text": "Legacy token?", "answer_type": "free_text", "answer": key}
    old = build_clarification(spec, spec, "add")
    blind = DecisionStore(project.state_dir)  # no scanner: as an older Charter wrote it
    blind.update(
        lambda cur: Change(
            PgcClarifications(pgc_clarifications=[*cur.pgc_clarifications, old]), "add"
        )
    )
    spec2 = {"id": "REGION", "text": "Which region?", "answer_type": "free_text", "answer": "EU"}
    service.add_decision(project, spec2)
    stored = service.store_for(project).load()
    assert stored.get("OLD") is not None and stored.get("REGION") is not None
