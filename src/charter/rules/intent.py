"""Task intent classification by weighted patterns (the seed's ADR-G003 approach).

Each intent has patterns with weights; a task's score for an intent is the sum of the
weights of the patterns it matches. Confidence is the winner's share of all matched
weight, so a task that matches one intent strongly is confident and a task that matches
several is not. No match at all is ``general`` with confidence 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INTENTS = (
    "bug-fix",
    "feature",
    "refactor",
    "security",
    "performance",
    "testing",
    "docs",
    "deployment",
    "architecture",
    "debug",
    "review",
    "general",
)

_PATTERNS: dict[str, list[tuple[str, float]]] = {
    "bug-fix": [
        (r"\bfix(es|ed|ing)?\b", 2.0),
        (r"\bbugs?\b", 2.0),
        (r"\b(broken|breaks|regression|crash(es|ing)?|wrong|incorrect|fails?|failing)\b", 1.5),
        (r"\b(error|exception|throws?|issue)\b", 0.8),
        (r"\bpatch\b", 1.0),
    ],
    "feature": [
        (r"\b(add|adds|adding|implement|introduce|create|build|support)\b", 1.5),
        (r"\bnew\b", 1.0),
        (r"\b(feature|endpoint|page|screen|button|option|command|integration)\b", 1.0),
        (r"\b(expose|allow|enable)\b", 0.8),
    ],
    "refactor": [
        (r"\brefactor\w*\b", 3.0),
        (r"\b(clean ?up|restructure|rename|extract|simplify|modernize|migrate|move)\b", 1.5),
        (r"\b(duplicat\w+|dead code|tech(nical)? debt|reorganize)\b", 1.5),
    ],
    "security": [
        (r"\b(secur\w+|vulnerab\w+|exploit|cve|xss|csrf|ssrf|injection|sanitiz\w+)\b", 2.5),
        (r"\b(auth\w*|login|password|secret|token|credential|permission|rbac|encrypt\w*)\b", 1.5),
        (r"\b(private ip|internal ip|redirects?|escap\w+|leak\w*)\b", 1.0),
    ],
    "performance": [
        (r"\b(perf\w*|slow\w*|fast\w*|speed\w*|latency|throughput|optimi[sz]\w*)\b", 2.0),
        (r"\b(memory|cpu|cache|caching|n\+1|bottleneck|profil\w+|lazy|bundle size)\b", 1.5),
    ],
    "testing": [
        (r"\b(tests?|testing|unit|e2e|integration tests?|spec|coverage|fixtures?|mocks?)\b", 2.0),
        (r"\b(jest|vitest|pytest|playwright|cypress|flaky|assert\w*)\b", 1.5),
    ],
    "docs": [
        (r"\b(docs?|documentation|readme|changelog|docstrings?|comments?|jsdoc)\b", 2.0),
        (r"\b(explain|describe|guide|tutorial)\b", 0.8),
    ],
    "deployment": [
        (r"\b(deploy\w*|release|rollout|ship|publish|production|staging)\b", 2.0),
        (r"\b(ci|cd|pipeline|docker\w*|kubernetes|k8s|helm|terraform|infra\w*)\b", 1.5),
        (r"\b(migration|rollback|version bump|env(ironment)? var\w*)\b", 1.0),
    ],
    "architecture": [
        (r"\b(architect\w*|design|module|package|layer|boundary|structure|monorepo)\b", 1.5),
        (r"\b(dependency injection|service|repository|interface|api types?|schema)\b", 1.0),
    ],
    "review": [
        (r"\breview(s|ed|ing)?\b", 3.0),
        (r"\b(pull requests?|prs?|merge requests?|diffs?|findings?|feedback)\b", 1.0),
    ],
    "debug": [
        (r"\b(debug\w*|investigat\w+|diagnos\w+|trace|stack ?trace|logs?|why does|why is)\b", 2.0),
        (r"\b(reproduc\w+|root cause|inspect)\b", 1.5),
    ],
}

_COMPILED = {
    name: [(re.compile(p, re.IGNORECASE), w) for p, w in pats] for name, pats in _PATTERNS.items()
}


@dataclass(frozen=True)
class Intent:
    name: str
    confidence: float
    scores: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "confidence": round(self.confidence, 4)}


#: One alternation per intent: ``search`` finds a match iff one of its patterns does, so
#: an intent that nothing in the text supports costs one scan instead of one per pattern
#: (most rules match one or two intents; compile scores every rule).
_ANY = {
    name: re.compile("|".join(f"(?:{p})" for p, _ in pats), re.IGNORECASE)
    for name, pats in _PATTERNS.items()
}


def intent_scores(text: str) -> dict[str, float]:
    scores: dict[str, float] = {}
    for name, patterns in _COMPILED.items():
        if not _ANY[name].search(text):
            continue
        total = sum(w for rx, w in patterns if rx.search(text))
        if total:
            scores[name] = total
    return scores


def classify(text: str) -> Intent:
    """The task's most likely intent and how sure we are (0..1)."""
    scores = intent_scores(text)
    if not scores:
        return Intent("general", 0.0)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], INTENTS.index(kv[0])))
    name, best = ranked[0]
    confidence = best / sum(scores.values())
    return Intent(name, confidence, tuple(ranked))


def matching_intents(text: str, threshold: float = 1.5) -> list[str]:
    """Every intent a rule's text supports strongly enough to tag it (for inference)."""
    return sorted(n for n, s in intent_scores(text).items() if s >= threshold)
