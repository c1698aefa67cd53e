"""Which rules are already in the agent's conversation, per session.

Hook context stays in the conversation until Claude Code compacts it, so a rule injected
for one prompt is still there for the next: injecting it again only costs tokens. This
store remembers, per session id, the rules already given; the prompt hook leaves them
out and says how many. A new conversation (SessionStart ``startup``/``clear``) or a
compaction (``compact``) clears the slate; ``resume`` keeps it. One SQLite file, one
transaction per prompt, so parallel hooks never lose an entry.

Each conversation's last use is kept too (``seen``, wall-clock seconds, refreshed at most
hourly): a conversation not seen for ``session.retention.injected_days`` is over, and
:func:`prune` drops its records (``charter session prune``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from charter.fileio import fault_point
from charter.store.db import connect, migrate


def _v1(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS injected (session TEXT NOT NULL, rule TEXT NOT NULL, "
        "PRIMARY KEY (session, rule))"
    )


def _v2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE injected ADD COLUMN event TEXT NOT NULL DEFAULT ''")


def _v3(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS seen (session TEXT PRIMARY KEY, time REAL NOT NULL)")
    # conversations recorded before this table count as seen now: pruned D days from now
    conn.execute(
        "INSERT OR IGNORE INTO seen (session, time) SELECT DISTINCT session, ? FROM injected",
        (time.time(),),
    )


MIGRATIONS = [_v1, _v2, _v3]
#: ``seen`` is rewritten at most this often per conversation (one write per hour, not
#: one per prompt and tool call).
SEEN_RESOLUTION = 3600.0


def _path(state_dir: Path) -> Path:
    return state_dir / "injected.db"


class Taken(NamedTuple):
    fresh: list[str]  # given now
    seen: int  # already in the conversation
    held: int  # new, but over the budget


def take_new(state_dir: Path, session: str, rule_ids: list[str]) -> list[str]:
    """The ids not yet given in ``session`` (in order), recorded as given now."""
    return take(state_dir, session, rule_ids).fresh


def take(
    state_dir: Path,
    session: str,
    rule_ids: list[str],
    *,
    costs: Mapping[str, int] | None = None,
    budget: int = 0,
    event: str = "",
    gate: str = "",
) -> Taken:
    """Like :func:`take_new`; with ``budget``, new ids are taken in order while their
    ``costs`` fit (an id already given costs nothing: it is still in the conversation).

    ``event`` names the prompt being answered. Rules are recorded as given before the
    answer reaches the agent, and an answer can be lost after that (the warm worker
    killed or too slow, the hook killed): the same prompt asked again (the hook's
    in-process fallback, a retry) gets the rules recorded under its own ``event`` again
    instead of "already in the conversation", so they are never recorded yet undelivered.

    ``gate`` (one of ``rule_ids``) names a moment whose ids are given with it or not at
    all: once it is in the conversation, nothing is recorded and nothing is fresh (the
    caller shows nothing, so an id recorded then would never reach the agent).
    """
    if not session:
        fresh = _within(list(rule_ids), costs, budget)
        return Taken(fresh, 0, len(rule_ids) - len(fresh))
    conn = connect(_path(state_dir))
    try:
        migrate(conn, "injected", MIGRATIONS)
        conn.execute("BEGIN IMMEDIATE")
        try:
            seen = {
                row[0]
                for row in conn.execute(
                    "SELECT rule, event FROM injected WHERE session = ?", (session,)
                )
                if not event or row[1] != event
            }
            unseen = [rid for rid in rule_ids if rid not in seen]
            fresh = [] if gate and gate in seen else _within(unseen, costs, budget)
            conn.executemany(
                "INSERT OR IGNORE INTO injected (session, rule, event) VALUES (?, ?, ?)",
                [(session, rid, event) for rid in fresh],
            )
            _touch(conn, session)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        fault_point("injected.taken")  # recorded as given, the answer not yet delivered
        return Taken(fresh, len(rule_ids) - len(unseen), len(unseen) - len(fresh))
    finally:
        conn.close()


def _touch(conn: sqlite3.Connection, session: str) -> None:
    now = time.time()
    conn.execute(
        "INSERT INTO seen (session, time) VALUES (?, ?) ON CONFLICT (session) DO UPDATE "
        "SET time = excluded.time WHERE excluded.time > seen.time + ?",
        (session, now, SEEN_RESOLUTION),
    )


def _within(ids: list[str], costs: Mapping[str, int] | None, budget: int) -> list[str]:
    if not budget or costs is None:
        return ids
    out, used = [], 0
    for rid in ids:
        cost = costs.get(rid, 0)
        if used + cost <= budget:
            out.append(rid)
            used += cost
    return out


def clear(state_dir: Path, session: str) -> None:
    """Forget what ``session`` was given (its conversation no longer holds it)."""
    path = _path(state_dir)
    if not session or not path.exists():
        return
    conn = connect(path)
    try:
        migrate(conn, "injected", MIGRATIONS)
        with conn:
            conn.execute("DELETE FROM injected WHERE session = ?", (session,))
    finally:
        conn.close()


class Pruned(NamedTuple):
    conversations: int
    entries: int


def prune(
    state_dir: Path, days: int, *, keep: str = "", dry_run: bool = False, now: float | None = None
) -> Pruned:
    """Drop the records of conversations not seen for ``days`` days (``keep``: a session
    that stays whatever its age, the one being started). One IMMEDIATE transaction: a
    prompt hook answering meanwhile waits for it and then finds its own records intact."""
    path = _path(state_dir)
    if not path.exists():
        return Pruned(0, 0)
    cutoff = (time.time() if now is None else now) - days * 86400.0
    conn = connect(path)
    try:
        migrate(conn, "injected", MIGRATIONS)
        conn.execute("BEGIN IMMEDIATE")
        try:
            old = [
                row[0]
                for row in conn.execute(
                    "SELECT session FROM seen WHERE time < ? AND session != ?", (cutoff, keep)
                )
            ]
            entries = 0
            for start in range(0, len(old), 500):
                chunk = old[start : start + 500]
                marks = ",".join("?" * len(chunk))
                entries += conn.execute(
                    f"SELECT COUNT(*) FROM injected WHERE session IN ({marks})", chunk
                ).fetchone()[0]
                if not dry_run:
                    conn.execute(f"DELETE FROM injected WHERE session IN ({marks})", chunk)
                    conn.execute(f"DELETE FROM seen WHERE session IN ({marks})", chunk)
            fault_point("injected.prune")  # deleted, not committed: SQLite rolls back
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("ROLLBACK" if dry_run else "COMMIT")
        return Pruned(len(old), entries)
    finally:
        conn.close()
