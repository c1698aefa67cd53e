"""What git knows that the working tree doesn't: commit times and deleted files.

Review mode orders by commit time, applies its time window by it, and searches files
that were deleted in history (``include_deleted``). Every call is one ``git`` process;
outside a repository, or without git, they all return empty results.
"""

from __future__ import annotations

import codecs
import subprocess
from dataclasses import dataclass
from pathlib import Path


def _git(root: Path, *args: str, timeout: float = 30.0) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="replace")


def _path(line: str) -> str:
    """A path as ``git log --name-only`` prints it: one with non-ASCII bytes, a quote, a
    backslash or a control character comes C-quoted (``"docs/\\303\\251t\\303\\251.md"``)."""
    if len(line) > 1 and line.startswith('"') and line.endswith('"'):
        raw = codecs.escape_decode(line[1:-1].encode("utf-8"))[0]
        return raw.decode("utf-8", errors="replace")  # type: ignore[union-attr]
    return line


def repo_prefix(root: Path) -> str | None:
    """``root`` relative to the repository top ('' at the top), or None outside git."""
    out = _git(root, "rev-parse", "--show-prefix")
    return None if out is None else out.strip()


def head_time(root: Path) -> int | None:
    """Committer time (unix seconds) of ``HEAD``; None outside git or before a commit."""
    out = _git(root, "log", "-1", "--format=%ct", "HEAD")
    try:
        return int(out.strip()) if out and out.strip() else None
    except ValueError:
        return None


def commit_times(root: Path, paths: list[str] | None = None) -> dict[str, int]:
    """Last commit time (unix seconds) of every path under ``root``, relative to ``root``
    (only of ``paths`` when given: a few files need not walk the whole history's names)."""
    prefix = repo_prefix(root)
    if prefix is None:
        return {}
    # a long list goes as the whole tree rather than past the command line's limit
    where = paths if paths is not None and len(paths) <= 500 else ["."]
    out = _git(root, "log", "--format=%x00%ct", "--name-only", "--relative", "--", *where)
    times: dict[str, int] = {}
    current = 0
    for line in (out or "").splitlines():
        if line.startswith("\x00"):
            current = int(line[1:] or 0)
        elif line.strip():
            times.setdefault(_path(line.strip()), current)
    return times


@dataclass(frozen=True)
class DeletedFile:
    path: str  # relative to the project root
    commit: str  # the commit that deleted it
    time: int  # commit time of the deletion


def deleted_files(root: Path, limit: int = 200) -> list[DeletedFile]:
    """Files deleted in history that are not in the working tree, newest deletion first."""
    if repo_prefix(root) is None:
        return []
    out = _git(
        root,
        "log",
        "--diff-filter=D",
        "--format=%x00%H %ct",
        "--name-only",
        "--relative",
        "--",
        ".",
    )
    found: dict[str, DeletedFile] = {}
    commit, when = "", 0
    for line in (out or "").splitlines():
        if line.startswith("\x00"):
            sha, _, stamp = line[1:].partition(" ")
            commit, when = sha, int(stamp or 0)
        elif line.strip() and _path(line.strip()) not in found:
            path = _path(line.strip())
            if not (root / path).exists():
                found[path] = DeletedFile(path, commit, when)
        if len(found) >= limit:
            break
    return list(found.values())


def show_before(root: Path, commit: str, path: str, max_bytes: int | None = None) -> str | None:
    """The content of ``path`` just before ``commit`` deleted it; None when it cannot be
    read or is over ``max_bytes`` (its size is asked first: a deleted dump of gigabytes
    must not be loaded to be skipped, as a file in the tree is not)."""
    prefix = repo_prefix(root) or ""
    blob = f"{commit}^:{prefix}{path}"
    if max_bytes is not None:
        size = _git(root, "cat-file", "-s", blob)
        if size is None or not size.strip().isdigit() or int(size) > max_bytes:
            return None
    return _git(root, "show", blob)
