"""``charter install cursor|codex|gemini`` and ``charter agent-hook``: other agents."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Nothing yet."""
