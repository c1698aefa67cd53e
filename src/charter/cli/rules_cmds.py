"""CLI commands of the rules engine: compile, context, lint, eval rules."""

from __future__ import annotations

import contextlib
import posixpath
import sys
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from charter.cli.common import ProjectDir, console, emit_json, emit_jsonl, err_console, load_project
from charter.errors import CharterError
from charter.fileio import iter_jsonl
from charter.rules.annotate import TOOL_CLASSES
from charter.rules.model import RISK_LEVELS

#: Forbidden commands and files `charter compile` names (``--json`` lists all).
MAX_COMMANDS_SHOWN = 5


def _rule_table(title: str, rows: list[dict[str, Any]], with_score: bool = False) -> Table:
    table = Table(title=title, show_lines=False, expand=True)
    table.add_column("id", style="cyan", no_wrap=True)
    if with_score:
        table.add_column("score", justify="right", no_wrap=True)
    # the rule is what the reader came for: a long source path (a nested AGENTS.md in a
    # monorepo) folds onto more lines rather than squeezing the rule out of the table
    table.add_column("rule", ratio=3, min_width=24)
    table.add_column("source", style="dim", ratio=2, overflow="fold")
    for row in rows:
        rule = row.get("rule", row)
        src = rule["source"]
        cells = [escape(rule["id"])]
        if with_score:
            cells.append(f"{row['score']:.3f}")
        cells += [
            escape(rule["text"]),
            escape(f"{src['path']}:L{src['line_start']}-L{src['line_end']}"),
        ]
        table.add_row(*cells)
    return table


def print_context(result: dict[str, Any]) -> None:
    intent = result["intent"]
    console.print(
        f"[bold]Task:[/bold] {result['task']}\n[bold]Intent:[/bold] {intent['name']} "
        f"({intent['confidence']:.2f})   [bold]Tokens:[/bold] {result['tokens']}"
    )
    console.print(_rule_table("Rules for this task", result["shards"], with_score=True))
    for drop in result["dropped"]:
        console.print(
            f"[yellow]dropped[/yellow] {escape(drop['rule_id'])}: {escape(drop['reason'])}"
        )


def _under(path: str, folder: str) -> bool:
    """Whether a project-relative rule file is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder + "/")


def _source_filter(root: Path, raw: str) -> str:
    """A ``--source`` as the compiled rules cite their files: project-relative, without
    ``./``, and a symlinked rule file as its target (a ``GEMINI.md`` linked to
    ``CLAUDE.md`` is read once, under ``CLAUDE.md``); "" for the project itself."""
    name = posixpath.normpath(raw.strip().replace("\\", "/"))
    path = root / name
    # a path outside the project stays as written: no rule file cites it
    with contextlib.suppress(OSError, ValueError):
        if path.exists():
            name = path.resolve().relative_to(root.resolve()).as_posix()
    return "" if name == "." else name.strip("/")


def _record_lint_findings(project: Any, issues: list[Any]) -> None:
    """Lint problems go into the project state, anchored to the rule's file and line, so
    the graph and the capsule's open findings see them."""
    from charter.graph.findings import record_findings

    entries = []
    for issue in issues:
        path, _, line = issue.location.rpartition(":")
        entry: dict[str, Any] = {
            "title": f"rules lint ({issue.kind}): {issue.message}",
            "source": "lint",
            "rule": issue.kind,
            "severity": "blocking" if issue.severity == "error" else "warning",
        }
        if path and line.isdigit():
            entry.update({"path": path, "line_start": int(line), "line_end": int(line)})
        entries.append(entry)
    record_findings(project, entries)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    @app.command("compile")
    def compile_cmd(
        paths: list[Path] = typer.Argument(None, help="rule files (default: discover)"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable summary"),
    ) -> None:
        """Compile rule files into the constitution and retrievable shards."""
        project = load_project(project_dir)
        from charter.embed.registry import preload_rules_embedder

        # the model's session is built while the rules engine is imported and the files
        # are parsed, so the compile embeds its first rules as soon as they are read
        preload_rules_embedder(project.settings)
        from charter.rules.api import compile_project

        named = [p if p.is_absolute() else Path.cwd() / p for p in paths] if paths else None
        with err_console.status("compiling rules…"):
            compiled = compile_project(project, named)
        report = compiled.report
        guard = project.settings.session.guardrails
        prohibited = compiled.prohibitions()
        commands = prohibited.commands if guard.rule_commands != "off" else []
        edits = prohibited.edits if guard.rule_edits != "off" else []
        summary = {
            "sources": report.sources,
            "rules": len(compiled.rules),
            "constitution": {
                "hash": compiled.constitution.hash,
                "rules": len(compiled.constitution.rule_ids),
                "truncated": compiled.constitution.truncated,
                "overflow": len(compiled.constitution.overflow_ids),
            },
            "embedded": report.embedded,
            "reused": report.reused,
            "model": compiled.model,
            "errors": report.errors,
            "warnings": report.warnings,
            "restated": [
                {"rule": kept.cite(), "copy": copy.cite()} for kept, copy in report.restated
            ],
            # decision: what the guardrail does; "ask" for what waits for the user's say-so
            "forbidden_commands": [
                {
                    "command": c.command,
                    "rule": c.cite,
                    "scopes": list(c.scopes),
                    "decision": "ask" if c.consent else guard.rule_commands,
                }
                for c in commands
            ],
            "forbidden_edits": [
                {
                    "path": e.path,
                    "rule": e.cite,
                    "decision": "ask" if e.consent else guard.rule_edits,
                }
                for e in edits
            ],
        }
        if as_json:
            emit_json(summary)
        else:
            by_id = compiled.by_id()
            rows = [by_id[i].to_dict() for i in compiled.constitution.rule_ids]
            if not report.sources:
                from charter.rules.sources import SOURCE_PATTERNS

                looked = ", ".join(dict.fromkeys(g for _, g in SOURCE_PATTERNS))
                console.print(
                    f"No rule files found under {project.root} (looked for {looked}; "
                    "more with rules.sources)."
                )
            elif rows:
                console.print(_rule_table(f"Constitution ({compiled.constitution.hash})", rows))
            else:
                console.print(
                    "Constitution: empty. No rule sits under a safety / always / never "
                    "heading (rules.constitution_markers) or in an always-applied rule "
                    "file, so every rule is retrieved per task."
                )
            console.print(
                f"{len(compiled.rules)} rules from {len(report.sources)} file(s); "
                f"{report.embedded} embedded, {report.reused} reused ({compiled.model})"
            )
            if named:
                console.print(
                    "Only the named file(s) are compiled, now and on every recompile by the "
                    "hooks; `charter compile` with no file compiles every rule file again."
                )
            if report.restated:
                console.print(
                    f"{len(report.restated)} rule(s) stated word for word in more than one "
                    f"file were compiled once (e.g. {report.restated[0][1].cite()} = "
                    f"{report.restated[0][0].cite()}; --json lists them)."
                )
            for what, key, pairs in (
                (
                    "command(s) the rules forbid",
                    "rule_commands",
                    [(c.shown, c.cite) for c in commands if not c.consent],
                ),
                (
                    "command(s) the rules allow only when the user asks",
                    "",
                    [(c.shown, c.cite) for c in commands if c.consent],
                ),
                (
                    "file(s) the rules forbid editing",
                    "rule_edits",
                    [(f"`{e.path}`", e.cite) for e in edits if not e.consent],
                ),
                (
                    "file(s) the rules allow editing only when the user asks",
                    "",
                    [(f"`{e.path}`", e.cite) for e in edits if e.consent],
                ),
            ):
                if not pairs:
                    continue
                cites: dict[str, list[str]] = {}  # one entry per thing, with all its rules
                for x, cite in pairs:
                    cites.setdefault(x, []).append(cite)
                shown = ", ".join(
                    f"{x} ({', '.join(c)})" for x, c in list(cites.items())[:MAX_COMMANDS_SHOWN]
                )
                more = len(cites) - MAX_COMMANDS_SHOWN
                verb = "denied" if key and getattr(guard, key) == "deny" else "put to the user"
                setting = f" (session.guardrails.{key})" if key else ""
                console.print(
                    f"{len(cites)} {what}: {verb} before they happen{setting}: {escape(shown)}"
                    + (f" and {more} more (--json lists them)" if more > 0 else "")
                )
            for warning in report.warnings:
                err_console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
        for error in report.errors:
            print(f"charter: error: {error}", file=sys.stderr)
        if report.errors:
            raise SystemExit(1)

    @app.command("context")
    def context_cmd(
        task: str = typer.Argument(None, help="what the agent is about to do"),
        files: list[str] = typer.Option(None, "--file", "-f", help="files the task touches"),
        top: int = typer.Option(None, "--top", min=1, help="return exactly the top N shards"),
        budget: int = typer.Option(None, "--budget", min=1, help="token budget for shards"),
        risk: list[str] = typer.Option(
            None, "--risk", help="only rules of these risk classes (repeatable)"
        ),
        tool: str = typer.Option(None, "--tool", help="tool class in use (e.g. bash, edit)"),
        batch: Path = typer.Option(None, "--batch", help="JSONL of {task, id?, files?}"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
    ) -> None:
        """Rules to inject for a task: constitution plus the best shards, cited."""
        from charter.rules.api import retriever_for

        project = load_project(project_dir)
        if batch is None and not task:
            raise CharterError("give a TASK or --batch FILE")
        risks = [r.lower() for r in risk] if risk else None
        if risks and not set(risks) <= set(RISK_LEVELS):
            raise CharterError(f"--risk must be one of {', '.join(RISK_LEVELS)}")
        if tool is not None:
            # rules carry lower-case classes ([bash]); `--tool Bash` or a typo matched none
            # of them and silently dropped every rule tagged for a tool
            tool = tool.lower()
            if tool not in TOOL_CLASSES:
                raise CharterError(f"--tool must be one of {', '.join(TOOL_CLASSES)}")
        retriever = retriever_for(project, check_new=True)
        for note in retriever.compiled.report.errors:  # a compile on demand: files skipped
            print(f"charter: note: {note}", file=sys.stderr)
        if batch is not None:
            for number, item in iter_jsonl(batch, what="batch file"):
                if not isinstance(item.get("task"), str):
                    raise CharterError(f"{batch}:{number}: expected an object with a 'task' string")
                item_files = item.get("files") or []
                if not isinstance(item_files, list):
                    raise CharterError(f"{batch}:{number}: 'files' must be a list")
                result = retriever.retrieve(
                    item["task"],
                    [str(f) for f in item_files],
                    top=top,
                    budget=budget,
                    risk=risks,
                    tool=tool,
                ).to_dict()
                if "id" in item:
                    result["id"] = item["id"]
                if as_json:
                    emit_jsonl(result)
                else:
                    print_context(result)
            return
        result = retriever.retrieve(
            task, list(files or []), top=top, budget=budget, risk=risks, tool=tool
        ).to_dict()
        if as_json:
            emit_json(result)
        else:
            print_context(result)
            console.rule("policy text")
            console.print(result["policy_text"], markup=False)

    @app.command("rules")
    def rules_cmd(
        source: list[str] = typer.Option(
            None, "--source", "-s", help="only rules of this rule file or folder (repeatable)"
        ),
        grep: str = typer.Option(
            None, "--grep", help="only rules whose text contains TEXT (any case)"
        ),
        constitution: bool = typer.Option(
            False, "--constitution", help="only the always-loaded constitution"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
    ) -> None:
        """List the compiled rules, cited: what Charter read from the rule files."""
        from charter.rules.api import compiled_rules
        from charter.rules.compiler import manual_paths

        project = load_project(project_dir)
        compiled = compiled_rules(project)
        asked_for = set(manual_paths(compiled.sources))
        for note in compiled.report.errors:
            print(f"charter: note: {note}", file=sys.stderr)
        named = [_source_filter(project.root, s) for s in source or [] if s.strip()]
        folders = [f for f in named if f]
        needle = (grep or "").casefold()
        chosen = [
            rule
            for rule in compiled.rules
            if (not folders or any(_under(rule.source.path, f) for f in folders))
            and (not needle or needle in rule.text.casefold())
            and (rule.constitution or not constitution)
        ]
        if as_json:
            emit_json(
                {
                    "rules": [rule.to_dict() for rule in chosen],
                    "total": len(compiled.rules),
                    "files": len(compiled.sources),
                }
            )
            return
        table = Table(show_lines=False, expand=True)
        table.add_column("id", style="cyan", no_wrap=True)
        table.add_column("applies", ratio=1, min_width=8, overflow="fold")
        table.add_column("rule", ratio=3, min_width=24)
        table.add_column("source", style="dim", ratio=2, overflow="fold")
        for rule in chosen:
            src = rule.source
            where = (
                "always"
                if rule.constitution
                else "when asked for"
                if src.path in asked_for
                else ", ".join(rule.scopes) or "by task"
            )
            table.add_row(
                escape(rule.id),
                escape(where),
                escape(rule.text),
                escape(src.cite()),
            )
        if chosen:
            console.print(table)
        always = sum(1 for rule in chosen if rule.constitution)
        console.print(
            f"{len(chosen)} of {len(compiled.rules)} rules from {len(compiled.sources)} "
            f"file(s); {always} always loaded (the constitution), the rest retrieved per task"
        )

    @app.command("lint")
    def lint_cmd(
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
    ) -> None:
        """Report contradictions, duplicates, constitution overflow and unparseable files."""
        from charter.rules.lint import lint_project

        project = load_project(project_dir)
        issues = lint_project(project)
        if issues:
            _record_lint_findings(project, issues)
        if as_json:
            emit_json({"issues": [i.to_dict() for i in issues]})
        elif not issues:
            console.print("[green]no problems found[/green]")
        else:
            table = Table(title=f"{len(issues)} problem(s)")
            for col in ("location", "kind", "severity", "message"):
                table.add_column(col, overflow="fold")
            for issue in issues:
                style = "red" if issue.severity == "error" else "yellow"
                table.add_row(
                    escape(issue.location),
                    issue.kind,
                    f"[{style}]{issue.severity}[/]",
                    escape(issue.message),
                )
            console.print(table)
        if any(i.severity == "error" for i in issues):
            raise SystemExit(1)

    @eval_app.command("rules")
    def eval_rules_cmd(
        data: Path = typer.Option(..., "--data", help="benchmark dir with tasks.jsonl"),
        as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
        project_dir: Path = typer.Option(Path("."), "--project", "-C", help="settings from here"),
    ) -> None:
        """Recall of gold rules and injected-token ratio on a labelled rules benchmark."""
        from charter.eval.rules_bench import evaluate_rules

        settings = load_project(project_dir).settings
        with err_console.status("evaluating…") as status:
            result = evaluate_rules(data, settings, lambda f: status.update(f"evaluating {f}"))
        if as_json:
            emit_json(result)
            return
        table = Table(
            title="Rules retrieval benchmark",
            caption="recall: gold rules covered by constitution or shards; shards: by shards "
            "only; tokens: policy tokens / whole file (mean, max; --json for p95); always: share "
            "of always.json's rules the constitution holds; moments: with what a commit, a push, "
            "a pull request and the first source file hand over besides",
        )
        table.add_column("file", overflow="fold", min_width=16)
        for col in (
            "tasks",
            "recall",
            "shards",
            "tokens",
            "max",
            "always",
            "moments",
        ):
            table.add_column(col, justify="right", no_wrap=True, min_width=len(col))
        worst = result["worst_file"]
        for name, row in result["files"].items():
            table.add_row(
                f"[bold red]{name}[/bold red] (worst)" if name == worst else name,
                str(row["tasks"]),
                "-" if row["recall"] is None else f"{row['recall']:.3f}",
                "-" if row["shard_recall"] is None else f"{row['shard_recall']:.3f}",
                f"{row['token_ratio']:.3f}",
                f"{row['token_ratio_max']:.3f}",
                _share(row.get("always_coverage")),
                _share(row.get("moment_coverage")),
            )
        o = result["overall"]
        table.add_row(
            "[bold]overall[/bold]",
            str(o["tasks"]),
            f"[bold]{o['recall']:.3f}[/bold]",
            f"{o['shard_recall']:.3f}",
            f"[bold]{o['token_ratio']:.3f}[/bold]",
            f"{o['token_ratio_max']:.3f}",
            _share(o.get("always_coverage")),
            _share(o.get("moment_coverage")),
        )
        console.print(table)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
