"""Models shipped as JSON package data (``charter/data/*.json``), read without numpy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The package's data folder, read as files: ``importlib.resources`` costs ~25 ms to import
#: cold, and the PreToolUse hook that runs on every tool call reads data from here.
_DATA = Path(__file__).resolve().parent / "data"


def bundled_json(name: str) -> dict[str, Any] | None:
    """The JSON object in ``charter/data/<name>``; None when it is missing or unreadable,
    so the feature that needs it turns itself off rather than failing the caller."""
    try:
        raw = (_DATA / name).read_text(encoding="utf-8")
        data = json.loads(raw)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
