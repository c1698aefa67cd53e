"""The typed rule: one instruction with its exact source span and its tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RISK_LEVELS = ("critical", "high", "medium", "low", "info")
DEFAULT_PRIORITY = 50


@dataclass
class Source:
    path: str
    line_start: int
    line_end: int
    section: str

    def cite(self) -> str:
        return f"{self.path}:L{self.line_start}-L{self.line_end}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "section": self.section,
        }


@dataclass
class Rule:
    """A compiled rule (the seed's ``GuidanceRule``).

    ``priority`` already includes the constitution boost, so contradiction resolution
    can compare priorities directly. ``search_text`` is what retrieval embeds and
    indexes (text + section path + context + code comments); it is not shown to agents.
    """

    id: str
    text: str
    source: Source
    priority: int = DEFAULT_PRIORITY
    risk: str = "medium"
    domains: list[str] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    tool_classes: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    constitution: bool = False
    kind: str = "item"
    search_text: str = ""
    polarity: str = ""  # must | never | "" (for contradiction checks)
    directive: bool = True  # instructs rather than describes

    @property
    def compact_text(self) -> str:
        """The seed's shard rendering: ``[ID] text @tag1 @tag2``."""
        tags = " ".join(f"@{d}" for d in self.domains)
        return f"[{self.id}] {self.text}" + (f" {tags}" if tags else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "source": self.source.to_dict(),
            "priority": self.priority,
            "risk": self.risk,
            "domains": list(self.domains),
            "intents": list(self.intents),
            "tool_classes": list(self.tool_classes),
            "scopes": list(self.scopes),
            "constitution": self.constitution,
        }

    def to_state(self) -> dict[str, Any]:
        """Everything needed to rebuild the rule from compiled state."""
        data = self.to_dict()
        data.update(
            kind=self.kind,
            search_text=self.search_text,
            polarity=self.polarity,
            directive=self.directive,
        )
        return data

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> Rule:
        src = data["source"]
        return cls(
            id=data["id"],
            text=data["text"],
            source=Source(src["path"], src["line_start"], src["line_end"], src["section"]),
            priority=data["priority"],
            risk=data["risk"],
            domains=list(data["domains"]),
            intents=list(data["intents"]),
            tool_classes=list(data["tool_classes"]),
            scopes=list(data["scopes"]),
            constitution=data["constitution"],
            kind=data.get("kind", "item"),
            search_text=data.get("search_text", ""),
            polarity=data.get("polarity", ""),
            directive=data.get("directive", True),
        )
