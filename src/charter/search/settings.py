"""Settings of mode-aware hybrid search (seed 004); defaults are the seed's.

Every knob the retrieval pipeline reads lives here so ``charter init`` writes it out:
mode scopes, fusion weights, the reranker, what is never indexed, and zones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from charter.filetypes import (
    BUILD_AND_INTERFACES,
    HARDWARE_DESCRIPTION,
    MORE_LANGUAGES,
    SHADERS,
    TEMPLATES,
    TYPESET,
)
from charter.records import Field, FieldProblem, Record, check
from charter.secretscan.settings import SECRET_FILE_GLOBS


class ModeSettings(Record):
    """One retrieval mode: where it looks and how much it keeps."""

    search_paths: list[str] = Field(
        default_factory=lambda: ["**"], description="globs ({variables} filled from config)"
    )
    k_in: int = Field(
        default=20, ge=1, description="candidates taken from BM25 and from dense each"
    )
    k_out: int = Field(default=6, ge=1, description="results returned after rerank")
    min_similarity: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="a result sharing no term with the query needs this cosine or more "
        "(else it is no match, not a result; 0 = keep every candidate)",
    )
    chunk_expansion: bool = Field(default=False, description="attach parent/sibling sections")
    exact_lookups: bool = Field(default=False, description="IDs, dates, quoted phrases match first")
    time_window_days: int = Field(default=0, ge=0, description="0 = no time window")
    time_window_exempt: list[str] = Field(
        default_factory=lambda: ["decisions/**", "**/decisions/**"],
        description="globs kept regardless of the time window (ADRs stay reachable)",
    )
    include_deleted: bool = Field(default=False, description="also search files deleted since")
    order_by_recency: bool = Field(default=False, description="newest first among the top results")
    citation_chaining: bool = Field(
        default=False, description="follow references between documents"
    )
    adrs: bool = Field(
        default=False,
        description="ADRs are in scope wherever they live (a folder named adr, adrs, "
        "decisions, ... at any depth), whatever search_paths say",
    )
    sot: bool = Field(
        default=False,
        description="the source-of-truth files (search.index.sot_paths) are in scope "
        "wherever they live, whatever search_paths say",
    )


def _default_modes() -> dict[str, ModeSettings]:
    return {
        "planning": ModeSettings(
            # ``.context/``: the project context folder agents' tooling keeps hidden
            # documentation folders at any depth: a monorepo's packages keep their own
            # (``foxtail-runtime/doc/``, ``packages/api/docs/``), and Ruby, Perl and
            # OCaml projects name theirs ``doc/``
            search_paths=[
                "context/**",
                ".context/**",
                "**/docs/**",
                "**/doc/**",
                "decisions/**",
                "**/offers/**",
                "*.md",
            ],
            k_in=30,
            k_out=8,
            chunk_expansion=True,
            adrs=True,  # seed 004: planning includes "ADRs showing past decisions"
        ),
        "execution": ModeSettings(
            search_paths=[
                "**/docs/**",
                "**/doc/**",
                "sot/**",
                "**/deliverables/**",
                "**/context/**",
                "**/.context/**",
                "*.md",
            ],
            k_in=20,
            k_out=6,
            chunk_expansion=False,
            exact_lookups=True,
            # the mode that answers from the SoT and warns when it is stale: the files
            # declared SoT are searched wherever they live, not only under sot/
            sot=True,
        ),
        "review": ModeSettings(
            search_paths=["**"],
            k_in=30,
            k_out=10,
            time_window_days=30,
            include_deleted=True,
            order_by_recency=True,
            citation_chaining=True,
        ),
    }


class FusionSettings(Record):
    """How BM25 and dense candidate lists are merged (see charter.search.fusion)."""

    method: str = Field(default="zscore", description="zscore | rrf")
    bm25_weight: float = Field(default=0.6, ge=0, description="weight of the BM25 list")
    dense_weight: float = Field(default=0.4, ge=0, description="weight of the dense list")
    rrf_k: int = Field(default=60, ge=1, description="rrf only: score = w / (rrf_k + rank)")
    title_weight: float = Field(default=2.0, ge=0, description="BM25 weight of title/section terms")


class RerankSettings(Record):
    """Which reranker reorders the fused candidates."""

    provider: str = Field(
        default="rocchio",
        description="rocchio (vector feedback, offline) | late-interaction | none | cross-encoder",
    )
    alpha: float = Field(default=1.0, ge=0, description="rocchio: weight of the query")
    beta: float = Field(default=0.2, ge=0, description="rocchio: weight of the feedback")
    feedback: int = Field(default=1, ge=1, description="rocchio: top fused chunks used")
    model_path: str = Field(default="", description="local CrossEncoder model dir (cross-encoder)")
    candidates: int = Field(default=30, ge=1, description="fused candidates passed to the reranker")
    weight: float = Field(
        default=1.0, ge=0, description="weight of the rerank list in final fusion"
    )


class IndexSettings(Record):
    """What ``charter index`` reads, what it never reads, and how it chunks."""

    paths: list[str] = Field(
        default_factory=lambda: ["."], description="paths indexed when none are given"
    )
    exclude: list[str] = Field(
        default_factory=lambda: [
            ".git/**",
            ".charter/**",
            "node_modules/**",
            ".venv/**",
            "venv/**",
            "__pycache__/**",
            "dist/**",
            "build/**",
        ],
        description="globs never indexed (in addition to .gitignore)",
    )
    deny: list[str] = Field(
        default_factory=lambda: [*SECRET_FILE_GLOBS, "*secret*", "*credential*"],
        description="secret files: never indexed, reported as skipped",
    )
    text_extensions: list[str] = Field(
        default_factory=lambda: [
            ".md",
            ".markdown",
            ".txt",
            ".rst",
            ".mdc",
            ".adoc",
            ".asciidoc",
            *TYPESET,
        ],
        description="prose files indexed by paragraph (Markdown and MDX are always indexed, "
        "by heading)",
    )
    code_extensions: list[str] = Field(
        default_factory=lambda: [
            ".py",
            # Jupyter notebooks: their cells, cited at the .ipynb's lines; outputs never
            ".ipynb",
            ".js",
            ".ts",
            ".tsx",
            ".jsx",
            ".go",
            ".rs",
            ".java",
            ".rb",
            ".sh",
            ".toml",
            ".kt",
            ".swift",
            ".cs",
            ".php",
            ".c",
            ".h",
            ".cc",
            ".cpp",
            ".hpp",
            ".scala",
            ".r",
            ".ml",
            ".ex",
            ".exs",
            ".dart",
            ".lua",
            # split at blank lines like the rest, so a language needs no parser to be here
            ".mjs",
            ".cjs",
            ".mts",
            ".cts",
            ".kts",
            ".cxx",
            ".hh",
            ".hxx",
            ".m",
            ".mm",
            ".zig",
            ".nim",
            ".hs",
            ".clj",
            ".cljs",
            ".erl",
            ".hrl",
            ".jl",
            ".pl",
            ".pm",
            ".ps1",
            ".bash",
            ".zsh",
            ".fs",
            ".fsx",
            ".groovy",
            ".nf",
            # Object Pascal: Delphi's and Free Pascal's units, programs and packages
            ".pas",
            ".pp",
            ".dpr",
            ".dpk",
            ".lpr",
            *HARDWARE_DESCRIPTION,
            ".sol",
            ".elm",
            ".gleam",
            # GDScript, the Godot engine's language
            ".gd",
            ".mli",
            ".sql",
            ".proto",
            ".graphql",
            ".tf",
            ".nix",
            # .NET's component and page templates, as .vue and .svelte are JavaScript's
            ".razor",
            ".cshtml",
            ".cu",
            ".cuh",
            *SHADERS,
            *BUILD_AND_INTERFACES,
            *MORE_LANGUAGES,
            *TEMPLATES,
        ],
        description="code files indexed (Python by function and class, the rest at blank "
        "lines); other types are listed as skipped, one row per extension",
    )
    sot_extensions: list[str] = Field(
        default_factory=lambda: [".csv", ".yaml", ".yml", ".json"],
        description="record files indexed one chunk per row or record (CSV under sot_paths always)",
    )
    sot_paths: list[str] = Field(
        default_factory=lambda: ["sot/**", "**/sot/**"],
        description="structured source-of-truth files (CSV/YAML/JSON records, fact checks)",
    )
    skip_noise: list[str] = Field(
        default_factory=lambda: ["generated", "vendored", "lockfile", "minified", "recorded-http"],
        description="machine-written files search and graph skip, each reported with its "
        "reason (remove an entry to index them): generated | vendored | lockfile | minified | "
        "recorded-http",
    )
    embed_max_tokens: int = Field(
        default=96, ge=16, description="truncate chunks to this many tokens when embedding"
    )
    max_chunk_tokens: int = Field(
        default=400, ge=32, description="split longer sections by paragraph"
    )
    max_file_bytes: int = Field(
        default=2_000_000, ge=1024, description="larger files are skipped with a note"
    )
    max_notebook_bytes: int = Field(
        default=20_000_000,
        ge=1024,
        description="notebooks are read up to this size (outputs such as plots make most of "
        "a notebook's bytes and are never indexed)",
    )
    max_sot_bytes: int = Field(
        default=16_000_000,
        ge=1024,
        description="SoT CSV files are streamed by fact checks up to this size",
    )
    git_history: bool = Field(default=True, description="index files deleted in git history")
    git_history_limit: int = Field(
        default=200, ge=0, description="deleted files taken from history"
    )

    @check("text_extensions", "code_extensions", "sot_extensions")
    def _extensions(value: list[str]) -> list[str]:
        """Each entry as the suffix a file's name is matched by: lower case, one leading
        dot. ``"smk"`` and ``".SMK"`` matched no file, silently, while the skipped table
        went on telling the user to add ``".smk"``; an entry no suffix can ever equal
        (``".tar.gz"``, ``"docs/*.txt"``) is refused, naming it."""
        out: list[str] = []
        for entry in value:
            ext = "." + entry.strip().lstrip(".").lower()
            if ext == "." or any(c in ext[1:] for c in "./\\*?[] "):
                raise ValueError(
                    f'{entry!r} is not a file extension (one suffix such as ".smk"; '
                    "a file is matched by the last dot of its name)"
                )
            if ext not in out:
                out.append(ext)
        return out

    @check("skip_noise")
    def _known_rules(value: list[str]) -> list[str]:
        from charter.search.noise import NOISE_RULES

        unknown = [v for v in value if v not in NOISE_RULES]
        if unknown:
            raise ValueError(f"unknown rule(s) {unknown}; known: {', '.join(NOISE_RULES)}")
        return value


class SearchSettings(Record):
    default_mode: str = Field(default="execution", description="planning | execution | review")
    stale_days: int = Field(default=30, ge=1, description="SoT files older than this are stale")
    variables: dict[str, str] = Field(default_factory=dict, description="{vars} in paths")
    zones: dict[str, str] = Field(
        default_factory=lambda: {"restricted/**": "restricted", "**/restricted/**": "restricted"},
        description="glob -> zone for files without a frontmatter zone",
    )
    default_zone: str = Field(default="internal", description="zone of files no rule matches")
    restricted_zones: list[str] = Field(
        default_factory=lambda: ["restricted"],
        description="zones returned only when asked for by name",
    )
    actions_log: str = Field(
        default="logs/context_actions.csv", description="every retrieval is appended here"
    )
    index: IndexSettings = Field(default_factory=lambda: IndexSettings())
    fusion: FusionSettings = Field(default_factory=lambda: FusionSettings())
    rerank: RerankSettings = Field(default_factory=lambda: RerankSettings())
    modes: dict[str, ModeSettings] = Field(
        default_factory=_default_modes,
        description="planning, execution and review always exist; a table of your own "
        "adds a mode, one named like a built-in changes only the keys it sets",
    )

    @classmethod
    def _prepare(cls, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """Built-in modes stay when the user configures modes: ``[search.modes.review]``
        with only ``k_in`` keeps review's time window, and a ``[search.modes.triage]``
        table adds a mode instead of replacing all three (each was lost before, so the
        default mode could name a mode that no longer existed)."""
        modes = data.get("modes")
        if not isinstance(modes, Mapping):
            return data  # absent, or the wrong type: the field reports that
        merged: dict[str, Any] = {name: m.model_dump() for name, m in _default_modes().items()}
        for name, given in modes.items():
            base = merged.get(name)
            merged[name] = {**base, **given} if base and isinstance(given, Mapping) else given
        return {**data, "modes": merged}

    def _check_record(self) -> None:
        """The default mode must be one that exists: else loading passed, ``charter doctor``
        said ok, and every search without ``--mode`` failed."""
        if self.default_mode not in self.modes:
            known = ", ".join(sorted(self.modes))
            raise FieldProblem(
                "default_mode", f"unknown mode {self.default_mode!r} (known: {known})"
            )
