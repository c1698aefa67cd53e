"""``charter eval ir``: hybrid search quality on a BEIR-layout dataset.

The corpus is indexed into a temporary project (so it runs from any directory and never
touches the user's index) with the default settings — the figure measured is the figure a
user gets. Queries run through the same :class:`SearchEngine` as ``charter search``, in a
scope that covers the corpus, and chunk hits are reported per document id.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from charter.config import Project, Settings
from charter.errors import CharterError
from charter.eval.ir_metrics import ndcg_at, recall_at, trec_lines
from charter.fileio import atomic_write_text
from charter.search.embedding import search_embedder
from charter.search.settings import ModeSettings

EVAL_MODE = "eval"
DEPTH = 100


def load_queries(path: Path) -> dict[str, str]:
    if not path.is_file():
        raise CharterError(f"queries file not found: {path}")
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                out[str(obj["_id"])] = str(obj["text"])
            except (json.JSONDecodeError, KeyError, TypeError):
                raise CharterError(f"malformed query at {path}:{number}") from None
    return out


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    if not path.is_file():
        raise CharterError(f"qrels file not found: {path}")
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if not row or row[0] in ("query-id", "query_id"):
                continue
            if len(row) < 3:
                raise CharterError(f"malformed qrels row in {path}: {row!r}")
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return qrels


def _split_files(data: Path, split: str) -> tuple[Path, Path]:
    if split == "test":
        return data / "queries.jsonl", data / "qrels" / "test.tsv"
    if (data / split / "queries.jsonl").is_file():
        return data / split / "queries.jsonl", data / split / "qrels.tsv"
    return data / "queries.jsonl", data / "qrels" / f"{split}.tsv"


def eval_settings() -> Settings:
    """Default settings plus a mode that covers the whole corpus at depth 100.

    The mode keeps every candidate (``min_similarity = 0``): recall@100 scores a ranking
    to depth 100, where the modes an agent uses drop candidates that match nothing."""
    settings = Settings()
    settings.search.modes[EVAL_MODE] = ModeSettings(
        search_paths=["**"], k_in=DEPTH, k_out=DEPTH, min_similarity=0.0
    )
    settings.search.index.git_history = False
    return settings


def evaluate_beir(
    data: Path,
    *,
    split: str = "test",
    run_out: Path | None = None,
    rerank: bool = True,
    limit: int = 0,
    progress: bool = False,
    settings: Settings | None = None,
) -> dict[str, Any]:
    """Index ``data/corpus.jsonl`` in a temp project, run the split's queries, score."""
    from charter.search.engine import SearchEngine
    from charter.search.indexer import index_jsonl

    data = data.resolve()
    corpus = data / "corpus.jsonl"
    if not corpus.is_file():
        raise CharterError(f"not a BEIR folder (no corpus.jsonl): {data}")
    queries_path, qrels_path = _split_files(data, split)
    queries = load_queries(queries_path)
    qrels = load_qrels(qrels_path)
    wanted = [q for q in sorted(queries) if q in qrels]
    if limit:
        wanted = wanted[:limit]
    with tempfile.TemporaryDirectory(prefix="charter-ir-") as tmp:
        project = Project(root=Path(tmp), settings=settings or eval_settings())
        embedder = search_embedder(project.settings)
        started = time.perf_counter()
        report = index_jsonl(project, corpus, embedder, progress=progress)
        index_seconds = time.perf_counter() - started
        engine = SearchEngine(project, embedder=embedder, reranker="config" if rerank else "none")
        run: dict[str, dict[str, float]] = {}
        timings: list[float] = []
        try:
            for n, qid in enumerate(wanted, start=1):
                t0 = time.perf_counter()
                response = engine.search(queries[qid], mode=EVAL_MODE, log=False)
                timings.append((time.perf_counter() - t0) * 1000)
                scores: dict[str, float] = {}
                count = len(response.results)
                for rank, result in enumerate(response.results):
                    doc = result.doc_key or result.path
                    # rank-derived score keeps the engine's order exactly in the run file
                    scores.setdefault(doc, float(count - rank))
                run[qid] = scores
                if progress and n % 50 == 0:
                    print(f"  {n}/{len(wanted)} queries", file=sys.stderr)
        finally:
            engine.close()
    sub_qrels = {q: qrels[q] for q in wanted}
    if run_out is not None:
        atomic_write_text(run_out, "\n".join(trec_lines(run)) + "\n")
    return {
        "dataset": data.name,
        "split": split,
        "queries": len(wanted),
        "documents": len(report.indexed) and _count_lines(corpus),
        "ndcg@10": round(ndcg_at(run, sub_qrels, 10), 4),
        "recall@100": round(recall_at(run, sub_qrels, 100), 4),
        "index_seconds": round(index_seconds, 1),
        "query_ms_p50": round(statistics.median(timings), 1) if timings else 0.0,
        "rerank": rerank,
    }


def _count_lines(path: Path) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip())
