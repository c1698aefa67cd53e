"""Source-of-truth records as graph nodes (``sot:path#address``).

A task about "the engagement fee for ENG-001" needs the row that holds it, not only the
CSV file. The records come from search's own parsers (the same addresses fact checks
and citations use), titles pass the secret scanner, and a file contributes at most
:data:`MAX_RECORDS` nodes so a large ledger cannot swamp the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from charter.config import Project
from charter.errors import CharterError

MAX_RECORDS = 500


def is_sot(project: Project, rel: str) -> bool:
    from charter.search.discover import matches_any

    settings = project.settings.search
    return rel.lower().endswith(tuple(settings.index.sot_extensions)) and matches_any(
        rel, settings.index.sot_paths
    )


def records(project: Project, rel: str) -> list[dict[str, Any]] | str:
    """``[{address, title}]`` of a SoT file, or a note saying why it has none."""
    from charter.search.discover import file_kind
    from charter.search.parse import parse_file
    from charter.secretscan.apply import project_scanner, scrub_text

    kind = file_kind(rel, project.settings.search)
    if kind not in ("csv", "yaml", "json"):
        return "not a structured file"
    path: Path = project.root / rel
    try:
        parsed = parse_file(path.read_text(encoding="utf-8", errors="replace"), kind, rel)
    except (CharterError, RecursionError, ValueError) as exc:
        return f"records not read: {exc}"
    scanner = project_scanner(project)
    out = []
    for chunk in parsed.chunks[:MAX_RECORDS]:
        title = scrub_text(str(chunk.title or chunk.address), scanner, path=rel)
        out.append({"address": str(chunk.address), "title": title[:120]})
    return out
