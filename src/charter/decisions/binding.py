"""Mechanical binding derivation (seed 003, section 3). No model is ever consulted.

A clarification binds when its answer is resolved **and** any of: priority ``must``,
the user marked it hard, or it is an explicit exclusion. Otherwise it is informational:
``should``/``could`` priority, an unresolved answer, or a stated preference. The reason is
returned with the verdict so it can be stored and audited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from charter.decisions.models import Answer, BindingReason, Clarification

#: Answers that mean "not decided" (compared case-insensitively after stripping).
UNRESOLVED_ANSWERS = frozenset({"", "undecided", "unknown", "tbd", "null", "none yet"})
#: Answers that decline something (a "no" to a scope question is an exclusion).
NEGATIVE_ANSWERS = frozenset({"no", "none", "nothing", "n/a", "not in scope", "out of scope"})

_SCOPE_QUESTION = re.compile(r"\b(in[- ]scope|scope|included?|supported)\b", re.I)
_EXCLUSION_QUESTION = re.compile(
    r"\b(out[- ]of[- ]scope|excluded?|exclusions?|not\s+(?:be\s+)?(?:built|supported|included)"
    r"|rule[ds]?\s+out)\b",
    re.I,
)
_NEGATIVE_FREE_TEXT = re.compile(r"^\s*(no|none|never|not|without|exclude[sd]?)\b", re.I)
# "No more than 3 steps", "not later than 24 hours", "no reviewer gets more than 4 papers":
# a negated comparative or a numeric bound states a limit, which binds as a requirement;
# nothing is removed from scope
_NEGATED_COMPARATIVE = re.compile(r"^\s*(no|not|never)\s+(\w+er|more|less)\s+than\b", re.I)
_NUMERIC_BOUND = re.compile(r"\b(\w+er|more|less)\s+than\s+\d|\bat\s+(most|least)\s+\d", re.I)


@dataclass(frozen=True)
class BindingVerdict:
    resolved: bool
    binding: bool
    reason: BindingReason


def is_resolved(answer: Answer) -> bool:
    """An answer counts once it is neither null, empty, nor an "undecided" marker."""
    if answer is None:
        return False
    if isinstance(answer, list):
        return any(is_resolved(a) for a in answer)
    return answer.strip().lower() not in UNRESOLVED_ANSWERS


def is_explicit_exclusion(entry: Clarification) -> bool:
    """True when the resolved answer removes something from scope.

    - the user set ``exclusion: true``;
    - a yes/no or single-choice scope question ("Is X in scope?") answered no/none;
    - a question that asks what is excluded ("Which X are out of scope?") with an answer;
    - a free-text answer that is itself an exclusion ("no mobile", "none").
    """
    if entry.exclusion is not None:
        return entry.exclusion
    answers = [a.strip().lower() for a in entry.answer_ids()]
    if not answers:
        return False
    if _EXCLUSION_QUESTION.search(entry.text) and not all(a in NEGATIVE_ANSWERS for a in answers):
        return True
    if entry.answer_type in ("yes_no", "single_choice"):
        labels = entry.user_answer_label
        label = labels.strip().lower() if isinstance(labels, str) else ""
        negative = answers[0] in NEGATIVE_ANSWERS or label in NEGATIVE_ANSWERS
        return negative and bool(_SCOPE_QUESTION.search(entry.text))
    if entry.answer_type == "free_text":
        text = answers[0]
        if _NEGATED_COMPARATIVE.match(text) or _NUMERIC_BOUND.search(text):
            return False
        if ";" in text:
            # "No photos of players anywhere; players are shown by first name only; …":
            # rules the answer lists, each binding as the answer does, not a scope cut
            return False
        return text in NEGATIVE_ANSWERS or bool(_NEGATIVE_FREE_TEXT.match(text))
    return False


def _recorded_exclusion(entry: Clarification) -> bool:
    """The document records this answer as an exclusion (``binding_reason:
    explicit_exclusion``, no ``exclusion`` flag either way), as a recorded hard mark is
    kept. The question's words cannot always show it ("Which payment methods will the
    shop not take?"), and re-deriving it away would silently stop checking an exclusion
    the user made. A "yes" is never one. A re-answer drops the recorded reason
    (``service._reanswer``), so a changed answer is read afresh."""
    if entry.exclusion is not None or entry.binding_reason != "explicit_exclusion":
        return False
    answers = [a.strip().lower() for a in entry.answer_ids()]
    return not (entry.answer_type == "yes_no" and answers == ["yes"])


def derive_binding(entry: Clarification) -> BindingVerdict:
    """Derive ``resolved``/``binding``/``binding_reason`` from the entry's own fields.

    Order of reasons when several apply: exclusion, user-marked hard, must. A stated
    preference never binds unless the user also marked it hard.
    """
    resolved = is_resolved(entry.user_answer)
    if not resolved:
        return BindingVerdict(False, False, "unresolved")
    probe = entry.model_copy(update={"resolved": True})
    hard = bool(entry.hard) or (entry.binding_reason == "user_marked_hard" and entry.hard is None)
    if is_explicit_exclusion(probe) or _recorded_exclusion(entry):
        return BindingVerdict(True, True, "explicit_exclusion")
    if hard:
        return BindingVerdict(True, True, "user_marked_hard")
    if entry.preference:
        return BindingVerdict(True, False, "preference")
    if entry.priority == "must":
        return BindingVerdict(True, True, "must_answered")
    return BindingVerdict(True, False, "non_binding_priority")


def apply_binding(entry: Clarification) -> Clarification:
    """A copy of ``entry`` with labels filled in and binding re-derived."""
    answer = entry.user_answer
    if isinstance(answer, str) and not is_resolved(answer):
        answer = "undecided" if answer.strip() else None
    label: Answer
    if not is_resolved(answer):
        label = None
    elif entry.answer_type == "free_text":
        label = answer
    elif isinstance(answer, list):
        label = [entry.choice_label(a) for a in answer]
    else:
        assert isinstance(answer, str)
        label = entry.choice_label(answer)
    updated = entry.model_copy(update={"user_answer": answer, "user_answer_label": label})
    verdict = derive_binding(updated)
    return updated.model_copy(
        update={
            "resolved": verdict.resolved,
            "binding": verdict.binding,
            "binding_reason": verdict.reason,
        }
    )
