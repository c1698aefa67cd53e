"""CLI of bound decisions and drift: ``decisions``, ``drift``, ``render``, ``eval drift``.

A thin layer over :mod:`charter.decisions.service`: every command has a readable default
(Rich tables) and ``--json`` where it reads state. Errors are :class:`CharterError` and
become one stderr line with a non-zero exit; ``drift check`` exits 1 on a ``fail``
verdict so it works as a CI gate.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from charter.cli.common import ProjectDir, console, emit_json, emit_jsonl, err_console, load_project
from charter.decisions.drift.result import ARTIFACT_KINDS
from charter.errors import CharterError

KINDS = "|".join(ARTIFACT_KINDS)


def _answer_text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _decisions_table(entries: list[Any]) -> Table:
    table = Table(title="Decisions (pgc_clarifications)", show_lines=False)
    for col in ("id", "priority", "answer", "binding", "reason"):
        table.add_column(col)
    for e in entries:
        label = e.user_answer_label if e.user_answer_label is not None else e.user_answer
        table.add_row(
            escape(e.id),
            e.priority,
            escape(_answer_text(label)),
            "[bold green]bound[/]" if e.binding else "[dim]informational[/]",
            e.binding_reason,
        )
    return table


def print_findings(result: Any, text: str, where: str, block_confidence: float) -> None:
    """Each finding as a linter line (``file:line:col``, the rule, the decision), the words
    that break it and the repair that restates the decision: a table of character
    offsets folded into 80 columns was unreadable. ``--json`` keeps the offsets."""
    from charter.decisions.drift.result import RULES

    verdict = "[red]FAIL[/]" if result.verdict == "fail" else "[yellow]PASS[/] (warnings only)"
    count = len(result.findings)
    console.print(f"Drift check: {verdict}, {count} finding{'s' * (count != 1)} in {escape(where)}")
    for f in result.findings:
        under = f.severity == "error" and f.confidence < block_confidence
        # a confidence just under the threshold is not shown as the threshold itself
        # ("confidence 0.80 (under drift.block_confidence 0.8 …)"): cut, not rounded
        shown = math.floor(f.confidence * 100) / 100 if under else f.confidence
        line = text.count("\n", 0, f.start) + 1
        column = f.start - (text.rfind("\n", 0, f.start) + 1) + 1
        colour = "red" if f.severity == "error" else "yellow"
        console.print(
            f"[bold]{escape(where)}:{line}:{column}[/] [{colour}]{f.rule}[/] "
            f"{RULES.get(f.rule, '')} · [bold]{escape(f.constraint_id)}[/] · "
            f"confidence {shown:.2f}"
            + (
                f" [dim](under drift.block_confidence {block_confidence}: a hook would not stop "
                "the agent for it)[/]"
                if under
                else ""
            ),
            soft_wrap=True,
        )
        evidence = " ".join(f.evidence.split())
        console.print(f"  [dim]│[/] {escape(evidence)}", soft_wrap=True)
        console.print(f"  [green]repair[/]: {escape(f.repair)}", soft_wrap=True)


def _import_adrs(
    project: Any, paths: list[Path], *, dry_run: bool, as_json: bool, titles: bool = False
) -> None:
    from charter.decisions.adr import NO_DECISION_NOTE, display_path
    from charter.decisions.service import import_adrs

    result = import_adrs(project, paths, dry_run=dry_run, titles=titles)
    rows: list[dict[str, Any]] = []
    for r in result.readings:
        rid, outcome, note = r.id, r.outcome, r.note
        if outcome == "accepted" and rid is not None:
            if rid in result.renegotiate:
                outcome, note = "renegotiate", result.renegotiate[rid]
            elif rid in result.changed:
                outcome = "would bind" if dry_run else "bound"
            else:
                outcome, note = "unchanged", "already recorded"
        rows.append(
            {
                "path": display_path(r.path, project.root),
                "line": r.line or None,
                "status": r.status,
                "outcome": outcome,
                "id": rid,
                "question": r.item.get("question"),
                "answer": r.answer,
                "excluded": r.excluded if r.item else [],
                "note": note,
            }
        )
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    if as_json:
        emit_json(
            {
                "adrs": rows,
                "changed": result.changed,
                "retired": result.retired,
                "counts": counts,
                "dry_run": dry_run,
            }
        )
        return
    table = Table(title="ADRs", show_lines=False)
    for col in ("file", "outcome", "id", "answer / note"):
        table.add_column(col, overflow="fold")
    for row in rows:
        where = row["path"] + (f":{row['line']}" if row["line"] else "")
        said = (
            row["answer"] if row["outcome"] in ("bound", "would bind", "unchanged") else row["note"]
        )
        table.add_row(escape(where), row["outcome"], escape(row["id"] or ""), escape(said or ""))
    console.print(table)
    for cid, note in result.retired.items():
        console.print(f"[yellow]{escape(cid)}[/]: {escape(note)}")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    verb = "would bind" if dry_run else "bound"
    console.print(f"{summary}; {verb} {len(result.changed)}")
    undecided = sum(1 for r in result.readings if r.note == NO_DECISION_NOTE)
    if undecided and not counts.get("unreadable") and not result.changed:
        # a folder of RFCs or design notes (a proposal and its alternatives, no status,
        # "merged" meaning accepted) read as rows of "skipped" and "bound 0", and nothing
        # said what would bind one
        console.print(
            f"{undecided} file(s) state no status and no decision (RFCs, design notes): "
            "nothing is read as a choice taken, and search still serves them. Record a "
            "decision one of them took with `charter decisions add --id … --text … "
            "--choice a=… --choice b=… --answer a`, or give it a 'Status: Accepted' line "
            "and a '## Decision' section naming one of its '## Considered Options'."
        )
    if counts.get("unreadable"):
        # a folder of Nygard records that state one choice in prose ("We will use X")
        # reads as rows of "unreadable" and "bound 0": say what binds one, and that
        # search still serves them
        console.print(
            "An unreadable ADR binds nothing (search still serves it): list its options "
            "under '## Considered Options' with a 'Chosen option: …' line, or record it "
            "with `charter decisions add --id ADR-… --text … --choice a=… --choice b=… "
            "--answer a`; one that lists only the alternatives it rejected binds its title "
            "as the choice taken with `--titles`."
        )


def _read_input(source: str) -> str:
    from charter.fileio import read_text

    if source == "-":
        data = sys.stdin.buffer.read()
        if b"\x00" in data[:8192]:
            raise CharterError("stdin is binary, not text")
        try:
            return data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            raise CharterError("stdin is not valid UTF-8 text") from None
    return read_text(Path(source), what="artifact")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this capability's commands to ``app`` and its ``eval`` sub-command."""
    decisions_app = typer.Typer(
        help="Bound decisions (pgc_clarifications): merge, import, answer, renegotiate.",
        no_args_is_help=True,
    )
    drift_app = typer.Typer(
        help="Check artifacts for drift from bound decisions.", no_args_is_help=True
    )
    app.add_typer(decisions_app, name="decisions")
    app.add_typer(drift_app, name="drift")
    _register_decisions(decisions_app)
    _register_drift(app, drift_app, eval_app)


def _register_decisions(decisions_app: typer.Typer) -> None:
    @decisions_app.command("merge")
    def merge_cmd(
        questions: Path = typer.Option(..., "--questions", help="questions JSON/YAML"),
        answers: Path = typer.Option(..., "--answers", help="answers JSON/YAML"),
        out: Path | None = typer.Option(
            None, "--out", help="write the merged file here instead of the project store"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Mechanically merge questions and answers into pgc_clarifications."""
        from charter.decisions.intake import load_document
        from charter.decisions.merge import merge_questions_answers
        from charter.decisions.service import record
        from charter.fileio import atomic_write_text

        merged = merge_questions_answers(
            load_document(questions), load_document(answers), source="merge"
        )
        if out is not None:
            atomic_write_text(out, merged.canonical_text())
            changed = [e.id for e in merged.pgc_clarifications]
        else:
            changed = record(load_project(project_dir), merged, "merge")
        if as_json:
            emit_json({"changed": changed, **merged.to_canonical()})
            return
        console.print(_decisions_table(merged.pgc_clarifications))
        where = out if out is not None else ".charter/decisions/pgc_clarifications.json"
        console.print(f"merged {len(merged.pgc_clarifications)} clarifications → {where}")

    @decisions_app.command("import")
    def import_cmd(
        files: list[Path] = typer.Argument(
            ..., metavar="FILE...", help="intake form (.md), YAML or JSON; with --adr: ADRs"
        ),
        adr: bool = typer.Option(
            False, "--adr", help="read MADR / Nygard ADRs (files or folders) and bind accepted ones"
        ),
        titles: bool = typer.Option(
            False,
            "--titles",
            help="with --adr: an ADR listing only the alternatives it rejected binds its title",
        ),
        dry_run: bool = typer.Option(False, "--dry-run", help="report only; store nothing"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Import constraints from another stage (intake form, YAML, JSON, or ADRs)."""
        from charter.decisions.intake import import_file
        from charter.decisions.merge import upsert
        from charter.decisions.service import load_decisions, record

        project = load_project(project_dir)
        if adr:
            _import_adrs(project, files, dry_run=dry_run, as_json=as_json, titles=titles)
            return
        if len(files) != 1:
            raise CharterError("import reads one intake file at a time (several with --adr)")
        if files[0].is_dir():  # a folder of ADRs, the usual thing to import
            raise CharterError(
                f"decisions input is a directory, not a file: {files[0]} "
                "(to read the ADRs in it: charter decisions import --adr "
                f"{files[0]})"
            )
        incoming = import_file(files[0], project.settings.decisions.default_priority)
        if dry_run:
            _, changed = upsert(load_decisions(project), incoming)
        else:
            changed = record(project, incoming, "import")
        if as_json:
            emit_json({"changed": changed, "dry_run": dry_run, **incoming.to_canonical()})
            return
        console.print(_decisions_table(incoming.pgc_clarifications))
        verb = "would import" if dry_run else "imported"
        console.print(f"{verb} {len(incoming.pgc_clarifications)} ({len(changed)} changed)")

    @decisions_app.command("add")
    def add_cmd(
        clarification_id: str = typer.Option(..., "--id", help="e.g. TARGET_PLATFORM"),
        text: str = typer.Option(..., "--text", help="the question"),
        priority: str | None = typer.Option(None, "--priority", help="must | should | could"),
        answer_type: str | None = typer.Option(
            None, "--type", help="single_choice | multi_choice | free_text | yes_no"
        ),
        choice: list[str] = typer.Option([], "--choice", help="ID=Label (repeatable)"),
        answer: str | None = typer.Option(None, "--answer", help="choice id(s), comma-separated"),
        hard: bool = typer.Option(False, "--hard", help="the user marked it a hard constraint"),
        exclusion: bool = typer.Option(False, "--exclusion", help="the answer excludes scope"),
        preference: bool = typer.Option(False, "--preference", help="a preference only"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Add one clarification (question and, optionally, its answer)."""
        from charter.decisions.service import add_decision

        choices = []
        for item in choice:
            cid, sep, label = item.partition("=")
            if not sep or not cid.strip():
                raise CharterError(f"--choice must be ID=Label (got {item!r})")
            choices.append({"id": cid.strip(), "label": label.strip() or cid.strip()})
        value: Any = answer
        if answer is not None and (answer_type == "multi_choice" or ("," in answer and choices)):
            value = [a.strip() for a in answer.split(",") if a.strip()]
        spec: dict[str, Any] = {
            "id": clarification_id,
            "text": text,
            "choices": choices,
            "answer": value,
        }
        if priority:
            spec["priority"] = priority
        if answer_type:
            spec["answer_type"] = answer_type
        for key, flag in (("hard", hard), ("exclusion", exclusion), ("preference", preference)):
            if flag:
                spec[key] = True
        entry = add_decision(load_project(project_dir), spec)
        if as_json:
            emit_json(entry.to_canonical())
            return
        console.print(_decisions_table([entry]))

    @decisions_app.command("answer")
    def answer_cmd(
        clarification_id: str = typer.Argument(..., metavar="ID", help="the clarification's id"),
        value: str = typer.Argument(..., help="choice id(s) (comma-separated), text, yes/no"),
        hard: bool = typer.Option(False, "--hard", help="also mark it a hard constraint"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Answer an open or informational clarification (bound ones: renegotiate)."""
        from charter.decisions.service import answer_decision

        entry = answer_decision(
            load_project(project_dir), clarification_id, value, hard=True if hard else None
        )
        if as_json:
            emit_json(entry.to_canonical())
            return
        console.print(_decisions_table([entry]))

    @decisions_app.command("list")
    def list_cmd(
        binding_only: bool = typer.Option(False, "--binding", help="only bound constraints"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """List clarifications with their binding status and reason."""
        from charter.decisions.service import load_decisions

        decisions = load_decisions(load_project(project_dir))
        entries = [e for e in decisions.pgc_clarifications if e.binding or not binding_only]
        if as_json:
            emit_json({"pgc_clarifications": [e.to_canonical() for e in entries]})
            return
        if not entries:
            console.print("no decisions recorded (charter decisions merge / import / add)")
            return
        console.print(_decisions_table(entries))

    @decisions_app.command("invariants")
    def invariants_cmd(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """The bound constraints as normalized invariant statements."""
        from charter.decisions.service import project_invariants

        items = project_invariants(load_project(project_dir))
        if as_json:
            emit_json({"invariants": [i.as_dict() for i in items]})
            return
        if not items:
            console.print("no bound constraints")
            return
        for inv in items:
            console.print(f"[bold]{escape(inv.id)}[/]  {escape(inv.statement)}")

    @decisions_app.command("renegotiate")
    def renegotiate_cmd(
        clarification_id: str = typer.Argument(..., metavar="ID", help="the clarification's id"),
        answer: str | None = typer.Option(None, "--answer", help="the new answer (explicit)"),
        reason: str | None = typer.Option(None, "--reason", help="why it changes"),
        yes: bool = typer.Option(False, "--yes", help="confirm without a prompt"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Change a bound constraint explicitly: shown verbatim, new answer, confirmation."""
        from charter.decisions.service import load_decisions, renegotiate

        project = load_project(project_dir)
        entry = load_decisions(project).require(clarification_id)
        if not entry.binding:
            raise CharterError(
                f"{entry.id} is not bound; answer it with `charter decisions answer {entry.id}`"
            )
        verbatim = json.dumps(entry.to_canonical(), ensure_ascii=False, indent=2)
        interactive = sys.stdin.isatty()
        out = err_console if as_json else console
        out.print("[bold]Constraint renegotiation mode[/] — the bound constraint, verbatim:")
        out.print(escape(verbatim), soft_wrap=True)
        if answer is None:
            if not interactive:
                raise CharterError("renegotiation needs an explicit new answer (--answer)")
            answer = typer.prompt("New answer (choice id(s), text, or 'undecided' to revoke)")
        if reason is None:
            if not interactive:
                raise CharterError("renegotiation needs a reason (--reason)")
            reason = typer.prompt("Reason for the change")
        if not yes:
            if not interactive:
                raise CharterError("renegotiation needs confirmation (--yes)")
            typed = typer.prompt(f"Type {entry.id} to confirm the change")
            if typed.strip() != entry.id:
                raise CharterError("not confirmed; nothing changed")
        old, new, line = renegotiate(
            project, entry.id, answer, reason, expected=entry.to_canonical()
        )
        if as_json:
            emit_json({"old": old.to_canonical(), "new": new.to_canonical(), "history": line})
            return
        console.print(
            f"[bold]{escape(entry.id)}[/]: {escape(_answer_text(old.user_answer))} → "
            f"{escape(_answer_text(new.user_answer))} (binding: {new.binding}, "
            f"{new.binding_reason}); recorded in history #{line['seq']}"
        )

    @decisions_app.command("history")
    def history_cmd(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """The append-only, hash-chained change history."""
        from charter.decisions.service import store_for

        entries = store_for(load_project(project_dir)).history()
        if as_json:
            emit_json({"history": entries})
            return
        table = Table(title="Decision history")
        for col in ("#", "time", "op", "id", "reason", "after"):
            table.add_column(col)
        for e in entries:
            table.add_row(
                str(e["seq"]),
                e["time"],
                e["op"],
                escape(str(e.get("id") or "")),
                escape(str(e.get("reason") or "")),
                str(e["after"])[:12],
            )
        console.print(table)

    @decisions_app.command("verify")
    def verify_cmd(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Check the hash chain and replay the history: exits 3 if they disagree.

        Exits 3 when the decisions were changed outside Charter, or when the history
        records a write that the stored state does not reflect (a lost update).
        """
        from charter.decisions.service import store_for
        from charter.errors import TamperError

        store = store_for(load_project(project_dir))
        status = store.verify()
        problems = store.audit()
        info = {
            "ok": not problems,
            "entries": len(status.entries),
            "sha256": status.current_sha,
            "pending": status.pending,
            "problems": problems,
        }
        if as_json:
            emit_json(info)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise TamperError(
                f"decisions history and state disagree: {problems[0]}{more}; "
                f"{store.path} does not reflect every recorded write"
            )
        if as_json:
            return
        note = (
            " (the last change was interrupted after it was recorded; the next write or "
            "`charter decisions restore` applies it)"
        )
        console.print(
            f"decisions verified: {len(status.entries)} history entries, "
            f"sha256 {status.current_sha[:12]}" + (note if status.pending else "")
        )

    @decisions_app.command("restore")
    def restore_cmd(
        project_dir: ProjectDir = Path("."),
    ) -> None:
        """Undo an outside edit: put back the last recorded decisions file."""
        from charter.decisions.service import store_for

        sha = store_for(load_project(project_dir)).restore()
        console.print(f"restored the recorded decisions (sha256 {sha[:12]})")

    @decisions_app.command("schema")
    def schema_cmd(
        write: Path | None = typer.Option(None, "--write", help="write the schema to this file"),
    ) -> None:
        """Print (or write) the JSON Schema generated from the models."""
        from charter.decisions.models import schema_text
        from charter.fileio import atomic_write_text

        if write is not None:
            atomic_write_text(write, schema_text())
            console.print(f"wrote {write}")
            return
        sys.stdout.write(schema_text())


def _record_findings(project: Any, source: str, text: str, result: Any) -> None:
    """Drift findings about a project file go into the project state, anchored to the file
    and line, so the graph (and the contract capsule's open findings) see them.

    Only a file inside the project is recorded: a text on stdin or a file elsewhere has
    nothing to anchor a finding to and no later check that could close it, so a sentence
    tried once stayed a blocking finding in every capsule. Checking a file again closes
    its earlier drift findings that this check no longer reports (fixed, or the file now
    passes)."""
    from charter.graph.findings import close_findings, record_findings

    if source == "-":
        return
    try:
        path = Path(source).resolve().relative_to(project.root.resolve()).as_posix()
    except ValueError:
        return
    entries = []
    for finding in result.findings:
        line = text.count("\n", 0, finding.start) + 1
        entry = {
            "title": f"{finding.rule}: {finding.message}",
            "source": "drift",
            "rule": finding.rule,
            "constraint": finding.constraint_id,
            "severity": "blocking" if finding.severity == "error" else "warning",
        }
        entry.update({"path": path, "line_start": line, "line_end": line})
        entries.append(entry)
    kept = record_findings(project, entries)
    close_findings(project, source="drift", path=path, keep=set(kept))


def _register_drift(app: typer.Typer, drift_app: typer.Typer, eval_app: typer.Typer) -> None:
    @app.command("render")
    def render_cmd(
        template: Path = typer.Argument(
            ..., help="template with $$PGC_CLARIFICATIONS / $$PGC_INVARIANTS"
        ),
        out: Path | None = typer.Option(None, "--out", help="write here instead of stdout"),
        constraints: Path | None = typer.Option(
            None, "--constraints", help="a pgc_clarifications file instead of the project's"
        ),
        project_dir: ProjectDir = Path("."),
    ) -> None:
        """Inject the canonical clarifications (verbatim) and invariants into a template."""
        from charter.decisions.render import render_template
        from charter.decisions.service import load_constraints_file, load_decisions
        from charter.fileio import atomic_write_text, read_text

        project = load_project(project_dir)
        decisions = load_constraints_file(constraints) if constraints else load_decisions(project)
        rendered = render_template(
            read_text(template, what="template"), decisions, project.settings.decisions.aliases
        )
        if out is not None:
            atomic_write_text(out, rendered)
            err_console.print(f"wrote {out}")
        else:
            sys.stdout.write(rendered)

    @drift_app.command("check")
    def check_cmd(
        source: str | None = typer.Argument(None, metavar="FILE|-", help="artifact, - = stdin"),
        constraints: Path | None = typer.Option(
            None, "--constraints", help='{"pgc_clarifications": [...]} (default: the project\'s)'
        ),
        kind: str | None = typer.Option(None, "--kind", help=KINDS),
        batch: Path | None = typer.Option(
            None, "--batch", help="JSONL of {text, id?, artifact_kind?}: one result per line"
        ),
        no_semantic: bool = typer.Option(False, "--no-semantic", help="lexical layer only"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Check an artifact against the bound constraints (QA-PGC-001..004); exit 1 on fail."""
        from charter.decisions.service import (
            checker_for,
            load_constraints_file,
            load_decisions,
        )

        if kind is not None and kind not in KINDS.split("|"):
            raise CharterError(f"--kind must be one of {KINDS}")
        if (source is None) == (batch is None):
            raise CharterError("give an artifact FILE (or - for stdin), or --batch CASES.jsonl")
        project = load_project(project_dir)
        decisions = load_constraints_file(constraints) if constraints else load_decisions(project)
        checker = checker_for(project, decisions, semantic=False if no_semantic else None)
        if batch is not None:
            failed = _run_batch(checker, batch)
            raise SystemExit(1 if failed else 0)
        assert source is not None
        text = _read_input(source)
        result = checker.check(text, kind)
        if constraints is None:
            _record_findings(project, source, text, result)
        if as_json:
            emit_json(result.as_dict())
        elif result.findings:
            print_findings(
                result,
                text,
                "<stdin>" if source == "-" else source,
                project.settings.drift.block_confidence,
            )
        else:
            console.print(
                f"[green]PASS[/]: no drift from {len(checker.invariants)} bound constraints"
            )
        raise SystemExit(1 if result.verdict == "fail" else 0)

    @eval_app.command("drift")
    def eval_drift(
        data: Path = typer.Option(..., "--data", help="bench folder (cases.jsonl, constraints/)"),
        no_semantic: bool = typer.Option(False, "--no-semantic", help="lexical layer only"),
        predictions: Path | None = typer.Option(
            None, "--predictions", help="also write predictions JSONL (bench format)"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """P/R/F1 of fail detection, per-rule recall, attribution, false alarms by tag."""
        from charter.decisions.service import embedder_for_project
        from charter.eval.drift import evaluate
        from charter.fileio import atomic_write_text

        project = load_project(project_dir)
        embedder = None if no_semantic else embedder_for_project(project)
        metrics, preds = evaluate(
            data, embedder, block_confidence=project.settings.drift.block_confidence
        )
        if predictions is not None:
            atomic_write_text(
                predictions,
                "".join(json.dumps(p, ensure_ascii=False, sort_keys=True) + "\n" for p in preds),
            )
        if as_json:
            emit_json(metrics)
            return
        _print_metrics(metrics)


def _run_batch(checker: Any, batch: Path) -> bool:
    from charter.fileio import iter_jsonl

    failed = False
    for n, case in iter_jsonl(batch, what="batch file"):
        if not isinstance(case.get("text"), str):
            raise CharterError(f"{batch}:{n}: each line needs a 'text' string")
        result = checker.check(case["text"], case.get("artifact_kind"))
        failed |= result.verdict == "fail"
        out = result.as_dict()
        if "id" in case:
            out = {"id": case["id"], **out}
        emit_jsonl(out)
    return failed


def _print_metrics(m: dict[str, Any]) -> None:
    table = Table(title=f"Drift benchmark ({m['n']} cases, semantic: {m['semantic_layer']})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in (
        "precision",
        "recall",
        "f1",
        "false_alarm_rate_on_pass",
        "exact_attribution_accuracy",
        "exact_attribution_accuracy_on_tp",
        "non_binding_or_unknown_citation_rate",
        "median_check_ms",
    ):
        table.add_row(key, str(m[key]))
    table.add_row("tp / fp / fn / tn", f"{m['tp']} / {m['fp']} / {m['fn']} / {m['tn']}")
    block = m["blocking"]
    table.add_row(
        f"blocking (confidence ≥ {block['block_confidence']}) P / R / F1",
        f"{block['precision']} / {block['recall']} / {block['f1']}",
    )
    console.print(table)
    rules = Table(title="Per-rule recall")
    for col in ("rule", "detection", "attributed"):
        rules.add_column(col)
    for rule, det in m["per_rule_detection_recall"].items():
        rules.add_row(rule, str(det), str(m["per_rule_attributed_recall"].get(rule, 0.0)))
    console.print(rules)
    tags = Table(title="False alarms on pass cases by tag")
    tags.add_column("tag")
    tags.add_column("false alarms / pass cases", justify="right")
    for tag, row in m["false_alarms_on_pass_by_tag"].items():
        tags.add_row(tag, f"{row['false_alarms']} / {row['pass_cases']}")
    console.print(tags)
    _print_scenarios(m)


def _print_scenarios(m: dict[str, Any]) -> None:
    table = Table(title=f"Per scenario (worst: {m['worst_scenario']})")
    table.add_column("scenario", overflow="fold")
    for col in ("cases", "tp / fp / fn / tn", "precision", "recall", "f1"):
        table.add_column(col, justify="right")
    for row in m["per_scenario"]:
        name = row["scenario"]
        table.add_row(
            f"[bold]{name}[/bold]" if name == m["worst_scenario"] else name,
            str(row["cases"]),
            f"{row['tp']} / {row['fp']} / {row['fn']} / {row['tn']}",
            *("-" if row[k] is None else f"{row[k]:.3f}" for k in ("precision", "recall", "f1")),
        )
    console.print(table)
