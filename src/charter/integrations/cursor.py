"""``charter install cursor``: Cursor's project hooks (``.cursor/hooks.json``) and MCP.

Cursor's hooks speak their own JSON (``sessionStart`` answers ``additional_context``,
``preToolUse`` answers ``permission``), so each hook runs ``charter agent-hook cursor
EVENT``, which translates to and from Charter's Claude Code hooks. Cursor cannot add
context per prompt (``beforeSubmitPrompt`` only allows or blocks): the constitution comes
at session start, task rules through the ``rules_for_task`` MCP tool, and scoped rules
can be exported as ``.cursor/rules`` with ``charter export cursor``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from charter.errors import CharterError
from charter.integrations.agent_install import (
    COMMAND,
    Managed,
    add_server,
    append_hook,
    dump_json,
    install_agent,
    is_charter_command,
    load_json_object,
    strip_hook_groups,
    strip_server,
)

HOOKS = ".cursor/hooks.json"
MCP = ".cursor/mcp.json"
EVENTS = ("sessionStart", "preToolUse", "postToolUse", "preCompact", "stop")


def _strip_hooks(text: str) -> str:
    data = load_json_object(text, HOOKS)
    strip_hook_groups(data, lambda entry: is_charter_command(_command(entry)))
    if set(data) == {"version"}:
        data = {}
    return dump_json(data, text)


def _command(entry: Any) -> Any:
    return entry.get("command") if isinstance(entry, dict) else None


def _merge_hooks(text: str) -> str:
    data = load_json_object(text, HOOKS)
    data.setdefault("version", 1)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CharterError(f"{HOOKS}: 'hooks' must be an object; not modified")
    for event in EVENTS:
        entry = {"command": f"{COMMAND} agent-hook cursor {event}", "timeout": 30}
        append_hook(hooks, event, entry, HOOKS)
    return dump_json(data, text)


def _strip_mcp(text: str) -> str:
    data = load_json_object(text, MCP)
    strip_server(data)
    return dump_json(data, text)


def _merge_mcp(text: str) -> str:
    data = load_json_object(text, MCP)
    add_server(data, MCP)
    return dump_json(data, text)


FILES = [Managed(HOOKS, _merge_hooks, _strip_hooks), Managed(MCP, _merge_mcp, _strip_mcp)]


def install_cursor(
    root: Path, *, uninstall: bool, state_dir: Path, dry_run: bool = False
) -> list[str]:
    return install_agent(
        root, "cursor", FILES, uninstall=uninstall, state_dir=state_dir, dry_run=dry_run
    )
