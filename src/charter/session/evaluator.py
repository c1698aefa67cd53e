"""The evaluator of a track's PLAN.md and SPEC.md (the seed's evaluator loop).

Deterministic, no model of its own: the same files and the same bound decisions always
give the same findings. A track's plan must pass before execution begins; the
guardrails read the verdict to widen writes from the planning scopes to the SPEC's
scope. Checks, each reported with ``file:line``:

- SPEC.md exists and declares a goal, a ``## Scope`` and ``## Acceptance criteria``;
- PLAN.md exists, follows the schema (:mod:`charter.session.schema`) and has steps;
- every open step is verifiable: a ``- Verify:`` note, or its text names a check;
- no ``TBD`` / ``TODO`` / ``FIXME`` / ``???`` left in either file;
- no drift against the project's bound decisions: the drift checker that
  ``charter drift check`` runs, on the plan and the spec text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from charter.errors import CharterError
from charter.session.schema import SchemaError, parse_plan, parse_spec, read_optional
from charter.session.service import Session

#: A step "names a check" when its text mentions one of these.
_CHECK_WORDS = re.compile(
    r"\b(tests?|pytest|unittest|verif(y|ies|ied)|checks?|lint|ruff|mypy|pyright|tsc|eslint|"
    r"jest|vitest|cargo test|go test|benchmarks?|bench|assert(s|ion)?|CI|smoke|demo|"
    r"measure[sd]?|gates?|evaluat(e|or)|review(ed)?|reproduce[sd]?|passes|green)\b",
    re.I,
)
_OPEN = re.compile(r"\b(TBD|TODO|FIXME)\b|\?\?\?")
_LINE_OF_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\s*(?P<msg>.*)$", re.S)


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "rule": self.rule, "message": self.message}


@dataclass
class Evaluation:
    track: str
    findings: list[Finding] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)
    steps: int = 0
    constraints: int = 0

    @property
    def passed(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        if self.passed:
            return f"passes ({self.steps} steps, {self.constraints} bound decisions checked)"
        first = self.findings[0]
        more = len(self.findings) - 1
        return f"{first}" + (f" (+{more} more findings)" if more else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "passed": self.passed,
            "findings": [f.to_dict() for f in self.findings],
            "scope": self.scope,
            "steps": self.steps,
            "constraints": self.constraints,
            "summary": self.summary(),
        }


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, offset)) + 1


def _open_markers(rel: str, text: str) -> list[Finding]:
    out = []
    for index, line in enumerate(text.splitlines(), start=1):
        match = _OPEN.search(line)
        if match:
            out.append(
                Finding(rel, index, "open-marker", f"unresolved {match.group(0)!r}: decide it")
            )
    return out


def _spec_findings(rel: str, text: str) -> tuple[list[Finding], list[str]]:
    spec = parse_spec(text)
    lines = text.splitlines()
    findings: list[Finding] = []

    def heading(word: str) -> int:
        for index, line in enumerate(lines, start=1):
            if line.startswith("#") and line.lstrip("#").strip().lower().startswith(word):
                return index
        return 0

    if not spec.goal:
        findings.append(
            Finding(rel, heading("goal") or 1, "spec-goal", "no goal: add a '## Goal' section")
        )
    if not spec.scope:
        findings.append(
            Finding(
                rel,
                heading("scope") or 1,
                "spec-scope",
                "no write scope: list the paths the work may change under '## Scope'",
            )
        )
    if not spec.acceptance:
        findings.append(
            Finding(
                rel,
                heading("acceptance") or 1,
                "spec-acceptance",
                "no acceptance criteria: add bullets under '## Acceptance criteria'",
            )
        )
    findings.extend(_open_markers(rel, text))
    return findings, list(spec.scope)


def _plan_findings(rel: str, text: str) -> tuple[list[Finding], int]:
    try:
        steps = parse_plan(text, rel)
    except SchemaError as exc:
        match = _LINE_OF_ERROR.match(str(exc))
        line = int(match.group("line")) if match else 1
        message = match.group("msg") if match else str(exc)
        return [Finding(rel, line, "plan-schema", message)], 0
    findings: list[Finding] = []
    if not steps:
        findings.append(Finding(rel, 1, "plan-empty", "no steps: add '- [ ] P1: text' lines"))
    lines = text.splitlines()
    for step in steps:
        if step.status == "cancelled" or step.verification or _CHECK_WORDS.search(step.text):
            continue
        line = next(
            (i for i, raw in enumerate(lines, start=1) if f"] {step.id}: " in raw),
            1,
        )
        findings.append(
            Finding(
                rel,
                line,
                "step-unverifiable",
                f"step {step.id} says nothing about how it is checked: "
                "add '  - Verify: <command or check>' under it",
            )
        )
    findings.extend(_open_markers(rel, text))
    return findings, len(steps)


def _drift_findings(session: Session, texts: list[tuple[str, str]]) -> tuple[list[Finding], int]:
    from charter.decisions.service import checker_for, load_decisions

    try:
        decisions = load_decisions(session.project)
    except CharterError as exc:
        return [Finding("decisions", 0, "decisions", f"bound decisions unreadable: {exc}")], 0
    if not decisions.pgc_clarifications:
        return [], 0
    checker = checker_for(session.project, decisions)
    findings = []
    for rel, text in texts:
        result = checker.check(text, None)
        for f in result.findings:
            if f.severity != "error":
                continue
            findings.append(
                Finding(
                    rel,
                    _line(text, f.start),
                    "drift",
                    f"{f.rule} {f.message} ({f.constraint_id}): {f.evidence[:120]!r}",
                )
            )
    return findings, len(checker.invariants)


def evaluate(session: Session, track: str) -> Evaluation:
    """Evaluate ``track``'s SPEC.md and PLAN.md (reads only; writes nothing)."""
    result = Evaluation(track)
    texts: list[tuple[str, str]] = []
    for name in ("SPEC.md", "PLAN.md"):
        path = session.track_path(track, name)
        rel = session.project.rel(path)
        try:
            text = read_optional(path)
        except CharterError as exc:
            result.findings.append(Finding(rel, 0, "unreadable", str(exc)))
            continue
        if text is None:
            result.findings.append(
                Finding(rel, 0, f"{name[:-3].lower()}-missing", f"{name} does not exist")
            )
            continue
        texts.append((rel, text))
        if name == "SPEC.md":
            found, result.scope = _spec_findings(rel, text)
        else:
            found, result.steps = _plan_findings(rel, text)
        result.findings.extend(found)
    if texts:
        drift, result.constraints = _drift_findings(session, texts)
        result.findings.extend(drift)
    return result
