"""A quantity in a text is held against the limit of the answer it is about.

A free-text answer may set several limits on one measure: "a member may cancel a class
at least 12 hours before it starts; an instructor teaches at most 4 hours in a row". A
text saying a member cancels 20 hours before the class honours the first; compared with
the second, 20 hours is past the 4-hour cap and the text was flagged (false alarms on
held-out drift sets, each a test plan or design restating the rules). Of the limits on
the same measure, a quantity is held against the ones whose words its clause shares
most; one that breaks the limit it is about is still flagged.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from tests.decisions_support import clarification_entry, flagged, layered_checker

RULES = clarification_entry(
    "CLASS_RULES",
    "What rules apply to class bookings?",
    "free_text",
    None,
    "A member may cancel a class at least 12 hours before it starts; "
    "an instructor teaches at most 4 hours in a row.",
)


@pytest.fixture(scope="module")
def checker() -> DriftChecker:
    return layered_checker({"pgc_clarifications": [RULES]}, "lexical")


def test_a_quantity_within_the_limit_it_is_about_is_not_held_against_another(
    checker: DriftChecker,
) -> None:
    text = (
        "Test plan: a member cancels the class their instructor teaches on Friday "
        "20 hours before it starts, and gets the credit back."
    )
    assert "CLASS_RULES" not in flagged(checker, text)


def test_a_quantity_past_the_limit_it_is_about_is_flagged(checker: DriftChecker) -> None:
    assert "CLASS_RULES" in flagged(
        checker, "Members can now cancel a class 2 hours before it starts."
    )
    assert "CLASS_RULES" in flagged(
        checker, "On Saturdays one instructor teaches for 6 hours in a row."
    )
