"""The CLI's front door: usage errors, --version, exit codes (real subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

from charter import __version__


def test_usage_errors_are_one_line_with_exit_code_2(repo: Path, run_charter) -> None:
    for args in (["no-such-command"], ["context", "--top", "many", "task"], ["--bogus"]):
        proc = run_charter(*args, cwd=repo)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("charter: error: "), proc.stderr
        assert "Traceback" not in proc.stderr


def test_version_flag_and_bare_invocation(repo: Path, run_charter) -> None:
    proc = run_charter("--version", cwd=repo)
    assert proc.returncode == 0 and proc.stdout.strip() == f"charter {__version__}"
    bare = run_charter(cwd=repo)
    assert bare.returncode == 0 and "compile" in bare.stdout


def test_output_is_flushed_before_the_fast_exit(repo: Path, run_charter) -> None:
    """The CLI leaves with os._exit; large JSON written to a pipe must arrive whole."""
    (repo / "CLAUDE.md").write_text(
        "# Rules\n\n" + "".join(f"- Always check invariant number {i}.\n" for i in range(300))
    )
    proc = run_charter("context", "check the invariants", "--json", "--top", "300", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["shards"]) > 100
