"""Which way a sentence points at a thing it names, read by a small learned model.

Naming a rejected option is not drifting from a decision: "route refunds through X"
keeps X in play, "take out the X adapter", "X: closing this" or "X stays outside what
the city handles" rule it out, and "if we ever adopt X" only supposes it. Negation and
removal come in more phrasings than any cue list holds, and their scope depends on
where the thing sits ("replace X with Y" against "replace Y with X"). So the checker
masks the mention (``MARK``) and asks a model that reads the words around the mark: one
logistic regression per label (``away``: ruled out or removed; ``aside``: supposed,
reported or described, neither taken up nor ruled out), trained by
``bench/stance_fit.py --model direction`` on labelled clauses in
``bench/data/drift_direction`` (written from label definitions, independently of the
drift benchmarks) and shipped as ``charter/data/direction_model.json``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from charter.decisions.drift.calibrate import read_model_file
from charter.decisions.drift.labelmodel import LabelModel, parse_label_model

#: The labels of the training data besides ``forward`` (the thing kept in play).
LABELS: tuple[str, ...] = ("away", "aside")
SHIPPED: tuple[str, ...] = LABELS
#: What stands for the named thing in a sentence the model reads.
MARK = "⟨X⟩"
#: Words around the mark read by position (nearest first) and as a bag.
NEAR = 3
WINDOW = 6

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[:;,()?]")
_SLOT = "xx"


def _tokens(text: str) -> list[str]:
    words = _TOKEN.findall(text.lower().replace("’", "'"))
    return ["0" if w.isdigit() else w for w in words]


def features(text: str) -> set[str]:
    """Word unigrams and bigrams of the sentence with the mark as one slot, the words
    nearest the mark on each side by distance, and bags of the words within
    ``WINDOW`` of it (text without a mark is read as a sentence with the slot at its end)."""
    before, found, after = text.partition(MARK)
    left, right = _tokens(before), _tokens(after) if found else []
    toks = [*left, _SLOT, *right]
    out = {"u:" + w for w in left + right}
    out.update("b:" + a + "_" + b for a, b in pairwise(["<s>", *toks, "</s>"]))
    for i, w in enumerate(reversed(left[-NEAR:]), 1):
        out.add(f"l{i}:{w}")
    for i, w in enumerate(right[:NEAR], 1):
        out.add(f"r{i}:{w}")
    out.update("lw:" + w for w in left[-WINDOW:])
    out.update("rw:" + w for w in right[:WINDOW])
    if not left:
        out.add("x:first")
    if not right:
        out.add("x:last")
    return out


def masked(text: str, start: int, end: int, lo: int, hi: int) -> str:
    """``text[start:end]`` with the mention at ``lo:hi`` replaced by the mark."""
    return text[start:lo] + MARK + text[hi:end]


def parse_direction_model(data: object, where: str) -> LabelModel:
    return parse_label_model(data, where, LABELS, SHIPPED, features, "direction")


@lru_cache(maxsize=1)
def default_direction_model() -> LabelModel:
    """The fitted model shipped with Charter (loaded once per process)."""
    data, where = read_model_file("direction_model.json", "direction model")
    return parse_direction_model(data, where)
