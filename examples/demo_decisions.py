"""Demo of bound decisions and drift enforcement (seed 003) on the demo project.

``run(console, project_dir)`` is called by ``examples/demo.py`` (``make demo``). It builds
the decisions state from committed inputs (``.charter/`` is git-ignored): merges the
clarification questions and answers, imports the intake form, shows which decisions bind
and why, pins them as invariants, and runs one drift check that fails with evidence and
one that passes. Run it alone with ``python examples/demo_decisions.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from charter.config import Project
from charter.decisions import service
from charter.decisions.drift.result import DriftResult
from charter.decisions.intake import import_file, load_document
from charter.decisions.invariants import invariants
from charter.decisions.merge import merge_questions_answers

SEED_DIR = ".charter-seed"

FAILING_TEXT = """Architecture notes – invoicing v2
- Usage events land in the append-only events table, partitioned by month.
- Invoices are rendered nightly and paid through Stripe Checkout.
- For EU customers we could also consider Adyen, since it supports more local methods.
- Disputed usage: support staff update the stored event in place so the invoice is right."""

PASSING_TEXT = """Architecture notes – invoicing v2
- Usage events land in the append-only events table; a correction is a new event.
- Invoices are paid through Stripe; the dashboard stays web-only, we are not building a
  mobile app.
- The tax engine is still open, so tax lines are computed by a stub until it is chosen."""


def _project(project_dir: Path) -> Project:
    project = Project.load(project_dir)
    if project.root.resolve() != project_dir.resolve():
        # the demo folder has no charter.toml of its own: use it as the root anyway
        project = Project(root=project_dir.resolve())
    return project


def _evidence(text: str, result: DriftResult) -> Text:
    rich_text = Text(text)
    for finding in result.findings:
        rich_text.stylize("bold red underline", finding.start, finding.end)
    return rich_text


def _show_check(console: Console, title: str, text: str, result: DriftResult) -> None:
    verdict = "[bold red]FAIL[/]" if result.verdict == "fail" else "[bold green]PASS[/]"
    console.print(Panel(_evidence(text, result), title=f"{title}: {verdict}", expand=False))
    if not result.findings:
        return
    table = Table(show_lines=True)
    for col in ("rule", "constraint", "evidence (exact span)", "repair"):
        table.add_column(col, overflow="fold")
    for f in result.findings:
        table.add_row(f.rule, f.constraint_id, f"{f.evidence!r} [{f.start}:{f.end}]", f.repair)
    console.print(table)


def run(console: Console, project_dir: Path) -> None:
    """Merge/import the demo decisions, show invariants, run a failing and a passing check."""
    project = _project(project_dir)
    seed = project.root / SEED_DIR
    shutil.rmtree(project.state_dir / "decisions", ignore_errors=True)  # derived state

    console.rule("[bold]Bound decisions (seed 003)")
    merged = merge_questions_answers(
        load_document(seed / "questions.json"), load_document(seed / "answers.json")
    )
    service.record(project, merged, "merge")
    service.record(project, import_file(seed / "intake.yaml"), "import")
    decisions = service.load_decisions(project)

    table = Table(title="pgc_clarifications (binding derived mechanically)")
    for col in ("id", "priority", "answer", "binding", "reason"):
        table.add_column(col)
    for e in decisions.pgc_clarifications:
        label = e.user_answer_label if e.user_answer_label is not None else e.user_answer
        answer = ", ".join(label) if isinstance(label, list) else str(label)
        table.add_row(
            e.id,
            e.priority,
            answer if len(answer) < 48 else answer[:45] + "…",
            "[green]bound[/]" if e.binding else "[dim]informational[/]",
            e.binding_reason,
        )
    console.print(table)

    items = invariants(decisions, project.settings.decisions.aliases)
    console.print(
        Panel(
            "\n".join(f"[bold]{i.id}[/]  {i.statement}" for i in items),
            title="Invariants pinned at SessionStart and injected at $$PGC_INVARIANTS",
            expand=False,
        )
    )
    history = service.store_for(project).history()
    console.print(
        f"history: {len(history)} hash-chained entries; file sha256 "
        f"{json.dumps(history[-1]['after'][:12])}"
    )

    checker = service.checker_for(project, decisions)
    _show_check(console, "Drift check 1", FAILING_TEXT, checker.check(FAILING_TEXT))
    _show_check(console, "Drift check 2", PASSING_TEXT, checker.check(PASSING_TEXT))


if __name__ == "__main__":
    run(Console(), Path(__file__).resolve().parent / "demo-project")
