"""The road not taken: a sentence in the unreal past names a rejected option without
choosing it.

"Had we gone with Sage, every invoice would have needed a manual export" or "if we
took card payments, we'd need a provider" weighs the option the user turned down; it
plans nothing. Such sentences were flagged as choosing the rejected option (false alarms
on the held-out drift sets, none of them a violation). Only the grammar of the unreal
lifts a finding: the same option in a plan ("from Monday the invoices go to Sage") is
still flagged, and a real condition ("if the sync fails, we would …") is not read as
unreal.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift import checker as checker_module
from charter.decisions.drift.checker import DriftChecker
from tests.decisions_support import ACCOUNTING, choice_entry, flagged, layered_checker

CLARIFICATIONS = [
    ACCOUNTING,
    choice_entry(
        "WORKFLOW_ENGINE",
        "Which workflow engine runs the pipelines?",
        {"nextflow": "Nextflow", "cromwell": "Cromwell"},
        "nextflow",
    ),
]

COUNTERFACTUAL = [
    "Had we gone with Sage, every invoice would have needed a manual export.",
    "If we had chosen Cromwell, the scatter step would have been written in WDL.",
    "Sage would have meant a second login for the bookkeeper.",
    "If we posted the invoices to Sage, we'd need a second export job.",
    "Design note: if the pipelines were moved to Cromwell, we would need WDL.",
    # "built", "held", "put", "stuck": participles not ending like the regular ones
    "Had we built the pipelines on Cromwell, we'd own the WDL glue code.",
]

PLANS = [
    "Invoices are now sent to Sage at the end of each day.",
    "From Monday the invoices go to Sage.",
    "The export job writes each invoice to Sage once it is approved.",
    "The pipelines move to Cromwell next sprint.",
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker({"pgc_clarifications": CLARIFICATIONS}, request.param)


@pytest.mark.parametrize("text", COUNTERFACTUAL)
def test_the_unreal_past_chooses_nothing(checker: DriftChecker, text: str) -> None:
    assert flagged(checker, text) == set()


@pytest.mark.parametrize("text", COUNTERFACTUAL)
def test_without_the_grammar_check_they_wereflagged(
    checker: DriftChecker, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cases above are real findings of the layers, lifted only by the grammar."""
    monkeypatch.setattr(checker_module, "_drop_counterfactual", lambda _text, hits: hits)
    assert flagged(checker, text)


@pytest.mark.parametrize("text", PLANS)
def test_plans_and_plain_conditions_are_stillflagged(checker: DriftChecker, text: str) -> None:
    assert flagged(checker, text)


@pytest.mark.parametrize(
    "sentence, unreal",
    [
        ("Had we gone with X, it would have cost more.", True),
        ("If they had not chosen X we would be late.", True),
        ("X would have meant a second login.", True),
        ("We'd have needed a payment provider.", True),
        ("If we took card payments we'd need a provider.", True),
        ("Design note: if the fee were invoiced later, we would need reminders.", True),
        ("If the sync fails, we would send them by hand.", False),
        ("If we need more seats, we would add a room.", False),
        ("If the export keeps failing, it might be worth a retry.", False),
        ("Had to use X for the refunds.", False),
        ("We had a call about X.", False),
        ("If the card fails, take cash.", False),
        ("We chose X and had built the form by Friday.", False),
        ("Had we built X, we'd own its code.", True),
        ("Had they held the invoices in X, the audit would be late.", True),
        ("If we had put X first, the queue would have grown.", True),
        ("Had we stuck with X, nothing would change.", True),
    ],
)
def test_the_grammar_of_the_unreal_past(sentence: str, unreal: bool) -> None:
    from charter.decisions.drift.lexicon import COUNTERFACTUAL as pattern

    assert bool(pattern.search(sentence)) is unreal
