"""An idea the writer floats about what a binding decision settles, in other words than
its options ("we could let the treasurer hand out the expenses in cash"), suggests an
alternative to it (QA-PGC-004). Not when it builds on the chosen option, reports someone
else's ask, weighs the road not taken or states a condition.

These need the embedding model: which decision the idea is about is read from the
sentence's similarity to each decision.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker, _view
from charter.decisions.drift.segment import segment
from tests.decisions_support import choice_entry, clarification_entry, layered_checker

PAYOUT = choice_entry(
    "PAYOUT_METHOD",
    "How are volunteers' expenses paid out?",
    {"bank": "Bank transfer by the treasurer", "cash": "Cash from the petty-cash tin"},
    "bank",
)
REFUND = clarification_entry(
    "AUTO_REFUND",
    "Must overcharged fares be refunded automatically, without the rider asking?",
    "yes_no",
    None,
    "yes",
)
HOSTING = choice_entry(
    "HOSTING",
    "Where are the portal and its database hosted?",
    {"council": "The council's own data centre", "cloud": "A public cloud provider"},
    "council",
)


@pytest.fixture(scope="module")
def checker() -> DriftChecker:
    return layered_checker({"pgc_clarifications": [PAYOUT, REFUND, HOSTING]}, "semantic")


def _suggested(checker: DriftChecker, text: str) -> set[str]:
    return {c.constraint_id for c in checker.candidates(text) if c.features.get("src_suggested")}


@pytest.mark.parametrize(
    "text, cid",
    [
        (
            "We could also let the treasurer hand out the expenses in cash at the meeting.",
            "PAYOUT_METHOD",
        ),
        (
            "We might make refunds request-based instead: the rider clicks 'Claim refund' on "
            "the fare page.",
            "AUTO_REFUND",
        ),
    ],
)
def test_an_idea_floated_against_a_decision_is_a_suggested_alternative(
    checker: DriftChecker, text: str, cid: str
) -> None:
    assert _suggested(checker, text) == {cid}
    assert (cid, "QA-PGC-004") in {(f.constraint_id, f.rule) for f in checker.check(text).findings}


@pytest.mark.parametrize(
    "text",
    [
        # builds on the chosen option
        "We could also let the treasurer send the expenses by bank transfer the same evening.",
        # the road not taken
        "Had we gone with cash from the tin, we could have skipped the bank fees on expenses.",
        # a condition, not a plan
        "If volunteers ever want their expenses in cash, it might be worth a new decision by "
        "the committee.",
    ],
)
def test_an_idea_on_the_chosen_side_or_not_a_plan_is_left_alone(
    checker: DriftChecker, text: str
) -> None:
    """Each of these is a suggestion close to the payout decision; only the reading
    named in its comment keeps it from being proposed."""
    view = _view(text, segment(text)[0])
    assert view.suggestion
    assert not _suggested(checker, text)
