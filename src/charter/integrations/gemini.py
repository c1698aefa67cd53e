"""``charter install gemini``: Gemini CLI hooks and MCP server in ``.gemini/settings.json``.

Gemini CLI's hooks (SessionStart, BeforeAgent, BeforeTool, AfterTool, AfterAgent,
PreCompress, SessionEnd) are close to Claude Code's but not the same JSON (``decision:
deny`` instead of ``permissionDecision``, its own tool names), so each runs ``charter
agent-hook gemini EVENT``. Timeouts are in milliseconds there.
"""

from __future__ import annotations

from pathlib import Path

from charter.errors import CharterError
from charter.integrations.agent_install import (
    COMMAND,
    Managed,
    add_server,
    append_hook,
    dump_json,
    install_agent,
    load_json_object,
    strip_hook_groups,
    strip_server,
)

SETTINGS = ".gemini/settings.json"
EVENTS = (
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
)


def _strip(text: str) -> str:
    data = load_json_object(text, SETTINGS)
    strip_hook_groups(data)
    strip_server(data)
    return dump_json(data, text)


def _merge(text: str) -> str:
    data = load_json_object(text, SETTINGS)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CharterError(f"{SETTINGS}: 'hooks' must be an object; not modified")
    for event in EVENTS:
        hook = {
            "name": f"charter-{event}",
            "type": "command",
            "command": f"{COMMAND} agent-hook gemini {event}",
            "timeout": 30000,
        }
        append_hook(hooks, event, {"hooks": [hook]}, SETTINGS)
    add_server(data, SETTINGS)
    return dump_json(data, text)


FILES = [Managed(SETTINGS, _merge, _strip)]


def install_gemini(
    root: Path, *, uninstall: bool, state_dir: Path, dry_run: bool = False
) -> list[str]:
    return install_agent(
        root, "gemini", FILES, uninstall=uninstall, state_dir=state_dir, dry_run=dry_run
    )
