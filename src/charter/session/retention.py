"""Retention: the session stores that grow with every session, cut back (``session prune``).

Five stores only ever grew: the journal (``.charter/session.db``), each track's checkpoint
history, the transient folders (one per session), the inject-once store
(``.charter/injected.db``) and the guardrails audit log; Gemini CLI retry markers too.
:func:`prune` keeps what ``session.retention`` says and, whatever it says, everything a
restore still reads: the session starting now, each track's checkpoint and the session it
names, the newest plan, decisions and risks not yet compacted.

Crash safety is each store's own: the journal and the inject-once store prune in one
IMMEDIATE transaction; checkpoint history files go oldest first under the session lock (a
kill leaves a shorter history, never a gap before ``latest.json``); a transient folder is
renamed aside before it is deleted (a kill leaves a ``.pruned-*`` folder the next prune
removes); the audit log is compacted into a new file renamed over it
(:func:`charter.fileio.compact_log`). Parallel hooks wait for the lock or transaction and
then write as usual.

:func:`auto_prune` runs it from SessionStart at most once a day (one ``stat`` otherwise),
never from a tool call.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charter.fileio import compact_log, fault_point
from charter.session.service import Session, session_key

#: Transient folders touched this recently are kept whatever the journal says (a session
#: whose first event is being written while the prune runs).
RECENT_SECONDS = 86400.0
#: How often SessionStart prunes at most.
AUTO_INTERVAL = 86400.0
_PRUNED = ".pruned-"


@dataclass
class PruneReport:
    dry_run: bool
    journal_events: int = 0
    journal_sessions: dict[str, int] = field(default_factory=dict)
    checkpoints: list[str] = field(default_factory=list)
    session_dirs: list[str] = field(default_factory=list)
    injected_conversations: int = 0
    injected_entries: int = 0
    audit_entries: int = 0
    retry_markers: int = 0
    vacuumed: dict[str, tuple[int, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "journal": {"events": self.journal_events, "sessions": self.journal_sessions},
            "checkpoints": self.checkpoints,
            "session_dirs": self.session_dirs,
            "injected": {
                "conversations": self.injected_conversations,
                "entries": self.injected_entries,
            },
            "audit_entries": self.audit_entries,
            "retry_markers": self.retry_markers,
            "vacuumed": {
                name: {"before": before, "after": after}
                for name, (before, after) in self.vacuumed.items()
            },
            "notes": self.notes,
        }

    @property
    def removed(self) -> bool:
        return bool(
            self.journal_events
            or self.checkpoints
            or self.session_dirs
            or self.injected_entries
            or self.injected_conversations
            or self.audit_entries
            or self.retry_markers
        )


def prune(
    session: Session, *, keep_session: str = "", dry_run: bool = False, vacuum: bool = False
) -> PruneReport:
    """Prune every growing session store by ``session.retention``; ``keep_session``: a
    session id kept whatever its age (the one starting now). ``vacuum``: then give the
    SQLite files' free pages back to the disk (only on request: a VACUUM rewrites the
    whole file while hooks wait; without it SQLite reuses the pages and the file stops
    growing)."""
    from charter.rules.injected import prune as prune_injected
    from charter.session.compaction import load_checkpoint

    settings = session.settings.retention
    report = PruneReport(dry_run)
    keep = session_key(keep_session) if keep_session else ""
    with session.lock():  # compaction and transient writers hold it: none runs meanwhile

        def compacted(track: str) -> tuple[int, str]:
            checkpoint = load_checkpoint(session, track) or {}
            return int(checkpoint.get("journal_seq") or 0), str(checkpoint.get("session_id") or "")

        journal = session.journal.prune(
            settings.keep_sessions,
            compacted,
            keep=frozenset({keep} - {""}),
            dry_run=dry_run,
        )
        report.journal_events, report.journal_sessions = journal.events, journal.sessions
        report.checkpoints = _prune_checkpoints(session, settings.keep_checkpoints, dry_run)
        named = {compacted(track)[1] for track in _checkpoint_tracks(session)}
        kept = set(journal.kept) | named | {keep}
        report.session_dirs = _prune_session_dirs(session, kept - {""}, dry_run)
    state = session.project.state_dir
    # the inject-once store keys conversations by the raw session id
    injected = prune_injected(state, settings.injected_days, keep=keep_session, dry_run=dry_run)
    report.injected_conversations, report.injected_entries = injected
    audit = session.root / session.settings.guardrails.audit_log
    if _inside(session, audit) and audit.is_file() and not audit.is_symlink():
        report.audit_entries = compact_log(audit, settings.audit_max_entries, dry_run=dry_run)
    report.retry_markers = _prune_retry_markers(state, dry_run)
    if vacuum and not dry_run:
        for path in (state / "session.db", state / "injected.db"):
            if path.is_file():
                report.vacuumed[path.name] = _vacuum(path)
    return report


def _vacuum(path: Path) -> tuple[int, int]:
    """(bytes before, bytes after) of a VACUUM of ``path`` (SQLite journals it: a kill
    leaves the old file; writers wait for it on the busy timeout)."""
    from charter.store.db import connect

    before = _db_bytes(path)
    conn = connect(path)
    try:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return before, _db_bytes(path)


def _db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def _inside(session: Session, path: Path) -> bool:
    """A configured path that leads outside the project is never pruned (nor read)."""
    return path.resolve().is_relative_to(session.root.resolve())


def _checkpoint_tracks(session: Session) -> list[str]:
    base = session.root / session.settings.checkpoints_dir
    if not base.is_dir() or not _inside(session, base):
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.is_symlink())


def _prune_checkpoints(session: Session, keep: int, dry_run: bool) -> list[str]:
    """History files beyond the newest ``keep`` per track, oldest first; ``latest.json``
    (the commit point recovery reads) is never touched."""
    removed: list[str] = []
    base = session.root / session.settings.checkpoints_dir
    for track in _checkpoint_tracks(session):
        history = base / track / "history"
        if not history.is_dir():
            continue
        files = sorted(p for p in history.glob("*.json") if p.is_file() and p.stem.isdigit())
        for path in files[: max(0, len(files) - keep)]:
            removed.append(session.project.rel(path))
            if not dry_run:
                path.unlink()
                fault_point("session.prune.checkpoint")
    return removed


def _prune_session_dirs(session: Session, kept: set[str], dry_run: bool) -> list[str]:
    """Transient folders of sessions the journal no longer keeps; each is renamed aside
    (atomic) and then deleted, so a kill never leaves a half-deleted session folder under
    its own name."""
    base = session.root / session.settings.sessions_dir
    if not base.is_dir() or base.is_symlink() or not _inside(session, base):
        return []
    removed: list[str] = []
    now = time.time()
    for path in sorted(base.iterdir()):
        if path.name.startswith(_PRUNED):  # a prune killed between rename and delete
            if not dry_run:
                shutil.rmtree(path, ignore_errors=True)
            continue
        if path.is_symlink() or not path.is_dir() or path.name.startswith("."):
            continue
        if path.name in kept:
            continue
        try:
            if now - _newest_mtime(path) < RECENT_SECONDS:
                continue
        except OSError:
            continue
        removed.append(session.project.rel(path))
        if dry_run:
            continue
        aside = base / f"{_PRUNED}{path.name}"
        os.replace(path, aside)
        fault_point("session.prune.dir")
        shutil.rmtree(aside, ignore_errors=True)
    return removed


def _newest_mtime(path: Path) -> float:
    newest = path.stat().st_mtime
    for child in path.iterdir():
        with contextlib.suppress(OSError):
            newest = max(newest, child.lstat().st_mtime)
    return newest


def _prune_retry_markers(state_dir: Path, dry_run: bool) -> int:
    """Gemini CLI retry markers (``agent_hooks``) a day old: their retry never came."""
    base = state_dir / "agent-hooks"
    if not base.is_dir():
        return 0
    count = 0
    now = time.time()
    for marker in base.glob("gemini-retry-*"):
        try:
            old = now - marker.lstat().st_mtime > RECENT_SECONDS
        except OSError:
            continue
        if old:
            count += 1
            if not dry_run:
                with contextlib.suppress(OSError):
                    marker.unlink()
    return count


def _stamp(session: Session) -> Path:
    return session.project.state_dir / "session" / "pruned"


def auto_prune(session: Session, session_id: str) -> PruneReport | None:
    """:func:`prune` at most once per :data:`AUTO_INTERVAL` (SessionStart); None when it
    is not due or ``session.retention.auto_prune`` is off. The stamp is written first, so
    a prune that fails is not retried by every session start of the day."""
    if not session.settings.retention.auto_prune:
        return None
    stamp = _stamp(session)
    try:
        if time.time() - stamp.stat().st_mtime < AUTO_INTERVAL:
            return None
    except FileNotFoundError:
        pass
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    return prune(session, keep_session=session_id)
