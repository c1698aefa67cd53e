"""The session capability's one public face: :class:`Session`.

Front doors (hooks, CLI, MCP) build a ``Session`` for a project and call it; they never
touch the journal or the task-tier files directly, so every write goes through the same
lock and the same schema checks.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.fileio import locked
from charter.session.capture import Capture
from charter.session.journal import Journal
from charter.session.schema import (
    Decision,
    PlanStep,
    Risk,
    Spec,
    TaskTier,
    parse_decisions,
    parse_plan,
    parse_risks,
    parse_spec,
    read_optional,
    render_decision_entry,
    render_decisions,
    render_plan,
    render_risks,
)
from charter.session.settings import SessionSettings
from charter.session.tracks import Tracks, inside
from charter.session.writes import write_file
from charter.state_ignore import ensure_local_dir

_SESSION_ID = re.compile(r"[^A-Za-z0-9._-]+")
CLI_SESSION = "cli"


def session_key(raw: object) -> str:
    """A session id safe to use as a folder name."""
    text = _SESSION_ID.sub("-", str(raw or "")).strip("-.")[:80]
    return text or CLI_SESSION


@dataclass
class Session:
    """One project's session state: tracks, journal, task tier, transient tier."""

    project: Project

    def __post_init__(self) -> None:
        self.root = self.project.root
        self.settings: SessionSettings = self.project.settings.session
        self.tracks = Tracks(self.root, self.settings)
        self._journal: Journal | None = None
        self._scanner: Any = None
        self._lock_depth = 0
        self.tracks.lock = self.lock

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The one lock of the session's files (re-entrant within this object).

        It lives under ``.charter/`` so no lock files appear beside the user's documents.
        """
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with locked(self.project.state_dir / "locks" / "session"):
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0

    # -- plumbing -------------------------------------------------------------------------

    @property
    def journal(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(self.project.state_dir / "session.db", self.scrub_data)
        return self._journal

    def scrub(self, text: str) -> str:
        """``text`` with secrets redacted: nothing the session stores keeps one."""
        from charter.secretscan.apply import project_scanner, scrub_text

        if self._scanner is None:
            self._scanner = project_scanner(self.project)
        return scrub_text(text, self._scanner)

    def scrub_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """A journal event with every string in it redacted."""
        from charter.secretscan.apply import project_scanner, scrub_data

        if self._scanner is None:
            self._scanner = project_scanner(self.project)
        cleaned: dict[str, Any] = scrub_data(data, self._scanner)
        return cleaned

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def track(self) -> tuple[str, bool]:
        return self.tracks.ensure_active()

    def track_path(self, track: str, name: str) -> Path:
        return inside(self.root, self.tracks.track_dir(track) / name, "session file")

    def session_dir(self, session: str) -> Path:
        path = self.root / self.settings.sessions_dir / session_key(session)
        return inside(self.root, path, "session folder")

    def capture(self, session: str, track: str | None = None) -> Capture:
        track = track or self.track()[0]
        # the transient tier is one machine's: a folder Charter creates hides from git
        ensure_local_dir(self.root, self.root / self.settings.sessions_dir)
        key = session_key(session)
        return Capture(
            self.root,
            self.journal,
            key,
            track,
            self.session_dir(key),
            self.settings,
            self.lock,
            scrub=self.scrub,
        )

    # -- task tier ------------------------------------------------------------------------

    def task_tier(self, track: str) -> TaskTier:
        """The parsed task tier (raises :class:`SchemaError` naming file:line)."""
        tier = TaskTier(track)
        spec = read_optional(self.track_path(track, "SPEC.md"))
        if spec is not None:
            tier.spec, tier.has_spec = parse_spec(spec), True
        for name, parse, attr in (
            ("PLAN.md", parse_plan, "plan"),
            ("DECISIONS.md", parse_decisions, "decisions"),
            ("RISKS.md", parse_risks, "risks"),
        ):
            path = self.track_path(track, name)
            text = read_optional(path)
            if text is not None:
                setattr(tier, attr, parse(text, str(self.project.rel(path))))  # type: ignore[operator]
        return tier

    def spec(self, track: str) -> Spec:
        return self.task_tier(track).spec

    # -- recording ------------------------------------------------------------------------

    def record_decision(
        self,
        decision: str,
        *,
        reason: str = "",
        impact: str = "",
        source: str = "user",
        time: str = "",
        session: str = CLI_SESSION,
    ) -> Decision:
        """Append a decision to the active track's DECISIONS.md now (append-only, no repeat).

        Returns the entry as DECISIONS.md holds it: a decision already on file (same text,
        same id) keeps its recorded reason and impact."""
        track, _ = self.track()
        decision, reason, impact = (self.scrub(t) for t in (decision, reason, impact))
        entry = Decision.make(decision, reason, impact, source, time)
        self.journal.add(session_key(session), track, "decision", entry.to_dict(), time)
        if self.append_decisions(track, [entry]):
            return entry
        on_file = (d for d in self.task_tier(track).decisions if d.id == entry.id)
        return next(on_file, entry)

    def append_decisions(self, track: str, entries: list[Decision]) -> list[Decision]:
        """Append the entries not already in DECISIONS.md; returns those appended."""
        path = self.track_path(track, "DECISIONS.md")
        with self.lock():
            text = read_optional(path)
            existing = parse_decisions(text, self.project.rel(path)) if text is not None else []
            known = {d.id for d in existing}
            new: list[Decision] = []
            for entry in entries:
                if entry.id not in known:
                    known.add(entry.id)
                    new.append(entry)
            if not new:
                return []
            if text is None:
                write_file(path, self.scrub(render_decisions(track, new)), "decisions")
            else:
                # Append-only: the old bytes are kept verbatim; the new file is renamed in.
                body = text if text.endswith("\n") else text + "\n"
                if not body.endswith("\n\n"):
                    body += "\n"
                appended = "\n".join(render_decision_entry(d) for d in new)
                write_file(path, body + self.scrub(appended), "decisions")
            return new

    def record_risk(
        self,
        risk: str,
        *,
        severity: str | None = None,
        status: str | None = None,
        mitigation: str = "",
        source: str = "user",
        time: str = "",
        session: str = CLI_SESSION,
    ) -> Risk:
        """Add a risk (medium, open unless given) or update a known one: a severity or
        status left out keeps the one on file."""
        track, _ = self.track()
        risk, mitigation = self.scrub(risk), self.scrub(mitigation)
        with self.lock():
            known = self.known_risks(track)
            # a known risk named by its id ("R-c7aefeb1", as RISKS.md and the session
            # state list it) is that risk, not a new one whose text is the id
            named = known.get(risk.strip())
            if named is not None:
                risk = named.risk
            entry = Risk.make(
                risk, severity or "medium", status or "open", mitigation, source, time
            )
            entry = resolve_risk(entry, known.get(entry.id), severity, status)
            self.journal.add(session_key(session), track, "risk", entry.to_dict(), time)
            self.merge_risks(track, [entry])
        return entry

    def known_risks(self, track: str) -> dict[str, Risk]:
        """The risks RISKS.md holds now, by id."""
        path = self.track_path(track, "RISKS.md")
        text = read_optional(path)
        return {r.id: r for r in parse_risks(text, self.project.rel(path))} if text else {}

    def merge_risks(self, track: str, entries: list[Risk]) -> bool:
        """Add new risks and update the severity/status/mitigation of known ones."""
        path = self.track_path(track, "RISKS.md")
        with self.lock():
            text = read_optional(path)
            risks = parse_risks(text, self.project.rel(path)) if text is not None else []
            index = {r.id: i for i, r in enumerate(risks)}
            for entry in entries:
                if entry.id in index:
                    old = risks[index[entry.id]]
                    risks[index[entry.id]] = Risk(
                        old.id,
                        old.risk,
                        entry.severity,
                        entry.status,
                        entry.mitigation or old.mitigation,
                        old.source,
                        old.time,
                    )
                else:
                    index[entry.id] = len(risks)
                    risks.append(entry)
            new_text = self.scrub(render_risks(track, risks))
            if new_text == text:
                return False
            write_file(path, new_text, "risks")
            return True

    def update_plan(
        self, steps: list[dict[str, Any]], *, session: str = CLI_SESSION, time: str = ""
    ) -> list[PlanStep]:
        """Replace the live plan (the MCP ``update_plan`` tool); PLAN.md follows at once."""
        track, _ = self.track()
        normalised = [
            {
                "id": str(s.get("id") or f"P{i}"),
                "content": self.scrub(
                    " ".join(str(s.get("content") or s.get("text") or "").split())
                ),
                "status": str(s.get("status") or "pending"),
                "verification": self.scrub(" ".join(str(s.get("verification") or "").split())),
            }
            for i, s in enumerate(steps, start=1)
        ]
        for s in normalised:
            if not s["content"]:
                raise CharterError("every plan step needs content")
            if s["status"] not in {"pending", "in_progress", "completed", "cancelled"}:
                raise CharterError(
                    f"unknown plan status {s['status']!r} "
                    "(pending, in_progress, completed, cancelled)"
                )
        self.journal.add(
            session_key(session), track, "plan", {"source": "user", "steps": normalised}, time
        )
        plan = [PlanStep(s["id"], s["content"], s["status"], s["verification"]) for s in normalised]
        self.write_plan(track, plan)
        return plan

    def write_plan(self, track: str, steps: list[PlanStep]) -> bool:
        path = self.track_path(track, "PLAN.md")
        text = self.scrub(render_plan(track, steps))
        with self.lock():
            current = read_optional(path)
            if current is not None:
                parse_plan(
                    current, self.project.rel(path)
                )  # a broken hand edit is never overwritten
            if current == text:
                return False
            write_file(path, text, "plan")
            return True


def resolve_risk(entry: Risk, known: Risk | None, severity: str | None, status: str | None) -> Risk:
    """``entry`` with the severity and status it did not name taken from ``known``."""
    if known is None:
        return entry
    return replace(
        entry,
        severity=entry.severity if severity else known.severity,
        status=entry.status if status else known.status,
    )
