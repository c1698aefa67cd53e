"""Where a mention of a decided-against option stands: negated, asked about by someone
else, a choice passed over, or the interim plan of an open point stated before.

These read the candidate layer (what the checker proposes and how it flags it), so they
hold whatever the calibrated model weighs; each pair puts the same words in a sentence
that does commit to them, which must still be proposed unflagged.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift import checker as checker_module
from charter.decisions.drift import lexicon
from charter.decisions.drift.checker import DriftChecker, _UnitView, _view
from charter.decisions.drift.segment import segment
from tests.decisions_support import choice_entry, clarification_entry, layered_checker

RENTAL = clarification_entry(
    "EQUIPMENT_RENTAL",
    "Is ski and snowboard equipment rental in scope?",
    "yes_no",
    None,
    "no",
    reason="explicit_exclusion",
)
OUT_OF_SCOPE = choice_entry(
    "OUT_OF_SCOPE",
    "Which features are out of scope for the first release?",
    {
        "seating": "Candidate seating plans",
        "app": "Native mobile app",
        "payroll": "Payroll export of hours worked",
    },
    ["seating", "app"],
    reason="explicit_exclusion",
)
CLAIMS = choice_entry(
    "CLAIM_CHANNEL",
    "Through which channel do passengers submit claims?",
    {"web": "Online form on the website", "phone": "Phone claims through the contact centre"},
    "web",
)
ROTA = choice_entry(
    "ROTA_TOOL",
    "Which tool holds the volunteer rota?",
    {"web": "Responsive web app", "sheet": "Shared spreadsheet"},
    "web",
)


@pytest.fixture(scope="module")
def checker() -> DriftChecker:
    data = {"pgc_clarifications": [RENTAL, OUT_OF_SCOPE, CLAIMS, ROTA]}
    return layered_checker(data, "semantic")


def _flags(checker: DriftChecker, text: str, cid: str) -> list[set[str]]:
    """The flags (``flag_*`` features) of each candidate on ``cid`` from its own words."""
    return [
        {k for k, v in c.features.items() if k.startswith("flag_") and v}
        for c in checker.candidates(text)
        if c.constraint_id == cid and c.features.get("src_excluded", c.features.get("src_term"))
    ]


@pytest.mark.parametrize(
    "negated, plain, cid",
    [
        # the denial follows the first matched word; later words of the match come after
        (
            "Equipment rental stays out of this system: the email says to bring your own "
            "equipment.",
            "Equipment rental is on the booking page: the email says to bring your own equipment.",
            "EQUIPMENT_RENTAL",
        ),
        (
            "The first release leaves out seating plans for the exam halls.",
            "The first release adds seating plans for the exam halls.",
            "OUT_OF_SCOPE",
        ),
        (
            "Seating plans are on the out-of-scope list for this release.",
            "Seating plans are on the launch list for this release.",
            "OUT_OF_SCOPE",
        ),
    ],
)
def test_a_denied_mention_is_flagged_negated(
    checker: DriftChecker, negated: str, plain: str, cid: str
) -> None:
    assert any("flag_negated" in f for f in _flags(checker, negated, cid))
    found = _flags(checker, plain, cid)
    assert found and not any("flag_negated" in f for f in found)


def test_not_showing_either_denies_both() -> None:
    assert lexicon.POST_NEGATORS.search("and the result must not show either")
    assert not lexicon.POST_NEGATORS.search("and the result must show either one")


def test_an_option_in_someone_elses_question_is_not_proposed(checker: DriftChecker) -> None:
    asked = "A caller asked the contact centre team whether phone claims are possible."
    said = "The contact centre team now takes phone claims."
    assert not [c for c in checker.candidates(asked) if c.constraint_id == "CLAIM_CHANNEL"]
    assert [c for c in checker.candidates(said) if c.constraint_id == "CLAIM_CHANNEL"]


def test_a_reported_ask_ends_where_the_writer_goes_on() -> None:
    body = "Parents keep asking about a discount, so it might be worth a prepaid pack."
    found = lexicon.REPORTED.search(body)
    assert found is not None
    stop = lexicon.REPORTED_END.search(body, found.end())
    assert stop is not None and body[stop.start() :].startswith(", so")


def _undecided(checker: DriftChecker, text: str) -> list[str]:
    return [c.constraint_id for c in checker.candidates(text) if c.rule == "QA-PGC-003"]


def test_an_undecided_cue_in_someone_elses_question_is_theirs(checker: DriftChecker) -> None:
    assert _undecided(checker, "The volunteer rota tool still hasn't been decided.")
    assert not _undecided(
        checker, "A coordinator asked why the volunteer rota tool still hasn't been decided."
    )


def test_a_denial_denied_in_turn_negates_nothing(checker: DriftChecker) -> None:
    """ "Weren't on the out-of-scope list" keeps the item in scope: the chosen (in-scope)
    payroll export is affirmed, so the mention is read as elaborating the answer."""
    denied = "Payroll export wasn't on the out-of-scope list, so it goes into this release."
    plain = "Payroll export is on the out-of-scope list, so it stays out of this release."
    view = checker._prep.vocab[1]
    assert checker._affirms_chosen(denied, _view_of(denied), view)
    assert not checker._affirms_chosen(plain, _view_of(plain), view)


def _view_of(text: str) -> _UnitView:
    return _view(text, segment(text)[0])


def test_a_request_someone_made_is_reported(checker: DriftChecker) -> None:
    asked = "A passenger asked again for phone claims at the last review."
    said = "A passenger can now make phone claims, since the last review."
    assert not [c for c in checker.candidates(asked) if c.constraint_id == "CLAIM_CHANNEL"]
    assert [c for c in checker.candidates(said) if c.constraint_id == "CLAIM_CHANNEL"]
    # "asks for" is what a form does, not a report
    assert lexicon.REPORTED.search("The form asks for a phone number.") is None


@pytest.mark.parametrize(
    "before, passing",
    [
        ("A caller ", False),
        ("The fundraising team ", False),
        ("I added Welsh to the booking form, since two schools ", True),
        ("Italian is in the dropdown because clients ", True),
    ],
)
def test_an_ask_mentioned_in_passing_leaves_the_sentence_the_writers(
    before: str, passing: bool
) -> None:
    assert bool(checker_module._REPORT_IN_PASSING.search(before)) is passing
