"""The search index on disk: documents, chunks, FTS5 terms and float32 vectors in SQLite.

It lives in its own file (``.charter/search.db``) so long index runs never hold a write
lock that the rules engine's hooks wait on. Schema changes are numbered migrations in the
``search`` namespace. Vectors are stored per chunk with the embedding model's name and a
hash of the embedded text, so unchanged chunks of a changed file keep their vectors.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from charter.search.chunks import Chunk
from charter.store.db import connect, migrate, run_script

DB_NAME = "search.db"


def _v1(conn: sqlite3.Connection) -> None:
    # IF NOT EXISTS: an index whose first migration an older Charter left half done
    # (its DDL ran outside a transaction) is repaired rather than failing for good.
    run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS docs (
            path TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            mtime REAL NOT NULL,
            zone TEXT NOT NULL,
            status TEXT NOT NULL,          -- live | deleted
            origin TEXT NOT NULL,          -- fs | git | jsonl
            commit_sha TEXT,
            changed_at REAL NOT NULL,      -- commit time or mtime: recency and time windows
            deleted_at REAL,
            title TEXT NOT NULL DEFAULT '',
            refs TEXT NOT NULL DEFAULT '[]',
            error TEXT,
            indexed_at REAL NOT NULL
        );
        CREATE TABLE IF NOT EXISTS chunks (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL REFERENCES docs(path) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            parent_id INTEGER,
            kind TEXT NOT NULL,
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            section TEXT NOT NULL,
            title TEXT NOT NULL,
            text TEXT NOT NULL,
            address TEXT NOT NULL,
            doc_key TEXT NOT NULL,
            record TEXT,
            text_hash TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path, ordinal);
        CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks(text_hash);
        CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts
            USING fts5(title, body, raw, tokenize='unicode61');
        CREATE TABLE IF NOT EXISTS vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            vec BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT OR IGNORE INTO meta VALUES ('generation', '0');
        """,
    )


_BUMP = "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'generation'"


def _v2(conn: sqlite3.Connection) -> None:
    """The generation moves in the same transaction as the change it versions.

    Every search cache (the BM25 matrix, a warm engine) is keyed by the generation. When
    the bump was a separate transaction after the data, a kill between the two left the
    data changed and the generation old: caches stale for good. A trigger on ``docs``
    (every chunk change goes with a change of its document row) closes that window.
    """
    for event in ("INSERT", "UPDATE", "DELETE"):
        conn.execute(
            f"CREATE TRIGGER IF NOT EXISTS docs_generation_{event.lower()} "
            f"AFTER {event} ON docs BEGIN {_BUMP}; END"
        )
    conn.execute(_BUMP)  # caches built before this migration are not trusted
    # a recreated index counts generations from the start again: caches also key on this
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('instance', ?)", (secrets.token_hex(8),))


MIGRATIONS = [_v1, _v2]


@dataclass
class DocRow:
    path: str
    kind: str
    sha256: str
    zone: str
    status: str
    origin: str
    changed_at: float
    title: str
    refs: list[str]
    commit_sha: str | None


class SearchStore:
    """One open search index. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.conn = connect(path, readonly=readonly)
        if not readonly:
            migrate(self.conn, "search", MIGRATIONS)

    @classmethod
    def for_state_dir(cls, state_dir: Path, *, readonly: bool = False) -> SearchStore:
        return cls(state_dir / DB_NAME, readonly=readonly)

    def __enter__(self) -> SearchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # -- documents -----------------------------------------------------------------
    def docs(self) -> dict[str, DocRow]:
        rows = self.conn.execute(
            "SELECT path, kind, sha256, zone, status, origin, changed_at, title, refs, "
            "commit_sha FROM docs"
        ).fetchall()
        return {
            r["path"]: DocRow(
                r["path"],
                r["kind"],
                r["sha256"],
                r["zone"],
                r["status"],
                r["origin"],
                r["changed_at"],
                r["title"],
                json.loads(r["refs"]),
                r["commit_sha"],
            )
            for r in rows
        }

    def generation(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def instance(self) -> str:
        """A random id made with the index file: a recreated index is another instance."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'instance'").fetchone()
        return str(row[0]) if row else ""

    def bump_generation(self) -> None:
        """Bump by hand (inside the caller's transaction) for changes ``docs`` doesn't see."""
        self.conn.execute(_BUMP)

    def models(self) -> set[str]:
        """Names of the embedding models that produced the stored vectors."""
        return {r[0] for r in self.conn.execute("SELECT DISTINCT model FROM vectors")}

    def vectors_by_hash(self, hashes: Sequence[str], model: str) -> dict[str, bytes]:
        """Stored vectors of any chunk whose embedded text hashes to one of ``hashes``
        (for reuse: the same text under another path, after a rename, is the same vector)."""
        wanted = sorted(set(hashes))
        found: dict[str, bytes] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            rows = self.conn.execute(
                "SELECT c.text_hash, v.vec FROM chunks c JOIN vectors v ON v.chunk_id = c.id "
                f"WHERE v.model = ? AND c.text_hash IN ({','.join('?' * len(part))})",
                (model, *part),
            )
            found.update((r[0], r[1]) for r in rows if r[1])
        return found

    def remove_doc_chunks(self, path: str) -> None:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
        self.conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(i,) for i in ids])
        self.conn.execute("DELETE FROM chunks WHERE path = ?", (path,))

    def delete_doc(self, path: str) -> None:
        self.remove_doc_chunks(path)
        self.conn.execute("DELETE FROM docs WHERE path = ?", (path,))

    def mark_deleted(self, path: str, when: float) -> None:
        self.conn.execute(
            "UPDATE docs SET status = 'deleted', deleted_at = ? WHERE path = ?", (when, path)
        )

    def write_doc(
        self,
        *,
        path: str,
        kind: str,
        sha256: str,
        mtime: float,
        zone: str,
        status: str,
        origin: str,
        changed_at: float,
        title: str,
        refs: Sequence[str],
        chunks: Sequence[Chunk],
        fts_rows: Sequence[tuple[str, str, str]],
        text_hashes: Sequence[str],
        vectors: Sequence[bytes],
        model: str,
        commit_sha: str | None = None,
        error: str | None = None,
    ) -> None:
        """Replace everything stored for ``path`` (call inside a transaction)."""
        self.remove_doc_chunks(path)
        self.conn.execute(
            "INSERT OR REPLACE INTO docs (path, kind, sha256, mtime, zone, status, origin, "
            "commit_sha, changed_at, deleted_at, title, refs, error, indexed_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                path,
                kind,
                sha256,
                mtime,
                zone,
                status,
                origin,
                commit_sha,
                changed_at,
                changed_at if status == "deleted" else None,
                title,
                json.dumps(list(refs)),
                error,
                time.time(),
            ),
        )
        ids: list[int] = []
        for chunk, text_hash in zip(chunks, text_hashes, strict=True):
            cur = self.conn.execute(
                "INSERT INTO chunks (path, ordinal, parent_id, kind, line_start, line_end, "
                "section, title, text, address, doc_key, record, text_hash) "
                "VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    path,
                    chunk.ordinal,
                    chunk.kind,
                    chunk.line_start,
                    chunk.line_end,
                    chunk.section,
                    chunk.title,
                    chunk.text,
                    chunk.address,
                    chunk.doc_key,
                    json.dumps(chunk.record, ensure_ascii=False) if chunk.record else None,
                    text_hash,
                ),
            )
            ids.append(int(cur.lastrowid or 0))
        parents = [
            (ids[c.parent], ids[i])
            for i, c in enumerate(chunks)
            if c.parent is not None and c.parent < len(ids)
        ]
        self.conn.executemany("UPDATE chunks SET parent_id = ? WHERE id = ?", parents)
        self.conn.executemany(
            "INSERT INTO chunks_fts (rowid, title, body, raw) VALUES (?, ?, ?, ?)",
            [(i, *row) for i, row in zip(ids, fts_rows, strict=True)],
        )
        self.conn.executemany(
            "INSERT INTO vectors (chunk_id, model, vec) VALUES (?, ?, ?)",
            [(i, model, v) for i, v in zip(ids, vectors, strict=True)],
        )

    # -- reading -------------------------------------------------------------------
    def load_matrix(self, model: str) -> tuple[np.ndarray, np.ndarray]:
        """All chunk ids and their vectors (for ``model``) as (ids int64, matrix float32)."""
        rows = self.conn.execute(
            "SELECT chunk_id, vec FROM vectors WHERE model = ? ORDER BY chunk_id", (model,)
        ).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        blob = b"".join(r[1] for r in rows)
        matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), -1)
        return ids, matrix

    def chunk_paths(self) -> tuple[np.ndarray, list[str]]:
        """(chunk ids, their paths) for scope filtering, ordered by id."""
        rows = self.conn.execute("SELECT id, path FROM chunks ORDER BY id").fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)), [
            r[1] for r in rows
        ]

    def chunks_by_id(self, ids: Iterable[int]) -> dict[int, sqlite3.Row]:
        wanted = list(dict.fromkeys(int(i) for i in ids))
        out: dict[int, sqlite3.Row] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            for row in self.conn.execute(f"SELECT * FROM chunks WHERE id IN ({marks})", part):
                out[int(row["id"])] = row
        return out

    def chunks_of(self, path: str) -> list[sqlite3.Row]:
        return self.conn.execute(
            "SELECT * FROM chunks WHERE path = ? ORDER BY ordinal", (path,)
        ).fetchall()

    def stats(self) -> dict[str, int]:
        one = self.conn.execute
        return {
            "documents": int(one("SELECT count(*) FROM docs WHERE status='live'").fetchone()[0]),
            "deleted_documents": int(
                one("SELECT count(*) FROM docs WHERE status='deleted'").fetchone()[0]
            ),
            "chunks": int(one("SELECT count(*) FROM chunks").fetchone()[0]),
            "vectors": int(one("SELECT count(*) FROM vectors").fetchone()[0]),
        }
