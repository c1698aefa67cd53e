"""Charter inside the real Gemini CLI: what the model actually receives.

Each test runs the pinned ``gemini`` (tools/gemini-cli, ``make gemini-cli``) in a
temporary copy of the demo project, ``charter install gemini``-ed, against a scripted
Gemini API server and asserts on the request bodies Gemini CLI sent. Expected rule
texts come from Charter's own CLI on the same copy. Skipped only when Node/npm is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agent_e2e import Reply, Request, hook_contexts
from tests.conftest import charter_run
from tests.e2e.conftest import CONSTITUTION, RULES, drift_feedback, ok, tool_outputs
from tests.e2e.test_claude_code import PROMPTS, fresh_hook_rules, rule_lines

AGENT = "gemini"


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
    requests, feedback = drift_feedback(installed, session, "model", "AfterAgent")
    assert "MOBILE_APP" in feedback and "QA-PGC" in feedback
    # the retry is Gemini CLI resubmitting Charter's correction, not the user speaking:
    # it gets no rules and is not kept as the user's instruction
    assert not [c for c in hook_contexts(requests[1])[2:] if c.startswith(RULES)]
    state = charter_run("session", "recover", cwd=installed).stdout
    instructions = state.split("## The user's instructions")[1].split("\n#")[0]
    assert "Summarise the plan" in instructions and "MOBILE_APP" not in instructions


def test_path_rules_arrive_with_a_file_once(installed: Path, session: Any) -> None:
    """Gemini CLI reads a file below ``backend/`` with ``read_file``: AfterTool hands the
    rules of ``backend/AGENTS.md`` to the model inside the tool's result; a second file
    there adds none of them again."""
    reads = iter(["backend/app/invoices.py", "backend/app/main.py"])

    def read_a_file(request: Request) -> Reply | None:
        path = next(reads, None) if request.is_main else None
        if path is None:
            return None
        return Reply("Reading it.", "read_file", {"file_path": str(installed / path)}, chained=True)

    s = session(installed, read_a_file)
    ok(s.prompt("Look at how invoices are served and at the app's entry point"))
    requests = s.server.main_requests()
    # a tool's result reaches the model as JSON (functionResponse): its text escaped
    contexts = [
        json.loads(f'"{c}"')
        for c in hook_contexts(requests[-1])
        if c.startswith("# Project rules for ") and not c.startswith(RULES)
    ]
    assert contexts, "no path rules arrived with the file"
    assert contexts[0].startswith("# Project rules for backend/app/invoices.py")
    given = [line for c in contexts for line in rule_lines(c)]
    assert [line for line in given if line.startswith("backend/AGENTS.md: ")]
    assert len(given) == len(set(given)), "a path rule was given twice"
    outputs = [o for r in requests for o in tool_outputs(r)]
    assert any("# Project rules for backend/app/invoices.py" in o for o in outputs), outputs
