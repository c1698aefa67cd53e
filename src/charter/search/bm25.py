"""BM25 as a sparse matrix: the scoring half of the FTS5 index, held in memory.

FTS5 stores the analysed (stemmed) title and body of every chunk and answers exact
phrase lookups; but ``ORDER BY bm25()`` over an OR-query scores every matching row in
SQL, which takes hundreds of milliseconds at 100k chunks. So the same analysed text is
also compiled into a chunk × term matrix of BM25 weights (Lucene's idf, k1 = 1.2,
b = 0.75, the title's terms counted ``title_weight`` times), cached next to the index
(``search-bm25.npz``) and rebuilt when the index generation changes (the generation
moves in the same SQLite transaction as the data, see ``charter.search.store``). A query is then
the sum of a few sparse columns: a few milliseconds at 100k chunks.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy import sparse

from charter.fileio import fault_point
from charter.search.store import SearchStore
from charter.search.text import terms

CACHE_NAME = "search-bm25.npz"
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
    """Per-chunk BM25 weights, rows aligned with chunk ids in ascending order."""

    def __init__(
        self,
        matrix: sparse.csc_matrix,
        vocab: dict[str, int],
        chunk_ids: npt.NDArray[np.int64],
        generation: int,
        title_weight: float,
        instance: str = "",
    ) -> None:
        self.matrix = matrix
        self.vocab = vocab
        self.chunk_ids = chunk_ids
        self.generation = generation
        self.instance = instance
        self.title_weight = title_weight

    @classmethod
    def build(cls, store: SearchStore, title_weight: float) -> BM25Matrix:
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
        ids_array = np.asarray(ids, dtype=np.int64)
        return cls(csr.tocsc(), vocab, ids_array, generation, weight, instance)

    def scores(self, query: str) -> npt.NDArray[np.float32] | None:
        """BM25 score of every chunk (row order), or None when no query term is known."""
        columns = sorted({self.vocab[t] for t in terms(query) if t in self.vocab})
        if not columns:
            return None
        summed = self.matrix[:, columns].sum(axis=1)
        return np.asarray(summed, dtype=np.float32).reshape(-1)

    # -- cache -----------------------------------------------------------------------
    def save(self, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        np.savez(
            tmp,
            data=self.matrix.data,
            indices=self.matrix.indices,
            indptr=self.matrix.indptr,
            shape=np.asarray(self.matrix.shape, dtype=np.int64),
            chunk_ids=self.chunk_ids,
            meta=np.frombuffer(
                json.dumps(
                    {
                        "generation": self.generation,
                        "instance": self.instance,
                        "title_weight": self.title_weight,
                        "vocab": list(self.vocab),
                    }
                ).encode("utf-8"),
                dtype=np.uint8,
            ),
        )
        fault_point("bm25.save")
        os.replace(tmp, path)
        _remove_dead_temps(path)

    @classmethod
    def load(cls, path: Path) -> BM25Matrix | None:
        try:
            with np.load(path) as data:
                meta = json.loads(bytes(data["meta"]).decode("utf-8"))
                shape = tuple(int(x) for x in data["shape"])
                matrix = sparse.csc_matrix(
                    (data["data"], data["indices"], data["indptr"]), shape=shape
                )
                chunk_ids = data["chunk_ids"].astype(np.int64)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None
        vocab = {term: i for i, term in enumerate(meta["vocab"])}
        return cls(
            matrix,
            vocab,
            chunk_ids,
            int(meta["generation"]),
            float(meta["title_weight"]),
            str(meta.get("instance", "")),
        )


def _remove_dead_temps(path: Path) -> None:
    """Drop temp files of writers that were killed before their rename."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp.npz"):
        pid = tmp.name[len(path.name) + 2 :].split(".", 1)[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                tmp.unlink()
        except OSError:
            continue


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
    return fresh
