"""``charter install cursor|codex|gemini`` and ``charter agent-hook AGENT EVENT``."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import typer

from charter.cli.common import load_project
from charter.errors import CharterError

AGENTS = ("cursor", "codex", "gemini")


def install_other(
    target: str, project_dir: Path, *, uninstall: bool, dry_run: bool = False
) -> tuple[list[str], list[str]]:
    """Install Charter into Cursor, Codex or Gemini CLI (``charter install TARGET``);
    returns the changes and the notes for the user, for the caller to print or emit."""
    from charter.integrations import codex, cursor, gemini

    installers = {
        "cursor": cursor.install_cursor,
        "codex": codex.install_codex,
        "gemini": gemini.install_gemini,
    }
    if target not in installers:
        supported = ", ".join(("claude-code", *AGENTS))
        raise CharterError(f"unknown integration {target!r} (supported: {supported})")
    project = load_project(project_dir)
    changes = installers[target](
        project.root, uninstall=uninstall, state_dir=project.state_dir, dry_run=dry_run
    )
    notes: list[str] = []
    if not uninstall and not dry_run and target == "codex":
        # Codex skips an untrusted hook without a word (seen with Codex 0.169.0)
        notes.append(
            "note: Codex loads .codex/ only in a trusted project and runs a new or changed "
            "hook only once you trust it: start `codex` here and review Charter's hooks "
            "with /hooks"
        )
    if not uninstall:
        notes += filter(None, [note_when_not_on_path(target)])
    return list(changes), notes


def note_when_not_on_path(target: str, *, bare_only: bool = False) -> str | None:
    """Say so when the installed hooks run the bare ``charter`` and PATH does not find it
    here. ``bare_only``: the installer wrote the bare command only when it found no
    ``charter`` executable at all (Claude Code's, which otherwise writes the path)."""
    if shutil.which("charter") is not None:
        return None
    from charter.integrations.claude_code.installer import charter_executable

    exe = charter_executable()
    if bare_only and exe is not None:
        return None
    # run as `python -m charter`: the console script beside the interpreter, if any
    beside = Path(sys.executable).with_name("charter.exe" if os.name == "nt" else "charter")
    folder = exe.parent if exe else (beside.parent if beside.is_file() else None)
    where = f"put {folder} on the agent's PATH" if folder else "install Charter on PATH"
    return (
        f"note: `charter` is not on PATH here, and {target}'s hooks and MCP server run "
        f"`charter` from PATH: {where} (activate the virtualenv, or pipx install "
        "Charter) or they never run"
    )


def register(app: typer.Typer) -> None:
    @app.command("agent-hook", hidden=True)
    def agent_hook(
        agent: str = typer.Argument(..., help="cursor | gemini | codex"),
        event: str = typer.Argument(..., help="the agent's own hook event name"),
    ) -> None:
        """Answer a Cursor, Gemini CLI or Codex hook (their JSON on stdin and stdout)."""
        from charter.integrations.agent_hooks import EVENTS, run

        if agent not in EVENTS or event not in EVENTS[agent]:
            known = "; ".join(f"{a}: {', '.join(sorted(e))}" for a, e in EVENTS.items())
            raise CharterError(f"unknown agent hook {agent} {event} (known: {known})")
        raw = sys.stdin.buffer.read(8 * 1024 * 1024 + 1)
        if len(raw) > 8 * 1024 * 1024:
            raw = b"not json: over 8 MiB"
        answer, notes = run(agent, event, raw)
        for note in notes:
            print(note, file=sys.stderr)
        sys.stdout.write(json.dumps(answer) + "\n")
