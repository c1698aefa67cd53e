"""What the index redacted where: path, line, detector and origin; never a value.

Kept in the search index's own SQLite file under its own migration namespace
(``secrets``), written in the same transaction as the document it describes, so the
record and the stored text can never disagree. ``charter doctor`` reads it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from charter.secretscan.apply import Redaction
from charter.store.db import migrate


def _v1(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE TABLE IF NOT EXISTS redactions (
            path TEXT NOT NULL,
            line INTEGER NOT NULL,
            detector TEXT NOT NULL,
            origin TEXT NOT NULL            -- fs | git | jsonl
        );
        CREATE INDEX IF NOT EXISTS redactions_by_path ON redactions(path);
        """
    )


MIGRATIONS = [_v1]


def ensure(conn: sqlite3.Connection) -> bool:
    """Create the table if needed (call outside a transaction).

    True when it was missing from an index that already holds documents: that index was
    written by a version without the secret scan, so every file must be read again.
    """
    had = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'redactions'"
    ).fetchone()
    migrate(conn, "secrets", MIGRATIONS)
    if had:
        return False
    try:
        return conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def record(
    conn: sqlite3.Connection, path: str, origin: str, redactions: Iterable[Redaction]
) -> None:
    """Replace what is recorded for ``path`` (call inside the document's transaction)."""
    conn.execute("DELETE FROM redactions WHERE path = ?", (path,))
    conn.executemany(
        "INSERT INTO redactions (path, line, detector, origin) VALUES (?, ?, ?, ?)",
        [(path, r.line, r.detector, origin) for r in redactions],
    )


def summary(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Per indexed file: how many secrets were redacted, on which lines, by which detectors."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'redactions'"
    ).fetchone()
    if not exists:
        return []
    rows = conn.execute(
        "SELECT r.path, r.line, r.detector, r.origin FROM redactions r "
        "JOIN docs d ON d.path = r.path ORDER BY r.path, r.line, r.detector"
    ).fetchall()
    out: dict[str, dict[str, Any]] = {}
    for path, line, detector, origin in rows:
        item = out.setdefault(
            path, {"path": path, "origin": origin, "count": 0, "lines": [], "detectors": {}}
        )
        item["count"] += 1
        if line not in item["lines"]:
            item["lines"].append(line)
        item["detectors"][detector] = item["detectors"].get(detector, 0) + 1
    return list(out.values())
