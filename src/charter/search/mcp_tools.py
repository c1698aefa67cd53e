"""MCP tools of the search capability: ``search`` and ``verify_facts``.

Argument types are the input schema (the SDK validates them and answers a bad call with
an MCP error result); library errors become :class:`ToolError` with the one-line message.
The engine is kept warm between calls and reopened when the index changes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

_ENGINES: dict[str, Any] = {}


def _engine(project: Any) -> Any:
    from charter.search.engine import SearchEngine
    from charter.search.store import DB_NAME, SearchStore

    key = str(project.root)
    db = project.state_dir / DB_NAME
    engine = _ENGINES.get(key)
    if engine is not None:
        with SearchStore(db, readonly=True) as probe:
            if probe.generation() == engine.store.generation():
                return engine
        engine.close()
    engine = SearchEngine(project)
    _ENGINES[key] = engine
    return engine


def register(server: Any) -> None:
    """Add ``search`` and ``verify_facts`` to ``server``."""
    from charter.integrations.mcp_server import get_project, tool_errors

    @server.tool(
        name="search",
        description=(
            "Mode-aware hybrid search over the project's docs, ADRs, code and source-of-"
            "truth records. Every result has a citation path#Lstart-Lend (Section) or a "
            "record address. mode: planning (breadth), execution (canonical facts, exact "
            "IDs), review (history, deleted files, recency); default from .charter/sho.json."
        ),
    )
    def search(
        query: Annotated[str, Field(min_length=1, max_length=2000, description="the question")],
        mode: Literal["planning", "execution", "review"] | None = None,
        k_out: Annotated[int, Field(ge=1, le=50, description="results to return")] | None = None,
    ) -> dict[str, Any]:
        from charter.search.sho import current_mode

        with tool_errors():
            project = get_project()
            chosen = mode or current_mode(project.state_dir, project.settings.search.default_mode)
            response = _engine(project).search(query, mode=chosen, k_out=k_out)
        return response.as_dict()

    @server.tool(
        name="verify_facts",
        description=(
            "Check every date, ID, number and money amount in a text against the "
            "structured source of truth (CSV/YAML). Returns verified / mismatch (with the "
            "canonical SoT value and its address: the SoT wins) / not_found per fact."
        ),
    )
    def verify_facts(
        text: Annotated[str, Field(min_length=1, max_length=200_000, description="text to check")],
    ) -> dict[str, Any]:
        from charter.search.facts import check_facts

        with tool_errors():
            report = check_facts(get_project(), text, source="mcp")
        return report.as_dict()
