"""MCP tools of the project graph: project state, capsule, task context, and narrow
follow-ups (a node, its neighbours, the impact of a path). Bodies live in
:mod:`charter.graph.tools`; definitions are short because they go to the model on every
request."""

from __future__ import annotations

from typing import Any

from charter.plugins import ToolSet


def register(tools: ToolSet) -> None:
    """Offer the graph tools on the seam (:mod:`charter.plugins`)."""
    from charter.graph import tools as body

    @tools.tool(
        name="get_project_state",
        description="Graph status: snapshot id, capsule cache key, what is stale.",
    )
    def get_project_state() -> dict[str, Any]:
        return body.get_project_state(tools.project())

    @tools.tool(
        name="get_contract_capsule",
        description="The project's contract: module map, routes, components, tokens, "
        "rules, invariants, open blocking findings, with cache keys.",
    )
    def get_contract_capsule() -> dict[str, Any]:
        return body.get_contract_capsule(tools.project())

    @tools.tool(
        name="prepare_task_context",
        description="Files, symbols, rules, decisions and docs a task needs, ranked, "
        "with reasons. Paste errors and name files in the task.",
    )
    def prepare_task_context(
        task: str, files: list[str] | None = None, limit: int = 20
    ) -> dict[str, Any]:
        return body.prepare_task_context(tools.project(), task, files=files, limit=limit)

    @tools.tool(name="get_node", description="One graph node by id (src:path, sym:path#Name).")
    def get_node(node_id: str) -> dict[str, Any]:
        return body.get_node(tools.project(), node_id)

    @tools.tool(name="neighbors", description="Edges into and out of a graph node.")
    def neighbors(node_id: str, relation: str | None = None) -> dict[str, Any]:
        return body.neighbors(tools.project(), node_id, relation=relation)

    @tools.tool(
        name="impact_of",
        description="What a change to a path touches: importers, tests, rules, docs.",
    )
    def impact_of(path: str) -> dict[str, Any]:
        return body.impact_of(tools.project(), path)
