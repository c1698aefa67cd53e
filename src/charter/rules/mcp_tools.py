"""MCP tools of the rules engine: ``get_constitution`` and ``rules_for_task``.

Thin wrappers over the rules engine's public API (:mod:`charter.rules.api`); errors from
it become MCP tool errors with a one-line message, never a crash of the server.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field


def register(server: Any) -> None:
    """Add ``get_constitution`` and ``rules_for_task`` to ``server``."""
    from charter.integrations.mcp_server import get_project, tool_errors

    @server.tool(
        name="get_constitution",
        description=(
            "The project's always-loaded rules (the constitution): capped, hashed, with "
            "source line spans. Pin these; they apply to every task."
        ),
    )
    def get_constitution() -> dict[str, Any]:
        from charter.rules import api

        with tool_errors():
            return dict(api.constitution_payload(get_project()))

    @server.tool(
        name="rules_for_task",
        description=(
            "The rule shards relevant to a task (semantic + intent + risk ranking, with "
            "contradictions resolved), plus the constitution. Pass the files you will touch."
        ),
    )
    def rules_for_task(
        task: Annotated[str, Field(min_length=1, max_length=8000, description="the task")],
        files: Annotated[list[str], Field(max_length=200, description="paths the task will touch")]
        | None = None,
    ) -> dict[str, Any]:
        from charter.rules import api

        with tool_errors():
            return dict(api.task_context(get_project(), task, files=files or None))
