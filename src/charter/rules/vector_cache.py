"""Content-addressed vector cache: a rule's vector is computed once per (model, text)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from charter.embed.base import Vectors
from charter.store.db import connect, migrate


def _create(conn: object) -> None:
    conn.execute(  # type: ignore[attr-defined]
        "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, text_sha TEXT NOT NULL, "
        "dim INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, text_sha))"
    )


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class VectorCache:
    def __init__(self, path: Path) -> None:
        self.conn = connect(path)
        migrate(self.conn, "vectors", [_create])

    def lookup(self, model: str, texts: Sequence[str], dim: int) -> tuple[Vectors, list[int]]:
        """Vectors found (zeros elsewhere) and the indexes of texts still to embed."""
        out = np.zeros((len(texts), dim), dtype=np.float32)
        shas = [_sha(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        unique = sorted(set(shas))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT text_sha, dim, vector FROM embeddings "
                f"WHERE model = ? AND text_sha IN ({marks})",
                (model, *chunk),
            )
            for sha, vdim, blob in rows:
                if vdim == dim:
                    found[sha] = np.frombuffer(blob, dtype=np.float32)
        missing = []
        for i, sha in enumerate(shas):
            if sha in found:
                out[i] = found[sha]
            else:
                missing.append(i)
        return out, missing

    def store(self, model: str, texts: Sequence[str], vectors: Vectors) -> None:
        rows = [
            (model, _sha(t), int(vectors.shape[1]), vectors[i].astype(np.float32).tobytes())
            for i, t in enumerate(texts)
        ]
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)

    def close(self) -> None:
        self.conn.close()
