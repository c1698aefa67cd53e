"""context_actions.csv stays valid CSV when many processes append at once, and Charter
never reads its own log back as project content."""

from __future__ import annotations

import csv
import json
import multiprocessing
import subprocess
from pathlib import Path

import pytest

from charter.search.actions import COLUMNS, log_action, read_actions
from tests.conftest import CHARTER_BIN, write

WRITERS = 4
ROWS = 40


def _writer(args: tuple[str, int]) -> None:
    path, worker = args
    for n in range(ROWS):
        log_action(
            Path(path),
            action="search",
            mode="execution",
            query=f'worker {worker} query {n}, with "quotes" and\nnewline',
            scope={"mode": "execution", "search_paths": ["docs/**", "sot/**"]},
            results=[f"docs/a.md#L{n}-L{n + 1} (Sec, with comma)"] * 3,
            duration_ms=1.5,
            detail={"worker": worker, "n": n},
        )


def test_parallel_writers_keep_csv_valid(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "context_actions.csv"
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WRITERS) as pool:
        pool.map(_writer, [(str(path), w) for w in range(WRITERS)])
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == COLUMNS
    assert len(rows) == 1 + WRITERS * ROWS  # exactly one header, no torn or merged rows
    assert all(len(r) == len(COLUMNS) for r in rows)
    parsed = read_actions(path)
    seen = {(r["detail"]) for r in parsed}
    assert len(seen) == WRITERS * ROWS
    assert all(r["query_hash"] and len(r["query_hash"]) == 16 for r in parsed)


def _charter(root: Path, *args: str) -> str:
    res = subprocess.run(
        [str(CHARTER_BIN), *args], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("log", ["logs/context_actions.csv", "audit/reads.csv"])
def test_the_action_log_is_neither_indexed_nor_in_the_graph(repo: Path, log: str) -> None:
    """Every search appends to the log; indexing it made each read change the index, the
    graph snapshot and the capsule's bytes, and put Charter's own rows in results."""
    write(repo, "charter.toml", f'[search]\nactions_log = "{log}"\n')
    write(repo, "docs/guide.md", "# Guide\n\nSet a timeout on every session.\n")
    _charter(repo, "index")
    _charter(repo, "search", "session timeout")
    assert (repo / log).is_file() and not (repo / (log + ".lock")).exists()

    report = json.loads(_charter(repo, "index", "--json"))
    assert report["indexed"] == [] and report["unchanged"] == 1  # guide.md (never charter.toml)
    capsule = _charter(repo, "capsule", "--json")
    snapshot = (repo / ".charter" / "graph" / "snapshot.json").read_text()
    assert log not in snapshot
    _charter(repo, "search", "session timeout")
    _charter(repo, "task-context", "session timeout", "--json")
    assert _charter(repo, "capsule", "--json") == capsule
