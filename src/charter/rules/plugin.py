"""The rules engine on the seam (:mod:`charter.plugins`): its MCP tools and hook handlers.

Imports are deferred to the calls, so registering the plugin costs nothing on a hook's
hot path.
"""

from __future__ import annotations

from typing import Any

from charter.plugins import HookSet, ToolSet, hookimpl


@hookimpl
def charter_mcp_tools(tools: ToolSet) -> None:
    from charter.rules.mcp_tools import register

    register(tools)


@hookimpl
def charter_hook_handlers(hooks: HookSet) -> None:
    def pinned(state: Any, payload: dict[str, Any], notes: list[str]) -> list[tuple[str, str]]:
        from charter.rules.hooks import pinned_constitution

        return pinned_constitution(state, payload, notes)

    def context(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
        from charter.rules.hooks import prompt_rules

        return prompt_rules(state, payload, notes)

    def touched(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
        from charter.rules.hooks import path_rules

        return path_rules(state, payload, notes)

    def step(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
        from charter.rules.moments import step_rules

        return step_rules(state, payload, notes)

    def first_code(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
        from charter.rules.moments import code_rules

        return code_rules(state, payload, notes)

    def fresh(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.rules.hooks import new_conversation

        return new_conversation(state, payload)

    hooks.on_capture("session-start")(fresh)
    hooks.on_pinned(10)(pinned)
    hooks.on_context("user-prompt-submit")(context)
    hooks.on_context("post-tool-use")(touched)
    hooks.on_context("post-tool-use")(first_code)
    hooks.on_context("pre-tool-use")(step)
