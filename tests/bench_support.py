"""Running the scripts under ``bench/`` as a user would: a real subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench_process(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``bench/<script>`` with ``args`` and return the finished process."""
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def run_bench(script: str, *args: str) -> str:
    """Run ``bench/<script>`` with ``args``; its stdout (the run must succeed)."""
    proc = bench_process(script, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
