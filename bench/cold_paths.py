"""Cold paths: one fresh process per measurement, wall and CPU medians, optionally A/B.

    .venv/bin/python bench/cold_paths.py [--runs 9] [--chunks 100000] [--src DIR ...]

Each measurement is a fresh ``python -m charter`` process with no warm worker:

- ``hook stop``: the lexical drift check of a cold Stop hook (the clinic scenario's 8
  bound constraints, the 240-word artifact of ``drift_speed.py``, which fails);
- ``hook user-prompt-submit``: 500 synthetic rules (``rules_speed.py``), compiled first;
  every round uses a new session id, so rules are injected, not skipped as seen;
- ``hook session-start`` on the same project;
- ``search``: ``charter search --json`` over ``--chunks`` synthetic chunks built as in
  ``search_speed.py`` (one unmeasured search first writes the caches).

With several ``--src`` (a ``src`` directory each, e.g. ``git archive OLD src | tar -x``),
rounds alternate between them so each sees the same machine load, and every answer is
compared across them (``same output``). Compile each tree first (``python -m compileall
DIR``): with ``PYTHONDONTWRITEBYTECODE`` set, a module edited since its ``.pyc`` was
written is recompiled by every process. CPU is user + system time of the child: the
figure that survives other jobs on shared cores; wall includes waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drift_speed import DATA, SCENARIO, artifact
from rules_speed import make_rules
from search_speed import build_corpus

HERE = Path(__file__).resolve().parents[1]


def run(src: str, argv: list[str], cwd: Path, stdin: str = "") -> tuple[float, float, str]:
    """(wall ms, CPU ms, stdout) of one ``python -m charter`` process importing ``src``."""
    env = {**os.environ, "PYTHONPATH": src, "CLAUDE_PROJECT_DIR": str(cwd)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "charter", *argv],
        cwd=cwd,
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed with {src}: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done.stdout


def stop_project(root: Path) -> str:
    from charter.config import Project
    from charter.decisions import service
    from charter.decisions.models import parse_clarifications

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    data = json.loads((DATA / "constraints" / f"{SCENARIO}.json").read_text())
    service.record(Project.load(root), parse_clarifications(data), "import")
    return json.dumps(
        {
            "session_id": "bench",
            "cwd": str(root),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": artifact(),
        }
    )


def rules_project(root: Path, src: str) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    (root / "CLAUDE.md").write_text(make_rules(500))
    run(src, ["compile"], root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--src", action="append", default=[])
    args = parser.parse_args()
    srcs = args.src or [str(HERE / "src")]
    tmp = Path(tempfile.mkdtemp(prefix="charter-cold-"))
    try:
        stop_root, rules_root, search_root = tmp / "stop", tmp / "rules", tmp / "search"
        stop_root.mkdir()
        rules_root.mkdir()
        search_root.mkdir()
        stop_payload = stop_project(stop_root)
        rules_project(rules_root, srcs[0])
        (search_root / "charter.toml").write_text("[search.modes.review]\ntime_window_days = 0\n")
        from charter.embed.registry import get_embedder

        model = get_embedder("minilm")
        queries = build_corpus(search_root, args.chunks, model.name, model.dim)

        def prompt(n: int, i: int) -> str:
            return json.dumps(
                {
                    "session_id": f"bench-{n}-{i}",  # a new conversation per process
                    "cwd": str(rules_root),
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": "Fix the N+1 queries on the invoices page",
                }
            )

        start_payload = json.dumps(
            {"session_id": "bench", "cwd": str(rules_root), "hook_event_name": "SessionStart"}
        )
        paths = {
            "hook stop": lambda n, i: (["hook", "stop"], stop_root, stop_payload),
            "hook user-prompt-submit": lambda n, i: (
                ["hook", "user-prompt-submit"],
                rules_root,
                prompt(n, i),
            ),
            "hook session-start": lambda n, i: (
                ["hook", "session-start"],
                rules_root,
                start_payload,
            ),
            f"search ({args.chunks:,} chunks)": lambda n, i: (
                ["search", queries[n % len(queries)], "--mode", "review", "--json"],
                search_root,
                "",
            ),
        }
        results: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
        same: dict[str, bool] = {}
        for name, make in paths.items():
            for n in range(args.runs + 1):  # round 0 warms caches and is not counted
                outputs = set()
                for i, src in enumerate(srcs):
                    argv, cwd, stdin = make(n, i)
                    wall, cpu, out = run(src, argv, cwd, stdin)
                    outputs.add(out)
                    if n:
                        walls, cpus = results.setdefault((name, src), ([], []))
                        walls.append(wall)
                        cpus.append(cpu)
                if n:
                    same[name] = same.get(name, True) and len(outputs) == 1
        print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
        print("| path | src | wall p50 ms | wall min | CPU p50 ms | CPU min | same output |")
        print("|---|---|---|---|---|---|---|")
        for (name, src), (walls, cpus) in results.items():
            print(
                f"| {name} | {src} | {statistics.median(walls):.0f} | {min(walls):.0f} | "
                f"{statistics.median(cpus):.0f} | {min(cpus):.0f} | "
                f"{'yes' if same[name] else 'NO'} |"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
