"""CLI of the search capability: ``index``, ``search``, ``facts``, ``mode``, ``mcp``, ``eval ir``.

Thin over :mod:`charter.search`: every command parses flags, calls one library function
and prints a Rich table (or ``--json``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from charter.cli.common import ProjectDir, console, emit_json, err_console, load_project
from charter.errors import CharterError


def _parse_vars(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CharterError(f"--var expects NAME=VALUE, got {item!r}")
        out[key.strip()] = value
    return out


def facts_table(report: Any, title: str, *, expand: bool = False) -> Table:
    """One row per fact: where it is, what it says, and what the SoT says."""
    table = Table(title=title, expand=expand)
    for column in ("line", "fact", "status", "canonical (SoT)", "address"):
        table.add_column(column)
    styles = {"verified": "green", "mismatch": "bold red", "not_found": "dim"}
    for fact in report.facts:
        table.add_row(
            str(fact.line),
            escape(fact.text),
            f"[{styles[fact.status]}]{fact.status}[/]",
            escape(fact.canonical or ""),
            escape((fact.address or "") + (f" · {fact.field}" if fact.field else "")),
        )
    return table


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this capability's commands to ``app`` and its ``eval`` sub-command."""
    facts_app = typer.Typer(
        help="Verify facts against the structured source of truth.", no_args_is_help=True
    )
    app.add_typer(facts_app, name="facts")

    @app.command("index")
    def index_cmd(
        paths: list[Path] = typer.Argument(None, help="files or folders (default: project)"),
        jsonl: Path | None = typer.Option(
            None, "--jsonl", help='index an exported corpus ({"_id","title","text"} per line)'
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Index docs, ADRs, code and SoT records for search (incremental)."""
        from charter.search.embedding import search_embedder
        from charter.search.indexer import Indexer, index_jsonl

        project = load_project(project_dir)
        embedder = search_embedder(project.settings)
        show = not as_json and sys.stderr.isatty()
        if jsonl is not None:
            report = index_jsonl(project, jsonl, embedder, progress=show)
        else:
            resolved = [p if p.is_absolute() else Path.cwd() / p for p in (paths or [])]
            report = Indexer(project, embedder, progress=show).run(resolved or None)
        if as_json:
            emit_json(report.as_dict())
            return
        # the chunks embedded are those of the files indexed and of those from history
        console.print(
            f"indexed [bold]{len(report.indexed)}[/bold] files and "
            f"{len(report.history)} from git history "
            f"({report.chunks_embedded} chunks embedded, {report.chunks_reused} reused), "
            f"{report.unchanged} unchanged, {len(report.deleted)} marked deleted, "
            f"in {report.seconds:.2f}s"
        )
        totals = report.totals
        if totals:
            console.print(
                f"index: {totals['documents']} documents, {totals['chunks']} chunks, "
                f"{totals['deleted_documents']} deleted documents kept for review"
            )
        if report.redacted:
            console.print(
                f"[yellow]redacted {sum(report.redacted.values())} secret(s)[/yellow] in "
                f"{len(report.redacted)} file(s) before storing them: see `charter doctor`"
            )
        if report.skipped:
            table = Table(title="skipped", show_edge=False)
            table.add_column("path")
            table.add_column("reason")
            for path, reason in skipped_rows(report.skipped):
                table.add_row(escape(path), escape(reason))
            console.print(table)
        for _path, error in report.errors:
            err_console.print(f"[yellow]warning:[/yellow] {escape(error)}", soft_wrap=True)

    @app.command("search")
    def search_cmd(
        query: str = typer.Argument(..., help="what to look for"),
        mode: str | None = typer.Option(
            None, "--mode", "-m", help="planning | execution | review (default: sho.json)"
        ),
        k_out: int | None = typer.Option(None, "--k-out", "-k", help="results to return"),
        zone: list[str] = typer.Option([], "--zone", help="also search this restricted zone"),
        var: list[str] = typer.Option([], "--var", help="NAME=VALUE for {NAME} in paths"),
        no_rerank: bool = typer.Option(False, "--no-rerank", help="skip the reranker"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Mode-aware hybrid search with citations."""
        from charter.search.engine import search_project
        from charter.search.sho import current_mode

        project = load_project(project_dir)
        chosen = mode or current_mode(
            project.state_dir,
            project.settings.search.default_mode,
            project.settings.search.modes,
        )
        response = search_project(
            project,
            query,
            mode=chosen,
            k_out=k_out,
            zones=zone,
            variables=_parse_vars(var),
            rerank=not no_rerank,
        )
        for warning in response.warnings:
            err_console.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)
        if as_json:
            emit_json(response.as_dict())
            return
        table = Table(title=escape(f"{response.mode} · {query}"), show_lines=True)
        table.add_column("#", justify="right")
        table.add_column("citation", overflow="fold", max_width=48)
        table.add_column("score", justify="right")
        table.add_column("text", overflow="fold")
        for n, result in enumerate(response.results, start=1):
            snippet = " ".join(result.text.split())
            mark = " ⛓" if result.chained_from else (" =" if result.exact else "")
            table.add_row(
                f"{n}{mark}",
                escape(result.citation),
                f"{result.score:.4f}",
                escape(snippet[:240] + ("…" if len(snippet) > 240 else "")),
            )
        console.print(table)

    @app.command("mode")
    def mode_cmd(
        mode: str | None = typer.Argument(None, help="planning | execution | review"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Show or set the session mode recorded in .charter/sho.json."""
        from charter.search.sho import current_mode, read_sho, write_mode

        project = load_project(project_dir)
        if mode is not None:
            if mode not in project.settings.search.modes:
                known = ", ".join(sorted(project.settings.search.modes))
                raise CharterError(f"unknown mode {mode!r} (known: {known})")
            data = write_mode(project.state_dir, mode)
        else:
            data = read_sho(project.state_dir)
            data["mode"] = current_mode(
                project.state_dir,
                project.settings.search.default_mode,
                project.settings.search.modes,
            )
        if as_json:
            emit_json(data)
        else:
            console.print(f"mode: [bold]{data['mode']}[/bold]")

    @facts_app.command("check")
    def facts_check(
        source: str = typer.Argument(..., help="a file to check, or - for stdin"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Check dates, IDs, numbers and money in a text against the SoT (CSV/YAML/JSON)."""
        from charter.fileio import read_text
        from charter.search.facts import check_facts

        project = load_project(project_dir)
        text = sys.stdin.read() if source == "-" else read_text(Path(source), what="file")
        report = check_facts(project, text, source=source)
        if as_json:
            emit_json(report.as_dict())
        else:
            table = facts_table(report, escape(f"facts in {source}"))
            if report.facts:
                console.print(table)
            else:
                console.print("no dates, IDs, numbers or money amounts found")
            counts = report.counts()
            console.print(
                f"{counts['verified']} verified, {counts['mismatch']} mismatch, "
                f"{counts['not_found']} not found"
            )
        for error in report.errors:
            err_console.print(f"[yellow]warning:[/yellow] {escape(error['error'])}", soft_wrap=True)
        for skip in report.skipped:
            err_console.print(f"[yellow]note:[/yellow] {escape(skip['reason'])}", soft_wrap=True)
        if report.counts()["mismatch"]:
            raise SystemExit(1)

    @facts_app.command("stale")
    def facts_stale(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """SoT files not changed for more than search.stale_days days."""
        from charter.search.facts import stale_sot

        project = load_project(project_dir)
        stale = stale_sot(project)
        if as_json:
            emit_json({"stale_days": project.settings.search.stale_days, "stale": stale})
            return
        if not stale:
            console.print(f"no SoT file older than {project.settings.search.stale_days} days")
            return
        table = Table(title=f"stale SoT (> {project.settings.search.stale_days} days)")
        table.add_column("path")
        table.add_column("age (days)", justify="right")
        for item in stale:
            table.add_row(escape(item["path"]), str(item["age_days"]))
        console.print(table)

    @app.command("mcp")
    def mcp_cmd(
        project_dir: Path | None = typer.Option(
            None, "--project", "-C", help="project root (default: $CHARTER_PROJECT, else the cwd)"
        ),
    ) -> None:
        """Run Charter's MCP server on stdio (for Claude Code, Cursor, Codex)."""
        from charter.integrations.mcp_server import serve

        # no default path here: serve(None) leaves $CHARTER_PROJECT to choose, which a
        # default of "." used to overwrite with the cwd
        if project_dir is not None and not project_dir.exists():  # a typo stops it now
            raise CharterError(f"project path not found: {project_dir}")
        serve(project_dir)

    @eval_app.command("ir")
    def eval_ir(
        data: Path = typer.Option(..., "--data", help="BEIR folder (corpus, queries, qrels)"),
        split: str = typer.Option("test", "--split", help="qrels split: test or train"),
        run_out: Path | None = typer.Option(None, "--run-out", help="write a TREC run file"),
        no_rerank: bool = typer.Option(False, "--no-rerank", help="skip the reranker"),
        limit: int = typer.Option(0, "--limit", help="only the first N queries (0 = all)"),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """nDCG@10 and recall@100 of hybrid search on a BEIR dataset."""
        from charter.eval.ir import evaluate_beir

        result = evaluate_beir(
            data,
            split=split,
            run_out=run_out,
            rerank=not no_rerank,
            limit=limit,
            progress=not as_json and sys.stderr.isatty(),
        )
        if as_json:
            emit_json(result)
            return
        table = Table(title=f"IR · {data.name} ({split})")
        table.add_column("metric")
        table.add_column("value", justify="right")
        for key in (
            "ndcg@10",
            "recall@100",
            "queries",
            "documents",
            "index_seconds",
            "query_ms_p50",
        ):
            table.add_row(key, str(result[key]))
        console.print(table)


#: Skipped files listed one by one up to this many per folder and reason; more share a row.
_FOLDER_ROWS = 2
#: Rows of the skipped table at most; ``--json`` lists every file.
_MAX_SKIPPED_ROWS = 40


def skipped_rows(skipped: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The skipped table's rows: a folder's files skipped for one reason share a row
    (``saleor/account/migrations/ (57 files)``) when there are more than two, and past
    ``_MAX_SKIPPED_ROWS`` rows one last row counts the rest. A Django app's 466
    generated migrations and 127 recorded HTTP cassettes were 600 rows on every run."""
    groups: dict[tuple[str, str], list[str]] = {}
    for path, reason in skipped:
        parent = path.rstrip("/").rpartition("/")[0] if not path.endswith("/") else ""
        groups.setdefault((parent, reason), []).append(path)
    rows: list[tuple[str, str]] = []
    for (parent, reason), paths in groups.items():
        if len(paths) > _FOLDER_ROWS and parent:
            rows.append((f"{parent}/ ({len(paths)} files)", reason))
        else:
            rows.extend((path, reason) for path in paths)
    if len(rows) > _MAX_SKIPPED_ROWS:
        rest = sum(
            int(path.rsplit("(", 1)[1].split()[0]) if path.endswith(" files)") else 1
            for path, _ in rows[_MAX_SKIPPED_ROWS - 1 :]
        )
        rows = [*rows[: _MAX_SKIPPED_ROWS - 1], (f"… {rest} more files", "`--json` lists each")]
    return rows
