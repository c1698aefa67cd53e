"""Demo of mode-aware search and fact checks on the demo project (called by demo.py).

Shows one search per mode (planning, execution, review) with citations, then checks the
execution brief's facts against the structured source of truth, where the Markdown
disagrees with the CSV on the fee and a due date.
"""

from __future__ import annotations

import pathlib

from rich.console import Console
from rich.table import Table

from charter.cli.search_cmds import facts_table
from charter.config import Project
from charter.search.embedding import search_embedder
from charter.search.engine import SearchEngine
from charter.search.facts import check_facts
from charter.search.indexer import Indexer

QUERIES = {
    "planning": "what pricing model should we offer and why",
    "execution": "when is DEL-101 due and what are its acceptance criteria",
    "review": "why did sprint 3 miss the ingestion deadline",
}
BRIEF = "docs/execution-brief.md"


def _results_table(mode: str, query: str, response: object) -> Table:
    table = Table(title=f"[bold]{mode}[/bold] · “{query}”", show_lines=False, expand=True)
    table.add_column("#", justify="right", width=3)
    table.add_column("citation", overflow="fold", ratio=3)
    table.add_column("text", overflow="ellipsis", no_wrap=True, ratio=4)
    for n, result in enumerate(response.results, start=1):  # type: ignore[attr-defined]
        mark = " (chained)" if result.chained_from else (" (exact)" if result.exact else "")
        table.add_row(str(n), result.citation + mark, " ".join(result.text.split()))
    return table


def run(console: Console, project_dir: pathlib.Path) -> None:
    """Index ``project_dir``, search once per mode, check the brief's facts."""
    project = Project.load(project_dir)
    report = Indexer(project, search_embedder(project.settings)).run()
    console.rule("[bold]Search: mode-aware hybrid retrieval with citations")
    console.print(
        f"indexed {len(report.indexed)} files ({report.chunks_embedded} chunks embedded, "
        f"{report.unchanged} unchanged) in {report.seconds:.2f}s"
    )
    engine = SearchEngine(project)
    try:
        for mode, query in QUERIES.items():
            response = engine.search(query, mode=mode)
            scope = response.scope
            console.print(
                f"[dim]{mode}: k_in={scope.k_in} k_out={scope.k_out} "
                f"paths={', '.join(scope.search_paths)}[/dim]"
            )
            console.print(_results_table(mode, query, response))
            for warning in response.warnings:
                console.print(f"[yellow]warning:[/yellow] {warning}")
    finally:
        engine.close()
    console.rule("[bold]Fact check: the SoT wins over Markdown")
    text = (project.root / BRIEF).read_text(encoding="utf-8")
    facts = check_facts(project, text, source=BRIEF)
    console.print(facts_table(facts, f"facts in {BRIEF}", expand=True))
    counts = facts.counts()
    console.print(
        f"{counts['verified']} verified, [bold red]{counts['mismatch']} mismatch[/], "
        f"{counts['not_found']} not found — every search and check is logged to "
        f"{project.settings.search.actions_log}"
    )


if __name__ == "__main__":
    import shutil
    import tempfile

    source = pathlib.Path(__file__).resolve().parent / "demo-project"
    with tempfile.TemporaryDirectory() as tmp:
        target = pathlib.Path(tmp) / "demo-project"
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".charter", "logs"))
        run(Console(), target)
