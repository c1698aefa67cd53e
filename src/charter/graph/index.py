"""BM25 over files for task context, weighted by search's one formula (``search.bm25``).

Each file is a document of its code-aware terms plus its path's terms counted
``PATH_WEIGHT`` times (a file called ``sessions.py`` is about sessions). The matrix is
built from the cached per-file term counts and is small enough to rebuild per process.
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse

from charter.fileio import remove_dead_temps
from charter.graph.text import code_terms
from charter.search.bm25 import weigh

PATH_WEIGHT = 3.0


class FileIndex:
    """Rows aligned with ``paths``; ``scores(terms)`` is a BM25 score per file."""

    matrix: sparse.csc_matrix
    vocab: dict[str, int]
    paths: list[str]

    def __init__(
        self, records: dict[str, dict[str, Any]] | None, path_weight: float = PATH_WEIGHT
    ) -> None:
        if records is None:  # filled in by load()
            return
        self.paths = sorted(records)
        vocab: dict[str, int] = {}
        indptr: list[int] = [0]
        indices: list[int] = []
        counts: list[float] = []
        lengths: list[float] = []
        for path in self.paths:
            tf: dict[int, float] = {}
            for term, count in records[path].get("tf", {}).items():
                key = vocab.setdefault(term, len(vocab))
                tf[key] = float(count)
            for term in code_terms(path):
                key = vocab.setdefault(term, len(vocab))
                tf[key] = tf.get(key, 0.0) + path_weight
            indices.extend(tf)
            counts.extend(tf.values())
            indptr.append(len(indices))
            lengths.append(sum(tf.values()))
        csr = sparse.csr_matrix(
            (
                np.asarray(counts, dtype=np.float32),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr, dtype=np.int64),
            ),
            shape=(len(self.paths), max(len(vocab), 1)),
        )
        weigh(csr, lengths)
        self.matrix = csr.tocsc()
        self.vocab = vocab

    def share(self, term: str) -> float:
        """The share of files whose terms hold ``term`` (0 when none)."""
        col = self.vocab.get(term)
        if col is None or not self.paths:
            return 0.0
        ptr = self.matrix.indptr
        return float(ptr[col + 1] - ptr[col]) / len(self.paths)

    def save(self, path: Path, key: str) -> None:
        """Cache next to the snapshot (``key`` = the snapshot id it was built from)."""
        meta = json.dumps({"key": key, "paths": self.paths, "vocab": list(self.vocab)})
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        np.savez(
            tmp,
            data=self.matrix.data,
            indices=self.matrix.indices,
            indptr=self.matrix.indptr,
            shape=np.asarray(self.matrix.shape, dtype=np.int64),
            meta=np.frombuffer(meta.encode("utf-8"), dtype=np.uint8),
        )
        os.replace(tmp, path)
        remove_dead_temps(path)  # those of builders killed before their rename

    @classmethod
    def load(cls, path: Path, key: str) -> FileIndex | None:
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode("utf-8"))
                if meta.get("key") != key:
                    return None
                shape = tuple(int(x) for x in data["shape"])
                matrix = sparse.csc_matrix(
                    (data["data"], data["indices"], data["indptr"]), shape=shape
                )
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None
        index = cls(None)
        index.matrix = matrix
        index.paths = list(meta["paths"])
        index.vocab = {term: i for i, term in enumerate(meta["vocab"])}
        return index

    def scores(
        self, terms: list[str], scale: dict[str, float] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[int, list[str]]]:
        """Score per file for the query terms (repeats count, each times its ``scale``,
        1 when not given; a term scaled to 0 is left out), and which terms hit each file."""
        counts: dict[int, float] = {}
        for term in terms:
            weight = 1.0 if scale is None else scale.get(term, 1.0)
            if term in self.vocab and weight > 0:
                counts[self.vocab[term]] = counts.get(self.vocab[term], 0) + weight
        total = np.zeros(len(self.paths), dtype=np.float32)
        if not counts:
            return total, {}
        columns = sorted(counts)
        sub = self.matrix[:, columns]
        weights = np.asarray([counts[c] for c in columns], dtype=np.float32)
        total = np.asarray(sub @ weights, dtype=np.float32).reshape(-1)
        inverse = {v: k for k, v in self.vocab.items() if v in counts}
        matched: dict[int, list[str]] = {}
        coo = sub.tocoo()
        for row, col in zip(coo.row.tolist(), coo.col.tolist(), strict=True):
            matched.setdefault(row, []).append(inverse[columns[col]])
        return total, matched


def index_for(
    records: Callable[[], dict[str, dict[str, Any]]], directory: Path, key: str
) -> FileIndex:
    """The cached index for snapshot ``key``, else a fresh one from ``records()`` (saved
    when possible): the records are only read when the cache is missing or stale."""
    path = directory / "file-index.npz"
    cached = FileIndex.load(path, key) if path.is_file() else None
    if cached is not None:
        return cached
    fresh = FileIndex(records())
    if directory.is_dir():
        with contextlib.suppress(OSError):
            fresh.save(path, key)
    return fresh
