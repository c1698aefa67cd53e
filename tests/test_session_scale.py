"""Session state at the size of a days-long session: what a hook reads must not grow with
everything the journal holds.

Real projects, real SQLite journals, real ``charter`` processes; peak memory is the
child's own ``ru_maxrss`` (``os.wait4``), compared between a small and a large journal of
the same shape, so the figures hold on any machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from charter.config import Project
from charter.session.service import Session

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


def _peak_mb(root: Path, *args: str) -> tuple[float, str]:
    """(peak RSS in MiB, stdout) of one ``charter ARGS`` process in ``root``."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "charter", *args],
            cwd=root,
            stdout=out,
            stderr=err,
            env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
        )
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        assert proc.returncode == 0, err.read().decode()
        return usage.ru_maxrss / 1024, out.read().decode()  # ru_maxrss: KiB on Linux


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
