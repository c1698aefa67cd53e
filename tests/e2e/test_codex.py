"""Charter inside the real Codex CLI: what the model actually receives.

Each test runs the pinned ``codex`` (tools/codex, ``make codex``) in a temporary copy of
the demo project, ``charter install codex``-ed, against a scripted Responses API server
and asserts on the request bodies Codex sent. Expected rule texts come from Charter's
own CLI on the same copy. Skipped only when Node/npm is absent.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent_e2e import (
    AgentRun,
    CodexSession,
    Reply,
    Request,
    ScriptedServer,
    developer_texts,
    install_agent,
)
from tests.conftest import charter_run, copy_demo, merge_demo_seed
from tests.e2e.test_claude_code import CHARTER_TOML, PROMPTS, fresh_hook_rules, rule_lines

VENV_BIN = Path(sys.executable).parent
RULES = "# Project rules for this request"
CONSTITUTION = "# Project constitution"


@pytest.fixture(scope="module")
def codex() -> Path:
    try:
        binary = install_agent("codex")
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.fail(f"npm ci of the pinned Codex CLI failed: {exc}")
    if binary is None:
        pytest.skip("node/npm not found: the real Codex CLI end-to-end tests need Node")
    return binary


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """A demo copy with the decisions seed merged and ``charter install codex``."""
    project = copy_demo(tmp_path / "demo", charter_toml=CHARTER_TOML)
    merge_demo_seed(project)
    res = charter_run("install", "codex", cwd=project)
    assert res.returncode == 0, res.stderr
    return project


SessionFactory = Callable[..., CodexSession]


@pytest.fixture
def session(codex: Path, tmp_path: Path) -> Iterator[SessionFactory]:
    servers: list[ScriptedServer] = []

    def make(project: Path, *scripts: Any) -> CodexSession:
        server = ScriptedServer(scripts).__enter__()
        servers.append(server)
        return CodexSession(codex, project, tmp_path / "home", server, path_prepend=[VENV_BIN])

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
    ok(s.prompt(PROMPTS[1]))  # `codex exec resume` of the same thread
    first, last = s.server.main_requests()
    # SessionStart: a developer message before the prompt, constitution and bound
    # decisions in it; UserPromptSubmit: a developer message after the prompt
    items = first.items()
    prompt_at = items.index(("user", PROMPTS[0]))
    starts = [t for r, t in items[:prompt_at] if r == "developer" and CONSTITUTION in t]
    assert len(starts) == 1 and "Bound decisions" in starts[0] and "Stripe" in starts[0]
    after = [t for r, t in items[prompt_at:] if r == "developer" and t.startswith(RULES)]
    assert len(after) == 1
    assert rule_lines(after[0]) == fresh_hook_rules(installed, PROMPTS[0], 0)
    # the resumed thread: the constitution is held once (resume gives the state only)
    text = last.all_text()
    assert text.count(CONSTITUTION) == 1
    hash_line = re.search(r"Project constitution \(Charter; always applies; hash (\w+)", text)
    assert hash_line and text.count(hash_line.group(1)) == 1
    rules = [t for t in developer_texts(last) if t.startswith(RULES)]
    assert len(rules) == 2, "one rules message per prompt"
    second = rule_lines(rules[1])
    assert second and second <= fresh_hook_rules(installed, PROMPTS[1], 1)
    given = [line for t in rules for line in rule_lines(t)]
    assert len(given) == len(set(given)), "a rule was injected twice"
    assert PROMPTS[0] in [t for t in developer_texts(last) if "# Session state" in t][-1]


def test_guardrails_block_dangerous_calls(installed: Path, session: Any) -> None:
    calls = iter(
        [
            Reply("Cleaning up.", "exec_command", {"cmd": "rm -r .git"}),
            Reply(
                "Adding it.",
                "apply_patch",
                "*** Begin Patch\n*** Add File: .env\n+K=1\n*** End Patch\n",
            ),
            Reply("Writing it.", "exec_command", {"cmd": 'F=.env; echo K=1 > "$F"'}),
        ]
    )

    def call_once(request: Request) -> Reply | None:
        if request.ends_with_tool_result():
            return None
        return next(calls, None)

    s = session(installed, call_once)
    for prompt in ("Clean up the repository", "Add the local settings", "Set the key"):
        ok(s.prompt(prompt))
    outputs = [out for r in s.server.main_requests() for out in tool_outputs(r)]
    blocked = sorted({o for o in outputs if "blocked by PreToolUse hook" in o})
    assert len(blocked) == 3, outputs
    assert any(".git is protected" in o for o in blocked)
    assert any("apply_patch: .env is a secret file" in o for o in blocked)
    assert any("needs the user's confirmation" in o for o in blocked)
    assert (installed / ".git" / "HEAD").exists() and not (installed / ".env").exists()


def test_mcp_tools_announced_and_callable(installed: Path, session: Any) -> None:
    task = PROMPTS[0]

    def announced(request: Request) -> list[str]:
        return [t for t in developer_texts(request) if "mcp__charter:" in t]

    def call_rules(request: Request) -> Reply | None:
        outputs = tool_outputs(request)
        if len(outputs) > 8 or any('"constitution"' in o for o in outputs):
            return None
        if not announced(request):  # Codex starts MCP servers beside the first request
            return Reply("Waiting.", "exec_command", {"cmd": "sleep 1"}, chained=True)
        return Reply("Looking up.", "rules_for_task", {"task": task}, "mcp__charter", True)

    s = session(installed, call_rules)
    # `codex exec` never asks, so an MCP call needs the server's tools pre-approved
    ok(s.prompt(task, 'mcp_servers.charter.default_tools_approval_mode="approve"'))
    requests = s.server.main_requests()
    # Codex defers MCP tools behind tool_search and names the namespace to the model,
    # with Charter's server instructions
    assert "tool_search" in requests[0].tool_names()
    assert any("Charter: the project's rules" in t for r in requests for t in announced(r))
    result = [o for o in tool_outputs(requests[-1]) if '"constitution"' in o]
    assert result, tool_outputs(requests[-1])
    expected = json.loads(charter_run("context", task, "--json", cwd=installed).stdout)
    for row in expected["shards"][:3]:
        assert json.dumps(row["rule"]["text"])[1:-1] in result[0]


def test_stop_blocked_on_drift(installed: Path, session: Any) -> None:
    drift = "Done. We could also build a native mobile app for field staff next quarter."
    replies = iter([drift])

    def drift_once(request: Request) -> Reply | None:
        return Reply(next(replies, "Understood: no mobile app, the decision stands."))

    s = session(installed, drift_once)
    ok(s.prompt("Summarise the plan for the credit notes feature"))
    requests = s.server.main_requests()
    assert len(requests) == 2, "the Stop hook sent the model back to work"
    after = requests[1].items()
    drifted = after.index(("assistant", drift))
    feedback = "\n".join(t for r, t in after[drifted + 1 :] if r == "user")
    assert "MOBILE_APP" in feedback and "QA-PGC" in feedback
