"""The session handoff object (``.charter/sho.json``): the mode is explicit and recorded.

``charter search`` without ``--mode`` reads the mode from here, then falls back to
``search.default_mode``. Writes are atomic read-modify-writes under a lock; unknown
keys written by other tools are kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from charter import safejson
from charter.errors import CharterError
from charter.fileio import locked_update_json

SHO_FILE = "sho.json"


def sho_path(state_dir: Path) -> Path:
    return state_dir / SHO_FILE


def read_sho(state_dir: Path) -> dict[str, Any]:
    path = sho_path(state_dir)
    if not path.exists():
        return {}
    try:
        data = safejson.loads(path.read_text(encoding="utf-8"), name=str(path))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CharterError(f"invalid session handoff {path}: {exc}") from None
    if not isinstance(data, dict):
        raise CharterError(f"invalid session handoff {path}: expected a JSON object")
    return data


def write_mode(state_dir: Path, mode: str, **extra: Any) -> dict[str, Any]:
    """Record ``mode`` (and any extra fields) in the handoff object; returns it.

    Read, changed and written under the file's lock, so a parallel writer's fields are
    kept (:func:`charter.fileio.locked_update_json`).
    """

    def apply(data: dict[str, Any]) -> dict[str, Any]:
        data.update(extra)
        data["mode"] = mode
        data["updated_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        return data

    return locked_update_json(sho_path(state_dir), apply, what="session handoff")


def current_mode(state_dir: Path, default: str, known: Iterable[str] | None = None) -> str:
    """The recorded mode, else ``default``; also ``default`` when the recorded one is no
    longer among ``known`` (a mode of one's own since removed from the config must not
    break every search that follows)."""
    mode = read_sho(state_dir).get("mode")
    if not isinstance(mode, str) or not mode:
        return default
    return mode if known is None or mode in set(known) else default
