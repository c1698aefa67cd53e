"""Search speed: hybrid query latency at 5k and 100k chunks, RSS, and re-index time.

    .venv/bin/python bench/search_speed.py [--chunks 5000 100000] [--runs 3] [--queries 40]

The 5k/100k corpora are synthetic: Zipf-distributed words from a 20k-word vocabulary,
60–140 words per chunk, stored through the real SearchStore (FTS5 + float32 BLOBs). Their
vectors are random unit vectors under the real model's name, because embedding 100k
chunks would take an hour here and latency does not depend on the vector values; queries
are embedded by the real MiniLM model and reranked by the real default reranker. Every
figure is the median over ``--runs`` runs; each run's p50 is over ``--queries`` queries.

``open_s`` is the first open after the corpus is written (it builds the BM25 and vector
sidecars from SQLite, as the indexer does after a commit); ``reopen_s`` an open with
current sidecars (memory-mapped), what every later process pays; ``cold_cli_search_s``
a whole fresh ``charter search`` process.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from charter.config import Project
from charter.embed.registry import get_embedder
from charter.search.chunks import Chunk
from charter.search.engine import SearchEngine
from charter.search.indexer import Indexer
from charter.search.rerank import get_reranker
from charter.search.settings import RerankSettings
from charter.search.store import SearchStore
from charter.search.text import analyze

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo-project"
CHUNKS_PER_DOC = 50


def _vocab(rng: np.random.Generator, size: int = 20_000) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, rng.integers(3, 10))) for _ in range(size)]


def build_corpus(root: Path, n_chunks: int, model: str, dim: int, seed: int = 7) -> list[str]:
    """Write ``n_chunks`` synthetic chunks into ``root/.charter/search.db``; return queries."""
    rng = np.random.default_rng(seed)
    vocab = _vocab(rng)
    stems = [analyze(w) or w for w in vocab]
    ranks = np.arange(1, len(vocab) + 1)
    probs = (1 / ranks**1.05) / (1 / ranks**1.05).sum()
    lengths = rng.integers(60, 140, size=n_chunks)
    words = rng.choice(len(vocab), size=int(lengths.sum()), p=probs)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    with SearchStore.for_state_dir(root / ".charter") as store, store.conn:
        for doc in range(0, n_chunks, CHUNKS_PER_DOC):
            chunks: list[Chunk] = []
            fts: list[tuple[str, str, str]] = []
            for i in range(min(CHUNKS_PER_DOC, n_chunks - doc)):
                ids = words[offsets[doc + i] : offsets[doc + i + 1]]
                text = " ".join(vocab[j] for j in ids)
                chunks.append(
                    Chunk("markdown", i * 5 + 1, i * 5 + 4, f"S{i}", f"S{i}", text, ordinal=i)
                )
                fts.append((f"s{i}", " ".join(stems[j] for j in ids), text))
            vecs = rng.standard_normal((len(chunks), dim)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            store.write_doc(
                path=f"docs/doc{doc // CHUNKS_PER_DOC:05d}.md",
                kind="markdown",
                sha256=hashlib.sha256(str(doc).encode()).hexdigest(),
                mtime=time.time(),
                zone="internal",
                status="live",
                origin="fs",
                changed_at=time.time(),
                title="",
                refs=[],
                chunks=chunks,
                fts_rows=fts,
                text_hashes=[str(i) for i in range(len(chunks))],
                vectors=[v.tobytes() for v in vecs],
                model=model,
            )
        store.bump_generation()
    query_words = rng.choice(len(vocab), size=(200, 6), p=probs)
    return [" ".join(vocab[j] for j in row[: 3 + n % 4]) for n, row in enumerate(query_words)]


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def query_p50(engine: SearchEngine, queries: list[str], rerank: bool) -> float:
    timings = []
    for query in queries:
        start = time.perf_counter()
        engine.search(query, mode="review", rerank=rerank, log=False)
        timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


_LAUNCHER = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def cold_search(root: Path, query: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one fresh ``charter search`` process
    (interpreter, imports, model load, index open, query, output): what a user pays.

    The process is started by a small launcher, not by this bench: a child's peak RSS
    starts at its parent's size when it is forked, and this process holds the corpus it
    built (that is how an earlier version of this bench reported 740-1,130 MiB)."""
    start = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _LAUNCHER,
            str(Path(sys.executable).with_name("charter")),
            "search",
            query,
            "--mode",
            "review",
        ],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    code, peak_kib = (int(x) for x in out.stdout.split())
    if code != 0:
        raise SystemExit(f"charter search failed ({code})")
    return wall, peak_kib / 1024


def bench_size(n_chunks: int, runs: int, n_queries: int) -> dict[str, float]:
    embedder = get_embedder("minilm")
    get_reranker(RerankSettings())  # load once, outside the timings
    p50_plain: list[float] = []
    p50_rerank: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "charter.toml").write_text("[search.modes.review]\ntime_window_days = 0\n")
        started = time.perf_counter()
        queries = build_corpus(root, n_chunks, embedder.name, embedder.dim)
        build_s = time.perf_counter() - started
        project = Project.load(root)
        load_start = time.perf_counter()
        engine = SearchEngine(project, embedder=embedder)
        load_s = time.perf_counter() - load_start
        engine.search("warm up", mode="review", log=False)
        reopen: list[float] = []
        for _ in range(runs):  # what every later process pays: the sidecars are current
            start = time.perf_counter()
            SearchEngine(project, embedder=embedder).close()
            reopen.append(time.perf_counter() - start)
        cold = [cold_search(root, queries[-1 - run]) for run in range(runs)]
        cold_cli = [wall for wall, _ in cold]
        for run in range(runs):
            picked = queries[run * n_queries : (run + 1) * n_queries]
            p50_plain.append(query_p50(engine, picked, rerank=False))
            p50_rerank.append(query_p50(engine, picked, rerank=True))
        engine.close()
    return {
        "chunks": n_chunks,
        "build_s": round(build_s, 1),
        "open_s": round(load_s, 2),
        "reopen_s": round(statistics.median(reopen), 3),
        "cold_cli_search_s": round(statistics.median(cold_cli), 2),
        "p50_ms_no_rerank": round(statistics.median(p50_plain), 1),
        "p50_ms_rerank": round(statistics.median(p50_rerank), 1),
        "cold_cli_search_max_rss_mib": round(max(rss for _, rss in cold), 0),
        "bench_process_max_rss_mib": round(rss_mib(), 0),  # includes building the corpus
    }


def bench_reindex(runs: int) -> dict[str, float]:
    """Index the demo project, change one file, time the incremental re-index."""
    embedder = get_embedder("minilm")
    timings = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        for part in ("docs", "decisions", "sot"):
            shutil.copytree(DEMO / part, root / part)
        (root / "charter.toml").write_text("")
        project = Project.load(root)
        Indexer(project, embedder).run()
        target = root / "docs" / "runbook.md"
        for run in range(runs):
            target.write_text(target.read_text() + f"\n## Note {run}\n\nChanged line {run}.\n")
            start = time.perf_counter()
            report = Indexer(project, embedder).run()
            timings.append(time.perf_counter() - start)
            assert report.indexed == ["docs/runbook.md"], report.indexed
    return {"reindex_one_file_s": round(statistics.median(timings), 3)}


def bench_incremental(n_chunks: int, runs: int) -> dict[str, float]:
    """Re-index one changed file inside an index of ``n_chunks`` chunks, in-process.

    The corpus is opened once first (its sidecars built, as ``charter index`` leaves
    them); then one real Markdown file is edited and indexed ``runs`` times. Each run
    embeds that file's chunks, commits them and brings both sidecars (BM25 postings and
    vectors) up to the new generation: the time a re-index of a small change costs at
    this size. ``sidecars_s`` is the sidecar part alone (after the commit).
    """
    from charter.search import indexer as indexer_mod

    embedder = get_embedder("minilm")
    totals: list[float] = []
    sidecars: list[float] = []
    real = indexer_mod.bm25_for, indexer_mod.vectors_for
    spent: list[float] = []

    def timed(fn):  # type: ignore[no-untyped-def]
        def run(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent.append(time.perf_counter() - start)

        return run

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "charter.toml").write_text("")
        build_corpus(root, n_chunks, embedder.name, embedder.dim)
        project = Project.load(root)
        SearchEngine(project, embedder=embedder).close()  # sidecars current, as after index
        target = root / "notes" / "changed.md"
        target.parent.mkdir()
        body = "# Changed\n\n" + "".join(
            f"## Part {i}\n\nThe retry queue drains job {i} after the lease expires.\n\n"
            for i in range(8)
        )
        indexer_mod.bm25_for, indexer_mod.vectors_for = timed(real[0]), timed(real[1])
        try:
            for run in range(runs + 1):  # the first run adds the file; the rest change it
                target.write_text(body + f"## Note {run}\n\nChanged line {run}.\n")
                spent.clear()
                start = time.perf_counter()
                report = Indexer(project, embedder).run([target])
                if run:
                    totals.append(time.perf_counter() - start)
                    sidecars.append(sum(spent))
                assert report.indexed == ["notes/changed.md"], report.indexed
        finally:
            indexer_mod.bm25_for, indexer_mod.vectors_for = real
    return {
        "chunks": n_chunks,
        "incremental_one_file_s": round(statistics.median(totals), 3),
        "incremental_sidecars_s": round(statistics.median(sidecars), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[5000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument(
        "--incremental-only", action="store_true", help="only the one-file re-index figures"
    )
    args = parser.parse_args()
    if not args.incremental_only:
        print(bench_reindex(args.runs), flush=True)
    for n in args.chunks:
        print(bench_incremental(n, args.runs), flush=True)
        if not args.incremental_only:
            print(bench_size(n, args.runs, args.queries), flush=True)


if __name__ == "__main__":
    sys.exit(main())
