"""Crash-safe file writes: nothing already stored is lost if a write is interrupted.

Every write of a state file goes to a temporary sibling and is renamed over the target,
so a reader sees either the old or the new content, never half of each. Append-only logs
take an exclusive ``flock`` so parallel writers cannot interleave lines.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from charter.errors import CharterError

#: Files larger than this are refused as rule sources or documents (binary dumps, logs).
MAX_TEXT_BYTES = 5 * 1024 * 1024


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via temp file + fsync + rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and fixed separators: the form that is hashed and stored."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, canonical_json(obj))


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path + '.lock'`` for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(path.name + ".lock")
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def append_line(path: Path, line: str) -> None:
    """Append one line to an append-only log under an exclusive lock, then fsync.

    The log itself must not be a symlink (the append would land wherever it points).
    """
    if not line.endswith("\n"):
        line += "\n"
    from charter.boundary import open_append

    with locked(path):
        fd = open_append(path)  # O_NOFOLLOW: a planted symlink is refused, not followed
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())


def read_text(
    path: Path, *, what: str = "file", max_bytes: int = MAX_TEXT_BYTES, hint: str = ""
) -> str:
    """Read a UTF-8 text file or raise a one-line :class:`CharterError`.

    Binary files (NUL bytes or invalid UTF-8), oversized files, missing paths and
    directories all get a message naming the path, never a traceback. ``hint`` names
    the setting that raises the size cap, so the note says how to include the file.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise CharterError(f"{what} not found: {path}") from None
    except OSError as exc:
        raise CharterError(f"cannot read {what} {path}: {exc.strerror}") from None
    if path.is_dir():
        raise CharterError(f"{what} is a directory, not a file: {path}")
    if size > max_bytes:
        cap = f"{hint} = {max_bytes}" if hint else str(max_bytes)
        raise CharterError(f"{what} too large ({size} bytes > {cap}): {path}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CharterError(f"cannot read {what} {path}: {exc.strerror}") from None
    if b"\x00" in data[:8192]:
        raise CharterError(f"{what} is binary, not text: {path}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CharterError(f"{what} is not valid UTF-8 text: {path}") from None
    return text.removeprefix("\ufeff")


def iter_jsonl(
    path: Path,
    *,
    what: str = "JSONL file",
    max_bytes: int = MAX_TEXT_BYTES,
    text: str | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line number, object) for each non-blank line; a bad line is a one-line error.

    Pass ``text`` when the caller has already read the file (e.g. to hash it).
    """
    if text is None:
        text = read_text(path, what=what, max_bytes=max_bytes)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CharterError(f"{path}:{number}: invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise CharterError(f"{path}:{number}: JSON nested too deeply to parse") from None
        if not isinstance(obj, dict):
            raise CharterError(f"{path}:{number}: expected a JSON object")
        yield number, obj
