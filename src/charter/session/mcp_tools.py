"""MCP tools of the session capability: state, decisions, risks, plan, tracks.

Every tool definition is sent to the model on every request, so descriptions are short
and parameters few.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from pydantic import Field

from charter.plugins import ToolSet

#: one decision, risk or mitigation is a sentence or a paragraph, not a document
Entry = Annotated[str, Field(max_length=8000)]


def register(tools: ToolSet) -> None:
    """Offer the session tools on the seam (:mod:`charter.plugins`)."""
    get = tools.project

    @contextmanager
    def session() -> Iterator[Any]:
        from charter.session.service import Session

        s = Session(get())
        try:
            yield s
        finally:
            s.close()

    @tools.tool(
        name="get_session_state",
        description=(
            "Session state as recovered after compaction: plan, open risks, decisions, edited "
            "files, test runs, the user's instructions, tracks."
        ),
    )
    def get_session_state() -> dict[str, Any]:
        from charter.session.recovery import recover

        with session() as s:
            data = recover(s, create=False).to_dict()
            data["tracks"] = s.tracks.list()
        return data

    @tools.tool(
        name="record_decision",
        description=("Append a decision to the active track's DECISIONS.md."),
    )
    def record_decision(
        decision: Entry,
        reason: Annotated[str, Field(max_length=8000, description="why")] = "",
        impact: Annotated[
            str, Field(max_length=8000, description="what it changes; 'global' for all tracks")
        ] = "",
    ) -> dict[str, Any]:
        with session() as s:
            return s.record_decision(
                decision, reason=reason, impact=impact, source="agent (mcp)"
            ).to_dict()

    @tools.tool(
        name="record_risk",
        description=(
            "Add or update a risk in the active track's RISKS.md (new: medium, open unless "
            "given; an update, by the risk's text or its id R-…, keeps the severity and "
            "status it does not name)."
        ),
    )
    def record_risk(
        risk: Entry,
        severity: Literal["low", "medium", "high", "critical"] | None = None,
        status: Literal["open", "mitigated", "accepted", "closed"] | None = None,
        mitigation: Entry = "",
    ) -> dict[str, Any]:
        with session() as s:
            entry = s.record_risk(
                risk, severity=severity, status=status, mitigation=mitigation, source="agent (mcp)"
            )
            return entry.to_dict()

    @tools.tool(
        name="update_plan",
        description=(
            "Replace the active track's plan. Step: {content, status: "
            "pending|in_progress|completed|cancelled, verification}."
        ),
    )
    def update_plan(
        steps: Annotated[list[dict[str, Entry]], Field(max_length=500)],
    ) -> dict[str, Any]:
        with session() as s:
            plan = s.update_plan(steps, session="mcp")
            return {"plan": [p.to_dict() for p in plan]}

    @tools.tool(
        name="tracks",
        description="Tracks and the active one; switch=NAME makes one active (create=true "
        "makes it).",
    )
    def tracks(switch: str | None = None, create: bool = False) -> dict[str, Any]:
        if create and not switch:
            from charter.errors import CharterError

            raise CharterError("create=true needs switch=NAME, the track to create")
        with session() as s:
            if switch and create:
                s.tracks.new(switch)
            elif switch:
                s.tracks.switch(switch)
            return {"active": s.tracks.active(), "tracks": s.tracks.list()}
