"""BM25 over files for task context, weighted by search's one formula (``search.bm25``).

Each file is a document of its code-aware terms plus its path's terms counted
``PATH_WEIGHT`` times (a file called ``sessions.py`` is about sessions). The matrix is
built from the cached per-file term counts and is small enough to rebuild per process.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse

from charter.graph.text import code_terms
from charter.search.bm25 import weigh

PATH_WEIGHT = 3.0


class FileIndex:
    """Rows aligned with ``paths``; ``scores(terms)`` is a BM25 score per file."""

    def __init__(
        self, records: dict[str, dict[str, Any]], path_weight: float = PATH_WEIGHT
    ) -> None:
        self.paths = sorted(records)
        vocab: dict[str, int] = {}
        indptr, indices, counts, lengths = [0], [], [], []
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
            (np.asarray(counts, dtype=np.float32), np.asarray(indices, dtype=np.int32),
             np.asarray(indptr, dtype=np.int64)),
            shape=(len(self.paths), max(len(vocab), 1)),
        )
        weigh(csr, lengths)
        self.matrix = csr.tocsc()
        self.vocab = vocab
        self.df = np.bincount(csr.indices, minlength=csr.shape[1])

    def scores(self, terms: list[str]) -> tuple[npt.NDArray[np.float32], dict[int, list[str]]]:
        """Score per file for the query terms (repeats count), and which terms hit each file."""
        counts: dict[int, int] = {}
        for term in terms:
            if term in self.vocab:
                counts[self.vocab[term]] = counts.get(self.vocab[term], 0) + 1
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
