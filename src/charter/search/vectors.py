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

from charter.search.delta import DocStamps, decode_docs, doc_delta, doc_stamps, encode_docs
from charter.search.sidecar import Stacked, read_arrays, write_arrays
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
    #: per chunk: has a vector (1) or a zero row (0); with the document stamps, what
    #: :meth:`update` needs (None in a sidecar written before them)
    has_vector: npt.NDArray[np.uint8] | None = None
    #: the stamps (:mod:`charter.search.delta`), or their encoded form as read from a
    #: sidecar, decoded by :meth:`doc_stamps` on first use (a search never needs them)
    docs: DocStamps | npt.NDArray[np.uint8] | None = None
    #: set by ``update(stacked=True)``: the rows as blocks to save, ``matrix`` left empty
    #: (:func:`vectors_for` saves them and serves the saved file by memory map)
    matrix_blocks: Stacked | None = None

    def doc_stamps(self) -> DocStamps | None:
        """Every document's stamp at build time, or None when not kept or inconsistent."""
        if isinstance(self.docs, np.ndarray):
            docs = decode_docs(self.docs)
            n = len(self.chunk_doc)
            if (
                docs is not None
                and n
                and not 0 <= int(self.chunk_doc.min()) <= int(self.chunk_doc.max()) < len(docs)
            ):
                docs = None
            self.docs = docs
        return self.docs

    @classmethod
    def build(cls, store: SearchStore, model: str, dim: int) -> VectorIndex:
        """Read from SQLite (call inside a read snapshot for one consistent state)."""
        # the stamp is read before the content: a writer committing in between leaves
        # the sidecar stamped older than what it holds (rebuilt next time), never newer
        generation, instance = store.generation(), store.instance()
        docs = doc_stamps(store)
        doc_index = {p: i for i, (p, _) in enumerate(docs)}
        ids, paths = store.chunk_paths()
        chunk_doc = np.fromiter((doc_index[p] for p in paths), dtype=np.int64, count=len(paths))
        vec_ids, matrix = store.load_matrix(model)
        has = np.zeros(len(ids), dtype=np.uint8)
        if len(vec_ids) == len(ids) and np.array_equal(vec_ids, ids):
            aligned = matrix
            has[:] = 1
        else:  # some chunks lack vectors for this model: align, zeros where missing
            aligned = np.zeros((len(ids), dim), dtype=np.float32)
            if len(vec_ids) and matrix.shape[1] == dim:
                pos = np.searchsorted(ids, vec_ids)
                ok = (pos < len(ids)) & (ids[np.minimum(pos, len(ids) - 1)] == vec_ids)
                aligned[pos[ok]] = matrix[ok]
                has[pos[ok]] = 1
        return cls(
            ids,
            chunk_doc,
            aligned,
            len(ids) - int(has.sum()),
            model,
            dim,
            len(docs),
            generation,
            instance,
            has,
            docs,
        )

    @classmethod
    def update(
        cls, old: VectorIndex, store: SearchStore, model: str, dim: int, *, stacked: bool = False
    ) -> VectorIndex | None:
        """``old`` brought to the index's current state by reading the vectors of only
        the documents whose stamp changed (:mod:`charter.search.delta`), or None when it
        cannot be (no stamps kept, another instance or model, most documents changed)."""
        generation, instance = store.generation(), store.instance()
        if old.instance != instance or old.model != model or old.dim != dim:
            return None
        old_docs = old.doc_stamps()
        if old_docs is None or old.has_vector is None:
            return None
        docs = doc_stamps(store)
        delta = doc_delta(old_docs, docs)
        if not delta.small(len(docs)):
            return None
        keep = np.flatnonzero(~delta.dropped[old.chunk_doc])
        ids: list[int] = []
        doc_of: list[int] = []
        blobs: list[bytes] = []
        has: list[int] = []
        width = dim * 4
        for path in delta.changed:
            for chunk_id, blob in store.conn.execute(
                "SELECT c.id, v.vec FROM chunks c LEFT JOIN vectors v "
                "ON v.chunk_id = c.id AND v.model = ? WHERE c.path = ? ORDER BY c.id",
                (model, path),
            ):
                if blob is not None and len(blob) != width:
                    return None  # a vector of another size: the full build's business
                ids.append(int(chunk_id))
                doc_of.append(delta.new_index[path])
                blobs.append(blob if blob is not None else bytes(width))
                has.append(blob is not None)
        fresh = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
        chunk_ids = np.concatenate([old.chunk_ids[keep], np.asarray(ids, dtype=np.int64)])
        chunk_doc = np.concatenate(
            [delta.remap[old.chunk_doc[keep]], np.asarray(doc_of, dtype=np.int64)]
        )
        has_vector = np.concatenate([old.has_vector[keep], np.asarray(has, dtype=np.uint8)])
        ascending = len(chunk_ids) < 2 or bool(np.all(chunk_ids[1:] > chunk_ids[:-1]))
        blocks = None
        if stacked and ascending:  # kept rows as runs of the old file's rows: no copy
            runs = np.split(keep, np.flatnonzero(np.diff(keep) != 1) + 1) if len(keep) else []
            parts = [old.matrix[int(r[0]) : int(r[-1]) + 1] for r in runs if len(r)]
            blocks = Stacked([*parts, fresh])
            matrix = np.zeros((0, dim), dtype=np.float32)
        else:
            matrix = np.empty((len(chunk_ids), dim), dtype=np.float32)  # one copy of the rows
            np.take(old.matrix, keep, axis=0, out=matrix[: len(keep)])
            matrix[len(keep) :] = fresh
        if not ascending:
            order = np.argsort(chunk_ids, kind="stable")
            chunk_ids, chunk_doc = chunk_ids[order], chunk_doc[order]
            matrix, has_vector = matrix[order], has_vector[order]
        return cls(
            chunk_ids,
            chunk_doc,
            matrix,
            len(chunk_ids) - int(has_vector.sum()),
            model,
            dim,
            len(docs),
            generation,
            instance,
            has_vector,
            docs,
            blocks,
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
            {
                "chunk_ids": self.chunk_ids,
                "chunk_doc": self.chunk_doc,
                "matrix": self.matrix if self.matrix_blocks is None else self.matrix_blocks,
                **(
                    {"has_vector": self.has_vector, "docs": encode_docs(stamps)}
                    if self.has_vector is not None and (stamps := self.doc_stamps()) is not None
                    else {}
                ),
            },
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
            has, docs = arrays.get("has_vector"), arrays.get("docs")
            if has is None or docs is None or len(has) != len(ids) or has.dtype != np.uint8:
                has, docs = None, None  # readable, but updated by a full build only
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
                has,
                docs,
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
    if cached is not None:
        updated = VectorIndex.update(cached, store, model, dim, stacked=True)
        if updated is not None and updated.matrix_blocks is not None:
            # written from the old file's rows and the new ones, then served by memory map
            # like any current sidecar: the 100k x 384 matrix is never copied in memory
            with contextlib.suppress(OSError):
                updated.save(path)
                saved = VectorIndex.load(path)
                same = saved is not None and saved.matches(store, model, dim)
                if saved is not None and same and saved.doc_stamps() == updated.doc_stamps():
                    return saved
            updated = VectorIndex.update(cached, store, model, dim)  # not saved: in memory
        if updated is not None:
            with contextlib.suppress(OSError):
                updated.save(path)
            return updated
    fresh = VectorIndex.build(store, model, dim)
    with contextlib.suppress(OSError):  # a read-only state dir still gets correct results
        fresh.save(path)
    return fresh
