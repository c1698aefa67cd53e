"""A text that states a quantity past a free-text answer's cap or floor breaks it.

"Loans last at most 7 days" is broken by "students can keep a loan for up to 14 days" and
"only addresses within 25 km can book" by "the radius went from 25 to 40 km", though
neither text names an option or shares a rejected word with the answer: the numbers say
it. Before stop 61 the checker had no reading of a free-text answer's quantities, and such
texts passed unflagged (held-out drift sets, `docs/benchmarks.md`).
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.limits import bounds, quantities
from tests.decisions_support import clarification_entry, flagged, layered_checker

LOANS = clarification_entry(
    "LOAN_RULES",
    "What are the loan rules?",
    "free_text",
    None,
    "Loans last at most 7 days; at most 3 items per borrower at a time; "
    "only addresses within 25 km of the depot get delivery.",
)

BROKEN = [
    "Students can now keep a loan for up to 14 days when the item is not reserved.",
    "A borrower may take a fourth item out if the desk approves it.",
    "I see the delivery radius constant went from 25 to 40 km in this change.",
    "Loans now last two weeks for PhD students.",
]

KEPT = [
    "Short loans last 3 days for the high-demand cameras.",
    "A borrower asking for a fourth item is refused with the limit message.",
    "The loan screen shows the 7-day limit and the 3 items a borrower may hold.",
    "Loans never last longer than 7 days, and reminders go out 2 days before.",
    "Reminders go out 2 days before a loan ends.",
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker({"pgc_clarifications": [LOANS]}, request.param)


@pytest.mark.parametrize("text", BROKEN)
def test_a_quantity_past_the_answers_limit_breaks_it(checker: DriftChecker, text: str) -> None:
    assert "LOAN_RULES" in flagged(checker, text)


@pytest.mark.parametrize("text", KEPT)
def test_a_quantity_within_restating_or_refusing_keeps_it(checker: DriftChecker, text: str) -> None:
    assert "LOAN_RULES" not in flagged(checker, text)


def test_the_finding_cites_the_sentence_with_the_quantity(checker: DriftChecker) -> None:
    text = "Checkout is unchanged. Students can now keep a loan for up to 14 days."
    found = [f for f in checker.check(text).findings if f.constraint_id == "LOAN_RULES"]
    assert found and found[0].evidence == "Students can now keep a loan for up to 14 days"


def test_an_answer_reads_as_caps_and_floors_with_what_they_are_about() -> None:
    read = bounds(
        "Loans last at most 7 days; no teacher gets more than 5 consecutive periods; "
        "at least 20 minutes of driving time between visits."
    )
    assert [(b.kind, b.quantity.measure, b.quantity.value) for b in read] == [
        ("max", "time", 7 * 86400),
        ("max", "count", 5),
        ("min", "time", 20 * 60),
    ]
    assert {"loan", "last"} <= read[0].about
    assert read[1].quantity.units == {"consecutiv", "period"}


@pytest.mark.parametrize(
    "answer",
    [
        "Anglers aged 66 or over pay GBP 20.",  # whom a price is for
        "GBP 35 for up to 3 items and GBP 10 for each extra item.",  # a price band
        "Dogs over 40 kg are booked as 120 minutes.",  # a condition
        "Orders of more than 50 items need a second approval.",  # no negation: a condition
    ],
)
def test_conditions_and_bands_set_no_limit(answer: str) -> None:
    assert bounds(answer) == []


def test_a_text_reads_as_new_values_in_one_scale() -> None:
    said = quantities(
        "The radius went from 25 to 40 km, a seventh request waits, records go after seven "
        "years, 25 of the 30 weekly periods, a 5,000-character comment and EUR 4.99."
    )
    assert [(q.measure, q.value, sorted(q.units)) for q in said] == [
        ("count", 40, ["km"]),
        ("count", 7, ["request", "wait"]),
        ("time", 7 * 31557600, []),
        ("count", 25, ["period", "week"]),
        ("count", 5000, ["character", "comment"]),
        ("money:EUR", 4.99, []),
    ]


def test_times_of_day_versions_and_bare_numbers_are_no_quantity() -> None:
    assert quantities("Open 08:00 to 16:30 on v2.1, see ticket #42 and RFC 4180.") == []
