"""Settings of bound decisions and drift checks (seed 003)."""

from __future__ import annotations

from typing import Literal

from charter.records import Field, Record


class DecisionsSettings(Record):
    aliases: dict[str, list[str]] = Field(
        default_factory=dict,
        description="extra vocabulary per choice id (or CLARIFICATION_ID.choice_id), "
        "e.g. mobile = [ios]",
    )
    default_priority: Literal["must", "should", "could"] = Field(
        default="must", description="priority of imported intake items that do not state one"
    )


class DriftSettings(Record):
    on_stop: Literal["block", "warn", "off"] = Field(
        default="warn", description="block | warn | off for the Stop hook"
    )
    semantic: bool = Field(
        default=True, description="use the embedding model (embed.provider) as the semantic layer"
    )
    stop_semantic: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="semantic layer in the Stop hook: auto = only when the model is already "
        "loaded (warm worker); on = always (a cold hook then loads it, ~1 s)",
    )
    judge: str = Field(
        default="", description="optional model judge 'module:factory' returning a DriftJudge (off)"
    )
    max_hook_findings: int = Field(default=5, ge=1, description="findings quoted in a hook message")
    project_words: bool = Field(
        default=True,
        description="a rejected option's name that the project's own tracked files also use "
        "(a folder, file or language: 'JSON', 'Python') decides only beside another word of "
        "the option or of its question",
    )
    block_confidence: float = Field(
        default=0.8,
        ge=0.0,
        le=1.0,
        description="with on_stop = block, only findings whose calibrated confidence reaches "
        "this interrupt the agent; the others are shown to the user as possible drift",
    )
