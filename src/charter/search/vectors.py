"""The dense half of the index as one memory-mapped file: vectors and the chunk map.

A search needs, for every chunk in id order, its vector and the index of its document
(for scope masks). Reading them out of SQLite rows cost about a second per process at
100k chunks (most of a cold ``charter search``), so they are kept in a sidecar
(``search-vectors.bin``, :mod:`charter.search.sidecar`) stamped with the index
generation and instance, the embedding model and its dimension. The indexer writes it
after each commit; a reader whose stamp differs (a kill between the commit and the
sidecar, another model, a recreated index) rebuilds it from SQLite, which stays the
source of truth.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from charter.search.sidecar import read_arrays, write_arrays
from charter.search.store import SearchStore

VECTORS_NAME = "search-vectors.bin"


@dataclass
class VectorIndex:
    """Chunk ids (ascending), each chunk's document (index into the sorted document
    paths) and its vector under ``model`` (zeros where the chunk has none)."""

    chunk_ids: npt.NDArray[np.int64]
    chunk_doc: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    missing: int
    model: str
    dim: int
    documents: int
    generation: int
    instance: str

    @classmethod
    def build(cls, store: SearchStore, model: str, dim: int) -> VectorIndex:
        """Read from SQLite (call inside a read snapshot for one consistent state)."""
        # the stamp is read before the content: a writer committing in between leaves
        # the sidecar stamped older than what it holds (rebuilt next time), never newer
        generation, instance = store.generation(), store.instance()
        doc_paths = sorted(store.docs())
        doc_index = {p: i for i, p in enumerate(doc_paths)}
        ids, paths = store.chunk_paths()
        chunk_doc = np.fromiter((doc_index[p] for p in paths), dtype=np.int64, count=len(paths))
        vec_ids, matrix = store.load_matrix(model)
        if len(vec_ids) == len(ids) and np.array_equal(vec_ids, ids):
            aligned = matrix
        else:  # some chunks lack vectors for this model: align, zeros where missing
            aligned = np.zeros((len(ids), dim), dtype=np.float32)
            if len(vec_ids) and matrix.shape[1] == dim:
                pos = np.searchsorted(ids, vec_ids)
                ok = (pos < len(ids)) & (ids[np.minimum(pos, len(ids) - 1)] == vec_ids)
                aligned[pos[ok]] = matrix[ok]
        return cls(
            ids,
            chunk_doc,
            aligned,
            len(ids) - len(vec_ids),
            model,
            dim,
            len(doc_paths),
            generation,
            instance,
        )

    def save(self, path: Path) -> None:
        write_arrays(
            path,
            {
                "kind": "vectors",
                "generation": self.generation,
                "instance": self.instance,
                "model": self.model,
                "dim": self.dim,
                "missing": self.missing,
                "documents": self.documents,
            },
            {"chunk_ids": self.chunk_ids, "chunk_doc": self.chunk_doc, "matrix": self.matrix},
            fault="vectors.save",
        )

    @classmethod
    def load(cls, path: Path) -> VectorIndex | None:
        """The sidecar, memory-mapped; None when missing, torn or not a vector sidecar."""
        read = read_arrays(path, "vectors")
        if read is None:
            return None
        meta, arrays = read
        try:
            ids, chunk_doc, matrix = arrays["chunk_ids"], arrays["chunk_doc"], arrays["matrix"]
            if ids.dtype != np.int64 or chunk_doc.dtype != np.int64:
                return None
            if matrix.dtype != np.float32 or matrix.ndim != 2:
                return None
            if not len(ids) == len(chunk_doc) == matrix.shape[0]:
                return None
            return cls(
                ids,
                chunk_doc,
                matrix,
                int(meta["missing"]),
                str(meta["model"]),
                int(meta["dim"]),
                int(meta["documents"]),
                int(meta["generation"]),
                str(meta["instance"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def matches(self, store: SearchStore, model: str, dim: int) -> bool:
        """Built from the index's current state for this model?"""
        return (
            self.generation == store.generation()
            and self.instance == store.instance()
            and self.model == model
            and self.dim == dim
        )


def vectors_for(store: SearchStore, state_dir: Path, model: str, dim: int) -> VectorIndex:
    """The sidecar if it matches the index, else one rebuilt from SQLite (and saved).

    Call inside a read snapshot of ``store`` so the stamp check and a rebuild see the
    same state.
    """
    path = state_dir / VECTORS_NAME
    cached = VectorIndex.load(path) if path.exists() else None
    if cached is not None and cached.matches(store, model, dim):
        return cached
    fresh = VectorIndex.build(store, model, dim)
    with contextlib.suppress(OSError):  # a read-only state dir still gets correct results
        fresh.save(path)
    return fresh
