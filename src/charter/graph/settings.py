"""Settings of the project graph, the contract capsule and task context (seed 001).

The ranking defaults are the seed's (0.68 seed score / 0.32 personalized PageRank,
damping 0.82) and were checked on the localization dev split with each repository left
out in turn (docs/benchmarks.md); the file limits keep a cold build bounded.
"""

from __future__ import annotations

from charter.records import Field, Record


class GraphSettings(Record):
    """``[graph]``: what the graph reads and how task context is ranked."""

    exclude: list[str] = Field(
        default_factory=lambda: [
            "node_modules/**",
            "**/node_modules/**",
            ".venv/**",
            "venv/**",
            "**/__pycache__/**",
            "dist/**",
            "build/**",
            ".next/**",
            "**/.next/**",
        ],
        description="globs never read into the graph (on top of .gitignore and secrets)",
    )
    max_file_bytes: int = Field(
        default=1_000_000, ge=1024, description="larger files stay file-level nodes, not parsed"
    )
    max_notebook_bytes: int = Field(
        default=20_000_000,
        ge=1024,
        description="notebooks are read up to this size (their outputs, never read, make "
        "most of their bytes)",
    )
    max_files: int = Field(default=20_000, ge=1, description="stop walking after this many files")
    seed_weight: float = Field(
        default=0.68, ge=0, description="task context: weight of the seed score"
    )
    ppr_weight: float = Field(default=0.32, ge=0, description="task context: weight of PageRank")
    damping: float = Field(default=0.82, gt=0, lt=1, description="personalized PageRank damping")
    default_limit: int = Field(default=20, ge=1, description="task context: nodes returned")
    default_depth: int = Field(
        default=2, ge=0, description="task context: hops from a seed PageRank may reach"
    )
    test_penalty: float = Field(
        default=0.5, ge=0, le=1, description="task context: score factor for test files"
    )
    source_artifact_limit: int = Field(
        default=200, ge=1, description="capsule: source handles kept"
    )
    capsule_token_budget: int = Field(
        default=8000,
        ge=100,
        description="capsule: token budget; over it, pointers the graph can give again are cut "
        "(public symbols, source handles, front-end vocabulary, local rules), never the authority",
    )
    search_weight: float = Field(
        default=0.3,
        ge=0,
        description="task context: weight of hybrid-search hits (used when a search index "
        "exists; the localization split has none, so this weight is not yet measured)",
    )
    prompt_files: int = Field(
        default=0,
        ge=0,
        le=20,
        description="UserPromptSubmit: name this many top files for the prompt (0 = off; "
        "only once a graph snapshot exists)",
    )
