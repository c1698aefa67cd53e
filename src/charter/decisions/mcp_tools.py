"""MCP tools of the decisions capability: ``list_constraints``, ``check_drift``,
``render_template``.

Registered by :mod:`charter.integrations.mcp_server` through ``register(server)``.
Library errors (including a tampered decisions file) become MCP tool errors with the
one-line message; nothing is printed (stdout carries the protocol).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

ArtifactKind = Literal["architecture", "epic", "story", "qa_plan", "review", "chat"]


def _project() -> Any:
    from charter.integrations.mcp_server import get_project

    return get_project()


def register(server: Any, project_getter: Any = None) -> None:
    """Add the decisions tools to ``server`` (an ``mcp.server.MCPServer``).

    ``project_getter`` overrides how the project is found (tests); by default it is the
    MCP server's :func:`get_project`.
    """
    from charter.integrations.mcp_server import tool_errors

    get = project_getter or _project

    @server.tool(
        name="list_constraints",
        description=(
            "The project's decisions (canonical pgc_clarifications) and the bound "
            "constraints as invariant statements. Bound constraints are facts: never "
            "reopen, contradict or suggest alternatives to them."
        ),
    )
    def list_constraints(
        binding_only: Annotated[bool, Field(description="only bound constraints")] = False,
    ) -> dict[str, Any]:
        from charter.decisions.invariants import invariants
        from charter.decisions.service import load_decisions

        with tool_errors():
            project = get()
            decisions = load_decisions(project)
        entries = [e for e in decisions.pgc_clarifications if e.binding or not binding_only]
        return {
            "pgc_clarifications": [e.to_canonical() for e in entries],
            "invariants": [
                i.as_dict() for i in invariants(decisions, project.settings.decisions.aliases)
            ],
        }

    @server.tool(
        name="check_drift",
        description=(
            "Check a text (plan, architecture, story, review, chat reply) against the bound "
            "constraints: QA-PGC-001 contradiction, 002 excluded option reintroduced, 003 "
            "resolved decision treated as open, 004 conflicting suggestion/decision point. "
            "Returns verdict pass|fail and findings with exact evidence spans and repairs."
        ),
    )
    def check_drift(
        text: Annotated[str, Field(min_length=1, max_length=200_000, description="artifact")],
        kind: ArtifactKind | None = None,
    ) -> dict[str, Any]:
        from charter.decisions.service import check_drift as run

        with tool_errors():
            return run(get(), text, kind=kind).as_dict()

    @server.tool(
        name="render_template",
        description=(
            "Fill a prompt template: $$PGC_CLARIFICATIONS becomes the canonical decisions "
            "JSON verbatim, $$PGC_INVARIANTS the bound invariant statements."
        ),
    )
    def render_template(
        template: Annotated[str, Field(max_length=500_000, description="template text")],
    ) -> dict[str, Any]:
        from charter.decisions.render import render_template as render
        from charter.decisions.service import load_decisions

        with tool_errors():
            project = get()
            decisions = load_decisions(project)
        return {"text": render(template, decisions, project.settings.decisions.aliases)}
