"""The stance of a sentence or clause, read by a small learned model.

Whether a sentence says a choice is still open, floats an alternative, asks someone to
choose, reports the past or relays someone else's ask decides which drift rule a
mention breaks (or whether it breaks one at all). These used to be hand-written cue
regexes grown on the scenarios they were tested on, and they missed every phrasing
nobody had written down ("I'm holding the order until the sponsor tells us which sites
recruit"). Here the judgement is data: a one-vs-rest logistic regression over word
n-grams, trained by ``bench/stance_fit.py`` on labelled sentences in
``bench/data/drift_cues`` (written from label definitions, independently of the drift
benchmarks) and shipped as ``charter/data/stance_model.json``.

Inference is pure Python (a dictionary lookup per n-gram), so the cold Stop hook still
runs without numpy.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from charter.decisions.drift.calibrate import read_model_file
from charter.errors import CharterError

#: The stances the training data labels (``bench/data/drift_cues``).
LABELS: tuple[str, ...] = ("undecided", "suggestion", "decision_point", "history", "reported")
#: The stances the checker reads from the model, the only ones shipped. The others are
#: still cue phrases (``lexicon``): as models they read the independent data better but
#: lost cases on the drift splits (docs/benchmarks.md, Drift, stop 19).
SHIPPED: tuple[str, ...] = ("suggestion", "decision_point")

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def features(text: str) -> set[str]:
    """Word unigrams and bigrams (digits folded, sentence edges marked) and the
    sentence's closing punctuation: a question or a lead-in colon."""
    words = ["0" if w.isdigit() else w for w in _WORD.findall(text.lower().replace("’", "'"))]
    out = {"u:" + w for w in words}
    out.update("b:" + a + "_" + b for a, b in pairwise(["<s>", *words, "</s>"]))
    end = text.rstrip().rstrip("\"')*_`")
    if end.endswith("?"):
        out.add("p:?")
    elif end.endswith(":"):
        out.add("p::")
    return out


@dataclass(frozen=True)
class Stance:
    """One label's weights and its operating point."""

    bias: float
    threshold: float
    weights: dict[str, float]

    def probability(self, feats: set[str]) -> float:
        z = self.bias + sum(self.weights.get(f, 0.0) for f in feats)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


@dataclass(frozen=True)
class StanceModel:
    stances: dict[str, Stance]
    meta: dict[str, object]

    def probabilities(self, text: str) -> dict[str, float]:
        feats = features(text)
        return {label: s.probability(feats) for label, s in self.stances.items()}

    def labels(self, text: str) -> frozenset[str]:
        """The stances ``text`` takes (each label past its own operating point)."""
        feats = features(text)
        return frozenset(
            label for label, s in self.stances.items() if s.probability(feats) >= s.threshold
        )


def parse_stance_model(data: object, where: str) -> StanceModel:
    """Validate a stance model file (labels must match this version)."""
    labels = data.get("labels") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or not isinstance(labels, list)
        or not set(SHIPPED) <= set(labels) <= set(LABELS)
    ):
        raise CharterError(f"{where}: stance labels do not match this Charter; refit it")
    stances: dict[str, Stance] = {}
    for label in labels:
        part = data.get(label)
        if not isinstance(part, dict):
            raise CharterError(f"{where}: missing {label!r} weights")
        bias, threshold, weights = part.get("bias"), part.get("threshold"), part.get("weights")
        if (
            not isinstance(bias, int | float)
            or not isinstance(threshold, int | float)
            or not isinstance(weights, dict)
            or not all(isinstance(w, int | float) for w in weights.values())
        ):
            raise CharterError(f"{where}: malformed {label!r} weights")
        stances[label] = Stance(
            float(bias), float(threshold), {k: float(v) for k, v in weights.items()}
        )
    meta = data.get("meta")
    return StanceModel(stances, meta if isinstance(meta, dict) else {})


@lru_cache(maxsize=1)
def default_stance_model() -> StanceModel:
    """The fitted model shipped with Charter (loaded once per process)."""
    data, where = read_model_file("stance_model.json", "stance model")
    return parse_stance_model(data, where)
