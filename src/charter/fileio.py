"""Crash-safe file writes: nothing already stored is lost if a write is interrupted.

The one write discipline for every piece of state Charter keeps (a new store uses these
functions rather than inventing its own):

- **Single file**: :func:`atomic_write_bytes` (temp sibling + fsync + rename, then the
  directory is fsynced), so a reader sees the old or the new content, never half.
- **Read-modify-write**: :func:`locked_update` / :func:`locked_update_json` read, change
  and write entirely under one exclusive lock, so parallel writers never lose an update.
- **Multi-file state**: :func:`commit_files` writes the data files, then ONE manifest
  naming them with their SHA-256 (the commit point); :func:`read_committed` verifies the
  hashes under a shared lock and reports an interrupted commit as :class:`TornState`.
- **Append-only logs**: :func:`append_line` appends one line in one write under an
  exclusive lock; a torn last line left by a kill is isolated on its own line.
- **SQLite**: every data change and its generation/fingerprint bump share one
  transaction (see ``charter.search.store``).

Locks are ``flock`` on ``NAME.lock`` opened without following symlinks. The crash-safety
tests kill processes at each step through :func:`fault_point` (``$CHARTER_FAULT``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
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
        fault_point(f"atomic.{path.name}")  # the temp file is whole, not yet renamed in
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _fsync_dir(directory: Path) -> None:
    """Make a rename durable (power loss, not only kill -9); best effort."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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
def locked(path: Path, *, shared: bool = False, required: bool = True) -> Iterator[None]:
    """Hold an advisory lock on ``path + '.lock'`` for the block (exclusive by default).

    The lock file is opened with ``O_NOFOLLOW`` and mode 0600: a symlink planted in its
    place is refused (one-line :class:`CharterError`), never followed and truncated.
    ``shared=True`` takes a reader's lock, so a reader of multi-file state waits for a
    writer's commit instead of reading half of it. ``required=False`` (readers) goes on
    without the lock when the directory is read-only.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(path.name + ".lock")
    fd = _open_lock(lock_path, required)
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _open_lock(lock_path: Path, required: bool) -> int | None:
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(lock_path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CharterError(f"refusing to follow a symlink for lock file {lock_path}") from None
        if not required and exc.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
            return None
        raise CharterError(f"cannot open lock file {lock_path}: {exc.strerror}") from None


def append_line(path: Path, line: str, *, fault: str = "append") -> None:
    """Append one line to an append-only log under an exclusive lock, then fsync.

    The line goes out in one ``write`` on an ``O_APPEND`` descriptor. If a killed writer
    left a torn last line (no trailing newline), the new line starts on a line of its own
    so the torn one stays the only damage and readers can skip it.
    """
    if not line.endswith("\n"):
        line += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with append_locked(path) as fd:
        size = os.fstat(fd).st_size
        if size and _last_byte(path) != b"\n":
            line = "\n" + line
        write_all(fd, line.encode("utf-8"), fault)
        os.fsync(fd)


@contextlib.contextmanager
def append_locked(path: Path) -> Iterator[int]:
    """An ``O_APPEND`` descriptor of ``path`` held under an exclusive lock on the log itself.

    An append-only log is never replaced, so its own inode is the lock: no ``.lock`` file
    beside it, which would show up in ``git status`` wherever a log lives in the user's
    tree (``logs/``, ``artifacts/``). ``O_NOFOLLOW``: a planted symlink is refused.
    """
    from charter.boundary import open_append

    while True:
        fd = open_append(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _same_file(fd, path):
                break
        except BaseException:
            os.close(fd)
            raise
        # compacted meanwhile (:func:`compact_log`): the old inode is no longer the log
        os.close(fd)
    try:
        yield fd
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


def compact_log(path: Path, keep_lines: int, *, dry_run: bool = False) -> int:
    """Keep the newest ``keep_lines`` lines of an append-only log; returns how many went.

    The log is never rewritten in place: the kept lines go to a new file (temp, fsync)
    that is renamed over the log while its lock is held, so a kill at any step leaves the
    old file or the new one, whole. A writer that was waiting for the lock finds the
    path now names another inode and appends to the new file (:func:`append_locked`):
    no line is lost."""
    if not path.exists():
        return 0
    with append_locked(path) as fd, open(path, "rb") as handle:
        size = os.fstat(fd).st_size
        lines, torn = _count_lines(handle, size)
        gone = max(0, lines - keep_lines)
        directory = path.parent
        if not dry_run:  # a compaction killed before its rename left one; only a
            for stale in directory.glob(f".{path.name}.*.tmp"):  # compaction makes them
                with contextlib.suppress(OSError):
                    stale.unlink()
        if not gone or dry_run:
            return gone
        start = _line_offset(handle, gone)
        tmp_fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(tmp_fd, "wb") as out:
                handle.seek(start)
                left = size - start
                while left > 0:  # streamed: memory stays one block however long the log
                    block = handle.read(min(_BLOCK, left))
                    if not block:
                        break
                    out.write(block)
                    left -= len(block)
                if torn:
                    out.write(b"\n")  # a line torn by a killed writer stays on its own
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, os.fstat(fd).st_mode & 0o777)
            fault_point(f"compact.{path.name}")  # the new log is whole, not yet renamed in
            os.replace(tmp, path)
            _fsync_dir(directory)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        fault_point(f"compact.{path.name}.done")
        return gone


_BLOCK = 1 << 20


def _count_lines(handle: Any, size: int) -> tuple[int, bool]:
    """(lines in the first ``size`` bytes, whether the last one lacks its newline)."""
    handle.seek(0)
    count, left, last = 0, size, b"\n"
    while left > 0:
        block = handle.read(min(_BLOCK, left))
        if not block:
            break
        count += block.count(b"\n")
        left -= len(block)
        last = block[-1:]
    torn = last != b"\n"
    return count + int(torn), torn


def _line_offset(handle: Any, line: int) -> int:
    """The byte offset where 0-based line ``line`` starts."""
    handle.seek(0)
    offset, seen = 0, 0
    while True:
        block = handle.read(_BLOCK)
        if not block:
            return offset
        found = block.count(b"\n")
        if seen + found < line:
            seen += found
            offset += len(block)
            continue
        at = -1
        for _ in range(line - seen):
            at = block.index(b"\n", at + 1)
        return offset + at + 1


def _last_byte(path: Path) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1)


def write_all(fd: int, data: bytes, fault: str = "") -> None:
    """``os.write`` until ``data`` is out; ``fault`` names the torn-write seam (tests)."""
    if fault and fault_armed(f"{fault}.torn"):
        os.write(fd, data[: max(1, len(data) // 2)])
        fault_point(f"{fault}.torn")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# -- one write discipline ---------------------------------------------------------------


def locked_update(
    path: Path,
    fn: Callable[[str | None], str | None],
    *,
    what: str = "state file",
    max_bytes: int = MAX_TEXT_BYTES,
) -> str | None:
    """Read-modify-write ``path`` entirely under its lock; returns the text now stored.

    ``fn`` gets the current text (None when the file does not exist) and returns the new
    text, or None to leave the file as it is. Because the read happens under the same
    exclusive lock as the write, two parallel updates never lose one another's change
    (the classic lost update of "load, change, then lock and write"). The write itself is
    temp file + fsync + rename, so a kill at any point leaves the old or the new text.
    Use this for every single-file state (JSON settings, handoff objects, session state).
    """
    with locked(path):
        current = read_text(path, what=what, max_bytes=max_bytes) if path.exists() else None
        new = fn(current)
        if new is None or new == current:
            return current
        fault_point("update.write")
        atomic_write_text(path, new)
        return new


def locked_update_json(
    path: Path, fn: Callable[[dict[str, Any]], dict[str, Any] | None], *, what: str = "state file"
) -> dict[str, Any]:
    """:func:`locked_update` for a JSON object file (missing file = ``{}``)."""
    result: dict[str, Any] = {}

    def apply(text: str | None) -> str | None:
        nonlocal result
        current: Any = {}
        if text is not None and text.strip():
            try:
                current = json.loads(text)
            except json.JSONDecodeError as exc:
                raise CharterError(f"invalid JSON in {what} {path}: {exc.msg}") from None
            if not isinstance(current, dict):
                raise CharterError(f"invalid {what} {path}: expected a JSON object")
        new = fn(current)
        result = current if new is None else new
        return None if new is None else canonical_json(new)

    locked_update(path, apply, what=what)
    return result


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def commit_files(manifest: Path, files: dict[str, bytes], meta: dict[str, Any]) -> None:
    """Commit multi-file state atomically: the data files first, ONE manifest last.

    ``files`` maps names (siblings of ``manifest``) to their bytes. Each is written with
    temp + fsync + rename, then the manifest (``meta`` plus ``"files": {name: sha256}``)
    is renamed into place: that rename is the commit point. A kill before it leaves a
    manifest whose hashes no longer match the files, which :func:`read_committed` reports
    as torn (callers rebuild); a kill after it leaves the complete new state. Writers
    hold the manifest's exclusive lock, readers its shared lock, so a live reader never
    sees half of a commit either. Temp files left by killed writers are removed here.
    """
    if "files" in meta:
        raise ValueError("meta must not use the reserved key 'files'")
    with locked(manifest):
        remove_stale_temps(manifest.parent, [*files, manifest.name])
        for name, data in files.items():
            atomic_write_bytes(manifest.parent / name, data)
            fault_point(f"commit.{name}")
        body = {**meta, "files": {name: sha256_bytes(data) for name, data in files.items()}}
        atomic_write_json(manifest, body)
        fault_point("commit.manifest")


class TornState(Exception):
    """A manifest names files whose content does not match (an interrupted commit)."""


def _named_files(manifest: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The manifest and its ``files`` (name → sha256); the caller holds its lock."""
    try:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TornState(f"unreadable manifest {manifest}: {exc}") from None
    named = meta.get("files") if isinstance(meta, dict) else None
    if not isinstance(named, dict):
        raise TornState(f"manifest {manifest} names no files")
    return meta, named


def _verified(manifest: Path, name: str, digest: object) -> bytes:
    try:
        data = (manifest.parent / name).read_bytes()
    except OSError:
        raise TornState(f"{name} named by {manifest} is missing") from None
    if sha256_bytes(data) != digest:
        raise TornState(f"{name} does not match {manifest} (interrupted commit)")
    return data


def read_committed(manifest: Path) -> tuple[dict[str, Any], dict[str, bytes]] | None:
    """The manifest and the files it names, verified; None when nothing was committed.

    Raises :class:`TornState` when a file is missing or its hash differs from the
    manifest's (a commit was interrupted, or a file was edited): the caller rebuilds.
    """
    if not manifest.is_file():
        return None
    with locked(manifest, shared=True, required=False):
        meta, named = _named_files(manifest)
        out = {str(name): _verified(manifest, str(name), d) for name, d in named.items()}
    return meta, out


def read_committed_file(manifest: Path, name: str) -> bytes | None:
    """One file of a committed state, verified against the manifest, without reading
    the others (a hook that needs a small part of a large state). None when nothing was
    committed or the manifest does not name ``name`` (a state written before it existed).

    Raises :class:`TornState` when the file is missing or does not match.
    """
    if not manifest.is_file():
        return None
    with locked(manifest, shared=True, required=False):
        _, named = _named_files(manifest)
        return _verified(manifest, name, named[name]) if name in named else None


def remove_stale_temps(directory: Path, names: list[str]) -> None:
    """Drop ``.NAME.*.tmp`` files of :func:`atomic_write_bytes` left by killed writers.

    Call it only while holding the lock every writer of those names takes: a live
    writer's temp file is then never among them.
    """
    for name in names:
        for tmp in directory.glob(f".{name}.*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()


# -- fault injection (crash-safety tests) -----------------------------------------------

FAULT_ENV = "CHARTER_FAULT"
_fault_hits: dict[str, int] = {}


def fault_armed(step: str) -> bool:
    """Is ``$CHARTER_FAULT`` set to ``step`` (or ``step@N``)? Unset costs one dict lookup."""
    spec = os.environ.get(FAULT_ENV)
    return spec is not None and spec.partition("@")[0] == step


def fault_point(step: str) -> None:
    """The one fault-injection seam: ``CHARTER_FAULT=step`` kills this process here.

    ``CHARTER_FAULT=step@N`` kills at the N-th time the step is reached (for loops such
    as one transaction per indexed document). SIGKILL, like ``kill -9``: no cleanup, no
    ``finally`` blocks, no flushes — exactly what a crash leaves behind.
    """
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    name, _, nth = spec.partition("@")
    if name != step:
        return
    _fault_hits[step] = _fault_hits.get(step, 0) + 1
    if _fault_hits[step] >= (int(nth) if nth.isdigit() else 1):
        os.kill(os.getpid(), signal.SIGKILL)


#: Byte-order marks of UTF-32 and UTF-16 (UTF-32's first: it starts with UTF-16 LE's),
#: each with the codec that reads the text after it.
UTF16_32_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def read_text(
    path: Path,
    *,
    what: str = "file",
    max_bytes: int = MAX_TEXT_BYTES,
    hint: str = "",
    lenient: bool = False,
    name: str = "",
    regular_only: bool = False,
) -> str:
    """Read a UTF-8 text file (or UTF-16/32 with a byte-order mark) or raise a one-line
    :class:`CharterError`.

    Binary files (NUL bytes or invalid UTF-8), oversized files, missing paths and
    directories all get a message naming the path, never a traceback. ``lenient``: text
    with bytes that are not UTF-8 raises :class:`NotUtf8`, which carries the text read
    with those bytes replaced, so the caller can use it and say so. ``hint`` names
    the setting that raises the size cap, so the note says how to include the file.
    ``name`` is how messages name the file (its project-relative path), not ``path``.
    ``regular_only``: refuse a FIFO, socket or device without opening it (a file Charter
    found by walking the project, which nobody is writing to: opening a FIFO would wait
    for a writer forever); a file the user named may be a pipe (``<(git log)``).
    """
    shown = name or str(path)
    try:
        info = path.stat()
        size = info.st_size
    except FileNotFoundError:
        raise CharterError(f"{what} not found: {shown}") from None
    except OSError as exc:
        raise CharterError(f"cannot read {what} {shown}: {exc.strerror}") from None
    if path.is_dir():
        raise CharterError(f"{what} is a directory, not a file: {shown}")
    if regular_only and not stat.S_ISREG(info.st_mode):
        raise CharterError(f"{what} is not a regular file (a FIFO, socket or device): {shown}")
    cap = f"{hint} = {max_bytes}" if hint else str(max_bytes)
    if size > max_bytes:
        raise CharterError(f"{what} too large ({size} bytes > {cap}): {shown}")
    try:
        # at most one byte past the cap: a device or pipe (/dev/zero, /dev/urandom, a
        # process substitution) reports size 0 and never ends, so read_bytes() would
        # grow without bound
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise CharterError(f"cannot read {what} {shown}: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise CharterError(f"{what} too large (over {cap} bytes): {shown}")
    bom = next((c for b, c in UTF16_32_BOMS if data.startswith(b)), None)
    if bom is not None:
        # Windows editors and PowerShell's `>` save text as UTF-16 with a byte-order
        # mark: its NUL bytes are text, not a binary file's
        try:
            text = data.decode(bom).removeprefix("\ufeff")
        except UnicodeDecodeError:
            raise CharterError(f"{what} is not valid {bom.upper()} text: {shown}") from None
        if "\x00" in text[:8192]:
            raise CharterError(f"{what} is binary, not text: {shown}")
        return text
    if b"\x00" in data[:8192]:
        raise CharterError(f"{what} is binary, not text: {shown}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not lenient:
            raise CharterError(f"{what} is not valid UTF-8 text: {shown}") from None
        # one stray Latin-1 byte in a hand-written file must not drop every line of it
        line = data[: exc.start].count(b"\n") + 1
        raise NotUtf8(data.decode("utf-8", errors="replace").removeprefix("\ufeff"), line) from None
    return text.removeprefix("\ufeff")


class NotUtf8(ValueError):
    """A text file with bytes that are not UTF-8 (``lenient`` reads): ``text`` is what it
    reads as with each such byte replaced by U+FFFD, ``line`` the first such line."""

    def __init__(self, text: str, line: int) -> None:
        super().__init__(f"not valid UTF-8 from line {line}")
        self.text = text
        self.line = line


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


def remove_dead_temps(path: Path) -> None:
    """Drop ``.<name>.<pid>.tmp*`` copies of ``path`` whose writer was killed before its
    rename (a live writer's temp file is left alone)."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp*"):
        pid = tmp.name[len(path.name) + 2 :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                tmp.unlink()
        except OSError:
            continue
