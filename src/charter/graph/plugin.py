"""The project graph on the seam (:mod:`charter.plugins`): its MCP tools."""

from __future__ import annotations

from charter.plugins import ToolSet, hookimpl


@hookimpl
def charter_mcp_tools(tools: ToolSet) -> None:
    from charter.graph.mcp_tools import register

    register(tools)
