"""Bound decisions on the seam (:mod:`charter.plugins`): MCP tools, the invariants pinned
at session start, and the Stop hook's drift check."""

from __future__ import annotations

from typing import Any

from charter.plugins import HookSet, ToolSet, hookimpl


@hookimpl
def charter_mcp_tools(tools: ToolSet) -> None:
    from charter.decisions.mcp_tools import register

    register(tools)


@hookimpl
def charter_hook_handlers(hooks: HookSet) -> None:
    def pinned(state: Any, payload: dict[str, Any], notes: list[str]) -> list[tuple[str, str]]:
        from charter.decisions.hooks import pinned_invariants

        return pinned_invariants(state.project, notes)

    def stop(state: Any, payload: dict[str, Any], notes: list[str]) -> dict[str, Any] | None:
        from charter.decisions.hooks import handle_stop

        return handle_stop(state.project, payload, notes)

    hooks.on_pinned(20)(pinned)
    hooks.on_decide("stop")(stop)
