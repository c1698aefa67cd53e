"""Session state on the seam (:mod:`charter.plugins`): MCP tools; capture, compaction and
recovery hooks; PreToolUse guardrails (which fail closed)."""

from __future__ import annotations

from typing import Any

from charter.plugins import HookSet, ToolSet, hookimpl


@hookimpl
def charter_mcp_tools(tools: ToolSet) -> None:
    from charter.session.mcp_tools import register

    register(tools)


@hookimpl
def charter_hook_handlers(hooks: HookSet) -> None:
    def prompt(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.session.hooks import capture_prompt

        return capture_prompt(state, payload)

    def tool_ok(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.session.hooks import capture_tool

        return capture_tool(state, payload, failed=False)

    def tool_failed(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.session.hooks import capture_tool

        return capture_tool(state, payload, failed=True)

    def compact(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.session.hooks import pre_compact

        return pre_compact(state.project, payload)

    def end(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.session.hooks import pre_compact

        return pre_compact(state.project, {**payload, "trigger": "session-end"})

    def start(state: Any, payload: dict[str, Any]) -> list[str]:
        from charter.session.hooks import session_start

        return session_start(state, payload)

    def compose(
        state: Any, payload: dict[str, Any], pinned: list[tuple[str, str]]
    ) -> tuple[str, list[str]]:
        from charter.session.hooks import recovery

        recovered = recovery(state.project, payload, pinned)
        return recovered.text, recovered.notes

    def guard(state: Any, payload: dict[str, Any], notes: list[str]) -> dict[str, Any] | None:
        from charter.session.guardrails import pre_tool_use_output

        return pre_tool_use_output(state.project, payload)

    hooks.on_capture("user-prompt-submit")(prompt)
    hooks.on_capture("post-tool-use")(tool_ok)
    hooks.on_capture("post-tool-use-failure")(tool_failed)
    hooks.on_capture("pre-compact")(compact)
    hooks.on_capture("session-end")(end)
    hooks.on_capture("session-start")(start)
    hooks.compose.append(compose)
    hooks.on_decide("pre-tool-use", fail_closed=True)(guard)
