"""A re-index of a few changed files updates the search sidecars instead of rebuilding
them, and the updated sidecars are the ones a full rebuild writes, bit for bit.

The BM25 postings and the vector sidecar record every document's stamp; an update keeps
the rows of documents whose stamp is unchanged and re-reads the others
(``charter.search.delta``). These tests change a real indexed project (the demo's docs,
decisions and data, the real MiniLM model) by editing, adding, deleting and re-adding
files, then compare the updated sidecars with a full build from the same SQLite state,
and the results of fresh ``charter search --json`` processes with the rebuilt ones.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from charter.config import Project
from charter.search import bm25 as bm25_mod
from charter.search import vectors as vectors_mod
from charter.search.bm25 import CACHE_NAME, BM25Matrix, bm25_for
from charter.search.chunks import Chunk
from charter.search.embedding import search_embedder
from charter.search.indexer import Indexer
from charter.search.store import SearchStore
from charter.search.vectors import VECTORS_NAME, VectorIndex, vectors_for
from charter.store.db import read_snapshot
from tests.conftest import CHARTER_BIN, cli_search, demo_search_copy

QUERIES = [
    "how do we roll back a failed deploy",
    "credit note approval limit",
    "retry queue lease expiry",
    "who owns the billing service",
    "on-call paging",
]


def _same_bm25(a: BM25Matrix, b: BM25Matrix) -> None:
    for x, y in ((a.indptr, b.indptr), (a.indices, b.indices), (a.chunk_ids, b.chunk_ids)):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    assert a.data.dtype == b.data.dtype and a.data.tobytes() == b.data.tobytes()
    assert list(a.vocab) == list(b.vocab) and a.n_rows == b.n_rows
    assert (a.generation, a.instance) == (b.generation, b.instance)


def _same_vectors(a: VectorIndex, b: VectorIndex) -> None:
    assert np.array_equal(a.chunk_ids, b.chunk_ids)
    assert np.array_equal(a.chunk_doc, b.chunk_doc)
    assert a.matrix.tobytes() == b.matrix.tobytes()
    assert (a.missing, a.documents, a.generation, a.instance) == (
        b.missing,
        b.documents,
        b.generation,
        b.instance,
    )


def _check_against_full_build(root: Path) -> None:
    """The sidecars on disk equal full builds from the index's current state."""
    project = Project.load(root)
    embedder = search_embedder(project.settings)
    state = project.state_dir
    with SearchStore.for_state_dir(state) as store, read_snapshot(store.conn):
        on_disk = BM25Matrix.load(state / CACHE_NAME)
        vectors = VectorIndex.load(state / VECTORS_NAME)
        assert on_disk is not None and vectors is not None
        assert on_disk.generation == store.generation()
        _same_bm25(on_disk, BM25Matrix.build(store, project.settings.search.fusion.title_weight))
        _same_vectors(vectors, VectorIndex.build(store, embedder.name, embedder.dim))


def _cli_index(root: Path) -> None:
    res = subprocess.run(
        [str(CHARTER_BIN), "index"], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr


def _counting(calls: dict[str, int], key: str, real: Any) -> classmethod[Any, Any, Any]:
    def run(klass: Any, *args: Any, **kwargs: Any) -> Any:
        out = real(klass, *args, **kwargs)
        calls[key] += out is not None
        return out

    return classmethod(run)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each sidecar was built in full and updated in this process."""
    calls = {"bm25.build": 0, "bm25.update": 0, "vectors.build": 0, "vectors.update": 0}
    for name, cls in (("bm25", BM25Matrix), ("vectors", VectorIndex)):
        for method in ("build", "update"):
            real = getattr(cls, method).__func__
            monkeypatch.setattr(cls, method, _counting(calls, f"{name}.{method}", real))
    return calls


def test_reindex_updates_sidecars_equal_to_a_full_build(
    tmp_path: Path, counted: dict[str, int]
) -> None:
    root = demo_search_copy(tmp_path / "proj")
    project = Project.load(root)
    embedder = search_embedder(project.settings)
    Indexer(project, embedder).run()
    assert counted["bm25.build"] == 1 and counted["vectors.build"] == 1

    runbook = root / "docs" / "runbook.md"
    runbook.write_text(
        runbook.read_text() + "\n## Retry queue\n\nThe retry queue drains after the lease "
        "expires; page the on-call engineer when it grows past 10,000 jobs.\n"
    )
    (root / "docs" / "queue.md").write_text(
        "# Queue lease\n\nA worker holds a lease of 30 seconds on each job in the retry queue.\n"
    )
    gone = root / "docs" / "product-overview.md"
    kept_text = gone.read_text()
    gone.unlink()
    report = Indexer(project, embedder).run()
    assert set(report.indexed) == {"docs/runbook.md", "docs/queue.md"}
    assert report.deleted == ["docs/product-overview.md"]
    assert counted["bm25.update"] == 1 and counted["vectors.update"] == 1
    assert counted["bm25.build"] == 1 and counted["vectors.build"] == 1  # no rebuild
    _check_against_full_build(root)

    before = dict(counted)  # the check built each sidecar once more
    gone.write_text(kept_text)  # back again: a deleted document becomes live
    runbook.write_text(runbook.read_text().replace("10,000", "20,000"))
    Indexer(project, embedder).run()
    assert counted["bm25.update"] == before["bm25.update"] + 1
    assert counted["vectors.update"] == before["vectors.update"] + 1
    assert counted["bm25.build"] == before["bm25.build"]
    assert counted["vectors.build"] == before["vectors.build"]
    _check_against_full_build(root)


def test_update_reorders_rows_and_drops_vanished_terms(tmp_path: Path) -> None:
    """Documents rewritten out of path order (new chunk ids not ascending in the order the
    update reads them), a term that only a rewritten chunk held, a deleted document."""
    state = tmp_path / ".charter"
    model, dim = "test-model", 4

    def put(store: SearchStore, path: str, words: list[str]) -> None:
        chunks = [
            Chunk("markdown", i + 1, i + 1, "S", f"T{i}", w, ordinal=i) for i, w in enumerate(words)
        ]
        rng = np.random.default_rng(len(path) + len(words))
        with store.conn:
            store.write_doc(
                path=path,
                kind="markdown",
                sha256=str(hash(tuple(words))),
                mtime=0.0,
                zone="internal",
                status="live",
                origin="fs",
                changed_at=0.0,
                title="",
                refs=[],
                chunks=chunks,
                fts_rows=[(f"t{i}", w, w) for i, w in enumerate(words)],
                text_hashes=[str(i) for i in range(len(words))],
                vectors=[rng.standard_normal(dim).astype(np.float32).tobytes() for _ in words],
                model=model,
            )

    with SearchStore.for_state_dir(state) as store:
        put(store, "a.md", ["alpha beta", "beta gamma unique1"])
        put(store, "b.md", ["gamma delta", "delta delta epsilon"])
        put(store, "c.md", ["zeta alpha", "eta"])
        for n in range(4):  # unchanged documents: an update is only tried for a small change
            put(store, f"d{n}.md", [f"kappa lambda{n}", "mu alpha"])
        with read_snapshot(store.conn):
            bm25_for(store, state, 2.0)
            vectors_for(store, state, model, dim)
        put(store, "c.md", ["zeta theta"])  # rewritten first ...
        put(store, "a.md", ["alpha iota", "beta"])  # ... then a.md: its ids are higher
        with store.conn:
            store.delete_doc("b.md")
        with read_snapshot(store.conn):
            old = BM25Matrix.load(state / CACHE_NAME)
            old_vectors = VectorIndex.load(state / VECTORS_NAME)
            assert old is not None and old_vectors is not None
            updated = BM25Matrix.update(old, store, 2.0)
            updated_vectors = VectorIndex.update(old_vectors, store, model, dim)
            assert updated is not None and updated_vectors is not None
            _same_bm25(updated, BM25Matrix.build(store, 2.0))
            _same_vectors(updated_vectors, VectorIndex.build(store, model, dim))
            assert "unique1" not in updated.vocab and "iota" in updated.vocab
            assert BM25Matrix.update(old, store, 1.0) is None  # another title weight


def test_searches_after_an_incremental_index_equal_a_full_rebuild(tmp_path: Path) -> None:
    root = demo_search_copy(tmp_path / "proj")
    _cli_index(root)
    runbook = root / "docs" / "runbook.md"
    runbook.write_text(
        runbook.read_text() + "\n## Retry queue\n\nThe retry queue drains after the lease "
        "expires; page the on-call engineer when it grows.\n"
    )
    (root / "docs" / "security-incident-2025-09.md").unlink()
    _cli_index(root)
    state = root / ".charter"
    incremental = {q: cli_search(root, q) for q in QUERIES}
    assert any(r["path"] == "docs/runbook.md" for r in incremental["retry queue lease expiry"])
    (state / CACHE_NAME).unlink()
    (state / VECTORS_NAME).unlink()
    rebuilt = {q: cli_search(root, q) for q in QUERIES}
    assert rebuilt == incremental
    _check_against_full_build(root)


def test_an_old_sidecar_without_stamps_is_rebuilt(tmp_path: Path) -> None:
    """Sidecars written before stamps were kept are read as before and rebuilt in full."""
    root = demo_search_copy(tmp_path / "proj")
    project = Project.load(root)
    embedder = search_embedder(project.settings)
    Indexer(project, embedder).run()
    state = project.state_dir
    with SearchStore.for_state_dir(state) as store, read_snapshot(store.conn):
        old = BM25Matrix.load(state / CACHE_NAME)
        vecs = VectorIndex.load(state / VECTORS_NAME)
        assert old is not None and vecs is not None
        old.rows, vecs.docs = None, None
        old.save(state / CACHE_NAME)
        vecs.save(state / VECTORS_NAME)
    (root / "docs" / "runbook.md").write_text("# Runbook\n\nRoll back with the deploy tool.\n")
    Indexer(project, embedder).run()
    reloaded = BM25Matrix.load(state / CACHE_NAME)
    assert reloaded is not None and reloaded.rows is not None  # rebuilt with counts
    _check_against_full_build(root)
    assert bm25_mod.bm25_for is bm25_for and vectors_mod.vectors_for is vectors_for


def test_weights_equal_the_one_expression_form(tmp_path: Path) -> None:
    """``weigh`` computes in place; its float32 weights equal the textbook expression's
    bit for bit on a real index's counts (so rankings did not move with the rewrite)."""
    from charter.search.bm25 import K1, B, weigh

    root = demo_search_copy(tmp_path / "proj")
    project = Project.load(root)
    Indexer(project, search_embedder(project.settings)).run()
    with SearchStore.for_state_dir(project.state_dir) as store, read_snapshot(store.conn):
        rows = BM25Matrix.build(store, project.settings.search.fusion.title_weight).rows
    assert rows is not None and len(rows.chunk_ids) > 20
    from scipy import sparse

    shape = (len(rows.chunk_ids), len(rows.vocab))
    csr = sparse.csr_matrix((rows.counts.copy(), rows.terms, rows.row_ptr), shape=shape)
    n_docs = shape[0]
    df = np.bincount(csr.indices, minlength=shape[1]).astype(np.float64)
    idf = np.log((n_docs - df + 0.5) / (df + 0.5) + 1.0)
    dl = rows.lengths
    norm = K1 * (1 - B + B * dl / max(dl.mean(), 1e-9))
    at = np.repeat(np.arange(n_docs), np.diff(csr.indptr))
    tf = csr.data.astype(np.float64)
    expected = (idf[csr.indices] * tf * (K1 + 1) / (tf + norm[at])).astype(np.float32)
    weigh(csr, rows.lengths)
    assert csr.data.tobytes() == expected.tobytes()


def test_a_moved_file_reuses_its_vectors(tmp_path: Path) -> None:
    """Renaming or moving a file (a `git mv`, a branch switch) embeds nothing: its chunks'
    texts are already embedded under the old path."""
    root = demo_search_copy(tmp_path / "proj")
    project = Project.load(root)
    Indexer(project, search_embedder(project.settings)).run()
    (root / "docs" / "runbook.md").rename(root / "docs" / "operations-runbook.md")
    report = Indexer(project, search_embedder(project.settings)).run()
    assert report.indexed == ["docs/operations-runbook.md"]
    assert report.deleted == ["docs/runbook.md"]
    assert (report.chunks_embedded, report.chunks_reused > 0) == (0, True)
