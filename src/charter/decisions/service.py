"""Library API of the decisions capability, shared by the CLI, hooks and MCP tools.

Every function that reads the project's decisions goes through :class:`DecisionStore`,
so tampering is reported the same way everywhere (:class:`TamperError`). Every function
that changes them does so through :meth:`DecisionStore.update`: the state it decides on
is read under the same lock as the write, so parallel writers never lose a change.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.config import Project
from charter.decisions.binding import apply_binding, is_resolved
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
    from charter.decisions.adr import AdrReading
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


@dataclass
class AdrImport:
    """What ``charter decisions import --adr`` read and recorded."""

    readings: list[AdrReading]
    changed: list[str] = field(default_factory=list)
    #: bound decisions an ADR now records differently: never rebound by an import
    renegotiate: dict[str, str] = field(default_factory=dict)
    #: bound decisions whose ADR is no longer accepted (superseded, deprecated, …)
    retired: dict[str, str] = field(default_factory=dict)


def import_adrs(
    project: Project, paths: list[Path], *, dry_run: bool = False, titles: bool = False
) -> AdrImport:
    """Bind the decisions accepted ADRs record (see :mod:`charter.decisions.adr`).

    The same store path as every import: one read-modify-write under the store's lock,
    one history line (op ``import``) whose reason cites each changed id's ADR path:line.
    A bound decision is never changed here: an ADR that now chooses another option (or
    lists other options) is reported for ``charter decisions renegotiate``, and one that
    was superseded is reported, not silently revoked. ``dry_run`` decides on the same
    state and writes nothing.
    """
    from charter.decisions.adr import display_path, read_adrs

    result = AdrImport(read_adrs(paths, project.root, titles=titles))
    entries: list[tuple[Clarification, str]] = []
    for reading in result.readings:
        if reading.outcome != "accepted":
            continue
        cite = f"{display_path(reading.path, project.root)}:{reading.line}"
        try:
            entry = build_clarification(
                reading.item,
                reading.item,
                cite,
                default_priority=project.settings.decisions.default_priority,
            )
        except CharterError as exc:
            reading.outcome, reading.note, reading.item = "unreadable", str(exc), {}
            continue
        if entry.binding_reason == "explicit_exclusion" and entry.exclusion is None:
            # an ADR's title states what was decided ("Exclude draft invoices from the
            # monthly totals"), it does not ask what is out of scope: the option it chose
            # is the one to follow, and the options it turned down are excluded
            entry = apply_binding(entry.model_copy(update={"exclusion": False}))
        entries.append((entry, cite))

    def decide(current: PgcClarifications) -> Change | None:
        result.renegotiate.clear()
        result.retired.clear()
        fresh: list[Clarification] = []
        cites: dict[str, str] = {}
        for entry, cite in entries:
            old = current.get(entry.id)
            if old is not None and old.binding and old.to_canonical() != entry.to_canonical():
                result.renegotiate[entry.id] = _adr_conflict(old, entry, cite)
                continue
            fresh.append(entry)
            cites[entry.id] = cite
        for reading in result.readings:
            old = current.get(reading.record_id)
            if reading.outcome == "skipped" and reading.status and old and old.binding:
                result.retired[old.id] = (
                    f"{display_path(reading.path, project.root)} is now {reading.status}; "
                    f"revoke it with `charter decisions renegotiate {old.id} "
                    "--answer undecided`"
                )
        merged, result.changed = upsert(current, PgcClarifications(pgc_clarifications=fresh))
        if not result.changed or dry_run:
            return None
        reason = "ADR import: " + "; ".join(f"{i} ← {cites[i]}" for i in result.changed)
        return Change(merged, "import", new_value=result.changed, reason=reason)

    store = store_for(project)
    if dry_run:
        decide(store.load())
    else:
        store.update(decide)
    return result


def _adr_conflict(old: Clarification, new: Clarification, cite: str) -> str:
    bound = old.user_answer_label or old.user_answer
    if new.user_answer != old.user_answer:
        label = new.user_answer_label or new.user_answer
        if any(c.id == new.user_answer for c in old.choices):
            how = (
                f"confirm with `charter decisions renegotiate {old.id} --answer "
                f"{new.user_answer} --reason ...`"
            )
        else:
            how = f"{label!r} is not one of its recorded options: renegotiate {old.id}"
        return f"{cite} now chooses {label!r}, bound is {bound!r}; not rebound: {how}"
    return (
        f"{cite} records bound {old.id} ({bound!r}) with another question or options; "
        "not changed (a bound decision changes only through renegotiation)"
    )


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


def _project_words(project: Project) -> Callable[[frozenset[str]], frozenset[str]]:
    """Which of the stems asked about the project's tracked files name (one ``git
    ls-files``, run only when asked); outside git, none: a walk of an untracked tree
    could be a home folder."""

    def among(wanted: frozenset[str]) -> frozenset[str]:
        from charter.decisions.drift.project_words import project_words
        from charter.search.discover import tracked_files

        return project_words(sorted(tracked_files(project.root).files), wanted)

    return among


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
            project.settings.drift.project_words,
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
        project_folder=project.root.name,
        project_words=_project_words(project)
        if project.settings.drift.project_words
        else frozenset(),
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
