"""``charter install`` killed with SIGKILL at each write, then re-run and uninstalled.

An install writes several of the user's own files (Claude Code's settings, ``.mcp.json``,
Cursor/Codex/Gemini settings) and a record of their bytes from before Charter touched
them. A kill between those writes must leave every file whole, the next install must
finish the job, and uninstall must still give the user's files back byte for byte (not
Charter's half-installed bytes recorded as "the original"). Parallel installs must not
drop each other's record either.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import CHARTER
from tests.test_agent_installs import AGENTS, USER_FILES

Run = Callable[..., subprocess.CompletedProcess[str]]

CLAUDE_FILES = {
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(npm test)"]}}\n',
    ".mcp.json": '{"mcpServers": {"other": {"command": "x"}}}',
    "CLAUDE.md": "# Rules\n\n- Use type hints.\n",  # managed: settings.local.json is written
}
#: every write of a Claude Code install, in order (the fault seam is before each rename)
CLAUDE_STEPS = [
    "atomic.install-claude-code.json",
    "atomic.settings.json",
    "atomic.settings.local.json",
    "atomic..mcp.json",
    "atomic.install-claude-code.json@2",
]


def _user_files(root: Path, files: dict[str, str]) -> dict[str, bytes | None]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return _state(root, files)


def _state(root: Path, names: dict[str, str] | list[str]) -> dict[str, bytes | None]:
    every = [*names, ".claude/settings.local.json"]
    return {n: (root / n).read_bytes() if (root / n).exists() else None for n in every}


def _killed(argv: list[str], root: Path, step: str) -> int:
    env = {**os.environ, "CHARTER_FAULT": step}
    return subprocess.run(
        [*CHARTER, *argv], cwd=root, env=env, capture_output=True, text=True, timeout=300
    ).returncode


def _parses(root: Path, rels: list[str]) -> None:
    for rel in rels:
        path = root / rel
        if path.exists() and rel.endswith(".json"):
            json.loads(path.read_text(encoding="utf-8"))
        elif path.exists() and rel.endswith(".toml"):
            tomllib.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("step", CLAUDE_STEPS)
def test_claude_install_killed_at_each_write_uninstalls_exactly(
    repo: Path, run_charter: Run, step: str
) -> None:
    before = _user_files(repo, CLAUDE_FILES)
    clean = repo.parent / "clean"
    subprocess.run(["git", "init", "-q", str(clean)], check=True)
    _user_files(clean, CLAUDE_FILES)
    assert run_charter("install", "claude-code", cwd=clean).returncode == 0
    assert _killed(["install", "claude-code"], repo, step) == -9
    _parses(repo, [*CLAUDE_FILES, ".claude/settings.local.json"])
    res = run_charter("install", "claude-code", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert not list(repo.rglob(".*.tmp")), "the killed write's temp file was left behind"
    for rel in (".claude/settings.json", ".mcp.json"):  # the next install finished the job
        assert (repo / rel).read_text() == (clean / rel).read_text(), rel
    res = run_charter("install", "claude-code", "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _state(repo, CLAUDE_FILES) == before, "uninstall restores the user's bytes"


@pytest.mark.parametrize("step", ["atomic.settings.json", "atomic..mcp.json"])
def test_claude_install_killed_then_uninstalled_removes_its_entries(
    repo: Path, run_charter: Run, step: str
) -> None:
    before = _user_files(repo, CLAUDE_FILES)
    assert _killed(["install", "claude-code"], repo, step) == -9
    res = run_charter("install", "claude-code", "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _state(repo, CLAUDE_FILES) == before


def test_uninstall_killed_midway_is_finished_by_the_next(repo: Path, run_charter: Run) -> None:
    before = _user_files(repo, CLAUDE_FILES)
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    assert _killed(["install", "claude-code", "--uninstall"], repo, "atomic..mcp.json") == -9
    res = run_charter("install", "claude-code", "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _state(repo, CLAUDE_FILES) == before


def _agent_steps() -> list[tuple[str, str]]:
    out = []
    for agent, rels in sorted(AGENTS.items()):
        out += [(agent, f"atomic.{Path(rel).name}") for rel in rels]
        out.append((agent, f"atomic.{agent}.json"))  # the install record, written last
    return out


@pytest.mark.parametrize(("agent", "step"), _agent_steps())
def test_agent_install_killed_at_each_write_uninstalls_exactly(
    repo: Path, run_charter: Run, agent: str, step: str
) -> None:
    files = {rel: USER_FILES[rel] for rel in AGENTS[agent]}
    before = _user_files(repo, files)
    clean = repo.parent / "clean"
    subprocess.run(["git", "init", "-q", str(clean)], check=True)
    _user_files(clean, files)
    assert run_charter("install", agent, cwd=clean).returncode == 0
    assert _killed(["install", agent], repo, step) == -9
    _parses(repo, list(files))
    res = run_charter("install", agent, cwd=repo)
    assert res.returncode == 0, res.stderr
    assert not list(repo.rglob(".*.tmp")), "the killed write's temp file was left behind"
    for rel in files:
        assert (repo / rel).read_text() == (clean / rel).read_text(), rel
    res = run_charter("install", agent, "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _state(repo, files) == before, "uninstall restores the user's bytes"


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_agent_install_killed_then_uninstalled_restores(
    repo: Path, run_charter: Run, agent: str
) -> None:
    files = {rel: USER_FILES[rel] for rel in AGENTS[agent]}
    before = _user_files(repo, files)
    step = f"atomic.{agent}.json"
    assert _killed(["install", agent], repo, step) == -9
    res = run_charter("install", agent, "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _state(repo, files) == before


def test_parallel_installs_of_every_agent_then_uninstalls(repo: Path, run_charter: Run) -> None:
    """Four agents installed at once, three times each, share ``.charter/install.lock``:
    every record survives and every uninstall gives the user's files back."""
    files = {**CLAUDE_FILES, **USER_FILES}
    before = _user_files(repo, files)
    agents = ["claude-code", *sorted(AGENTS)] * 3
    with ThreadPoolExecutor(len(agents)) as pool:
        results = list(pool.map(lambda a: run_charter("install", a, cwd=repo), agents))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    _parses(repo, list(files))
    assert sorted(p.name for p in (repo / ".charter/installs").iterdir()) == [
        f"{a}.json" for a in sorted(AGENTS)
    ]
    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(
                lambda a: run_charter("install", a, "--uninstall", cwd=repo),
                ["claude-code", *sorted(AGENTS)],
            )
        )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert _state(repo, files) == before
