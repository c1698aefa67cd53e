"""The project graph on the seam (:mod:`charter.plugins`): its MCP tools, and the
optional top files for each prompt."""

from __future__ import annotations

from typing import Any

from charter.plugins import HookSet, ToolSet, hookimpl


@hookimpl
def charter_mcp_tools(tools: ToolSet) -> None:
    from charter.graph.mcp_tools import register

    register(tools)


@hookimpl
def charter_hook_handlers(hooks: HookSet) -> None:
    def files(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
        from charter.graph.hooks import prompt_files

        return prompt_files(state, payload, notes)

    hooks.on_context("user-prompt-submit")(files)
