"""Crash safety: kill -9 trials per store and parallel writers, lost / corrupted counts.

    .venv/bin/python bench/crash_safety.py [--trials 100] [--processes 12] [--rounds 9]

For each store (decisions, rules compile state, search index + BM25 cache, the
append-only actions log, the session state: compaction, decision notes, track switch,
tool capture and the work log) it runs ``--trials`` writers in real subprocesses, killed with
SIGKILL at each named write step in turn (``$CHARTER_FAULT``, see
``charter.fileio.fault_point``) and at random moments, then checks what a reader sees
right after the kill and what the next run leaves (``tests/crash_support.py``). Then
``--processes`` concurrent ``charter decisions add`` per round for ``--rounds`` rounds,
as many concurrent actions-log writers, and ``--processes`` concurrent session writers
(``charter hook post-tool-use`` with TaskCreate / TaskUpdate / TodoWrite / Edit payloads,
``charter session note decision``) plus one ``charter hook pre-compact`` per round.
Projects use the hash embedder: what is measured is the write path, not the model.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.crash_support import (
    SCENARIOS,
    Trial,
    parallel_decisions,
    parallel_log,
)
from tests.session_crash_support import SessionScenario, parallel_session


def _plan(steps: list[str], trials: int) -> list[str]:
    """Each named step in turn, every other trial a random-time kill."""
    named = [s for s in steps if s != "random"]
    return ["random" if j % 2 else named[(j // 2) % len(named)] for j in range(trials)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100, help="kill trials per store")
    parser.add_argument("--processes", type=int, default=12, help="parallel writers")
    parser.add_argument("--rounds", type=int, default=9, help="rounds of parallel writers")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument(
        "--stores", default="", help="comma-separated store names to run (default: all)"
    )
    parser.add_argument(
        "--no-parallel", action="store_true", help="skip parallel writers (of --stores)"
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: list[list[str]] = []
    steps_rows: list[list[str]] = []
    failures: list[Trial] = []
    with tempfile.TemporaryDirectory(prefix="charter-crash-") as tmp:
        work = Path(tmp)
        wanted = {s.strip() for s in args.stores.split(",") if s.strip()}
        for factory in [*SCENARIOS, SessionScenario]:
            if wanted and factory.name not in wanted:
                continue
            scenario = factory(work / factory.__name__)
            trials: list[Trial] = []
            for i, step in enumerate(_plan(scenario.steps, args.trials)):
                trials.append(scenario.trial(i, step, rng))
                print(f"\r{scenario.name}: {i + 1}/{args.trials}", end="", file=sys.stderr)
            print(file=sys.stderr)
            failures += [t for t in trials if t.lost or t.corrupted]
            rows.append(
                [
                    scenario.name,
                    str(len(trials)),
                    str(sum(t.killed for t in trials)),
                    str(sum(t.lost for t in trials)),
                    str(sum(t.corrupted for t in trials)),
                    f"{statistics.median(t.seconds for t in trials):.2f}",
                ]
            )
            by_step: dict[str, list[Trial]] = defaultdict(list)
            for t in trials:
                by_step[t.step].append(t)
            for step, group in by_step.items():
                steps_rows.append(
                    [
                        scenario.name,
                        step,
                        str(len(group)),
                        str(sum(t.killed for t in group)),
                        str(sum(t.lost for t in group)),
                        str(sum(t.corrupted for t in group)),
                    ]
                )
        parallel: list[list[str]] = []
        par_bad = 0
        ses = None
        if not args.no_parallel:

            def want(store: str) -> bool:
                return not wanted or store in wanted

            if want("decisions"):
                started = time.perf_counter()
                par = parallel_decisions(work, args.processes, args.rounds)
                par_bad += par.lost + par.corrupted
                parallel.append(
                    [
                        par.store,
                        f"{par.writers} ({args.processes} x {args.rounds} rounds)",
                        str(par.acknowledged),
                        str(par.lost),
                        str(par.corrupted),
                        f"{time.perf_counter() - started:.1f}",
                        par.detail,
                    ]
                )
            if want("actions log"):
                started = time.perf_counter()
                log = parallel_log(work, args.processes * args.rounds, 10)
                par_bad += log.lost + log.corrupted
                parallel.append(
                    [
                        log.store,
                        f"{log.writers} processes x 10 rows",
                        str(log.acknowledged),
                        str(log.lost),
                        str(log.corrupted),
                        f"{time.perf_counter() - started:.1f}",
                        "",
                    ]
                )
            if want("session"):
                started = time.perf_counter()
                ses = parallel_session(work, args.processes, args.rounds)
                par_bad += ses.lost + ses.corrupted + ses.failed
                hooks, notes = args.processes, args.processes // 3
                parallel.append(
                    [
                        "session",
                        f"{ses.writers} ({hooks} hooks + {notes} notes + 1 pre-compact) x "
                        f"{args.rounds} rounds",
                        str(ses.acknowledged),
                        str(ses.lost),
                        str(ses.corrupted),
                        f"{time.perf_counter() - started:.1f}",
                        ses.detail + (f"; {ses.failed} not acknowledged" if ses.failed else ""),
                    ]
                )
            for problem in ses.problems[:10] if ses else []:
                print(f"FAIL session parallel: {problem}")
    if rows:
        print("\nKill -9 trials per store (reader right after the kill, then the next run)\n")
        _table(["store", "trials", "killed", "lost", "corrupted", "median s/trial"], rows)
        print("\nBy step\n")
        _table(["store", "step", "trials", "killed", "lost", "corrupted"], steps_rows)
    if parallel:
        print("\nParallel writers\n")
        _table(
            ["store", "writers", "acknowledged", "lost", "corrupted", "seconds", "detail"],
            parallel,
        )
    for t in failures[:20]:
        print(f"FAIL {t.store} {t.step}: lost {t.lost}, corrupted {t.corrupted}: {t.detail}")
    return 1 if failures or par_bad else 0


def _table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
