"""``charter install claude-code`` merges into settings.json without touching user content."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import write

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo hello"}]}],
    },
}


def test_install_merges_is_idempotent_and_uninstalls(repo: Path, run_charter) -> None:
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS, indent=2))
    write(repo, ".mcp.json", json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    installed = json.loads((repo / ".claude/settings.json").read_text())
    assert installed["permissions"] == USER_SETTINGS["permissions"]
    pre = installed["hooks"]["PreToolUse"]
    assert pre[0] == USER_SETTINGS["hooks"]["PreToolUse"][0]  # the user's own hook, kept first
    assert [h["command"].split()[-1] for g in pre[1:] for h in g["hooks"]] == ["pre-tool-use"]
    commands = [h["command"] for g in installed["hooks"]["SessionStart"] for h in g["hooks"]]
    assert "echo hello" in commands
    assert any(c.endswith("hook session-start") for c in commands)
    for event in ("UserPromptSubmit", "Stop"):
        assert any("hook" in h["command"] for g in installed["hooks"][event] for h in g["hooks"])
    mcp = json.loads((repo / ".mcp.json").read_text())
    assert mcp["mcpServers"]["other"] == {"command": "x"}
    assert mcp["mcpServers"]["charter"]["args"] == ["mcp"]

    before = (repo / ".claude/settings.json").read_bytes()
    again = run_charter("install", "claude-code", cwd=repo)
    assert again.returncode == 0
    assert (repo / ".claude/settings.json").read_bytes() == before

    run_charter("install", "claude-code", "--uninstall", cwd=repo)
    removed = json.loads((repo / ".claude/settings.json").read_text())
    assert removed == USER_SETTINGS
    assert "charter" not in json.loads((repo / ".mcp.json").read_text())["mcpServers"]


def test_install_refuses_malformed_settings(repo: Path, run_charter) -> None:
    write(repo, ".claude/settings.json", "{ not json")
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode != 0
    assert "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert (repo / ".claude/settings.json").read_text() == "{ not json"
