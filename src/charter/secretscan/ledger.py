"""What the index redacted where: path, line, detector and origin; never a value.

Kept in the search index's own SQLite file under its own migration namespace
(``secrets``), written in the same transaction as the document it describes, so the
record and the stored text can never disagree. ``charter doctor`` reads it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from typing import Any

from charter.secretscan.apply import Redaction
from charter.secretscan.settings import SecretsSettings
from charter.store.db import migrate, run_script


def _v1(conn: sqlite3.Connection) -> None:
    run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS redactions (
            path TEXT NOT NULL,
            line INTEGER NOT NULL,
            detector TEXT NOT NULL,
            origin TEXT NOT NULL            -- fs | git | jsonl
        );
        CREATE INDEX IF NOT EXISTS redactions_by_path ON redactions(path);
        CREATE TABLE IF NOT EXISTS secrets_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    )


MIGRATIONS = [_v1]


#: Bump when detection changes, so the next ``charter index`` re-reads every file.
#: 2: a credential word called with one quoted value, no parentheses (``keyPassword "x"``)
SCANNER_VERSION = "2"


def policy(settings: SecretsSettings) -> str:
    """A fingerprint of what the scan redacts: the scanner version and ``[secrets]``."""
    raw = SCANNER_VERSION + settings.model_dump_json()
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def create(conn: sqlite3.Connection) -> None:
    """The ledger's tables (migrations of the ``secrets`` namespace; outside a transaction)."""
    migrate(conn, "secrets", MIGRATIONS)


def ensure(conn: sqlite3.Connection, settings: SecretsSettings) -> bool:
    """Create the tables if needed (call outside a transaction).

    True when the stored text was redacted under another policy (or none: an index built
    before the scan existed): every file must then be read and redacted again.
    """
    create(conn)
    row = conn.execute("SELECT value FROM secrets_meta WHERE key = 'policy'").fetchone()
    if row is not None and row[0] == policy(settings):
        return False
    return conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is not None or row is None


def stamp(conn: sqlite3.Connection, settings: SecretsSettings) -> None:
    """Record that everything stored now was redacted under ``settings``."""
    with conn:
        conn.execute(
            "INSERT OR REPLACE INTO secrets_meta (key, value) VALUES ('policy', ?)",
            (policy(settings),),
        )


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
