"""Speed of the project graph on a real repository (prints medians; not a timed test).

    .venv/bin/python bench/graph_speed.py PATH_TO_A_CHECKOUT [--runs 7]

1. cold: ``charter task-context`` as a subprocess with no ``.charter/graph`` (the graph
   is built inside the call), 3 runs;
2. rebuild after one file changed (in process);
3. ``task_context`` with a built graph, in process (p50 over --runs different tasks),
   and as a subprocess (includes Python start-up).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from charter.config import Project
from charter.graph.api import task_context
from charter.graph.build import build_graph

TASKS = [
    "TypeError raised when the config file has an empty section",
    "add a command line option to print the version and exit",
    "parsing fails on unicode input with a byte order mark",
    "the cache is never invalidated after the settings change",
    "improve the error message when a required argument is missing",
    "deprecation warning from the logging setup on import",
    "support reading the options from environment variables",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    root = args.root.resolve()
    state = root / ".charter" / "graph"
    cold = []
    for _ in range(3):
        shutil.rmtree(state, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "charter", "task-context", TASKS[0], "--json"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        cold.append(time.perf_counter() - started)
    project = Project.load(root)
    graph = build_graph(project)
    files = graph.report["files"]
    target = next(p for p in sorted(graph.records) if p.endswith(".py"))
    original = (root / target).read_bytes()
    rebuild = []
    try:
        for i in range(args.runs):
            (root / target).write_bytes(original + f"\n# edit {i}\n".encode())
            started = time.perf_counter()
            report = build_graph(Project.load(root)).report
            rebuild.append(time.perf_counter() - started)
            assert report["parsed"] == 1, report["parsed"]
    finally:
        (root / target).write_bytes(original)
    build_graph(Project.load(root))
    warm = []
    for task in (TASKS * 3)[: args.runs]:
        started = time.perf_counter()
        task_context(Project.load(root), task)
        warm.append(time.perf_counter() - started)
    warm_cli = []
    for task in TASKS[:3]:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "charter", "task-context", task, "--json"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        warm_cli.append(time.perf_counter() - started)
    print(f"files in graph: {files}")
    print(
        f"cold task-context (subprocess, graph built inside) median: "
        f"{statistics.median(cold):.2f} s"
    )
    print(f"rebuild after one file changed median: {statistics.median(rebuild):.3f} s")
    print(
        f"task-context with built graph (in process) p50: {statistics.median(warm) * 1000:.0f} ms"
    )
    print(f"task-context with built graph (subprocess) p50: {statistics.median(warm_cli):.2f} s")


if __name__ == "__main__":
    main()
