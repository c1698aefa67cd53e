"""Fit the rules score's weights with a logistic model, leave one rule file out.

    .venv/bin/python bench/rules_fit.py --data ../shared/bench/rules /tmp/heldout-rules

The retrieval score is a weighted sum of features (cosine, BM25, intent match, domain
match, directive, risk, cosine to the rule's section). Instead of hand-set boosts, this
fits the weights as a logistic model of "this rule covers a gold line of this task" on
all files but one, turns them into settings (dense weight 1, the others relative to it)
and measures recall on the file left out, with the real budgeted selection. The mean of
the held-out folds is the figure to compare with the defaults; the fit on all files is
what a default would be.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from rules_cv import MemoEmbedder, file_recalls, settings_for, task_mean

from charter.config import Project, Settings
from charter.embed.registry import rules_embedder_for
from charter.eval.rules_bench import load_tasks
from charter.rules.annotate import infer_domains
from charter.rules.compiler import compile_rules
from charter.rules.intent import classify
from charter.rules.retrieve import Retriever

FEATURES = (
    "dense_weight",
    "lexical_weight",
    "intent_boost",
    "domain_boost",
    "directive_boost",
    "risk_boost_critical",
    "risk_boost_high",
)


def features(retriever: Retriever, task: str, qv: np.ndarray) -> np.ndarray:
    """One row per candidate, columns as ``FEATURES`` (what ``retrieve`` adds up)."""
    s = retriever.settings
    rules = [retriever.rules[i] for i in retriever.candidates]
    dense = retriever.cand_vectors @ qv
    lex = retriever.bm25.scores(task)
    lex = lex / lex.max() if lex.max() > 0 else lex
    if s.feedback_weight and len(rules) > s.feedback_top:
        first = s.dense_weight * dense + s.lexical_weight * lex
        leaders = np.argpartition(-first, s.feedback_top)[: s.feedback_top]
        mixed = qv + s.feedback_weight * retriever.cand_vectors[leaders].mean(axis=0)
        qv = mixed / max(float(np.linalg.norm(mixed)), 1e-9)
        dense = retriever.cand_vectors @ qv
    intent = classify(task).name
    domains = set(infer_domains(task, ""))
    cols = [
        dense,
        lex,
        [intent != "general" and intent in r.intents for r in rules],
        [bool(domains & set(r.domains)) for r in rules],
        [r.directive for r in rules],
        [r.risk == "critical" for r in rules],
        [r.risk == "high" for r in rules],
    ]
    return np.column_stack([np.asarray(c, dtype=np.float64) for c in cols])


def dataset(
    datas: list[Path], embedder: MemoEmbedder, base: dict[str, Any]
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per file: features, labels and task index of every (task, candidate) pair."""
    settings = settings_for(base)
    out = {}
    for data in datas:
        by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for task in load_tasks(data):
            if task.get("relevant"):
                by_file[task["file"]].append(task)
        for rel_file, tasks in sorted(by_file.items()):
            path = data / rel_file
            with tempfile.TemporaryDirectory(prefix="charter-fit-") as tmp:
                project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
                compiled = compile_rules(project, [path], embedder=embedder, write=False)
            retriever = Retriever(compiled, settings.rules, embedder)
            rules = [retriever.rules[i] for i in retriever.candidates]
            xs, ys, ts = [], [], []
            for n, task in enumerate(tasks):
                lines = [
                    [g["line"]] + [a["line"] for a in g.get("alt", [])] for g in task["relevant"]
                ]
                qv = embedder.embed([task["task"]])[0]
                xs.append(features(retriever, task["task"], qv))
                ys.append(
                    [
                        any(
                            r.source.line_start <= ln <= r.source.line_end
                            for g in lines
                            for ln in g
                        )
                        for r in rules
                    ]
                )
                ts.append(np.full(len(rules), n))
            out[f"{data.name}/{rel_file}"] = (np.vstack(xs), np.concatenate(ys), np.concatenate(ts))
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Weights (last one the intercept) by Newton's method with an L2 penalty."""
    xb = np.column_stack([x, np.ones(len(x))])
    w = np.zeros(xb.shape[1])
    reg = np.eye(len(w)) * l2
    reg[-1, -1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def as_settings(w: np.ndarray) -> dict[str, Any]:
    """Weights relative to the cosine's, clipped at 0 (settings are boosts)."""
    scale = w[0] if w[0] > 0 else 1.0
    return {
        f"rules.{name}": round(max(0.0, float(v / scale)), 3)
        for name, v in zip(FEATURES, w[:-1], strict=True)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", required=True)
    parser.add_argument("--base", default="{}", help="JSON settings the features are taken under")
    parser.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args()
    import json

    base = json.loads(args.base)
    embedder = MemoEmbedder(rules_embedder_for(Settings()))
    data = dataset(args.data, embedder, base)
    files = sorted(data)
    cache: dict[Any, Any] = {}
    default = file_recalls(args.data, base, embedder, cache)
    held = []
    for left_out in files:
        train = [f for f in files if f != left_out]
        x = np.vstack([data[f][0] for f in train])
        y = np.concatenate([data[f][1] for f in train]).astype(np.float64)
        point = base | as_settings(fit_logistic(x, y, args.l2))
        recall = task_mean(file_recalls(args.data, point, embedder, cache), [left_out])
        held.append(recall)
        print(
            f"{left_out:45s} base {task_mean(default, [left_out]):.3f}  fitted {recall:.3f}  "
            f"{ {k.split('.')[1]: v for k, v in point.items() if k not in base} }"
        )
    x = np.vstack([data[f][0] for f in files])
    y = np.concatenate([data[f][1] for f in files]).astype(np.float64)
    print(
        f"mean of files: base {statistics.fmean(task_mean(default, [f]) for f in files):.3f}"
        f"  held-out folds {statistics.fmean(held):.3f}"
    )
    print("fit on all files:", as_settings(fit_logistic(x, y, args.l2)), file=sys.stderr)


if __name__ == "__main__":
    main()
