"""Reversible, portable installs into other agents' project settings (Cursor, Codex, Gemini).

Why this shape: these files are committed by teams, so every command is the bare
``charter`` resolved from PATH (never one machine's virtualenv path), and ``--uninstall``
must give back exactly what was there. Before the first change each file's previous
bytes (or its absence) are kept in ``.charter/installs/<agent>.json`` together with the
hash of what Charter wrote; uninstall restores those bytes when the file is still as
Charter left it, and otherwise removes only Charter's entries, keeping the user's edits.
A file edited between two installs keeps only the hash: its recorded bytes are stale.
Every file is planned before any is written, so a bad file changes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charter.boundary import writable
from charter.errors import CharterError
from charter.fileio import atomic_write_text, locked, remove_stale_temps

#: The command every installed hook and MCP entry runs (resolved from PATH).
COMMAND = "charter"


@dataclass(frozen=True)
class Managed:
    """One settings file an agent install manages.

    ``merge(text)`` returns the file's new text with Charter's entries added (text is ""
    for a missing file); ``strip(text)`` returns it with them removed ("" when nothing
    else is left, which deletes a file Charter created).
    """

    rel: str
    merge: Callable[[str], str]
    strip: Callable[[str], str]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read(path: Path) -> str | None:
    """The file's exact text (line endings as they are: read as text, CRLF became LF, the
    install rewrote a Windows file with LF and uninstall could not give its bytes back)."""
    return path.read_bytes().decode("utf-8") if path.exists() else None


def _edit(current: str | None, *changes: Callable[[str], str]) -> str:
    """``changes`` applied in turn to ``current`` seen with LF line endings, in the
    file's own line endings again (the mergers and strippers write LF)."""
    text = current or ""
    crlf = "\r\n" in text
    out = text.replace("\r\n", "\n") if crlf else text
    for change in changes:
        out = change(out)
    return out.replace("\n", "\r\n") if crlf else out


def install_agent(
    root: Path,
    agent: str,
    files: list[Managed],
    *,
    uninstall: bool,
    state_dir: Path,
    dry_run: bool = False,
) -> list[str]:
    """Install (or remove) Charter's entries in ``files``; returns what changed (with
    ``dry_run``: what would change, and nothing is written).

    Every file is planned before any is written, so a file Charter cannot read (invalid
    JSON or TOML) stops the whole install with nothing changed."""
    record_path = state_dir / "installs" / f"{agent}.json"
    with locked(state_dir / "install"):
        record = _load_record(record_path)
        planned: list[tuple[Path, str | None, str | None]] = []
        for item in files:
            path = writable(root, root / item.rel, what=f"{agent} settings")
            current = _read(path)
            entry = record.get(item.rel)
            if uninstall:
                new = _restore(entry, current, item)
            else:
                if entry is None:
                    entry = {"original": current, "created_dirs": _missing_dirs(root, item.rel)}
                elif _sha(current or "") != entry.get("written") and not _untouched(entry, current):
                    # edited since Charter wrote it: the bytes recorded before the first
                    # install are stale, so uninstall only removes Charter's entries
                    entry = {"created_dirs": entry.get("created_dirs", [])}
                new = _edit(current, item.strip, item.merge)
                entry["written"] = _sha(new)
                record[item.rel] = entry
            planned.append((path, current, new))
        if dry_run:
            return [
                f"would {_verb(current, new)} {path.relative_to(root).as_posix()}"
                for path, current, new in planned
                if current != new
            ] or ["already up to date"]
        for path in [*(p for p, _, _ in planned), record_path]:  # a killed install's temps
            remove_stale_temps(path.parent, [path.name])
        if not uninstall:
            # written ahead of the files: a kill between them leaves each file untouched
            # or exactly as recorded, so the next install or uninstall still knows the
            # user's original bytes (recorded after, a kill lost them for good)
            record_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(record_path, json.dumps(record, indent=2, sort_keys=True) + "\n")
        changes = []
        for path, current, new in planned:
            changes += _apply(path, current, new, root)
        if uninstall:
            for item in files:
                entry = record.get(item.rel)
                for rel in entry.get("created_dirs", []) if isinstance(entry, dict) else []:
                    _remove_if_empty(root, rel)
            if record_path.exists():
                record_path.unlink()
    return changes or ["already up to date"]


def _missing_dirs(root: Path, rel: str) -> list[str]:
    """The directories above ``rel`` that do not exist yet, deepest first (an install
    creates them; uninstall removes them again when they are left empty)."""
    parents = [p for p in Path(rel).parents if p != Path(".")]
    return [p.as_posix() for p in parents if not (root / p).exists()]


def _remove_if_empty(root: Path, rel: Any) -> None:
    if not isinstance(rel, str) or Path(rel).is_absolute() or ".." in Path(rel).parts:
        return
    path = root / rel
    if path.is_dir() and not path.is_symlink():
        with contextlib.suppress(OSError):  # not empty: something else lives there now
            path.rmdir()


def _load_record(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CharterError(f"{path} is not valid JSON ({exc}); not modified") from None
    return data if isinstance(data, dict) else {}


def _untouched(entry: dict[str, Any], current: str | None) -> bool:
    """Is the file still as it was before the first install (one killed before its
    write, or an uninstall killed after restoring it)?"""
    return "original" in entry and entry.get("original") == current


def _restore(entry: dict[str, Any] | None, current: str | None, item: Managed) -> str | None:
    """The text to leave on uninstall (None: no file)."""
    if current is None:
        return None
    if entry is not None and _untouched(entry, current):
        return current
    if entry is not None and "original" in entry and _sha(current) == entry.get("written"):
        original = entry.get("original")
        return original if isinstance(original, str) else None
    stripped = _edit(current, item.strip)
    if _same(stripped, current):
        return current  # nothing of Charter's in it: the user's bytes stay as they are
    return stripped if stripped else None


def _same(stripped: str, current: str) -> bool:
    """Did stripping change nothing but the layout (a file Charter never wrote to, e.g.
    uninstall after an install killed before its first write)?"""
    if stripped == current:
        return True
    try:
        return bool(json.loads(stripped or "{}") == json.loads(current))
    except ValueError:
        return False


def _verb(old: str | None, new: str | None) -> str:
    return "remove" if new is None else ("update" if old is not None else "write")


def _apply(path: Path, old: str | None, new: str | None, root: Path) -> list[str]:
    # named from the project root, as the dry run and Claude Code's installer name them
    name = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    if new == old:
        return []
    if new is None:
        path.unlink()
        return [f"removed {name}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, new)
    return [f"{'updated' if old is not None else 'wrote'} {name}"]


# ------------------------------------------------------------------ JSON settings files


def load_json_object(text: str, rel: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CharterError(f"{rel} is not valid JSON ({exc}); not modified") from None
    if not isinstance(data, dict):
        raise CharterError(f"{rel} must hold a JSON object; not modified")
    return data


def json_indent(like: str | None) -> str | int:
    """The indentation step of the JSON text ``like``: a tab, or its first indented line's
    spaces; two spaces for a new file or one written on one line. A settings file the
    team keeps tab-indented came back indented by two spaces, every line of it a change
    in the diff of the few lines Charter adds."""
    for line in (like or "").splitlines()[1:]:
        lead = line[: len(line) - len(line.lstrip(" \t"))]
        if lead:
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump_json(data: dict[str, Any], like: str = "") -> str:
    """``data`` as a file's text, indented as the text it replaces (:func:`json_indent`)."""
    return json.dumps(data, indent=json_indent(like)) + "\n" if data else ""


def is_charter_command(command: Any) -> bool:
    """An entry Charter installed: its command is ``charter hook …``/``charter agent-hook …``."""
    if not isinstance(command, str):
        return False
    words = command.split()
    return len(words) >= 2 and words[0] == COMMAND and words[1] in ("hook", "agent-hook")


def strip_server(data: dict[str, Any], key: str = "mcpServers") -> None:
    servers = data.get(key)
    if isinstance(servers, dict):
        entry = servers.get("charter")
        if isinstance(entry, dict) and entry.get("command") == COMMAND:
            del servers["charter"]
        if not servers:
            del data[key]


def add_server(data: dict[str, Any], rel: str, key: str = "mcpServers") -> None:
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise CharterError(f"{rel}: {key!r} must be an object; not modified")
    servers["charter"] = {"command": COMMAND, "args": ["mcp"]}


def append_hook(hooks: dict[str, Any], event: str, entry: Any, rel: str) -> None:
    """Add ``entry`` to ``hooks[event]``; an event that is not a list is the user's
    mistake to see, never overwritten."""
    entries = hooks.setdefault(event, [])
    if not isinstance(entries, list):
        raise CharterError(f"{rel}: 'hooks.{event}' must be a list; not modified")
    entries.append(entry)


def strip_hook_groups(
    data: dict[str, Any], is_charter: Callable[[Any], bool] | None = None
) -> None:
    """Remove Charter's entries from ``data["hooks"]`` (``{event: [entry, ...]}``),
    dropping events and the key when they end up empty, keeping everything else. Entries
    are Claude Code's hook groups (the shape Codex and Gemini share) unless
    ``is_charter`` says how to recognise Charter's own in another agent's shape."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    charter_entry = is_charter or _charter_group
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept = [e for e in entries if not charter_entry(e)]
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]


def _charter_group(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    return bool(group["hooks"]) and all(
        isinstance(h, dict) and is_charter_command(h.get("command")) for h in group["hooks"]
    )
