"""Pooled drift figures over many labelled sets, in one process.

``charter eval drift --data DIR`` scores one split; the held-out evidence of issue 13 is
dozens of splits written by different people, and a change is judged on their pooled
case counts (and on the half of them it was not written on). This loads the embedding
model once, scores every split with the shipped settings, and prints the pooled counts,
P / R / F1 and the same at blocking confidence (``drift.block_confidence``), overall and
per group of splits (``--group NAME=DIR,DIR``). ``--records`` writes one JSON line per
case (split, id, expected, verdict, findings, gold) for comparing two runs.

    python bench/drift_pool.py tests/data/drift_holdout* bench/data/drift_units/d? \\
        [--group held=tests/data/drift_holdout8,...] [--records out.jsonl] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from charter.decisions.settings import DriftSettings
from charter.embed.registry import get_embedder
from charter.eval.drift import load_split, predict


def _figures(rows: list[dict[str, Any]], block: float) -> dict[str, Any]:
    out: dict[str, Any] = {"cases": len(rows)}
    for name, decide in (
        ("verdict", lambda r: r["verdict"] == "fail"),
        ("blocking", lambda r: any(v["confidence"] >= block for v in r["found"])),
    ):
        tp = sum(r["expected"] == "fail" and decide(r) for r in rows)
        fp = sum(r["expected"] != "fail" and decide(r) for r in rows)
        fn = sum(r["expected"] == "fail" and not decide(r) for r in rows)
        p = tp / (tp + fp) if tp + fp else 0.0
        r_ = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r_ / (p + r_) if p + r_ else 0.0
        out[name] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": round(p, 4),
            "recall": round(r_, 4),
            "f1": round(f1, 4),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="splits in the bench format")
    ap.add_argument("--group", action="append", default=[], help="NAME=DIR,DIR,...")
    ap.add_argument("--records", type=Path, help="write one JSON line per case here")
    ap.add_argument("--lexical", action="store_true", help="without the embedding model")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    embedder = None if args.lexical else get_embedder("minilm")
    block = DriftSettings().block_confidence
    rows: list[dict[str, Any]] = []
    for d in args.dirs:
        split = load_split(d)
        preds, _ = predict(split, embedder)
        by_id = {p["id"]: p for p in preds}
        for case in split.cases:
            pred = by_id[case["id"]]
            rows.append(
                {
                    "set": d.name,
                    "id": case["id"],
                    "expected": case["expected"],
                    "tags": case.get("tags") or [],
                    "verdict": pred["verdict"],
                    "found": pred["violations"],
                    "gold": case.get("violations") or [],
                }
            )
    report: dict[str, Any] = {"splits": len(args.dirs), "all": _figures(rows, block)}
    for spec in args.group:
        name, _, members = spec.partition("=")
        names = {Path(m).name for m in members.split(",") if m}
        report[name] = _figures([r for r in rows if r["set"] in names], block)
    if args.records:
        args.records.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
    else:
        for name, figs in report.items():
            if not isinstance(figs, dict):
                continue
            v, b = figs["verdict"], figs["blocking"]
            print(
                f"{name:10s} cases {figs['cases']:5d}  TP {v['tp']:4d} FP {v['fp']:4d} "
                f"FN {v['fn']:4d}  F1 {v['f1']:.3f} P {v['precision']:.3f} R {v['recall']:.3f}"
                f"  | blocking P {b['precision']:.3f} R {b['recall']:.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
