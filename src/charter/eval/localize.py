"""``charter eval localize``: file localization on SWE-bench-style tasks, run cold.

For each task (``tasks.jsonl``: id, repo, base_commit, task, gold_files) a fresh
temporary checkout of ``base_commit`` is written from the bare mirror under
``<mirrors>/<owner>+<name>/repo``, ``charter task-context "<task>" --json`` runs there as
a subprocess (the graph is built inside the timed call), and the ranked file list is the
nodes' paths in order, first occurrence kept. A BM25-over-files baseline (every non-test
``.py`` file with its path, code-aware terms, k1 1.2, b 0.75) is scored on the same
checkout. Metrics follow LocAgent's file-level Acc@k, plus Recall@10 and MRR.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.errors import CharterError
from charter.eval.checkout import checkout
from charter.graph.extract import is_test_path
from charter.graph.index import FileIndex
from charter.graph.text import code_terms, term_counts

KS = (1, 5, 10)
TIMEOUT = 300


def load_tasks(data: Path) -> list[dict[str, Any]]:
    path = data / "tasks.jsonl" if data.is_dir() else data
    if not path.is_file():
        raise CharterError(f"tasks file not found: {path}")
    tasks = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            tasks.append({k: obj[k] for k in ("id", "repo", "base_commit", "task", "gold_files")})
        except (ValueError, KeyError, TypeError):
            raise CharterError(f"{path}:{number}: not a task line") from None
    return tasks


def mirror_for(mirrors: Path, repo: str) -> Path:
    path = mirrors / repo.replace("/", "+") / "repo"
    if not path.is_dir():
        raise CharterError(f"no mirror for {repo} at {path} (fetch it first)")
    return path


def ranked_paths(nodes: list[dict[str, Any]], root: Path) -> list[str]:
    """Node paths in order: ``./`` stripped, absolute made relative, first occurrence kept."""
    out: list[str] = []
    for node in nodes:
        path = node.get("path")
        if not path:
            continue
        path = str(path)
        if path.startswith("/"):
            try:
                path = Path(path).relative_to(root).as_posix()
            except ValueError:
                continue
        path = path.removeprefix("./")
        if path not in out:
            out.append(path)
    return out


def bm25_files(root: Path, task: str) -> list[str]:
    """The baseline: BM25 over whole non-test ``.py`` files, path included."""
    records: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.py")):
        if ".git" in path.parts:
            continue
        rel = path.relative_to(root).as_posix()
        if is_test_path(rel):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        records[rel] = {"tf": term_counts(text)}
    index = FileIndex(records, path_weight=1.0)
    scores, _ = index.scores(code_terms(task))
    order = sorted(range(len(index.paths)), key=lambda i: (-float(scores[i]), index.paths[i]))
    return [index.paths[i] for i in order if scores[i] > 0]


def metrics(ranks: list[list[str]], golds: list[list[str]]) -> dict[str, float]:
    n = len(ranks) or 1
    out: dict[str, float] = {}
    for k in KS:
        hits = 0
        for ranked, gold in zip(ranks, golds, strict=True):
            found = sum(1 for g in gold if g in ranked[:k])
            hits += found == min(len(gold), k)
        out[f"acc@{k}"] = hits / n
    out["recall@10"] = (
        sum(
            sum(1 for g in gold if g in r[:10]) / len(gold)
            for r, gold in zip(ranks, golds, strict=True)
        )
        / n
    )
    mrr = 0.0
    for ranked, gold in zip(ranks, golds, strict=True):
        positions = [ranked.index(g) + 1 for g in gold if g in ranked]
        mrr += 1.0 / min(positions) if positions else 0.0
    out["mrr"] = mrr / n
    return {k: round(v, 4) for k, v in out.items()}


def run_charter(root: Path, task: str) -> tuple[list[str], float, str]:
    """Charter's ranked files for a task in ``root``: a subprocess with the default limit,
    exactly as a user (or the hidden split's scorer) runs it."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-P",  # the checkout's own packages (an old ``requests/``) must not shadow ours
                "-m",
                "charter",
                "task-context",
                task,
                "--json",
            ],
            cwd=root,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return [], time.perf_counter() - started, "timeout"
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return [], seconds, f"exit {done.returncode}: {done.stderr.decode()[-200:]}"
    try:
        result = json.loads(done.stdout)
    except ValueError:
        return [], seconds, "non-JSON output"
    return ranked_paths(result.get("nodes", []), root), seconds, ""


def evaluate(
    data: Path,
    mirrors: Path,
    *,
    tmp: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Score every task cold; per-repo and overall metrics for Charter and BM25."""
    tasks = load_tasks(data)
    rows = []
    for task in tasks:
        mirror = mirror_for(mirrors, task["repo"])
        work = Path(tempfile.mkdtemp(prefix="charter-loc-", dir=tmp))
        try:
            checkout(mirror, task["base_commit"], work)
            ranked, seconds, error = run_charter(work, task["task"])
            baseline = bm25_files(work, task["task"])
        finally:
            shutil.rmtree(work, ignore_errors=True)
        gold = task["gold_files"]
        rows.append(
            {
                "id": task["id"],
                "repo": task["repo"],
                "gold": gold,
                "charter_rank": next((i + 1 for i, p in enumerate(ranked) if p in gold), None),
                "bm25_rank": next((i + 1 for i, p in enumerate(baseline) if p in gold), None),
                "seconds": round(seconds, 2),
                "error": error,
                "_charter": ranked,
                "_bm25": baseline,
            }
        )
        if progress:
            progress(
                f"{task['id']}: charter {rows[-1]['charter_rank']} "
                f"bm25 {rows[-1]['bm25_rank']} ({seconds:.1f}s){' ' + error if error else ''}"
            )
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def block(selected: list[dict[str, Any]]) -> dict[str, Any]:
        golds = [r["gold"] for r in selected]
        return {
            "tasks": len(selected),
            "charter": metrics([r["_charter"] for r in selected], golds),
            "bm25": metrics([r["_bm25"] for r in selected], golds),
        }

    repos = sorted({r["repo"] for r in rows})
    seconds = [r["seconds"] for r in rows]
    return {
        "overall": block(rows),
        "per_repo": {repo: block([r for r in rows if r["repo"] == repo]) for repo in repos},
        "seconds_p50": round(statistics.median(seconds), 2) if seconds else 0.0,
        "seconds_max": max(seconds, default=0.0),
        "errors": [{"id": r["id"], "error": r["error"]} for r in rows if r["error"]],
        "tasks": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows],
    }
