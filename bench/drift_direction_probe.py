"""A direction probe on the shipped MiniLM's token states (measured, not shipped).

Reads the direction clauses (``bench/data/drift_direction``: ``⟨X⟩`` marks the named
thing, labelled ``forward`` / ``away`` / ``aside``), fills the mark with one of a few
invented names (chosen by a hash of the line id), runs the bundled MiniLM and fits a
multinomial L2 logistic regression on the mention's mean hidden state, the sentence
mean and the three tokens before the mention. Evaluation is leave-one-author-out (each
file is one writer). Prints accuracy and per-label precision / recall / F1 for each
feature set and L2 strength.

Usage::

    python bench/drift_direction_probe.py [--data bench/data/drift_direction]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from charter.embed.minilm import hidden_states, load_session

ROOT = Path(__file__).resolve().parents[1]
NAMES = (
    "Zorvex",
    "Kalipso",
    "Trenmark",
    "Veltora",
    "Quorra Pay",
    "Brindle Hub",
    "Omnivane",
    "Pellucid",
    "Saltmarsh Sync",
    "Tarvos",
    "Ulmer Cloud",
    "Wexford Relay",
)
LABELS = ("forward", "away", "aside")
MARK = "⟨X⟩"


def fill(row: dict[str, Any]) -> tuple[str, int, int]:
    """The clause with the mark replaced, and the span of the first mention."""
    digest = int(hashlib.sha256(row["id"].encode()).hexdigest(), 16)
    name = NAMES[digest % len(NAMES)]
    at = row["text"].index(MARK)
    return row["text"].replace(MARK, name), at, at + len(name)


def encode(items: list[tuple[str, int, int]]) -> np.ndarray:
    session, inputs, tokenizer = load_session(256)
    encodings = tokenizer.encode_batch([text for text, _, _ in items])
    rows = []
    for first in range(0, len(items), 32):
        batch = encodings[first : first + 32]
        hidden, mask = hidden_states(session, inputs, batch)
        for j, enc in enumerate(batch):
            _, lo, hi = items[first + j]
            states = hidden[j, : int(mask[j].sum())]
            idx = [k for k, (a, z) in enumerate(enc.offsets) if z > a and z > lo and a < hi]
            start = min(idx) if idx else 1
            before = states[max(1, start - 3) : start]
            rows.append(
                np.concatenate(
                    [
                        states[idx].mean(0) if idx else states.mean(0),
                        states.mean(0),
                        before.mean(0) if len(before) else np.zeros(states.shape[1]),
                    ]
                )
            )
    return np.array(rows, dtype=np.float64)


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    k, d = len(LABELS), x.shape[1]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        weights = w.reshape(d + 1, k)
        z = x @ weights[:-1] + weights[-1]
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        value = -np.log(p[np.arange(len(y)), y] + 1e-12).sum()
        value += 0.5 * l2 * float((weights[:-1] ** 2).sum())
        g = p.copy()
        g[np.arange(len(y)), y] -= 1
        grad = np.vstack([x.T @ g + l2 * weights[:-1], g.sum(0)])
        return float(value), grad.ravel()

    res = minimize(loss, np.zeros((d + 1) * k), jac=True, method="L-BFGS-B")
    return np.asarray(res.x).reshape(d + 1, k)


def predict(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    z = x @ weights[:-1] + weights[-1]
    return np.asarray(z.argmax(1))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/drift_direction")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for path in sorted(args.data.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append({**json.loads(line), "author": path.stem})
    x = encode([fill(r) for r in rows])
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    y = np.array([LABELS.index(r["label"]) for r in rows])
    authors = np.array([r["author"] for r in rows])
    views = {"mention": 384, "+ sentence": 768, "+ three before": 1152}
    for view, width in views.items():
        for l2 in (10.0, 30.0, 100.0, 300.0):
            pred = np.zeros(len(y), dtype=int)
            for author in sorted(set(authors)):
                train, test = authors != author, authors == author
                pred[test] = predict(fit(x[train][:, :width], y[train], l2), x[test][:, :width])
            parts = [f"{view:16} L2 {l2:5.0f}  acc {(pred == y).mean():.3f}"]
            for ci in (1, 2):
                tp = int(((pred == ci) & (y == ci)).sum())
                p = tp / max(1, int((pred == ci).sum()))
                r = tp / max(1, int((y == ci).sum()))
                f1 = 2 * p * r / max(p + r, 1e-9)
                parts.append(f"{LABELS[ci]} P {p:.3f} R {r:.3f} F1 {f1:.3f}")
            print("  ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
