"""MCP tools of the search capability: ``search`` and ``verify_facts``.

Argument types are the input schema (the SDK validates them and answers a bad call with
an MCP error result); library errors become :class:`ToolError` with the one-line message.
The engine is kept warm between calls and reopened when the index changes.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Annotated, Any, Literal

from pydantic import Field

from charter.plugins import ToolSet

log = logging.getLogger("charter.mcp")
_ENGINES: dict[str, Any] = {}


def _engine(project: Any) -> Any:
    """The warm engine for ``project``, reloaded when the index generation moved on.

    Called only on the MCP server's one tool thread (the MCP door serialises tool bodies),
    so the engine's SQLite connection never crosses threads.
    """
    from charter.search.engine import SearchEngine
    from charter.search.store import DB_NAME, SearchStore

    key = str(project.root)
    db = project.state_dir / DB_NAME
    engine = _ENGINES.get(key)
    if engine is not None:
        if db.exists():
            with SearchStore(db, readonly=True) as probe:
                if probe.generation() == engine.generation:
                    return engine
        _drop(key)
    engine = SearchEngine(project)
    _ENGINES[key] = engine
    return engine


def _drop(key: str) -> None:
    engine = _ENGINES.pop(key, None)
    if engine is not None:
        with contextlib.suppress(Exception):
            engine.close()


def search_warm(project: Any, query: str, mode: str, k_out: int | None) -> Any:
    """One search on the warm engine; an engine that fails unexpectedly (the index was
    rebuilt under it) is dropped and the search runs once more on a fresh one, so one bad
    moment never leaves the session broken."""
    from charter.errors import CharterError

    try:
        return _engine(project).search(query, mode=mode, k_out=k_out)
    except CharterError:
        raise
    except Exception as exc:
        log.warning("search engine reloaded after %s: %s", type(exc).__name__, exc)
        _drop(str(project.root))
    try:
        return _engine(project).search(query, mode=mode, k_out=k_out)
    except CharterError:
        raise
    except Exception as exc:
        _drop(str(project.root))
        raise CharterError(f"search failed: {type(exc).__name__}: {exc}") from None


def register(tools: ToolSet) -> None:
    """Offer ``search`` and ``verify_facts`` on the seam."""

    @tools.tool(
        name="search",
        description=(
            "Cited hybrid search over docs, ADRs, code and source-of-truth records. mode: "
            "planning (breadth), execution (exact facts, IDs), review (history)."
        ),
    )
    def search(
        query: Annotated[str, Field(min_length=1, max_length=2000, description="the question")],
        mode: Literal["planning", "execution", "review"] | None = None,
        k_out: Annotated[int, Field(ge=1, le=50, description="results to return")] | None = None,
    ) -> dict[str, Any]:
        from charter.search.sho import current_mode

        project = tools.project()
        chosen = mode or current_mode(
            project.state_dir,
            project.settings.search.default_mode,
            project.settings.search.modes,
        )
        response = search_warm(project, query, chosen, k_out)
        return response.as_dict()

    @tools.tool(
        name="verify_facts",
        description=(
            "Check dates, IDs, numbers and amounts in a text against the source of truth: "
            "verified, mismatch (the SoT value wins) or not_found."
        ),
    )
    def verify_facts(
        text: Annotated[str, Field(min_length=1, max_length=200_000, description="text to check")],
    ) -> dict[str, Any]:
        from charter.search.facts import check_facts

        report = check_facts(tools.project(), text, source="mcp")
        return report.as_dict()
