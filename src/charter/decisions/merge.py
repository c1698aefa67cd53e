"""Mechanical merge of questions and answers into ``pgc_clarifications`` (seed 003).

Deterministic by construction: the output follows the questions' order, labels come from
the questions' choices, binding comes from :func:`charter.decisions.binding.apply_binding`,
and nothing depends on time, randomness or a model. Same inputs, same bytes.

Accepted shapes
- questions: ``{"questions": [...]}`` or a list; each item has ``id``, ``text`` (or
  ``question``), ``priority`` (default ``must``), ``answer_type`` (inferred when absent),
  ``choices`` (a list of ``{id, label}``, a list of strings, or an ``{id: label}`` map),
  and optional ``hard`` / ``exclusion`` / ``preference`` flags.
- answers: ``{"answers": {ID: value}}``, ``{ID: value}``, or a list of
  ``{"id": ID, "answer": value}``; a value may also be ``{"answer": value, "hard": true}``.
"""

from __future__ import annotations

from typing import Any

from charter.decisions.binding import apply_binding, is_resolved
from charter.decisions.models import Clarification, PgcClarifications, parse_clarifications
from charter.errors import CharterError

YES_NO_CHOICES = [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]
_FLAGS = ("hard", "exclusion", "preference")


def _norm_choices(raw: Any, where: str) -> list[dict[str, str]]:
    if raw is None:
        return []
    if isinstance(raw, dict):
        return [{"id": str(k), "label": str(v)} for k, v in raw.items()]
    if not isinstance(raw, list):
        raise CharterError(f"{where}: choices must be a list or a mapping")
    out = []
    taken: set[str] = set()
    for item in raw:
        if isinstance(item, str):
            # labels that differ only in symbols ("… character `§`", "… character `%`")
            # slug alike: a later one gets the next free number, so each keeps an id
            slug = _slug(item)
            ident, n = slug, 1
            while ident in taken:
                n += 1
                ident = f"{slug}_{n}"
            taken.add(ident)
            out.append({"id": ident, "label": item})
        elif isinstance(item, dict) and "id" in item:
            taken.add(str(item["id"]))
            out.append({"id": str(item["id"]), "label": str(item.get("label", item["id"]))})
        else:
            raise CharterError(f"{where}: each choice needs an id (got {item!r})")
    return out


def _slug(label: str) -> str:
    chars = [c.lower() if c.isalnum() else "_" for c in label.strip()]
    return "_".join(part for part in "".join(chars).split("_") if part) or "choice"


def _infer_type(question: dict[str, Any], choices: list[dict[str, str]], answer: Any) -> str:
    explicit = question.get("answer_type") or question.get("type")
    if explicit:
        return str(explicit)
    ids = {c["id"].lower() for c in choices}
    if ids == {"yes", "no"}:
        return "yes_no"
    if not choices:
        if isinstance(answer, str | bool) and str(answer).strip().lower() in {
            "yes",
            "no",
            "true",
            "false",
        }:
            return "yes_no"
        return "free_text"
    return "multi_choice" if isinstance(answer, list) else "single_choice"


def _resolve_answer(
    answer: Any, answer_type: str, choices: list[dict[str, str]], where: str
) -> Any:
    """Map an answer onto choice ids (accepting exact ids or labels, case-insensitively)."""
    if answer is None:
        return None
    if isinstance(answer, bool):
        answer = "yes" if answer else "no"
    if answer_type == "free_text":
        if isinstance(answer, list):
            raise CharterError(f"{where}: a free-text answer must be a string")
        return str(answer)
    if isinstance(answer, list) and answer_type != "multi_choice":
        raise CharterError(f"{where}: only multi_choice answers may be lists")
    values = answer if isinstance(answer, list) else [answer]
    if not any(is_resolved(str(v)) for v in values):
        return "undecided" if values and str(values[0]).strip() else None
    by_id = {c["id"].lower(): c["id"] for c in choices}
    by_label = {c["label"].lower(): c["id"] for c in choices}
    resolved = []
    for value in values:
        key = str(value).strip().lower()
        if key in by_id:
            resolved.append(by_id[key])
        elif key in by_label:
            resolved.append(by_label[key])
        elif key in {"none", "nothing"} and answer_type == "multi_choice":
            continue
        else:
            known = ", ".join(c["id"] for c in choices)
            raise CharterError(f"{where}: answer {value!r} is not one of the choices ({known})")
    if answer_type == "multi_choice":
        return resolved
    return resolved[0] if resolved else "none"


def build_clarification(
    question: dict[str, Any], answer_spec: Any, where: str, default_priority: str = "must"
) -> Clarification:
    """One merged, binding-derived entry from a question and its answer."""
    if not isinstance(question, dict):
        raise CharterError(f"{where}: each question must be an object")
    qid = question.get("id")
    text = question.get("text", question.get("question"))
    if not qid or not text:
        raise CharterError(f"{where}: each question needs 'id' and 'text'")
    flags = {k: question[k] for k in _FLAGS if question.get(k) is not None}
    answer = answer_spec
    if isinstance(answer_spec, dict):
        answer = answer_spec.get("answer", answer_spec.get("user_answer"))
        flags.update({k: answer_spec[k] for k in _FLAGS if answer_spec.get(k) is not None})
    choices = _norm_choices(question.get("choices"), f"{where} {qid}")
    answer_type = _infer_type(question, choices, answer)
    if answer_type == "yes_no" and not choices:
        choices = [dict(c) for c in YES_NO_CHOICES]
    value = _resolve_answer(answer, answer_type, choices, f"{where} {qid}")
    raw = {
        "id": str(qid),
        "text": str(text),
        "priority": question.get("priority", default_priority),
        "answer_type": answer_type,
        "choices": choices,
        "user_answer": value,
        **{k: bool(v) for k, v in flags.items()},
    }
    parsed = parse_clarifications({"pgc_clarifications": [raw]}, where)
    check_choices(parsed.pgc_clarifications[0], where)
    return apply_binding(parsed.pgc_clarifications[0])


def check_choices(entry: Clarification, where: str) -> None:
    """One error when a choice id is given twice (``X=Kafka`` and ``X=RabbitMQ``: which
    did the answer pick?) or a choice answer names no choice: either would be bound as
    written, and drift would read the decision wrong."""
    seen: set[str] = set()
    for choice in entry.choices:
        if choice.id.lower() in seen:
            raise CharterError(f"{where}: {entry.id}: choice id {choice.id!r} is given twice")
        seen.add(choice.id.lower())
    if entry.answer_type not in ("single_choice", "multi_choice") or not seen:
        return
    answer = entry.user_answer
    for value in answer if isinstance(answer, list) else [answer]:
        if value is None or not is_resolved(value):
            continue
        if value.strip().lower() not in seen | {"none", "nothing"}:
            known = ", ".join(c.id for c in entry.choices)
            raise CharterError(
                f"{where}: {entry.id}: answer {value!r} is not one of the choices ({known})"
            )


def _answers_map(raw: Any, where: str) -> dict[str, Any]:
    if isinstance(raw, dict) and "answers" in raw:
        raw = raw["answers"]
    if isinstance(raw, dict):
        return {str(k): v for k, v in raw.items()}
    if isinstance(raw, list):
        out: dict[str, Any] = {}
        for item in raw:
            if not isinstance(item, dict):
                raise CharterError(f"{where}: each answer must be an object with 'id'")
            key = item.get("id", item.get("question_id"))
            if key is None:
                raise CharterError(f"{where}: each answer needs 'id'")
            out[str(key)] = item
        return out
    raise CharterError(f"{where}: expected an answers object or list")


def _questions_list(raw: Any, where: str) -> list[Any]:
    if isinstance(raw, dict) and "questions" in raw:
        raw = raw["questions"]
    if not isinstance(raw, list):
        raise CharterError(f"{where}: expected a 'questions' list")
    return raw


def merge_questions_answers(
    questions: Any, answers: Any, *, source: str = "merge"
) -> PgcClarifications:
    """The canonical structure for ``questions`` + ``answers``; unknown answer ids fail."""
    qs = _questions_list(questions, f"{source} questions")
    amap = _answers_map(answers, f"{source} answers")
    known = {str(q.get("id")) for q in qs if isinstance(q, dict)}
    unknown = sorted(set(amap) - known)
    if unknown:
        raise CharterError(f"{source}: answers for unknown questions: {', '.join(unknown)}")
    entries = [
        build_clarification(q, amap.get(str(q.get("id"))), f"{source} questions") for q in qs
    ]
    return parse_clarifications({"pgc_clarifications": [e.model_dump() for e in entries]}, source)


def upsert(
    current: PgcClarifications, incoming: PgcClarifications
) -> tuple[PgcClarifications, list[str]]:
    """Add or update entries by id; a bound entry may only change through renegotiation.

    Returns the new structure and the ids that changed. Existing order is kept and new
    ids are appended in input order.
    """
    by_id = {e.id: e for e in current.pgc_clarifications}
    order = [e.id for e in current.pgc_clarifications]
    changed: list[str] = []
    for entry in incoming.pgc_clarifications:
        old = by_id.get(entry.id)
        if old is None:
            order.append(entry.id)
        elif old.to_canonical() == entry.to_canonical():
            continue
        elif old.binding:
            bound = old.user_answer_label or old.user_answer
            if not entry.resolved:
                what = f"the merged answers leave bound {entry.id} ({bound!r}) unanswered"
            elif entry.user_answer != old.user_answer:
                new = entry.user_answer_label or entry.user_answer
                what = f"the merge would change bound {entry.id} from {bound!r} to {new!r}"
            else:
                what = f"the merge would change how bound {entry.id} ({bound!r}) is recorded"
            raise CharterError(
                f"{what}; a merge never changes a bound decision: leave it out, or use "
                f"`charter decisions renegotiate {entry.id}`"
            )
        by_id[entry.id] = entry
        changed.append(entry.id)
    merged = PgcClarifications(pgc_clarifications=[by_id[i] for i in order])
    return merged, changed
