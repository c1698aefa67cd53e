"""The one schema of the task-tier files: DECISIONS.md, PLAN.md, RISKS.md (and SPEC.md).

Compaction must be deterministic and recovery exact, so these files are structured
Markdown with a fixed grammar rather than prose: a reader can edit them by hand, and a
parser turns them back into the same values (``parse(render(x)) == x``). A hand edit that
breaks the grammar is reported with ``file:line`` and the file is never rewritten behind
the user's back.

Grammar (``charter.session/1``):

- A free preamble (title, legend, comments) up to the first entry.
- DECISIONS: ``## D-<id>`` then ``- Decision:``, ``- Reason:``, ``- Impact:``,
  ``- Source:``, ``- Time:`` in this order.
- PLAN: ``- [ ] <id>: <text>`` (``[ ]`` pending, ``[~]`` in progress, ``[x]`` completed,
  ``[-]`` cancelled), optionally followed by ``  - Verify: <how>``.
- RISKS: ``## R-<id> [<severity>] <status>`` then ``- Risk:``, ``- Mitigation:``,
  ``- Source:``, ``- Time:``.

Values are single lines: text is whitespace-normalised when an entry is built, which is
also how the benchmark and the agent compare them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from charter.errors import CharterError

SCHEMA = "charter.session/1"
STATUS_MARKS = {"pending": " ", "in_progress": "~", "completed": "x", "cancelled": "-"}
MARK_STATUS = {mark: status for status, mark in STATUS_MARKS.items()}
SEVERITIES = ("low", "medium", "high", "critical")
RISK_STATUSES = ("open", "mitigated", "accepted", "closed")
_ID = r"[A-Za-z0-9][A-Za-z0-9._-]*"


class SchemaError(CharterError):
    """A task-tier file does not follow the schema (message starts ``file:line:``)."""


def norm(text: str) -> str:
    """One line, single spaces: the form every stored value takes."""
    return " ".join(str(text).split())


def stable_id(prefix: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(norm(p).casefold() for p in parts).encode()).hexdigest()
    return f"{prefix}-{digest[:8]}"


@dataclass(frozen=True)
class Decision:
    id: str
    decision: str
    reason: str = ""
    impact: str = ""
    source: str = ""
    time: str = ""

    @classmethod
    def make(
        cls, decision: str, reason: str = "", impact: str = "", source: str = "", time: str = ""
    ) -> Decision:
        text = norm(decision)
        if not text:
            raise CharterError("a decision needs text")
        return cls(stable_id("D", text), text, norm(reason), norm(impact), norm(source), time)

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class PlanStep:
    id: str
    text: str
    status: str = "pending"
    verification: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "id": self.id,
            "content": self.text,
            "status": self.status,
            "verification": self.verification,
        }


@dataclass(frozen=True)
class Risk:
    id: str
    risk: str
    severity: str = "medium"
    status: str = "open"
    mitigation: str = ""
    source: str = ""
    time: str = ""

    @classmethod
    def make(
        cls,
        risk: str,
        severity: str = "medium",
        status: str = "open",
        mitigation: str = "",
        source: str = "",
        time: str = "",
    ) -> Risk:
        text = norm(risk)
        if not text:
            raise CharterError("a risk needs text")
        severity = severity.lower()
        if severity not in SEVERITIES:
            raise CharterError(f"risk severity must be one of {', '.join(SEVERITIES)}")
        if status not in RISK_STATUSES:
            raise CharterError(f"risk status must be one of {', '.join(RISK_STATUSES)}")
        return cls(
            stable_id("R", text), text, severity, status, norm(mitigation), norm(source), time
        )

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class Spec:
    """What SPEC.md declares: the goal, the write scope and the acceptance criteria."""

    goal: str = ""
    scope: tuple[str, ...] = ()
    acceptance: tuple[str, ...] = ()
    open_markers: tuple[int, ...] = ()  # lines with TBD / TODO / ???


# -- rendering ----------------------------------------------------------------------------

_HEADER_NOTE = (
    f"<!-- {SCHEMA}: written by Charter; the grammar is in docs/context/COMPACTION_RULES.md -->"
)


def render_decisions(track: str, decisions: list[Decision]) -> str:
    out = [
        f"# Decisions: {track}",
        "",
        _HEADER_NOTE,
        "Append-only: supersede an entry by adding a new one.",
        "",
    ]
    for d in decisions:
        out += [
            f"## {d.id}",
            f"- Decision: {d.decision}".rstrip(),
            f"- Reason: {d.reason}".rstrip(),
            f"- Impact: {d.impact}".rstrip(),
            f"- Source: {d.source}".rstrip(),
            f"- Time: {d.time}".rstrip(),
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n"


def render_decision_entry(d: Decision) -> str:
    """One entry, as appended to an existing DECISIONS.md."""
    body = render_decisions("x", [d]).split(f"## {d.id}", 1)[1]
    return f"## {d.id}{body}"


def render_plan(track: str, steps: list[PlanStep]) -> str:
    out = [
        f"# Plan: {track}",
        "",
        _HEADER_NOTE,
        "Status: [ ] pending · [~] in progress · [x] completed · [-] cancelled",
        "",
    ]
    for step in steps:
        out.append(f"- [{STATUS_MARKS[step.status]}] {step.id}: {step.text}".rstrip())
        if step.verification:
            out.append(f"  - Verify: {step.verification}")
    return "\n".join(out).rstrip("\n") + "\n"


def render_risks(track: str, risks: list[Risk]) -> str:
    out = [f"# Risks: {track}", "", _HEADER_NOTE, "Severity: " + " | ".join(SEVERITIES), ""]
    for r in risks:
        out += [
            f"## {r.id} [{r.severity}] {r.status}",
            f"- Risk: {r.risk}".rstrip(),
            f"- Mitigation: {r.mitigation}".rstrip(),
            f"- Source: {r.source}".rstrip(),
            f"- Time: {r.time}".rstrip(),
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n"


# -- parsing ------------------------------------------------------------------------------

_DECISION_HEAD = re.compile(rf"^## (D-{_ID})\s*$")
_RISK_HEAD = re.compile(rf"^## (R-{_ID}) \[(\w+)\] (\w+)\s*$")
_FIELD = re.compile(r"^- ([A-Z][a-z]+):(?: (.*))?$")
_STEP = re.compile(rf"^- \[(.)\] ({_ID}): (.*)$")
_VERIFY = re.compile(r"^  - Verify: (.*)$")


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def _fields(
    path: str, lines: list[str], start: int, names: tuple[str, ...]
) -> tuple[dict[str, str], int]:
    """Read ``names`` in order from ``lines[start:]``; returns the values and the next index."""
    values: dict[str, str] = {}
    i = start
    for name in names:
        if i >= len(lines):
            raise SchemaError(f"{path}:{i}: entry ends before '- {name}:'")
        match = _FIELD.match(lines[i])
        if not match or match.group(1) != name:
            raise SchemaError(f"{path}:{i + 1}: expected '- {name}:', found {lines[i][:80]!r}")
        values[name] = (match.group(2) or "").strip()
        i += 1
    return values, i


def _entries(
    path: str, text: str, head: re.Pattern[str], names: tuple[str, ...]
) -> list[tuple[int, re.Match[str], dict[str, str]]]:
    """Each entry: (0-based line of its heading, heading match, field values).

    Anything before the first heading is a free preamble; after it, only entries, blank
    lines and HTML comments are allowed.
    """
    lines = _lines(text)
    found: list[tuple[int, re.Match[str], dict[str, str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = head.match(line)
        if match:
            values, nxt = _fields(path, lines, i + 1, names)
            found.append((i, match, values))
            i = nxt
            continue
        if found and line.strip() and not line.startswith("<!--"):
            raise SchemaError(f"{path}:{i + 1}: not part of the schema: {line[:80]!r}")
        if not found and line.startswith("## ") and head.pattern.startswith("^## "):
            raise SchemaError(f"{path}:{i + 1}: malformed entry heading: {line[:80]!r}")
        i += 1
    return found


_DECISION_FIELDS = ("Decision", "Reason", "Impact", "Source", "Time")
_RISK_FIELDS = ("Risk", "Mitigation", "Source", "Time")


def parse_decisions(text: str, path: str = "DECISIONS.md") -> list[Decision]:
    out: list[Decision] = []
    seen: set[str] = set()
    for index, match, values in _entries(path, text, _DECISION_HEAD, _DECISION_FIELDS):
        if not values["Decision"]:
            raise SchemaError(f"{path}:{index + 2}: empty Decision")
        ident = match.group(1)
        if ident in seen:
            raise SchemaError(f"{path}:{index + 1}: duplicate id {ident}")
        seen.add(ident)
        out.append(
            Decision(
                ident,
                norm(values["Decision"]),
                norm(values["Reason"]),
                norm(values["Impact"]),
                norm(values["Source"]),
                values["Time"],
            )
        )
    return out


def parse_risks(text: str, path: str = "RISKS.md") -> list[Risk]:
    out: list[Risk] = []
    seen: set[str] = set()
    for index, match, values in _entries(path, text, _RISK_HEAD, _RISK_FIELDS):
        severity, status = match.group(2).lower(), match.group(3).lower()
        if severity not in SEVERITIES:
            raise SchemaError(
                f"{path}:{index + 1}: severity {severity!r} is not one of {SEVERITIES}"
            )
        if status not in RISK_STATUSES:
            raise SchemaError(
                f"{path}:{index + 1}: status {status!r} is not one of {RISK_STATUSES}"
            )
        if not values["Risk"]:
            raise SchemaError(f"{path}:{index + 2}: empty Risk")
        ident = match.group(1)
        if ident in seen:
            raise SchemaError(f"{path}:{index + 1}: duplicate id {ident}")
        seen.add(ident)
        out.append(
            Risk(
                ident,
                norm(values["Risk"]),
                severity,
                status,
                norm(values["Mitigation"]),
                norm(values["Source"]),
                values["Time"],
            )
        )
    return out


def parse_plan(text: str, path: str = "PLAN.md") -> list[PlanStep]:
    steps: list[PlanStep] = []
    ids: set[str] = set()
    in_body = False
    for index, line in enumerate(_lines(text)):
        where = f"{path}:{index + 1}"
        step = _STEP.match(line)
        if step:
            mark, ident, body = step.groups()
            if mark not in MARK_STATUS:
                raise SchemaError(f"{where}: unknown status mark [{mark}] (use [ ] [~] [x] [-])")
            if ident in ids:
                raise SchemaError(f"{where}: duplicate step id {ident}")
            ids.add(ident)
            steps.append(PlanStep(ident, norm(body), MARK_STATUS[mark]))
            in_body = True
            continue
        verify = _VERIFY.match(line)
        if verify:
            if not steps or steps[-1].verification:
                raise SchemaError(f"{where}: '- Verify:' must follow a step")
            last = steps[-1]
            steps[-1] = PlanStep(last.id, last.text, last.status, norm(verify.group(1)))
            continue
        if not line.strip() or line.startswith("<!--") or not in_body:
            continue
        raise SchemaError(f"{where}: not a plan step ('- [ ] ID: text'): {line[:80]!r}")
    return steps


_OPEN = re.compile(r"\b(TBD|TODO|FIXME)\b|\?\?\?")


def parse_spec(text: str) -> Spec:
    """Sections ``## Goal``, ``## Scope`` (bullets of paths/globs), ``## Acceptance criteria``."""
    section = ""
    goal: list[str] = []
    scope: list[str] = []
    acceptance: list[str] = []
    open_lines: list[int] = []
    for index, line in enumerate(_lines(text), start=1):
        if _OPEN.search(line):
            open_lines.append(index)
        if line.startswith("#"):
            section = line.lstrip("#").strip().lower()
            continue
        stripped = line.strip()
        if not stripped:
            continue
        bullet = re.match(r"^[-*]\s+(.*)$", stripped)
        if section.startswith("goal"):
            goal.append(stripped)
        elif section.startswith("scope") and bullet:
            scope.append(bullet.group(1).strip().strip("`"))
        elif section.startswith("acceptance") and bullet:
            acceptance.append(norm(bullet.group(1)))
    return Spec(norm(" ".join(goal)), tuple(scope), tuple(acceptance), tuple(open_lines))


def read_optional(path: Path) -> str | None:
    """A task-tier file's text, or None when it does not exist yet."""
    from charter.fileio import read_text

    if not path.exists():
        return None
    # a FIFO here would be opened and waited on forever (nobody writes to it)
    return read_text(path, what="session file", max_bytes=2 * 1024 * 1024, regular_only=True)


@dataclass
class TaskTier:
    """The parsed task tier of one track."""

    track: str
    spec: Spec = field(default_factory=Spec)
    plan: list[PlanStep] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    has_spec: bool = False
