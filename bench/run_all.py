"""Run the benchmark scripts in bench/ with small, fast arguments (``make bench``).

    .venv/bin/python bench/run_all.py [--only NAME ...] [--full]

Each script runs in its own process (so one's imports and warm caches do not flatter
another's figures) and prints its own figures; this prints them under a heading with the
wall time, and a summary at the end. ``--full`` runs each script with its defaults (the
figures in docs/benchmarks.md), which takes much longer. A script that is new and not
listed in ``FAST`` runs with its defaults. Quality, fitting and data scripts (``NEEDS``)
need benchmark data, mirrors or models named on their command line: they are listed as
skipped with what they need, and run as docs/benchmarks.md shows. Exits non-zero when any
script that ran failed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
#: Small arguments per script: minutes in total instead of hours.
FAST: dict[str, list[str]] = {
    "agent_tokens.py": ["--prompts", "3", "--project", "demo", "--mode", "all"],
    "agent_cli_tokens.py": ["--prompts", "2"],
    "crash_safety.py": ["--trials", "5", "--processes", "3", "--rounds", "2"],
    "drift_speed.py": ["--runs", "3"],
    "guardrails_bench.py": ["--runs", "3"],
    "hostile_input.py": ["--runs", "1"],
    "rules_speed.py": ["--rules", "100", "--runs", "1"],
    "search_speed.py": ["--chunks", "2000", "--runs", "1", "--queries", "10"],
    "session_speed.py": ["--calls", "50", "--hook-calls", "5", "--runs", "1"],
    "cold_paths.py": ["--runs", "1", "--chunks", "2000"],
    "secrets_speed.py": ["--docs", "200", "--runs", "1"],
    "session_scale.py": [
        "--calls",
        "200",
        "--prompts",
        "50",
        "--plan-steps",
        "20",
        "--plan-updates",
        "5",
        "--decisions",
        "20",
        "--risks",
        "10",
        "--compactions",
        "2",
        "--tracks",
        "3",
        "--transcript-mb",
        "2",
        "--runs",
        "1",
    ],
    "secrets_fp.py": [str(Path(__file__).resolve().parents[1] / "docs")],
    "graph_speed.py": ["--runs", "1", "{demo}"],
    "index_speed.py": ["--runs", "1", "{demo}"],
}
#: Scripts that measure quality or fit models on data they are given, and tools that
#: build that data: what each needs (see docs/benchmarks.md for the commands).
NEEDS: dict[str, str] = {
    "commit_localize.py": "a clone of a git repository (and its recent commits)",
    "drift_cross_encoder.py": "--out DIR and torch/transformers",
    "drift_direction_probe.py": "the direction data and a few minutes of fitting",
    "drift_fit.py": "--data (the drift splits)",
    "drift_pool.py": "the labelled drift splits to pool (a few minutes)",
    "drift_nli_probe.py": "--model DIR (an ONNX pair classifier) and drift splits",
    "drift_real_text.py": "--mirror (bare git mirrors of repositories with ADRs)",
    "drift_similarity_auc.py": "--model DIR and drift splits",
    "export_roundtrip.py": "--data (rules benchmark folders)",
    "hook_budget_curve.py": "--data (rules benchmark)",
    "label_session.py": "a session directory",
    "localize_tune.py": "--data and --mirrors (localize benchmark)",
    "rules_embed_train.py": "a subcommand, rules data and torch/transformers",
    "materialize_localize_data.py": "--mirrors and --out",
    "materialize_rules_data.py": "--mirrors and --out",
    "materialize_session_data.py": "--mirrors and --out",
    "prohibitions_scan.py": "rule files to read (the benchmarks' and real repositories')",
    "rules_compare.py": "two `charter eval rules --json` reports to compare",
    "rules_cross_encoder.py": "--data (rules benchmark) and torch/transformers",
    "rules_cv.py": "--data (rules benchmark)",
    "rules_fit.py": "--data (rules benchmark)",
    "rules_general_fit.py": "--data (rules benchmark folders with always.json)",
    "rules_kind_prior_fit.py": "--data (labelled rules benchmark folders)",
    "rules_sweep.py": "directories of real rule files (kept outside the repository)",
    "stance_fit.py": "the stance data and a few minutes of fitting",
    "unmarked_lists_check.py": "a directory of bare git mirrors (the fetch tool's)",
}
SELF = Path(__file__).name


def demo_checkout(tmp: Path) -> Path:
    """A git copy of the demo project: a benchmark that edits files edits this one."""
    demo = tmp / "demo-project"
    shutil.copytree(BENCH.parent / "examples" / "demo-project", demo)
    subprocess.run(["git", "init", "-q", str(demo)], check=True)
    return demo


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
        if script.name in NEEDS and not args.only:
            print(f"\n=== {script.name}: skipped (needs {NEEDS[script.name]})", flush=True)
            continue
        extra = [] if args.full else FAST.get(script.name, [])
        tmp = None
        if "{demo}" in extra:
            tmp = Path(tempfile.mkdtemp(prefix="charter-bench-"))
            demo = demo_checkout(tmp)
            extra = [str(demo) if a == "{demo}" else a for a in extra]
        print(f"\n=== {script.name} {' '.join(extra)}", flush=True)
        started = time.monotonic()
        try:
            code = subprocess.run(
                [sys.executable, str(script), *extra], timeout=args.timeout
            ).returncode
        except subprocess.TimeoutExpired:
            code = -1
        seconds = time.monotonic() - started
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        summary.append((script.name, code, seconds))
    print("\n=== summary")
    for name, code, seconds in summary:
        status = "ok" if code == 0 else ("timeout" if code == -1 else f"exit {code}")
        print(f"{name:24} {status:8} {seconds:7.1f} s")
    return 0 if all(code == 0 for _, code, _ in summary) else 1


if __name__ == "__main__":
    raise SystemExit(main())
