"""CLI of session state: ``session init|recover|compact|note|state``, ``track …``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from charter.cli.common import ProjectDir, console, emit_json, err_console, load_project
from charter.config import Project
from charter.errors import CharterError

#: What Claude Code sends as SessionStart ``source``.
SESSION_START_SOURCES = ("startup", "resume", "clear", "compact")
_JSON = typer.Option(False, "--json", help="machine-readable output")


@contextmanager
def _session(project_dir: Path) -> Iterator[Any]:
    from charter.session.service import Session

    session = Session(load_project(project_dir))
    try:
        yield session
    finally:
        session.close()


def recover_for(project: Project, session_id: str, source: str) -> Any:
    """The recovered state exactly as the SessionStart hook gives it to the agent."""
    from charter.integrations.claude_code.handlers import HookState, session_recovery

    state = HookState(project.root)
    recovered, notes = session_recovery(
        state, {"session_id": session_id, "source": source}, create=False
    )
    recovered.notes = notes + recovered.notes
    return recovered


def register(app: typer.Typer) -> None:
    session_app = typer.Typer(
        help="Session state across compaction (seed 002).", no_args_is_help=True
    )
    track_app = typer.Typer(
        help="Tracks: one plan, spec, risks and decisions per line of work.", no_args_is_help=True
    )
    note_app = typer.Typer(
        help="Record a decision or a risk in the active track.", no_args_is_help=True
    )
    app.add_typer(session_app, name="session")
    app.add_typer(track_app, name="track")
    session_app.add_typer(note_app, name="note")

    @session_app.command("init")
    def init_cmd(project_dir: ProjectDir = Path("."), as_json: bool = _JSON) -> None:
        """Scaffold docs/context/ from this project's config (never overwrites a file)."""
        from charter.session.scaffold import init

        project = load_project(project_dir)
        done = init(project.root, project.settings.session)
        with _session(project_dir) as session:
            track, created = session.track()
        if as_json:
            emit_json(
                {
                    "files": [{"path": p, "action": a} for p, a in done],
                    "track": track,
                    "track_created": created,
                }
            )
            return
        for path, action in done:
            console.print(f"{action:>5}  {escape(str(path))}")
        console.print(f"active track: [cyan]{track}[/cyan]" + (" (created)" if created else ""))

    @session_app.command("recover")
    def recover_cmd(
        session_id: str = typer.Option("", "--session", help="session id (default: the latest)"),
        source: str = typer.Option(
            "compact", "--source", help="SessionStart source: " + " | ".join(SESSION_START_SOURCES)
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """Rebuild the session state (what SessionStart gives the agent)."""
        if source not in SESSION_START_SOURCES:  # a typo would render as some other source
            raise CharterError(
                f"unknown --source {source!r} (one of: {', '.join(SESSION_START_SOURCES)})"
            )
        recovered = recover_for(load_project(project_dir), session_id, source)
        if as_json:
            emit_json(recovered.to_dict())
            return
        for note in recovered.notes:  # what the hook reports on stderr too
            err_console.print(f"charter: {note}", markup=False, soft_wrap=True)
        if recovered.text:  # byte for byte what the agent is given: no wrapping
            sys.stdout.write(recovered.text)
            sys.stdout.flush()
        else:
            console.print("(no session state yet)")

    @session_app.command("compact")
    def compact_cmd(
        session_id: str = typer.Option("", "--session", help="session id (default: the latest)"),
        transcript: Path = typer.Option(
            None, "--transcript", help="Claude Code transcript to read Decision:/Risk: blocks from"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """Run the deterministic compaction routine now and write a checkpoint."""
        from charter.session.compaction import compact

        if transcript is not None:  # typed by the user: never ignored in silence
            if not transcript.exists():
                raise CharterError(f"transcript not found: {transcript}")
            if not transcript.is_file():
                raise CharterError(f"transcript is not a file: {transcript}")
            try:
                transcript.open("rb").close()
            except OSError as exc:
                raise CharterError(f"cannot read transcript {transcript}: {exc.strerror}") from None
        with _session(project_dir) as session:
            result = compact(
                session,
                session_id,
                trigger="manual",
                transcript_path=str(transcript) if transcript else None,
            )
        if as_json:
            emit_json(result.to_dict())
            return
        seq = (result.checkpoint or {}).get("seq", 0)
        console.print(
            f"track {result.track}: wrote {', '.join(result.written) or 'nothing new'}; "
            f"checkpoint {seq}"
        )

    @session_app.command("prune")
    def prune_cmd(
        session_id: str = typer.Option(
            "", "--keep-session", help="a session id kept whatever its age (the current one)"
        ),
        dry_run: bool = typer.Option(False, "--dry-run", help="report, remove nothing"),
        vacuum: bool = typer.Option(
            False, "--vacuum", help="then shrink the SQLite files (hooks wait meanwhile)"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """Remove old session history by ``session.retention`` (journal, checkpoint
        history, session folders, inject-once records, audit log) and say what went."""
        from charter.session.retention import prune

        with _session(project_dir) as session:
            report = prune(session, keep_session=session_id, dry_run=dry_run, vacuum=vacuum)
        if as_json:
            emit_json(report.to_dict())
            return
        verb = "would remove" if dry_run else "removed"
        console.print(
            f"{verb}: {report.journal_events} journal events of "
            f"{len(report.journal_sessions)} sessions, {len(report.checkpoints)} checkpoint "
            f"history files, {len(report.session_dirs)} session folders, "
            f"{report.injected_entries} inject-once records of "
            f"{report.injected_conversations} conversations, {report.audit_entries} audit "
            f"log entries, {report.retry_markers} retry markers"
        )
        for name, (before, after) in report.vacuumed.items():
            console.print(f"{name}: {before:,} → {after:,} bytes")

    @session_app.command("evaluate")
    def evaluate_cmd(
        track: str = typer.Option("", "--track", help="track id (default: the active one)"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """Check PLAN.md and SPEC.md before execution (exit 1 when they do not pass)."""
        from charter.session.evaluator import evaluate

        with _session(project_dir) as session:
            # a mistyped --track is a usage error (as in `track show`), not a plan that
            # "does not pass" because its files are missing
            if track and track not in session.tracks.list():
                known = ", ".join(session.tracks.list()) or "none"
                raise CharterError(f"no track {track} (tracks: {known})")
            result = evaluate(session, track or session.track()[0])
        if as_json:
            emit_json(result.to_dict())
        elif result.passed:
            console.print(result.summary(), markup=False, highlight=False)
        else:  # every finding, so one run shows everything to fix
            for finding in result.findings:
                console.print(str(finding), markup=False, highlight=False, soft_wrap=True)
            console.print(f"does not pass: {len(result.findings)} findings", highlight=False)
        if not result.passed:
            raise typer.Exit(1)

    @session_app.command("gates")
    def gates_cmd(project_dir: ProjectDir = Path("."), as_json: bool = _JSON) -> None:
        """The seed's four gates; exits non-zero naming each gate that failed."""
        from charter.session.gates import run_gates

        with _session(project_dir) as session:
            gates = run_gates(session)
        failed = [g.name for g in gates if not g.passed]
        if failed:
            from charter.graph.findings import record_findings

            project = load_project(project_dir)
            record_findings(
                project,
                [
                    {
                        "title": f"session gate failed: {g.name}: {g.detail}",
                        "source": "gates",
                        "rule": g.name,
                        "severity": "blocking",
                    }
                    for g in gates
                    if not g.passed
                ],
            )
        if as_json:
            emit_json({"passed": not failed, "gates": [g.to_dict() for g in gates]})
        else:
            table = Table(title="Session gates")
            table.add_column("gate", style="cyan")
            table.add_column("result")
            table.add_column("detail")
            for gate in gates:
                mark = "[green]pass[/green]" if gate.passed else "[red]FAIL[/red]"
                table.add_row(gate.name, mark, escape(gate.detail))
            console.print(table)
        if failed:
            if not as_json:
                err_console.print(f"charter: gates failed: {', '.join(failed)}")
            raise typer.Exit(1)

    @session_app.command("state")
    def state_cmd(project_dir: ProjectDir = Path("."), as_json: bool = _JSON) -> None:
        """The active track's plan, decisions and risks as parsed from its files."""
        with _session(project_dir) as session:
            track, _ = session.track()
            tier = session.task_tier(track)
        data = {
            "track": track,
            "plan": [s.to_dict() for s in tier.plan],
            "decisions": [d.to_dict() for d in tier.decisions],
            "risks": [r.to_dict() for r in tier.risks],
            "spec": {
                "goal": tier.spec.goal,
                "scope": list(tier.spec.scope),
                "acceptance": list(tier.spec.acceptance),
            }
            if tier.has_spec
            else None,
        }
        if as_json:
            emit_json(data)
            return
        table = Table(title=f"Plan of track {track}")
        table.add_column("id", style="cyan")
        table.add_column("status")
        table.add_column("step")
        for step in tier.plan:
            table.add_row(step.id, step.status, escape(step.text))
        console.print(table)
        console.print(
            f"{len(tier.decisions)} decisions, "
            f"{sum(r.status == 'open' for r in tier.risks)} open risks"
        )

    @note_app.command("decision")
    def note_decision(
        text: str = typer.Argument(..., help="the decision"),
        reason: str = typer.Option("", "--reason", help="why"),
        impact: str = typer.Option("", "--impact", help="what it changes; 'global' for all tracks"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """Append a decision to the active track's DECISIONS.md."""
        with _session(project_dir) as session:
            entry = session.record_decision(text, reason=reason, impact=impact, source="user (cli)")
        if as_json:
            emit_json(entry.to_dict())
        else:
            console.print(f"recorded {entry.id}")

    @note_app.command("risk")
    def note_risk(
        text: str = typer.Argument(..., help="the risk"),
        severity: str | None = typer.Option(
            None,
            "--severity",
            help="low | medium | high | critical (a new risk: medium; an update keeps it)",
        ),
        status: str | None = typer.Option(
            None,
            "--status",
            help="open | mitigated | accepted | closed (a new risk: open; an update keeps it)",
        ),
        mitigation: str = typer.Option("", "--mitigation", help="how the risk is handled"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """Add or update a risk in the active track's RISKS.md."""
        with _session(project_dir) as session:
            entry = session.record_risk(
                text, severity=severity, status=status, mitigation=mitigation, source="user (cli)"
            )
        if as_json:
            emit_json(entry.to_dict())
        else:
            console.print(f"recorded {entry.id} \\[{entry.severity}] {entry.status}")

    @track_app.command("list")
    def track_list(project_dir: ProjectDir = Path("."), as_json: bool = _JSON) -> None:
        """Every track, the active one marked."""
        with _session(project_dir) as session:
            active = session.tracks.active()
            tracks = session.tracks.list()
        if as_json:
            emit_json({"active": active, "tracks": tracks})
            return
        for name in tracks:
            console.print(("* " if name == active else "  ") + name)

    @track_app.command("new")
    def track_new(
        track: str = typer.Argument(..., help="track id"),
        no_switch: bool = typer.Option(False, "--no-switch", help="create without activating"),
        project_dir: ProjectDir = Path("."),
    ) -> None:
        """Create a track (and make it active)."""
        with _session(project_dir) as session:
            path = session.tracks.new(track, activate=not no_switch)
        console.print(
            f"created {path.relative_to(session.root).as_posix()}"
            + ("" if no_switch else " (active)")
        )

    @track_app.command("switch")
    def track_switch(
        track: str = typer.Argument(..., help="track id"), project_dir: ProjectDir = Path(".")
    ) -> None:
        """Make another track active (one atomic write of ACTIVE_TRACK)."""
        with _session(project_dir) as session:
            session.tracks.switch(track)
        console.print(f"active track: {track}")

    @track_app.command("show")
    def track_show(
        track: str = typer.Argument(None, help="track id (default: the active one)"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = _JSON,
    ) -> None:
        """A track's files and how many steps, decisions and risks they hold."""
        with _session(project_dir) as session:
            name = track or session.track()[0]
            if name not in session.tracks.list():
                raise CharterError(f"no track {name}")
            tier = session.task_tier(name)
            files = {
                n: session.track_path(name, n).exists()
                for n in ("SPEC.md", "PLAN.md", "RISKS.md", "DECISIONS.md")
            }
        data = {
            "track": name,
            "files": files,
            "steps": len(tier.plan),
            "done": sum(s.status == "completed" for s in tier.plan),
            "decisions": len(tier.decisions),
            "open_risks": sum(r.status == "open" for r in tier.risks),
        }
        if as_json:
            emit_json(data)
            return
        present = [n for n, there in files.items() if there]
        missing = [n for n, there in files.items() if not there]
        data["files"] = ", ".join(present) or "none"
        if missing:
            data["files"] += f" (missing: {', '.join(missing)})"
        for key, value in data.items():
            console.print(f"{key}: {value}", markup=False, highlight=False, soft_wrap=True)
