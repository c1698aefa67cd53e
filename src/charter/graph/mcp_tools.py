"""MCP tools of the project graph: project state, capsule, task context, and narrow
one follow-up tool for a node (itself, its edges, the impact of changing it). Bodies live in
:mod:`charter.graph.tools`; definitions are short because they go to the model on every
request."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from charter.plugins import ToolSet

#: the same caps as the other tools' free text (check_drift, verify_facts)
Task = Annotated[str, Field(max_length=200_000)]
NodeId = Annotated[str, Field(max_length=4096)]
#: validated as an argument, so a bad one is named as the caller wrote it ("limit"), not
#: as the CLI's option ("--limit must be at least 1")
Limit = Annotated[int, Field(ge=1)]


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
        task: Task, files: list[str] | None = None, limit: Limit = 20
    ) -> dict[str, Any]:
        return body.prepare_task_context(tools.project(), task, files=files, limit=limit)

    @tools.tool(
        name="graph_node",
        description="One graph node (src:path, sym:path#Name): view node, edges, or "
        "impact (importers, tests, rules, docs a change to it touches).",
    )
    def graph_node(
        node_id: NodeId,
        view: Literal["node", "edges", "impact"] = "node",
        relation: str | None = None,
    ) -> dict[str, Any]:
        return body.graph_node(tools.project(), node_id, view, relation=relation)
