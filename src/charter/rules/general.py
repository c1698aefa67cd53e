"""Which rules apply to every change: a small learned model over the rules' own vectors.

Formatting, naming and type-safety rules ("no semicolons", "never use `any`", "tabs, not
spaces") cover every line the agent writes, yet a task's words rarely retrieve them, and
putting them in the always-loaded constitution spends the task budget (measured in
docs/benchmarks.md, "How much of the always-rules the core holds"). So they are handed
over once, when the agent first reads or changes a source file (:mod:`.moments`).

Which rules those are is a judgement no heading or word list makes reliably: "Use tabs"
sits under "Coding style", "Code style" or nowhere; "never log secrets" under "Security".
A logistic regression over each rule's vector from the bundled rules model and a few
structural features (where the rule sits in its file, its length, never / must, directive,
list item, heading depth) scores each rule; it was fitted on the always-rules labelled in
our own held-out rule files and the dev split (``bench/rules_general_fit.py``, leave one
file out), and ships as ``charter/data/general_rules_model.json``. Only rules that no
other channel delivers are scored: not the constitution, not path-scoped rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from charter.bundled import bundled_json

if TYPE_CHECKING:
    import numpy as np

    from charter.rules.model import Rule

MODEL_FILE = "general_rules_model.json"
#: the structural features, in the model's order (after the vector's dimensions)
STRUCTURE = (
    "position",
    "log_chars",
    "never",
    "must",
    "directive",
    "item",
    "depth",
)


def candidates(
    rules: Sequence[Rule], constitution: set[str], asked_for: Collection[str] = ()
) -> list[int]:
    """Rows of the rules another channel does not already deliver, and that say something
    alone: a bare lead-in ("Key Principles:") handed over without its items says nothing.
    A file loaded only when the user asks for it by name (``asked_for``: Kiro's
    ``inclusion: manual``) holds none: the team keeps it out of every change."""
    return [
        i
        for i, r in enumerate(rules)
        if r.id not in constitution
        and not r.scopes
        and r.source.path not in asked_for
        and not _bare_lead_in(r.text)
    ]


def _bare_lead_in(text: str) -> bool:
    """A few words ending in a colon, no code: the lead-in of items shown elsewhere."""
    plain = re.sub(r"[*_]+", "", text).strip()
    return plain.endswith((":", "：")) and "`" not in plain and len(plain.split()) <= 6


def structure(rules: Sequence[Rule]) -> list[list[float]]:
    """Each rule's structural features (:data:`STRUCTURE`); position is within its own
    file, so a project of several rule files reads each as the model saw one."""
    last: dict[str, int] = {}
    for r in rules:
        last[r.source.path] = max(last.get(r.source.path, 1), r.source.line_end)
    rows = []
    for r in rules:
        rows.append(
            [
                r.source.line_start / last[r.source.path],
                math.log1p(len(r.text)),
                1.0 if r.polarity == "never" else 0.0,
                1.0 if r.polarity == "must" else 0.0,
                1.0 if r.directive else 0.0,
                1.0 if r.kind == "item" else 0.0,
                float(r.source.section.count(">")) if r.source.section else 0.0,
            ]
        )
    return rows


def features(rules: Sequence[Rule], vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.hstack(
        [np.asarray(vectors, dtype=np.float64), np.array(structure(rules), dtype=np.float64)]
    )


@lru_cache(maxsize=1)
def _model() -> dict[str, Any] | None:
    return bundled_json(MODEL_FILE)


def score_rows(model: dict[str, Any], x: np.ndarray) -> np.ndarray:
    import numpy as np

    mean = np.asarray(model["mean"], dtype=np.float64)
    scale = np.asarray(model["scale"], dtype=np.float64)
    weights = np.asarray(model["weights"], dtype=np.float64)
    z = (x - mean) / scale
    return 1.0 / (1.0 + np.exp(-(z @ weights + float(model["bias"]))))


def general_scores(
    rules: Sequence[Rule],
    vectors: np.ndarray,
    constitution: set[str],
    *,
    model_name: str,
    asked_for: Collection[str] = (),
) -> dict[str, float]:
    """Each candidate rule's probability of applying to every change, rounded to three
    places (stored in ``rules.json``); empty when the model is missing or was fitted on
    another embedding model's vectors (its weights mean nothing there)."""
    model = _model()
    rows = candidates(rules, constitution, asked_for)
    if model is None or not rows or model.get("embedding") != model_name:
        return {}
    if getattr(vectors, "shape", (0, 0))[1:] != (int(model["dim"]),):
        return {}
    chosen = [rules[i] for i in rows]
    probs = score_rows(model, features(chosen, vectors[rows]))
    return {r.id: round(float(p), 3) for r, p in zip(chosen, probs, strict=True)}


def ranked(
    rules: Sequence[Rule], scores: dict[str, float], pinned: set[str], min_score: float
) -> list[Rule]:
    """The rules at or above ``min_score`` not yet in the conversation, best first
    (ties in their files' order)."""
    found = [r for r in rules if r.id not in pinned and scores.get(r.id, 0.0) >= min_score]
    found.sort(
        key=lambda r: (-scores[r.id], r.source.path, r.source.line_start, r.source.line_end, r.id)
    )
    return found
