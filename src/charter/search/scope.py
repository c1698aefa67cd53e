"""Resolve a mode's configured scope into the concrete filter a search applies.

The resolved scope is part of every JSON answer and every ``context_actions.csv`` row, so
what a search looked at is always on record.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from charter.errors import CharterError
from charter.search.settings import SearchSettings

MODES = ("planning", "execution", "review")
_VAR = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class Scope:
    mode: str
    search_paths: list[str]
    k_in: int
    k_out: int
    min_similarity: float
    chunk_expansion: bool
    exact_lookups: bool
    time_window_days: int
    time_window_exempt: list[str]
    include_deleted: bool
    order_by_recency: bool
    citation_chaining: bool
    adrs: bool = False  # ADRs in scope wherever they live
    sot_paths: list[str] = field(default_factory=list)  # SoT globs in scope wherever
    zones: list[str] = field(default_factory=list)  # explicitly requested zones
    excluded_zones: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def fill_variables(glob: str, variables: Mapping[str, str]) -> str:
    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            raise CharterError(
                f"search path {glob!r} uses {{{name}}}: set search.variables.{name} in "
                f"charter.toml or pass --var {name}=VALUE"
            )
        return variables[name]

    return _VAR.sub(sub, glob)


def resolve_scope(
    settings: SearchSettings,
    mode: str,
    *,
    k_out: int | None = None,
    k_in: int | None = None,
    zones: Sequence[str] = (),
    variables: Mapping[str, str] | None = None,
) -> Scope:
    """The scope for ``mode`` with overrides applied; unknown modes are a CharterError."""
    if mode not in settings.modes:
        known = ", ".join(sorted(settings.modes))
        raise CharterError(f"unknown mode {mode!r} (known: {known})")
    config = settings.modes[mode]
    values = {**settings.variables, **(variables or {})}
    if k_out is not None and k_out < 1:
        raise CharterError("--k-out must be at least 1")
    requested = sorted({z.strip().lower() for z in zones if z.strip()})
    return Scope(
        mode=mode,
        search_paths=[fill_variables(g, values).lstrip("/") for g in config.search_paths],
        k_in=k_in or config.k_in,
        k_out=k_out or config.k_out,
        min_similarity=config.min_similarity,
        chunk_expansion=config.chunk_expansion,
        exact_lookups=config.exact_lookups,
        time_window_days=config.time_window_days,
        time_window_exempt=list(config.time_window_exempt),
        include_deleted=config.include_deleted,
        order_by_recency=config.order_by_recency,
        citation_chaining=config.citation_chaining,
        adrs=config.adrs,
        sot_paths=[g.lstrip("/") for g in settings.index.sot_paths] if config.sot else [],
        zones=requested,
        excluded_zones=sorted(set(settings.restricted_zones) - set(requested)),
    )
