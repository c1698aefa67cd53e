"""Fit the drift checker's calibrated decision (``charter/data/drift_model.json``).

Runs the checker's candidate layers on labelled splits in the bench format, labels each
candidate (positive: the case is ``fail`` and the candidate cites one of its gold
constraints), and fits an L2 logistic regression (Newton's method, numpy, deterministic)
twice: with the embedding model's similarity features (``semantic``) and without
(``lexical``).

Evaluation is leave-one-SCENARIO-out: for each scenario the model is fitted on all the
others, its operating point is chosen on those training scenarios' own out-of-fold
probabilities (nested leave-one-scenario-out), and the held-out scenario is scored. The
shipped model is fitted on everything, with the operating point chosen the same way on
all out-of-fold probabilities. Operating point: the lowest threshold whose case-level
precision is >= ``--min-precision`` (0.9), maximising F1; precision first.

Usage::

    python bench/drift_fit.py --data /path/to/shared/bench/drift --data tests/data/drift_extra \\
        --data tests/data/drift_holdout2 --data tests/data/drift_holdout3 \\
        --data tests/data/drift_holdout4 [--write] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODEL_PATH = ROOT / "src" / "charter" / "data" / "drift_model.json"
L2 = 10.0


@dataclass
class Rows:
    x: np.ndarray  # candidates x features
    y: np.ndarray  # candidate labels
    case: np.ndarray  # candidate -> case index
    case_fail: np.ndarray  # case -> gold fail
    case_group: list[str]  # case -> "split/scenario"
    case_split: list[str]


def collect(dirs: list[Path], semantic: bool, probes: Path | None = None) -> Rows:
    from charter.decisions.drift.calibrate import FEATURES, DriftModel, Weights
    from charter.decisions.drift.checker import DriftChecker
    from charter.decisions.models import parse_clarifications
    from charter.embed.registry import get_embedder
    from charter.eval.drift import load_split

    embedder = get_embedder("minilm") if semantic else None
    # candidates and features do not depend on the weights: fit without the shipped file
    neutral = Weights(tuple(0.0 for _ in FEATURES), 0.5)
    model = DriftModel(neutral, neutral, {})
    xs: list[list[float]] = []
    ys: list[float] = []
    owner: list[int] = []
    fails: list[bool] = []
    groups: list[str] = []
    splits: list[str] = []
    checkers: dict[str, DriftChecker] = {}
    home: dict[str, str] = {}
    work: list[tuple[str, str, dict[str, object]]] = []
    for d in dirs:
        split = load_split(d)
        for scen, data in split.constraints.items():
            decisions = parse_clarifications(data, scen)
            checkers[scen] = DriftChecker(decisions, embedder=embedder, model=model)
            home[scen] = d.name
        work.extend((d.name, c["scenario"], c) for c in split.cases)
    if probes is not None:  # one-sentence probes: fitted on, never scored
        for line in probes.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row and row["scenario"] in checkers:
                fail = row["expected"] == "fail"
                viol = [{"constraint_id": row["constraint_id"]}] if fail else []
                work.append(("probes", row["scenario"], {**row, "violations": viol}))
    for split_name, scen, case in work:
        violations = case.get("violations") or []
        gold = {v["constraint_id"] for v in violations}  # type: ignore[attr-defined]
        fail = case["expected"] == "fail"
        idx = len(fails)
        fails.append(fail)
        groups.append(f"{home[scen]}/{scen}")
        splits.append(split_name)
        for cand in checkers[scen].candidates(str(case["text"])):
            xs.append(cand.vector())
            ys.append(float(fail and cand.constraint_id in gold))
            owner.append(idx)
    return Rows(
        x=np.array(xs, dtype=float).reshape(-1, len(FEATURES)),
        y=np.array(ys),
        case=np.array(owner, dtype=int),
        case_fail=np.array(fails),
        case_group=groups,
        case_split=splits,
    )


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """L2 logistic regression by Newton's method (bias, column 0, not penalised)."""
    w = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], L2)
    reg[0] = 1e-6
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        grad = x.T @ (p - y) + reg * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w


#: Column whose zero vetoes a candidate (experiments only; None = the model decides).
GATE: int | None = None


def prob(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
    return p if GATE is None else p * (x[:, GATE] > 0)


def case_scores(rows: Rows, p: np.ndarray, cases: np.ndarray) -> np.ndarray:
    """Highest candidate probability per case (0 without candidates)."""
    best = np.zeros(len(rows.case_fail))
    np.maximum.at(best, rows.case, p)
    return best[cases]


def prf(fail: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    tp = int((fail & pred).sum())
    fp = int((~fail & pred).sum())
    fn = int((fail & ~pred).sum())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f}


def choose_threshold(fail: np.ndarray, score: np.ndarray, min_precision: float) -> float:
    """The operating point: best F1 among thresholds whose precision meets the floor.

    Among equally good thresholds the lowest is taken (it keeps the most findings at the
    same precision), and the returned value sits halfway between that case score and the
    next lower one, so a case scored just under it on new data is not decided by a hair.
    Without any threshold meeting the floor: the one with the highest precision.
    """
    levels = sorted(set(np.round(score, 6).tolist()) - {0.0})
    best: tuple[float, int] | None = None
    fallback: tuple[float, int] = (-1.0, 0)
    for i, t in enumerate(levels):
        m = prf(fail, score >= t)
        if m["precision"] >= min_precision and (best is None or m["f1"] > best[0]):
            best = (m["f1"], i)
        fallback = max(fallback, (m["precision"], i))
    if not levels:
        return 0.5
    i = best[1] if best else fallback[1]
    below = levels[i - 1] if i > 0 else 0.0
    return (levels[i] + below) / 2


def groups_of(rows: Rows) -> list[str]:
    return sorted(set(rows.case_group))


def mask_rows(rows: Rows, cases: set[int]) -> np.ndarray:
    return np.isin(rows.case, sorted(cases))


def oof_scores(rows: Rows, case_ids: list[int]) -> np.ndarray:
    """Out-of-fold case scores (leave one scenario out) over ``case_ids``."""
    out = np.zeros(len(rows.case_fail))
    groups = sorted({rows.case_group[i] for i in case_ids})
    for g in groups:
        test = {i for i in case_ids if rows.case_group[i] == g}
        train = set(case_ids) - test
        tr = mask_rows(rows, train)
        if not tr.any():
            continue
        w = fit(rows.x[tr], rows.y[tr])
        te = mask_rows(rows, test)
        best = np.zeros(len(rows.case_fail))
        np.maximum.at(best, rows.case[te], prob(rows.x[te], w))
        for i in test:
            out[i] = best[i]
    return out


def run(rows: Rows, min_precision: float, nested: bool) -> dict[str, object]:
    all_cases = list(range(len(rows.case_fail)))
    fail = rows.case_fail
    # held-out: each scenario scored by a model fitted without it
    held = np.zeros(len(fail), dtype=bool)
    for g in groups_of(rows):
        test = [i for i in all_cases if rows.case_group[i] == g]
        train = [i for i in all_cases if rows.case_group[i] != g]
        tr = mask_rows(rows, set(train))
        w = fit(rows.x[tr], rows.y[tr])
        if nested:
            inner = oof_scores(rows, train)
            t = choose_threshold(fail[train], inner[train], min_precision)
        else:
            scores = case_scores(rows, prob(rows.x, w), np.array(train))
            t = choose_threshold(fail[train], scores, min_precision)
        te = mask_rows(rows, set(test))
        best = np.zeros(len(fail))
        np.maximum.at(best, rows.case[te], prob(rows.x[te], w))
        for i in test:
            held[i] = best[i] >= t
    # shipped: fitted on everything, threshold from all out-of-fold scores
    w_all = fit(rows.x, rows.y)
    oof = oof_scores(rows, all_cases)
    t_all = choose_threshold(fail, oof, min_precision)
    insample = case_scores(rows, prob(rows.x, w_all), np.array(all_cases)) >= t_all
    report: dict[str, object] = {
        "threshold": t_all,
        "weights": w_all.tolist(),
        "splits": {},
        "held_out_pred": held.tolist(),
    }
    splits = sorted(set(rows.case_split) - {"probes"})
    for s in [*splits, "ALL"]:
        idx = np.array(
            [
                i
                for i in all_cases
                if rows.case_split[i] == s or (s == "ALL" and rows.case_split[i] != "probes")
            ]
        )
        report["splits"][s] = {  # type: ignore[index]
            "n": len(idx),
            "in_sample": prf(fail[idx], insample[idx]),
            "held_out": prf(fail[idx], held[idx]),
        }
    worst = []
    for g in groups_of(rows):
        idx = np.array(
            [i for i in all_cases if rows.case_group[i] == g and rows.case_split[i] != "probes"]
        )
        worst.append((prf(fail[idx], held[idx])["f1"], g))
    report["worst_held_out_scenario"] = min(worst)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", type=Path, required=True)
    ap.add_argument("--probes", type=Path, help="one-sentence probes (fitted on, not scored)")
    ap.add_argument("--min-precision", type=float, default=0.9)
    ap.add_argument("--no-nested", action="store_true", help="faster, optimistic thresholds")
    ap.add_argument("--write", action="store_true", help="write the shipped model file")
    ap.add_argument("--json", type=Path, help="also write the full report here")
    args = ap.parse_args()
    from charter.decisions.drift.calibrate import FEATURES

    out: dict[str, object] = {"features": list(FEATURES)}
    reports = {}
    for layer, semantic in (("semantic", True), ("lexical", False)):
        rows = collect(args.data, semantic, args.probes)
        rep = run(rows, args.min_precision, not args.no_nested)
        reports[layer] = rep
        out[layer] = {
            "weights": [round(float(w), 6) for w in rep["weights"]],  # type: ignore[union-attr]
            "threshold": round(float(rep["threshold"]), 6),  # type: ignore[arg-type]
        }
        print(f"== {layer}: {len(rows.y)} candidates, threshold {rep['threshold']:.3f}")
        for s, m in rep["splits"].items():  # type: ignore[union-attr]
            a, h = m["in_sample"], m["held_out"]
            print(
                f"  {s:24s} n={m['n']:3d}  in-sample P {a['precision']:.3f} R {a['recall']:.3f}"
                f" F1 {a['f1']:.3f}  | held-out P {h['precision']:.3f} R {h['recall']:.3f}"
                f" F1 {h['f1']:.3f}"
            )
        print("  worst held-out scenario:", rep["worst_held_out_scenario"])
        weights = dict(zip(FEATURES, rep["weights"], strict=True))  # type: ignore[arg-type]
        top = sorted(weights.items(), key=lambda kv: -abs(kv[1]))[:12]
        print("  largest weights:", ", ".join(f"{k} {v:+.2f}" for k, v in top))
    out["meta"] = {
        "fitted_on": sorted(d.name for d in args.data),
        "min_precision": args.min_precision,
        "l2": L2,
        "method": "L2 logistic regression (Newton), leave-one-scenario-out operating point",
    }
    if args.write:
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
        print("wrote", MODEL_PATH.relative_to(ROOT))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1, default=str) + "\n")


if __name__ == "__main__":
    sys.exit(main())
