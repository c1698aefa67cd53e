"""Tune task-context ranking on the localization dev split, leaving one repository out.

Checkouts are written once under --work (default /dev/shm/charter-loc) and their graphs
built once; each weight setting then re-ranks every task in-process. For each repository
the setting with the best mean (Acc@1 + Acc@5 + MRR) on the OTHER repositories is scored
on it, so the "held-out" line is measured on data the choice was not tuned on.

    .venv/bin/python bench/localize_tune.py --data ../shared/bench/localize --mirrors DIR
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import asdict, replace
from pathlib import Path

from charter.config import Project
from charter.eval.checkout import checkout
from charter.eval.localize import load_tasks, metrics, mirror_for
from charter.graph.build import build_graph
from charter.graph.context import Weights, rank
from charter.graph.index import FileIndex
from charter.graph.settings import GraphSettings

DEPTH = GraphSettings().default_depth


def ranked_files(graph, index, task: str, weights: Weights) -> list[str]:
    ranked, _ = rank(graph, task, weights=weights, index=index, depth=DEPTH)
    out: list[str] = []
    for nid, *_ in ranked:
        path = graph.nodes[nid].path
        if path and path not in out:
            out.append(path)
        if len(out) >= 10:
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/dev/shm/charter-loc"))
    parser.add_argument("--grid", default="default")
    args = parser.parse_args()
    tasks = load_tasks(args.data)
    base = Weights()
    grid: list[Weights] = [base]
    if args.grid != "default":
        spec = json.loads(args.grid)  # {"field": [values], ...}
        keys = sorted(spec)
        grid = [
            replace(base, **dict(zip(keys, combo, strict=True)))
            for combo in itertools.product(*(spec[k] for k in keys))
        ]
    # one checkout's graph in memory at a time: every setting ranks it, then it goes
    per_task: list[list[list[str]]] = []
    for task in tasks:
        root = args.work / task["id"]
        if not (root / ".git").exists():
            checkout(mirror_for(args.mirrors, task["repo"]), task["base_commit"], root)
        graph = build_graph(Project.load(root))
        index = FileIndex(graph.records)
        per_task.append([ranked_files(graph, index, task["task"], w) for w in grid])
        del graph, index
    results = [(w, [ranks[g] for ranks in per_task]) for g, w in enumerate(grid)]
    golds = [t["gold_files"] for t in tasks]
    repos = sorted({t["repo"] for t in tasks})

    def score(m: dict[str, float]) -> float:
        return m["acc@1"] + m["acc@5"] + m["mrr"]

    for weights, ranks in results:
        m = metrics(ranks, golds)
        changed = {k: v for k, v in asdict(weights).items() if v != asdict(base)[k]}
        print("all", json.dumps(changed), m)
    held_ranks: list[list[str]] = [[] for _ in tasks]
    for repo in repos:
        inside = [i for i, t in enumerate(tasks) if t["repo"] != repo]
        best = max(
            results,
            key=lambda r: score(metrics([r[1][i] for i in inside], [golds[i] for i in inside])),
        )
        for i, t in enumerate(tasks):
            if t["repo"] == repo:
                held_ranks[i] = best[1][i]
    print("held-out (leave one repository out):", metrics(held_ranks, golds))
    for i, t in enumerate(tasks):
        r = results[0][1][i]
        pos = next((k + 1 for k, p in enumerate(r) if p in t["gold_files"]), None)
        print(f"  {t['id']}: {pos} gold={t['gold_files'][0]} top={r[:3]}")


if __name__ == "__main__":
    main()
