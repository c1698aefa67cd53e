"""How a free-text answer's negated clauses are read as what it rules out.

A compliant text restating a free-text rule was flagged as breaking it (false alarms on
held-out drift sets, each an elaboration of the answer), through four misreadings of the
answer's negated clauses:

- "X cannot do Y": the words the rest of the answer affirms were not set aside, as they
  are for "no X" ("members may borrow …; a member with an unpaid fine cannot borrow"
  made any text about a member borrowing break it);
- a negation inside a condition ("a second reminder goes out if no slot is booked")
  was read as a prohibition of booking a slot;
- the clause stopped at the colon of a time ("not confirmed by 18:30 is released"), so
  one word was left to stand for it;
- a clause all of whose words the answer affirms elsewhere ("every refund is approved
  by a manager; the till never approves a refund on its own") matched any text
  restating the answer.
"""

from __future__ import annotations

from charter.decisions.drift import lexicon
from charter.decisions.drift.vocab import _forbidden_clauses


def _matched(answer: str, text: str) -> bool:
    stems = set(lexicon.content_stems(text))
    return any(f.matches(stems) for f in _forbidden_clauses(answer, set()))


def test_a_subject_before_cannot_sets_aside_what_the_answer_affirms() -> None:
    answer = (
        "Members may borrow up to 4 tools at a time; "
        "a member with an unpaid fine cannot borrow anything until it is paid."
    )
    assert not _matched(answer, "As a member I want to borrow a tool for the weekend.")
    assert _matched(answer, "A member with an unpaid fine can still borrow a drill.")


def test_a_negation_inside_a_condition_forbids_nothing() -> None:
    answer = (
        "Reminders go out 2 days before the visit; a second reminder goes out if no slot is booked."
    )
    assert _forbidden_clauses(answer, set()) == []
    assert not _matched(answer, "As a patient I want to book a slot when my reminder arrives.")


def test_a_time_does_not_end_the_negated_clause() -> None:
    answer = "A table not confirmed by 18:30 is released to the waiting list."
    (clause,) = _forbidden_clauses(answer, set())
    assert lexicon.stem("released") in clause.core
    assert not _matched(answer, "Story: Confirm a table booking")


def test_a_clause_whose_words_the_answer_all_affirms_matches_no_restatement() -> None:
    answer = (
        "Every refund is approved by a store manager; the till never approves a refund on its own."
    )
    assert not _matched(answer, "The store manager reviews the refund and approves it.")
