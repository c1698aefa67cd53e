"""Models shipped as JSON package data (``charter/data/*.json``), read without numpy."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def bundled_json(name: str) -> dict[str, Any] | None:
    """The JSON object in ``charter/data/<name>``; None when it is missing or unreadable,
    so the feature that needs it turns itself off rather than failing the caller."""
    try:
        raw = resources.files("charter.data").joinpath(name).read_text(encoding="utf-8")
        data = json.loads(raw)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
