"""The memory-mapped search sidecars (vectors, BM25): same results as the SQLite rows,
and a stale, torn or foreign sidecar is detected and rebuilt, never served."""

from __future__ import annotations

import json
import mmap
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from charter.config import Project
from charter.embed.registry import get_embedder
from charter.search.bm25 import CACHE_NAME, BM25Matrix, bm25_for
from charter.search.embedding import search_embedder
from charter.search.engine import SearchEngine
from charter.search.indexer import Indexer
from charter.search.retrieve import HybridRetriever
from charter.search.sidecar import read_arrays, write_arrays
from charter.search.store import SearchStore
from charter.search.text import terms
from charter.search.vectors import VECTORS_NAME, VectorIndex, vectors_for
from charter.store.db import read_snapshot
from tests.conftest import CHARTER_BIN, cli_search, demo_search_copy
from tests.search_support import open_engine

QUERIES = [
    "how do we roll back a failed deploy",
    "credit note approval limit",
    "who owns the billing service",
    "ADR database choice postgres",
    "invoice due date 2024",
    "on-call paging",
]
MODES = ("planning", "execution", "review")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project indexed once with the real MiniLM model."""
    root = demo_search_copy(tmp_path_factory.mktemp("sidecar") / "proj")
    project = Project.load(root)
    report = Indexer(project, search_embedder(project.settings)).run()
    assert report.indexed and not report.errors
    return root


def _copy(root: Path, dest: Path) -> Path:
    shutil.copytree(root, dest)
    return dest


def _mapped(array: np.ndarray) -> bool:
    """Is ``array`` a view of a memory-mapped file (not a copy in memory)?"""
    base: object = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return isinstance(base, mmap.mmap)


def _all_results(engine: SearchEngine) -> list[dict[str, object]]:
    return [
        engine.search(query, mode=mode, log=False).as_dict() for query in QUERIES for mode in MODES
    ]


def _rows_engine(root: Path) -> SearchEngine:
    """An engine whose vectors and chunk map are read from SQLite rows (the old path)."""
    engine = SearchEngine(Project.load(root), reranker="none")
    with read_snapshot(engine.store.conn):
        engine.retriever = HybridRetriever(
            engine.store, engine.embedder, engine.settings, engine.retriever.bm25_matrix
        )
    return engine


def test_indexing_writes_both_sidecars_stamped_with_the_generation(indexed: Path) -> None:
    state = indexed / ".charter"
    project = Project.load(indexed)
    embedder = search_embedder(project.settings)
    side = VectorIndex.load(state / VECTORS_NAME)
    bm25 = BM25Matrix.load(state / CACHE_NAME)
    assert side is not None and bm25 is not None
    with SearchStore.for_state_dir(state) as store:
        assert side.matches(store, embedder.name, embedder.dim)
        assert bm25.generation == store.generation() and bm25.instance == store.instance()
        rows = VectorIndex.build(store, embedder.name, embedder.dim)
    assert _mapped(side.matrix) and _mapped(side.chunk_ids)  # not copied into memory
    assert len(side.chunk_ids) > 20 and side.missing == 0
    for name in ("chunk_ids", "chunk_doc", "matrix"):
        assert np.array_equal(getattr(side, name), getattr(rows, name)), name


def test_rankings_from_the_sidecars_equal_rankings_from_sqlite_rows(indexed: Path) -> None:
    with open_engine(indexed) as mapped:
        assert _mapped(mapped.retriever.matrix)
        from_files = _all_results(mapped)
    rows = _rows_engine(indexed)
    try:
        assert not _mapped(rows.retriever.matrix)
        from_rows = _all_results(rows)
    finally:
        rows.close()
    assert from_files == from_rows
    assert sum(len(r["results"]) for r in from_files) > 40  # type: ignore[arg-type]


def test_bm25_column_sums_are_bit_identical_to_the_sparse_matrix_sum(indexed: Path) -> None:
    with SearchStore.for_state_dir(indexed / ".charter") as store:
        built = BM25Matrix.build(store, 2.0)
    csc = sparse.csc_matrix(
        (built.data, built.indices, built.indptr), shape=(built.n_rows, len(built.vocab))
    )
    checked = 0
    words = sorted(built.vocab)[::7] + [q for q in QUERIES]
    for query in words:
        columns = sorted({built.vocab[t] for t in terms(query) if t in built.vocab})
        if not columns:
            assert built.scores(query) is None
            continue
        expected = np.asarray(csc[:, columns].sum(axis=1), dtype=np.float32).reshape(-1)
        assert np.array_equal(built.scores(query), expected), query
        checked += 1
    assert checked > 20


def test_cli_search_output_is_the_same_with_fresh_or_rebuilt_sidecars(
    indexed: Path, tmp_path: Path
) -> None:
    root = _copy(indexed, tmp_path / "cli")
    state = root / ".charter"

    def run() -> str:
        results = cli_search(root, "credit note approval")
        assert results
        return json.dumps(results, sort_keys=True)

    first = run()
    (state / VECTORS_NAME).unlink()
    (state / CACHE_NAME).unlink()
    second = run()  # rebuilt from SQLite in this process
    assert (state / VECTORS_NAME).exists() and (state / CACHE_NAME).exists()
    assert first == second


def _corruptions(path: Path) -> dict[str, bytes]:
    data = path.read_bytes()
    return {
        "truncated": data[: len(data) // 2],
        "zero tail": data[: len(data) - 4096] + b"\0" * 4096,
        "bad header": data[:16] + b"{" * 32 + data[48:],
        "foreign file": b"PK\x03\x04 not a sidecar at all",
        "empty": b"",
    }


@pytest.mark.parametrize("name", [VECTORS_NAME, CACHE_NAME])
def test_torn_sidecars_are_detected_and_rebuilt(indexed: Path, tmp_path: Path, name: str) -> None:
    root = _copy(indexed, tmp_path / "torn")
    with open_engine(root) as engine:
        expected = _all_results(engine)
    path = root / ".charter" / name
    for label, data in _corruptions(path).items():
        path.write_bytes(data)
        assert read_arrays(path) is None, label
        with open_engine(root) as engine:
            assert _all_results(engine) == expected, label
        assert read_arrays(path) is not None, f"{label}: not rewritten"


def test_stale_sidecars_from_an_older_generation_are_rebuilt(indexed: Path, tmp_path: Path) -> None:
    root = _copy(indexed, tmp_path / "stale")
    state = root / ".charter"
    old_vectors = (state / VECTORS_NAME).read_bytes()
    old_bm25 = (state / CACHE_NAME).read_bytes()
    runbook = root / "docs" / "runbook.md"
    runbook.write_text(runbook.read_text() + "\n## Quasar drill\n\nRun the quasarwidget drill.\n")
    project = Project.load(root)
    Indexer(project, search_embedder(project.settings)).run()
    # a writer killed between its commit and the sidecars leaves the old files behind
    (state / VECTORS_NAME).write_bytes(old_vectors)
    (state / CACHE_NAME).write_bytes(old_bm25)
    with open_engine(root) as engine:
        hits = engine.search("quasarwidget drill", mode="review", log=False).results
        assert hits and hits[0].path == "docs/runbook.md"
        assert "quasarwidget" in hits[0].text
        with SearchStore.for_state_dir(state) as store:
            side = VectorIndex.load(state / VECTORS_NAME)
            assert side is not None
            assert side.generation == store.generation()
            assert len(side.chunk_ids) == engine.retriever.size


def test_kill_between_commit_and_vector_sidecar_is_repaired_by_the_next_search(
    indexed: Path, tmp_path: Path
) -> None:
    """A real ``charter index`` SIGKILLed at the sidecar's rename (fault seam)."""
    root = _copy(indexed, tmp_path / "kill")
    (root / "docs" / "new.md").write_text("# Nebulon\n\nThe nebulonflux setting is new.\n")
    env = {**os.environ, "CHARTER_FAULT": "vectors.save"}
    killed = subprocess.run(
        [str(CHARTER_BIN), "index"], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert killed.returncode == -9
    leftovers = list((root / ".charter").glob(f".{VECTORS_NAME}.*.tmp"))
    assert leftovers  # the killed writer's whole temp file, never renamed in
    citations = [r["citation"] for r in cli_search(root, "nebulonflux")]
    assert citations and citations[0].startswith("docs/new.md")
    assert not list((root / ".charter").glob(f".{VECTORS_NAME}.*.tmp"))  # dead temp removed
    project = Project.load(root)
    embedder = search_embedder(project.settings)
    with SearchStore.for_state_dir(root / ".charter") as store:
        side = VectorIndex.load(root / ".charter" / VECTORS_NAME)
        assert side is not None and side.matches(store, embedder.name, embedder.dim)


def test_another_model_or_a_recreated_index_does_not_reuse_the_sidecar(
    indexed: Path, tmp_path: Path
) -> None:
    root = _copy(indexed, tmp_path / "model")
    state = root / ".charter"
    hashing = get_embedder("hash")
    with SearchStore.for_state_dir(state) as store, read_snapshot(store.conn):
        served = vectors_for(store, state, hashing.name, hashing.dim)
        # no chunk has a vector under the hash model: all missing, none borrowed
        assert served.model == hashing.name and served.missing == len(served.chunk_ids)
        assert not served.matrix.any()
    # a recreated index starts its generations again: the instance tells them apart
    minilm = search_embedder(Project.load(root).settings)
    with SearchStore.for_state_dir(state) as store:
        side = VectorIndex.build(store, minilm.name, minilm.dim)
    side.instance = "another-index"
    side.save(state / VECTORS_NAME)
    with SearchStore.for_state_dir(state) as store, read_snapshot(store.conn):
        served = vectors_for(store, state, minilm.name, minilm.dim)
        assert served.instance == store.instance()


def test_sidecar_round_trip_keeps_dtypes_shapes_and_empty_arrays(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    arrays = {
        "matrix": rng.standard_normal((9, 5)).astype(np.float32),
        "ids": np.arange(9, dtype=np.int64) * 3,
        "empty": np.zeros((0, 5), dtype=np.float32),
        "blob": np.frombuffer("ünïcode\nterms".encode(), dtype=np.uint8),
    }
    path = tmp_path / "x.bin"
    write_arrays(path, {"kind": "test", "n": 9}, arrays, fault="test.save")
    read = read_arrays(path)
    assert read is not None
    meta, back = read
    assert meta == {"kind": "test", "n": 9}
    for key, value in arrays.items():
        assert back[key].dtype == value.dtype and back[key].shape == value.shape
        assert np.array_equal(back[key], value)
    assert not list(tmp_path.glob(".x.bin.*"))  # no temp file left behind


def test_bm25_for_rebuilds_a_cache_from_another_title_weight(indexed: Path, tmp_path: Path) -> None:
    root = _copy(indexed, tmp_path / "weight")
    state = root / ".charter"
    with SearchStore.for_state_dir(state) as store:
        served = bm25_for(store, state, 0.0)
        assert served.title_weight == 0.0
        fresh = BM25Matrix.build(store, 0.0)
    assert np.array_equal(served.data, fresh.data)
    loaded = BM25Matrix.load(state / CACHE_NAME)
    assert loaded is not None and loaded.title_weight == 0.0


def test_a_sidecar_of_the_other_kind_is_not_served(indexed: Path, tmp_path: Path) -> None:
    root = _copy(indexed, tmp_path / "swapped")
    state = root / ".charter"
    # the BM25 sidecar where the vectors belong: a complete, valid file of another kind
    (state / VECTORS_NAME).write_bytes((state / CACHE_NAME).read_bytes())
    assert read_arrays(state / VECTORS_NAME) is not None
    assert read_arrays(state / VECTORS_NAME, "vectors") is None
    assert VectorIndex.load(state / VECTORS_NAME) is None
    with open_engine(root) as engine:
        assert engine.search("credit note approval", mode="review", log=False).results
    assert VectorIndex.load(state / VECTORS_NAME) is not None  # rebuilt from SQLite
