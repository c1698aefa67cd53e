"""A requirement phrased with a negation is restated, not broken, by a text that negates
the same thing.

"Must deliveries stay a surprise, with no contact with the recipient before the driver
arrives?" answered yes: "the delivery flow sends nothing to the recipient before the
driver knocks" says the same, yet its "nothing" read as the requirement negated (false
alarms on held-out drift sets, each an elaboration). Where the requirement's own question
carries a negation, a negation in the text no longer counts as breaking it; a weakening
("optional", "can skip") still does. A positively phrased requirement, or one whose only
negation sits in an aside in parentheses, is held against a negated text as before.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from tests.decisions_support import clarification_entry, flagged, layered_checker

SURPRISE = clarification_entry(
    "SURPRISE_DELIVERY",
    "Must deliveries stay a surprise, with no contact with the recipient before the driver "
    "arrives?",
    "yes_no",
    None,
    "yes",
)
HEALTH_NOTICE = clarification_entry(
    "HEALTH_NOTICE",
    "Must visitors tick the tower-climb health notice (137 steps, no lift) before paying?",
    "yes_no",
    None,
    "yes",
)


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    data = {"pgc_clarifications": [SURPRISE, HEALTH_NOTICE]}
    return layered_checker(data, request.param)


def test_a_negated_restatement_of_a_negative_requirement_is_no_violation(
    checker: DriftChecker,
) -> None:
    text = "Recipient: the delivery flow sends nothing to the recipient before the driver knocks."
    assert "SURPRISE_DELIVERY" not in flagged(checker, text)


def test_a_requirement_whose_only_negation_is_an_aside_is_still_broken_by_a_negation(
    checker: DriftChecker,
) -> None:
    text = "Checkout: visitors no longer tick the tower-climb health notice before paying."
    assert "HEALTH_NOTICE" in flagged(checker, text)
