"""CLI of the project graph: graph build, capsule, task-context, eval localize."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from charter.cli.common import ProjectDir, console, emit_json, err_console, load_project
from charter.graph.text import surface_forms

_NOTES_SHOWN = 10  # notes other than binary files listed by `charter graph build`
_IMPACT_SHOWN = 8  # node ids per row of `charter graph impact` (--json has them all)


def _where(node: dict[str, Any]) -> str:
    where = str(node.get("path") or "")
    if node.get("line_start"):
        where += f":{node['line_start']}-{node['line_end']}"
    return where


def _graph_query(
    project_dir: Path, as_json: bool, call: Callable[[Any], dict[str, Any]]
) -> dict[str, Any] | None:
    """A graph query's result for the terminal, or None once ``--json`` printed it; a
    user error (an unknown node, an ambiguous name) is one line, exit 1."""
    from charter.errors import CharterError

    project = load_project(project_dir)
    try:
        result = call(project)
    except CharterError as exc:
        err_console.print(f"charter: {exc}", markup=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if as_json:
        emit_json(result)
        return None
    return result


def print_task_context(result: dict[str, Any]) -> None:
    console.print(
        f"[bold]Task:[/bold] {escape(result['task'])}\n"
        f"[bold]Snapshot:[/bold] {result['snapshot_id']}"
        f"   [bold]Capsule:[/bold] {result['cache_key']}"
    )
    # a path cut to "web/app/invoi…" is no use to open: paths fold onto a second line
    # instead, and the node's kind and name stand in for its id (`--json` keeps the id)
    table = Table(title="Task context", expand=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("where", style="cyan", ratio=3, overflow="fold")
    table.add_column("what", ratio=2, overflow="fold")
    table.add_column("why", style="dim", ratio=3)
    shown = surface_forms(result["task"])  # the task's own words, not the index's stems
    for node in result["nodes"]:
        where = node["path"] or node["id"]
        if node["line_start"]:
            where += f":{node['line_start']}-{node['line_end']}"
        what = (
            node["type"] if node["name"] == Path(where).name else f"{node['type']} {node['name']}"
        )
        why = "; ".join(node["reasons"])
        if node["matched_terms"]:
            words = [shown.get(term, term) for term in node["matched_terms"][:6]]
            why += f" [{', '.join(words)}]"
        table.add_row(f"{node['score']:.3f}", escape(where), escape(what), escape(why))
    console.print(table)


def print_capsule(capsule: dict[str, Any]) -> None:
    console.print(
        f"[bold]Snapshot:[/bold] {capsule['snapshot_id']}   "
        f"[bold]cache key:[/bold] {capsule['cache_key']}"
    )
    table = Table(title="Contract capsule", show_header=True)
    table.add_column("part")
    table.add_column("count", justify="right")
    for key, value in capsule["summary"].items():
        table.add_row(key, str(value))
    console.print(table)
    budget = capsule["token_budget"]
    console.print(
        f"tokens {budget['tokens']} / {budget['limit']}"
        + ("" if budget["within"] else " [red](over budget)[/red]")
        + (
            "   [yellow]source artifacts truncated[/yellow]"
            if capsule["source_artifacts_truncated"]
            else ""
        )
    )


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    graph_app = typer.Typer(help="The project graph (seed 001).", no_args_is_help=True)
    app.add_typer(graph_app, name="graph")

    @graph_app.command("build")
    def graph_build(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable report"),
    ) -> None:
        """Build or update .charter/graph/snapshot.json (only changed files re-parsed)."""
        from charter.graph.api import build

        project = load_project(project_dir)
        with err_console.status("building the graph…"):
            graph = build(project)
        report = graph.report
        if as_json:
            emit_json(report)
            return
        counts = ", ".join(f"{v} {k}" for k, v in report["counts"].items()) or "no files"
        console.print(
            f"{report['snapshot_id']}: {counts} ({report['parsed']} parsed, "
            f"{report['reused']} unchanged, {report['seconds']} s)"
        )
        # a fuzz corpus or an image folder is thousands of binary notes: one count for
        # those, the others listed up to a bound (--json has every note)
        binary = [n for n in report["notes"] if n["note"].startswith("binary:")]
        others = [n for n in report["notes"] if not n["note"].startswith("binary:")]
        if binary:
            console.print(f"[yellow]note[/yellow] {len(binary)} binary files: file level only")
        for note in others[:_NOTES_SHOWN]:
            console.print(f"[yellow]note[/yellow] {escape(note['path'])}: {escape(note['note'])}")
        if len(others) > _NOTES_SHOWN:
            more = len(others) - _NOTES_SHOWN
            console.print(f"[yellow]note[/yellow] … {more} more notes (--json lists them all)")

    @graph_app.command("status")
    def graph_status(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable status"),
    ) -> None:
        """Snapshot id, capsule cache key and counts, bringing the graph up to date."""
        from charter.graph.tools import get_project_state

        with err_console.status("reading the graph…"):
            state = _graph_query(project_dir, as_json, get_project_state)
        if state is None:
            return
        counts = ", ".join(f"{v} {k}" for k, v in state["counts"].items()) or "no files"
        said = {"built": "built now", "current": "current", "updated": "updated now"}
        console.print(
            f"[bold]{state['snapshot_id']}[/bold] ({said[state['graph']]}, "
            f"{state['reparsed_files']} files parsed): {counts}\n"
            f"capsule cache key {state['cache_key']}; "
            f"{state['open_findings']} open findings"
        )

    @graph_app.command("find")
    def graph_find(
        text: str = typer.Argument(..., help="a name or part of a path"),
        kind: str = typer.Option(None, "--type", help="only nodes of this type (symbol, …)"),
        limit: int = typer.Option(20, "--limit", help="nodes listed"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable result"),
    ) -> None:
        """Find nodes by name or path, exact names first: the ids to show or ask about."""
        from charter.graph.tools import find_nodes

        result = _graph_query(
            project_dir, as_json, lambda p: find_nodes(p, text, kind=kind, limit=limit)
        )
        if result is None:
            return
        if not result["nodes"]:
            console.print(f"no node's name or path holds {escape(text)!r}")
            raise typer.Exit(1)
        table = Table(title=f"{result['total']} nodes", show_edge=False)
        # the id holds the path already: the row adds the kind and the lines
        table.add_column("id", style="cyan", overflow="fold")
        table.add_column("type", no_wrap=True)
        table.add_column("lines", justify="right", no_wrap=True)
        for node in result["nodes"]:
            lines = f"{node['line_start']}-{node['line_end']}" if node.get("line_start") else ""
            table.add_row(escape(node["id"]), node["type"], lines)
        console.print(table)
        if result["truncated"]:
            console.print(f"… {result['total'] - limit} more (--limit)")

    @graph_app.command("show")
    def graph_show(
        ref: str = typer.Argument(..., help="a node id, a file path or a unique name"),
        relation: str = typer.Option(None, "--relation", help="only edges of this relation"),
        limit: int = typer.Option(50, "--limit", help="edges listed"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable result"),
    ) -> None:
        """One node and its edges, grouped by relation and direction."""
        from charter.graph.tools import neighbors

        result = _graph_query(
            project_dir, as_json, lambda p: neighbors(p, ref, relation=relation, limit=limit)
        )
        if result is None:
            return
        node = result["node"]
        console.print(f"[bold cyan]{escape(node['id'])}[/bold cyan]  {node['type']}")
        if node.get("path"):
            console.print(f"  {escape(_where(node))}")
        for key, value in node.get("attrs", {}).items():
            if key != "sha256":
                console.print(f"  {key}: {escape(str(value))}")
        groups: dict[str, list[str]] = {}
        for edge in result["edges"]:
            if edge["source"] == node["id"]:
                groups.setdefault(f"{edge['relation']} →", []).append(edge["target"])
            else:
                groups.setdefault(f"← {edge['relation']}", []).append(edge["source"])
        if not groups:
            console.print("no edges" + (f" of relation {relation}" if relation else ""))
        for label in sorted(groups):
            console.print(f"[bold]{label}[/bold] ({len(groups[label])})")
            for other in groups[label]:
                console.print(f"  {escape(other)}")
        if result["truncated"]:
            console.print(f"… more edges than {limit} (--limit, --relation)")

    @graph_app.command("impact")
    def graph_impact(
        ref: str = typer.Argument(..., help="a file path (or a node in it)"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable result"),
    ) -> None:
        """What a change to a file touches: importers, callers, tests, rules, docs."""
        from charter.graph.tools import impact_of

        result = _graph_query(project_dir, as_json, lambda p: impact_of(p, ref))
        if result is None:
            return
        console.print(f"[bold]Impact of a change to {escape(result['path'])}[/bold]")
        table = Table(show_header=True, show_edge=False)
        table.add_column("what")
        table.add_column("count", justify="right")
        table.add_column("nodes", overflow="fold")
        for key in ("imported_by", "callers", "tests", "rules", "documents", "findings"):
            ids = result[key]
            shown = ", ".join(ids[:_IMPACT_SHOWN]) + (" …" if len(ids) > _IMPACT_SHOWN else "")
            table.add_row(key.replace("_", " "), str(len(ids)), escape(shown))
        console.print(table)
        console.print(
            f"{len(result['symbols'])} symbols defined; "
            f"{result['unscoped_rules']} project-wide rules and "
            f"{len(result['decisions'])} decisions hold for every file (--json lists them)"
        )

    @app.command("capsule")
    def capsule_cmd(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="the whole capsule as JSON"),
    ) -> None:
        """The contract capsule: stable authority an agent loads once and caches."""
        from charter.graph.tools import get_contract_capsule

        project = load_project(project_dir)
        result = get_contract_capsule(project)
        if as_json:
            emit_json(result)
        else:
            print_capsule(result)

    @app.command("task-context")
    def task_context_cmd(
        task: str = typer.Argument(..., help="the task, issue text or stack trace"),
        files: list[str] = typer.Option(None, "--file", help="a file the task touches"),
        limit: int = typer.Option(None, "--limit", help="nodes returned"),
        depth: int = typer.Option(
            None, "--depth", help="hops from the task's seeds (0 = seeds only)"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable result"),
    ) -> None:
        """Rank the files, symbols, rules and documents a task needs (builds the graph)."""
        from charter.graph.api import task_context

        project = load_project(project_dir)
        from charter.boundary import is_within

        root = project.root.resolve()
        for name in files or []:
            path = (project.root / name).resolve()
            if not is_within(path, root) or not path.is_file():
                err_console.print(
                    f"charter: --file {name}: not a file of the project; ranked without it",
                    markup=False,
                    soft_wrap=True,
                )
        result = task_context(project, task, list(files or []), limit=limit, depth=depth)
        if as_json:
            emit_json(result)
        else:
            print_task_context(result)

    @eval_app.command("localize")
    def eval_localize(
        data: Path = typer.Option(..., "--data", help="dir with tasks.jsonl"),
        mirrors: Path = typer.Option(..., "--mirrors", help="dir of <owner>+<name>/repo mirrors"),
        tmp: Path = typer.Option(None, "--tmp", help="where checkouts go (e.g. /dev/shm)"),
        as_json: bool = typer.Option(False, "--json", help="machine-readable report"),
    ) -> None:
        """File localization, each task cold, Charter beside BM25 over files."""
        from charter.eval.localize import evaluate

        report = evaluate(data, mirrors, tmp=tmp, progress=lambda m: err_console.print(m))
        if as_json:
            emit_json(report)
            return
        table = Table(title="File localization")
        table.add_column("repo")
        table.add_column("n", justify="right")
        for name in ("Acc@1", "Acc@5", "Acc@10", "R@10", "MRR"):
            table.add_column(f"{name} charter / bm25", justify="right")
        rows = [("overall", report["overall"]), *report["per_repo"].items()]
        for repo, block in rows:
            cells = [
                f"{block['charter'][k]:.3f} / {block['bm25'][k]:.3f}"
                for k in ("acc@1", "acc@5", "acc@10", "recall@10", "mrr")
            ]
            table.add_row(repo, str(block["tasks"]), *cells)
        console.print(table)
        console.print(f"seconds per task p50 {report['seconds_p50']} max {report['seconds_max']}")
        for error in report["errors"]:
            console.print(f"[red]miss[/red] {error['id']}: {error['error']}")
