"""Charter inside the real Claude Code CLI: what the model actually receives.

Each test runs the pinned ``claude`` (tools/claude-code, ``make claude-code``) in a
temporary copy of the demo project against :class:`ScriptedModel` and asserts on the
request bodies the CLI sent. Expected rule texts are computed by Charter's own CLI on the
same copy, never written into the test. Skipped only when Node/npm is absent.

Later assertions (managed rule files not loaded, nothing injected twice) slot in as
more tests over the same fixtures: ``installed`` gives a project with Charter installed,
``session()`` a fresh CLI session on it, and :func:`hook_contexts` the hook texts.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.claude_e2e import (
    ClaudeSession,
    Reply,
    Request,
    ScriptedModel,
    install_claude_code,
)
from tests.conftest import copy_demo, merge_demo_seed
from tests.e2e.conftest import CHARTER_TOML, VENV_BIN, ok, serve_sessions

CHARTER = [sys.executable, "-m", "charter"]
PROMPTS = [
    "Add a database migration for a new credit_notes table",
    "Fix the flaky test in backend/tests/test_invoices.py",
]


@pytest.fixture(scope="module")
def claude() -> Path:
    try:
        binary = install_claude_code()
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.fail(f"npm ci of the pinned Claude Code CLI failed: {exc}")
    if binary is None:
        pytest.skip("node/npm not found: the real Claude Code CLI end-to-end tests need Node")
    return binary


def charter(project: Path, *args: str, stdin: str | None = None) -> str:
    res = subprocess.run(
        [*CHARTER, *args], cwd=project, capture_output=True, text=True, input=stdin, timeout=300
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """A demo copy with the decisions seed merged and ``charter install claude-code``."""
    project = copy_demo(tmp_path / "demo", charter_toml=CHARTER_TOML)
    merge_demo_seed(project)
    charter(project, "install", "claude-code")
    return project


SessionFactory = Callable[..., ClaudeSession]


@pytest.fixture
def session(claude: Path, tmp_path: Path) -> Iterator[SessionFactory]:
    home = tmp_path / "home"
    yield from serve_sessions(
        ScriptedModel,
        lambda project, model: ClaudeSession(claude, project, home, model, path_prepend=[VENV_BIN]),
    )


def hook_contexts(request: Request, event: str) -> list[str]:
    """The texts Claude Code shows the model as ``EVENT hook additional context``."""
    marker = f"{event} hook additional context: "
    out = []
    for text in request.message_texts():
        for part in text.split(marker)[1:]:
            out.append(part.split("</system-reminder>")[0])
    return out


def calls_once(text: str, tool: str, tool_input: dict[str, Any]) -> Callable[..., Reply | None]:
    """A scripted model that calls ``tool`` once, then answers in plain text."""
    pending = [tool_input]

    def reply(body: dict[str, Any]) -> Reply | None:
        return Reply(text, tool, pending.pop()) if pending else None

    return reply


def first_tool_result(s: ClaudeSession, prompt: str) -> str:
    """What the model reads back after the one tool call it asked for on ``prompt``."""
    ok(s.prompt(prompt))
    requests = s.model.main_requests()
    assert len(requests) >= 2, "the model was not asked again after its tool call"
    return requests[1].last_user_text()


def expected_rules(project: Path, prompt: str) -> list[str]:
    """What Charter retrieves for ``prompt`` (its own CLI, on the same copy)."""
    out = json.loads(charter(project, "context", prompt, "--json"))
    return [row["rule"]["text"] for row in out["shards"]]


def rule_lines(context: str) -> set[str]:
    """The cited rules of a hook context as ``path: - text (Lx-Ly)``: each rule line sits
    under its file's ``In path:`` header."""
    found, path = set(), ""
    for line in context.splitlines():
        header = re.fullmatch(r"In (\S+):", line)
        if header:
            path = header.group(1)
        elif path and re.match(r"- .+\(L\d+(-L\d+)?\)$", line):
            found.add(f"{path}: {line}")
    return found


def fresh_hook_rules(project: Path, prompt: str, n: int) -> set[str]:
    """The rule lines ``charter hook user-prompt-submit`` gives ``prompt`` in a new session."""
    payload = {
        "session_id": f"e2e-expected-{n}",
        "transcript_path": str(project / ".charter" / f"expected-{n}.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    out = json.loads(charter(project, "hook", "user-prompt-submit", stdin=json.dumps(payload)))
    return rule_lines(out["hookSpecificOutput"]["additionalContext"])


def test_demo_claude_md_import_is_loaded(tmp_path: Path, session: Any) -> None:
    project = copy_demo(tmp_path / "plain")
    s = session(project)
    ok(s.prompt("Say hello"))
    (request,) = s.model.main_requests()
    text = request.all_text()
    assert "Contents of" in text and "CLAUDE.md" in text
    # the @-import on its own line: Claude Code loads the team conventions file
    conventions = (project / ".claude" / "team-conventions.md").read_text().splitlines()
    assert conventions[-1].lstrip("- ") in text


def test_constitution_once_and_rules_per_prompt(installed: Path, session: Any) -> None:
    s = session(installed)
    # one process, as an interactive session (no --resume); the last prompt has no task
    ok(s.stream(*PROMPTS, "Yes, go ahead."))
    requests = s.model.main_requests()
    assert len(requests) == len(PROMPTS) + 1
    *requests, reply = requests
    # a reply with no task in it gets no rules (the content gate), not a meaningless top-N
    assert reply.last_user_text().rstrip().endswith("Yes, go ahead.")
    assert len(hook_contexts(reply, "UserPromptSubmit")) == len(
        hook_contexts(requests[-1], "UserPromptSubmit")
    )
    last = requests[-1]
    starts = hook_contexts(last, "SessionStart")
    constitution = [c for c in starts if "# Project constitution" in c]
    assert len(constitution) == 1, "the constitution is held once in the conversation"
    hash_line = re.search(r"Project constitution \(Charter; always applies; hash (\w+)", starts[0])
    assert hash_line and last.all_text().count(hash_line.group(1)) == 1
    for request, prompt in zip(requests, PROMPTS, strict=True):
        assert request.last_user_text().rstrip().endswith(prompt)
        contexts = hook_contexts(request, "UserPromptSubmit")
        assert contexts, f"no Charter rules for {prompt!r}"
        received = rule_lines(contexts[-1])
        assert received, f"no cited rules for {prompt!r}"
        # every rule the model got is one Charter retrieves for this prompt (fewer when a
        # rule is already in the conversation); the first prompt gets them all
        expected = fresh_hook_rules(installed, prompt, len(received))
        assert received <= expected
        if prompt == PROMPTS[0]:
            assert received == expected
    # the invariants bound by the decisions seed are pinned at session start
    assert "Bound decisions" in starts[0] and "Stripe" in starts[0]
    # managed rules: Claude Code no longer loads the rule file whole ...
    for request in requests:
        text = request.all_text()
        assert not ("Contents of" in text and "/CLAUDE.md" in text), "CLAUDE.md loaded whole"
    # ... and no rule is injected twice while it is still in the conversation
    given = [line for c in hook_contexts(last, "UserPromptSubmit") for line in rule_lines(c)]
    assert given and len(given) == len(set(given)), "a rule was injected twice"


def test_resume_keeps_the_constitution_once(installed: Path, session: Any) -> None:
    """`claude --resume` replays the conversation, SessionStart context included, and
    runs SessionStart again: the constitution is not given a second time; the session
    state is, refreshed."""
    s = session(installed)
    ok(s.prompt(PROMPTS[0]))
    ok(s.prompt(PROMPTS[1]))  # the harness resumes the first session
    starts = hook_contexts(s.model.main_requests()[-1], "SessionStart")
    assert len(starts) == 2, "the replayed start and the resume's"
    assert sum(c.count("# Project constitution") for c in starts) == 1
    assert "# Project constitution" in starts[0] and "# Session state" in starts[1]
    assert PROMPTS[0] in starts[1], "the refreshed state holds what was said since"


def test_mcp_tools_listed_and_callable(installed: Path, session: Any) -> None:
    task = "Add a database migration for a new credit_notes table"

    def call_rules(body: dict[str, Any]) -> Reply | None:
        return Reply("Looking up the rules.", "mcp__charter__rules_for_task", {"task": task})

    s = session(installed, call_rules)
    ok(s.prompt(task))
    first, second = s.model.main_requests()[:2]
    names = [n for n in first.tool_names() if n.startswith("mcp__charter__")]
    assert {"mcp__charter__rules_for_task", "mcp__charter__get_constitution"} <= set(names)
    result = second.last_user_text()
    for rule in expected_rules(installed, task)[:3]:
        assert rule in result, "the MCP tool's answer reached the model"
    assert "CLAUDE.md" in result


def test_repin_after_compact(installed: Path, session: Any) -> None:
    s = session(installed)
    ok(s.stream(*PROMPTS, "/compact", "Continue with the credit notes API"))
    after = s.model.main_requests()[-1]
    assert after.last_user_text().rstrip().endswith("Continue with the credit notes API")
    starts = hook_contexts(after, "SessionStart")
    assert any("# Project constitution" in c for c in starts), "re-pinned after /compact"
    assert sum(c.count("# Project constitution") for c in starts) == 1
    # the per-prompt rules of before the compaction are gone from the new context
    assert len(hook_contexts(after, "UserPromptSubmit")) == 1
    before = s.model.main_requests()[len(PROMPTS) - 1]
    assert len(hook_contexts(before, "UserPromptSubmit")) == len(PROMPTS)


def test_stop_blocked_on_drift(installed: Path, session: Any) -> None:
    drift = "Done. We could also build a native mobile app for field staff next quarter."
    replies = iter([drift])

    def drift_once(body: dict[str, Any]) -> Reply | None:
        return Reply(next(replies, "Understood: no mobile app, the decision stands."))

    s = session(installed, drift_once)
    ok(s.prompt("Summarise the plan for the credit notes feature"))
    requests = s.model.main_requests()
    assert len(requests) == 2, "the Stop hook sent the model back to work"
    feedback = requests[1].all_text()
    assert "MOBILE_APP" in feedback and "QA-PGC" in feedback


def test_path_rules_arrive_with_a_file_once(installed: Path, session: Any) -> None:
    """The agent reads a file below ``backend/``: the rules of ``backend/AGENTS.md`` reach
    the model with the tool's result (managed rules keep Claude Code from loading rule
    files itself), and with them the rules that apply to every change; a second file there
    adds none of them again."""
    reads = iter(["backend/app/invoices.py", "backend/app/main.py"])

    def read_a_file(body: dict[str, Any]) -> Reply | None:
        path = next(reads, None)
        return Reply("Reading it.", "Read", {"file_path": str(installed / path)}) if path else None

    s = session(installed, read_a_file)
    ok(s.stream("Look at how invoices are served", "And the app's entry point"))
    requests = s.model.main_requests()
    given = [
        line
        for request in requests[-1:]
        for context in hook_contexts(request, "PostToolUse:Read")
        for line in rule_lines(context)
    ]
    backend = [line for line in given if line.startswith("backend/AGENTS.md: ")]
    assert backend, "no backend/AGENTS.md rule arrived with the file"
    assert len(given) == len(set(given)), "a path rule was given twice"
    first_read = next(r for r in requests if hook_contexts(r, "PostToolUse:Read"))
    contexts = hook_contexts(first_read, "PostToolUse:Read")
    assert "# Project rules for backend/app/invoices.py" in contexts[0]
    # the rules that apply to every change came with the first source file, once
    assert "# Project rules for every change" in contexts[0]
    every = [c for c in hook_contexts(requests[-1], "PostToolUse:Read") if "every change" in c]
    assert len(every) == 1, "the every-change rules were given twice"


def test_rules_naming_a_commit_arrive_before_the_commit_runs(installed: Path, session: Any) -> None:
    """The prompt does not say "commit", so the prompt hook gives no commit rules; the
    model then commits: the PreToolUse hook hands over the rules that name committing,
    and the model receives them with the tool's result (Claude Code 2.1.197 shows a
    PreToolUse context as a system reminder there)."""
    commit = {"command": 'git commit --dry-run -m "fix(invoices): round totals"'}
    s = session(installed, calls_once("Committing.", "Bash", commit))
    ok(s.prompt("Fix the rounding of invoice totals"))
    requests = s.model.main_requests()
    assert len(requests) >= 2, "the model was not asked again after its tool call"
    given = hook_contexts(requests[1], "PreToolUse:Bash")
    assert given, "no PreToolUse context reached the model"
    assert "# Project rules for this `git commit`" in given[0]
    assert "commit" in given[0].split("\n", 1)[1].lower()


def test_a_command_a_rule_forbids_is_denied_before_it_runs(installed: Path, session: Any) -> None:
    """The model asks for ``pip install`` in ``backend/``, where ``backend/AGENTS.md`` says
    to add dependencies with ``uv add``: the PreToolUse hook denies the call and the model
    reads why, with the rule's citation, in the tool result."""
    scratch = Path(tempfile.mkdtemp(prefix="charter-e2e-"))  # writable for the agent
    marker = scratch / "pip-ran"
    install = {"command": f"cd backend && pip install httpx && touch {marker}"}
    s = session(installed, calls_once("Installing it.", "Bash", install))
    result = first_tool_result(s, "Add httpx to the backend")
    assert "a project rule forbids" in result and "backend/AGENTS.md:L" in result
    assert "`uv add`" in result
    assert not marker.exists(), "the denied command ran"
    shutil.rmtree(scratch, ignore_errors=True)


def test_an_edit_a_rule_forbids_is_denied_before_it_is_made(installed: Path, session: Any) -> None:
    """A rule says the API client is generated and never edited by hand; the model tries
    to write into it: the PreToolUse hook denies the Write, the file stays as it was,
    and the model reads the rule's citation in the tool result."""
    rules = installed / "web" / "AGENTS.md"
    rules.write_text(
        rules.read_text() + "\n- The API client is generated from the OpenAPI schema: never edit "
        "`web/src/api/` by hand, run `make client`.\n"
    )
    target = installed / "web" / "src" / "api" / "client.ts"
    before = target.read_bytes() if target.exists() else None
    patch = {"file_path": str(target), "content": "// patched by hand\n"}
    s = session(installed, calls_once("Patching the client.", "Write", patch))
    result = first_tool_result(s, "Add a timeout to the API client")
    assert "a project rule forbids editing" in result and "web/AGENTS.md:L" in result
    assert (target.read_bytes() if target.exists() else None) == before
