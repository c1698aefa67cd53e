"""One exception type that front doors turn into a single stderr line and exit code."""

from __future__ import annotations


class CharterError(Exception):
    """A problem the user can fix: bad input, bad path, bad config.

    Front doors print ``str(error)`` on one line and exit non-zero; they never show a
    traceback for these.
    """

    exit_code = 2


class TamperError(CharterError):
    """Stored state was changed outside Charter (e.g. a decisions file edited by hand)."""

    exit_code = 3


def describe(exc: BaseException) -> str:
    """One line for an error no front door expected: ``Type: message``.

    A file-system error says which path stands in the way: with a file named ``docs``
    where Charter makes ``docs/tracks/``, the line was "NotADirectoryError: [Errno 20]
    Not a directory: '…/docs/tracks/master'", naming a path that does not exist and not
    the file to move.
    """
    import os

    name = getattr(exc, "filename", None)
    if not isinstance(exc, OSError) or not isinstance(name, str | bytes | os.PathLike):
        return f"{type(exc).__name__}: {exc}"  # no path, or a descriptor number
    if not name:
        return f"{type(exc).__name__}: {exc}"
    import errno
    from pathlib import Path

    path = Path(os.fsdecode(name))
    if exc.errno == errno.ENOTDIR:
        for parent in reversed(path.parents):
            if parent.exists() and not parent.is_dir():
                return f"cannot use {path}: {parent} is a file where a folder is needed; move it"
    if exc.errno == errno.EEXIST and (path.is_symlink() or path.exists()) and not path.is_dir():
        return f"cannot make the folder {path}: a file of that name is in the way; move it"
    if exc.errno == errno.EISDIR:
        return f"cannot use {path}: it is a folder where a file is needed; move it"
    return f"{path}: {exc.strerror or exc}"
