"""``.charter/`` ignores its caches and keeps the team's files (decisions, capsule)
visible to git, in a real repository driven through the real CLI."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from charter.state_ignore import CONTENT, IGNORE_FILE
from tests.conftest import untracked, write


def test_caches_stay_local_and_decisions_are_shared(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Never push to main.\n- Use uv for Python.\n")
    assert run_charter("compile", cwd=repo).returncode == 0
    args = ["decisions", "add", "--id", "OFFLINE", "--text", "Offline?", "--type", "yes_no"]
    args += ["--answer", "yes"]
    assert run_charter(*args, cwd=repo).returncode == 0
    state = repo / ".charter"
    assert (state / "rules.json").is_file() and (state / IGNORE_FILE).read_text() == CONTENT
    charter_files = {p for p in untracked(repo) if p.startswith(".charter/")}
    assert ".charter/decisions/pgc_clarifications.json" in charter_files
    assert ".charter/decisions/history.jsonl" in charter_files
    assert not {p for p in charter_files if p.endswith((".db", ".npy", ".lock", "rules.json"))}


def test_an_edited_ignore_file_is_never_overwritten(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Never push to main.\n")
    mine = "# ours: keep everything local\n*\n"
    write(repo, f".charter/{IGNORE_FILE}", mine)
    assert run_charter("compile", cwd=repo).returncode == 0
    assert (repo / ".charter" / IGNORE_FILE).read_text() == mine
    assert not {p for p in untracked(repo) if p.startswith(".charter/")}


def test_logs_in_the_users_tree_leave_no_lock_files_for_git(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """The search log (``logs/``) and the guardrail audit log (``artifacts/``) live in the
    user's tree by the seeds' defaults; a ``.lock`` beside each showed up in ``git status``
    as a file to commit. Append-only logs now lock themselves, and a folder Charter
    creates for one of them ignores itself: one machine's searches are not the team's."""
    import json
    import sys

    write(repo, "docs/guide.md", "# Guide\n\nSet a timeout on every session.\n")
    assert run_charter("index", cwd=repo).returncode == 0
    assert run_charter("search", "session timeout", cwd=repo).returncode == 0
    payload = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "cwd": str(repo),
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo / ".git" / "config"), "content": "x"},
    }
    denied = subprocess.run(
        [sys.executable, "-m", "charter", "hook", "pre-tool-use"],
        cwd=repo,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert '"deny"' in denied.stdout, denied.stdout + denied.stderr
    assert (repo / "artifacts/guardrails/audit.jsonl").is_file()
    visible = untracked(repo)
    assert (repo / "logs/context_actions.csv").is_file()
    assert not {p for p in visible if p.startswith(("logs/", "artifacts/"))}, visible
    assert not {p for p in visible if p.endswith(".lock")}, visible
    assert not list(repo.glob("artifacts/guardrails/*.lock")), "a lock beside the log"


def test_a_logs_folder_the_user_already_has_is_left_alone(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """Charter hides only a folder it creates: the user's own ``logs/`` keeps its rules."""
    write(repo, "logs/README.md", "# Team logs\n")
    write(repo, "docs/guide.md", "# Guide\n\nSet a timeout on every session.\n")
    assert run_charter("index", cwd=repo).returncode == 0
    assert run_charter("search", "session timeout", cwd=repo).returncode == 0
    assert not (repo / "logs" / IGNORE_FILE).exists()
    assert "logs/context_actions.csv" in untracked(repo)


def test_index_lists_none_of_charters_own_local_files_as_skipped(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """The folders Charter makes for one machine's logs ignore themselves; `charter index`
    listed their files ("logs/.gitignore: gitignored") as if they were the project's.
    A folder the user ignores the same way is still listed."""
    import json

    write(repo, "docs/guide.md", "# Guide\n\nSet a timeout on every session.\n")
    write(repo, "scratch/.gitignore", "*\n")
    write(repo, "scratch/out.txt", "x\n")
    assert run_charter("index", cwd=repo).returncode == 0
    assert run_charter("search", "session timeout", cwd=repo).returncode == 0
    assert (repo / "logs" / IGNORE_FILE).is_file()
    done = run_charter("index", "--json", cwd=repo)
    skipped = [row["path"] for row in json.loads(done.stdout)["skipped"]]
    assert not [p for p in skipped if p.startswith("logs/")], skipped
    assert "scratch/out.txt" in skipped
