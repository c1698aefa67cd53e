"""The canonical ``pgc_clarifications`` structure (seed 003, section 2) as typed records.

These models are the single source of truth for the stored decisions file and for the
published JSON Schema (``schemas/pgc_clarifications.v1.json`` is generated from them and a
test fails when the checked-in copy differs). Field order follows the seed so the JSON
injected at ``$$PGC_CLARIFICATIONS`` reads exactly like the seed's example.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from charter.errors import CharterError
from charter.records import Field, Record, RecordError
from charter.records import json_schema as record_schema

SCHEMA_ID = "https://charter.dev/schemas/pgc_clarifications.v1.json"

Priority = Literal["must", "should", "could"]
AnswerType = Literal["single_choice", "multi_choice", "free_text", "yes_no"]
BindingReason = Literal[
    "must_answered",
    "explicit_exclusion",
    "user_marked_hard",
    "non_binding_priority",
    "preference",
    "unresolved",
]
Answer = str | list[str] | None


class Choice(Record):
    """One option offered by a choice question."""

    id: str = Field(..., min_length=1, description="stable option id, e.g. web")
    label: str = Field(..., min_length=1, description="what the user saw, e.g. Web browser")


class Clarification(Record):
    """A question, the user's answer and whether it binds downstream work.

    ``binding`` and ``binding_reason`` are derived mechanically (see
    :mod:`charter.decisions.binding`); ``hard``, ``exclusion`` and ``preference`` record
    what the user said about the decision and are only written when set.
    """

    id: str = Field(..., min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    text: str = Field(..., min_length=1, description="the question as asked")
    priority: Priority
    answer_type: AnswerType
    choices: list[Choice] = Field(default_factory=list)
    user_answer: Answer = Field(
        default=None, description="choice id(s), free text, or null/undecided"
    )
    user_answer_label: Answer = Field(default=None, description="label(s) of the chosen option(s)")
    resolved: bool = False
    binding: bool = False
    binding_reason: BindingReason = "unresolved"
    hard: bool | None = Field(default=None, description="the user marked this a hard constraint")
    exclusion: bool | None = Field(
        default=None, description="the answer excludes something from scope (set by the user)"
    )
    preference: bool | None = Field(
        default=None, description="the user called this a preference, not a requirement"
    )

    def answer_ids(self) -> list[str]:
        """The answer as a list (empty when unresolved)."""
        if not self.resolved or self.user_answer is None:
            return []
        if isinstance(self.user_answer, list):
            return list(self.user_answer)
        return [self.user_answer]

    def choice_label(self, choice_id: str) -> str:
        for choice in self.choices:
            if choice.id == choice_id:
                return choice.label
        return choice_id

    def to_canonical(self) -> dict[str, Any]:
        """The seed's shape: optional user flags are omitted unless they are set."""
        data = self.model_dump(mode="json")
        for key in ("hard", "exclusion", "preference"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class PgcClarifications(Record):
    """The whole decisions file: ``{"pgc_clarifications": [...]}``."""

    pgc_clarifications: list[Clarification] = Field(..., description="merged questions and answers")

    def get(self, clarification_id: str) -> Clarification | None:
        for entry in self.pgc_clarifications:
            if entry.id == clarification_id:
                return entry
        return None

    def require(self, clarification_id: str) -> Clarification:
        entry = self.get(clarification_id)
        if entry is None:
            known = ", ".join(e.id for e in self.pgc_clarifications) or "none"
            raise CharterError(f"no decision with id {clarification_id!r} (known: {known})")
        return entry

    def binding_entries(self) -> list[Clarification]:
        return [e for e in self.pgc_clarifications if e.binding]

    def to_canonical(self) -> dict[str, Any]:
        return {"pgc_clarifications": [e.to_canonical() for e in self.pgc_clarifications]}

    def canonical_text(self) -> str:
        """The exact bytes stored on disk and injected at ``$$PGC_CLARIFICATIONS``."""
        return json.dumps(self.to_canonical(), ensure_ascii=False, indent=2) + "\n"


def parse_clarifications(data: Any, source: str = "decisions") -> PgcClarifications:
    """Validate raw JSON into the model, or raise a one-line :class:`CharterError`."""
    if isinstance(data, list):
        data = {"pgc_clarifications": data}
    if not isinstance(data, dict) or "pgc_clarifications" not in data:
        raise CharterError(f"{source}: expected an object with a 'pgc_clarifications' list")
    try:
        parsed = PgcClarifications.model_validate(data)
    except RecordError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CharterError(f"{source}: {where}: {first['msg']}") from None
    seen: set[str] = set()
    for entry in parsed.pgc_clarifications:
        if entry.id in seen:
            raise CharterError(f"{source}: duplicate clarification id {entry.id!r}")
        seen.add(entry.id)
    return parsed


def json_schema() -> dict[str, Any]:
    """The published JSON Schema of the decisions file, generated from the models."""
    schema = record_schema(PgcClarifications)
    schema["$id"] = SCHEMA_ID
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pgc_clarifications v1"
    return schema


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
