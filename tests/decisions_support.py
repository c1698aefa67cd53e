"""Shared inputs for the decisions and drift tests (a small, self-contained scenario)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.merge import merge_questions_answers
from charter.decisions.models import PgcClarifications, parse_clarifications
from charter.embed.registry import get_embedder

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "TARGET_PLATFORM",
        "text": "What platform should the app target?",
        "priority": "must",
        "answer_type": "single_choice",
        "choices": [
            {"id": "web", "label": "Web browser"},
            {"id": "mobile", "label": "Native mobile application"},
        ],
    },
    {
        "id": "DATABASE",
        "text": "Primary datastore?",
        "priority": "must",
        "answer_type": "single_choice",
        "choices": [
            {"id": "postgres", "label": "PostgreSQL"},
            {"id": "mongodb", "label": "MongoDB"},
        ],
    },
    {
        "id": "OFFLINE_MODE",
        "text": "Is an offline mode in scope?",
        "priority": "should",
        "answer_type": "yes_no",
    },
    {
        "id": "AUDIT_LOG",
        "text": "How must changes be audited?",
        "priority": "must",
        "answer_type": "free_text",
    },
    {
        "id": "THEME",
        "text": "Which colour theme ships first?",
        "priority": "could",
        "answer_type": "single_choice",
        "choices": [{"id": "light", "label": "Light"}, {"id": "dark", "label": "Dark"}],
    },
    {
        "id": "BILLING",
        "text": "Which billing model?",
        "priority": "must",
        "answer_type": "single_choice",
        "choices": [
            {"id": "seats", "label": "Per seat"},
            {"id": "usage", "label": "Usage based"},
        ],
    },
]
ANSWERS: dict[str, Any] = {
    "TARGET_PLATFORM": "web",
    "DATABASE": "postgres",
    "OFFLINE_MODE": "no",
    "AUDIT_LOG": "Every change is written to an append-only audit table; rows are never "
    "updated or deleted.",
    "THEME": "light",
    "BILLING": "undecided",
}


def decisions() -> PgcClarifications:
    return merge_questions_answers(QUESTIONS, ANSWERS)


def write_inputs(root: Path) -> tuple[Path, Path]:
    q = root / "questions.json"
    a = root / "answers.json"
    q.write_text(json.dumps({"questions": QUESTIONS}), encoding="utf-8")
    a.write_text(json.dumps({"answers": ANSWERS}), encoding="utf-8")
    return q, a


def no_worker(root: Path, extra: str = "") -> None:
    """charter.toml that keeps hook tests from starting a background worker."""
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n" + extra, encoding="utf-8")


#: The choices of every yes/no clarification.
YES_NO: list[dict[str, str]] = [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]


def clarification_entry(
    cid: str, text: str, atype: str, choices: list[Any] | None, answer: Any, **kw: Any
) -> dict[str, Any]:
    """One pgc_clarifications entry, resolved unless ``answer`` is None or undecided.
    ``choices`` None means the type's own: yes/no for ``yes_no``, none otherwise."""
    if choices is None:
        choices = list(YES_NO) if atype == "yes_no" else []
    resolved = answer not in (None, "undecided")
    if atype == "free_text":
        label = answer
    elif isinstance(answer, list):
        label = [c["label"] for c in choices if c["id"] in answer]
    else:
        label = next((c["label"] for c in choices if c["id"] == answer), None)
    return {
        "id": cid,
        "text": text,
        "priority": kw.get("priority", "must"),
        "answer_type": atype,
        "choices": choices,
        "user_answer": answer,
        "user_answer_label": label if resolved else None,
        "resolved": resolved,
        "binding": kw.get("binding", resolved),
        "binding_reason": kw.get("reason", "must_answered" if resolved else "unresolved"),
    }


def choice_entry(
    cid: str, text: str, options: dict[str, str], answer: Any, **kw: Any
) -> dict[str, Any]:
    """A single-choice entry (multi-choice when ``answer`` is a list) whose choices are
    ``{id: label}``, in order."""
    atype = "multi_choice" if isinstance(answer, list) else "single_choice"
    choices = [{"id": cid_, "label": label} for cid_, label in options.items()]
    return clarification_entry(cid, text, atype, choices, answer, **kw)


def bound(*entries: dict[str, Any]) -> PgcClarifications:
    """The decisions file holding ``entries`` (from :func:`choice_entry` and the like)."""
    return parse_clarifications({"pgc_clarifications": list(entries)})


def layered_checker(data: dict[str, Any], layer: str) -> DriftChecker:
    """A drift checker over ``data`` with the semantic layer (``"semantic"``) or the
    lexical layer alone (``"lexical"``, as in a cold hook process)."""
    embedder = get_embedder("minilm") if layer == "semantic" else None
    return DriftChecker(parse_clarifications(data), embedder=embedder)


def flagged(checker: DriftChecker, text: str) -> set[str]:
    """The constraints ``checker`` finds ``text`` violating."""
    return {f.constraint_id for f in checker.check(text).findings}


#: A choice both drift-grammar tests hold texts against: invoices go to Xero, not Sage.
ACCOUNTING = choice_entry(
    "ACCOUNTING",
    "Which accounting system receives the invoices?",
    {"xero": "Xero", "sage": "Sage"},
    "xero",
)
