"""PreToolUse guardrails (being built: allowed tools, write scopes, shell parsing)."""

from __future__ import annotations

from typing import Any

from charter.config import Project


def pre_tool_use_output(project: Project, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's answer: None lets the call through."""
    return None
