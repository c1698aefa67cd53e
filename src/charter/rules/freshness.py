"""Is the compiled rules state still the rule files' own? Stats and a discovery only.

Kept apart from the compiler so a hook that only needs the answer (pinning the stored
constitution at session start) does not import the rule grammar and numpy to get it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter import __version__
from charter.rules.sources import discover
from charter.rules.stored import MANIFEST_FILE

if TYPE_CHECKING:
    from charter.config import Project


def is_stale(project: Project) -> bool:
    """Has any compiled rule file (or the config) changed since the last compile?

    Cheap enough for every prompt: it stats the files the last compile read. New rule
    files are found by the full discovery at session start and by ``charter compile``.
    """
    meta = _meta(project)
    if meta is None:
        return True
    if meta.get("config") != project.settings.model_dump(mode="json"):
        return True
    if meta.get("charter") != __version__:  # an upgrade may parse rules differently
        return True
    for path, (mtime, size) in meta.get("stamps", {}).items():
        try:
            st = Path(path).stat()
        except OSError:
            return True
        if st.st_mtime_ns != mtime or st.st_size != size:
            return True
    return False


def _meta(project: Project) -> dict[str, Any] | None:
    try:
        meta = json.loads((project.state_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def explicit_paths(project: Project) -> list[Path] | None:
    """The files named to the last ``charter compile PATH…``, kept on recompiles."""
    meta = _meta(project)
    named = meta.get("explicit") if meta else None
    if not isinstance(named, list) or not named:
        return None
    return [Path(p) for p in named if Path(p).is_file()] or None


def has_new_sources(project: Project) -> bool:
    """Did a rule file appear since the last compile (full discovery)?

    A compile of named files is left alone: the user chose what to compile.
    """
    meta = _meta(project)
    if meta is None:
        return True
    if meta.get("explicit"):
        return False
    known = set(meta.get("stamps", {}))
    current = {str(p.resolve()) for _, p in discover(project.root, project.settings.rules.exclude)}
    return not current <= known


def is_fresh(project: Project, *, check_new: bool = False) -> bool:
    """The compiled state answers for the rule files as they are now (and, with
    ``check_new``, no rule file appeared since)."""
    return not is_stale(project) and (not check_new or not has_new_sources(project))
