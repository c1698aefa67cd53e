"""What the end-to-end tests of the real agent CLIs share.

Why one place: the Codex and Gemini CLI modules run their pinned CLI in an installed
demo copy against a scripted server and differ only in which agent that is. Such a
module names its agent in ``AGENT`` (a key of ``tests.agent_e2e.SESSIONS``);
``installed`` and ``session`` here then give that agent's project and sessions.
``tests/e2e/test_claude_code.py`` keeps its own ``installed`` and ``session`` (Claude
Code's installer and server, which take precedence in that module) and shares the rest:
the project config, :func:`serve_sessions` and :func:`ok`.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.agent_e2e import (
    CLI_NAMES,
    SESSIONS,
    Reply,
    Request,
    ScriptedServer,
    install_agent,
)
from tests.conftest import charter_run, copy_demo, merge_demo_seed
from tests.model_server import CliRun, RecordingServer

VENV_BIN = Path(sys.executable).parent
S = TypeVar("S", bound=RecordingServer[Any])
T = TypeVar("T")

#: the headings of Charter's constitution and per-prompt rule blocks
CONSTITUTION = "# Project constitution"
RULES = "# Project rules for this request"
CHARTER_TOML = '[hooks]\nwarm_worker = false\n\n[drift]\non_stop = "block"\n'


def _agent(request: pytest.FixtureRequest) -> str:
    return str(request.module.AGENT)


@pytest.fixture(scope="module")
def agent_cli(request: pytest.FixtureRequest) -> Path:
    """The module's pinned CLI, ``npm ci``-ed when missing; skipped without Node."""
    agent = _agent(request)
    try:
        binary = install_agent(agent)
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.fail(f"npm ci of the pinned {CLI_NAMES[agent]} failed: {exc}")
    if binary is None:
        pytest.skip(f"node/npm not found: the real {CLI_NAMES[agent]} end-to-end tests need Node")
    return binary


@pytest.fixture
def installed(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A demo copy with the decisions seed merged and ``charter install AGENT``."""
    project = copy_demo(tmp_path / "demo", charter_toml=CHARTER_TOML)
    merge_demo_seed(project)
    res = charter_run("install", _agent(request), cwd=project)
    assert res.returncode == 0, res.stderr
    return project


def serve_sessions(
    new_server: Callable[[tuple[Any, ...]], S], open_session: Callable[[Path, S], T]
) -> Iterator[Callable[..., T]]:
    """The body of a ``session`` fixture: yields ``make(project, *scripts)``, which starts
    a fresh scripted server answering from ``scripts`` and opens a session on it; every
    server is stopped when the test ends."""
    servers: list[S] = []

    def make(project: Path, *scripts: Any) -> T:
        server = new_server(scripts).__enter__()
        servers.append(server)
        return open_session(project, server)

    yield make
    for server in servers:
        server.__exit__(None, None, None)


@pytest.fixture
def session(
    request: pytest.FixtureRequest, agent_cli: Path, tmp_path: Path
) -> Iterator[Callable[..., Any]]:
    """``session(project, *scripts)``: a session of the module's CLI on ``project``
    against a fresh scripted server answering from ``scripts``."""
    cls = SESSIONS[_agent(request)]
    home = tmp_path / "home"
    yield from serve_sessions(
        ScriptedServer,
        lambda project, server: cls(agent_cli, project, home, server, path_prepend=[VENV_BIN]),
    )


def ok(run: CliRun) -> None:
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-2000:])


def tool_outputs(request: Request) -> list[str]:
    return [text for role, text in request.items() if role == "tool"]


#: a model answer that proposes what one of the demo's bound decisions rules out
DRIFT = "Done. We could also build a native mobile app for field staff next quarter."


def drift_feedback(
    installed: Path, session: Callable[..., Any], model_role: str, hook: str
) -> tuple[list[Request], str]:
    """One prompt whose first answer drifts (later answers comply), in a session of the
    module's CLI: its main requests (``hook`` must have sent the model back once) and
    the user text the CLI sent after the drifted answer (``model_role``'s item)."""
    replies = iter([DRIFT])

    def drift_once(request: Request) -> Reply | None:
        return Reply(next(replies, "Understood: no mobile app, the decision stands."))

    s = session(installed, drift_once)
    ok(s.prompt("Summarise the plan for the credit notes feature"))
    requests: list[Request] = s.server.main_requests()
    assert len(requests) == 2, f"{hook} sent the model back to work"
    after = requests[1].items()
    drifted = after.index((model_role, DRIFT))
    return requests, "\n".join(t for r, t in after[drifted + 1 :] if r == "user")
