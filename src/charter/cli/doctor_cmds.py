"""``charter doctor``: run the health checks of :mod:`charter.doctor` and print them."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from charter.cli.common import ProjectDir, console, emit_json, load_project, not_a_project
from charter.config import Project
from charter.errors import CharterError
from charter.paths import find_root

_STYLE = {"ok": "green", "info": "cyan", "warn": "yellow", "fail": "bold red"}


def _project(project_dir: Path) -> tuple[Project, str]:
    """The project, or, when its configuration cannot be read, the project with the
    default settings and the error (reported as the config check, not as a stop: doctor
    is where a user looks when the hooks went quiet)."""
    try:
        return load_project(project_dir), ""
    except CharterError as exc:
        if not project_dir.exists():
            raise
        base = project_dir.parent if project_dir.is_file() else project_dir
        if not_a_project(find_root(base)):  # nothing to check, and nothing to write there
            raise
        return Project(root=find_root(base)), str(exc)


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor_cmd(
        check: list[str] = typer.Option([], "--check", help="run only these checks"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Check the project's Charter setup; each line has a status and how to fix it."""
        from charter.decisions import health as decisions_health  # noqa: F401 - registers its check
        from charter.doctor import run_checks
        from charter.integrations.claude_code import health  # noqa: F401 - registers its checks

        project, config_error = _project(project_dir)
        results = run_checks(project, check or None)
        for r in results:
            if r.name == "config" and config_error:
                r.status, r.summary = "fail", config_error
                name = (
                    "charter.toml"
                    if (project.root / "charter.toml").is_symlink()
                    or (project.root / "charter.toml").exists()
                    else ("[tool.charter] in pyproject.toml")
                )
                r.fix = (
                    f"repair {name}; until then every hook answers without Charter's rules "
                    "and pre-tool-use denies writes (the other checks ran with the defaults)"
                )
        if as_json:
            emit_json({"checks": [r.as_dict() for r in results]})
        else:
            table = Table(title="charter doctor", show_lines=False)
            for column in ("check", "status", "summary", "fix"):
                table.add_column(column, overflow="fold")
            for r in results:
                table.add_row(
                    r.name, f"[{_STYLE[r.status]}]{r.status}[/]", escape(r.summary), escape(r.fix)
                )
            console.print(table)
            for r in results:
                for item in r.detail.get("files", []) if r.name == "secrets" else []:
                    kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(item["detectors"].items()))
                    lines = ",".join(str(n) for n in item["lines"][:12])
                    console.print(
                        f"  {item['path']}:{lines}  {item['count']} redacted ({kinds})"
                        + (f" [{item['origin']}]" if item["origin"] != "fs" else ""),
                        markup=False,
                        soft_wrap=True,
                    )
        if any(r.status == "fail" for r in results):
            raise SystemExit(1)
