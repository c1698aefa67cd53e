"""``context_actions.csv``: one row per retrieval or fact check, who looked at what, when.

Rows are written by ``csv.writer`` into a string and appended under an exclusive lock
(``charter.fileio.append_line``), so parallel writers never interleave and the file
stays valid CSV; the header is written once, under the same lock.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from charter.boundary import open_append, writable
from charter.fileio import locked

COLUMNS = [
    "timestamp",
    "action",
    "mode",
    "query_hash",
    "scope",
    "results",
    "duration_ms",
    "detail",
]


def query_hash(query: str) -> str:
    """A short stable hash: the log records what was asked without storing the text."""
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:16]


def _row(values: Sequence[Any]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue()


def log_action(
    path: Path,
    *,
    action: str,
    mode: str,
    query: str,
    scope: dict[str, Any],
    results: Sequence[str],
    duration_ms: float,
    detail: dict[str, Any] | None = None,
    root: Path | None = None,
) -> None:
    """Append one row (and the header if the file is new or empty).

    With ``root``, the log must stay inside the project (``search.actions_log`` absolute
    or with ``..``, or a symlinked ``logs/`` is refused); the file itself is never
    followed if it is a symlink.
    """
    if root is not None:
        path = writable(root, path, what="search.actions_log")
    row = _row(
        [
            datetime.now(UTC).isoformat(timespec="milliseconds"),
            action,
            mode,
            query_hash(query),
            json.dumps(scope, sort_keys=True, separators=(",", ":")),
            json.dumps(list(results), separators=(",", ":")),
            f"{duration_ms:.1f}",
            json.dumps(detail or {}, sort_keys=True, separators=(",", ":")),
        ]
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path):
        new = not path.exists() or path.stat().st_size == 0
        with os.fdopen(open_append(path), "a", encoding="utf-8", newline="") as handle:
            if new:
                handle.write(_row(COLUMNS))
            handle.write(row)
            handle.flush()
            os.fsync(handle.fileno())


def read_actions(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))
