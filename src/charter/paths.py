"""Where a project's root is, using only the standard library (hooks import this fast)."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

CONFIG_FILE = "charter.toml"
STATE_DIR = ".charter"


def find_root(start: Path) -> Path:
    """The nearest ancestor with charter.toml, a [tool.charter] pyproject, or .git
    (``start`` itself when there is none)."""
    return find_project(start) or start.resolve()


def find_project(start: Path) -> Path | None:
    """The nearest ancestor with charter.toml, a [tool.charter] pyproject, or .git; None
    when ``start`` is in no project."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / CONFIG_FILE).is_file():
            return candidate
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                if "[tool.charter" in pyproject.read_text(errors="replace"):
                    return candidate
            except OSError:
                pass
        if (candidate / ".git").exists():
            return candidate
    return None


def shared_dir(path: Path | str) -> bool:
    """Whether ``path`` is a directory that holds many projects and is never one itself:
    the filesystem root, the home directory or one of its ancestors (``/home``), the
    temporary directory. Claude Code names the directory it was started in as
    ``$CLAUDE_PROJECT_DIR``, Cursor the folder it opened: taken as a project, $HOME would
    have every rule file under it compiled and Charter's state written there. The fast
    path computes the same (:func:`charter.integrations.claude_code.fastpath.shared_dir`).
    """
    where = os.path.realpath(path)
    home = os.path.realpath(os.path.expanduser("~"))
    if where == os.path.dirname(where) or where == os.path.realpath(temp_root()):
        return True
    return home == where or home.startswith(where.rstrip(os.sep) + os.sep)


def named_root(named: Path | str) -> Path | None:
    """The project of a directory the agent names (``$CLAUDE_PROJECT_DIR``): the nearest
    ancestor with charter.toml, a [tool.charter] pyproject or .git, else the directory
    itself, unless it is a :func:`shared_dir` (None: then it names no project)."""
    found = find_project(Path(named))
    if found is not None:
        return found
    return None if shared_dir(named) else Path(named).resolve()


class UnsafeRuntimeDir(OSError):
    """The warm worker's runtime directory is not safe to use (the message says why)."""


def runtime_base() -> Path:
    """Where the warm worker's socket, lock and token live.

    ``$XDG_RUNTIME_DIR/charter`` when ``$XDG_RUNTIME_DIR`` is set and safe (a real
    directory owned by this user, mode 0700, as the XDG spec promises); otherwise
    ``$TMPDIR/charter-<uid>``. In a shared ``/tmp`` another user can create that name
    first, so the directory is verified before every use (:func:`runtime_dir`).
    """
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg and os.path.isabs(xdg) and _dir_problem(Path(xdg)) is None:
        return Path(xdg) / "charter"
    return Path(temp_root()) / f"charter-{os.getuid()}"


def temp_root() -> str:
    """``$TMPDIR`` (or ``$TEMP``, ``$TMP``) when it names a directory, else ``/tmp``.

    The hook's fast path (:mod:`charter.integrations.claude_code.fastpath`) computes the
    same without importing anything; a test holds the two to each other.
    """
    for name in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(name, "")
        if value and os.path.isdir(value):
            return value
    return "/tmp"


def _dir_problem(path: Path) -> str | None:
    """Why ``path`` is no safe private directory (None when it is one). Never follows a
    symlink: ``lstat`` sees the link itself."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be inspected ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if info.st_uid != os.getuid():
        return f"is owned by uid {info.st_uid}, not by this user (uid {os.getuid()})"
    if stat.S_IMODE(info.st_mode) & 0o077:
        return f"has mode {stat.S_IMODE(info.st_mode):04o}, not 0700"
    return None


def runtime_dir(*, create: bool = False) -> Path:
    """The verified runtime directory (created 0700 when ``create``).

    Raises :class:`UnsafeRuntimeDir` when it is missing, a symlink, not a directory, owned
    by another user or open to others: then the worker must not be used at all (a
    directory another user controls would receive the prompt and could answer it).
    """
    base = runtime_base()
    if create:
        try:
            os.mkdir(base, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise UnsafeRuntimeDir(f"cannot create {base}: {exc.strerror}") from None
    problem = _dir_problem(base)
    if problem is None:
        return base
    raise UnsafeRuntimeDir(f"warm worker directory {base} {problem}; not used")


def worker_socket(root: Path) -> Path:
    """A short per-user socket path for the project's warm worker (AF_UNIX paths are short).

    The path depends on Charter's version, so after an upgrade hooks never talk to a
    worker still running the old code; that one idles out on its own. Only a path:
    use it after :func:`runtime_dir` verified its directory.
    """
    from charter import __version__

    key = f"{root.resolve()}\0{__version__}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return runtime_base() / f"{digest}.sock"


#: The skip reason of a file or folder whose name holds bytes that are not UTF-8.
NOT_UTF8_NAME = "its name is not UTF-8 (rename it)"


def utf8_name(name: str) -> bool:
    """Whether a name read from the disk is UTF-8: Python keeps other bytes (a Latin-1
    ``café.md`` from an old archive) as lone surrogates, which no UTF-8 output, JSON or
    SQLite text can hold, so one such file stopped `charter index` and `graph build`
    with a UnicodeEncodeError naming no file."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(rel: str) -> str:
    """``rel`` printable, its bytes that are not UTF-8 written ``\\xe9``."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
