"""Open Charter's SQLite index safely for concurrent readers and writers.

WAL mode lets hooks read while a compile or index run writes; a busy timeout makes a
second writer wait instead of failing; each capability registers its own migrations
(numbered, applied once, recorded in ``_migrations``) so schemas evolve without loss.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from charter.errors import CharterError
from charter.fileio import fault_point, locked

Migration = Callable[[sqlite3.Connection], None]


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection to ``path`` in WAL mode with a 30 s busy timeout."""
    try:
        if readonly:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=30)
            _wal(conn)
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError as exc:
        raise CharterError(f"cannot open index {path}: {exc}") from None
    conn.row_factory = sqlite3.Row
    return conn


def _wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. A brand-new file opened by many processes at once (parallel hooks on
    a new project) can answer "database is locked" to the switch without waiting on the
    busy handler, so the switch is retried for up to the busy timeout."""
    import random
    import time

    deadline = time.monotonic() + 30
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01 + random.random() * 0.05)


def migrate(conn: sqlite3.Connection, namespace: str, migrations: Sequence[Migration]) -> None:
    """Apply ``migrations[n:]`` for ``namespace`` where ``n`` were applied before.

    Several hooks can open a new project's database at the same moment; migrations run
    under one file lock beside the database and re-check what is applied once they hold
    it, so two processes never run the same step (``CREATE TABLE`` twice).
    """
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (namespace TEXT NOT NULL, version INTEGER "
        "NOT NULL, PRIMARY KEY (namespace, version))"
    )
    if len(_applied(conn, namespace)) >= len(migrations):
        return
    row = conn.execute("PRAGMA database_list").fetchone()
    path = Path(row[2]) if row and row[2] else None
    guard = locked(path.with_name(path.name + ".migrate")) if path else contextlib.nullcontext()
    with guard:
        done = _applied(conn, namespace)
        for version, step in enumerate(migrations, start=1):
            if version in done:
                continue
            # one transaction for the step and its record: killed in between, the next
            # run finds neither (DDL outside a transaction, as ``executescript`` runs it,
            # left tables that the step then failed to create again, for good)
            if conn.in_transaction:
                conn.commit()
            conn.execute("BEGIN IMMEDIATE")
            try:
                step(conn)
                fault_point(f"migrate.{namespace}")  # the step ran, not yet recorded
                conn.execute(
                    "INSERT OR IGNORE INTO _migrations (namespace, version) VALUES (?, ?)",
                    (namespace, version),
                )
            except BaseException:
                conn.rollback()
                raise
            conn.commit()


def run_script(conn: sqlite3.Connection, sql: str) -> None:
    """Run ``sql`` statement by statement inside the current transaction.

    Migrations use this, never ``executescript``: that commits first and runs each
    statement on its own, so a migration was not atomic.
    """
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip():
        conn.execute(pending)


def _applied(conn: sqlite3.Connection, namespace: str) -> set[int]:
    return {
        row[0]
        for row in conn.execute("SELECT version FROM _migrations WHERE namespace = ?", (namespace,))
    }


@contextlib.contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Every read inside the block sees one committed state of the database.

    In WAL mode a read transaction pins a snapshot: a writer in another process (a
    ``charter index`` run) can commit meanwhile without the reader seeing half of it, as
    it would across separate autocommit SELECTs. Nested use is a no-op.
    """
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
