"""Small learned text classifiers the drift checker ships: one logistic regression per
label over sparse text features, fitted by ``bench/stance_fit.py`` and read here.

Two models share this shape: the *stance* of a clause (does it float an alternative, ask
someone to choose) and the *direction* of a clause toward a thing it names (does it keep
the thing in play or rule it out). Inference is a dictionary lookup per feature, no
numpy, so the cold Stop hook stays light.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from charter.errors import CharterError


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
class LabelModel:
    """Per-label weights over the features ``featurize`` reads from a text."""

    stances: dict[str, Stance]
    meta: dict[str, object]
    featurize: Callable[[str], set[str]]

    def probabilities(self, text: str) -> dict[str, float]:
        feats = self.featurize(text)
        return {label: s.probability(feats) for label, s in self.stances.items()}

    def labels(self, text: str) -> frozenset[str]:
        """The labels ``text`` takes (each past its own operating point)."""
        feats = self.featurize(text)
        return frozenset(
            label for label, s in self.stances.items() if s.probability(feats) >= s.threshold
        )


def parse_label_model(
    data: object,
    where: str,
    known: tuple[str, ...],
    required: tuple[str, ...],
    featurize: Callable[[str], set[str]],
    kind: str,
) -> LabelModel:
    """Validate a ``kind`` model file: ``required`` ⊆ its labels ⊆ ``known``."""
    labels = data.get("labels") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or not isinstance(labels, list)
        or not set(required) <= set(labels) <= set(known)
    ):
        raise CharterError(f"{where}: {kind} labels do not match this Charter; refit it")
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
    return LabelModel(stances, meta if isinstance(meta, dict) else {}, featurize)
