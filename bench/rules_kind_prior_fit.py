"""Fit the lift a kind of task gives the rules it needs beyond its words
(``charter/data/kind_prior_model.json``; :mod:`charter.rules.kind_prior`).

Labelled rule files in the rules benchmark's layout are compiled as Charter compiles them,
and each task with gold rules is ranked with the lift off. Every candidate rule the ranking
returns is a row: the retrieval score, the task's intent and the rule's vector, positive
when the rule covers a gold line. The model is a logistic regression

    logit = a * score + b + h[intent] . vector

(L2 on the heads; Adam from zeros, a fixed number of steps: deterministic). Retrieval adds
``rules.kind_prior * h[intent] . vector / a``, centred per task.

``--fold FILE`` fits on the files listed in FILE only and prints the log-loss on the
others beside the score-only model's (the recall check is then ``charter eval rules`` on
the other files with the written model in place). ``--write`` writes the model.

Usage::

    python bench/materialize_rules_data.py --mirrors /work/.mirror --out /tmp/h204
    python bench/rules_kind_prior_fit.py --data /tmp/h204 --rows /tmp/rows.pkl [--fold A.txt] \\
        [--out model.json | --write]
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from charter.config import Project, Settings
from charter.embed.registry import rules_embedder_for
from charter.eval.rules_bench import _gold_found, load_tasks
from charter.rules.compiler import compile_rules
from charter.rules.intent import INTENTS, classify
from charter.rules.retrieve import Retriever

MODEL = Path(__file__).resolve().parent.parent / "src/charter/data/kind_prior_model.json"


def extract(data: Path) -> tuple[list[dict[str, Any]], str]:
    settings = Settings()
    settings.rules.kind_prior = 0.0  # the rows are the ranking without the lift
    embedder = rules_embedder_for(settings)
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task in load_tasks(data):
        by_file[task["file"]].append(task)
    rows = []
    for target, tasks in sorted(by_file.items()):
        path = data / target
        with tempfile.TemporaryDirectory() as tmp:
            project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
            compiled = compile_rules(project, [path], embedder=embedder, write=False)
            retriever = Retriever(compiled, settings.rules, embedder)
            rel = project.rel(path)
            ids = [retriever.rules[i].id for i in retriever.candidates]
            for task in tasks:
                if not task.get("relevant"):
                    continue
                ranked = retriever.retrieve(task["task"], task.get("files"), top=10000)
                scores = {s.rule.id: s.score for s in ranked.shards}
                gold = [
                    any(_gold_found([retriever.rules[i]], rel, g) for g in task["relevant"])
                    for i in retriever.candidates
                ]
                rows.append(
                    {
                        "file": target,
                        "intent": classify(task["task"]).name,
                        "scores": np.array([scores.get(i, np.nan) for i in ids], np.float32),
                        "gold": np.array(gold, dtype=bool),
                        "vectors": retriever.cand_vectors,
                    }
                )
        print(target, file=sys.stderr, flush=True)
    return rows, embedder.name


def _design(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, list[slice], np.ndarray]:
    """Scores, vectors, the row slice of each intent (rows sorted by intent) and gold."""
    ordered = sorted(rows, key=lambda r: INTENTS.index(r["intent"]))
    scores = np.concatenate([np.nan_to_num(r["scores"], nan=0.0) for r in ordered])
    vectors = np.concatenate([r["vectors"] for r in ordered]).astype(np.float64)
    kinds = np.concatenate([np.full(len(r["scores"]), INTENTS.index(r["intent"])) for r in ordered])
    gold = np.concatenate([r["gold"] for r in ordered]).astype(np.float64)
    bounds = np.searchsorted(kinds, np.arange(len(INTENTS) + 1))
    spans = [slice(int(bounds[k]), int(bounds[k + 1])) for k in range(len(INTENTS))]
    return scores.astype(np.float64), vectors, spans, gold


def _logits(
    scores: np.ndarray, vectors: np.ndarray, spans: list[slice], ab: np.ndarray, head: np.ndarray
) -> np.ndarray:
    """The last column of ``head`` is each intent's own intercept: it shifts every rule of
    a task alike, so retrieval (which centres the lift per task) never needs it."""
    z = ab[0] * scores + ab[1]
    for k, span in enumerate(spans):
        z[span] += vectors[span] @ head[k, :-1] + head[k, -1]
    return z


def fit(
    rows: list[dict[str, Any]], l2: float, steps: int = 400, lr: float = 0.05, heads: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(a and b, the heads) by Adam from zeros on the mean log-loss."""
    scores, vectors, spans, gold = _design(rows)
    n, dim = vectors.shape
    params = [np.array([5.0, -3.0]), np.zeros((len(INTENTS), dim + 1))]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        ab, head = params
        err = (1 / (1 + np.exp(-_logits(scores, vectors, spans, ab, head))) - gold) / n
        g_head = np.zeros_like(head)
        if heads:
            for k, span in enumerate(spans):
                g_head[k, :-1] = err[span] @ vectors[span]
                g_head[k, -1] = err[span].sum()
        penalty = l2 * head
        penalty[:, -1] = 0.0  # the intercepts are not shrunk
        grads = [np.array([(err * scores).sum(), err.sum()]), g_head + penalty]
        for i, g in enumerate(grads):
            first[i] = 0.9 * first[i] + 0.1 * g
            second[i] = 0.999 * second[i] + 0.001 * g * g
            step = (first[i] / (1 - 0.9**t)) / (np.sqrt(second[i] / (1 - 0.999**t)) + 1e-8)
            params[i] = params[i] - lr * step
    return params[0], params[1]


def log_loss(rows: list[dict[str, Any]], ab: np.ndarray, head: np.ndarray) -> float:
    scores, vectors, spans, gold = _design(rows)
    p = np.clip(1 / (1 + np.exp(-_logits(scores, vectors, spans, ab, head))), 1e-7, 1 - 1e-7)
    return float(-(gold * np.log(p) + (1 - gold) * np.log(1 - p)).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append", required=True)
    parser.add_argument("--rows", type=Path, help="cache of the extracted rows (pickle)")
    parser.add_argument("--fold", type=Path, help="fit on the files listed here only")
    parser.add_argument("--l2", type=float, default=0.001)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--write", action="store_true", help=f"write {MODEL.name}")
    args = parser.parse_args()
    if args.rows and args.rows.exists():
        rows, embedding = pickle.loads(args.rows.read_bytes())
    else:
        rows, embedding = [], ""
        for data in args.data:
            found, embedding = extract(data)
            rows += found
        if args.rows:
            args.rows.write_bytes(pickle.dumps((rows, embedding)))
    chosen = {r["file"] for r in rows}
    if args.fold:
        chosen = set(args.fold.read_text(encoding="utf-8").split())
    train = [r for r in rows if r["file"] in chosen]
    ab, head = fit(train, args.l2)
    base_ab, base_head = fit(train, 0.0, heads=False)
    print(f"fitted on {len({r['file'] for r in train})} files, {len(train)} tasks; a={ab[0]:.4f}")
    print(
        f"log-loss (fitted on): {log_loss(train, ab, head):.5f}, score only "
        f"{log_loss(train, base_ab, base_head):.5f}"
    )
    rest = [r for r in rows if r["file"] not in chosen]
    if rest:
        print(
            f"log-loss (held out): {log_loss(rest, ab, head):.5f}, score only "
            f"{log_loss(rest, base_ab, base_head):.5f}"
        )
    model = {
        "embedding": embedding,
        "dim": int(head.shape[1]) - 1,
        "score_coefficient": round(float(ab[0]), 6),
        "heads": {
            name: [round(float(w), 6) for w in head[i, :-1]] for i, name in enumerate(INTENTS)
        },
        "l2": args.l2,
        "fitted_on": {"files": len({r["file"] for r in train}), "tasks": len(train)},
    }
    target = MODEL if args.write else args.out
    if target:
        target.write_text(json.dumps(model, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
