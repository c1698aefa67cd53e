"""Typed drift findings and results: the JSON contract of ``charter drift check``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

ARTIFACT_KINDS = ("architecture", "epic", "story", "qa_plan", "review", "chat")

#: What each rule means (seed 003, section 5).
RULES: dict[str, str] = {
    "QA-PGC-001": "bound constraint contradicted",
    "QA-PGC-002": "excluded option reintroduced",
    "QA-PGC-003": "resolved constraint treated as undecided",
    "QA-PGC-004": "recommendation or decision point conflicts with a bound fact",
}


@dataclass(frozen=True)
class Finding:
    """One violation; ``evidence == text[start:end]`` always holds."""

    rule: str
    constraint_id: str
    evidence: str
    start: int
    end: int
    severity: str
    message: str
    repair: str
    layer: str = "lexical"
    score: float = 1.0
    #: the calibrated model's probability that this is a real violation; a hook blocks
    #: only on findings at or above ``drift.block_confidence``
    confidence: float = 1.0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"] = round(self.score, 4)
        data["confidence"] = round(self.confidence, 4)
        return data


@dataclass
class DriftResult:
    findings: list[Finding] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return "fail" if any(f.severity == "error" for f in self.findings) else "pass"

    def confident(self, threshold: float) -> list[Finding]:
        """The findings sure enough to interrupt an agent (precision first)."""
        return [f for f in self.findings if f.severity == "error" and f.confidence >= threshold]

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "findings": [f.as_dict() for f in self.findings]}
