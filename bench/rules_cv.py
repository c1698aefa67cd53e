"""Leave-one-file-out cross-validation of rules-retrieval settings.

    .venv/bin/python bench/rules_cv.py --data ../shared/bench/rules /tmp/heldout-rules \\
        --grid rules.directive_boost=0.0,0.025,0.05 --grid rules.lexical_weight=0.4,0.5

Every labelled rule file of every ``--data`` directory is one fold. For each fold the
setting (a point of the grid) with the best task-mean recall on the *other* files is
chosen, and its recall on the left-out file is reported: that is the held-out figure of
the grid, next to the in-sample figure of the default and of the best point over all
files. A change is worth keeping only if the held-out figure rises and no file falls a
lot. Rule files are compiled once per compile-affecting setting and embeddings are
memoised, so a grid of a few dozen points runs in minutes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from charter.config import Project, Settings
from charter.embed.base import Vectors
from charter.embed.registry import rules_embedder_for
from charter.errors import CharterError
from charter.eval.rules_bench import _gold_found, load_tasks
from charter.records import RecordError
from charter.rules.compiler import compile_rules
from charter.rules.retrieve import Retriever

#: Settings that change what is compiled (the rest only change retrieval).
COMPILE_KEYS = {"max_rule_tokens", "constitution_budget_share", "constitution_min_tokens"}


class MemoEmbedder:
    """The configured embedder with every text's vector remembered (texts repeat a lot
    across grid points: each rule, each task)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> Vectors:
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if todo:
            for text, vec in zip(todo, self.inner.embed(todo), strict=True):
                self.memo[text] = vec
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.memo[t] for t in texts]).astype(np.float32)


def parse_grid(specs: list[str]) -> list[dict[str, Any]]:
    axes: list[list[tuple[str, Any]]] = []
    for spec in specs:
        key, _, values = spec.partition("=")
        try:
            axes.append([(key, json.loads(v)) for v in values.split(",")])
        except json.JSONDecodeError:
            raise CharterError(f"--grid {spec!r}: expected key=v1,v2 with JSON values") from None
    return [dict(point) for point in itertools.product(*axes)] or [{}]


def settings_for(point: dict[str, Any]) -> Settings:
    raw: dict[str, dict[str, Any]] = defaultdict(dict)
    for key, value in point.items():
        section, _, name = key.partition(".")
        raw[section][name] = value
    return Settings.model_validate(dict(raw))


def file_recalls(
    datas: list[Path], point: dict[str, Any], embedder: MemoEmbedder, cache: dict[Any, Any]
) -> dict[str, list[float]]:
    """Per-task recall (tasks with gold) of every file under ``point``."""
    settings = settings_for(point)
    out: dict[str, list[float]] = {}
    for data in datas:
        by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for task in load_tasks(data):
            by_file[task["file"]].append(task)
        for rel_file, tasks in sorted(by_file.items()):
            path = data / rel_file
            compile_key = (
                str(path),
                tuple(
                    sorted(
                        (k, str(v)) for k, v in point.items() if k.split(".")[-1] in COMPILE_KEYS
                    )
                ),
            )
            if compile_key not in cache:
                with tempfile.TemporaryDirectory(prefix="charter-cv-") as tmp:
                    project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
                    compiled = compile_rules(
                        project, [path], embedder=embedder, write=False, embed_constitution=True
                    )
                    cache[compile_key] = (compiled, project.rel(path))
            compiled, rel = cache[compile_key]
            retriever = Retriever(compiled, settings.rules, embedder)
            scores = []
            for task in tasks:
                gold = task.get("relevant", [])
                if not gold:
                    continue
                result = retriever.retrieve(task["task"], task.get("files"))
                returned = retriever.constitution_rules + [s.rule for s in result.shards]
                scores.append(sum(_gold_found(returned, rel, g) for g in gold) / len(gold))
            out[f"{data.name}/{rel_file}"] = scores
    return out


def task_mean(recalls: dict[str, list[float]], files: list[str]) -> float:
    values = [v for f in files for v in recalls[f]]
    return statistics.fmean(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", required=True)
    parser.add_argument("--grid", action="append", default=[], help="key=v1,v2 (JSON values)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        run(args)
    except (CharterError, RecordError) as exc:
        first = str(exc).splitlines()[0]
        print(f"rules_cv: error: {first}", file=sys.stderr)
        raise SystemExit(1) from None


def run(args: argparse.Namespace) -> None:
    points = parse_grid(args.grid)
    for point in points:
        settings_for(point)  # an unknown key or a bad value fails before any work
    embedder = MemoEmbedder(rules_embedder_for(Settings()))
    cache: dict[Any, Any] = {}
    results = []
    for i, point in enumerate(points):
        print(f"[{i + 1}/{len(points)}] {point}", file=sys.stderr)
        results.append(file_recalls(args.data, point, embedder, cache))
    files = sorted(results[0])
    default = file_recalls(args.data, {}, embedder, cache)
    folds = []
    for left_out in files:
        train = [f for f in files if f != left_out]
        best = max(range(len(points)), key=lambda j: (task_mean(results[j], train), -j))
        folds.append(
            {
                "file": left_out,
                "chosen": points[best],
                "held_out": round(task_mean(results[best], [left_out]), 4),
                "default": round(task_mean(default, [left_out]), 4),
            }
        )
    in_sample = max(range(len(points)), key=lambda j: (task_mean(results[j], files), -j))
    report = {
        "points": len(points),
        "folds": folds,
        "held_out_mean": round(statistics.fmean(f["held_out"] for f in folds), 4),
        "default_mean": round(statistics.fmean(f["default"] for f in folds), 4),
        "in_sample_best": points[in_sample],
        "in_sample_mean": round(
            statistics.fmean(task_mean(results[in_sample], [f]) for f in files), 4
        ),
        "grid": [
            {"point": p, "per_file": {f: round(task_mean(r, [f]), 4) for f in files}}
            for p, r in zip(points, results, strict=True)
        ],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for fold in folds:
        print(
            f"{fold['file']:45s} default {fold['default']:.3f}  held-out {fold['held_out']:.3f}"
            f"  chosen {fold['chosen']}"
        )
    print(
        f"mean of files: default {report['default_mean']:.3f}  "
        f"held-out folds {report['held_out_mean']:.3f}  "
        f"in-sample best {report['in_sample_mean']:.3f} {report['in_sample_best']}"
    )


if __name__ == "__main__":
    main()
