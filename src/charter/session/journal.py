"""The session journal: every captured event, in one SQLite file, in arrival order.

Hooks run as separate processes, often several at once (parallel tool calls), so the
journal is SQLite: each capture is one transaction, and a read-modify-write (the task
list rebuilt from ``TaskUpdate`` deltas) runs inside ``BEGIN IMMEDIATE`` so no update is
lost. Compaction reads the events after the last checkpoint; recovery reads the session's
latest plan, files and test runs from here. Nothing is ever updated in place: the journal
is append-only, and its order is the order Claude Code reported events in.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charter.fileio import fault_point
from charter.store.db import connect, migrate, run_script


def _v1(conn: sqlite3.Connection) -> None:
    # IF NOT EXISTS: parallel hooks of a brand-new project can all find the migration
    # unapplied (migrate() serialises them and runs each step in one transaction).
    run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS session_events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            session TEXT NOT NULL,
            track TEXT NOT NULL,
            kind TEXT NOT NULL,
            time TEXT NOT NULL DEFAULT '',
            data TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS session_events_by_session ON session_events (session, kind, seq);
        CREATE INDEX IF NOT EXISTS session_events_by_track ON session_events (track, kind, seq);
        """,
    )


MIGRATIONS = [_v1]


@dataclass(frozen=True)
class Event:
    seq: int
    session: str
    track: str
    kind: str
    time: str
    data: dict[str, Any]


class Journal:
    """One project's session journal (``.charter/session.db``)."""

    def __init__(
        self, path: Path, scrub: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    ) -> None:
        self.path = path
        #: applied to every event before it is stored (secret redaction)
        self.scrub = scrub or (lambda data: data)
        self.conn = connect(path)
        migrate(self.conn, "session", MIGRATIONS)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """An IMMEDIATE transaction: the write lock is taken before anything is read."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            fault_point("session.journal")  # inserted, not committed: SQLite rolls back
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")
            fault_point("session.journal.done")

    def add(self, session: str, track: str, kind: str, data: dict[str, Any], time: str = "") -> int:
        with self.transaction() as conn:
            return _insert(conn, session, track, kind, self.scrub(data), time)

    def update_latest(
        self,
        session: str,
        track: str,
        kind: str,
        change: Callable[[dict[str, Any] | None], dict[str, Any] | None],
        time: str = "",
    ) -> dict[str, Any] | None:
        """Append ``change(latest data of kind)`` as a new event, atomically."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT data FROM session_events WHERE session = ? AND kind = ? "
                "ORDER BY seq DESC LIMIT 1",
                (session, kind),
            ).fetchone()
            current = json.loads(row[0]) if row else None
            new = change(current)
            if new is not None:
                new = self.scrub(new)
            if new is not None and new != current:
                _insert(conn, session, track, kind, new, time)
            return new

    def events(
        self,
        *,
        session: str | None = None,
        track: str | None = None,
        kinds: tuple[str, ...] = (),
        after: int = 0,
        upto: int | None = None,
        having: str | None = None,
    ) -> list[Event]:
        """The events matching, in order; ``having`` keeps those whose data has that
        top-level key (the prompts marked at capture as forbidding edits)."""
        where, args = _where(session, track, kinds, after, upto)
        if having is not None:
            where += " AND json_extract(data, ?) IS NOT NULL"
            args.append(f"$.{having}")
        sql = (
            f"SELECT seq, session, track, kind, time, data FROM session_events {where} ORDER BY seq"
        )
        return [
            Event(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]))
            for r in self.conn.execute(sql, args)
        ]

    def heads(self, *, track: str | None = None, after: int = 0) -> list[Head]:
        """The events' seq, session, kind and time, without their data.

        A days-long session journals thousands of tool calls and hundreds of whole plans
        (a 300-step TodoWrite is ~30 KB of JSON): callers that need the data of a few
        kinds only read those rows (:meth:`events` with ``upto``, :meth:`last`)."""
        where, args = _where(None, track, (), after, None)
        sql = f"SELECT seq, session, kind, time FROM session_events {where} ORDER BY seq"
        return [Head(r[0], r[1], r[2], r[3]) for r in self.conn.execute(sql, args)]

    def last(
        self,
        *,
        session: str | None = None,
        track: str | None = None,
        kinds: tuple[str, ...] = (),
        after: int = 0,
        upto: int | None = None,
    ) -> Event | None:
        """The newest event matching (what :meth:`events` would list last), or None."""
        where, args = _where(session, track, kinds, after, upto)
        row = self.conn.execute(
            f"SELECT seq, session, track, kind, time, data FROM session_events {where} "
            "ORDER BY seq DESC LIMIT 1",
            args,
        ).fetchone()
        if row is None:
            return None
        return Event(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]))

    def latest(self, session: str, kind: str) -> Event | None:
        row = self.conn.execute(
            "SELECT seq, session, track, kind, time, data FROM session_events "
            "WHERE session = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
            (session, kind),
        ).fetchone()
        if row is None:
            return None
        return Event(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]))

    def prune(
        self,
        keep_sessions: int,
        compacted: Callable[[str], tuple[int, str]],
        *,
        keep: frozenset[str] = frozenset(),
        dry_run: bool = False,
    ) -> Pruned:
        """Delete the events of each track's sessions older than its newest
        ``keep_sessions``, in one IMMEDIATE transaction (hooks journaling meanwhile wait,
        then append after it: nothing they write is lost, and a kill leaves the journal
        as it was).

        Never deleted: the sessions in ``keep`` (the one starting now), the session
        ``compacted(track)`` names (its latest checkpoint's: recovery reads it), the
        track's newest plan (PLAN.md may not hold it yet) and its decisions and risks
        after that checkpoint's journal position (the next compaction reads them).
        ``seq`` is AUTOINCREMENT, so checkpoints' journal positions stay valid."""
        try:
            with self.transaction() as conn:
                rows = conn.execute(
                    "SELECT track, session, MAX(seq) FROM session_events GROUP BY track, session"
                ).fetchall()
                by_track: dict[str, list[tuple[int, str]]] = {}
                for track, session, last in rows:
                    by_track.setdefault(track, []).append((int(last), session))
                sessions: dict[str, int] = {}
                events = 0
                kept: set[str] = set()
                for track, found in sorted(by_track.items()):
                    found.sort(reverse=True)
                    after, named = compacted(track)
                    stays = {s for _, s in found[:keep_sessions]} | set(keep) | {named}
                    kept |= stays
                    old = [s for _, s in found if s not in stays]
                    if not old:
                        continue
                    plan = conn.execute(
                        "SELECT MAX(seq) FROM session_events WHERE track = ? AND kind = 'plan'",
                        (track,),
                    ).fetchone()[0]
                    for start in range(0, len(old), 500):
                        chunk = old[start : start + 500]
                        where = (
                            f"WHERE track = ? AND session IN ({','.join('?' * len(chunk))}) "
                            "AND seq != ? AND NOT (kind IN ('decision', 'risk') AND seq > ?)"
                        )
                        args = [track, *chunk, int(plan or 0), after]
                        for session, count in conn.execute(
                            f"SELECT session, COUNT(*) FROM session_events {where} "
                            "GROUP BY session",
                            args,
                        ):
                            sessions[session] = sessions.get(session, 0) + int(count)
                            events += int(count)
                        if not dry_run:
                            conn.execute(f"DELETE FROM session_events {where}", args)
                fault_point("session.journal.prune")  # deleted, not committed: rolled back
                if dry_run:
                    raise _DryRun(Pruned(events, sessions, frozenset(kept)))
        except _DryRun as stop:
            return stop.result
        return Pruned(events, sessions, frozenset(kept))

    def last_seq(self) -> int:
        row = self.conn.execute("SELECT MAX(seq) FROM session_events").fetchone()
        return int(row[0] or 0)


@dataclass(frozen=True)
class Pruned:
    """What :meth:`Journal.prune` removed: events, per session, and the sessions kept."""

    events: int
    sessions: dict[str, int]
    kept: frozenset[str]


class _DryRun(Exception):
    """Rolls a dry run's transaction back, carrying what it would have removed."""

    def __init__(self, result: Pruned) -> None:
        super().__init__("dry run")
        self.result = result


@dataclass(frozen=True)
class Head:
    """An event without its data (see :meth:`Journal.heads`)."""

    seq: int
    session: str
    kind: str
    time: str


#: Resumes followed back from a session (a loop or a long chain of resumes stops here).
MAX_RESUMES = 8


def resumed_chain(journal: Journal, track: str, key: str) -> list[str]:
    """``key`` and the sessions it resumed (``resume`` events), oldest first. Here, not in
    recovery, because the guardrail before every file tool follows it too and must not
    import what recovery needs."""
    chain = [key]
    while len(chain) <= MAX_RESUMES:
        link = journal.last(session=chain[0], track=track, kinds=("resume",))
        previous = str(link.data.get("from") or "") if link else ""
        if not previous or previous in chain:
            break
        chain.insert(0, previous)
    return chain


def _where(
    session: str | None,
    track: str | None,
    kinds: tuple[str, ...],
    after: int,
    upto: int | None,
) -> tuple[str, list[Any]]:
    sql = "WHERE seq > ?"
    args: list[Any] = [after]
    if upto is not None:
        sql += " AND seq <= ?"
        args.append(upto)
    if session is not None:
        sql += " AND session = ?"
        args.append(session)
    if track is not None:
        sql += " AND track = ?"
        args.append(track)
    if kinds:
        sql += f" AND kind IN ({','.join('?' * len(kinds))})"
        args.extend(kinds)
    return sql, args


def _insert(
    conn: sqlite3.Connection, session: str, track: str, kind: str, data: dict[str, Any], time: str
) -> int:
    cur = conn.execute(
        "INSERT INTO session_events (session, track, kind, time, data) VALUES (?, ?, ?, ?, ?)",
        (session, track, kind, time, json.dumps(data, sort_keys=True, ensure_ascii=False)),
    )
    return int(cur.lastrowid or 0)
