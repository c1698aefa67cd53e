"""Demo of the project graph (called by demo.py): the contract capsule and a task context.

Builds the graph of the demo project (Python backend, Next.js app-router front end,
docs and ADRs, the compiled rules), prints the capsule summary an agent would load once
and cache, then ranks what a front-end task needs, with the reasons for each pick.
"""

from __future__ import annotations

import pathlib

from rich.console import Console
from rich.markup import escape

from charter.cli.graph_cmds import print_capsule, print_task_context
from charter.config import Project
from charter.graph.api import build, capsule, task_context

TASK = "Show overdue invoices with the danger colour in the status badge on the detail page"


def run(console: Console, project_dir: pathlib.Path) -> None:
    project = Project.load(project_dir)
    graph = build(project)
    report = graph.report
    console.rule("[bold]Project graph and contract capsule")
    console.print(
        f"{report['snapshot_id']}: {report['files']} files, "
        + ", ".join(f"{v} {k}" for k, v in report["counts"].items())
    )
    result = capsule(project, graph)
    print_capsule(result)
    if result["summary"]["routes"] < 3 or not result["token_budget"]["within"]:
        raise RuntimeError("the demo capsule should list the app routes within its budget")
    console.print("routes: " + escape(", ".join(r["name"] for r in result["routes"])))
    console.rule("[bold]Task context")
    context = task_context(project, TASK, limit=8, graph=graph)
    print_task_context(context)
    if not any(n["path"] and "StatusBadge" in n["path"] for n in context["nodes"][:3]):
        raise RuntimeError("the status badge component should be among the top three")
