"""Binding derivation table: every rule of seed 003 section 3, each way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from charter.decisions.binding import apply_binding
from charter.decisions.merge import build_clarification
from charter.decisions.models import parse_clarifications

BENCH = Path("/work/shared/bench/drift/constraints")


def derive(**spec: Any) -> tuple[bool, bool, str]:
    spec.setdefault("id", "Q")
    spec.setdefault("text", "Which option?")
    entry = build_clarification(spec, spec, "test")
    return entry.resolved, entry.binding, entry.binding_reason


CHOICES = [{"id": "a", "label": "Option A"}, {"id": "b", "label": "Option B"}]

TABLE = [
    # (spec, resolved, binding, reason)
    ({"priority": "must", "choices": CHOICES, "answer": "a"}, True, True, "must_answered"),
    ({"priority": "must", "choices": CHOICES, "answer": None}, False, False, "unresolved"),
    ({"priority": "must", "choices": CHOICES, "answer": "undecided"}, False, False, "unresolved"),
    ({"priority": "must", "choices": CHOICES, "answer": "  "}, False, False, "unresolved"),
    (
        {"priority": "must", "answer_type": "multi_choice", "choices": CHOICES, "answer": []},
        False,
        False,
        "unresolved",
    ),
    (
        {"priority": "must", "answer_type": "free_text", "answer": "Must use TLS 1.3"},
        True,
        True,
        "must_answered",
    ),
    (
        {"priority": "should", "choices": CHOICES, "answer": "a"},
        True,
        False,
        "non_binding_priority",
    ),
    ({"priority": "could", "choices": CHOICES, "answer": "b"}, True, False, "non_binding_priority"),
    # user marked it hard: binds at any priority, but never while unresolved
    (
        {"priority": "should", "choices": CHOICES, "answer": "a", "hard": True},
        True,
        True,
        "user_marked_hard",
    ),
    (
        {"priority": "could", "choices": CHOICES, "answer": "a", "hard": True},
        True,
        True,
        "user_marked_hard",
    ),
    (
        {"priority": "should", "choices": CHOICES, "answer": "undecided", "hard": True},
        False,
        False,
        "unresolved",
    ),
    # explicit exclusion: "is X in scope?" -> no (even at should/could), "none", "no X"
    (
        {"priority": "should", "text": "Is a mobile app in scope?", "answer": "no"},
        True,
        True,
        "explicit_exclusion",
    ),
    (
        {
            "priority": "could",
            "text": "Are integrations in scope?",
            "answer": "none",
            "answer_type": "single_choice",
            "choices": [{"id": "none", "label": "None"}, {"id": "crm", "label": "CRM"}],
        },
        True,
        True,
        "explicit_exclusion",
    ),
    (
        {"priority": "should", "text": "Is a mobile app in scope?", "answer": "yes"},
        True,
        False,
        "non_binding_priority",
    ),
    (
        {
            "priority": "should",
            "text": "Which platforms are out of scope?",
            "answer_type": "multi_choice",
            "choices": CHOICES,
            "answer": ["b"],
        },
        True,
        True,
        "explicit_exclusion",
    ),
    (
        {
            "priority": "should",
            "answer_type": "free_text",
            "text": "Mobile?",
            "answer": "No mobile app",
        },
        True,
        True,
        "explicit_exclusion",
    ),
    (
        # a negated comparative is a limit the answer sets, not something out of scope
        {
            "priority": "must",
            "answer_type": "free_text",
            "text": "How short must the checkout be?",
            "answer": "No more than 3 steps from cart to a confirmed order",
        },
        True,
        True,
        "must_answered",
    ),
    (
        {
            "priority": "should",
            "answer_type": "free_text",
            "text": "How far ahead can visits be booked?",
            "answer": "Not later than 24 hours before the visit starts",
        },
        True,
        False,
        "non_binding_priority",
    ),
    (
        {
            "priority": "must",
            "answer_type": "free_text",
            "text": "What is the most a reviewer may be given?",
            "answer": "No reviewer is assigned more than 4 papers per cycle",
        },
        True,
        True,
        "must_answered",
    ),
    (
        # rules the answer lists, the first of them a "no": each binds as a must answer
        # does, nothing is taken out of scope
        {
            "priority": "must",
            "answer_type": "free_text",
            "text": "What privacy rules apply to members' data?",
            "answer": "No photos of members anywhere; members are shown by first name only",
        },
        True,
        True,
        "must_answered",
    ),
    (
        {"priority": "could", "text": "Dark mode?", "answer": "no"},
        True,
        False,
        "non_binding_priority",
    ),
    (
        {"priority": "should", "text": "Is a mobile app in scope?", "answer": "undecided"},
        False,
        False,
        "unresolved",
    ),
    (
        {"priority": "should", "choices": CHOICES, "answer": "a", "exclusion": True},
        True,
        True,
        "explicit_exclusion",
    ),
    (
        {"priority": "should", "text": "Is SSO in scope?", "answer": "no", "exclusion": False},
        True,
        False,
        "non_binding_priority",
    ),
    # a stated preference is informational, unless the user also marked it hard
    (
        {"priority": "must", "choices": CHOICES, "answer": "a", "preference": True},
        True,
        False,
        "preference",
    ),
    (
        {"priority": "must", "choices": CHOICES, "answer": "a", "preference": True, "hard": True},
        True,
        True,
        "user_marked_hard",
    ),
]


@pytest.mark.parametrize(("spec", "resolved", "binding", "reason"), TABLE)
def test_binding_table(spec: dict[str, Any], resolved: bool, binding: bool, reason: str) -> None:
    assert derive(**spec) == (resolved, binding, reason)


def test_binding_ignores_what_the_input_claims() -> None:
    """A stored ``binding: true`` on a should-level answer is re-derived, not trusted."""
    raw = {
        "id": "X",
        "text": "Colour?",
        "priority": "should",
        "answer_type": "single_choice",
        "choices": CHOICES,
        "user_answer": "a",
        "binding": True,
        "binding_reason": "must_answered",
        "resolved": True,
    }
    entry = parse_clarifications({"pgc_clarifications": [raw]}).pgc_clarifications[0]
    fixed = apply_binding(entry)
    assert (fixed.binding, fixed.binding_reason) == (False, "non_binding_priority")
    assert fixed.user_answer_label == "Option A"


def _recorded(text: str, answer_type: str, answer: Any, reason: str) -> tuple[bool, str]:
    raw = {
        "id": "X",
        "text": text,
        "priority": "should",
        "answer_type": answer_type,
        "choices": CHOICES if answer_type != "yes_no" else [],
        "user_answer": answer,
        "binding": True,
        "binding_reason": reason,
        "resolved": True,
    }
    if answer_type == "yes_no":
        raw["choices"] = [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]
    entry = parse_clarifications({"pgc_clarifications": [raw]}).pgc_clarifications[0]
    fixed = apply_binding(entry)
    return fixed.binding, fixed.binding_reason


def test_a_recorded_exclusion_is_kept_when_the_words_do_not_show_it() -> None:
    """An imported document that records an exclusion keeps it bound, as a recorded hard
    mark is kept; a claimed `must` on a should answer is still re-derived (above), and a
    "yes" is never an exclusion."""
    question = "Which payment methods will the shop not take at checkout?"
    kept = _recorded(question, "multi_choice", ["a"], "explicit_exclusion")
    assert kept == (True, "explicit_exclusion")
    assert _recorded(question, "multi_choice", ["a"], "non_binding_priority") == (
        False,
        "non_binding_priority",
    )
    yes = _recorded("Will the shop take cheques?", "yes_no", "yes", "explicit_exclusion")
    assert yes == (False, "non_binding_priority")


DATA_SETS = sorted((Path(__file__).parent / "data").glob("drift_*/constraints"))


@pytest.mark.parametrize("folder", [BENCH, *DATA_SETS], ids=lambda p: p.parent.name)
def test_labelled_constraints_rederive_identically(folder: Path) -> None:
    """Every labelled set's clarifications (the bench's dev split and ours) come out of an
    import exactly as their writers recorded them."""
    if not folder.is_dir():
        pytest.skip("shared bench data not mounted")
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        parsed = parse_clarifications(data, path.name)
        for entry in parsed.pgc_clarifications:
            assert apply_binding(entry).to_canonical() == entry.to_canonical(), entry.id
