"""Library API of the decisions capability, shared by the CLI, hooks and MCP tools.

Every function that reads the project's decisions goes through :class:`DecisionStore`,
so tampering is reported the same way everywhere (:class:`TamperError`). Every function
that changes them does so through :meth:`DecisionStore.update`: the state it decides on
is read under the same lock as the write, so parallel writers never lose a change.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.config import Project
from charter.decisions.binding import is_resolved
from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.judge import DriftJudge
from charter.decisions.drift.result import DriftResult
from charter.decisions.invariants import Invariant, invariants
from charter.decisions.merge import build_clarification, upsert
from charter.decisions.models import Clarification, PgcClarifications, parse_clarifications
from charter.decisions.store import Change, DecisionStore
from charter.errors import CharterError
from charter.fileio import read_text

if TYPE_CHECKING:
    from charter.embed.base import Embedder

_CHECKERS: dict[tuple[str, str, bool], DriftChecker] = {}


def store_for(project: Project) -> DecisionStore:
    from charter.secretscan.apply import project_scanner

    return DecisionStore(project.state_dir, project_scanner(project))


def load_decisions(project: Project) -> PgcClarifications:
    """The project's verified decisions (raises TamperError on outside edits)."""
    return store_for(project).load()


def load_constraints_file(path: Path) -> PgcClarifications:
    """A ``{"pgc_clarifications": [...]}`` file given on the command line (taken as is)."""
    text = read_text(path, what="constraints file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CharterError(f"invalid JSON in {path}: {exc.msg} (line {exc.lineno})") from None
    return parse_clarifications(data, str(path))


def project_invariants(project: Project) -> list[Invariant]:
    return invariants(load_decisions(project), project.settings.decisions.aliases)


def record(project: Project, incoming: PgcClarifications, op: str) -> list[str]:
    """Upsert ``incoming`` into the project's decisions; returns the changed ids.

    Decided and written under the store's lock (:meth:`DecisionStore.update`).
    """
    store = store_for(project)
    changed: list[str] = []

    def apply(current: PgcClarifications) -> Change | None:
        nonlocal changed
        merged, changed = upsert(current, incoming)
        if changed or not store.path.exists():
            return Change(merged, op, new_value=changed or None)
        return None

    store.update(apply)
    return changed


def add_decision(project: Project, spec: dict[str, Any]) -> Clarification:
    """``charter decisions add``: one new clarification (ids must be new)."""
    entry = build_clarification(
        spec, spec, "add", default_priority=project.settings.decisions.default_priority
    )

    def apply(current: PgcClarifications) -> Change:
        if current.get(entry.id) is not None:
            raise CharterError(
                f"{entry.id} already exists; use `charter decisions answer` or `renegotiate`"
            )
        new = PgcClarifications(pgc_clarifications=[*current.pgc_clarifications, entry])
        return Change(new, "add", entry.id, new_value=entry.user_answer)

    store_for(project).update(apply)
    return entry


def _answer_value(entry: Clarification, value: str) -> Any:
    if entry.answer_type == "multi_choice":
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


def answer_decision(
    project: Project, clarification_id: str, value: str, *, hard: bool | None = None
) -> Clarification:
    """Answer an open or informational clarification. Bound ones need renegotiation."""
    result: list[Clarification] = []

    def apply(current: PgcClarifications) -> Change:
        entry = current.require(clarification_id)
        if entry.binding:
            raise CharterError(
                f"{entry.id} is a bound constraint; change it with "
                f"`charter decisions renegotiate {entry.id}`"
            )
        updated = _reanswer(entry, _answer_value(entry, value), hard)
        result.append(updated)
        return Change(
            _replace(current, updated),
            "answer",
            entry.id,
            old=entry.user_answer,
            new_value=updated.user_answer,
        )

    store_for(project).update(apply)
    return result[-1]


def _reanswer(entry: Clarification, value: Any, hard: bool | None) -> Clarification:
    spec = entry.model_dump()
    spec["choices"] = [c.model_dump() for c in entry.choices]
    spec["answer"] = value
    if hard is not None:
        spec["hard"] = hard
    if spec.get("binding_reason") == "user_marked_hard" and spec.get("hard") is None:
        spec["hard"] = True
    for key in ("user_answer", "user_answer_label", "resolved", "binding", "binding_reason"):
        spec.pop(key, None)
    return build_clarification(spec, spec, "answer")


def _replace(current: PgcClarifications, updated: Clarification) -> PgcClarifications:
    return PgcClarifications(
        pgc_clarifications=[
            updated if e.id == updated.id else e for e in current.pgc_clarifications
        ]
    )


def renegotiate(
    project: Project,
    clarification_id: str,
    value: str,
    reason: str,
    *,
    expected: dict[str, Any] | None = None,
) -> tuple[Clarification, Clarification, dict[str, Any]]:
    """Explicitly change (or revoke, with ``undecided``) a bound constraint.

    The caller has shown the constraint verbatim and obtained confirmation; pass what was
    shown as ``expected`` and the change is refused if another writer changed the
    constraint in between. Returns the old and new entries and the history line that
    records old, new, reason and time.
    """
    if not reason.strip():
        raise CharterError("renegotiation needs a reason (--reason)")
    result: list[tuple[Clarification, Clarification]] = []

    def apply(current: PgcClarifications) -> Change:
        entry = current.require(clarification_id)
        if expected is not None and entry.to_canonical() != expected:
            raise CharterError(
                f"{entry.id} changed while you were confirming; run the renegotiation again"
            )
        if not entry.binding:
            raise CharterError(
                f"{entry.id} is not bound; answer it with `charter decisions answer {entry.id}`"
            )
        updated = _reanswer(entry, _answer_value(entry, value), None)
        if updated.user_answer == entry.user_answer and is_resolved(entry.user_answer):
            raise CharterError(
                f"{entry.id}: the new answer equals the bound one; nothing to change"
            )
        result.append((entry, updated))
        return Change(
            _replace(current, updated),
            "renegotiate",
            entry.id,
            old=entry.to_canonical(),
            new_value=updated.to_canonical(),
            reason=reason.strip(),
        )

    line = store_for(project).update(apply)
    assert line is not None
    old, new = result[-1]
    return old, new, line


def _load_judge(spec: str) -> DriftJudge | None:
    if not spec:
        return None
    module_name, _, attr = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr or "judge")
    except (ImportError, AttributeError) as exc:
        raise CharterError(f"drift.judge {spec!r} cannot be loaded: {exc}") from None
    judge = factory()
    if not isinstance(judge, DriftJudge):
        raise CharterError(f"drift.judge {spec!r} did not return a DriftJudge")
    return judge


def embedder_for_project(project: Project) -> Embedder:
    from charter.embed.registry import embedder_for

    return embedder_for(project.settings)


def checker_for(
    project: Project, decisions: PgcClarifications, *, semantic: bool | None = None
) -> DriftChecker:
    """A checker for ``decisions`` with the project's aliases, model and judge settings.

    Cached per process by the canonical content, so a warm worker or MCP server builds
    the constraint vectors once.
    """
    use_semantic = project.settings.drift.semantic if semantic is None else semantic
    settings = json.dumps(
        [
            project.settings.decisions.aliases,
            project.settings.drift.judge,
            project.settings.embed.model_dump(),
        ],
        sort_keys=True,
    )
    key = (str(project.root), decisions.canonical_text() + settings, use_semantic)
    cached = _CHECKERS.get(key)
    if cached is not None:
        return cached
    checker = DriftChecker(
        decisions,
        aliases=project.settings.decisions.aliases,
        embedder=embedder_for_project(project) if use_semantic else None,
        judge=_load_judge(project.settings.drift.judge),
    )
    if len(_CHECKERS) > 16:
        _CHECKERS.clear()
    _CHECKERS[key] = checker
    return checker


def check_drift(
    project: Project,
    text: str,
    *,
    kind: str | None = None,
    constraints: Path | None = None,
    semantic: bool | None = None,
) -> DriftResult:
    decisions = (
        load_constraints_file(constraints) if constraints is not None else load_decisions(project)
    )
    return checker_for(project, decisions, semantic=semantic).check(text, kind)
