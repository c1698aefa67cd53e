"""Import constraints from other stages (intake forms, YAML, JSON) into the same shape.

Seed 003: "PGC is not the only source of binding constraints". Whatever the source, the
result is canonical ``pgc_clarifications`` entries with binding derived mechanically.

Recognised documents (JSON or YAML):
- ``{"pgc_clarifications": [...]}`` — already canonical; binding is re-derived;
- ``{"questions": [...], "answers": {...}}`` — merged as by ``charter decisions merge``;
- an intake form: ``{"decisions": [...]}`` (or ``constraints`` / ``intake``) whose items
  carry the question and its answer together: ``id``, ``question``, ``answer``,
  optional ``priority`` (default ``must``), ``choices``, ``hard``, ``exclusion``,
  ``preference``. A bare ``excluded: [..]`` list becomes one exclusion entry per item.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from charter.decisions.binding import apply_binding
from charter.decisions.merge import _slug, build_clarification, merge_questions_answers
from charter.decisions.models import PgcClarifications, parse_clarifications
from charter.errors import CharterError
from charter.fileio import read_text


def load_document(path: Path) -> Any:
    """Parse a JSON or YAML file into plain data, with one-line errors."""
    text = read_text(path, what="decisions input")
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise CharterError(f"invalid JSON in {path}: {exc.msg} (line {exc.lineno})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise CharterError(f"invalid YAML in {path}{where}") from None


def from_document(data: Any, source: str) -> PgcClarifications:
    """Canonical entries for any recognised document shape."""
    if isinstance(data, dict) and "pgc_clarifications" in data:
        parsed = parse_clarifications(data, source)
        return PgcClarifications(
            pgc_clarifications=[apply_binding(e) for e in parsed.pgc_clarifications]
        )
    if isinstance(data, dict) and "questions" in data:
        return merge_questions_answers(data["questions"], data.get("answers", {}), source=source)
    if isinstance(data, dict):
        items: list[Any] = []
        for key in ("decisions", "constraints", "intake"):
            value = data.get(key)
            if isinstance(value, list):
                items.extend(value)
        for excluded in data.get("excluded", []) or []:
            items.append(
                {
                    "id": "EXCLUDED_" + _slug(str(excluded)).upper(),
                    "question": f"Is {excluded} in scope?",
                    "answer": "no",
                    "exclusion": True,
                }
            )
        if items:
            entries = [
                build_clarification(item, item if isinstance(item, dict) else None, source)
                for item in items
            ]
            return parse_clarifications(
                {"pgc_clarifications": [e.model_dump() for e in entries]}, source
            )
    raise CharterError(
        f"{source}: no decisions found (expected pgc_clarifications, questions + answers, "
        "or an intake form with a 'decisions' list)"
    )


def import_file(path: Path) -> PgcClarifications:
    return from_document(load_document(path), str(path))
