"""Retention of session history: ``charter session prune`` and SessionStart's daily prune.

A project with months of sessions is built through the real stores (journal, capture,
compaction, the inject-once store, the guardrails audit log), aged with real file times
and SQLite rows, then pruned by a real ``charter`` subprocess: by the settings, keeping
what a restore reads, killed with SIGKILL at each prune step (the previous state stays
whole and the next prune ends where an unkilled one does), and while parallel hooks write
(nothing they write is lost).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.rules.injected import take
from charter.session.compaction import compact
from charter.session.service import Session
from tests.session_crash_support import CHARTER, hook, run

TRACK = "alpha"
CURRENT = "s-current"
OLD = 40 * 86400
CONFIG = (
    '[embed]\nprovider = "hash"\n\n[hooks]\nwarm_worker = false\n\n'
    "[session.retention]\nkeep_sessions = 4\nkeep_checkpoints = 3\n"
    "injected_days = 30\naudit_max_entries = 100\nauto_prune = false\n"
)
AUDIT = "artifacts/guardrails/audit.jsonl"


def _tool(sid: str, n: int, root: Path, tool: str = "Bash", **extra: Any) -> dict[str, Any]:
    tool_input = extra.pop("tool_input", {"command": f"echo {sid} {n}"})
    return {
        "session_id": sid,
        "transcript_path": str(root / "none.jsonl"),
        "cwd": str(root),
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": extra.pop("tool_response", {"stdout": "ok"}),
        "tool_use_id": f"{sid}-{n}",
    }


def _age(path: Path, seconds: float) -> None:
    stamp = time.time() - seconds
    for p in [path, *path.rglob("*")]:
        os.utime(p, (stamp, stamp), follow_symlinks=False)


def build(root: Path) -> None:
    """Twelve sessions of a month ago and the current one: tool calls, edits, prompts,
    a plan, decisions, risks, five compactions, inject-once records and audit lines."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text(CONFIG, encoding="utf-8")
    (root / "docs" / "tracks" / TRACK).mkdir(parents=True)
    (root / "docs" / "tracks" / "ACTIVE_TRACK").write_text(TRACK + "\n", encoding="utf-8")
    session = Session(Project.load(root))
    try:
        for i in range(12):
            sid = f"s-{i:02d}"
            cap = session.capture(sid)
            for n in range(5):
                cap.tool(_tool(sid, n, root), failed=False)
            cap.tool(
                _tool(sid, 9, root, "Edit", tool_input={"file_path": str(root / f"f{i}.py")}),
                failed=False,
            )
            cap.prompt({"prompt": f"work item {i}", "transcript_path": ""})
            if i == 7:  # the newest plan of the track is this old session's
                cap.tool(
                    _tool(
                        sid,
                        7,
                        root,
                        "TodoWrite",
                        tool_input={"todos": [{"content": "Ship the parser", "status": "pending"}]},
                    ),
                    failed=False,
                )
            if i in (2, 3, 4, 5, 6):
                compact(session, sid, trigger="auto")
            if i == 6:  # after the last checkpoint, by an old session: the next
                # compaction reads it
                session.record_decision("Keep the parser pure", reason="tests", session="s-00")
            take(root / ".charter", sid, [f"rule-{i}", "rule-common"])
        cap = session.capture(CURRENT)
        cap.tool(_tool(CURRENT, 0, root), failed=False)
        cap.prompt({"prompt": "never pause the importer", "transcript_path": ""})
        take(root / ".charter", CURRENT, ["rule-1"])
    finally:
        session.close()
    with sqlite3.connect(root / ".charter" / "injected.db") as conn:
        conn.execute("UPDATE seen SET time = time - ? WHERE session != ?", (OLD, CURRENT))
    audit = root / AUDIT
    audit.parent.mkdir(parents=True, exist_ok=True)
    audit.write_text(
        "".join(json.dumps({"n": n, "tool": "Bash"}) + "\n" for n in range(150)), encoding="utf-8"
    )
    retry = root / ".charter" / "agent-hooks" / "gemini-retry-0123456789abcdef"
    retry.parent.mkdir(parents=True)
    retry.write_text("x", encoding="utf-8")
    for path in (root / "artifacts" / "sessions").iterdir():
        if path.name != CURRENT:
            _age(path, OLD)
    _age(retry, OLD)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prune") / "p"
    build(root)
    return root


def _copy(built: Path, dest: Path) -> Path:
    shutil.copytree(built, dest, symlinks=True)
    return dest


def rows(root: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(root / ".charter" / "session.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return [
            (r[0], r[1], r[2])
            for r in conn.execute("SELECT seq, session, kind FROM session_events ORDER BY seq")
        ]


def injected(root: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(root / ".charter" / "injected.db") as conn:
        # only the rules this test gave: `session recover` records what it hands over too
        found = conn.execute("SELECT session, rule FROM injected WHERE rule LIKE 'rule-%'")
        return {(r[0], r[1]) for r in found}


def listing(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for base in (root / "artifacts", root / "docs")
        for p in base.rglob("*")
    )


def state(root: Path) -> dict[str, Any]:
    """Everything a prune may change, as a later reader sees it."""
    audit = (root / AUDIT).read_text(encoding="utf-8").splitlines()
    return {
        "rows": rows(root),
        "injected": injected(root),
        "files": listing(root),
        "audit": [json.loads(line)["n"] for line in audit],
    }


def prune(root: Path, *args: str, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    return run([*CHARTER, "session", "prune", "--json", *args], root, fault=fault)


def recovered(root: Path, sid: str) -> dict[str, Any]:
    done = run([*CHARTER, "session", "recover", "--json", "--session", sid], root)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_prune_keeps_the_newest_sessions_and_everything_a_restore_reads(
    built: Path, tmp_path: Path
) -> None:
    root = _copy(built, tmp_path / "p")
    before = state(root)
    restore = recovered(root, CURRENT)
    latest = (root / "artifacts/checkpoints" / TRACK / "latest.json").read_bytes()
    named = json.loads(latest)["session_id"]
    assert named == "s-06"

    dry = prune(root, "--dry-run", "--keep-session", CURRENT)
    assert dry.returncode == 0, dry.stderr
    would = json.loads(dry.stdout)
    assert state(root) == before, "a dry run removed something"

    done = prune(root, "--keep-session", CURRENT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {**report, "dry_run": True} == would
    after = state(root)

    # the journal: exactly the reported events went, all of sessions beyond the newest 4
    gone = [r for r in before["rows"] if r not in after["rows"]]
    assert len(gone) == report["journal"]["events"] > 0
    sessions = {s for _, s, _ in before["rows"]}
    newest = sorted(sessions, key=lambda s: max(q for q, t, _ in before["rows"] if t == s))[-4:]
    assert CURRENT in newest
    assert not {s for _, s, _ in gone} & set(newest)
    assert {s for _, s, _ in gone} == set(report["journal"]["sessions"])
    # kept whatever their session's age: the newest plan (s-07), the decision not yet
    # compacted (s-00), the session the checkpoint names (s-06)
    kinds = {(s, k) for _, s, k in after["rows"]}
    assert ("s-07", "plan") in kinds and ("s-00", "decision") in kinds
    assert ("s-07", "tool") not in kinds and ("s-00", "prompt") not in kinds
    assert ("s-06", "tool") in kinds

    # checkpoints: latest.json untouched, the newest three history files
    assert (root / "artifacts/checkpoints" / TRACK / "latest.json").read_bytes() == latest
    history = sorted((root / "artifacts/checkpoints" / TRACK / "history").iterdir())
    assert [p.name for p in history] == ["00003.json", "00004.json", "00005.json"]
    assert len(report["checkpoints"]) == 2

    # session folders: only of sessions the journal keeps (and the checkpoint's)
    folders = sorted(p.name for p in (root / "artifacts" / "sessions").iterdir() if p.is_dir())
    assert folders == sorted({*newest, named})
    assert len(report["session_dirs"]) == 12 - len(set(folders) - {CURRENT})

    # inject-once: conversations not seen for 30 days went, the current one stayed
    assert after["injected"] == {(CURRENT, "rule-1")}
    assert report["injected"]["conversations"] == 12

    # the audit log: the newest 100 entries, in order
    assert after["audit"] == list(range(50, 150)) and report["audit_entries"] == 50
    assert report["retry_markers"] == 1

    # what a restore reads is the same
    assert recovered(root, CURRENT) == restore
    plan = recovered(root, "s-11")["plan"]
    assert [p["content"] for p in plan] == ["Ship the parser"]

    again = prune(root, "--keep-session", CURRENT)
    assert again.returncode == 0, again.stderr
    second = json.loads(again.stdout)
    assert second["journal"]["events"] == 0 and not second["session_dirs"]
    assert not second["checkpoints"] and second["audit_entries"] == 0
    assert state(root) == after


PRUNE_STEPS = [
    "session.journal.prune",
    "session.journal",
    "session.journal.done",
    "session.prune.checkpoint",
    "session.prune.checkpoint@2",
    "session.prune.dir",
    "session.prune.dir@5",
    "injected.prune",
    "compact.audit.jsonl",
    "compact.audit.jsonl.done",
]


@pytest.fixture(scope="module")
def reference(built: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = _copy(built, tmp_path_factory.mktemp("ref") / "p")
    done = prune(root, "--keep-session", CURRENT)
    assert done.returncode == 0, done.stderr
    return state(root)


@pytest.mark.parametrize("step", PRUNE_STEPS)
def test_prune_killed_at_each_step_leaves_a_whole_state(
    built: Path, reference: dict[str, Any], tmp_path: Path, step: str
) -> None:
    root = _copy(built, tmp_path / "p")
    before = state(root)
    restore = recovered(root, CURRENT)
    killed = prune(root, "--keep-session", CURRENT, fault=step)
    assert killed.returncode == -9, (step, killed.returncode, killed.stderr)
    now = state(root)  # every store parses: integrity ok, audit lines whole JSON
    # each store is either as it was or as a complete prune leaves it
    assert now["rows"] in (before["rows"], reference["rows"])
    assert now["injected"] in (before["injected"], reference["injected"])
    assert now["audit"] in (before["audit"], reference["audit"])
    # files: only removals of what the complete prune removes (history oldest first;
    # a session folder gone whole or renamed aside whole)
    extra = set(now["files"]) - set(before["files"])
    aside = ("/.pruned-", "/.audit.jsonl.")  # renamed aside; the compacted log's temp file
    assert all(any(mark in f for mark in aside) for f in extra), extra
    assert set(reference["files"]) <= set(now["files"])
    history = [f for f in now["files"] if "/history/" in f]
    assert history == sorted(history) and history[-1].endswith("00005.json")
    assert recovered(root, CURRENT) == restore
    done = prune(root, "--keep-session", CURRENT)
    assert done.returncode == 0, done.stderr
    assert state(root) == reference
    assert not list(root.rglob(".*.tmp"))


def test_parallel_hooks_lose_nothing_while_a_prune_runs(built: Path, tmp_path: Path) -> None:
    """Hooks of the current session (tool calls, guarded writes that are audited) run
    while ``session prune`` runs again and again, deleting and compacting under them."""
    for attempt in range(2):
        _parallel_round(_copy(built, tmp_path / f"p{attempt}"))


def _parallel_round(root: Path) -> None:
    procs: list[subprocess.Popen[str]] = []
    threads: list[threading.Thread] = []
    prunes: list[subprocess.CompletedProcess[str]] = []

    def start(argv_stdin: tuple[list[str], str]) -> None:
        argv, stdin = argv_stdin
        proc = subprocess.Popen(
            argv,
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        threads.append(threading.Thread(target=proc.communicate, args=(stdin, 300)))
        threads[-1].start()

    def prune_until_the_hooks_end() -> None:
        while True:  # at least once, and again while any hook still runs
            prunes.append(prune(root, "--keep-session", CURRENT))
            if procs and all(p.poll() is not None for p in procs):
                return

    pruner = threading.Thread(target=prune_until_the_hooks_end)
    pruner.start()
    for n in range(6):
        payload = _tool(CURRENT, 100 + n, root, tool_input={"command": f"echo p{n}"})
        start(hook(root, "post-tool-use", payload))
    for n in range(3):
        blocked = {
            **_tool(CURRENT, 200 + n, root, "Write"),
            "tool_input": {"file_path": str(root / ".git" / f"x{n}"), "content": "x"},
        }
        start(hook(root, "pre-tool-use", blocked))
    for thread in threads:
        thread.join(300)
    assert all(proc.wait(300) == 0 for proc in procs)
    pruner.join(300)
    assert prunes and all(p.returncode == 0 for p in prunes), [p.stderr for p in prunes]
    with sqlite3.connect(root / ".charter" / "session.db") as conn:
        targets = [
            json.loads(r[0])["target"]
            for r in conn.execute(
                "SELECT data FROM session_events WHERE session = ? AND kind = 'tool'", (CURRENT,)
            )
        ]
    assert {f"echo p{n}" for n in range(6)} <= set(targets), targets
    audit = [json.loads(line) for line in (root / AUDIT).read_text(encoding="utf-8").splitlines()]
    subjects = {str(a.get("subject", "")) for a in audit}
    assert {f".git/x{n}" for n in range(3)} <= subjects, subjects
    assert len(audit) >= 100


def test_session_start_prunes_at_most_once_a_day(built: Path, tmp_path: Path) -> None:
    root = _copy(built, tmp_path / "p")
    config = root / "charter.toml"
    config.write_text(
        config.read_text().replace("auto_prune = false", "auto_prune = true"), encoding="utf-8"
    )
    before = rows(root)
    argv, stdin = hook(root, "session-start", {"session_id": CURRENT, "source": "startup"})
    first = run(argv, root, stdin)
    assert first.returncode == 0, first.stderr
    assert "session history pruned" in first.stderr
    pruned = rows(root)
    assert len(pruned) < len(before)
    assert any(s == CURRENT for _, s, _ in pruned)
    # a tool call never prunes; nor does a second session start the same day
    session = Session(Project.load(root))
    try:
        for i in range(12, 20):
            session.capture(f"s-{i:02d}").tool(_tool(f"s-{i:02d}", 0, root), failed=False)
    finally:
        session.close()
    grown = rows(root)
    tool_argv, tool_stdin = hook(root, "post-tool-use", _tool(CURRENT, 300, root))
    tool = run(tool_argv, root, tool_stdin)
    assert tool.returncode == 0, tool.stderr
    second = run(argv, root, stdin)
    assert second.returncode == 0 and "pruned" not in second.stderr
    assert len(rows(root)) == len(grown) + 1


APPEND = (
    "import sys\nfrom pathlib import Path\nfrom charter.fileio import append_line\n"
    "for n in range(40):\n    append_line(Path(sys.argv[1]), f'{sys.argv[2]}-{n}')\n"
)
COMPACT = (
    "import sys\nfrom pathlib import Path\nfrom charter.fileio import compact_log\n"
    "for n in range(60):\n    compact_log(Path(sys.argv[1]), 1000)\n"
)


def test_log_compaction_loses_no_line_appended_meanwhile(tmp_path: Path) -> None:
    """Appenders waiting on the old file's lock while it is replaced append to the new
    one: every line written is in the log afterwards."""
    log = tmp_path / "audit.jsonl"
    log.write_text("".join(f"old-{n}\n" for n in range(1500)), encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, "-c", APPEND, str(log), f"w{i}"]) for i in range(6)]
    procs.append(subprocess.Popen([sys.executable, "-c", COMPACT, str(log)]))
    assert all(p.wait(300) == 0 for p in procs)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert {f"w{i}-{n}" for i in range(6) for n in range(40)} <= set(lines)
    assert len(lines) == len(set(lines)) and not [x for x in lines if x.startswith("old-4")]


def test_vacuum_gives_the_space_back_and_keeps_the_same_rows(
    built: Path, reference: dict[str, Any], tmp_path: Path
) -> None:
    root = _copy(built, tmp_path / "p")
    done = prune(root, "--keep-session", CURRENT, "--vacuum")
    assert done.returncode == 0, done.stderr
    sizes = json.loads(done.stdout)["vacuumed"]
    assert sizes["session.db"]["after"] < sizes["session.db"]["before"]
    assert sizes["session.db"]["after"] == (root / ".charter" / "session.db").stat().st_size
    assert state(root) == reference


@pytest.mark.parametrize(("lines", "keep", "torn"), [(10, 3, False), (10, 3, True), (5, 10, False)])
def test_log_compaction_streams_whole_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: int, keep: int, torn: bool
) -> None:
    """The log is read and copied a block at a time (memory stays one block however long
    it grew); lines that straddle blocks, and a last line torn by a killed writer, come
    through whole."""
    from charter import fileio

    monkeypatch.setattr(fileio, "_BLOCK", 7)
    log = tmp_path / "audit.jsonl"
    text = "".join(f"line-{i}\n" for i in range(lines))
    log.write_text(text[:-1] if torn else text, encoding="utf-8")
    assert fileio.compact_log(log, keep) == max(0, lines - keep)
    kept = log.read_text(encoding="utf-8")
    assert kept.splitlines() == [f"line-{i}" for i in range(max(0, lines - keep), lines)]
    assert kept.endswith("\n")


def test_nothing_outside_the_project_is_pruned(built: Path, tmp_path: Path) -> None:
    """Session folders and the audit log configured outside the project are left alone."""
    root = _copy(built, tmp_path / "p")
    outside = tmp_path / "outside"
    folder = outside / "sessions" / "s-00"
    folder.mkdir(parents=True)
    (folder / "work_log.md").write_text("# Work log\n", encoding="utf-8")
    _age(folder, OLD)
    log = outside / "audit.jsonl"
    log.write_text("".join(f'{{"n": {n}}}\n' for n in range(150)), encoding="utf-8")
    config = root / "charter.toml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + '\n[session]\nsessions_dir = "../outside/sessions"\n\n[session.guardrails]\n'
        'audit_log = "../outside/audit.jsonl"\n',
        encoding="utf-8",
    )
    done = prune(root, "--keep-session", CURRENT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["session_dirs"] == [] and report["audit_entries"] == 0
    assert (folder / "work_log.md").exists()
    assert len(log.read_text(encoding="utf-8").splitlines()) == 150
