"""Charter inside the real Gemini CLI: what the model actually receives.

Each test runs the pinned ``gemini`` (tools/gemini-cli, ``make gemini-cli``) in a
temporary copy of the demo project, ``charter install gemini``-ed, against a scripted
Gemini API server and asserts on the request bodies Gemini CLI sent. Expected rule
texts come from Charter's own CLI on the same copy. Skipped only when Node/npm is absent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent_e2e import (
    AgentRun,
    GeminiSession,
    Reply,
    Request,
    ScriptedServer,
    hook_contexts,
    install_agent,
)
from tests.conftest import charter_run, copy_demo, merge_demo_seed
from tests.e2e.test_claude_code import CHARTER_TOML, PROMPTS, fresh_hook_rules, rule_lines

VENV_BIN = Path(sys.executable).parent
RULES = "# Project rules for this request"
CONSTITUTION = "# Project constitution"


@pytest.fixture(scope="module")
def gemini() -> Path:
    try:
        binary = install_agent("gemini")
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.fail(f"npm ci of the pinned Gemini CLI failed: {exc}")
    if binary is None:
        pytest.skip("node/npm not found: the real Gemini CLI end-to-end tests need Node")
    return binary


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """A demo copy with the decisions seed merged and ``charter install gemini``."""
    project = copy_demo(tmp_path / "demo", charter_toml=CHARTER_TOML)
    merge_demo_seed(project)
    res = charter_run("install", "gemini", cwd=project)
    assert res.returncode == 0, res.stderr
    return project


SessionFactory = Callable[..., GeminiSession]


@pytest.fixture
def session(gemini: Path, tmp_path: Path) -> Iterator[SessionFactory]:
    servers: list[ScriptedServer] = []

    def make(project: Path, *scripts: Any) -> GeminiSession:
        server = ScriptedServer(scripts).__enter__()
        servers.append(server)
        return GeminiSession(gemini, project, tmp_path / "home", server, path_prepend=[VENV_BIN])

    yield make
    for server in servers:
        server.__exit__(None, None, None)


def ok(run: AgentRun) -> None:
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-2000:])


def tool_outputs(request: Request) -> list[str]:
    return [text for role, text in request.items() if role == "tool"]


def test_rules_arrive_once_per_session_and_per_prompt(installed: Path, session: Any) -> None:
    s = session(installed)
    ok(s.prompt(PROMPTS[0]))
    first = s.server.main_requests()[-1]
    contexts = hook_contexts(first)
    starts = [c for c in contexts if CONSTITUTION in c]
    assert len(starts) == 1 and "Bound decisions" in starts[0] and "Stripe" in starts[0]
    rules = [c for c in contexts if c.startswith(RULES)]
    assert len(rules) == 1
    # BeforeAgent answers what the user typed, not the SessionStart context `gemini -p`
    # puts in front of it
    assert rule_lines(rules[0]) == fresh_hook_rules(installed, PROMPTS[0], 0)
    assert PROMPTS[0] in first.all_text()
    ok(s.prompt(PROMPTS[1]))  # `gemini --resume latest`
    last = s.server.main_requests()[-1]
    text = last.all_text()
    assert text.count(CONSTITUTION) == 1, "the constitution is held once"
    later = [c for c in hook_contexts(last) if c.startswith(RULES)]
    second = rule_lines(later[-1])
    assert second and second <= fresh_hook_rules(installed, PROMPTS[1], 1)
    given = [line for c in later for line in rule_lines(c)]
    assert len(given) == len(set(given)), "a rule was injected twice"
    # the session state journals what the user typed, never Charter's own context
    state = charter_run("session", "recover", cwd=installed)
    assert state.returncode == 0 and PROMPTS[1] in state.stdout
    assert "hook_context" not in state.stdout


def test_guardrails_deny_a_dangerous_tool_call(installed: Path, session: Any) -> None:
    def wipe(request: Request) -> Reply | None:
        return Reply("Cleaning up.", "run_shell_command", {"command": "rm -r .git"})

    s = session(installed, wipe)
    ok(s.prompt("Clean up the repository"))
    outputs = [o for r in s.server.main_requests() for o in tool_outputs(r)]
    assert any("Charter guardrails" in o and ".git is protected" in o for o in outputs), outputs
    assert (installed / ".git" / "HEAD").exists()


def test_mcp_tools_listed_and_callable(installed: Path, session: Any) -> None:
    task = PROMPTS[0]

    def call_rules(request: Request) -> Reply | None:
        return Reply("Looking up the rules.", "mcp_charter_rules_for_task", {"task": task})

    s = session(installed, call_rules)
    ok(s.prompt(task))
    first, second = s.server.main_requests()[:2]
    names = set(first.tool_names())
    assert {"mcp_charter_rules_for_task", "mcp_charter_get_constitution"} <= names
    (result,) = tool_outputs(second)
    expected = json.loads(charter_run("context", task, "--json", cwd=installed).stdout)
    for row in expected["shards"][:3]:
        assert json.dumps(row["rule"]["text"])[1:-1] in result


def test_after_agent_retries_on_drift(installed: Path, session: Any) -> None:
    drift = "Done. We could also build a native mobile app for field staff next quarter."
    replies = iter([drift])

    def drift_once(request: Request) -> Reply | None:
        return Reply(next(replies, "Understood: no mobile app, the decision stands."))

    s = session(installed, drift_once)
    ok(s.prompt("Summarise the plan for the credit notes feature"))
    requests = s.server.main_requests()
    assert len(requests) == 2, "AfterAgent sent the model back to work"
    after = requests[1].items()
    drifted = after.index(("model", drift))
    feedback = "\n".join(t for r, t in after[drifted + 1 :] if r == "user")
    assert "MOBILE_APP" in feedback and "QA-PGC" in feedback
    # the retry is Gemini CLI resubmitting Charter's correction, not the user speaking:
    # it gets no rules and is not kept as the user's instruction
    assert not [c for c in hook_contexts(requests[1])[2:] if c.startswith(RULES)]
    state = charter_run("session", "recover", cwd=installed).stdout
    instructions = state.split("## The user's instructions")[1].split("\n#")[0]
    assert "Summarise the plan" in instructions and "MOBILE_APP" not in instructions
