"""Invariants: each binding clarification as a normalized statement plus check vocabulary.

The statement is what agents see ("Target platform: Web browser only. Excluded: Mobile
application."). The vocabulary is what the drift checker matches: the chosen and the
rejected options' labels, ids and aliases (config ``decisions.aliases`` adds more), and
for exclusions and requirements the subject of the question itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from charter.decisions.models import Clarification, PgcClarifications

InvariantKind = Literal["choice", "exclusion", "requirement", "prohibition", "statement"]

_LEAD = re.compile(
    r"^(?:which|what|how|are|is|do|does|did|should|must|will|can|could|would|may)\s+", re.I
)
_TRAIL = re.compile(
    r"\s*(?:in[- ]scope|out[- ]of[- ]scope|supported|included|needed|required|allowed|"
    r"excluded|wanted|offered)?\s*[?.!]*\s*$",
    re.I,
)


#: A record's kind and number leading its id (``ADR-0004-…``): format, not topic.
_RECORD_PREFIX = frozenset({"adr", "rfc", "mdr", "decision"})


def topic_of(entry: Clarification) -> str:
    """A short human topic from the id: ``TARGET_PLATFORM`` → ``Target platform``;
    ``ADR-0004-dynamic-mapping-dsl`` → ``Dynamic mapping dsl``."""
    words = [w for w in re.split(r"[_\-.:\s]+", entry.id.strip()) if w]
    lead = 0
    while lead < len(words) - 1 and (
        words[lead].lower() in _RECORD_PREFIX or words[lead].isdigit()
    ):
        lead += 1
    # an acronym the question itself writes in capitals stays one: "CI runners", not "Ci"
    acronyms = set(re.findall(r"\b[A-Z][A-Z0-9]+\b", entry.text or ""))
    text = " ".join(w.upper() if w.upper() in acronyms else w.lower() for w in words[lead:])
    return text[:1].upper() + text[1:] if text else entry.id


_SCOPE_TAIL = re.compile(r"\s+(?:in|out of)[- ]scope\b.*$", re.I)
_OBJECT_VERB = re.compile(
    r"^(?:the|our|this|your)?\s*[\w/-]+(?:\s+[\w/-]+)?\s+(?:include|support|offer|have|provide"
    r"|need|ship|allow)s?\s+(?P<object>.+)$",
    re.I,
)


def subject_of(question: str) -> str:
    """The thing a yes/no question asks about: "Is a hosted version in scope?" → "a hosted
    version"; "Will the product include a marketplace?" → "a marketplace". Used as the
    excluded (or required) concept."""
    text = _LEAD.sub("", question.strip())
    text = _SCOPE_TAIL.sub("", text)
    text = _TRAIL.sub("", text)
    match = _OBJECT_VERB.match(text)
    if match and len(match.group("object").split()) >= 1:
        text = match.group("object")
    return text.strip() or question.strip()


@dataclass(frozen=True)
class Invariant:
    """One bound constraint, ready to be pinned into prompts and checked against text."""

    id: str
    statement: str
    kind: InvariantKind
    reason: str
    question: str
    topic: str
    chosen: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    chosen_ids: tuple[str, ...] = ()
    rejected_ids: tuple[str, ...] = ()
    subject: str = ""
    answer_text: str = ""
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "statement": self.statement,
            "kind": self.kind,
            "binding_reason": self.reason,
            "chosen": list(self.chosen),
            "rejected": list(self.rejected),
            "aliases": {k: list(v) for k, v in sorted(self.aliases.items())},
        }


def _join(items: Sequence[str]) -> str:
    return ", ".join(items)


def _aliases_for(
    entry: Clarification, ids: Sequence[str], aliases: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for choice_id in ids:
        extra: list[str] = []
        for key in (choice_id, f"{entry.id}.{choice_id}"):
            extra.extend(aliases.get(key, ()))
        if extra:
            out[choice_id] = tuple(dict.fromkeys(extra))
    return out


def invariant_for(
    entry: Clarification, aliases: Mapping[str, Sequence[str]] | None = None
) -> Invariant:
    """The invariant of one binding entry (the caller decides which entries bind)."""
    aliases = aliases or {}
    topic = topic_of(entry)
    chosen_ids = tuple(entry.answer_ids())
    all_ids = tuple(c.id for c in entry.choices)
    other_ids = tuple(i for i in all_ids if i not in chosen_ids)
    label = entry.choice_label
    base: dict[str, Any] = {
        "id": entry.id,
        "reason": entry.binding_reason,
        "question": entry.text,
        "topic": topic,
    }
    alias_map = _aliases_for(entry, all_ids, aliases)
    topic_aliases = tuple(aliases.get(entry.id, ()))
    if topic_aliases:
        alias_map[entry.id] = topic_aliases
    excluded = entry.binding_reason == "explicit_exclusion"
    if entry.answer_type == "free_text":
        answer = str(entry.user_answer)
        return Invariant(
            **base,
            kind="exclusion" if excluded else "statement",
            statement=f"{topic}: {answer.rstrip('.')}.",
            subject=subject_of(entry.text),
            answer_text=answer,
            aliases=alias_map,
        )
    if entry.answer_type == "yes_no":
        yes = chosen_ids[:1] == ("yes",)
        subject = subject_of(entry.text)
        if excluded:
            statement = f"{topic}: out of scope. Excluded: {subject}."
            kind: InvariantKind = "exclusion"
        elif yes:
            statement = f"{topic}: yes. Required: {entry.text.rstrip('?')} — yes."
            kind = "requirement"
        else:
            statement = f"{topic}: no. {entry.text.rstrip('?')} — no."
            kind = "prohibition"
        return Invariant(
            **base,
            kind=kind,
            statement=statement,
            subject=subject,
            chosen_ids=chosen_ids,
            rejected_ids=other_ids,
            aliases=alias_map,
        )
    chosen_labels = tuple(label(i) for i in chosen_ids)
    other_labels = tuple(label(i) for i in other_ids)
    if excluded:
        # "Which X are out of scope?" — the selected options are the excluded ones; the
        # options offered but not selected stay allowed.
        return Invariant(
            **base,
            kind="exclusion",
            statement=f"{topic}: Excluded: {_join(chosen_labels)}.",
            chosen=other_labels,
            rejected=chosen_labels,
            chosen_ids=other_ids,
            rejected_ids=chosen_ids,
            subject=subject_of(entry.text),
            aliases=alias_map,
        )
    chosen_text = _join(chosen_labels)
    only = "" if re.search(r"\bonly\W*$", chosen_text, re.I) else " only"
    statement = f"{topic}: {chosen_text}{only}."
    if other_labels:
        statement += f" Excluded: {_join(other_labels)}."
    return Invariant(
        **base,
        kind="choice",
        statement=statement,
        chosen=chosen_labels,
        rejected=other_labels,
        chosen_ids=chosen_ids,
        rejected_ids=other_ids,
        subject=subject_of(entry.text),
        aliases=alias_map,
    )


def invariants(
    decisions: PgcClarifications, aliases: Mapping[str, Sequence[str]] | None = None
) -> list[Invariant]:
    """Invariants of every binding entry, in file order."""
    return [invariant_for(e, aliases) for e in decisions.pgc_clarifications if e.binding]


def invariants_text(items: Sequence[Invariant]) -> str:
    """The bullet list injected at ``$$PGC_INVARIANTS`` and pinned by hooks."""
    return "\n".join(f"- [{inv.id}] {inv.statement}" for inv in items)
