"""``charter install claude-code``: merge Charter's hooks into ``.claude/settings.json``.

Only Charter's own entries are added or removed (recognised by their ``charter hook``
command); everything else in the file is kept as it was. Running it twice changes
nothing. A settings file that is not valid JSON is reported, never overwritten.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from charter.boundary import writable
from charter.errors import CharterError
from charter.fileio import atomic_write_text, locked

HOOK_EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "Stop": "stop",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "PostToolUseFailure": "post-tool-use-failure",
    "PreCompact": "pre-compact",
    "SessionEnd": "session-end",
}
MARKER = " hook "


def charter_command() -> str:
    """The absolute path of this ``charter`` executable, so hooks work outside the venv."""
    exe = Path(sys.argv[0])
    if exe.name == "charter" and exe.exists():
        return str(exe.resolve())
    found = shutil.which("charter")
    return found or "charter"


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise CharterError(f"{path} is not valid JSON ({exc}); not modified") from None
    if not isinstance(data, dict):
        raise CharterError(f"{path} must hold a JSON object; not modified")
    return data


def _is_ours(hook: Any) -> bool:
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and "charter" in hook["command"]
        and MARKER in hook["command"]
    )


def _strip_ours(hooks: dict[str, Any]) -> None:
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not _is_ours(h)]
                if not inner and group["hooks"]:
                    continue
                group = {**group, "hooks": inner}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]


def install_claude_code(
    root: Path, *, uninstall: bool = False, state_dir: Path | None = None
) -> list[str]:
    """Merge (or remove) Charter's hooks and MCP server entry; returns what changed.

    Both files are read, merged and written under one lock in Charter's state directory
    (default ``ROOT/.charter``), so two installs at once cannot drop each other's entries.
    """
    with locked((state_dir or root / ".charter") / "install"):
        return _install(root, uninstall)


def _install(root: Path, uninstall: bool) -> list[str]:
    # never through a symlink that leads out of the project (a planted .claude -> ~/.claude)
    settings_path = writable(root, root / ".claude" / "settings.json", what="hook settings")
    mcp_path = writable(root, root / ".mcp.json", what="MCP config")
    settings = _read_json(settings_path)
    mcp = _read_json(mcp_path)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise CharterError(f"{settings_path}: 'hooks' must be an object; not modified")
    command = charter_command()
    _strip_ours(hooks)
    if not uninstall:
        for event, name in HOOK_EVENTS.items():
            entry = {"type": "command", "command": f"{command} hook {name}", "timeout": 30}
            hooks.setdefault(event, []).append({"hooks": [entry]})
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
    servers = mcp.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise CharterError(f"{mcp_path}: 'mcpServers' must be an object; not modified")
    if uninstall:
        servers.pop("charter", None)
    else:
        servers["charter"] = {"command": command, "args": ["mcp"]}
    changes = []
    new_settings = json.dumps(settings, indent=2) + "\n"
    old_settings = settings_path.read_text(encoding="utf-8") if settings_path.exists() else ""
    if new_settings != old_settings:
        atomic_write_text(settings_path, new_settings)
        changes.append(f"{'updated' if old_settings else 'wrote'} {settings_path}")
    if servers or mcp_path.exists():
        mcp["mcpServers"] = servers
        new_mcp = json.dumps(mcp, indent=2) + "\n"
        old_mcp = mcp_path.read_text(encoding="utf-8") if mcp_path.exists() else ""
        if new_mcp != old_mcp:
            atomic_write_text(mcp_path, new_mcp)
            changes.append(f"{'updated' if old_mcp else 'wrote'} {mcp_path}")
    return changes or ["already up to date"]
