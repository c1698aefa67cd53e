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

        return dict(api.task_context(tools.project(), task, files=files or None))
