"""BM25 as a sparse matrix: the scoring half of the FTS5 index, held in memory.

FTS5 stores the analysed (stemmed) title and body of every chunk and answers exact
phrase lookups; but ``ORDER BY bm25()`` over an OR-query scores every matching row in
SQL, which takes hundreds of milliseconds at 100k chunks. So the same analysed text is
also compiled into a chunk × term matrix of BM25 weights (Lucene's idf, k1 = 1.2,
b = 0.75, the title's terms counted ``title_weight`` times), cached next to the index
(``search-bm25.bin``, memory-mapped, see :mod:`charter.search.sidecar`) and rebuilt when
the index generation changes (the generation moves in the same SQLite transaction as the
data, see ``charter.search.store``). A query is then the sum of a few sparse columns: a
few milliseconds at 100k chunks, touching only those columns' pages of the cache file.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from charter.search.sidecar import read_arrays, write_arrays
from charter.search.store import SearchStore
from charter.search.text import terms

if TYPE_CHECKING:
    from scipy import sparse

CACHE_NAME = "search-bm25.bin"
#: The cache's name before it was memory-mapped; removed when the new one is written.
OLD_CACHE_NAME = "search-bm25.npz"
K1 = 1.2
B = 0.75


def weigh(csr: sparse.csr_matrix, lengths: list[float]) -> None:
    """Turn a document × term count matrix into BM25 weights in place (one formula).

    Shared by search's chunk index and the graph's file and symbol indexes, so every
    capability ranks with the same idf, k1 and b.
    """
    n_docs = csr.shape[0]
    if not n_docs:
        return
    df = np.bincount(csr.indices, minlength=csr.shape[1]).astype(np.float64)
    idf = np.log((n_docs - df + 0.5) / (df + 0.5) + 1.0)
    dl = np.asarray(lengths, dtype=np.float64)
    norm = K1 * (1 - B + B * dl / max(dl.mean(), 1e-9))
    rows = np.repeat(np.arange(n_docs), np.diff(csr.indptr))
    tf_values = csr.data.astype(np.float64)
    csr.data = (idf[csr.indices] * tf_values * (K1 + 1) / (tf_values + norm[rows])).astype(
        np.float32
    )


class BM25Matrix:
    """Per-chunk BM25 weights, rows aligned with chunk ids in ascending order.

    Held as compressed columns (``indptr``, ``indices``, ``data``: one column per term),
    which may be memory-mapped from the cache file: a query sums the few columns of its
    terms, touching only their pages, with numpy alone (scipy is needed to build only).
    """

    def __init__(
        self,
        columns: tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float32]],
        n_rows: int,
        vocab: dict[str, int] | str,
        chunk_ids: npt.NDArray[np.int64],
        generation: int,
        title_weight: float,
        instance: str = "",
    ) -> None:
        self.indptr, self.indices, self.data = columns
        self.n_rows = n_rows
        self._vocab = vocab
        self.chunk_ids = chunk_ids
        self.generation = generation
        self.instance = instance
        self.title_weight = title_weight

    @property
    def vocab(self) -> dict[str, int]:
        """Term → column (parsed from the cache on first use: a cold open never pays it)."""
        if isinstance(self._vocab, str):
            terms_ = self._vocab.split("\n") if self._vocab else []
            self._vocab = {term: i for i, term in enumerate(terms_)}
        return self._vocab

    @classmethod
    def build(cls, store: SearchStore, title_weight: float) -> BM25Matrix:
        from scipy import sparse

        # read the generation BEFORE the content: if a writer commits in between, the
        # matrix is stamped older than what it holds and the next search rebuilds it,
        # never the other way round (new stamp, old content: stale for good)
        generation, instance = store.generation(), store.instance()
        vocab: dict[str, int] = {}
        indptr = [0]
        indices: list[int] = []
        counts: list[float] = []
        ids: list[int] = []
        lengths: list[float] = []
        weight = float(title_weight)
        for rowid, title, body in store.conn.execute(
            "SELECT rowid, title, body FROM chunks_fts ORDER BY rowid"
        ):
            tf: dict[int, float] = dict(
                Counter(vocab.setdefault(term, len(vocab)) for term in body.split())
            )
            if weight:
                for term in title.split():
                    key = vocab.setdefault(term, len(vocab))
                    tf[key] = tf.get(key, 0.0) + weight
            ids.append(int(rowid))
            indices.extend(tf.keys())
            counts.extend(tf.values())
            indptr.append(len(indices))
            lengths.append(float(sum(tf.values())))
        n_docs = len(ids)
        csr = sparse.csr_matrix(
            (
                np.asarray(counts, dtype=np.float32),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr, dtype=np.int64),
            ),
            shape=(n_docs, max(len(vocab), 1)),
        )
        weigh(csr, lengths)
        csc = csr.tocsc()
        columns = (
            np.asarray(csc.indptr, dtype=np.int64),
            np.asarray(csc.indices, dtype=np.int32),
            np.asarray(csc.data, dtype=np.float32),
        )
        ids_array = np.asarray(ids, dtype=np.int64)
        return cls(columns, n_docs, vocab, ids_array, generation, weight, instance)

    def scores(self, query: str) -> npt.NDArray[np.float32] | None:
        """BM25 score of every chunk (row order), or None when no query term is known.

        Columns are added in ascending order into a float32 vector, the order and
        precision of the sparse column sum this replaces, so scores are bit-identical.
        """
        vocab = self.vocab
        columns = sorted({vocab[t] for t in terms(query) if t in vocab})
        if not columns:
            return None
        out = np.zeros(self.n_rows, dtype=np.float32)
        for column in columns:
            start, end = int(self.indptr[column]), int(self.indptr[column + 1])
            # row indices are unique within a column: a fancy in-place add is exact
            out[self.indices[start:end]] += self.data[start:end]
        return out

    # -- cache -----------------------------------------------------------------------
    def save(self, path: Path) -> None:
        write_arrays(
            path,
            {
                "kind": "bm25",
                "generation": self.generation,
                "instance": self.instance,
                "title_weight": self.title_weight,
                "rows": self.n_rows,
            },
            {
                "indptr": self.indptr,
                "indices": self.indices,
                "data": self.data,
                "chunk_ids": self.chunk_ids,
                "vocab": np.frombuffer("\n".join(self.vocab).encode("utf-8"), dtype=np.uint8),
            },
            fault="bm25.save",
        )

    @classmethod
    def load(cls, path: Path) -> BM25Matrix | None:
        """The cached matrix (memory-mapped), or None when missing, torn or foreign."""
        read = read_arrays(path, "bm25")
        if read is None:
            return None
        meta, arrays = read
        try:
            indptr, indices, data = arrays["indptr"], arrays["indices"], arrays["data"]
            n_rows = int(meta["rows"])
            chunk_ids = arrays["chunk_ids"]
            if len(chunk_ids) != n_rows or len(indices) != len(data) or not len(indptr):
                return None
            if int(indptr[-1]) != len(indices):
                return None
            return cls(
                (indptr, indices, data),
                n_rows,
                bytes(arrays["vocab"]).decode("utf-8"),
                chunk_ids,
                int(meta["generation"]),
                float(meta["title_weight"]),
                str(meta.get("instance", "")),
            )
        except (KeyError, TypeError, ValueError, UnicodeDecodeError):
            return None


def bm25_for(store: SearchStore, state_dir: Path, title_weight: float) -> BM25Matrix:
    """The cached matrix if it matches the index generation, else a rebuilt (and saved) one."""
    path = state_dir / CACHE_NAME
    cached = BM25Matrix.load(path) if path.exists() else None
    if (
        cached is not None
        and cached.generation == store.generation()
        and cached.instance == store.instance()
        and math.isclose(cached.title_weight, title_weight)
    ):
        return cached
    fresh = BM25Matrix.build(store, title_weight)
    with contextlib.suppress(OSError):  # a read-only state dir still gets correct results
        fresh.save(path)
        (state_dir / OLD_CACHE_NAME).unlink(missing_ok=True)
    return fresh
