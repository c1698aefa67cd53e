"""Shared fixtures: real git repos in tmp dirs and the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

CHARTER = [sys.executable, "-m", "charter"]
#: the installed ``charter`` entry point beside this interpreter (a real console script)
CHARTER_BIN = Path(sys.executable).with_name("charter")


def run_script(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The installed ``charter`` script (as an agent runs it, not ``python -m``) with
    exactly ``env``: for what depends on PATH."""
    return subprocess.run(
        [str(CHARTER_BIN), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo-project"


@pytest.fixture(autouse=True)
def _private_runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test's warm workers get a runtime directory of their own.

    A worker's socket path is derived from the project's path, and a later pytest session
    can hand out the same tmp path again (the same basetemp number on a fresh ``/tmp``,
    ``--basetemp``): the socket and lock file a killed worker of an earlier run left in a
    shared directory were then taken for this run's worker before it had even started.
    Short (under ``/tmp``), as AF_UNIX paths must be. Removed afterwards, which also ends
    any worker still idling there (it stops when its socket is gone).
    """
    path = Path(tempfile.mkdtemp(prefix="crt"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def commit_all(root: Path, message: str = "init") -> str:
    """``git add -A`` and a commit by a throwaway identity in ``root`` (a repository
    already); the new HEAD's sha."""
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", message], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    return head.stdout.strip()


def copy_demo(target: Path, *, charter_toml: str = "[hooks]\nwarm_worker = false\n") -> Path:
    """A fresh git repository holding a copy of the demo project, committed."""
    shutil.copytree(
        DEMO, target, ignore=shutil.ignore_patterns(".charter", "__pycache__", "node_modules")
    )
    (target / "charter.toml").write_text(charter_toml, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    commit_all(target, "demo")
    return target


def merge_demo_seed(root: Path) -> None:
    """Bind the demo's decisions: ``charter decisions merge`` of its ``.charter-seed``."""
    seed = root / ".charter-seed"
    merged = charter_run(
        "decisions",
        "merge",
        "--questions",
        str(seed / "questions.json"),
        "--answers",
        str(seed / "answers.json"),
        cwd=root,
    )
    assert merged.returncode == 0, merged.stderr


def demo_search_copy(root: Path, charter_toml: str | None = "") -> Path:
    """``root`` holding the demo project's searchable parts (docs, decisions, SoT data)
    and, unless None, a ``charter.toml`` with ``charter_toml``."""
    for part in ("docs", "decisions", "sot"):
        shutil.copytree(DEMO / part, root / part)
    if charter_toml is not None:
        (root / "charter.toml").write_text(charter_toml)
    return root


def cli_search(root: Path, query: str) -> list[dict[str, Any]]:
    """The results of a fresh ``charter search --json`` process in review mode."""
    res = subprocess.run(
        [str(CHARTER_BIN), "search", query, "--mode", "review", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    results: list[dict[str, Any]] = json.loads(res.stdout)["results"]
    return results


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def shards_by_setting(
    repo: Path, task: str, setting: str, values: Sequence[float], *, top: int = 20
) -> list[dict[str, Any]]:
    """The task's retrieved shards by rule text, once per value of one rules setting, from
    one compile of the repository's rule files: a test shows a setting lifting a rule by
    comparing the rule's score across the values."""
    from charter.config import Project
    from charter.embed.registry import rules_embedder_for
    from charter.rules.compiler import compile_rules
    from charter.rules.retrieve import Retriever

    project = Project.load(repo)
    compiled = compile_rules(project)
    embedder = rules_embedder_for(project.settings)
    out = []
    for value in values:
        settings = project.settings.rules.model_copy(update={setting: value})
        result = Retriever(compiled, settings, embedder).retrieve(task, top=top)
        out.append({shard.rule.text: shard for shard in result.shards})
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository (Charter finds the project root by its .git)."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def charter_run(
    *args: str,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    unset: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``python -m charter ARGS`` with this environment plus ``env``, minus ``unset``."""
    full_env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in unset}
    return subprocess.run(
        [*CHARTER, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=300,
    )


@pytest.fixture
def run_charter() -> Callable[..., subprocess.CompletedProcess[str]]:
    return charter_run


def hook_payload(event: str, cwd: Path, **extra: Any) -> str:
    payload = {
        "session_id": "test-session",
        "transcript_path": str(cwd / "transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": event,
        **extra,
    }
    return json.dumps(payload)


def run_hook(
    run_charter: Callable[..., subprocess.CompletedProcess[str]],
    root: Path,
    event: str,
    env: dict[str, str] | None = None,
    **extra: Any,
) -> subprocess.CompletedProcess[str]:
    """``charter hook`` for Claude Code's ``event`` (``SessionStart`` runs
    ``session-start``) in ``root``, with the hook JSON Claude Code sends on stdin."""
    command = re.sub(r"(?<!^)([A-Z])", r"-\1", event).lower()
    return run_charter("hook", command, cwd=root, env=env, stdin=hook_payload(event, root, **extra))


def hook_answer(
    run_charter: Callable[..., subprocess.CompletedProcess[str]],
    root: Path,
    event: str,
    **extra: Any,
) -> dict[str, Any] | None:
    """The ``hookSpecificOutput`` of :func:`run_hook` (None when it answered nothing), after
    checking the hook exited cleanly with no traceback and no handler skipped."""
    done = run_hook(run_charter, root, event, **extra)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "skipped" not in done.stderr, done.stderr
    if not done.stdout.strip():
        return None
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == event
    return dict(out)


def task_context_paths(
    run_charter: Callable[..., subprocess.CompletedProcess[str]], root: Path, task: str
) -> list[str | None]:
    """The paths of ``charter task-context TASK --json --limit 5`` in ``root``, in rank
    order."""
    done = run_charter("task-context", task, "--json", "--limit", "5", cwd=root)
    assert done.returncode == 0, done.stderr
    return [n.get("path") for n in json.loads(done.stdout)["nodes"]]


def tool_payload(result: Any) -> Any:
    """The JSON an MCP tool returned (structured content, else the first text block)."""
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) else content
    return json.loads(result.content[0].text)


def mcp_server_params(root: Path) -> Any:
    """How the SDK's stdio client starts ``charter mcp`` for ``root``."""
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=str(CHARTER_BIN), args=["mcp", "--project", str(root)], cwd=str(root)
    )


def start_worker(
    run: Callable[..., subprocess.CompletedProcess[str]],
    root: Path,
    *,
    sock: Path | None = None,
    env: dict[str, str] | None = None,
    seconds: float = 90,
) -> tuple[Path, int]:
    """Fire a real SessionStart hook, wait for the warm worker it starts: (socket, pid)."""
    import time

    from charter.paths import worker_socket

    start = run_hook(run, root, "SessionStart", env=env, source="startup")
    assert start.returncode == 0, start.stderr
    sock = sock or worker_socket(root)
    deadline = time.time() + seconds
    while time.time() < deadline:
        pid = listening_worker(sock)
        if pid:
            return sock, pid
        time.sleep(0.2)
    raise AssertionError("worker did not start")


def listening_worker(sock: Path) -> int:
    """The pid of the live worker answering on ``sock`` (0 while there is none): a socket
    file alone may be one a killed worker left behind."""
    import socket

    lock = sock.with_suffix(".lock")
    try:
        text = lock.read_text().strip()
        if not text.isdigit():
            return 0
        os.kill(int(text), 0)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.connect(str(sock))
    except OSError:
        return 0
    return int(text)


def untracked(root: Path) -> set[str]:
    """The paths ``git status`` offers to add in ``root`` (every untracked file listed)."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line[3:] for line in out.splitlines() if line.startswith("?? ")}


def guard(
    root: Path, tool: str, tool_input: dict[str, Any], cwd: Path | None = None
) -> dict[str, Any] | None:
    """The PreToolUse guardrails' answer (in process) to one tool call in ``root``."""
    from charter.config import Project
    from charter.session.guardrails import pre_tool_use_output

    payload = {
        "session_id": "s-guard-test",
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(cwd or root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    return pre_tool_use_output(Project.load(root), payload)


def guard_decision(out: dict[str, Any] | None) -> str:
    return "allow" if out is None else str(out["hookSpecificOutput"]["permissionDecision"])


def edit_decision(root: Path, rel: str) -> str:
    """The guardrails' decision on an ``Edit`` of the project file ``rel``."""
    body = {"file_path": str(root / rel), "old_string": "a", "new_string": "b"}
    return guard_decision(guard(root, "Edit", body))


def bash_decision(root: Path, command: str) -> str:
    """The guardrails' decision on a ``Bash`` call running ``command`` in ``root``."""
    return guard_decision(guard(root, "Bash", {"command": command}))


def create_decision(root: Path, rel: str) -> str:
    """The guardrails' decision on a ``Write`` of the project file ``rel``."""
    body = {"file_path": str(root / rel), "content": "x\n"}
    return guard_decision(guard(root, "Write", body))


def expect_decisions(
    decide: Callable[[Path, str], str], root: Path, **expected: Sequence[str]
) -> None:
    """Every call listed under a decision (``deny=[…]``, ``ask=[…]``, ``allow=[…]``) gets it."""
    for want, calls in expected.items():
        for call in calls:
            assert decide(root, call) == want, call


def guard_subprocess(
    run_charter: Callable[..., subprocess.CompletedProcess[str]],
    root: Path,
    tool: str,
    tool_input: dict[str, Any],
) -> str:
    """The decision of ``charter hook pre-tool-use`` run as Claude Code runs it."""
    body = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    proc = run_charter("hook", "pre-tool-use", cwd=root, stdin=json.dumps(body))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return guard_decision(json.loads(proc.stdout) if proc.stdout.strip() else None)


def compiled_repo(tmp_path: Path, files: dict[str, str], config: str = "") -> Path:
    """A git repo with ``files`` (rule files among them), no warm worker, rules compiled."""
    from charter.config import Project
    from charter.rules.api import compile_project

    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "charter.toml", "[hooks]\nwarm_worker = false\n" + config)
    for rel, text in files.items():
        write(root, rel, text)
    compile_project(Project.load(root))
    return root


def symbol_spans(out: dict[str, Any]) -> dict[str, tuple[str, int, bool]]:
    """An extractor's symbols as qualname → (kind, first line, exported), for the
    language tests' expected tables."""
    return {s["qualname"]: (s["kind"], s["line_start"], s["exported"]) for s in out["symbols"]}


def fresh_snapshot_sha256(root: Path) -> str:
    """The sha256 of the graph snapshot a build from no graph state writes in ``root``
    (the language tests' determinism check: two fresh builds, the same bytes)."""
    import hashlib
    import shutil

    from charter.config import Project
    from charter.graph.build import build_graph, graph_dir

    project = Project.load(root)
    shutil.rmtree(graph_dir(project), ignore_errors=True)
    build_graph(project)
    return hashlib.sha256((graph_dir(project) / "snapshot.json").read_bytes()).hexdigest()
