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

The shipped model (round 92): the odd-numbered ``tests/data/drift_holdoutN``,
``drift_extra``, the dev split and the probes, semantic layer only::

    python bench/drift_fit.py $(for d in tests/data/drift_holdout*; do n=${d##*holdout}; \
        [ $((n % 2)) = 1 ] && echo --data $d; done) --data tests/data/drift_extra \
        --data ../shared/bench/drift --probes tests/data/drift_probes.jsonl --trees \
        --cv-by split --folds 8 --weight drift=3 --min-precision 0.8 --keep-lexical --write
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
    # keyed by (split, scenario): two splits may use the same scenario name
    checkers: dict[tuple[str, str], DriftChecker] = {}
    home: dict[str, str] = {}  # scenario -> the split that defined it last (probes)
    work: list[tuple[str, str, str, dict[str, object]]] = []
    for d in dirs:
        split = load_split(d)
        for scen, data in split.constraints.items():
            decisions = parse_clarifications(data, scen)
            checkers[(d.name, scen)] = DriftChecker(decisions, embedder=embedder, model=model)
            home[scen] = d.name
        work.extend((d.name, d.name, c["scenario"], c) for c in split.cases)
    if probes is not None:  # one-sentence probes: fitted on, never scored
        for line in probes.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row and row["scenario"] in home:
                fail = row["expected"] == "fail"
                viol = [{"constraint_id": row["constraint_id"]}] if fail else []
                case = {**row, "violations": viol}
                work.append(("probes", home[row["scenario"]], row["scenario"], case))
    for split_name, owner_split, scen, case in work:
        violations = case.get("violations") or []
        gold = {v["constraint_id"] for v in violations}  # type: ignore[attr-defined]
        fail = case["expected"] == "fail"
        idx = len(fails)
        fails.append(fail)
        groups.append(f"{owner_split}/{scen}")
        splits.append(split_name)
        for cand in checkers[(owner_split, scen)].candidates(str(case["text"])):
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


def fit(x: np.ndarray, y: np.ndarray, sw: np.ndarray | None = None) -> np.ndarray:
    """L2 logistic regression by Newton's method (bias, column 0, not penalised);
    ``sw``: per-row sample weights."""
    s = np.ones(len(y)) if sw is None else sw
    w = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], L2)
    reg[0] = 1e-6
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        grad = x.T @ (s * (p - y)) + reg * w
        hess = (x * (s * p * (1 - p))[:, None]).T @ x + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w


# -- boosted trees (``--trees``) -----------------------------------------------------------

#: Boosting settings: rounds, depth, learning rate, rows per leaf at least, leaf L2.
TREE_ROUNDS, TREE_DEPTH, TREE_RATE, TREE_MIN_LEAF, TREE_L2 = 150, 3, 0.1, 20, 1.0
#: Candidate split points per feature (quantiles; fewer distinct values: all midpoints).
TREE_BINS = 16


def _split_points(x: np.ndarray) -> list[np.ndarray]:
    out = []
    for j in range(x.shape[1]):
        u = np.unique(x[:, j])
        if len(u) <= TREE_BINS:
            out.append((u[:-1] + u[1:]) / 2)
        else:
            qs = np.quantile(x[:, j], np.linspace(0, 1, TREE_BINS + 1)[1:-1])
            out.append(np.unique(qs))
    return out


def _grow(
    x: np.ndarray,
    g: np.ndarray,
    h: np.ndarray,
    points: list[np.ndarray],
    idx: np.ndarray,
    depth: int,
    nodes: list[list[float]],
) -> int:
    """Grow one node (and its subtree) into ``nodes``; returns its index."""
    me = len(nodes)
    gs, hs = float(g[idx].sum()), float(h[idx].sum())
    nodes.append([TREE_RATE * -gs / (hs + TREE_L2)])
    if depth == 0 or len(idx) < 2 * TREE_MIN_LEAF:
        return me
    best: tuple[float, int, float] = (1e-12, -1, 0.0)
    parent = gs * gs / (hs + TREE_L2)
    for j, cut in enumerate(points):
        if not len(cut):
            continue
        b = np.searchsorted(cut, x[idx, j], side="left")
        gl = np.cumsum(np.bincount(b, weights=g[idx], minlength=len(cut) + 1))[:-1]
        hl = np.cumsum(np.bincount(b, weights=h[idx], minlength=len(cut) + 1))[:-1]
        nl = np.cumsum(np.bincount(b, minlength=len(cut) + 1))[:-1]
        gain = gl**2 / (hl + TREE_L2) + (gs - gl) ** 2 / (hs - hl + TREE_L2) - parent
        gain[(nl < TREE_MIN_LEAF) | (len(idx) - nl < TREE_MIN_LEAF)] = -1.0
        k = int(gain.argmax())
        if gain[k] > best[0]:
            best = (float(gain[k]), j, float(cut[k]))
    if best[1] < 0:
        return me
    _, j, t = best
    go_left = x[idx, j] <= t
    left = _grow(x, g, h, points, idx[go_left], depth - 1, nodes)
    right = _grow(x, g, h, points, idx[~go_left], depth - 1, nodes)
    nodes[me] = [float(j), t, float(left), float(right)]
    return me


def _tree_values(nodes: list[list[float]], x: np.ndarray) -> np.ndarray:
    out = np.empty(len(x))
    stack = [(0, np.arange(len(x)))]
    while stack:
        i, idx = stack.pop()
        node = nodes[i]
        if len(node) == 1:
            out[idx] = node[0]
            continue
        left = x[idx, int(node[0])] <= node[1]
        stack.append((int(node[2]), idx[left]))
        stack.append((int(node[3]), idx[~left]))
    return out


def fit_trees(x: np.ndarray, y: np.ndarray, sw: np.ndarray | None = None) -> dict[str, object]:
    """Gradient-boosted regression trees on the logistic loss (Newton leaves,
    deterministic: every split is searched, nothing is sampled)."""
    s = np.ones(len(y)) if sw is None else sw
    points = _split_points(x)
    p0 = float(np.clip(np.average(y, weights=s), 1e-3, 1 - 1e-3))
    base = float(np.log(p0 / (1 - p0)))
    z = np.full(len(y), base)
    trees: list[list[list[float]]] = []
    every = np.arange(len(y))
    for _ in range(TREE_ROUNDS):
        p = 1.0 / (1.0 + np.exp(-z))
        nodes: list[list[float]] = []
        _grow(x, s * (p - y), s * p * (1 - p), points, every, TREE_DEPTH, nodes)
        trees.append(nodes)
        z += _tree_values(nodes, x)
    return {"base": base, "trees": trees}


def prob_trees(model: dict[str, object], x: np.ndarray) -> np.ndarray:
    z = np.full(len(x), float(model["base"]))  # type: ignore[arg-type]
    for nodes in model["trees"]:  # type: ignore[attr-defined]
        z += _tree_values(nodes, x)
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


#: The learner in use: logistic regression (default) or boosted trees (``--trees``).
TREES = False


#: Fit also on copies of the candidates whose sentence only the description step embedded,
#: without those features (half weight each): a long text's later sentences go without
#: them (``MAX_DESCRIBED_UNITS``), and the model must know that case.
AUGMENT_UNDESCRIBED = True


def with_undescribed(
    x: np.ndarray, y: np.ndarray, sw: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from charter.decisions.drift.calibrate import DESCRIBED_FEATURES, FEATURES

    s = np.ones(len(y)) if sw is None else sw
    if not AUGMENT_UNDESCRIBED:
        return x, y, s
    cols = [FEATURES.index(name) for name in DESCRIBED_FEATURES]
    only = (x[:, FEATURES.index("embedded")] == 0) & (x[:, cols[0]] > 0)
    copy = x[only].copy()
    copy[:, cols] = 0.0
    s = s.copy()
    s[only] *= 0.5
    return np.vstack([x, copy]), np.concatenate([y, y[only]]), np.concatenate([s, s[only]])


def learn(x: np.ndarray, y: np.ndarray, sw: np.ndarray | None = None) -> object:
    x, y, s = with_undescribed(x, y, sw)
    return fit_trees(x, y, s) if TREES else fit(x, y, s)


#: Column whose zero vetoes a candidate (experiments only; None = the model decides).
GATE: int | None = None


def prob(x: np.ndarray, w: object) -> np.ndarray:
    if isinstance(w, dict):
        p = prob_trees(w, x)
    else:
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))  # type: ignore[operator]
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


#: Cross-validation folds: 0 = each group (scenario, or split with ``--cv-by split``)
#: is its own fold; K = the sorted groups dealt round-robin into K folds (faster).
FOLDS = 0
#: Sample weight per split name (``--weight drift=3``); 1 for the others.
SPLIT_WEIGHTS: dict[str, float] = {}


def folds_of(rows: Rows, case_ids: list[int]) -> list[set[int]]:
    groups = sorted({rows.case_group[i] for i in case_ids})
    fold = {g: (k % FOLDS if FOLDS else k) for k, g in enumerate(groups)}
    out: dict[int, set[int]] = {}
    for i in case_ids:
        out.setdefault(fold[rows.case_group[i]], set()).add(i)
    return [out[k] for k in sorted(out)]


def row_weights(rows: Rows) -> np.ndarray:
    per_case = np.array([SPLIT_WEIGHTS.get(s, 1.0) for s in rows.case_split])
    return per_case[rows.case] if len(rows.case) else np.zeros(0)


def learn_on(rows: Rows, cases: set[int]) -> object:
    tr = mask_rows(rows, cases)
    return learn(rows.x[tr], rows.y[tr], row_weights(rows)[tr])


def mask_rows(rows: Rows, cases: set[int]) -> np.ndarray:
    return np.isin(rows.case, sorted(cases))


def oof_scores(rows: Rows, case_ids: list[int]) -> np.ndarray:
    """Out-of-fold case scores (see :data:`FOLDS`) over ``case_ids``."""
    out = np.zeros(len(rows.case_fail))
    for test in folds_of(rows, case_ids):
        train = set(case_ids) - test
        if not mask_rows(rows, train).any():
            continue
        w = learn_on(rows, train)
        te = mask_rows(rows, test)
        best = np.zeros(len(rows.case_fail))
        np.maximum.at(best, rows.case[te], prob(rows.x[te], w))
        for i in test:
            out[i] = best[i]
    return out


def run(rows: Rows, min_precision: float, nested: bool) -> dict[str, object]:
    all_cases = list(range(len(rows.case_fail)))
    fail = rows.case_fail
    # held-out: each fold scored by a model fitted without it
    held = np.zeros(len(fail), dtype=bool)
    for fold in folds_of(rows, all_cases):
        test = sorted(fold)
        train = [i for i in all_cases if i not in fold]
        w = learn_on(rows, set(train))
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
    w_all = learn_on(rows, set(all_cases))
    oof = oof_scores(rows, all_cases)
    t_all = choose_threshold(fail, oof, min_precision)
    insample = case_scores(rows, prob(rows.x, w_all), np.array(all_cases)) >= t_all
    report: dict[str, object] = {
        "threshold": t_all,
        "weights": w_all if isinstance(w_all, dict) else w_all.tolist(),  # type: ignore[attr-defined]
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
        if len(idx):  # the probes' own group (``--cv-by split``) is never scored
            worst.append((prf(fail[idx], held[idx])["f1"], g))
    report["worst_held_out_scenario"] = min(worst)
    return report


def _part(rep: dict[str, object]) -> dict[str, object]:
    """One layer's entry in the model file."""
    w = rep["weights"]
    threshold = round(float(rep["threshold"]), 6)  # type: ignore[arg-type]
    if isinstance(w, dict):
        trees = [[[round(v, 6) for v in node] for node in tree] for tree in w["trees"]]
        return {"base": round(float(w["base"]), 6), "trees": trees, "threshold": threshold}
    return {"weights": [round(float(v), 6) for v in w], "threshold": threshold}  # type: ignore[attr-defined]


def _where(d: Path) -> str:
    """A fitted split's name for the model file: its path in this repository, or the
    last three parts of a path outside it (the dev split: ``shared/bench/drift``)."""
    full = d.resolve()
    return str(full.relative_to(ROOT)) if full.is_relative_to(ROOT) else "/".join(full.parts[-3:])


def _shipped_lexical(features: list[str]) -> dict[str, object]:
    """The shipped file's lexical part, carried over to ``features`` (a feature it did not
    know gets weight 0: the features added since are similarities, absent without the
    embedding model)."""
    old = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    part = dict(old["lexical"])
    if "weights" in part:
        by_name = dict(zip(old["features"], part["weights"], strict=True))
        part["weights"] = [by_name.get(name, 0.0) for name in features]
    elif old["features"] != features:
        raise SystemExit("--keep-lexical: the shipped lexical trees use another feature list")
    return part


def main() -> None:
    global TREES, FOLDS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", type=Path, required=True)
    ap.add_argument("--probes", type=Path, help="one-sentence probes (fitted on, not scored)")
    ap.add_argument("--min-precision", type=float, default=0.9)
    ap.add_argument("--no-nested", action="store_true", help="faster, optimistic thresholds")
    ap.add_argument("--trees", action="store_true", help="boosted trees, not a weighted sum")
    ap.add_argument(
        "--cv-by", choices=("scenario", "split"), default="scenario", help="what a fold holds"
    )
    ap.add_argument("--folds", type=int, default=0, help="deal the groups into K folds")
    ap.add_argument("--weight", action="append", default=[], help="SPLIT=W sample weight")
    ap.add_argument(
        "--keep-lexical", action="store_true", help="fit the semantic layer only; keep lexical"
    )
    ap.add_argument("--write", action="store_true", help="write the shipped model file")
    ap.add_argument("--json", type=Path, help="also write the full report here")
    args = ap.parse_args()
    from charter.decisions.drift.calibrate import FEATURES

    TREES, FOLDS = args.trees, args.folds
    for spec in args.weight:
        name, _, value = spec.partition("=")
        SPLIT_WEIGHTS[name] = float(value)
    out: dict[str, object] = {"features": list(FEATURES)}
    reports = {}
    layers = (
        (("semantic", True),) if args.keep_lexical else (("semantic", True), ("lexical", False))
    )
    for layer, semantic in layers:
        rows = collect(args.data, semantic, args.probes)
        if args.cv_by == "split":
            rows.case_group = list(rows.case_split)
        rep = run(rows, args.min_precision, not args.no_nested)
        reports[layer] = rep
        out[layer] = _part(rep)
        print(f"== {layer}: {len(rows.y)} candidates, threshold {rep['threshold']:.3f}")
        for s, m in rep["splits"].items():  # type: ignore[union-attr]
            a, h = m["in_sample"], m["held_out"]
            print(
                f"  {s:24s} n={m['n']:3d}  in-sample P {a['precision']:.3f} R {a['recall']:.3f}"
                f" F1 {a['f1']:.3f}  | held-out P {h['precision']:.3f} R {h['recall']:.3f}"
                f" F1 {h['f1']:.3f}"
            )
        print("  worst held-out group:", rep["worst_held_out_scenario"])
        if not args.trees:
            weights = dict(zip(FEATURES, rep["weights"], strict=True))  # type: ignore[arg-type]
            top = sorted(weights.items(), key=lambda kv: -abs(kv[1]))[:12]
            print("  largest weights:", ", ".join(f"{k} {v:+.2f}" for k, v in top))
    lexical_from: object = "refitted"
    if args.keep_lexical:
        out["lexical"] = _shipped_lexical(list(FEATURES))
        old_meta = json.loads(MODEL_PATH.read_text(encoding="utf-8")).get("meta", {})
        prev = old_meta.get("lexical")
        lexical_from = (
            prev
            if isinstance(prev, dict)
            else {"carried over": "from the previous model", "fitted_on": old_meta.get("fitted_on")}
        )
    learner = (
        f"gradient-boosted trees ({TREE_ROUNDS} rounds, depth {TREE_DEPTH}, rate {TREE_RATE}, "
        f"min leaf {TREE_MIN_LEAF})"
        if args.trees
        else f"L2 logistic regression (Newton, l2 {L2})"
    )
    fold = f"{args.folds} folds of " if args.folds else "leave-one-"
    out["meta"] = {
        "fitted_on": sorted(_where(d) for d in args.data),
        "min_precision": args.min_precision,
        "sample_weights": SPLIT_WEIGHTS,
        "method": f"{learner}; operating point from {fold}{args.cv_by}-out scores",
        "lexical": lexical_from,
    }
    if args.write:
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n")
        print("wrote", MODEL_PATH.relative_to(ROOT))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1, default=str) + "\n")


if __name__ == "__main__":
    sys.exit(main())
