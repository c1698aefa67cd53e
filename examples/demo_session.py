"""Session state across a compaction, on the demo project (part of ``make demo``).

The demo project has an active track, ``credit-notes``, whose plan has passed review and
is being executed. A few turns of an agent session are played through the real hook
commands (a user instruction, the agent's todo list, an edit, a failing test run), then
Claude Code's ``PreCompact`` and ``SessionStart(compact)`` fire, and the demo shows what
was written to the track and what the agent is given back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

CHARTER = [sys.executable, "-m", "charter"]
SESSION = "demo-session-1"


class DemoError(Exception):
    """A step of the demo did not do what it should."""


def _hook(project_dir: Path, event: str, **payload: Any) -> str:
    body = {"session_id": SESSION, "cwd": str(project_dir), "hook_event_name": event, **payload}
    proc = subprocess.run(
        [*CHARTER, "hook", event],
        cwd=project_dir,
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        raise DemoError(f"hook {event} failed: {proc.stderr.strip()}")
    return proc.stdout


def run(console: Console, project_dir: Path) -> None:
    console.print()
    console.rule("[bold]5. Session state across compaction[/bold]")
    track = (project_dir / "docs/tracks/ACTIVE_TRACK").read_text().strip()
    console.print(f"active track: [cyan]{track}[/cyan] (docs/tracks/{track}/)")
    _hook(
        project_dir,
        "user-prompt-submit",
        prompt="Finish the over-credit check. Keep amounts in integer cents and don't touch "
        "posted invoices.",
    )
    # The agent loads the track's plan into its own todo list and works through it.
    steps = [
        ("Add the credit_notes table migration", "completed"),
        ("Model and service: create a credit note against a posted invoice", "completed"),
        ("Reject credits above the invoice's open amount", "completed"),
        ("Expose POST /invoices/{id}/credit-notes", "in_progress"),
    ]
    todos = [{"content": c, "status": s, "activeForm": c} for c, s in steps]
    _hook(
        project_dir,
        "post-tool-use",
        tool_name="TodoWrite",
        tool_input={"todos": todos},
        tool_response={},
    )
    target = project_dir / "backend/app/credit_notes.py"
    target.write_text(
        "def open_amount(invoice):\n    return invoice.total_cents - invoice.credited_cents\n"
    )
    _hook(
        project_dir,
        "post-tool-use",
        tool_name="Write",
        tool_input={"file_path": str(target), "content": target.read_text()},
        tool_response={"type": "create"},
    )
    _hook(
        project_dir,
        "post-tool-use-failure",
        tool_name="Bash",
        tool_input={"command": "pytest backend/tests/test_credit_notes.py"},
        error="Exit code 1\nFAILED test_over_credit - assert 201 == 422\n1 failed, 4 passed",
    )
    console.print(
        "played: 1 prompt, a TodoWrite plan, 1 edit, 1 failing test run "
        "[dim](each through `charter hook …` as Claude Code calls it)[/dim]"
    )
    _hook(project_dir, "pre-compact", trigger="auto")
    plan = (project_dir / f"docs/tracks/{track}/PLAN.md").read_text()
    console.print(f"[bold]PreCompact[/bold] wrote docs/tracks/{track}/PLAN.md:")
    console.print(plan, markup=False, highlight=False)
    stdout = _hook(project_dir, "session-start", source="compact")
    if not stdout.strip():
        raise DemoError("SessionStart(compact) returned nothing")
    context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"]
    for needle in ("Expose POST /invoices/{id}/credit-notes", "integer cents", "credit_notes.py"):
        if needle not in context:
            raise DemoError(f"recovered context lacks {needle!r}")
    console.print(
        f"[bold]SessionStart(compact)[/bold] gives the agent back "
        f"[dim]({len(context)} characters; Claude Code's limit is 10,000)[/dim]:"
    )
    console.print(context, markup=False, highlight=False)
    _show_rule_command(console, project_dir)


def _show_rule_command(console: Console, project_dir: Path) -> None:
    """The PreToolUse guardrail holding a rule at the moment it matters: before the
    command runs. backend/AGENTS.md adds dependencies with `uv add`, never `pip install`
    (denied); CLAUDE.md asks before adding a dependency (put to the user, and let through
    once the user's prompt asks for that package)."""
    console.print()
    console.print(
        "[bold]PreToolUse[/bold]: commands a rule forbids are stopped before they run; "
        "those it holds until you ask are put to you"
    )
    for command, prompt, expected in (
        ("cd backend && pip install httpx", "", "deny"),
        ("cd backend && uv add httpx", "", "ask"),
        ("cd backend && uv add httpx", "Add httpx to the backend for the Stripe client.", "allow"),
    ):
        if prompt:
            _hook(project_dir, "user-prompt-submit", prompt=prompt)
            console.print(f"  user: {prompt}", markup=False, highlight=False)
        stdout = _hook(
            project_dir,
            "pre-tool-use",
            tool_name="Bash",
            tool_input={"command": command},
        )
        answer = json.loads(stdout)["hookSpecificOutput"] if stdout.strip() else {}
        decision = answer.get("permissionDecision", "allow")
        if decision != expected:
            raise DemoError(f"PreToolUse answered {decision!r} to {command!r}")
        reason = answer.get("permissionDecisionReason", "")
        console.print(f"  $ {command}  →  [bold]{decision}[/bold]", markup=True, highlight=False)
        if reason:
            console.print(f"    {reason}", markup=False, highlight=False)
