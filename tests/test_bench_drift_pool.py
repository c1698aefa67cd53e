"""``bench/drift_pool.py`` pools the case counts of many splits the way the scorer counts
one: its pooled figures must equal the sum of ``charter eval drift`` over the splits."""

from __future__ import annotations

import json
from pathlib import Path

from charter.eval.drift import load_split, predict, score
from tests.bench_support import run_bench

DATA = Path(__file__).resolve().parent / "data"


def test_pooled_counts_are_the_sum_of_each_splits_counts(tmp_path: Path) -> None:
    splits = [DATA / "drift_holdout2", DATA / "drift_holdout3"]
    records = tmp_path / "cases.jsonl"
    out = run_bench(
        "drift_pool.py",
        *map(str, splits),
        "--lexical",
        "--group",
        f"one={splits[1]}",
        "--records",
        str(records),
        "--json",
    )
    report = json.loads(out)
    each = [score(load_split(d), predict(load_split(d), None)[0]) for d in splits]
    for key in ("tp", "fp", "fn"):
        assert report["all"]["verdict"][key] == sum(m[key] for m in each)
        assert report["one"]["verdict"][key] == each[1][key]
    rows = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(rows) == report["all"]["cases"] == sum(m["n"] for m in each)
    assert report["all"]["blocking"]["tp"] <= report["all"]["verdict"]["tp"]
