"""Cold ``charter index`` on real checkouts: wall time, chunks and chunks/s (medians).

    .venv/bin/python bench/index_speed.py CHECKOUT [CHECKOUT ...] [--runs 3]

Each run deletes the checkout's ``.charter/`` and runs ``charter index --json`` as a fresh
process (model load, walk, git history, parsing, secret scan, embedding, SQLite, sidecars:
everything a new user's first index pays). Prints one line per run and the medians per
checkout: wall seconds, CPU seconds (user + system: steadier than wall time on shared
cores), chunks stored, chunks embedded (the model's work), files skipped
and the skip reasons' counts. Not a timed test: the machine's load moves the figures.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def one_run(root: Path) -> dict[str, float]:
    """One cold index of ``root``; the figures of its JSON report and the wall time."""
    shutil.rmtree(root / ".charter", ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "charter", "index", "--json", "-C", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"{root}: charter index failed: {done.stderr.strip()[-400:]}")
    report = json.loads(done.stdout)
    reasons = collections.Counter(s["reason"].split(" (")[0] for s in report["skipped"])
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "chunks": report["totals"]["chunks"],
        "embedded": report["chunks_embedded"],
        "documents": report["totals"]["documents"],
        "skipped": len(report["skipped"]),
        "reasons": dict(reasons),  # type: ignore[dict-item]
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("roots", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for root in args.roots:
        runs = []
        for number in range(args.runs):
            run = one_run(root)
            runs.append(run)
            print(f"{root.name} run {number + 1}: {json.dumps(run)}", flush=True)
        wall = statistics.median(r["wall_s"] for r in runs)
        cpu = statistics.median(r["cpu_s"] for r in runs)
        chunks = runs[-1]["chunks"]
        print(
            f"{root.name}: median {wall:.1f} s wall, {cpu:.1f} s CPU, {chunks} chunks "
            f"({runs[-1]['embedded']} embedded, {runs[-1]['documents']} documents), "
            f"{chunks / wall:.0f} chunks/s, skipped {runs[-1]['skipped']} "
            f"{runs[-1]['reasons']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
