"""``.charter/`` ignores its caches and keeps the team's files (decisions, capsule)
visible to git, in a real repository driven through the real CLI."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from charter.state_ignore import CONTENT, IGNORE_FILE
from tests.conftest import write


def untracked(root: Path) -> set[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line[3:] for line in out.splitlines() if line.startswith("?? ")}


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
