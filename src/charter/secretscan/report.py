"""Where secrets were redacted, for ``charter doctor``: the index's ledger plus rule files.

The index records its redactions as it stores each document (see ``ledger``). Rule files
are compiled on demand by hooks, so they are scanned here again (a few files, read and
checked in milliseconds) rather than trusting a compiled state that may be older.
"""

from __future__ import annotations

from typing import Any

from charter.config import Project
from charter.errors import CharterError


def redaction_report(project: Project) -> list[dict[str, Any]]:
    """Per file: count, lines, detector counts and origin (fs | git | jsonl | rules)."""
    from charter.search.store import DB_NAME
    from charter.secretscan import ledger
    from charter.store.db import connect

    by_path: dict[str, dict[str, Any]] = {}
    db = project.state_dir / DB_NAME
    if db.exists():
        conn = connect(db, readonly=True)
        try:
            for item in ledger.summary(conn):
                by_path[item["path"]] = item
        finally:
            conn.close()
    for item in _rule_files(project):
        if item["path"] not in by_path:
            by_path[item["path"]] = item
    return [by_path[p] for p in sorted(by_path)]


def _rule_files(project: Project) -> list[dict[str, Any]]:
    from charter.rules.sources import discover, load_source
    from charter.secretscan.apply import project_scanner

    scanner = project_scanner(project)
    out: list[dict[str, Any]] = []
    for kind, path in discover(project.root, project.settings.rules.exclude):
        rel = project.rel(path)
        try:
            text = load_source(path, rel, kind).text
        except CharterError:
            continue
        result = scanner.redact(text, path=rel, kind="prose")
        if not result.findings:
            continue
        detectors: dict[str, int] = {}
        for finding in result.findings:
            detectors[finding.detector] = detectors.get(finding.detector, 0) + 1
        out.append(
            {
                "path": rel,
                "origin": "rules",
                "count": len(result.findings),
                "lines": sorted({f.line for f in result.findings}),
                "detectors": detectors,
            }
        )
    return out
