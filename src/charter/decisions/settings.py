"""Settings of bound decisions and drift checks (seed 003)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DecisionsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    aliases: dict[str, list[str]] = Field(
        default_factory=dict, description="extra vocabulary per choice id, e.g. mobile = [ios]"
    )


class DriftSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on_stop: str = Field("warn", description="block | warn | off for the Stop hook")
