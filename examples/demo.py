"""Charter end to end on a realistic repository (``make demo``).

The demo copies ``examples/demo-project`` (Ledgerly, a small SaaS invoicing app) to a
temporary directory, so running it never touches the repository, and then shows what
Charter does with the team's rule files: the compiled constitution, the rules retrieved
for three different tasks, the Claude Code ``UserPromptSubmit`` hook's answer, and the
contradiction ``charter lint`` finds. The search and decisions demos run afterwards when
their scripts are present. Any failure exits non-zero.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from charter.cli.rules_cmds import _rule_table
from charter.config import Project
from charter.rules.api import compile_project, retriever_for
from charter.rules.compiler import CompiledRules
from charter.rules.lint import lint_rules

EXAMPLES = Path(__file__).resolve().parent
SOURCE = EXAMPLES / "demo-project"

#: (task, files it touches) — files let repo-scoped rules (nested AGENTS.md, Cursor globs) in.
TASKS: list[tuple[str, list[str]]] = [
    ("Add an endpoint to export invoices as CSV", ["backend/app/invoices.py"]),
    ("Fix the flaky test in test_invoices.py", ["backend/tests/test_invoices.py"]),
    ("Speed up the invoice list page in the web app", ["web/src/InvoiceList.tsx"]),
]
HOOK_PROMPT = "Add a database migration for a new credit_notes table"
#: Keep the hook from starting a warm worker that would outlive the temporary copy.
DEMO_CONFIG = "[hooks]\nwarm_worker = false\n"


class DemoError(Exception):
    """A step of the demo did not do what it should."""


def prepare_copy(target: Path) -> None:
    """A fresh copy of the demo project, as its own git repository."""
    if not SOURCE.is_dir():
        raise DemoError(f"demo project not found at {SOURCE}")
    shutil.copytree(
        SOURCE, target, ignore=shutil.ignore_patterns(".charter", "__pycache__", "node_modules")
    )
    (target / "charter.toml").write_text(DEMO_CONFIG, encoding="utf-8")
    subprocess.run(["git", "init", "--quiet", str(target)], check=True)


def section(console: Console, title: str) -> None:
    console.print()
    console.rule(f"[bold]{title}[/bold]")


def show_compile(console: Console, project: Project) -> CompiledRules:
    section(console, "1. Compile the rule files")
    started = time.perf_counter()
    compiled = compile_project(project)
    elapsed = time.perf_counter() - started
    report = compiled.report
    if report.errors:
        raise DemoError("compile errors: " + "; ".join(report.errors))

    per_file: dict[str, int] = {}
    for rule in compiled.rules:
        per_file[rule.source.path] = per_file.get(rule.source.path, 0) + 1
    files = Table(title="Rule files found", expand=False)
    for col in ("file", "kind", "rules", "tokens"):
        files.add_column(col, justify="right" if col in ("rules", "tokens") else "left")
    for src in compiled.sources:
        files.add_row(
            src["path"], src["kind"], str(per_file.get(src["path"], 0)), str(src["tokens"])
        )
    console.print(files)

    c = compiled.constitution
    by_id = compiled.by_id()
    rows = [by_id[i].to_dict() for i in c.rule_ids]
    console.print(_rule_table(f"Constitution — always loaded (hash {c.hash})", rows))
    console.print(
        f"[bold]{len(compiled.rules)}[/bold] rules from {len(report.sources)} file(s) in "
        f"{elapsed:.1f}s; {report.embedded} embedded, {report.reused} reused ({compiled.model}).\n"
        f"Constitution: [bold]{len(c.rule_ids)}[/bold] rule(s), "
        f"{'[red]truncated[/red]' if c.truncated else 'within its line cap'}; "
        f"all rule files together are {compiled.source_tokens} tokens."
    )
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    return compiled


def show_retrieval(console: Console, project: Project, compiled: CompiledRules) -> None:
    section(console, "2. Rules retrieved per task")
    retriever = retriever_for(project)
    whole = compiled.source_tokens
    for task, files in TASKS:
        started = time.perf_counter()
        result = retriever.retrieve(task, files).to_dict()
        elapsed_ms = (time.perf_counter() - started) * 1000
        if not result["shards"]:
            raise DemoError(f"no rules retrieved for {task!r}")
        intent = result["intent"]
        console.print()
        console.print(
            f"[bold]Task:[/bold] {task}\n[bold]Files:[/bold] {', '.join(files)}\n"
            f"[bold]Intent:[/bold] {intent['name']} ({intent['confidence']:.2f})   "
            f"[bold]Tokens:[/bold] {result['tokens']} (constitution + {len(result['shards'])} "
            f"rules; {result['tokens'] / whole:.0%} of loading every rule file)   "
            f"[dim]{elapsed_ms:.0f} ms[/dim]"
        )
        console.print(_rule_table("Rules for this task", result["shards"], with_score=True))
        for drop in result["dropped"]:
            console.print(f"[yellow]dropped[/yellow] {drop['rule_id']}: {drop['reason']}")


def show_hook(console: Console, project_dir: Path) -> None:
    section(console, "3. Claude Code UserPromptSubmit hook")
    charter = Path(sys.executable).parent / "charter"
    if not charter.is_file():
        raise DemoError(f"charter executable not found next to {sys.executable}")
    session_id = "6f1c2a9e-4b7d-4e53-9a0c-2d8e5f7b1c34"
    slug = str(project_dir).replace("/", "-").replace(".", "-")  # how Claude Code names it
    payload = {
        "session_id": session_id,
        "transcript_path": str(Path.home() / ".claude" / "projects" / slug / f"{session_id}.jsonl"),
        "cwd": str(project_dir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": HOOK_PROMPT,
    }
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    console.print("[bold]$[/bold] charter hook user-prompt-submit  [dim]< stdin:[/dim]")
    console.print(Syntax(json.dumps(payload, indent=2), "json", word_wrap=True))
    started = time.perf_counter()
    proc = subprocess.run(
        [str(charter), "hook", "user-prompt-submit"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project_dir,
        env=env,
        timeout=120,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or not proc.stdout.strip():
        raise DemoError(
            f"hook exited {proc.returncode} with no context; stderr: {proc.stderr.strip()}"
        )
    try:
        output: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise DemoError(f"hook printed invalid JSON: {exc}: {proc.stdout[:200]!r}") from None
    context = output.get("hookSpecificOutput", {}).get("additionalContext", "")
    if not context:
        raise DemoError(f"hook output has no additionalContext: {output}")
    console.print(f"[bold]stdout[/bold] [dim](cold process, {elapsed:.1f}s):[/dim]")
    console.print(Syntax(json.dumps(output, indent=2, ensure_ascii=False), "json", word_wrap=True))
    console.print("[bold]additionalContext as the agent sees it:[/bold]")
    console.print(context, markup=False)


def show_lint(console: Console, compiled: CompiledRules) -> None:
    section(console, "4. charter lint")
    issues = lint_rules(compiled)
    if not issues:
        raise DemoError("lint found nothing, but the demo CLAUDE.md has a contradiction")
    table = Table(title=f"{len(issues)} problem(s)")
    for col in ("location", "kind", "severity", "message"):
        table.add_column(col, overflow="fold")
    for issue in issues:
        style = "red" if issue.severity == "error" else "yellow"
        table.add_row(issue.location, issue.kind, f"[{style}]{issue.severity}[/]", issue.message)
    console.print(table)
    if not any(i.kind == "contradiction" for i in issues):
        raise DemoError("lint did not report the f-string contradiction")
    console.print(
        "[dim]At retrieval time the higher-priority rule wins and the other is dropped.[/dim]"
    )


def run_optional(name: str, console: Console, project_dir: Path) -> None:
    """``examples/<name>.py``'s ``run(console, project_dir)``, if that script exists."""
    path = EXAMPLES / f"{name}.py"
    if not path.is_file():
        return
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise DemoError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    module.run(console, project_dir)


def main() -> int:
    # a pipe gets 80 columns by default, too narrow for the rule tables
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    with tempfile.TemporaryDirectory(prefix="charter-demo-") as tmp:
        project_dir = Path(tmp) / "ledgerly"
        try:
            prepare_copy(project_dir)
            console.print(
                "[bold]Charter demo[/bold] on Ledgerly, a small SaaS invoicing app "
                "(FastAPI backend, React web app)\n"
                f"[dim]working on a temporary copy: {project_dir}[/dim]"
            )
            project = Project.load(project_dir)
            compiled = show_compile(console, project)
            show_retrieval(console, project, compiled)
            show_hook(console, project_dir)
            show_lint(console, compiled)
        except DemoError as exc:
            console.print(f"[red]demo failed:[/red] {exc}")
            return 1
        run_optional("demo_search", console, project_dir)
        run_optional("demo_decisions", console, project_dir)
        run_optional("demo_session", console, project_dir)
        run_optional("demo_graph", console, project_dir)
    console.print()
    console.rule("[green]demo complete[/green]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
