"""``context_actions.csv``: one row per retrieval or fact check, who looked at what, when.

Rows are written by ``csv.writer`` into a string and appended in one write under an
exclusive lock, so parallel writers never interleave; the header is written once, under
the same lock. A row torn by a kill is left alone on its line and skipped by readers.
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

from charter.boundary import writable
from charter.fileio import append_locked, fault_point, write_all
from charter.state_ignore import ensure_local_dir

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
    if root is not None:
        # one machine's searches, like the guardrail's audit log: a folder Charter
        # creates for it is hidden from git, so it never shows up as a file to commit
        ensure_local_dir(root, path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    with append_locked(path) as fd:  # O_NOFOLLOW: a planted symlink is refused
        size = os.fstat(fd).st_size
        prefix = _row(COLUMNS) if size == 0 else ""
        if size and not _ends_with_newline(path):
            prefix = "\n"  # a killed writer's torn row stays alone on its line
        write_all(fd, (prefix + row).encode("utf-8"), "actions")
        fault_point("actions.written")
        os.fsync(fd)


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def read_actions(path: Path) -> list[dict[str, str]]:
    """The logged rows; a torn row (a writer killed mid-append) is skipped, not fatal.

    Every row is one physical line (its JSON fields never hold a raw newline), so each
    line is parsed on its own and one damaged line cannot swallow the next.
    """
    if not path.exists():
        return []
    rows: list[dict[str, str]] = []
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for line in handle:
            try:
                fields = next(csv.reader([line]), [])
            except csv.Error:
                continue
            if len(fields) != len(COLUMNS) or fields == COLUMNS:
                continue
            rows.append(dict(zip(COLUMNS, fields, strict=True)))
    return rows
