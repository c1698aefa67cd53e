"""A text that gives another value for a quantity a free-text answer states plainly
breaks it.

"Uploaded photos are kept for 30 days and then deleted" fixes a value without a cap or a
floor ("at most", "at least"), so the limit reading (``test_drift_limits``) saw no rule in
it, and "uploaded photos are deleted after 90 days" passed. A plain value counts against
a sentence only when that sentence shares enough words with the value's own clause
(``VALUE_ABOUT``), and not when the sentence restates one of the answer's values. Round 94
(held-out drift sets, issue 13).
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.limits import quantities, stated_values
from tests.decisions_support import clarification_entry, flagged, layered_checker

RETENTION = clarification_entry(
    "PHOTO_RETENTION",
    "How long are uploaded photos kept?",
    "free_text",
    None,
    "Uploaded photos are kept for 30 days and then deleted; "
    "thumbnails are regenerated at most 2 times a day.",
)

BROKEN = [
    "The cleanup job now deletes uploaded photos after 90 days.",
    "Uploaded photos are kept for 6 months before they are deleted.",
]

KEPT = [
    # restates the answer's own value
    "Uploaded photos are kept for 30 days, then the cleanup job deletes them within 2 hours.",
    # another quantity of the same measure, about something else
    "The upload page loads in 2 seconds on a phone.",
    # no quantity at all
    "Uploaded photos are deleted by the cleanup job.",
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker({"pgc_clarifications": [RETENTION]}, request.param)


@pytest.mark.parametrize("text", BROKEN)
def test_another_value_for_a_stated_quantity_breaks_it(checker: DriftChecker, text: str) -> None:
    assert "PHOTO_RETENTION" in flagged(checker, text)


@pytest.mark.parametrize("text", KEPT)
def test_restating_or_unrelated_values_keep_it(checker: DriftChecker, text: str) -> None:
    assert "PHOTO_RETENTION" not in flagged(checker, text)


def test_the_finding_cites_the_sentence_with_the_other_value(checker: DriftChecker) -> None:
    text = "The gallery is unchanged. The cleanup job now deletes uploaded photos after 90 days."
    found = [f for f in checker.check(text).findings if f.constraint_id == "PHOTO_RETENTION"]
    want = "The cleanup job now deletes uploaded photos after 90 days"
    assert found and found[0].evidence == want


def test_an_answer_reads_as_plain_values_apart_from_its_caps() -> None:
    values = stated_values(
        "Uploaded photos are kept for 30 days and then deleted; "
        "thumbnails are regenerated at most 2 times a day; members aged 18 or over."
    )
    assert [(v.kind, v.quantity.value) for v in values] == [("exact", 30 * 86400.0)]
    # what the value is about, without the value's own unit word
    assert {"upload", "photo", "delet"} <= values[0].about
    assert "day" not in values[0].about


def test_a_currency_sign_and_its_code_are_one_measure() -> None:
    sign, code = quantities("a fee of £15"), quantities("a fee of GBP 45")
    assert sign[0].measure == code[0].measure == "money:GBP"
    assert quantities("EUR 5 or €7")[1].measure == "money:EUR"
