"""Session state at the size of a days-long session: what a hook reads must not grow with
everything the journal holds.

Real projects, real SQLite journals, real ``charter`` processes; peak memory is the
process's own ``ru_maxrss`` (``os.wait4`` in a small launcher), for journals compared
between a small and a large one of the same shape.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from charter.config import Project
from charter.session.service import Session
from tests.conftest import commit_all

STEPS = 300


def _todos(update: int) -> list[dict[str, str]]:
    return [
        {
            "content": f"Step {j}: implement part {j} of the storage migration",
            "status": "completed" if j < update else "pending",
            "activeForm": f"Implementing part {j}",
        }
        for j in range(STEPS)
    ]


def _grown(root: Path, plans: int) -> None:
    """A git project whose session journaled ``plans`` whole 300-step TodoWrite plans."""
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    session = Session(Project.load(root))
    try:
        capture = session.capture("long-session")
        for update in range(plans):
            capture.tool(
                {"tool_name": "TodoWrite", "tool_input": {"todos": _todos(update)}},
                failed=False,
            )
    finally:
        session.close()


#: Runs ARGS and reports its peak RSS: a child forked from pytest would inherit pytest's
#: high-water mark through exec, a grandchild of this small launcher does not.
_MEASURE = (
    "import os, subprocess, sys\n"
    "proc = subprocess.Popen(sys.argv[1:])\n"
    "_, status, usage = os.wait4(proc.pid, 0)\n"
    "sys.stderr.write(f'\\nPEAK {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}\\n')\n"
)


def _peak_mb(root: Path, *args: str, stdin: bytes = b"") -> tuple[float, str]:
    """(peak RSS in MiB of ``charter ARGS`` and the git it runs, its stdout) in ``root``;
    a non-zero exit or any other stderr fails the test."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "charter", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
        timeout=300,
    )
    err, _, tail = proc.stderr.decode().rpartition("\nPEAK ")
    peak, code = tail.split()
    assert code == "0", err
    return int(peak) / 1024, proc.stdout.decode()  # ru_maxrss: KiB on Linux


def test_compaction_and_recovery_memory_does_not_grow_with_the_plans_journaled(
    tmp_path: Path,
) -> None:
    small, large = tmp_path / "small", tmp_path / "large"
    _grown(small, 1)
    _grown(large, 300)  # ~9 MB of plan JSON: a long session rewriting a big plan
    journal = (large / ".charter" / "session.db").stat().st_size
    assert journal > 8 * 2**20

    recover_small, _ = _peak_mb(small, "session", "recover", "--json")
    recover_large, out = _peak_mb(large, "session", "recover", "--json")
    plan = json.loads(out)["plan"]
    assert [p["status"] for p in plan] == [p["status"] for p in _todos(299)]
    assert recover_large - recover_small < 20, (recover_small, recover_large)

    # the first compaction of each reads every event since the session began
    compact_small, _ = _peak_mb(small, "session", "compact", "--session", "long-session")
    compact_large, _ = _peak_mb(large, "session", "compact", "--session", "long-session")
    assert compact_large - compact_small < 20, (compact_small, compact_large)
    plan_md = next((large / "docs" / "tracks").rglob("PLAN.md")).read_text()
    assert plan_md.count("- [x] ") == 299 and plan_md.count("- [ ] ") == 1


def _lines(seed: int, count: int) -> str:
    return "".join(f"row {i} value {(i * 7919 + seed) % 100003}\n" for i in range(count))


def test_an_edit_while_a_large_file_is_changed_names_it_instead_of_diffing_it(
    tmp_path: Path,
) -> None:
    """``recent_diff.txt`` is refreshed on every edit: a rewritten 7 MB data file used to be
    diffed line by line each time (git's memory and seconds of CPU, often past the 5 s
    timeout, and then no diff at all) for a text cut at 32 KB."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    (root / "data.csv").write_text(_lines(1, 300_000))
    (root / "app.py").write_text("LIMIT = 1\n")
    commit_all(root)
    (root / "data.csv").write_text(_lines(2, 300_000))  # every line changed
    (root / "app.py").write_text("LIMIT = 2\n")
    payload = {
        "session_id": "s1",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / "app.py")},
        "tool_response": {},
    }
    peak, _ = _peak_mb(root, "hook", "post-tool-use", stdin=json.dumps(payload).encode())
    diff = (root / "artifacts" / "sessions" / "s1" / "recent_diff.txt").read_text()
    assert "-LIMIT = 1\n+LIMIT = 2\n" in diff
    size = (root / "data.csv").stat().st_size
    assert f"[… data.csv: changed, {size:,} bytes, too large to diff]" in diff
    assert "row 0 value" not in diff
    assert peak < 60, peak  # ~35 MB; git alone took ~60 MB more to diff the file


def test_session_start_stays_under_the_hook_limit_when_the_session_state_fails(
    tmp_path: Path,
) -> None:
    """Hundreds of bound decisions and a hand edit that breaks DECISIONS.md: session start
    still pins the invariants, within Claude Code's 10,000 characters (the fallback used
    to join every pinned line: 24,467 characters here)."""
    from charter.decisions import service

    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    project = Project.load(root)
    for i in range(250):
        service.add_decision(
            project,
            {
                "id": f"STORE_{i}",
                "text": f"Which storage engine does part {i} use?",
                "answer_type": "free_text",
                "answer": f"Use the SQLite engine for part {i}, never the in-memory one",
            },
        )
    track = Session(project).track()[0]
    (root / "docs" / "tracks" / track / "DECISIONS.md").write_text("## D-zz\n- Nonsense: x\n")
    payload = {"session_id": "s1", "cwd": str(root), "hook_event_name": "SessionStart"}
    proc = subprocess.run(
        [sys.executable, "-m", "charter", "hook", "session-start"],
        cwd=root,
        input=json.dumps({**payload, "source": "startup"}),
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
        timeout=300,
    )
    assert proc.returncode == 0
    assert "session state skipped: SchemaError" in proc.stderr
    assert "DECISIONS.md:2" in proc.stderr
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(text) < 10_000, len(text)
    assert text.startswith("# Bound decisions")
    assert "- [STORE_0] " in text and "- [STORE_249] " not in text
    assert re.search(r"\n\(\+\d+ lines\)$", text)


def _transcript(path: Path, filler_bytes: int) -> None:
    """A Claude Code transcript: tool output lines, then one assistant Decision block."""
    output = "    total = compute(value)  # a line of tool output\n" * 200
    with path.open("w", encoding="utf-8") as handle:
        n, written = 0, 0
        while written < filler_bytes:
            n += 1
            line = json.dumps(
                {
                    "type": "user",
                    "timestamp": f"2026-11-02T10:00:{n % 60:02d}.000Z",
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}
                        ],
                    },
                }
            )
            handle.write(line + "\n")
            written += len(line) + 1
        text = "Decision: Use SQLite for the cache\nReason: one file\nImpact: src/cache/"
        entry = {
            "type": "assistant",
            "timestamp": "2026-11-02T11:00:00.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        }
        handle.write(json.dumps(entry) + "\n")


def test_the_first_compaction_reads_a_long_transcript_in_one_buffer(tmp_path: Path) -> None:
    """The first PreCompact of a long session reads the transcript's last 16 MiB for the
    assistant's Decision blocks: that read held three copies of it at once (+33 MB)."""
    peaks = {}
    for name, size in (("short", 10_000), ("long", 17 * 2**20)):
        root = tmp_path / name
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
        _transcript(tmp_path / f"{name}.jsonl", size)
        payload = {
            "session_id": "s1",
            "cwd": str(root),
            "hook_event_name": "PreCompact",
            "trigger": "auto",
            "transcript_path": str(tmp_path / f"{name}.jsonl"),
        }
        peaks[name], _ = _peak_mb(root, "hook", "pre-compact", stdin=json.dumps(payload).encode())
        decisions = next((root / "docs" / "tracks").rglob("DECISIONS.md")).read_text()
        assert "- Decision: Use SQLite for the cache" in decisions
    assert peaks["long"] - peaks["short"] < 24, peaks  # +16 MB: the buffer itself


def test_pre_tool_use_fails_closed_on_huge_deep_or_broken_input(tmp_path: Path) -> None:
    """The guardrail runs on every tool call: input it cannot read is denied with the
    reason, in bounded time and memory, and its note says the call was denied (it said
    "continuing without Charter context", a context hook's words)."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    base = {"session_id": "s1", "cwd": str(root), "hook_event_name": "PreToolUse"}
    huge = json.dumps({**base, "tool_name": "Bash", "tool_input": {"command": "x" * 10**7}})
    cases = [
        (huge, "over 4 MiB"),
        ('{"tool_name": "Bash", "tool_input": ' + "[" * 100_000, "nested too deeply"),
        ('{"tool_name": "Write", "tool_input": {"file_path": "a"', "Expecting"),
    ]
    for stdin, why in cases:
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "charter", "hook", "pre-tool-use"],
            cwd=root,
            input=stdin,
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
            timeout=60,
        )
        assert time.monotonic() - started < 20  # well inside Claude Code's hook timeout
        assert proc.returncode == 0 and "Traceback" not in proc.stderr
        out = json.loads(proc.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny"
        assert why in out["permissionDecisionReason"]
        assert proc.stderr.count("\n") == 1 and "the tool call is denied" in proc.stderr
    peak, _ = _peak_mb(root, "hook", "pre-tool-use", stdin=huge.encode())
    assert peak < 100, peak  # the 10 MB input is refused, never read whole
