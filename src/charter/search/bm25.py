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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from charter.search.delta import (
    DocStamps,
    decode_docs,
    doc_delta,
    doc_stamps,
    encode_docs,
    gather_rows,
)
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


def weigh(csr: sparse.csr_matrix, lengths: Sequence[float] | npt.NDArray[np.float64]) -> None:
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
    tf_values = csr.data.astype(np.float64)
    # idf * tf * (k1 + 1) / (tf + norm), evaluated in that order in place: the same
    # float64 roundings as the one-expression form, with two temporaries instead of six
    weights = idf[csr.indices]
    weights *= tf_values
    weights *= K1 + 1
    tf_values += np.repeat(norm, np.diff(csr.indptr))
    weights /= tf_values
    csr.data = weights.astype(np.float32)


def _row_counts(vocab: dict[str, int], title: str, body: str, weight: float) -> dict[int, float]:
    """One chunk's term counts, keys in order of first appearance (body, then title)."""
    tf: dict[int, float] = dict(
        Counter(vocab.setdefault(term, len(vocab)) for term in body.split())
    )
    if weight:
        for term in title.split():
            key = vocab.setdefault(term, len(vocab))
            tf[key] = tf.get(key, 0.0) + weight
    return tf


@dataclass
class CountRows:
    """The raw chunk × term counts a matrix was weighed from, kept for updates.

    Rows in ascending chunk id; each row's terms in order of first appearance, as the
    full build meets them, so an updated matrix can number its terms exactly as a full
    build would (columns are summed in that order: same order, same float32 scores).
    """

    chunk_ids: npt.NDArray[np.int64]
    row_ptr: npt.NDArray[np.int64]
    terms: npt.NDArray[np.int32]
    counts: npt.NDArray[np.float32]
    lengths: npt.NDArray[np.float64]
    row_doc: npt.NDArray[np.int32]  # index into ``docs`` (-1: chunk without a chunks row)
    vocab: list[str]
    docs: DocStamps


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
        rows: CountRows | Callable[[], CountRows | None] | None = None,
    ) -> None:
        self.indptr, self.indices, self.data = columns
        self._rows = rows
        self.n_rows = n_rows
        self._vocab = vocab
        self.chunk_ids = chunk_ids
        self.generation = generation
        self.instance = instance
        self.title_weight = title_weight

    @property
    def rows(self) -> CountRows | None:
        """The raw counts, for :meth:`update`; None in a sidecar written before they were
        kept. Read from a sidecar on first use: a search never touches their pages."""
        if callable(self._rows):
            self._rows = self._rows()
        return self._rows

    @rows.setter
    def rows(self, value: CountRows | None) -> None:
        self._rows = value

    @property
    def vocab(self) -> dict[str, int]:
        """Term → column (parsed from the cache on first use: a cold open never pays it)."""
        if isinstance(self._vocab, str):
            terms_ = self._vocab.split("\n") if self._vocab else []
            self._vocab = {term: i for i, term in enumerate(terms_)}
        return self._vocab

    @classmethod
    def build(cls, store: SearchStore, title_weight: float) -> BM25Matrix:
        # read the generation BEFORE the content: if a writer commits in between, the
        # matrix is stamped older than what it holds and the next search rebuilds it,
        # never the other way round (new stamp, old content: stale for good)
        generation, instance = store.generation(), store.instance()
        docs = doc_stamps(store)
        doc_index = {path: i for i, (path, _) in enumerate(docs)}
        vocab: dict[str, int] = {}
        indptr = [0]
        indices: list[int] = []
        counts: list[float] = []
        ids: list[int] = []
        lengths: list[float] = []
        row_doc: list[int] = []
        weight = float(title_weight)
        for rowid, title, body, path in store.conn.execute(
            "SELECT f.rowid, f.title, f.body, c.path FROM chunks_fts f "
            "LEFT JOIN chunks c ON c.id = f.rowid ORDER BY f.rowid"
        ):
            tf = _row_counts(vocab, title, body, weight)
            ids.append(int(rowid))
            indices.extend(tf.keys())
            counts.extend(tf.values())
            indptr.append(len(indices))
            lengths.append(float(sum(tf.values())))
            row_doc.append(doc_index.get(path, -1))
        rows = CountRows(
            np.asarray(ids, dtype=np.int64),
            np.asarray(indptr, dtype=np.int64),
            np.asarray(indices, dtype=np.int32),
            np.asarray(counts, dtype=np.float32),
            np.asarray(lengths, dtype=np.float64),
            np.asarray(row_doc, dtype=np.int32),
            list(vocab),
            docs,
        )
        return cls._weighed(rows, generation, instance, weight, numbered=True)

    @classmethod
    def update(cls, old: BM25Matrix, store: SearchStore, title_weight: float) -> BM25Matrix | None:
        """``old`` brought to the index's current state by re-reading only the chunks of
        documents whose stamp changed (see :mod:`charter.search.delta`), or None when it
        cannot be (no counts kept, another instance or title weight, most documents
        changed): the caller builds from scratch. Scores equal a full build's bit for bit.
        """
        generation, instance = store.generation(), store.instance()
        raw = old.rows
        weight = float(title_weight)
        if raw is None or old.instance != instance or not math.isclose(old.title_weight, weight):
            return None
        if len(raw.row_doc) and int(raw.row_doc.min()) < 0:
            return None
        docs = doc_stamps(store)
        delta = doc_delta(raw.docs, docs)
        if not delta.small(len(docs)):
            return None
        keep = (
            np.flatnonzero(~delta.dropped[raw.row_doc])
            if len(raw.row_doc)
            else np.zeros(0, np.int64)
        )
        positions, kept_ptr = gather_rows(raw.row_ptr, keep)
        vocab = {term: i for i, term in enumerate(raw.vocab)}
        ids: list[int] = []
        indices: list[int] = []
        counts: list[float] = []
        lengths: list[float] = []
        row_doc: list[int] = []
        ptr: list[int] = []
        for path in delta.changed:
            for rowid, title, body in store.conn.execute(
                "SELECT c.id, f.title, f.body FROM chunks c "
                "JOIN chunks_fts f ON f.rowid = c.id WHERE c.path = ? ORDER BY c.id",
                (path,),
            ):
                tf = _row_counts(vocab, title, body, weight)
                ids.append(int(rowid))
                ptr.append(len(tf))
                indices.extend(tf.keys())
                counts.extend(tf.values())
                lengths.append(float(sum(tf.values())))
                row_doc.append(delta.new_index[path])
        new_ptr = np.zeros(len(ptr) + 1, dtype=np.int64)
        np.cumsum(np.asarray(ptr, dtype=np.int64), out=new_ptr[1:])
        chunk_ids = np.concatenate([raw.chunk_ids[keep], np.asarray(ids, dtype=np.int64)])
        rows = CountRows(
            chunk_ids,
            np.concatenate([kept_ptr, new_ptr[1:] + kept_ptr[-1]]),
            np.concatenate([raw.terms[positions], np.asarray(indices, dtype=np.int32)]),
            np.concatenate([raw.counts[positions], np.asarray(counts, dtype=np.float32)]),
            np.concatenate([raw.lengths[keep], np.asarray(lengths, dtype=np.float64)]),
            np.concatenate(
                [delta.remap[raw.row_doc[keep]].astype(np.int32), np.asarray(row_doc, np.int32)]
            ),
            list(vocab),
            docs,
        )
        if len(chunk_ids) > 1 and not bool(np.all(chunk_ids[1:] > chunk_ids[:-1])):
            rows = _sorted_rows(rows)
        return cls._weighed(rows, generation, instance, weight, numbered=False)

    @classmethod
    def _weighed(
        cls, rows: CountRows, generation: int, instance: str, weight: float, *, numbered: bool
    ) -> BM25Matrix:
        """The matrix of ``rows``; unless ``numbered`` (a full build), terms are first
        renumbered in order of first appearance, as a full build numbers them."""
        from scipy import sparse

        if not numbered:
            rows = _renumbered(rows)
        n_docs = len(rows.chunk_ids)
        csr = sparse.csr_matrix(
            (rows.counts, rows.terms, rows.row_ptr), shape=(n_docs, max(len(rows.vocab), 1))
        )
        weigh(csr, rows.lengths)
        csc = csr.tocsc()
        columns = (
            np.asarray(csc.indptr, dtype=np.int64),
            np.asarray(csc.indices, dtype=np.int32),
            np.asarray(csc.data, dtype=np.float32),
        )
        vocab = {term: i for i, term in enumerate(rows.vocab)}
        return cls(columns, n_docs, vocab, rows.chunk_ids, generation, weight, instance, rows)

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
                **(_row_arrays(self.rows) if self.rows is not None else {}),
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
            vocab_text = bytes(arrays["vocab"]).decode("utf-8")
            return cls(
                (indptr, indices, data),
                n_rows,
                vocab_text,
                chunk_ids,
                int(meta["generation"]),
                float(meta["title_weight"]),
                str(meta.get("instance", "")),
                lambda: _loaded_rows(arrays, chunk_ids, vocab_text),
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
    fresh = BM25Matrix.update(cached, store, title_weight) if cached is not None else None
    if fresh is None:
        fresh = BM25Matrix.build(store, title_weight)
    with contextlib.suppress(OSError):  # a read-only state dir still gets correct results
        fresh.save(path)
        (state_dir / OLD_CACHE_NAME).unlink(missing_ok=True)
    return fresh


def _row_arrays(rows: CountRows) -> dict[str, npt.NDArray[np.generic]]:
    return {
        "row_ptr": rows.row_ptr,
        "row_terms": rows.terms,
        "row_counts": rows.counts,
        "row_lengths": rows.lengths,
        "row_doc": rows.row_doc,
        "docs": encode_docs(rows.docs),
    }


def _loaded_rows(
    arrays: dict[str, npt.NDArray[np.generic]], chunk_ids: npt.NDArray[np.int64], vocab: str
) -> CountRows | None:
    """The counts kept in a sidecar, or None when absent or inconsistent (then an update
    falls back to a full build; queries never read them)."""
    try:
        row_ptr, terms, counts = arrays["row_ptr"], arrays["row_terms"], arrays["row_counts"]
        lengths, row_doc = arrays["row_lengths"], arrays["row_doc"]
    except KeyError:
        return None
    docs = decode_docs(arrays.get("docs"))  # type: ignore[arg-type]
    n_rows = len(chunk_ids)
    if docs is None or len(row_ptr) != n_rows + 1 or len(lengths) != n_rows:
        return None
    if len(row_doc) != n_rows or len(terms) != len(counts) or int(row_ptr[-1]) != len(terms):
        return None
    if row_ptr.dtype != np.int64 or terms.dtype != np.int32 or counts.dtype != np.float32:
        return None
    if lengths.dtype != np.float64 or row_doc.dtype != np.int32:
        return None
    words = vocab.split("\n") if vocab else []
    if len(terms) and (int(terms.max()) >= len(words) or int(terms.min()) < 0):
        return None
    if n_rows and int(row_doc.max()) >= len(docs):
        return None
    return CountRows(chunk_ids, row_ptr, terms, counts, lengths, row_doc, words, docs)  # type: ignore[arg-type]


def _renumbered(rows: CountRows) -> CountRows:
    """Terms numbered by first appearance over the rows (a full build's numbering), and
    terms no row holds any more dropped from the vocabulary."""
    nnz = len(rows.terms)
    first = np.full(len(rows.vocab), nnz, dtype=np.int64)
    np.minimum.at(first, rows.terms, np.arange(nnz, dtype=np.int64))
    used = np.flatnonzero(first < nnz)
    order = used[np.argsort(first[used], kind="stable")]
    number = np.full(len(rows.vocab), -1, dtype=np.int32)
    number[order] = np.arange(len(order), dtype=np.int32)
    return CountRows(
        rows.chunk_ids,
        rows.row_ptr,
        number[rows.terms],
        rows.counts,
        rows.lengths,
        rows.row_doc,
        [rows.vocab[i] for i in order],
        rows.docs,
    )


def _sorted_rows(rows: CountRows) -> CountRows:
    """Rows put back in ascending chunk id (a full build reads them in that order)."""
    order = np.argsort(rows.chunk_ids, kind="stable")
    positions, row_ptr = gather_rows(rows.row_ptr, order)
    return CountRows(
        rows.chunk_ids[order],
        row_ptr,
        rows.terms[positions],
        rows.counts[positions],
        rows.lengths[order],
        rows.row_doc[order],
        rows.vocab,
        rows.docs,
    )
