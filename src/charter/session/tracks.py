"""Tracks: one folder of task-tier files per line of work, one of them active.

Zero setup: with no ``ACTIVE_TRACK`` pointer, the first event creates a track named
after the git branch (``main`` outside git) and points at it, so a user who never heard
of tracks still gets their plan back after compaction.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from charter.boundary import inside_root
from charter.errors import CharterError
from charter.fileio import locked, read_text
from charter.session.settings import SessionSettings
from charter.session.writes import write_file

_TRACK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
TASK_FILES = ("SPEC.md", "PLAN.md", "RISKS.md", "DECISIONS.md")


def slug(name: str) -> str:
    """A branch or title as a track id (``feature/Login fix`` → ``feature-login-fix``)."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).strip("-.").lower()
    return text[:80] or "main"


def git_branch(root: Path) -> str | None:
    """The checked-out branch, read from ``.git/HEAD`` (no subprocess on the hot path)."""
    head = root / ".git" / "HEAD"
    try:
        text = head.read_text(encoding="utf-8").strip()
    except OSError:
        if (root / ".git").is_file():  # a worktree: ask git
            try:
                out = subprocess.run(
                    ["git", "-C", str(root), "symbolic-ref", "--short", "-q", "HEAD"],
                    capture_output=True,
                    text=True,
                    timeout=5,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired):
                return None
            return out.stdout.strip() or None
        return None
    if text.startswith("ref: refs/heads/"):
        return text.removeprefix("ref: refs/heads/")
    return None


@dataclass
class Tracks:
    """The project's tracks under ``session.tracks_dir``."""

    root: Path
    settings: SessionSettings
    lock: Callable[[], AbstractContextManager[None]] | None = None

    def _locked(self) -> AbstractContextManager[None]:
        if self.lock is not None:
            return self.lock()
        return locked(self.root / ".charter" / "locks" / "session")

    @property
    def dir(self) -> Path:
        return inside(self.root, self.root / self.settings.tracks_dir, "tracks folder")

    @property
    def pointer(self) -> Path:
        return inside(self.root, self.root / self.settings.active_track_file, "track pointer")

    def track_dir(self, track: str) -> Path:
        check_id(track)
        return inside(self.root, self.dir / track, "track folder")

    def list(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.name for p in self.dir.iterdir() if p.is_dir() and _TRACK_ID.match(p.name))

    def active(self) -> str | None:
        """The active track id, or None when no pointer exists yet."""
        if not self.pointer.exists():
            return None
        text = read_text(
            self.pointer, what="active track pointer", max_bytes=4096, regular_only=True
        ).strip()
        if not _TRACK_ID.match(text):
            raise CharterError(f"{self.pointer}: not a track id: {text[:40]!r}")
        return text

    def current(self) -> str:
        """The active track, or the one :meth:`ensure_active` would create: nothing is
        written."""
        return self.active() or slug(git_branch(self.root) or "main")

    def ensure_active(self) -> tuple[str, bool]:
        """The active track, creating one named after the git branch when there is none.

        Returns (track id, created).
        """
        current = self.active()
        if current is not None:
            if not self.track_dir(current).is_dir():
                self.track_dir(current).mkdir(parents=True, exist_ok=True)
            return current, False
        with self._locked():
            current = self.active()  # another hook may have won the race
            if current is not None:
                return current, False
            track = slug(git_branch(self.root) or "main")
            self.track_dir(track).mkdir(parents=True, exist_ok=True)
            write_file(self.pointer, track + "\n", "track.create")
            return track, True

    def new(self, track: str, *, activate: bool = True) -> Path:
        check_id(track)
        path = self.track_dir(track)
        # An empty folder is a ``track new`` killed before its switch: finish it; one the
        # pointer already names is a track that has no files yet.
        if path.exists() and (not path.is_dir() or any(path.iterdir()) or self.active() == track):
            raise CharterError(f"track {track} already exists: {path}")
        path.mkdir(parents=True, exist_ok=True)
        if activate:
            self.switch(track)
        return path

    def switch(self, track: str) -> None:
        """Point ACTIVE_TRACK at ``track`` (one atomic rename: readers see old or new)."""
        if not self.track_dir(track).is_dir():
            raise CharterError(f"no track {track} (tracks: {', '.join(self.list()) or 'none'})")
        with self._locked():
            write_file(self.pointer, track + "\n", "track.switch")


def inside(root: Path, path: Path, what: str) -> Path:
    """``path`` as given, if it resolves inside the project; else :class:`BoundaryError`.

    A session file is read into the agent's context and written back: a committed
    ``docs/tracks -> /elsewhere`` (or a ``PLAN.md`` linked out) made Charter inject a
    file from outside the project at SessionStart and write its pointer and plan there.
    """
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    inside_root(root, path, what=f"{what} {shown.as_posix()}")
    return path


def check_id(track: str) -> str:
    if not _TRACK_ID.match(track):
        raise CharterError(
            f"not a track id: {track!r} (letters, digits, '.', '_', '-'; at most 80 characters)"
        )
    return track
