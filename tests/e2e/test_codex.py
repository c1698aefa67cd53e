"""Charter inside the real Codex CLI: what the model actually receives.

Each test runs the pinned ``codex`` (tools/codex, ``make codex``) in a temporary copy of
the demo project, ``charter install codex``-ed, against a scripted Responses API server
and asserts on the request bodies Codex sent. Expected rule texts come from Charter's
own CLI on the same copy. Skipped only when Node/npm is absent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.agent_e2e import Reply, Request, developer_texts
from tests.conftest import charter_run
from tests.e2e.conftest import CONSTITUTION, RULES, drift_feedback, ok, tool_outputs
from tests.e2e.test_claude_code import PROMPTS, fresh_hook_rules, rule_lines

AGENT = "codex"


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
    _, feedback = drift_feedback(installed, session, "assistant", "the Stop hook")
    assert "MOBILE_APP" in feedback and "QA-PGC" in feedback


def test_path_rules_arrive_with_a_patched_file_once(installed: Path, session: Any) -> None:
    """Codex edits through ``apply_patch`` (its only file tool): its PostToolUse names the
    tool ``apply_patch`` with the patch as ``command``, and the rules of
    ``backend/AGENTS.md`` reach the model after the patch adds a file below ``backend/``;
    a second patch there adds none of them again."""
    # both inside the active track's write scope (its SPEC.md), so the guardrails pass them
    patches = iter(["backend/app/credit_notes.py", "backend/tests/test_credit_notes.py"])

    def patch_a_file(request: Request) -> Reply | None:
        path = next(patches, None) if request.is_main else None
        if path is None:
            return None
        body = f"*** Begin Patch\n*** Add File: {path}\n+VALUE = 1\n*** End Patch\n"
        return Reply("Adding it.", "apply_patch", body, chained=True)

    s = session(installed, patch_a_file)
    ok(s.prompt("Add the credit notes module and its tests"))
    requests = s.server.main_requests()
    assert (installed / "backend" / "tests" / "test_credit_notes.py").exists()
    texts = [t for r in requests[-1:] for _, t in r.items()]
    contexts = [t for t in texts if t.startswith("# Project rules for backend/")]
    assert contexts, "no path rules arrived with the patched file"
    assert contexts[0].startswith("# Project rules for backend/app/credit_notes.py")
    given = [line for c in contexts for line in rule_lines(c)]
    assert [line for line in given if line.startswith("backend/AGENTS.md: ")]
    assert len(given) == len(set(given)), "a path rule was given twice"
