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

Inference is pure Python (:mod:`labelmodel`), so the cold Stop hook still runs without
numpy.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from charter.decisions.drift.calibrate import read_model_file
from charter.decisions.drift.labelmodel import LabelModel, parse_label_model

#: The stances the training data labels (``bench/data/drift_cues``).
LABELS: tuple[str, ...] = ("undecided", "suggestion", "decision_point", "history", "reported")
#: The stances the checker reads from the model, the only ones shipped. ``undecided`` is
#: read by the model *and* the cue phrases (``lexicon.UNDECIDED``), either one enough: on
#: its own it lost cases on the drift splits at stop 19; beside the cues it found 33 more
#: fail cases for 10 false alarms on held-out sets not read for it (stop 61). History and
#: reported asks are still cue phrases (docs/benchmarks.md, Drift).
SHIPPED: tuple[str, ...] = ("undecided", "suggestion", "decision_point")

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


#: Kept under its earlier name: the stance model is a :class:`LabelModel`.
StanceModel = LabelModel


def parse_stance_model(data: object, where: str) -> LabelModel:
    """Validate a stance model file (labels must match this version)."""
    return parse_label_model(data, where, LABELS, SHIPPED, features, "stance")


@lru_cache(maxsize=1)
def default_stance_model() -> LabelModel:
    """The fitted model shipped with Charter (loaded once per process)."""
    data, where = read_model_file("stance_model.json", "stance model")
    return parse_stance_model(data, where)
