"""Project-level commands: init, install."""

from __future__ import annotations

from pathlib import Path

import typer

from charter.cli.common import ProjectDir, console, emit_json, load_project
from charter.config import CONFIG_FILE, render_default_config
from charter.errors import CharterError
from charter.fileio import atomic_write_text
from charter.paths import find_root

_FILE_VERBS = frozenset({"write", "update", "remove", "would", "wrote", "updated", "removed"})
_UP_TO_DATE = "already up to date"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CharterError(f"cannot read {path}: {exc.strerror}") from None


def register(app: typer.Typer) -> None:
    @app.command()
    def init(
        path: Path | None = typer.Argument(
            None, help="directory to write it in (default: the project around the cwd)"
        ),
        force: bool = typer.Option(
            False, "--force", help="overwrite an existing charter.toml or shadow [tool.charter]"
        ),
    ) -> None:
        """Write charter.toml with every default visible (commented out)."""
        if path is None:
            # like every other command, a plain `charter init` in a sub-directory means the
            # project around it: a charter.toml there would split off a second project
            path = find_root(Path.cwd())
        if not path.is_dir():
            raise CharterError(f"not a directory: {path}")
        target = path / CONFIG_FILE
        if target.exists() and not force:
            raise CharterError(f"{target} exists (use --force to overwrite)")
        pyproject = path / "pyproject.toml"
        if not force and pyproject.is_file() and "[tool.charter" in _read(pyproject):
            # charter.toml is read instead of [tool.charter]: all defaults would replace it
            raise CharterError(
                f"{pyproject} has [tool.charter], which a charter.toml would replace "
                "(use --force to write one anyway)"
            )
        atomic_write_text(target, render_default_config(commented=True))
        (path / ".charter").mkdir(exist_ok=True)
        console.print(f"wrote [bold]{target}[/bold]")

    from charter.integrations.claude_code.fastpath import EVENTS as HOOK_EVENTS

    @app.command()
    def hook(
        event: str = typer.Argument(..., help=" | ".join(HOOK_EVENTS)),
    ) -> None:
        """Answer a Claude Code hook: hook JSON on stdin, hook JSON on stdout (fails open)."""
        from charter.integrations.claude_code.hook_main import hook_main

        raise SystemExit(hook_main([event]))

    @app.command()
    def version(
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Print Charter's version."""
        from charter import __version__

        if as_json:
            emit_json({"name": "charter", "version": __version__})
            return
        console.print(f"charter {__version__}")

    @app.command()
    def install(
        target: str = typer.Argument(..., help="claude-code | cursor | codex | gemini"),
        uninstall: bool = typer.Option(False, "--uninstall", help="restore the settings as before"),
        dry_run: bool = typer.Option(False, "--dry-run", help="show what would change"),
        project_dir: ProjectDir = Path("."),
        as_json: bool = typer.Option(False, "--json", help="machine output"),
    ) -> None:
        """Install Charter's hooks, MCP server and managed rules into an agent's settings."""
        from charter.cli.install_cmds import install_other, note_when_not_on_path

        if target != "claude-code":
            changes, notes = install_other(
                target, project_dir, uninstall=uninstall, dry_run=dry_run
            )
        else:
            from charter.integrations.claude_code.installer import install_claude_code

            project = load_project(project_dir)
            changes = install_claude_code(
                project.root,
                uninstall=uninstall,
                state_dir=project.state_dir,
                manage_rules=project.settings.hooks.manage_rule_files,
                rules_exclude=project.settings.rules.exclude,
                dry_run=dry_run,
            )
            notes = []
            if not uninstall and not dry_run:
                notes += filter(None, [note_when_not_on_path("Claude Code", bare_only=True)])
        if as_json:
            # an installer's lines are the files it (would) write, update or remove, each
            # led by that verb, and notes for the user: a script wants them apart
            files = [c for c in changes if c.split(" ", 1)[0] in _FILE_VERBS]
            emit_json(
                {
                    "agent": target,
                    "action": "uninstall" if uninstall else "install",
                    "dry_run": dry_run,
                    "changed": bool(files),
                    "files": files,
                    "notes": [c for c in changes if c not in files and c != _UP_TO_DATE] + notes,
                }
            )
            return
        for line in [*changes, *notes]:
            console.print(line, soft_wrap=True, markup=False)
