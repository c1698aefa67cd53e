"""A text that names the limit a free-text answer sets restates it; it does not break it.

"No specialist is booked for more than 6 sessions in a shift" rules out a clause; a
design note saying "the 6-session cap per shift is checked at booking" names the same
words and the same number, and was flagged as breaking it (false alarms on held-out drift
sets, each an elaboration of the answer). A clause naming the answer's own number is
read as restating the limit; one that names another number, or none, is still held
against it.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.vocab import Forbidden, _forbidden_clauses
from tests.decisions_support import clarification_entry, flagged, layered_checker

LIMITS = clarification_entry(
    "SESSION_LIMITS",
    "How many sessions may a play specialist take on in one shift?",
    "free_text",
    None,
    "Sessions are 30 or 45 minutes; no specialist is booked for more than 6 sessions in a shift.",
)

RESTATED = [
    "The booking screen checks the 6-session cap per shift before it saves a specialist's booking.",
    "Planning: the solver books each specialist for at most 6 sessions in a shift.",
]

BROKEN = [
    "On busy days the ward books a specialist for extra sessions in a shift.",
    "Specialists can now be booked for 8 sessions in a shift.",
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker({"pgc_clarifications": [LIMITS]}, request.param)


@pytest.mark.parametrize("text", RESTATED)
def test_a_text_naming_the_limits_own_number_restates_it(checker: DriftChecker, text: str) -> None:
    assert "SESSION_LIMITS" not in flagged(checker, text)


@pytest.mark.parametrize("text", BROKEN)
def test_a_text_with_another_number_or_none_still_breaks_it(
    checker: DriftChecker, text: str
) -> None:
    assert "SESSION_LIMITS" in flagged(checker, text)


def test_the_clause_keeps_its_numbers_but_not_the_zeros_of_times() -> None:
    clauses = _forbidden_clauses(
        "Lifts run 08:00 to 16:00 on weekdays; no boat over 25 tonnes or GBP 3,000 is lifted.",
        set(),
    )
    numbers = {n for f in clauses for n in f.numbers}
    assert numbers == {"#25", "#3"}
    assert all(isinstance(f, Forbidden) for f in clauses)


def test_the_digits_of_a_name_are_no_limit() -> None:
    clauses = _forbidden_clauses(
        "Jobs are posted through the middleware, never by direct calls to S/4HANA or v2 APIs.",
        set(),
    )
    assert clauses and all(not f.numbers for f in clauses)
