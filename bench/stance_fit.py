"""Fit the drift checker's stance model (``charter/data/stance_model.json``).

Reads labelled sentences (``bench/data/drift_cues/*.jsonl``: ``text``, ``labels``,
``domain``) and fits one L2 logistic regression per stance over the word n-gram features
of ``charter.decisions.drift.stance.features`` (scipy L-BFGS on a sparse matrix,
deterministic). Features seen fewer than ``--min-count`` times in the training sentences
are dropped.

Evaluation, for each stance: leave-one-FILE-out (each file is another author's
sentences, the honest estimate of how the model reads a new writer) and leave-one-domain-
group-out (domains hashed into ``--folds`` groups). The L2 strength is chosen by the mean
out-of-fold log-loss over both schemes; each stance's operating point is the threshold
that maximises F1 on the pooled out-of-fold probabilities. The shipped model is fitted
on every sentence with those choices.

Usage::

    python bench/stance_fit.py [--data bench/data/drift_cues] [--write] [--json out.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parents[1]
MODEL_PATH = ROOT / "src" / "charter" / "data" / "stance_model.json"
L2_GRID = (0.1, 0.3, 1.0, 3.0)


def load(data: Path) -> list[dict]:
    rows = []
    for path in sorted(data.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row["_file"] = path.name
                rows.append(row)
    return rows


def matrix(feats: list[set[str]], vocab: dict[str, int]) -> sparse.csr_matrix:
    indptr, indices = [0], []
    for fs in feats:
        cols = sorted(vocab[f] for f in fs if f in vocab)
        indices.extend(cols)
        indptr.append(len(indices))
    values = np.ones(len(indices))
    return sparse.csr_matrix((values, indices, indptr), shape=(len(feats), len(vocab)))


def vocabulary(feats: list[set[str]], domains: list[str], min_domains: int) -> dict[str, int]:
    """Features used in at least ``min_domains`` product domains: a word of one domain
    ("wristbands") cannot say anything about stance in another, and with a few thousand
    sentences it would only learn which domains had more plain lines."""
    seen: dict[str, set[str]] = {}
    for fs, domain in zip(feats, domains, strict=True):
        for f in fs:
            seen.setdefault(f, set()).add(domain)
    kept = sorted(f for f, ds in seen.items() if len(ds) >= min_domains)
    return {f: i for i, f in enumerate(kept)}


def fit(x: sparse.csr_matrix, y: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Bias (not penalised) and weights of an L2 logistic regression."""
    d = x.shape[1]

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        b, w = params[0], params[1:]
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
        eps = 1e-12
        value = -np.sum(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + 0.5 * l2 * w @ w
        g = p - y
        grad = np.concatenate([[g.sum()], x.T @ g + l2 * w])
        return float(value), grad

    res = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return float(res.x[0]), res.x[1:]


def probabilities(x: sparse.csr_matrix, b: float, w: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -50, 50)))


def best_threshold(
    p: np.ndarray, y: np.ndarray, min_precision: float = 0.0
) -> tuple[float, float, float, float]:
    """(threshold, precision, recall, F1): the best F1 among thresholds whose precision is
    at least ``min_precision`` (precision first: a stance read where there is none
    changes which rule a mention breaks), halfway to the next lower score."""
    order = np.argsort(-p, kind="stable")
    ps, ys = p[order], y[order]
    tp = np.cumsum(ys)
    best = (0.5, 0.0, 0.0, 0.0)
    for k in range(len(ps)):
        if k + 1 < len(ps) and ps[k + 1] == ps[k]:
            continue
        prec, rec = tp[k] / (k + 1), tp[k] / max(1, ys.sum())
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        if f1 > best[3] and prec >= min_precision:
            nxt = ps[k + 1] if k + 1 < len(ps) else 0.0
            best = (float((ps[k] + nxt) / 2), float(prec), float(rec), float(f1))
    return best


def folds(rows: list[dict], scheme: str, k: int) -> list[np.ndarray]:
    if scheme == "file":
        keys = [r["_file"] for r in rows]
    else:
        keys = [
            str(int(hashlib.sha256(r.get("domain", "").encode()).hexdigest(), 16) % k) for r in rows
        ]
    return [np.array([key == g for key in keys]) for g in sorted(set(keys))]


def out_of_fold(
    feats: list[set[str]],
    rows: list[dict],
    label: str,
    l2: float,
    test_masks: list[np.ndarray],
    min_domains: int,
) -> np.ndarray:
    y = np.array([label in r["labels"] for r in rows], dtype=float)
    out = np.zeros(len(rows))
    for test in test_masks:
        train_feats = [f for f, t in zip(feats, test, strict=True) if not t]
        train_domains = [r.get("domain", "") for r, t in zip(rows, test, strict=True) if not t]
        vocab = vocabulary(train_feats, train_domains, min_domains)
        b, w = fit(matrix(train_feats, vocab), y[~test], l2)
        out[test] = probabilities(
            matrix([f for f, t in zip(feats, test, strict=True) if t], vocab), b, w
        )
    return out


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    eps = 1e-12
    return float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data" / "drift_cues")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--min-domains", type=int, default=3)
    parser.add_argument("--l2", type=float, nargs="*", default=list(L2_GRID))
    parser.add_argument("--min-precision", type=float, default=0.9)
    parser.add_argument("--min-weight", type=float, default=0.02, help="weights kept in the file")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help="where --write writes")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT / "src"))
    from charter.decisions.drift.stance import LABELS, SHIPPED, features

    rows = load(args.data)
    if not rows:
        print(f"stance_fit: no sentences under {args.data}", file=sys.stderr)
        return 2
    feats = [features(r["text"]) for r in rows]
    schemes = {s: folds(rows, s, args.folds) for s in ("file", "domain")}
    if len(schemes["file"]) < 2:
        del schemes["file"]
    report: dict[str, dict] = {}
    # every stance is evaluated; the file holds the ones the checker reads (SHIPPED)
    model: dict[str, object] = {"labels": [label for label in LABELS if label in SHIPPED]}
    for label in LABELS:
        y = np.array([label in r["labels"] for r in rows], dtype=float)
        scored = {}
        for l2 in args.l2:
            oof = {
                s: out_of_fold(feats, rows, label, l2, m, args.min_domains)
                for s, m in schemes.items()
            }
            scored[l2] = (float(np.mean([log_loss(p, y) for p in oof.values()])), oof)
        l2 = min(scored, key=lambda v: (scored[v][0], v))
        oof = scored[l2][1]
        pooled = np.concatenate(list(oof.values()))
        threshold, _, _, _ = best_threshold(
            pooled, np.concatenate([y] * len(oof)), args.min_precision
        )
        per_scheme = {}
        for s, p in oof.items():
            pred = p >= threshold
            tp = float((pred & (y == 1)).sum())
            prec = tp / max(1, pred.sum())
            rec = tp / max(1, y.sum())
            per_scheme[s] = {
                "precision": round(prec, 3),
                "recall": round(rec, 3),
                "f1": round(2 * prec * rec / (prec + rec) if prec + rec else 0.0, 3),
            }
        vocab = vocabulary(feats, [r.get("domain", "") for r in rows], args.min_domains)
        b, w = fit(matrix(feats, vocab), y, l2)
        names = sorted(vocab, key=vocab.__getitem__)
        weights = {
            n: round(float(v), 4)
            for n, v in zip(names, w, strict=True)
            if abs(v) >= args.min_weight
        }
        if label in SHIPPED:
            model[label] = {
                "bias": round(b, 4),
                "threshold": round(threshold, 4),
                "weights": weights,
            }
        report[label] = {
            "positives": int(y.sum()),
            "l2": l2,
            "threshold": round(threshold, 4),
            "held_out": per_scheme,
            "features": len(weights),
        }
        print(
            f"{label:15s} n+={int(y.sum()):4d} l2={l2:<5} thr={threshold:.3f} "
            + "  ".join(
                f"{s}: P {m['precision']:.3f} R {m['recall']:.3f} F1 {m['f1']:.3f}"
                for s, m in per_scheme.items()
            )
            + f"  features {len(weights)}"
        )
    files = sorted({r["_file"] for r in rows})
    model["meta"] = {
        "sentences": len(rows),
        "files": {f: hashlib.sha256((args.data / f).read_bytes()).hexdigest()[:16] for f in files},
        "fit": "bench/stance_fit.py",
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.write:
        args.out.write_text(json.dumps(model, sort_keys=True, separators=(",", ":")) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
