"""``charter install codex``: Codex CLI hooks (``.codex/hooks.json``) and MCP server.

Codex's hooks take Claude Code's shape (event -> matcher groups -> command hooks, the
same JSON in and out), so they run ``charter hook EVENT`` directly, except PreToolUse:
Codex refuses ``permissionDecision: "ask"`` as invalid output and runs the tool, so the
guardrails answer through ``charter agent-hook codex PreToolUse``, which turns an ask
into a deny that names the confirmation needed. The MCP server goes
into the project's ``.codex/config.toml`` as an ``[mcp_servers.charter]`` table, written
as one marked block so the user's own TOML (comments, order) is never rewritten.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from charter.errors import CharterError
from charter.integrations.agent_install import (
    COMMAND,
    Managed,
    append_hook,
    dump_json,
    install_agent,
    load_json_object,
    strip_hook_groups,
)

HOOKS = ".codex/hooks.json"
CONFIG = ".codex/config.toml"
EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "PreCompact": "pre-compact",
    "Stop": "stop",
}
BEGIN = "# >>> charter (charter install codex; removed by --uninstall)"
END = "# <<< charter"
BLOCK = f'{BEGIN}\n[mcp_servers.charter]\ncommand = "{COMMAND}"\nargs = ["mcp"]\n{END}\n'


def _strip_hooks(text: str) -> str:
    data = load_json_object(text, HOOKS)
    strip_hook_groups(data)
    return dump_json(data, text)


def _merge_hooks(text: str) -> str:
    data = load_json_object(text, HOOKS)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CharterError(f"{HOOKS}: 'hooks' must be an object; not modified")
    for event, name in EVENTS.items():
        command = f"{COMMAND} hook {name}"
        if event == "PreToolUse":
            command = f"{COMMAND} agent-hook codex {event}"
        hook = {"type": "command", "command": command, "timeout": 30}
        append_hook(hooks, event, {"hooks": [hook]}, HOOKS)
    return dump_json(data, text)


def _check_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CharterError(f"{CONFIG} is not valid TOML ({exc}); not modified") from None


def _strip_config(text: str) -> str:
    _check_toml(text)
    start = text.find(BEGIN)
    if start < 0:
        return text
    end = text.find(END, start)
    if end < 0:
        return text
    stop = end + len(END)
    if text[stop : stop + 1] == "\n":
        stop += 1
    before = text[:start]
    if before.endswith("\n\n"):  # the blank line the install put before the block
        before = before[:-1]
    out = before + text[stop:]
    return "" if not out.strip() else out


def _merge_config(text: str) -> str:
    servers = _check_toml(text).get("mcp_servers", {})
    if isinstance(servers, dict) and "charter" in servers:
        raise CharterError(f"{CONFIG} already has an [mcp_servers.charter] table; not modified")
    if not text:
        return BLOCK
    sep = "" if text.endswith("\n") else "\n"
    return text + sep + "\n" + BLOCK


FILES = [
    Managed(HOOKS, _merge_hooks, _strip_hooks),
    Managed(CONFIG, _merge_config, _strip_config),
]


def install_codex(
    root: Path, *, uninstall: bool, state_dir: Path, dry_run: bool = False
) -> list[str]:
    return install_agent(
        root, "codex", FILES, uninstall=uninstall, state_dir=state_dir, dry_run=dry_run
    )
