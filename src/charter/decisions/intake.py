"""Import constraints from other stages (intake forms, YAML, JSON) into the same shape.

Seed 003: "PGC is not the only source of binding constraints". Whatever the source, the
result is canonical ``pgc_clarifications`` entries with binding derived mechanically.

Recognised documents (JSON, YAML, or a Markdown intake form — see
:func:`parse_markdown_form`):
- ``{"pgc_clarifications": [...]}`` — already canonical; binding is re-derived;
- ``{"questions": [...], "answers": {...}}`` — merged as by ``charter decisions merge``;
- an intake form: ``{"decisions": [...]}`` (or ``constraints`` / ``intake``) whose items
  carry the question and its answer together: ``id``, ``question``, ``answer``,
  optional ``priority`` (default ``must``), ``choices``, ``hard``, ``exclusion``,
  ``preference``. A bare ``excluded: [..]`` list becomes one exclusion entry per item.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from charter import safejson, safeyaml
from charter.decisions.binding import apply_binding
from charter.decisions.merge import (
    _slug,
    build_clarification,
    check_choices,
    merge_questions_answers,
)
from charter.decisions.models import PgcClarifications, parse_clarifications
from charter.errors import CharterError
from charter.fileio import read_text

_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx", ".mdc")
_MD_HEADING = re.compile(r"^#{1,6}\s+(?P<id>[A-Za-z0-9_.:-]+)\s*(?:[:—–-]\s*)(?P<text>.+?)\s*$")
_MD_FLAGS = re.compile(r"\((must|should|could)\)|\[(hard|exclusion|preference)\]", re.I)
_MD_CHOICE = re.compile(r"^\s*[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<id>[^:]+?)\s*:\s*(?P<label>.+?)\s*$")
_MD_ANSWER = re.compile(r"^\s*(?:answer|antwort|réponse)\s*:\s*(?P<answer>.+?)\s*$", re.I)


def parse_markdown_form(text: str) -> dict[str, Any]:
    """A Markdown intake form as an intake document (see ``docs/decisions.md``).

    ``## ID: question (must) [hard]`` starts an item; ``- [x] id: Label`` lines are its
    choices (checked = answered); ``Answer: ...`` gives a free-text or yes/no answer; an
    ``## Excluded`` heading followed by bullets lists exclusions.
    """
    items: list[dict[str, Any]] = []
    excluded: list[str] = []
    current: dict[str, Any] | None = None
    in_excluded = False
    for line in text.splitlines():
        heading = _MD_HEADING.match(line)
        if line.lstrip().startswith("#"):
            title = line.lstrip("#").strip()
            in_excluded = title.lower().rstrip(":") in {"excluded", "exclusions", "out of scope"}
            current = None
            if heading and not in_excluded:
                question = heading.group("text")
                current = {"id": heading.group("id"), "choices": [], "checked": []}
                for flag in _MD_FLAGS.finditer(question):
                    if flag.group(1):
                        current["priority"] = flag.group(1).lower()
                    else:
                        current[flag.group(2).lower()] = True
                current["question"] = _MD_FLAGS.sub("", question).strip()
                items.append(current)
            continue
        if in_excluded:
            bullet = re.match(r"^\s*[-*]\s+(.+?)\s*$", line)
            if bullet:
                excluded.append(bullet.group(1))
            continue
        if current is None:
            continue
        choice = _MD_CHOICE.match(line)
        if choice:
            current["choices"].append({"id": choice.group("id"), "label": choice.group("label")})
            if choice.group("mark").lower() == "x":
                current["checked"].append(choice.group("id"))
            continue
        answer = _MD_ANSWER.match(line)
        if answer:
            current["answer"] = answer.group("answer")
    for item in items:
        checked = item.pop("checked")
        if not item["choices"]:
            item.pop("choices")
        if "answer" not in item and checked:
            item["answer"] = checked if len(checked) > 1 else checked[0]
            if len(checked) > 1:
                item["answer_type"] = "multi_choice"
    return {"decisions": items, "excluded": excluded}


def load_document(path: Path) -> Any:
    """Parse a JSON, YAML or Markdown-form file into plain data, with one-line errors."""
    text = read_text(path, what="decisions input")
    if path.suffix.lower() in _MARKDOWN_SUFFIXES:
        form = parse_markdown_form(text)
        if not form["excluded"] and not any(
            "answer" in item or "choices" in item for item in form["decisions"]
        ):
            # an ADR or other prose: importing its headings would store unanswered
            # questions named after section titles, which nothing can remove
            raise CharterError(
                f"{path}: not a Markdown intake form (no '- [x] id: Label' choices, "
                "'Answer:' lines or '## Excluded' list under '## ID: question' headings); "
                "for an ADR (MADR or Nygard) use `charter decisions import --adr`, or write "
                "each decision it binds as a form item (docs/decisions.md) and import that"
            )
        return form
    if path.suffix.lower() == ".json":
        try:
            return safejson.loads(text, name=str(path))
        except json.JSONDecodeError as exc:
            raise CharterError(f"invalid JSON in {path}: {exc.msg} (line {exc.lineno})") from None
    try:
        return safeyaml.load(text, name=str(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise CharterError(f"invalid YAML in {path}{where}") from None


def from_document(data: Any, source: str, default_priority: str = "must") -> PgcClarifications:
    """Canonical entries for any recognised document shape."""
    if isinstance(data, dict) and "pgc_clarifications" in data:
        parsed = parse_clarifications(data, source)
        for entry in parsed.pgc_clarifications:
            check_choices(entry, source)
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
                build_clarification(
                    item,
                    item if isinstance(item, dict) else None,
                    source,
                    default_priority=default_priority,
                )
                for item in items
            ]
            return parse_clarifications(
                {"pgc_clarifications": [e.model_dump() for e in entries]}, source
            )
    if isinstance(data, dict) and {"title", "decision"} <= {str(k).lower() for k in data}:
        # one decision record (title, decision, rejected alternatives): an ADR in YAML
        raise CharterError(
            f"{source}: a decision record (title and decision), not an intake form; read "
            f"it with `charter decisions import --adr {source}` (or its folder)"
        )
    raise CharterError(
        f"{source}: no decisions found (expected pgc_clarifications, questions + answers, "
        "or an intake form with a 'decisions' list)"
    )


def import_file(path: Path, default_priority: str = "must") -> PgcClarifications:
    """Canonical entries from an intake file; items without a priority get
    ``default_priority`` (config ``decisions.default_priority``)."""
    return from_document(load_document(path), str(path), default_priority)
