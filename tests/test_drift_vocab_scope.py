"""What a constraint's words may match, on a climbing-gym scenario unlike every split:
an excluded subject keeps its number, and a ruled-out clause whose one word the answer
affirms elsewhere names nothing on its own."""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from tests.decisions_support import clarification_entry, layered_checker

GYM = {
    "pgc_clarifications": [
        clarification_entry(
            "UNDER_16",
            "Are climbers under 16 in scope for online booking?",
            "yes_no",
            None,
            "no",
            reason="explicit_exclusion",
        ),
        clarification_entry(
            "PAUSES",
            "Who can pause a membership?",
            "free_text",
            None,
            "Members can pause once a year for up to two months. Only front-desk staff set "
            "up a pause, not the member.",
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def gym(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker(GYM, request.param)


def _found(checker: DriftChecker, text: str) -> set[tuple[str, str]]:
    return {(f.rule, f.constraint_id) for f in checker.check(text).findings}


@pytest.mark.parametrize(
    "text",
    [
        "Each climber gets a locker code when they book a session online.",
        "As a regular climber I want to see which walls were reset this week.",
        "Member portal, first release.",
        "A member can hold at most three future bookings.",
    ],
)
def test_the_subjects_nouns_alone_do_not_match(gym: DriftChecker, text: str) -> None:
    assert _found(gym, text) == set()


def test_the_subject_with_its_number_still_matches(gym: DriftChecker) -> None:
    text = "Climbers under 16 can now book the bouldering area online with a parent's email."
    assert ("QA-PGC-002", "UNDER_16") in _found(gym, text)


LOGS = {
    "pgc_clarifications": [
        clarification_entry(
            "LOG_RETENTION",
            "How long are the access logs kept?",
            "single_choice",
            [
                {"id": "d30", "label": "30 days"},
                {"id": "d90", "label": "90 days"},
                {"id": "y1", "label": "1 year"},
            ],
            "d90",
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def logs(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker(LOGS, request.param)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # options that differ only by their number are named by number and unit
        ("To save disk space the access logs are now deleted after 30 days.", True),
        ("Access logs are kept for 90 days and then deleted by the nightly job.", False),
        ("The access log shipper retries every 30 seconds until the upload succeeds.", False),
    ],
)
def test_a_numeric_option_is_named_by_its_number(
    logs: DriftChecker, text: str, found: bool
) -> None:
    assert (("QA-PGC-001", "LOG_RETENTION") in _found(logs, text)) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a value no option offers is still not the one chosen
        ("We now keep the access logs for 180 days because the auditors asked.", True),
        ("The access logs are kept for 90 days; a summary is emailed after 7 days.", False),
        ("Access logs are never kept for 180 days, whatever the auditors ask.", False),
        ("The onboarding checklist takes about 3 days for a new engineer.", False),
    ],
)
def test_another_value_of_the_chosen_unit(logs: DriftChecker, text: str, found: bool) -> None:
    assert (("QA-PGC-001", "LOG_RETENTION") in _found(logs, text)) == found


PORTAL = {
    "pgc_clarifications": [
        clarification_entry(
            "PAUSES",
            "Who can pause a membership?",
            "free_text",
            None,
            "Members can pause once a year for up to two months. Only front-desk staff set "
            "up a pause, not the member in the portal.",
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def portal(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker(PORTAL, request.param)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # "X does it, not Y": Y is ruled out of that action, not out of every sentence
        ("Member portal, first release: class bookings and invoices.", False),
        ("Members can now set up a pause themselves in the portal.", True),
    ],
)
def test_a_contrast_rules_out_the_action_not_the_word(
    portal: DriftChecker, text: str, found: bool
) -> None:
    assert (("QA-PGC-001", "PAUSES") in _found(portal, text)) == found


SCOOTERS = {
    "pgc_clarifications": [
        clarification_entry(
            "CHARGING",
            "How are the scooter batteries charged?",
            "free_text",
            None,
            "Packs are swapped on the street by the night crew; scooters are never taken "
            "back to the depot to charge.",
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def scooters(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker(SCOOTERS, request.param)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # the forbidden clause's subject named only to be excluded confirms the answer
        ("Overnight, the depot charges the spare packs, never scooters.", False),
        ("Scooters with a flat pack are now taken back to the depot to charge.", True),
    ],
)
def test_a_negated_subject_confirms_the_answer(
    scooters: DriftChecker, text: str, found: bool
) -> None:
    assert (("QA-PGC-001", "CHARGING") in _found(scooters, text)) == found
