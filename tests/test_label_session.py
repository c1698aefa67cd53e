"""``bench/label_session.py`` reproduces the dev split's mechanical labels exactly, and its
rules hold on small transcripts written here (resume copies, local commands, test runs).

The dev split lives outside the repository (``../shared/bench/session`` from the repo
root, as CI lays it out; ``CHARTER_SESSION_DEV`` points elsewhere). Without it the
reproduction test is skipped with a message saying where it looked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LABELLER = ROOT / "bench" / "label_session.py"
DEV = Path(os.environ.get("CHARTER_SESSION_DEV") or ROOT.parent / "shared" / "bench" / "session")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LABELLER), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.skipif(
    not DEV.is_dir(), reason=f"dev split not found at {DEV} (set CHARTER_SESSION_DEV)"
)
def test_reproduces_every_dev_label_exactly(tmp_path: Path) -> None:
    keys = sorted(p.name for p in DEV.iterdir() if (p / "transcript.jsonl").is_file())
    assert len(keys) >= 6
    for key in keys:
        (tmp_path / key).mkdir()
        shutil.copyfile(DEV / key / "transcript.jsonl", tmp_path / key / "transcript.jsonl")
        shutil.copyfile(DEV / key / "labels.json", tmp_path / key / "labels.json")
    proc = _run(str(tmp_path))  # rewrites every labels.json from the transcript
    assert proc.returncode == 0, proc.stderr
    for key in keys:
        want = json.loads((DEV / key / "labels.json").read_text(encoding="utf-8"))
        got = json.loads((tmp_path / key / "labels.json").read_text(encoding="utf-8"))
        assert got["mechanical"]["points"] == want["mechanical"]["points"], key
        assert got["stats"] == want["stats"], key
        assert got["cwd"] == want["cwd"] and got["session_id"] == want["session_id"], key
        assert got["claude_code_version"] == want["claude_code_version"], key
        assert got["hand"] == want["hand"] and got["source"] == want["source"], key


def _line(kind: str, uuid: str, content: Any, **extra: Any) -> str:
    entry = {
        "type": kind,
        "uuid": uuid,
        "sessionId": "s1",
        "cwd": "/home/u/proj",
        "version": "2.0.30",
        "timestamp": f"2025-01-01T00:00:{len(uuid):02d}Z",
        "message": {"role": kind, "content": content, **extra.pop("message", {})},
        **extra,
    }
    return json.dumps(entry)


def _use(uid: str, msg: str, name: str, tool_input: dict[str, Any]) -> str:
    block = {"type": "tool_use", "id": uid, "name": name, "input": tool_input}
    return _line("assistant", f"a-{uid}-{msg}", [block], message={"id": msg})


def _result(uid: str, text: str, error: bool = False, rich: Any = None) -> str:
    block = {"type": "tool_result", "tool_use_id": uid, "content": text, "is_error": error}
    return _line("user", f"r-{uid}-{len(text)}", [block], toolUseResult=rich or text)


def test_rules_on_a_small_transcript(tmp_path: Path) -> None:
    todo = {"todos": [{"content": "fix parser", "status": "in_progress", "activeForm": "x"}]}
    lines = [
        _line("user", "p1", "Use tabs, never spaces."),
        _use("t1", "m1", "TodoWrite", todo),
        _result("t1", "ok"),
        _use("t2", "m2", "Edit", {"file_path": "/home/u/proj/src/a.py"}),
        _result("t2", "ok"),
        _use("t3", "m3", "Write", {"file_path": "/home/u/.claude/plans/p.md"}),
        _result("t3", "ok"),
        _use("t4", "m4", "Edit", {"file_path": "/home/u/proj/src/b.py"}),
        _result("t4", "<tool_use_error>String to replace not found</tool_use_error>", True),
        _use("t5", "m5", "Bash", {"command": "pip install pytest"}),
        _result("t5", "installed"),
        _use("t6", "m6", "Bash", {"command": "cd x && uv run pytest -q"}),
        _result("t6", "Exit code 1\n1 failed, 3 passed", True),
        _line(
            "system", "b1", None, subtype="compact_boundary", compactMetadata={"trigger": "auto"}
        ),
        _line("user", "cs", "This session is being continued…", isCompactSummary=True),
        _line("user", "c1", "<command-name>/login</command-name>"),
        _line("user", "c2", "<local-command-stdout>Login successful</local-command-stdout>"),
        # A resume copy: the same tool_use id again, answering a copied prompt.
        _line("user", "p1copy", "Use tabs, never spaces."),
        _use("t1", "m1", "TodoWrite", {"todos": []}),
        _use("t7", "m7", "Edit", {"file_path": "/home/u/proj/src/a.py"}),
        _result("t7", "ok"),
        _use("t8", "m8", "Bash", {"command": "cd x && uv run pytest -q"}),
        _result("t8", "4 passed"),
        _use("t9", "m9", "Edit", {"file_path": "/home/u/proj/src/c.py"}),
        _result(
            "t9",
            "The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). "
            "To tell you how to proceed, the user said:\nkeep c.py untouched",
            True,
        ),
    ]
    session = tmp_path / "s"
    session.mkdir()
    (session / "transcript.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    constraint = {
        "id": "u1",
        "message_uuid": "p1",
        "message_n": 1,
        "message_line": 1,
        "message_kind": "prompt",
        "evidence": "Use tabs, never spaces.",
        "key_terms": ["tabs"],
    }
    (session / "labels.json").write_text(json.dumps({"hand": {"user_constraints": [constraint]}}))
    proc = _run(str(session))
    assert proc.returncode == 0, proc.stderr
    labels = json.loads((session / "labels.json").read_text(encoding="utf-8"))
    c1, end = labels["mechanical"]["points"]
    assert (c1["id"], c1["line"], c1["trigger"]) == ("c1", 14, "auto")
    assert c1["plan"] == [{"content": "fix parser", "status": "in_progress"}]
    assert c1["edited_files"] == ["src/a.py"]  # the failed edit of b.py is not a change
    assert c1["edited_files_outside_cwd"] == ["/home/u/.claude/plans/p.md"]
    assert c1["test_runs"] == [
        {"command": "cd x && uv run pytest -q", "outcome": "fail", "runs": 1}
    ]
    assert c1["user_constraints"] == ["u1"]
    assert end["plan"] == c1["plan"], "the copied TodoWrite must not replace the plan"
    assert end["edited_files"] == ["src/a.py"]
    assert end["test_runs"] == [
        {"command": "cd x && uv run pytest -q", "outcome": "pass", "runs": 2}
    ]
    stats = labels["stats"]
    assert stats["prompts"] == 1, "the copy and the local /login command are not prompts"
    assert stats["tool_feedback_messages"] == 1
    assert stats["duplicates_skipped"] == 2 and stats["compactions"] == 1
    listing = _run(str(session), "--messages")
    assert "m2 tool_feedback" in listing.stdout and "keep c.py untouched" in listing.stdout


def test_a_hand_label_that_does_not_quote_its_message_is_refused(tmp_path: Path) -> None:
    session = tmp_path / "s"
    session.mkdir()
    (session / "transcript.jsonl").write_text(_line("user", "p1", "Use tabs.") + "\n")
    bad = {"id": "u1", "message_uuid": "p1", "evidence": "Use spaces.", "key_terms": ["spaces"]}
    (session / "labels.json").write_text(json.dumps({"hand": {"user_constraints": [bad]}}))
    proc = _run(str(session))
    assert proc.returncode == 1
    assert "u1: evidence is not verbatim" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
