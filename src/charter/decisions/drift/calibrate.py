"""The calibrated decision of the drift checker: which candidate hits become findings.

The lexical and semantic layers propose *candidates* (a constraint, a rule, an exact
span, and how they were found). Whether a candidate is a real violation used to be a
chain of hand-set thresholds and exceptions; here it is one logistic regression over
features the layers already compute (which check and cue found it, the rule chain's own
verdict, negation, quoted history, reported questions, hedging words, embedding
similarity to the constraint, its statement and its chosen and rejected options, where
the sentence sits). The model (a weighted sum or
small boosted trees) is fitted by ``bench/drift_fit.py`` on labelled scenarios with
cross-validation, and the operating point is chosen on the training folds' out-of-fold
scores for precision first. It ships as a JSON file (``charter/data/drift_model.json``).

Two weight sets are fitted: ``semantic`` (with the embedding model) and ``lexical``
(without it, e.g. in a cold hook process), because similarity features are absent in
the second and the other weights must not count on them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from charter.errors import CharterError

#: Feature names, in the order of the weight vectors. Keep in sync with the fit script
#: (it reads this list); a change here needs a refit.
FEATURES: tuple[str, ...] = (
    "bias",
    "rule_003",
    "rule_004",
    "rule_002",
    "src_term",
    "src_excluded",
    "src_reopen",
    "src_dependency",
    "src_offline",
    "src_mode",
    "src_scope",
    "src_required",
    "src_forbidden",
    "src_undecided",
    "src_sem_excluded",
    "src_sem_rejected",
    "strong",
    "embedded",
    "sim_topic",
    "sim_topic_rank1",
    "sim_rejected",
    "sim_chosen",
    "sim_excluded",
    "negated_unit",
    "history",
    "reported",
    "cue_suggestion",
    "cue_decision",
    "cue_undecided",
    "mentions_chosen",
    "confirmed_elsewhere",
    "overlaps_other_strong",
    "topic_lexical",
    "topic_rank1",
    "position",
    "bullet",
    "rules_keep",
    "hedge",
    "flag_negated",
    "flag_history",
    "flag_chosen",
    "coverage",
    "sim_statement",
    "sent_embedded",
    "sent_sim_topic",
    "sent_sim_margin",
    "sent_sim_statement",
    "sent_sim_option_margin",
)

#: Whole-sentence similarities of a candidate's sentence, first in this list: present for
#: every sentence the check embeds (the semantic layer's, and up to
#: ``checker.MAX_DESCRIBED_UNITS`` more embedded only to describe their candidates).
DESCRIBED_FEATURES: tuple[str, ...] = (
    "sent_embedded",
    "sent_sim_topic",
    "sent_sim_margin",
    "sent_sim_statement",
    "sent_sim_option_margin",
)

#: Modal and hedging words (generic English): a sentence that may only be floating an
#: idea. The phrase-level SUGGESTION cue stays for rule attribution; this is the model's
#: broader view of modality.
HEDGE = re.compile(
    r"\b(?:could|might|may|maybe|perhaps|possibly|consider\w*|suggest\w*|propos\w*"
    r"|worth|make sense|makes sense|option|options|prefer|rather)\b",
    re.I,
)


@dataclass
class Candidate:
    """One proposed finding and its features (names in :data:`FEATURES`)."""

    constraint_id: str
    rule: str
    start: int
    end: int
    layer: str
    score: float
    features: dict[str, float] = field(default_factory=dict)
    probability: float = 0.0

    def vector(self) -> list[float]:
        return [self.features.get(name, 0.0) for name in FEATURES]


@dataclass(frozen=True)
class Weights:
    """One fitted logistic regression and its operating point."""

    weights: tuple[float, ...]
    threshold: float

    def probability(self, candidate: Candidate) -> float:
        z = sum(w * x for w, x in zip(self.weights, candidate.vector(), strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


#: One node of a fitted tree: ``(feature, split, left, right)`` (go left when the
#: feature's value is <= split) or ``(leaf value,)``; node 0 is the root.
Node = tuple[float, ...]


@dataclass(frozen=True)
class Trees:
    """Gradient-boosted regression trees (logistic loss) and their operating point.

    Small trees see what one weighted sum cannot: a similarity that matters only for
    one kind of candidate, a cue that only counts with another."""

    base: float
    trees: tuple[tuple[Node, ...], ...]
    threshold: float

    def probability(self, candidate: Candidate) -> float:
        x = candidate.vector()
        z = self.base
        for tree in self.trees:
            node = tree[0]
            while len(node) == 4:
                node = tree[int(node[2]) if x[int(node[0])] <= node[1] else int(node[3])]
            z += node[0]
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


#: A fitted decision of either kind.
Decision = Weights | Trees


@dataclass(frozen=True)
class DriftModel:
    """The shipped decisions: ``semantic`` and ``lexical`` variants."""

    semantic: Decision
    lexical: Decision
    meta: dict[str, object]

    def for_layer(self, semantic: bool) -> Decision:
        return self.semantic if semantic else self.lexical


def _parse_trees(part: dict[str, object], where: str, key: str) -> Trees:
    bad = CharterError(f"{where}: malformed {key!r} trees")
    base, trees, threshold = part.get("base"), part.get("trees"), part.get("threshold")
    if not isinstance(base, int | float) or not isinstance(threshold, int | float):
        raise bad
    if not isinstance(trees, list):
        raise bad
    out = []
    for tree in trees:
        if not isinstance(tree, list) or not tree:
            raise bad
        nodes = []
        for node in tree:
            if not isinstance(node, list) or not all(isinstance(v, int | float) for v in node):
                raise bad
            if len(node) == 4:
                feature, _, left, right = node
                if not (
                    0 <= feature < len(FEATURES)
                    and 0 < left < len(tree)
                    and 0 < right < len(tree)
                    and int(feature) == feature
                    and int(left) == left
                    and int(right) == right
                ):
                    raise bad
            elif len(node) != 1:
                raise bad
            nodes.append(tuple(float(v) for v in node))
        out.append(tuple(nodes))
    return Trees(float(base), tuple(out), float(threshold))


def parse_model(data: dict[str, object], where: str) -> DriftModel:
    """Validate a model file's content (feature list must match this version)."""
    if data.get("features") != list(FEATURES):
        raise CharterError(f"{where}: feature list does not match this Charter; refit it")
    out: dict[str, Decision] = {}
    for key in ("semantic", "lexical"):
        part = data.get(key)
        if not isinstance(part, dict):
            raise CharterError(f"{where}: missing {key!r} weights")
        if "trees" in part:
            out[key] = _parse_trees(part, where, key)
            continue
        weights = part.get("weights")
        threshold = part.get("threshold")
        if (
            not isinstance(weights, list)
            or len(weights) != len(FEATURES)
            or not all(isinstance(w, int | float) for w in weights)
            or not isinstance(threshold, int | float)
        ):
            raise CharterError(f"{where}: malformed {key!r} weights")
        out[key] = Weights(tuple(float(w) for w in weights), float(threshold))
    meta = data.get("meta")
    return DriftModel(out["semantic"], out["lexical"], meta if isinstance(meta, dict) else {})


def read_model_file(name: str, what: str) -> tuple[object, str]:
    """A fitted model shipped in ``charter/data`` (its JSON and its path), or one clear
    error naming the file."""
    path = resources.files("charter") / "data" / name
    try:
        return json.loads(path.read_text(encoding="utf-8")), str(path)
    except (OSError, json.JSONDecodeError) as exc:
        raise CharterError(f"{path}: cannot read the {what} ({exc})") from None


@lru_cache(maxsize=1)
def default_model() -> DriftModel:
    """The fitted model shipped with Charter (loaded once per process)."""
    data, where = read_model_file("drift_model.json", "drift model")
    if not isinstance(data, dict):
        raise CharterError(f"{where}: malformed drift model")
    return parse_model(data, where)
