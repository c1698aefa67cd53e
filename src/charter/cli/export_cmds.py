"""``charter export FORMAT``: the compiled rules in another agent's native rule format."""

from __future__ import annotations

from pathlib import Path

import typer

from charter.cli.common import ProjectDir, console, emit_json, load_project
from charter.errors import CharterError


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export_cmd(
        fmt: str = typer.Argument(..., help="cursor | claude-rules | agents-md | copilot"),
        out: Path = typer.Option(
            None, "--out", help="output directory (default: .charter/export/FORMAT)"
        ),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="list the files written as JSON"),
    ) -> None:
        """Write the constitution and scoped shards as FORMAT's rule files, with citations."""
        from charter.rules.compiler import load_or_compile
        from charter.rules.export import FORMATS, export_rules, write_export

        if fmt not in FORMATS:
            raise CharterError(f"unknown export format {fmt!r} (one of: {', '.join(FORMATS)})")
        project = load_project(project_dir)
        compiled = load_or_compile(project)
        files = export_rules(compiled.rules, fmt)
        target = out if out is not None else project.state_dir / "export" / fmt
        if target.exists() and not target.is_dir():
            raise CharterError(f"--out {target} is not a directory")
        done = write_export(files, target, fmt, lock=project.state_dir / "locks" / "export")
        if as_json:
            emit_json(
                {
                    "format": fmt,
                    "out": str(target),
                    "files": [f.path for f in files],
                    "written": [p.relative_to(target).as_posix() for p in done.written],
                    "unchanged": [p.relative_to(target).as_posix() for p in done.unchanged],
                    "removed": [p.relative_to(target).as_posix() for p in done.removed],
                }
            )
            return
        for verb, paths in (("wrote", done.written), ("removed", done.removed)):
            for path in paths:
                console.print(f"{verb} {path}", soft_wrap=True, markup=False)
        if done.unchanged:
            console.print(f"{len(done.unchanged)} files unchanged")
        console.print(f"{len(compiled.rules)} rules in {len(files)} files ({fmt})")
