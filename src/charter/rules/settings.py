"""Settings of the rules engine (seed 000, ADR-G002); defaults are the seed's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_CONSTITUTION_MARKERS = [
    r"^#+\s*(safety|security|invariant|constitution|critical|non[- ]?negotiable|always)",
    r"^#+\s*(must|never|always|required|mandatory)",
]


class RulesSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sources: list[str] = Field(
        default_factory=list,
        description="extra rule files or globs to compile besides the discovered ones",
    )
    exclude: list[str] = Field(
        default_factory=lambda: ["node_modules/**", ".venv/**", "vendor/**", ".git/**"],
        description="globs never searched for rule files",
    )
    constitution_markers: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CONSTITUTION_MARKERS),
        description="section headers whose rules form the always-loaded constitution",
    )
    max_constitution_lines: int = Field(60, ge=1, description="cap on constitution text")
    constitution_priority_boost: int = Field(100, description="added to constitution rules")
    top_n: int = Field(5, ge=0, description="shards returned per task (0 = budget only)")
    budget_tokens: int = Field(0, ge=0, description="token budget for shards (0 = off)")
    min_score: float = Field(0.0, description="shards scoring below this are not returned")
    relative_cutoff: float = Field(
        0.0, ge=0, le=1, description="drop shards scoring below this fraction of the best"
    )
    intent_boost: float = Field(0.15, description="added when a shard's intents match the task")
    risk_boost_critical: float = Field(0.10, description="added for critical-risk shards")
    risk_boost_high: float = Field(0.05, description="added for high-risk shards")
    lexical_weight: float = Field(0.35, ge=0, description="weight of the BM25 component")
    dense_weight: float = Field(1.0, ge=0, description="weight of the cosine component")
    max_import_depth: int = Field(5, ge=0, description="levels of @path imports followed")
