"""Run every benchmark script in bench/ with small, fast arguments (``make bench``).

    .venv/bin/python bench/run_all.py [--only NAME ...] [--full]

Each script runs in its own process (so one's imports and warm caches do not flatter
another's figures) and prints its own figures; this prints them under a heading with the
wall time, and a summary at the end. ``--full`` runs each script with its defaults (the
figures in docs/benchmarks.md), which takes much longer. A script that is new and not
listed in ``FAST`` runs with its defaults. Exits non-zero when any script failed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
#: Small arguments per script: minutes in total instead of hours.
FAST: dict[str, list[str]] = {
    "agent_tokens.py": ["--prompts", "3", "--project", "demo", "--mode", "all"],
    "crash_safety.py": ["--trials", "5", "--processes", "3", "--rounds", "2"],
    "drift_speed.py": ["--runs", "3"],
    "guardrails_bench.py": ["--runs", "3"],
    "hostile_input.py": ["--runs", "1"],
    "rules_speed.py": ["--rules", "100", "--runs", "1"],
    "search_speed.py": ["--chunks", "2000", "--runs", "1", "--queries", "10"],
    "session_speed.py": ["--calls", "50", "--hook-calls", "5", "--runs", "1"],
}
SELF = Path(__file__).name


def scripts() -> list[Path]:
    """Every benchmark script in bench/ (not this one, not helpers starting with _)."""
    return sorted(p for p in BENCH.glob("*.py") if p.name != SELF and not p.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=None, help="script names to run")
    parser.add_argument("--full", action="store_true", help="each script's default arguments")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    args = parser.parse_args(argv)
    chosen = [p for p in scripts() if not args.only or p.name in args.only or p.stem in args.only]
    if not chosen:
        print(f"run_all: no script matches {args.only}", file=sys.stderr)
        return 2
    summary = []
    for script in chosen:
        extra = [] if args.full else FAST.get(script.name, [])
        print(f"\n=== {script.name} {' '.join(extra)}", flush=True)
        started = time.monotonic()
        try:
            code = subprocess.run(
                [sys.executable, str(script), *extra], timeout=args.timeout
            ).returncode
        except subprocess.TimeoutExpired:
            code = -1
        seconds = time.monotonic() - started
        summary.append((script.name, code, seconds))
    print("\n=== summary")
    for name, code, seconds in summary:
        status = "ok" if code == 0 else ("timeout" if code == -1 else f"exit {code}")
        print(f"{name:24} {status:8} {seconds:7.1f} s")
    return 0 if all(code == 0 for _, code, _ in summary) else 1


if __name__ == "__main__":
    raise SystemExit(main())
