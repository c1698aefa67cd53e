"""Settings of mode-aware hybrid search (seed 004); defaults are the seed's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ModeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    search_paths: list[str] = Field(default_factory=lambda: ["**"])
    k_in: int = Field(20, ge=1)
    k_out: int = Field(6, ge=1)
    chunk_expansion: bool = False
    exact_lookups: bool = False
    time_window_days: int = Field(0, ge=0, description="0 = no time window")
    include_deleted: bool = False


def _default_modes() -> dict[str, ModeSettings]:
    return {
        "planning": ModeSettings(
            search_paths=["context/**", "docs/**", "decisions/**", "**/offers/**", "*.md"],
            k_in=30,
            k_out=8,
            chunk_expansion=True,
        ),
        "execution": ModeSettings(
            search_paths=["docs/**", "sot/**", "**/deliverables/**", "**/context/**", "*.md"],
            k_in=20,
            k_out=6,
            chunk_expansion=False,
            exact_lookups=True,
        ),
        "review": ModeSettings(
            search_paths=["**"],
            k_in=30,
            k_out=10,
            time_window_days=30,
            include_deleted=True,
        ),
    }


class SearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default_mode: str = Field("execution", description="planning | execution | review")
    stale_days: int = Field(30, ge=1, description="SoT files older than this are stale")
    variables: dict[str, str] = Field(default_factory=dict, description="{vars} in paths")
    modes: dict[str, ModeSettings] = Field(default_factory=_default_modes)
