"""Experiment (stop 49, not shipped): an offline NLI pair model as drift's judge of violation.

Drift's held-out gap needs a model that reads whether a sentence breaks a decision, not
whether it mentions it (docs/benchmarks.md, Drift). This scores every (bound statement,
artifact unit) pair of bench-format drift splits with a two-class ONNX pair classifier
(class 1: the unit contradicts the statement) and reports, per split, the AUC of a case's
best pair between fail and pass cases, and the pair-level AUC against the gold evidence.
The model directory holds ``*.onnx`` (inputs ``input_ids`` and ``attention_mask``, fixed
length ``--length``) and a ``tokenizer.json`` somewhere below it; nothing is downloaded.

    .venv/bin/python bench/drift_nli_probe.py --model MODEL_DIR tests/data/drift_holdout7 ...
"""

from __future__ import annotations

import argparse
import types
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent


def _pairs_module() -> Any:
    """The pair builder of the stop-21 cross-encoder experiment (its command line is left
    out: that script parses arguments when it is imported)."""
    source = (BENCH / "drift_cross_encoder.py").read_text()
    module = types.ModuleType("drift_pairs")
    exec(compile(source[: source.index("_SYL = [")], "drift_pairs", "exec"), module.__dict__)
    return module


def auc(pos: list[float], neg: list[float]) -> float:
    """Probability that a positive outranks a negative (ties count half)."""
    if not pos or not neg:
        return float("nan")
    wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in pos for y in neg)
    return wins / (len(pos) * len(neg))


def main() -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--length", type=int, default=160)
    parser.add_argument("splits", type=Path, nargs="+")
    args = parser.parse_args()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    onnx = next(args.model.rglob("*.onnx"))
    session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(next(args.model.rglob("tokenizer.json"))))
    tokenizer.enable_truncation(args.length)
    tokenizer.enable_padding(length=args.length)

    def score(pairs: list[tuple[str, str]], batch: int = 32) -> list[float]:
        out: list[float] = []
        for i in range(0, len(pairs), batch):
            enc = tokenizer.encode_batch(pairs[i : i + batch])
            feed = {
                "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            }
            logits = session.run(None, feed)[0]
            probs = np.exp(logits - logits.max(1, keepdims=True))
            out.extend((probs[:, 1] / probs.sum(1)).tolist())
        return out

    pairs_of = _pairs_module().pairs_for_split
    for split in args.splits:
        rows = pairs_of(split)
        best: dict[str, tuple[bool, float]] = {}
        for row, p in zip(rows, score([(r["a"], r["b"]) for r in rows]), strict=True):
            row["p"] = p
            fail, top = best.get(row["case"], (row["fail"], 0.0))
            best[row["case"]] = (fail, max(top, p))
        case_auc = auc([p for f, p in best.values() if f], [p for f, p in best.values() if not f])
        pair_auc = auc([r["p"] for r in rows if r["y"]], [r["p"] for r in rows if not r["y"]])
        print(
            f"{split}: cases {len(best)} pairs {len(rows)} "
            f"case AUC {case_auc:.3f} pair AUC {pair_auc:.3f}"
        )


if __name__ == "__main__":
    main()
