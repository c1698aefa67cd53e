"""``charter eval session``: replay of Claude Code transcripts through hook subprocesses.

The sessions are synthetic but in Claude Code's own JSONL format; the Charter under test
is a stand-in script (tests/session_replay_support.py) that records what each hook call
received, so the protocol itself (order of events, payload fields, the growing
transcript copy, edits applied before PostToolUse) and every metric can be checked. One
test runs the real ``charter`` to show the harness survives a Charter without the
session commands.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from charter.eval import session_metrics as sm
from charter.eval.session_paths import PathMap
from charter.eval.session_replay import Bars, ReplayOptions, evaluate_sessions
from tests.conftest import CHARTER
from tests.session_replay_support import (
    SESSION_A,
    SESSION_B,
    session_a,
    session_b,
    stand_in,
    stand_in_log,
)

LOOSE = Bars(max_context_ratio=None)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    session_a(root)
    session_b(root)
    return root


def _replay(
    tmp_path: Path,
    data: Path,
    mode: str = "good",
    monkeypatch: pytest.MonkeyPatch | None = None,
    **kw: Any,
) -> dict[str, Any]:
    if monkeypatch is not None:
        monkeypatch.setenv("STANDIN_MODE", mode)
    only = kw.pop("only", None)
    opts = ReplayOptions(
        charter_cmd=shlex.split(stand_in(tmp_path)),
        runs=kw.pop("runs", 2),
        jobs=2,
        keep=kw.pop("keep", None),
        bars=kw.pop("bars", LOOSE),
        **kw,
    )
    return evaluate_sessions(data, opts, only)


def test_events_follow_the_protocol(tmp_path: Path, data: Path, monkeypatch) -> None:
    labels = session_a(data)
    t = labels["transcript"]
    keep = tmp_path / "keep"
    _replay(tmp_path, data, monkeypatch=monkeypatch, runs=1, keep=keep)
    project = keep / SESSION_A / "run1" / "proj"
    log = stand_in_log(project)
    events = [
        (r["event"], r["payload"].get("tool_name") or r["payload"].get("source")) for r in log
    ]
    assert events == [
        ("session-start", "startup"),
        ("user-prompt-submit", None),
        ("pre-tool-use", "TodoWrite"),
        ("post-tool-use", "TodoWrite"),
        ("pre-tool-use", "Edit"),
        ("post-tool-use", "Edit"),
        ("pre-tool-use", "Bash"),
        ("post-tool-use-failure", "Bash"),
        ("pre-tool-use", "Bash"),
        ("post-tool-use", "Bash"),
        # the resume copy of the first exchange fires nothing
        ("pre-compact", None),
        ("session-start", "compact"),
        ("stop", None),
        ("user-prompt-submit", None),
        ("pre-tool-use", "TodoWrite"),
        ("post-tool-use", "TodoWrite"),
        ("stop", None),
        ("pre-compact", None),
        ("session-start", "compact"),
        ("session-end", None),
    ]
    copy = Path(log[0]["payload"]["transcript_path"])
    for rec in log:
        p = rec["payload"]
        assert rec["cwd"] == str(project) == rec["env"] == p["cwd"]
        assert p["session_id"] == "aaaa-1111"
        assert p["transcript_path"] == str(copy)
        assert p["hook_event_name"][0].isupper() and "-" not in p["hook_event_name"]
    assert not copy.is_relative_to(project)  # the copy lives beside, not inside, the repo
    assert log[0]["payload"]["model"] == "claude-test-1"
    assert log[0]["payload"]["permission_mode"] == "default"
    assert log[1]["payload"]["permission_mode"] == "acceptEdits"
    # PreCompact sees the file up to the boundary; SessionStart(compact) also the summary.
    boundary = t.marks["boundary"]
    assert log[10]["copy_lines"] == boundary - 1
    assert log[11]["copy_lines"] == boundary + 1
    assert log[10]["payload"]["trigger"] == "manual"
    assert log[-3]["payload"]["trigger"] == "auto"
    assert log[-1]["payload"]["reason"] == "other"
    assert log[-2]["copy_lines"] == len(t.lines)
    # UserPromptSubmit fires before the prompt is written
    assert log[1]["copy_lines"] == t.marks["p1"] - 1
    assert log[1]["payload"]["prompt"].startswith("Add a greeting module.")
    # Edit applied to the repo before PostToolUse; paths masked to the temp project
    edit_pre, edit_post = log[4], log[5]
    assert edit_pre["payload"]["tool_input"]["file_path"] == str(project / "src/greet.py")
    assert edit_pre["payload"]["tool_use_id"] == "t2"
    assert edit_post["file_now"] == "# greetings\ndef greet() -> str:\n    return 'hi'\n"
    assert edit_post["payload"]["tool_response"]["filePath"] == str(project / "src/greet.py")
    assert edit_post["copy_lines"] == t.marks["edit_result"] - 1
    failure = log[7]["payload"]
    assert failure["error"] == "Exit code 1\n1 failed" and failure["is_interrupt"] is False
    assert "tool_response" not in failure
    assert log[9]["payload"]["tool_response"]["stdout"] == "1 passed"
    assert log[12]["payload"]["stop_hook_active"] is False
    assert log[12]["payload"]["last_assistant_message"].startswith("Done: greet()")
    # the copy holds the transcript with the project path replaced, nothing else changed
    original = (data / SESSION_A / "transcript.jsonl").read_text(encoding="utf-8")
    assert copy.read_text(encoding="utf-8") == original.replace("/home/alice/proj", str(project))
    # git sees the edit as a diff against the seeded file
    diff = os.popen(f"git -C {shlex.quote(str(project))} diff --stat").read()
    assert "src/greet.py" in diff


def test_windows_session_and_task_tools(tmp_path: Path, data: Path, monkeypatch) -> None:
    keep = tmp_path / "keep"
    result = _replay(tmp_path, data, monkeypatch=monkeypatch, runs=1, keep=keep, only=[SESSION_B])
    project = keep / SESSION_B / "run1" / "app"
    log = stand_in_log(project)
    write = next(
        r for r in log if r["event"] == "post-tool-use" and r["payload"]["tool_name"] == "Write"
    )
    assert write["payload"]["tool_input"]["file_path"] == str(project / "cli" / "main.py")
    assert write["file_now"] == "import typer\n"
    assert (project / "cli" / "main.py").read_text() == "import typer\n"
    copy = Path(log[0]["payload"]["transcript_path"]).read_text(encoding="utf-8")
    assert "C:\\\\Users" not in copy and f"{project}/cli/main.py" in copy
    row = result["sessions"][SESSION_B]
    assert row["plan_fidelity"] == 1.0  # TaskCreate ids out of order, sorted back
    assert row["edited_recall"] == 1.0 and row["constraint_recall"] == 1.0


def test_pascal_event_names_and_failures_as_post(tmp_path: Path, data: Path, monkeypatch) -> None:
    keep = tmp_path / "keep"
    result = _replay(
        tmp_path,
        data,
        "good",
        monkeypatch,
        runs=1,
        keep=keep,
        only=[SESSION_A],
        event_names="pascal",
        failures="post",
    )
    log = stand_in_log(keep / SESSION_A / "run1" / "proj")
    assert [r["argv_event"] for r in log[:3]] == ["SessionStart", "UserPromptSubmit", "PreToolUse"]
    assert "PostToolUseFailure" not in {r["argv_event"] for r in log}
    failed = log[7]
    assert failed["argv_event"] == "PostToolUse"
    assert failed["payload"]["hook_event_name"] == "PostToolUse"
    assert failed["payload"]["tool_response"] == {
        "error": "Exit code 1\n1 failed",
        "is_error": True,
    }
    assert result["overall"]["test_recall"] == 1.0 and result["overall"]["plan_fidelity"] == 1.0


def test_all_metrics_reach_one_with_a_faithful_stand_in(tmp_path: Path, data: Path) -> None:
    cli = [*shlex.split(stand_in(tmp_path))]
    done = subprocess.run(
        [
            *CHARTER,
            "eval",
            "session",
            "--data",
            str(data),
            "--json",
            "--jobs",
            "2",
            "--charter-bin",
            shlex.join(cli),
            "--max-context-ratio",
            "5",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "STANDIN_MODE": "good"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    o = result["overall"]
    assert o["pass"] and o["failed_bars"] == []
    assert o["point_count"] == 3
    for key in ("plan_fidelity", "plan_fidelity_unordered", "edited_recall", "test_recall"):
        assert o[key] == 1.0, key
    assert o["constraint_recall"] == 1.0 and o["determinism"] == 1.0
    assert o["crashes"] == 0 and o["blocks"] == 0
    assert 0 < o["context_ratio"] < 5
    a = result["sessions"][SESSION_A]
    assert [p["id"] for p in a["points"]] == ["c1", "end"]
    assert a["points"][0]["constraints_total"] == 1 and a["points"][1]["constraints_total"] == 2
    assert a["latency_ms"]["pre-tool-use"]["n"] == 2 * 5  # two replays, copies skipped
    assert {"p50", "p90", "n"} <= set(o["latency_ms"]["session-start"])
    # the table and the summary line
    table = subprocess.run(
        [
            *CHARTER,
            "eval",
            "session",
            "--data",
            str(data),
            "--runs",
            "1",
            "--charter-bin",
            shlex.join(cli),
            "--only",
            SESSION_A,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "STANDIN_MODE": "good", "COLUMNS": "160"},
    )
    assert table.returncode == 1  # the default context bar fails on so short a session
    last = table.stdout.strip().splitlines()[-1]
    assert last.startswith("session plan 1.000 edited 1.000 tests 1.000 constraints 1.000")
    assert "FAIL ctx/transcript" in last and SESSION_A in table.stdout


def test_each_metric_fails_when_the_recovery_loses_it(
    tmp_path: Path, data: Path, monkeypatch
) -> None:
    bars = Bars(max_context_ratio=None, min_tests=1.0)
    result = _replay(tmp_path, data, "wrongplan,noprompts,noedits", monkeypatch, runs=1, bars=bars)
    o = result["overall"]
    assert o["plan_fidelity"] == 0.0 and o["plan_fidelity_unordered"] == 1.0
    assert o["constraint_recall"] == 0.0
    assert o["test_recall"] == 1.0
    # the edited files are still named in the visible text? not by this stand-in
    assert o["edited_recall"] == 0.0
    assert o["determinism"] is None  # one run: not measured
    assert not o["pass"]
    names = [f.split()[0] for f in o["failed_bars"]]
    assert names == ["plan", "edited", "constraints"]
    missing = result["sessions"][SESSION_A]["points"][1]
    assert missing["constraints_missing"] == ["u1", "u2"]
    assert missing["edited_missing"] == ["src/greet.py"]


def test_nondeterministic_output_scores_zero(tmp_path: Path, data: Path, monkeypatch) -> None:
    result = _replay(tmp_path, data, "random", monkeypatch)
    assert result["overall"]["determinism"] == 0.0
    assert "determinism 0.000 < 1" in result["overall"]["failed_bars"]
    # the temp paths differ between the two replays and are masked: not a difference
    same = _replay(tmp_path, data, "good", monkeypatch)
    assert same["overall"]["determinism"] == 1.0


def test_crashes_timeouts_and_blocks_are_counted(tmp_path: Path, data: Path, monkeypatch) -> None:
    crash = _replay(tmp_path, data, "crash", monkeypatch, runs=1, only=[SESSION_A])
    row = crash["sessions"][SESSION_A]
    assert row["crashes"] == 4  # every PostToolUse raised
    assert row["crash_examples"][0]["reason"] == "traceback on stderr"
    assert "RuntimeError: stand-in crash" in row["crash_examples"][0]["stderr"]
    assert "crashes 4 > 0" in crash["overall"]["failed_bars"]

    odd = _replay(
        tmp_path, data, "exit3,hang,block", monkeypatch, runs=1, only=[SESSION_A], timeout=2
    )
    row = odd["sessions"][SESSION_A]
    reasons = sorted({c["reason"] for c in row["crash_examples"]})
    assert reasons == ["exit 3", "timeout after 2s"]
    assert row["crashes"] == 3  # two Stop hooks exit 3, SessionEnd hangs
    assert row["blocks"] == 2  # the two pytest runs; the replay goes on regardless
    assert row["plan_fidelity"] == 1.0


def test_real_charter_without_session_commands_does_not_crash(tmp_path: Path, data: Path) -> None:
    from charter.cli.session_eval_cmds import default_charter_cmd

    opts = ReplayOptions(charter_cmd=default_charter_cmd(), runs=1, jobs=1, bars=LOOSE)
    result = evaluate_sessions(data, opts, [SESSION_B])
    o = result["overall"]
    assert o["crashes"] == 0, result["sessions"][SESSION_B]["crash_examples"]
    assert o["hook_calls"] == 1 + 1 + 4 * 2 + 1 + 1 + 1 + 1  # start, prompt, 4 tools, …
    assert o["point_count"] == 1


def test_bad_input_is_one_error_line(tmp_path: Path, run_charter) -> None:
    done = run_charter("eval", "session", "--data", str(tmp_path / "nope"), cwd=tmp_path)
    assert done.returncode != 0 and done.stderr.startswith("charter: error:")
    assert "not a directory" in done.stderr and "Traceback" not in done.stderr
    bad = tmp_path / "bad" / "s1"
    bad.mkdir(parents=True)
    (bad / "transcript.jsonl").write_text("{not json\n", encoding="utf-8")
    (bad / "labels.json").write_text("{", encoding="utf-8")
    done = run_charter("eval", "session", "--data", str(tmp_path / "bad"), cwd=tmp_path)
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert "labels.json" in done.stderr and "invalid JSON" in done.stderr
    (bad / "labels.json").write_text('{"mechanical": {"points": [{"id": "end"}]}}')
    done = run_charter("eval", "session", "--data", str(tmp_path / "bad"), cwd=tmp_path)
    assert done.returncode == 2 and "mechanical.points[0]: 'line' must be an integer" in done.stderr
    done = run_charter(
        "eval", "session", "--data", str(tmp_path / "bad"), "--only", "zz", cwd=tmp_path
    )
    assert done.returncode == 2 and "no session named zz" in done.stderr
    session_b(tmp_path / "ok")
    missing = str(tmp_path / "no-such-charter")
    done = run_charter(
        "eval", "session", "--data", str(tmp_path / "ok"), "--charter-bin", missing, cwd=tmp_path
    )
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        f"charter: error: --charter-bin {missing}: cannot run it (No such file or directory)"
    ]


def test_broken_transcript_lines_are_copied_and_skipped(tmp_path: Path, monkeypatch) -> None:
    data = tmp_path / "data"
    session_b(data)
    path = data / SESSION_B / "transcript.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(1, '{"type": "user", "message": {"content": [tru')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _replay(tmp_path, data, "good", monkeypatch, runs=1)
    assert result["overall"]["crashes"] == 0
    assert result["overall"]["plan_fidelity"] == 1.0


# -- label semantics ---------------------------------------------------------------------


def test_key_terms_keep_ascii_word_edges() -> None:
    text = sm.norm_ws("The output is enriched.\n  Use   TEXTUAL (not curses) 用中文回答").lower()
    assert not sm.term_in("Rich", text)
    assert sm.term_in("textual (not curses)", text)
    assert sm.term_in("use textual", text)
    assert sm.term_in("中文", text)  # no ASCII edge: a plain substring
    found = sm.constraints_found(
        [{"id": "a", "key_terms": ["Rich", "textual"]}, {"id": "b", "key_terms": ["curses)"]}],
        "Rich text; use Textual",
    )
    assert found == {"a": True, "b": False}


def test_test_runs_match_outcome_and_long_prefixes() -> None:
    long_cmd = "python -m pytest tests/test_chat_endpoint.py -v --tb=short 2>&1 | tail -20"
    gold = [
        {"command": long_cmd, "outcome": "pass"},
        {"command": "npm  test", "outcome": "unknown"},
        {"command": "go test ./...", "outcome": "fail"},
    ]
    got = [
        {"command": long_cmd[:45] + "\u2026", "outcome": "pass"},
        {"command": "npm test", "outcome": "fail"},
        {"command": "go test ./...", "outcome": "pass"},
    ]
    assert sm.tests_found(gold, got) == [True, True, False]
    short = [{"command": long_cmd[:30] + "\u2026", "outcome": "pass"}]
    assert sm.tests_found(gold[:1], short) == [False]


def test_edited_files_relative_absolute_or_named() -> None:
    files = ["src/a.py", "README", "docs/b.md", "c.txt"]
    recovered = ["/tmp/p/src/a.py", {"path": "./docs/b.md"}]
    visible = "see README.md; and c.txt."
    assert sm.edited_found(files, recovered, visible, "/tmp/p") == [True, False, True, True]


def test_plan_fidelity_ordered_and_unordered() -> None:
    gold = [{"content": "Write  tests", "status": "pending"}, {"content": "b", "status": "done"}]
    same = [{"content": "Write tests ", "status": "pending"}, {"content": "b", "status": "done"}]
    assert sm.plan_scores(gold, same) == (1, 1)
    assert sm.plan_scores(gold, list(reversed(same))) == (0, 1)
    assert sm.plan_scores(gold, same[:1]) == (0, 0)
    assert sm.plan_scores([], same) == (None, None)


def test_constraints_in_force_without_per_point_list() -> None:
    hand = [
        {"id": "u1", "message_line": 5, "revoked_by_uuid": "r"},
        {"id": "u2", "message_line": 5},
        {"id": "u3", "message_line": 50},
    ]
    ids = lambda held: [c["id"] for c in held]  # noqa: E731
    assert ids(sm.constraints_in_force({"line": 20}, hand, {"r": 10})) == ["u2"]
    assert ids(sm.constraints_in_force({"line": 8}, hand, {"r": 10})) == ["u1", "u2"]
    assert ids(sm.constraints_in_force({"line": 8, "user_constraints": ["u3"]}, hand, {})) == ["u3"]


def test_windows_paths_are_masked_with_either_separator(tmp_path: Path) -> None:
    pm = PathMap("c:\\code\\app", Path("/tmp/r/app"))
    assert pm.mask_text("open C:\\code\\app\\src\\x.ts now") == "open /tmp/r/app/src/x.ts now"
    assert pm.mask_text("C:/code/app/src/x.ts") == "/tmp/r/app/src/x.ts"
    assert pm.mask_text("C:\\code\\app2\\x") == "C:\\code\\app2\\x"
    raw = json.dumps({"p": "c:\\code\\app\\src\\x.ts", "q": "a\nC:\\code\\app"})
    assert json.loads(pm.mask_json_line(raw)) == {"p": "/tmp/r/app/src/x.ts", "q": "a\n/tmp/r/app"}
    assert pm.relative("C:\\Code\\App\\src\\x.ts") == "src/x.ts"
    assert pm.relative("x.ts", "c:\\code\\app\\src") == "src/x.ts"
    assert pm.relative("C:\\Users\\me\\.claude\\plans\\p.md") is None
    posix = PathMap("/home/u/proj", Path("/tmp/r/proj"))
    assert (
        posix.mask_text("/home/u/proj/a and /home/u/project") == "/tmp/r/proj/a and /home/u/project"
    )
    assert posix.relative("../b", "/home/u/proj/src") == "b"
    assert posix.relative("../../x", "/home/u/proj/src") is None
