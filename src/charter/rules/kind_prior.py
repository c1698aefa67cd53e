"""What a kind of task needs beyond its words: a learned lift per task intent.

A task's words reach the rules that share its meaning; they miss some of the rules its
kind of work brings with it (a new feature is written in the file's style though it names
none; a bug fix may need the test rule though it names no test). Which pairings hold
across projects is a judgement no word list makes: the rules' wording changes from file
to file.

The model is one linear head per task intent (:mod:`charter.rules.intent`) over the rule's
vector from the bundled rules model, fitted as a logistic regression beside the retrieval
score on the labelled tasks of our held-out rule files (``bench/rules_kind_prior_fit.py``).
Its weight was chosen on one fold of files with heads fitted on the other, and checked the
other way round (docs/benchmarks.md, "A learned lift per kind of task"). It ships as
``charter/data/kind_prior_model.json``. A head's output is divided by the score's own
coefficient, so it is in the score's units, and centred per task, so it only reorders the
task's candidates; at the shipped weight it moves a rule by a few hundredths, enough to
decide between rules the task's words rank alike. Vectors of another embedding model get
no lift.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from charter.bundled import bundled_json

MODEL_FILE = "kind_prior_model.json"


@lru_cache(maxsize=1)
def _model() -> dict[str, Any] | None:
    return bundled_json(MODEL_FILE)


class KindPrior:
    """The lift of each candidate rule for each intent, computed once per rule set."""

    def __init__(self, heads: dict[str, tuple[np.ndarray, float]], vectors: np.ndarray) -> None:
        self._heads = heads
        self._vectors = vectors
        self._cache: dict[str, np.ndarray] = {}

    def lift(self, intent: str) -> np.ndarray | None:
        """Each candidate's lift for a task of ``intent``, centred on the task's candidates;
        None when the model has no head for it."""
        if intent not in self._heads:
            return None
        if intent not in self._cache:
            weights, scale = self._heads[intent]
            raw = (self._vectors @ weights) / scale
            self._cache[intent] = (raw - raw.mean()).astype(np.float32)
        return self._cache[intent]


def kind_prior_for(model_name: str, vectors: np.ndarray) -> KindPrior | None:
    """The prior for candidates with these ``vectors`` (rows), embedded by ``model_name``;
    None when the model is missing, was fitted on another embedding model's vectors, or
    there is nothing to rank."""
    model = _model()
    if model is None or model.get("embedding") != model_name or not len(vectors):
        return None
    dim = int(model.get("dim", 0))
    if getattr(vectors, "shape", (0, 0))[1:] != (dim,):
        return None
    scale = float(model["score_coefficient"])
    heads = {
        name: (np.asarray(w, dtype=np.float32), scale)
        for name, w in model["heads"].items()
        if isinstance(w, list) and len(w) == dim
    }
    return KindPrior(heads, vectors) if heads and scale > 0 else None
