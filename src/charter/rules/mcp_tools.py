"""MCP tools of the rules engine: ``get_constitution`` and ``rules_for_task``.

Thin wrappers over the rules engine's public API (:mod:`charter.rules.api`); errors from
it become MCP tool errors with a one-line message, never a crash of the server.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from charter.plugins import ToolSet


def register(tools: ToolSet) -> None:
    """Offer ``get_constitution`` and ``rules_for_task`` on the seam."""

    @tools.tool(
        name="get_constitution",
        description=("The project rules that always apply (the constitution), cited."),
    )
    def get_constitution() -> dict[str, Any]:
        from charter.rules import api

        return dict(api.constitution_payload(tools.project()))

    @tools.tool(
        name="rules_for_task",
        description=(
            "Project rules for a task, cited, constitution included. Pass the files you will touch."
        ),
    )
    def rules_for_task(
        task: Annotated[str, Field(min_length=1, max_length=8000, description="the task")],
        files: Annotated[list[str], Field(max_length=200, description="paths the task will touch")]
        | None = None,
    ) -> dict[str, Any]:
        from charter.rules import api

        return for_agent(api.task_context(tools.project(), task, files=files or None))


def for_agent(result: dict[str, Any]) -> dict[str, Any]:
    """The ``charter context`` result as an agent reads it: the rendered rules (the text
    the prompt hook injects, cut to the retrieval budget) and, per rule, its id, score and
    citation to open for more. The full metadata (domains, intents, reasons, scopes) stays
    in ``charter context --json``: here it was most of the answer, ~90k characters on a
    real monorepo, past what Claude Code shows inline (50,000)."""
    out = {k: v for k, v in result.items() if k != "shards"}
    out["rules"] = [
        {
            "id": shard["rule"]["id"],
            "score": shard["score"],
            "source": _cite(shard["rule"]["source"]),
        }
        for shard in result.get("shards", [])
    ]
    return out


def _cite(source: dict[str, Any]) -> str:
    start, end = source["line_start"], source["line_end"]
    lines = f"L{start}" if start == end else f"L{start}-L{end}"
    return f"{source['path']}:{lines}"
