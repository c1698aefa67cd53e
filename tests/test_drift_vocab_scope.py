"""What a constraint's words may match, on small scenarios unlike every split (a climbing
gym, access logs, e-scooter charging): an excluded subject keeps its number, a ruled-out
clause names an action and not a lone word, a numeric choice is named by its numbers,
and a subject named only to be excluded confirms the answer. Each case runs with the
semantic layer and with the lexical layer alone."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from charter.decisions.drift.checker import DriftChecker
from tests.decisions_support import choice_entry, clarification_entry, layered_checker

SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "gym": [
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
    ],
    "portal": [
        clarification_entry(
            "PAUSES",
            "Who can pause a membership?",
            "free_text",
            None,
            "Members can pause once a year for up to two months. Only front-desk staff set "
            "up a pause, not the member in the portal.",
        ),
    ],
    "kitchen": [
        clarification_entry(
            "OUTBREAKS",
            "What happens when food poisoning is suspected?",
            "free_text",
            None,
            "A suspected outbreak alerts the hygiene officer at once; only the officer reports "
            "it to the council, never the app or the cook.",
        ),
    ],
    "logs": [
        choice_entry(
            "LOG_RETENTION",
            "How long are the access logs kept?",
            {"d30": "30 days", "d90": "90 days", "y1": "1 year"},
            "d90",
        ),
    ],
    "scooters": [
        clarification_entry(
            "CHARGING",
            "How are the scooter batteries charged?",
            "free_text",
            None,
            "Packs are swapped on the street by the night crew; scooters are never taken "
            "back to the depot to charge.",
        ),
    ],
}

UNDER_16 = ("QA-PGC-002", "UNDER_16")
PAUSES = ("QA-PGC-001", "PAUSES")
RETENTION = ("QA-PGC-001", "LOG_RETENTION")
CHARGING = ("QA-PGC-001", "CHARGING")
OUTBREAKS = ("QA-PGC-001", "OUTBREAKS")

#: scenario -> (text, the finding it must or must not produce: (rule, constraint), or None
#: for "no finding at all"; expected)
CASES_BY_SCENARIO: dict[str, list[tuple[str, tuple[str, str] | None, bool]]] = {
    "gym": [
        # an excluded subject keeps its number: "climbers" alone is every climber
        ("Each climber gets a locker code when they book a session online.", None, True),
        ("As a regular climber I want to see which walls were reset this week.", None, True),
        (
            "Climbers under 16 can now book the bouldering area online with a parent's email.",
            UNDER_16,
            True,
        ),
        # a ruled-out clause whose one word ("member") the answer affirms names nothing
        ("Member portal, first release.", None, True),
        ("A member can hold at most three future bookings.", None, True),
    ],
    "portal": [
        # "X does it, not Y": Y is ruled out of that action, not out of every sentence
        ("Member portal, first release: class bookings and invoices.", None, True),
        ("Members can now set up a pause themselves in the portal.", PAUSES, True),
    ],
    "kitchen": [
        # "X does it, never Y": Y is ruled out of that action, not out of every sentence
        ("Cooks may wear an apron of any colour they like.", None, True),
        ("Cooks now report suspected outbreaks straight to the council.", OUTBREAKS, True),
    ],
    "logs": [
        # options that differ only by their number are named by number and unit
        ("To save disk space the access logs are now deleted after 30 days.", RETENTION, True),
        ("Access logs are kept for 90 days and then deleted by the nightly job.", RETENTION, False),
        (
            "The access log shipper retries every 30 seconds until the upload succeeds.",
            RETENTION,
            False,
        ),
        # a value no option offers is still not the one chosen
        ("We now keep the access logs for 180 days because the auditors asked.", RETENTION, True),
        (
            "The access logs are kept for 90 days; a summary is emailed after 7 days.",
            RETENTION,
            False,
        ),
        ("Access logs are never kept for 180 days, whatever the auditors ask.", RETENTION, False),
        ("The onboarding checklist takes about 3 days for a new engineer.", RETENTION, False),
    ],
    "scooters": [
        # the forbidden clause's subject named only to be excluded confirms the answer
        ("Overnight, the depot charges the spare packs, never scooters.", CHARGING, False),
        ("Scooters with a flat pack are now taken back to the depot to charge.", CHARGING, True),
    ],
}
CASES = [(sc, *case) for sc, cases in CASES_BY_SCENARIO.items() for case in cases]


@cache
def _checker(scenario: str, layer: str) -> DriftChecker:
    return layered_checker({"pgc_clarifications": SCENARIOS[scenario]}, layer)


@pytest.mark.parametrize("layer", ["semantic", "lexical"])
@pytest.mark.parametrize(("scenario", "text", "finding", "expected"), CASES)
def test_what_a_constraints_words_match(
    layer: str, scenario: str, text: str, finding: tuple[str, str] | None, expected: bool
) -> None:
    found = {(f.rule, f.constraint_id) for f in _checker(scenario, layer).check(text).findings}
    if finding is None:
        assert found == set()
    else:
        assert (finding in found) == expected
