"""Tokens and recall of the prompt hook over whole sessions, by its two settings.

    .venv/bin/python bench/hook_budget_curve.py --data ../shared/bench/rules \\
        --data /tmp/heldout-rules [--fractions 0 0.04 0.06 0.08 0.10] \\
        [--cutoffs 0 0.3 0.4 0.5] [--session 8] [--set KEY=VALUE]

``--fractions`` are ``rules.hook_budget_fraction`` values, ``--cutoffs``
``rules.hook_relative_cutoff`` values (default: the setting's).

Each labelled file's tasks, in file order, are cut into sessions of ``--session``
prompts. Each prompt goes through the same selection as the prompt hook: the rules for
the task at the retrieval budget, minus those already given in this conversation, the new
ones within the hook budget (:func:`charter.rules.injected.take`, a real SQLite store).
A rule given once stays in the conversation, as hook context does in Claude Code, so
request k carries the constitution plus everything given so far.

Figures per file and per split (each ``--data`` directory is one split):
- ``ratio``: rule tokens over the session (constitution plus the accumulated rules, each
  request) / (the whole file on each request, as Claude Code alone sends it);
- ``recall``: gold rules of each task present in the conversation when it is asked
  (constitution, this prompt's rules, or an earlier prompt's);
- ``prompt_recall``: gold rules among the constitution and this prompt's selection only.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from charter.config import Project, Settings
from charter.embed.registry import rules_embedder_for
from charter.eval.rules_bench import _gold_found, load_tasks
from charter.fileio import read_text
from charter.rules.compiler import compile_rules
from charter.rules.injected import take
from charter.rules.retrieve import Retriever
from charter.tokens import count_tokens

HEADER = "# Project rules for this request (Charter; intent general)"


def session_figures(
    retriever: Retriever,
    tasks: list[dict[str, Any]],
    rel: str,
    whole: int,
    fraction: float,
    state: Path,
    name: str,
    cutoff: float,
) -> dict[str, int]:
    budget = max(1, int(retriever.compiled.source_tokens * fraction)) if fraction else 0
    constitution = count_tokens(retriever.constitution_text) if retriever.constitution_text else 0
    given: list[str] = []
    shown_cost: dict[str, int] = {}
    sent = found = found_now = gold_n = 0
    for task in tasks:
        result = retriever.retrieve(task["task"], task.get("files"), relative_cutoff=cutoff or None)
        chosen = [sh.rule.id for sh in result.shards]
        taken = take(state, name, chosen, costs=retriever.costs, budget=budget)
        given += taken.fresh
        full = retriever.full_ids(result.shards)  # the hook shows the rest brief
        for rid in taken.fresh:
            shown_cost[rid] = retriever.line_cost(rid, full)
        in_context = retriever.constitution_rules + [
            r for r in retriever.rules if r.id in set(given)
        ]
        now = retriever.constitution_rules + [
            r for r in retriever.rules if r.id in set(chosen) & set(given)
        ]
        gold = task.get("relevant", [])
        found += sum(_gold_found(in_context, rel, g) for g in gold)
        found_now += sum(_gold_found(now, rel, g) for g in gold)
        gold_n += len(gold)
        paths = {
            retriever.rules[i].source.path
            for i in range(len(retriever.rules))
            if retriever.rules[i].id in set(given)
        }
        held = sum(shown_cost[r] for r in given)
        held += sum(retriever.header_costs.get(p, 0) for p in paths)  # one `In path:` each
        sent += constitution + (count_tokens(HEADER) + held if given else 0)
    return {
        "sent": sent,
        "alone": whole * len(tasks),
        "found": found,
        "found_now": found_now,
        "gold": gold_n,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", required=True)
    parser.add_argument("--fractions", type=float, nargs="+", default=[0, 0.04, 0.06, 0.08, 0.1])
    parser.add_argument(
        "--cutoffs",
        type=float,
        nargs="+",
        default=None,
        help="rules.hook_relative_cutoff values (default: the setting's)",
    )
    parser.add_argument("--session", type=int, default=8)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rules setting for every run, e.g. relative_cutoff=0.5",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    overrides = {k: json.loads(v) for k, v in (item.split("=", 1) for item in args.set)}
    settings = Settings()
    settings = settings.model_copy(update={"rules": settings.rules.model_copy(update=overrides)})
    embedder = rules_embedder_for(settings)
    cutoffs = args.cutoffs if args.cutoffs is not None else [settings.rules.hook_relative_cutoff]
    points = [(f, c) for c in cutoffs for f in args.fractions]
    rows: dict[tuple[float, float], dict[str, dict[str, dict[str, int]]]] = defaultdict(dict)
    with tempfile.TemporaryDirectory(prefix="charter-hook-curve-") as tmp:
        for data in args.data:
            by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for task in load_tasks(data):
                by_file[task["file"]].append(task)
            for rel_file in sorted(by_file):
                path = data / rel_file
                project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
                compiled = compile_rules(project, [path], embedder=embedder, write=False)
                retriever = Retriever(compiled, settings.rules, embedder)
                whole = count_tokens(read_text(path, what="rule file"))
                tasks = by_file[rel_file]
                for fraction, cutoff in points:
                    total: dict[str, int] = defaultdict(int)
                    for start in range(0, len(tasks), args.session):
                        name = f"{data}:{rel_file}:{fraction}:{cutoff}:{start}"
                        part = session_figures(
                            retriever,
                            tasks[start : start + args.session],
                            project.rel(path),
                            whole,
                            fraction,
                            Path(tmp),
                            name,
                            cutoff,
                        )
                        for key, value in part.items():
                            total[key] += value
                    rows[(fraction, cutoff)].setdefault(str(data), {})[rel_file] = dict(total)
    report = []
    for (fraction, cutoff), splits in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        for split, files in splits.items():
            agg: dict[str, int] = defaultdict(int)
            per_file = {}
            for rel_file, t in files.items():
                for key, value in t.items():
                    agg[key] += value
                per_file[rel_file] = _figures(t)
            report.append(
                {
                    "fraction": fraction,
                    "cutoff": cutoff,
                    "split": split,
                    **_figures(agg),
                    "per_file": per_file,
                }
            )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{'cutoff':>6} {'fraction':>8} {'split':40} {'ratio':>6} {'recall':>7} {'prompt':>7}"
        "  worst ratio"
    )
    for r in report:
        worst = max(r["per_file"].items(), key=lambda kv: kv[1]["ratio"])
        print(
            f"{r['cutoff']:>6} {r['fraction']:>8} {r['split'][-40:]:40} {r['ratio']:>6.3f} "
            f"{r['recall']:>7.3f} {r['prompt_recall']:>7.3f}  {worst[0]} {worst[1]['ratio']:.2f}"
        )
    return 0


def _figures(t: dict[str, int]) -> dict[str, float]:
    return {
        "ratio": round(t["sent"] / t["alone"], 3) if t["alone"] else 0.0,
        "recall": round(t["found"] / t["gold"], 3) if t["gold"] else 0.0,
        "prompt_recall": round(t["found_now"] / t["gold"], 3) if t["gold"] else 0.0,
    }


if __name__ == "__main__":
    sys.exit(main())
