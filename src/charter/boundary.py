"""The project boundary: what Charter reads into an agent's context or writes stays inside.

A repository is not trusted input. A cloned repo can hold a symlink
(``.claude/rules/x.md -> ~/.ssh/id_rsa``), a CLAUDE.md can import ``@/etc/passwd``, a
config can say ``rules.sources = ["../other/*.md"]`` or point the actions log at an
absolute path. Each would put a file from outside the project into the agent's context
or make Charter write outside the project. So every such path goes through one check:
resolve it (symlinks included) and require the result to be inside the project root —
or inside a user-level location the user's own agent reads anyway (Claude Code's
``~/.claude/``: ``~/.claude/CLAUDE.md``, ``~/.claude/rules/``) where that is allowed.

Writers additionally refuse a symlink as the file itself (``lstat``, ``O_NOFOLLOW``):
a planted ``logs/context_actions.csv -> /elsewhere`` must not redirect an append.
"""

from __future__ import annotations

import os
from pathlib import Path

from charter.errors import CharterError


class BoundaryError(CharterError):
    """A path that resolves outside the project (or is a symlink where none is allowed)."""


def user_dirs() -> list[Path]:
    """User-level locations the user's agent loads on its own (Claude Code's ``~/.claude``).

    Resolved, so a ``~/.claude`` that is itself a symlink is judged by where it points.
    """
    try:
        return [(Path.home() / ".claude").resolve()]
    except (RuntimeError, OSError):  # no home directory
        return []


def is_within(path: Path, base: Path) -> bool:
    """True if ``path`` (already resolved) is ``base`` (already resolved) or below it."""
    return path == base or base in path.parents


def inside_root(root: Path, path: Path, *, what: str, allow_user: bool = False) -> Path:
    """``path`` resolved (symlinks followed) if it stays inside ``root``; else refuse.

    ``allow_user`` also admits :func:`user_dirs` (for rule imports a user wrote on
    purpose, e.g. ``@~/.claude/my-style.md``). Raises :class:`BoundaryError` starting
    with ``what`` (which names the import, setting or file), so the note says which.
    """
    base = root.resolve()
    try:
        resolved = (path if path.is_absolute() else base / path).resolve()
    except (OSError, RuntimeError) as exc:  # symlink loop
        raise BoundaryError(f"{what}: cannot resolve ({exc}); refused") from None
    if is_within(resolved, base):
        return resolved
    if allow_user and any(is_within(resolved, d) for d in user_dirs()):
        return resolved
    if resolved == path:
        raise BoundaryError(f"{what} is outside the project {base}; refused")
    raise BoundaryError(f"{what} resolves to {resolved}, outside the project {base}; refused")


def writable(root: Path, path: Path, *, what: str) -> Path:
    """The path to write ``path`` at, if that stays inside ``root`` and is not a symlink.

    The parent directory is resolved (a symlinked ``logs/`` pointing out is refused) and
    the file itself must not be a symlink (it would redirect the write). Returns the path
    with its parent resolved; the file need not exist yet.
    """
    base = root.resolve()
    target = path if path.is_absolute() else base / path
    parent = inside_root(base, target.parent, what=f"{what} {path}: its directory")
    final = parent / target.name
    if not is_within(final, base) or final == base:
        raise BoundaryError(f"{what} {path} is outside the project {base}; refused")
    if final.is_symlink():
        raise BoundaryError(f"{what} {path} is a symlink; refusing to write through it")
    if final.exists() and not final.is_file():
        # a folder, FIFO or device by that name: reading a FIFO, or opening it to write,
        # waits for a peer that never comes
        raise CharterError(f"{what} {path} is not a regular file; refusing to read or write it")
    return final


def open_append(path: Path) -> int:
    """An O_APPEND descriptor for ``path`` that never follows a symlink at the last step.

    ``open(path, "a")`` writes wherever a planted symlink points; ``O_NOFOLLOW`` makes
    that an error instead, reported as :class:`BoundaryError`.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        return os.open(path, flags, 0o666)
    except OSError as exc:
        if path.is_symlink():
            raise BoundaryError(f"{path} is a symlink; refusing to write through it") from None
        raise CharterError(f"cannot write {path}: {exc.strerror}") from None


def check_state_dir(root: Path, state_dir: Path) -> None:
    """Refuse a state directory (``.charter``) that leads outside the project.

    ``.charter`` holds the decisions history, compiled rules and the index; a symlink
    there (the directory itself or anything below it, e.g. a planted
    ``.charter/decisions/history.jsonl -> ~/elsewhere``) would make Charter read state
    from, and write state to, a place outside the project. Symlinks that stay inside
    are fine. The walk is small (Charter's own few files) and done once per project.
    """
    if not state_dir.is_symlink() and not state_dir.exists():
        return
    base = root.resolve()
    rel = state_dir.relative_to(root) if state_dir.is_relative_to(root) else state_dir
    inside_root(base, state_dir, what=f"state directory {rel}")
    if not state_dir.is_dir():
        # a file (or a FIFO) named .charter was "FileExistsError: [Errno 17] File exists"
        # from whichever store first made a folder in it
        raise CharterError(
            f"{rel} is not a folder: Charter keeps its state there; move the file away"
        )
    for dirpath, dirnames, filenames in os.walk(state_dir):
        for name in (*dirnames, *filenames):
            entry = Path(dirpath) / name
            if entry.is_symlink():
                shown = entry.relative_to(root) if entry.is_relative_to(root) else entry
                inside_root(base, entry, what=f"state file {shown}")
