"""The hybrid retriever: BM25 (FTS5 text, sparse-matrix scoring) and dense candidates.

Loaded once per process: the vector matrix, and for each chunk the index of its
document (both memory-mapped from :mod:`charter.search.vectors`), so a mode's scope
becomes one boolean mask over documents and a numpy gather over chunks — cheap enough to
apply on every query at 100k chunks.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from charter.embed.base import Embedder
from charter.search.bm25 import BM25Matrix
from charter.search.settings import SearchSettings
from charter.search.store import DocRow, SearchStore
from charter.search.text import words
from charter.search.vectors import VectorIndex

Mask = npt.NDArray[np.bool_]


@dataclass
class Candidate:
    chunk_id: int
    score: float


class HybridRetriever:
    """Candidate generation over one opened :class:`SearchStore`."""

    def __init__(
        self,
        store: SearchStore,
        embedder: Embedder,
        settings: SearchSettings,
        bm25_matrix: BM25Matrix,
        vectors: VectorIndex | None = None,
    ) -> None:
        """``vectors`` is the memory-mapped sidecar (:func:`charter.search.vectors.
        vectors_for`); without it they are read from SQLite rows."""
        self.store = store
        self.bm25_matrix = bm25_matrix
        self.embedder = embedder
        self.settings = settings
        self.docs: dict[str, DocRow] = store.docs()
        self.doc_paths: list[str] = sorted(self.docs)
        if vectors is None or vectors.documents != len(self.doc_paths):
            vectors = VectorIndex.build(store, embedder.name, embedder.dim)
        self.chunk_ids = vectors.chunk_ids
        self.chunk_doc = vectors.chunk_doc
        self.matrix = vectors.matrix
        self.missing_vectors = vectors.missing
        self._bm25_aligned = np.array_equal(bm25_matrix.chunk_ids, self.chunk_ids)

    @property
    def size(self) -> int:
        return len(self.chunk_ids)

    def chunk_mask(self, doc_mask: Mask) -> Mask:
        """Per-chunk mask from a per-document mask."""
        if not len(self.chunk_doc):
            return np.zeros(0, dtype=bool)
        return doc_mask[self.chunk_doc]

    def positions(self, chunk_ids: list[int]) -> npt.NDArray[np.int64]:
        return np.searchsorted(self.chunk_ids, np.asarray(chunk_ids, dtype=np.int64))

    def known(self, chunk_ids: list[int]) -> list[int]:
        """The ids among ``chunk_ids`` this retriever has loaded (another process may have
        added chunks since), in their order."""
        if not chunk_ids or not self.size:
            return []
        pos = self.positions(chunk_ids)
        found = self.chunk_ids[np.minimum(pos, self.size - 1)]
        pairs = zip(chunk_ids, pos, found, strict=True)
        return [i for i, p, f in pairs if p < self.size and f == i]

    def bm25_all(self, query: str) -> npt.NDArray[np.float32]:
        """BM25 score of every chunk (position order; 0 where no query term matches)."""
        scores = self.bm25_matrix.scores(query) if self.size else None
        if scores is None:
            return np.zeros(self.size, dtype=np.float32)
        if self._bm25_aligned:
            return scores
        aligned = np.zeros(self.size, dtype=np.float32)
        pos = self.positions(list(self.bm25_matrix.chunk_ids))
        ok = (pos < self.size) & (
            self.chunk_ids[np.minimum(pos, self.size - 1)] == self.bm25_matrix.chunk_ids
        )
        aligned[pos[ok]] = scores[ok]
        return aligned

    def dense_all(self, qvec: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Cosine of every chunk with the query (position order)."""
        if not self.size:
            return np.zeros(0, dtype=np.float32)
        return np.asarray(self.matrix @ qvec, dtype=np.float32)

    def top(
        self, scores: npt.NDArray[np.float32], mask: Mask, k: int, *, positive: bool = False
    ) -> list[Candidate]:
        """The ``k`` best in-scope chunks by ``scores`` (ties by chunk id)."""
        if not self.size:
            return []
        keep = mask & (scores > 0) if positive else mask
        masked = np.where(keep, scores, -np.inf)
        k = min(k, int(keep.sum()))
        if k <= 0:
            return []
        top = np.argpartition(-masked, k - 1)[:k]
        top = top[np.lexsort((self.chunk_ids[top], -masked[top]))]
        return [Candidate(int(self.chunk_ids[p]), float(masked[p])) for p in top]

    def bm25(self, query: str, mask: Mask, k: int) -> list[Candidate]:
        """Top ``k`` in-scope chunks by BM25 (see :mod:`charter.search.bm25`)."""
        return self.top(self.bm25_all(query), mask, k, positive=True)

    def embed_query(self, query: str) -> npt.NDArray[np.float32]:
        return self.embedder.embed([query])[0]

    def dense(self, qvec: npt.NDArray[np.float32], mask: Mask, k: int) -> list[Candidate]:
        """Top ``k`` in-scope chunks by cosine."""
        return self.top(self.dense_all(qvec), mask, k)

    def cosine(self, qvec: npt.NDArray[np.float32], chunk_ids: list[int]) -> list[float]:
        pos = self.positions(chunk_ids)
        return [float(self.matrix[p] @ qvec) for p in pos]

    def titled(self, phrases: list[str], ids: list[int]) -> set[int]:
        """Those of ``ids`` whose section path (the headings over the chunk) holds one of
        ``phrases`` literally: the chunk sits in a document or section titled by it."""
        if not phrases or not ids:
            return set()
        needles = [re.compile(re.escape(p), re.IGNORECASE) for p in phrases if p.strip()]
        rows = self.store.chunks_by_id(ids)
        return {i for i, row in rows.items() if any(n.search(str(row["section"])) for n in needles)}

    def exact(self, phrases: list[str], mask: Mask, limit: int = 50) -> list[int]:
        """Chunks containing any phrase literally (case-insensitive), via the raw column;
        then documents whose headings hold it, by their first chunk in scope.

        A document titled by an ID ("# SP3-004 - OCR adapter") is about that ID, but its
        title line is no chunk's text (a heading with no body of its own): only the
        section path of each chunk under it names it. A phrase in a section path is
        matched too, one chunk per document (the earliest, where the document opens),
        so the document is found without all its sections crowding the results."""
        found: dict[int, None] = {}
        by_heading: dict[str, tuple[int, int]] = {}
        for phrase in phrases:
            tokens = words(phrase)
            if not tokens:
                continue
            quoted = '"' + " ".join(tokens).replace('"', '""') + '"'
            needle = re.compile(re.escape(phrase), re.IGNORECASE)
            try:
                rows = self.store.conn.execute(
                    "SELECT rowid, raw FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?",
                    ("raw : " + quoted, limit * 4),
                ).fetchall()
                # the title column is stemmed: a phrase of words may be stored as
                # their stems, so the literal test is made on the stored section
                headed = self.store.conn.execute(
                    "SELECT c.id, c.path, c.ordinal, c.section FROM chunks_fts "
                    "JOIN chunks AS c ON c.id = chunks_fts.rowid "
                    "WHERE chunks_fts MATCH ? LIMIT ?",
                    ("title : " + quoted, limit * 4),
                ).fetchall()
            except sqlite3.OperationalError:
                continue
            for row in rows:
                chunk_id = int(row[0])
                p = int(self.positions([chunk_id])[0])
                if p < self.size and mask[p] and needle.search(row[1]):
                    found.setdefault(chunk_id, None)
            for chunk_id, path, ordinal, section in headed:
                p = int(self.positions([int(chunk_id)])[0])
                if p >= self.size or not mask[p] or not needle.search(str(section)):
                    continue
                best = by_heading.get(str(path))
                if best is None or int(ordinal) < best[1]:
                    by_heading[str(path)] = (int(chunk_id), int(ordinal))
        have_paths = set()
        if by_heading:
            rows_of = self.store.chunks_by_id(list(found))
            have_paths = {str(rows_of[i]["path"]) for i in found if i in rows_of}
        for path, (chunk_id, _) in by_heading.items():
            if path not in have_paths:
                found.setdefault(chunk_id, None)
        return list(found)[:limit]
