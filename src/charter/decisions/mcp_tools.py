"""MCP tools of the decisions capability: ``list_constraints``, ``check_drift``,
``render_template``.

Offered on the seam (:mod:`charter.plugins`) through ``register(tools)``.
Library errors (including a tampered decisions file) become MCP tool errors with the
one-line message; nothing is printed (stdout carries the protocol).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from charter.plugins import ToolSet

ArtifactKind = Literal["architecture", "epic", "story", "qa_plan", "review", "chat"]


def register(tools: ToolSet) -> None:
    """Offer the decisions tools on the seam (:mod:`charter.plugins`)."""
    get = tools.project

    @tools.tool(
        name="list_constraints",
        description=(
            "Bound decisions as invariants (facts: never reopen or contradict them), and all "
            "clarifications."
        ),
    )
    def list_constraints(
        binding_only: Annotated[bool, Field(description="only bound constraints")] = False,
    ) -> dict[str, Any]:
        from charter.decisions.invariants import invariants
        from charter.decisions.service import load_decisions

        project = get()
        decisions = load_decisions(project)
        entries = [e for e in decisions.pgc_clarifications if e.binding or not binding_only]
        return {
            "pgc_clarifications": [e.to_canonical() for e in entries],
            "invariants": [
                i.as_dict() for i in invariants(decisions, project.settings.decisions.aliases)
            ],
        }

    @tools.tool(
        name="check_drift",
        description=(
            "Check a plan, design or reply against the bound decisions (QA-PGC-001..004): "
            "verdict, findings with evidence spans."
        ),
    )
    def check_drift(
        text: Annotated[str, Field(min_length=1, max_length=200_000, description="artifact")],
        kind: ArtifactKind | None = None,
    ) -> dict[str, Any]:
        from charter.decisions.service import check_drift as run

        return run(get(), text, kind=kind).as_dict()

    @tools.tool(
        name="render_template",
        description=("Fill $$PGC_CLARIFICATIONS and $$PGC_INVARIANTS in a prompt template."),
    )
    def render_template(
        template: Annotated[str, Field(max_length=500_000, description="template text")],
    ) -> dict[str, Any]:
        from charter.decisions.render import render_template as render
        from charter.decisions.service import load_decisions

        project = get()
        decisions = load_decisions(project)
        return {"text": render(template, decisions, project.settings.decisions.aliases)}
