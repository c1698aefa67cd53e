"""Findings the graph sees: an append-only JSONL file that checks record into.

A finding (from a drift check, lint or a gate) is anchored to the file it is about.
Appending keeps every earlier finding intact; a later line with the same id replaces the
earlier one when read (that is how a finding is closed: ``status: "closed"``). Findings
are evidence, not contract: they never change ``contract_hash``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.fileio import append_line

FINDINGS_FILE = "findings.jsonl"
SEVERITIES = ("blocking", "warning", "info")


def _path(project: Project) -> Any:
    return project.state_dir / "graph" / FINDINGS_FILE


def record_findings(project: Project, findings: list[dict[str, Any]]) -> list[str]:
    """Append findings (``title``, ``source``, optional ``path``/lines/``severity``); ids back."""
    ids = []
    target = _path(project)
    target.parent.mkdir(parents=True, exist_ok=True)
    for raw in findings:
        if not isinstance(raw, dict) or not raw.get("title"):
            raise CharterError("a finding needs a title")
        finding = dict(raw)
        finding.setdefault("severity", "warning")
        finding.setdefault("status", "open")
        if finding["severity"] not in SEVERITIES:
            raise CharterError(f"finding severity must be one of {', '.join(SEVERITIES)}")
        if "id" not in finding:
            key = json.dumps(
                [finding.get(k) for k in ("source", "rule", "path", "line_start", "title")]
            )
            finding["id"] = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
        append_line(target, json.dumps(finding, sort_keys=True, ensure_ascii=False))
        ids.append(str(finding["id"]))
    return ids


def load_findings(project: Project) -> list[dict[str, Any]]:
    """Current findings by id (last line wins), sorted by id; bad lines are skipped."""
    path = _path(project)
    if not path.is_file():
        return []
    current: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str) and data.get("title"):
            current[data["id"]] = data
    return [current[k] for k in sorted(current)]


def close_findings(project: Project, *, source: str, path: str, keep: set[str]) -> list[str]:
    """Close the open findings of ``source`` anchored to ``path`` whose ids are not in
    ``keep`` (a check of that file ran again and no longer reports them); ids back."""
    closed = []
    for finding in load_findings(project):
        if (
            finding.get("source") == source
            and finding.get("path") == path
            and finding.get("status") == "open"
            and finding["id"] not in keep
        ):
            append_line(
                _path(project),
                json.dumps({**finding, "status": "closed"}, sort_keys=True, ensure_ascii=False),
            )
            closed.append(str(finding["id"]))
    return closed
