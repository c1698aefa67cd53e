"""context_actions.csv stays valid CSV when many processes append at once."""

from __future__ import annotations

import csv
import multiprocessing
from pathlib import Path

from charter.search.actions import COLUMNS, log_action, read_actions

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
