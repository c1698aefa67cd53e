"""``charter install cursor|codex|gemini`` on tmp projects (portable, idempotent, exactly
reversible) and ``charter agent-hook`` fed each agent's own hook JSON in a subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import hook_answer

Run = Callable[..., subprocess.CompletedProcess[str]]
DEMO = Path(__file__).resolve().parent.parent / "examples" / "demo-project"
AGENTS = {
    "cursor": [".cursor/hooks.json", ".cursor/mcp.json"],
    "codex": [".codex/hooks.json", ".codex/config.toml"],
    "gemini": [".gemini/settings.json"],
}
#: What a user already has in each agent's files before installing Charter.
USER_FILES = {
    ".cursor/hooks.json": (
        '{\n  "version": 1,\n  "hooks": {"stop": [{"command": "./notify.sh"}]}\n}\n'
    ),
    ".cursor/mcp.json": '{"mcpServers": {"db": {"command": "db-mcp"}}}',
    ".codex/hooks.json": (
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n'
    ),
    ".codex/config.toml": (
        '# my codex settings\nmodel = "o4-mini"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n'
    ),
    ".gemini/settings.json": (
        '{\n  "theme": "Dracula",\n  "mcpServers": {"db": {"command": "db-mcp"}}\n}\n'
    ),
}


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git/" not in p.as_posix() and ".charter/" not in p.as_posix()
    }


@pytest.mark.parametrize("agent", sorted(AGENTS))
@pytest.mark.parametrize("existing", [False, True], ids=["fresh", "user-files"])
def test_install_is_portable_idempotent_and_reversible(
    repo: Path, run_charter: Run, agent: str, existing: bool
) -> None:
    if existing:
        for rel in AGENTS[agent]:
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(USER_FILES[rel], encoding="utf-8")
    before = _snapshot(repo)
    res = run_charter("install", agent, cwd=repo)
    assert res.returncode == 0, res.stderr
    written = {rel: (repo / rel).read_text(encoding="utf-8") for rel in AGENTS[agent]}
    for text in written.values():
        # portable: the bare command from PATH, no machine path in a committed file
        assert str(repo) not in text and sys.executable not in text and "/bin/charter" not in text
        assert '"charter"' in text or "charter agent-hook" in text or "charter hook" in text
        if existing:  # the user's own entries are kept
            assert "db-mcp" in text or "notify.sh" in text or "say done" in text
    again = run_charter("install", agent, cwd=repo)
    assert again.returncode == 0 and "already up to date" in again.stdout
    assert {rel: (repo / rel).read_text(encoding="utf-8") for rel in AGENTS[agent]} == written
    res = run_charter("install", agent, "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _snapshot(repo) == before, "uninstall restores the files byte for byte"


def test_shapes(repo: Path, run_charter: Run) -> None:
    for agent in AGENTS:
        assert run_charter("install", agent, cwd=repo).returncode == 0
    cursor = json.loads((repo / ".cursor/hooks.json").read_text())
    assert cursor["version"] == 1
    assert cursor["hooks"]["sessionStart"] == [
        {"command": "charter agent-hook cursor sessionStart", "timeout": 30}
    ]
    assert json.loads((repo / ".cursor/mcp.json").read_text())["mcpServers"]["charter"] == {
        "command": "charter",
        "args": ["mcp"],
    }
    codex = json.loads((repo / ".codex/hooks.json").read_text())["hooks"]
    assert codex["UserPromptSubmit"][0]["hooks"][0]["command"] == "charter hook user-prompt-submit"
    # Codex refuses a PreToolUse "ask": the guardrails answer through the translation
    assert codex["PreToolUse"][0]["hooks"][0]["command"] == "charter agent-hook codex PreToolUse"
    config = tomllib.loads((repo / ".codex/config.toml").read_text())
    assert config["mcp_servers"]["charter"] == {"command": "charter", "args": ["mcp"]}
    gemini = json.loads((repo / ".gemini/settings.json").read_text())
    assert set(gemini["hooks"]) >= {"SessionStart", "BeforeAgent", "BeforeTool", "PreCompress"}
    hook = gemini["hooks"]["BeforeTool"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["command"] == "charter agent-hook gemini BeforeTool"
    assert gemini["mcpServers"]["charter"]["command"] == "charter"


def test_uninstall_after_user_edits_keeps_them(repo: Path, run_charter: Run) -> None:
    assert run_charter("install", "gemini", cwd=repo).returncode == 0
    path = repo / ".gemini/settings.json"
    data = json.loads(path.read_text())
    data["theme"] = "Dracula"
    path.write_text(json.dumps(data))
    assert run_charter("install", "gemini", "--uninstall", cwd=repo).returncode == 0
    assert json.loads(path.read_text()) == {"theme": "Dracula"}
    assert run_charter("install", "codex", cwd=repo).returncode == 0
    config = repo / ".codex/config.toml"
    config.write_text(config.read_text() + '\n[profiles.fast]\nmodel = "o4-mini"\n')
    assert run_charter("install", "codex", "--uninstall", cwd=repo).returncode == 0
    assert tomllib.loads(config.read_text()) == {"profiles": {"fast": {"model": "o4-mini"}}}


def test_bad_settings_are_reported_not_overwritten(repo: Path, run_charter: Run) -> None:
    bad = repo / ".cursor/hooks.json"
    bad.parent.mkdir()
    bad.write_text("{not json")
    res = run_charter("install", "cursor", cwd=repo)
    assert res.returncode != 0 and res.stderr.startswith("charter: error:")
    assert ".cursor/hooks.json" in res.stderr and "Traceback" not in res.stderr
    assert bad.read_text() == "{not json"
    toml = repo / ".codex/config.toml"
    toml.parent.mkdir()
    toml.write_text("model = [")
    res = run_charter("install", "codex", cwd=repo)
    assert res.returncode != 0 and ".codex/config.toml" in res.stderr
    res = run_charter("install", "windsurf", cwd=repo)
    assert res.returncode != 0 and "windsurf" in res.stderr


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agents") / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".charter", "__pycache__"))
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _agent_hook(run: Run, root: Path, agent: str, event: str, payload: dict) -> dict:
    res = run("agent-hook", agent, event, cwd=root, stdin=json.dumps(payload))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert isinstance(out, dict)
    return out


def _cursor(root: Path, conversation: str, event: str, tool: str, tool_input: dict) -> dict:
    """Cursor's hook input for a tool event in ``root``."""
    return {
        "conversation_id": conversation,
        "generation_id": "g1",
        "workspace_roots": [str(root)],
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
    }


def _gemini_start(run: Run, root: Path, session: str, source: str = "startup") -> str:
    """The context Gemini CLI's SessionStart gets for ``session``."""
    payload = {"session_id": session, "cwd": str(root), "source": source}
    out = _agent_hook(run, root, "gemini", "SessionStart", payload)
    return str(out["hookSpecificOutput"]["additionalContext"])


def _instructions(context: str) -> str:
    """The "user's instructions" section of a session-start context."""
    return context.split("## The user's instructions")[1].split("\n#")[0]


def test_cursor_hooks_through_charter(demo: Path, run_charter: Run) -> None:
    base = {"conversation_id": "c1", "generation_id": "g1", "workspace_roots": [str(demo)]}
    start = _agent_hook(
        run_charter, demo, "cursor", "sessionStart", {**base, "hook_event_name": "sessionStart"}
    )
    assert "# Project constitution" in start["additional_context"]
    deny = _agent_hook(
        run_charter,
        demo,
        "cursor",
        "preToolUse",
        _cursor(demo, "c1", "preToolUse", "Shell", {"command": "cd .git && echo x > config"}),
    )
    assert deny["permission"] == "deny" and deny["agent_message"]
    allow = _agent_hook(
        run_charter,
        demo,
        "cursor",
        "preToolUse",
        _cursor(demo, "c1", "preToolUse", "Shell", {"command": "ls backend"}),
    )
    assert allow == {"permission": "allow"}


def test_cursor_file_tools_mark_no_rules_as_given(demo: Path, run_charter: Run) -> None:
    """Cursor's postToolUse answer carries no context: the rules of the path and those for
    every change must not be marked as in the conversation there, or they would never be
    shown when a channel that shows them asks."""
    assert run_charter("compile", cwd=demo).returncode == 0
    source = str(demo / "backend/app/invoices.py")
    cursor = _cursor(demo, "c9", "postToolUse", "Read", {"file_path": source})
    assert _agent_hook(run_charter, demo, "cursor", "postToolUse", cursor) == {}
    out = hook_answer(
        run_charter,
        demo,
        "PostToolUse",
        session_id="c9",
        tool_name="Read",
        tool_use_id="t2",
        tool_input={"file_path": source},
        tool_response={},
    )
    assert out is not None
    text = out["additionalContext"]
    assert "# Project rules for every change" in text and "In backend/AGENTS.md:" in text


def test_gemini_hooks_through_charter(demo: Path, run_charter: Run) -> None:
    base = {
        "session_id": "g1",
        "transcript_path": "",
        "cwd": str(demo),
        "timestamp": "2025-01-01T00:00:00Z",
    }
    start = _agent_hook(
        run_charter,
        demo,
        "gemini",
        "SessionStart",
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
    )
    assert "# Project constitution" in start["hookSpecificOutput"]["additionalContext"]
    prompt = _agent_hook(
        run_charter,
        demo,
        "gemini",
        "BeforeAgent",
        {
            **base,
            "hook_event_name": "BeforeAgent",
            "prompt": "Add a database migration for credit notes",
        },
    )
    context = prompt["hookSpecificOutput"]["additionalContext"]
    assert (
        prompt["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
        and "In CLAUDE.md:\n- " in context
    )
    deny = _agent_hook(
        run_charter,
        demo,
        "gemini",
        "BeforeTool",
        {
            **base,
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "cd .git && echo x > config"},
        },
    )
    assert deny["decision"] == "deny" and deny["reason"]
    bad = run_charter("agent-hook", "gemini", "BeforeTool", cwd=demo, stdin="{oops")
    assert bad.returncode == 0 and json.loads(bad.stdout)["decision"] == "deny"  # fails closed
    unknown = run_charter("agent-hook", "gemini", "Nope", cwd=demo, stdin="{}")
    assert unknown.returncode != 0 and unknown.stderr.startswith("charter: error:")


def test_gemini_prompt_is_read_without_the_hook_context_in_front(
    demo: Path, run_charter: Run
) -> None:
    """``gemini -p`` prepends SessionStart's context, in ``<hook_context>`` tags, to the
    prompt it then gives BeforeAgent (Gemini CLI 0.61.0): Charter answers, and keeps as
    the user's instruction, what the user typed."""
    task = "Add a database migration for credit notes"
    start = _gemini_start(run_charter, demo, "gp1")
    framed = f"<hook_context>{start}</hook_context>\n\n{task}"
    answers = {}
    for session, prompt in (("gp1", framed), ("gp2", task)):
        payload = {"session_id": session, "cwd": str(demo), "prompt": prompt}
        out = _agent_hook(run_charter, demo, "gemini", "BeforeAgent", payload)
        answers[session] = out["hookSpecificOutput"]["additionalContext"]
    assert answers["gp1"] == answers["gp2"]
    instructions = _instructions(_gemini_start(run_charter, demo, "gp3"))
    assert f"- {task}" in instructions and "hook_context" not in instructions


def test_gemini_resume_gets_the_constitution_again(demo: Path, run_charter: Run) -> None:
    """Gemini CLI replays a resumed session without its ``<hook_context>`` messages
    (0.61.0, ``isIgnoredUserContent``): the resumed conversation does not hold what
    SessionStart gave, so resume gives it again (Claude Code's resume replays it)."""
    contexts = [_gemini_start(run_charter, demo, "gr1", source) for source in ("startup", "resume")]
    assert all("# Project constitution" in c for c in contexts)


def test_gemini_retry_of_charters_correction_is_not_a_user_prompt(
    tmp_path: Path, run_charter: Run
) -> None:
    """An AfterAgent deny comes back to Gemini CLI as a new prompt that fires BeforeAgent
    (0.61.0): that prompt gets no rules and is not journaled as the user's instruction."""
    from tests.conftest import copy_demo, merge_demo_seed

    root = copy_demo(tmp_path / "demo", charter_toml=DRIFT_TOML)
    merge_demo_seed(root)
    base = {"session_id": "gd1", "cwd": str(root)}
    task = "Summarise the plan for the credit notes feature"
    first = _agent_hook(run_charter, root, "gemini", "BeforeAgent", {**base, "prompt": task})
    assert "additionalContext" in first["hookSpecificOutput"]
    drift = "Done. We could also build a native mobile app for field staff next quarter."
    stop = _agent_hook(
        run_charter,
        root,
        "gemini",
        "AfterAgent",
        {**base, "prompt": task, "prompt_response": drift, "stop_hook_active": False},
    )
    assert stop["decision"] == "deny" and "MOBILE_APP" in stop["reason"]
    retry = {**base, "prompt": stop["reason"]}
    assert _agent_hook(run_charter, root, "gemini", "BeforeAgent", retry) == {}
    # only once: the same text typed later is the user's
    again = _agent_hook(run_charter, root, "gemini", "BeforeAgent", retry)
    assert again != {}
    instructions = _instructions(_gemini_start(run_charter, root, "gd2"))
    assert task in instructions and instructions.count("MOBILE_APP") == 1


DRIFT_TOML = '[hooks]\nwarm_worker = false\n\n[drift]\non_stop = "block"\n'


def test_codex_guardrails_deny_what_codex_cannot_ask(demo: Path, run_charter: Run) -> None:
    """Codex drops a PreToolUse ``ask`` (and an ``allow`` without updatedInput) as invalid
    output and runs the tool; its edits come as ``apply_patch`` with the patch text."""
    base = {
        "session_id": "cx1",
        "turn_id": "t1",
        "transcript_path": None,
        "cwd": str(demo),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_use_id": "call_1",
    }

    def pre(tool: str, tool_input: dict[str, str]) -> dict:
        payload = {**base, "tool_name": tool, "tool_input": tool_input}
        return _agent_hook(run_charter, demo, "codex", "PreToolUse", payload)

    unverifiable = pre("Bash", {"command": 'F=.env; echo SECRET=1 > "$F"'})
    answer = unverifiable["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert answer["permissionDecisionReason"].startswith("needs the user's confirmation: ")
    assert pre("Bash", {"command": "ls backend"}) == {}
    patch = "*** Begin Patch\n*** Add File: .env\n+SECRET=1\n*** End Patch\n"
    secret = pre("apply_patch", {"command": patch})["hookSpecificOutput"]
    assert secret["permissionDecision"] == "deny" and ".env" in secret["permissionDecisionReason"]
    headless = pre("apply_patch", {"command": "SECRET=1"})["hookSpecificOutput"]
    assert headless["permissionDecision"] == "deny"
    bad = run_charter("agent-hook", "codex", "PreToolUse", cwd=demo, stdin="[1]")
    fail = json.loads(bad.stdout)["hookSpecificOutput"]  # fails closed, in Codex's shape
    assert bad.returncode == 0 and fail["permissionDecision"] == "deny"


def test_codex_install_says_hooks_need_trust(repo: Path, run_charter: Run) -> None:
    res = run_charter("install", "codex", cwd=repo)
    assert res.returncode == 0 and "/hooks" in res.stdout and "trusted project" in res.stdout


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_reinstall_after_user_edits_then_uninstall_keeps_them(
    repo: Path, run_charter: Run, agent: str
) -> None:
    """The bytes recorded at the first install are stale once the user edits a file:
    uninstalling after a second install must not put them back over the user's edits."""
    assert run_charter("install", agent, cwd=repo).returncode == 0
    rel = AGENTS[agent][-1]
    path = repo / rel
    if rel.endswith(".toml"):
        path.write_text(path.read_text() + '\n[profiles.fast]\nmodel = "o4-mini"\n')
    else:
        data = json.loads(path.read_text())
        data.setdefault("mcpServers", {})["db"] = {"command": "db-mcp"}
        path.write_text(json.dumps(data, indent=2))
    assert run_charter("install", agent, cwd=repo).returncode == 0
    res = run_charter("install", agent, "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert path.exists(), "the user's edits are kept"
    text = path.read_text()
    assert ("db-mcp" in text or "o4-mini" in text) and "charter" not in text
    others = [r for r in AGENTS[agent] if r != rel]
    assert not any((repo / r).exists() for r in others), "untouched files are restored"


def test_failed_install_changes_no_file(repo: Path, run_charter: Run) -> None:
    """One bad file stops the whole install before anything is written."""
    hooks = repo / ".codex/hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(USER_FILES[".codex/hooks.json"])
    (repo / ".codex/config.toml").write_text("model = [")
    res = run_charter("install", "codex", cwd=repo)
    assert res.returncode != 0 and ".codex/config.toml" in res.stderr
    assert hooks.read_text() == USER_FILES[".codex/hooks.json"]
    assert not (repo / ".charter/installs/codex.json").exists()


def test_uninstall_removes_the_directories_install_created(repo: Path, run_charter: Run) -> None:
    for agent in AGENTS:
        assert run_charter("install", agent, cwd=repo).returncode == 0
        assert run_charter("install", agent, "--uninstall", cwd=repo).returncode == 0
    for name in (".cursor", ".codex", ".gemini"):
        assert not (repo / name).exists(), name


def test_agent_hook_outside_any_project_touches_nothing(tmp_path: Path) -> None:
    """Without the agent naming its project (GEMINI_PROJECT_DIR, Cursor's workspace_roots),
    a ``cwd`` in no project must not be handed on as one."""
    import os
    import time

    outside = tmp_path / "outside"
    (outside / "notes").mkdir(parents=True)
    (outside / "notes/CLAUDE.md").write_text("# Notes\n\n- Some rule nobody asked for.\n")
    drop = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    payload = {"session_id": "g1", "cwd": str(outside), "source": "startup"}
    started = time.monotonic()
    res = subprocess.run(
        [sys.executable, "-m", "charter", "agent-hook", "gemini", "SessionStart"],
        cwd=outside,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert res.returncode == 0 and json.loads(res.stdout) == {}, res.stderr
    assert "no project" in res.stderr and time.monotonic() - started < 10
    assert not (outside / ".charter").exists()


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_dry_run_writes_nothing(repo: Path, run_charter: Run, agent: str) -> None:
    """``--dry-run`` is accepted for every agent: it must show, never write."""
    res = run_charter("install", agent, "--dry-run", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert all(f"would write {rel}" in res.stdout for rel in AGENTS[agent]), res.stdout
    assert not any((repo / rel).exists() for rel in AGENTS[agent])
    assert not (repo / ".charter/installs").exists()
    assert run_charter("install", agent, cwd=repo).returncode == 0
    res = run_charter("install", agent, "--uninstall", "--dry-run", cwd=repo)
    assert all(f"would remove {rel}" in res.stdout for rel in AGENTS[agent]), res.stdout
    assert all((repo / rel).exists() for rel in AGENTS[agent])


def test_install_warns_when_the_bare_command_will_not_be_found(repo: Path) -> None:
    """The installed hooks run the bare ``charter`` from PATH; installing with a Charter
    that PATH does not find (a venv not activated) must say so, not leave hooks that
    silently never run."""
    import os

    from tests.conftest import CHARTER_BIN, run_script

    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    res = run_script("install", "cursor", cwd=repo, env=env)
    assert res.returncode == 0, res.stderr
    assert "not on PATH" in res.stdout and str(CHARTER_BIN.parent) in res.stdout
    on_path = {**os.environ, "PATH": f"{CHARTER_BIN.parent}:/usr/bin:/bin"}
    res = run_script("install", "gemini", cwd=repo, env=on_path)
    assert res.returncode == 0 and "not on PATH" not in res.stdout


def test_claude_code_install_run_as_a_module_warns_when_charter_is_not_on_path(
    repo: Path,
) -> None:
    """``python -m charter install claude-code`` with no ``charter`` on PATH wrote hooks
    running the bare ``charter`` (no executable to name) and said nothing, while the
    Cursor, Codex and Gemini installs warn: every hook then failed until ``doctor`` was
    run. It now says so, naming the folder of the console script beside the interpreter."""
    import os
    import subprocess

    from tests.conftest import CHARTER, CHARTER_BIN

    def install(path: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PATH": path}
        return subprocess.run(
            [*CHARTER, "install", "claude-code"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    res = install("/usr/bin:/bin")
    assert res.returncode == 0, res.stderr
    assert '"command": "charter hook session-start"' in (repo / ".claude/settings.json").read_text()
    assert "not on PATH" in res.stdout and str(CHARTER_BIN.parent) in res.stdout
    res = install(f"{CHARTER_BIN.parent}:/usr/bin:/bin")
    assert res.returncode == 0 and "not on PATH" not in res.stdout


@pytest.mark.parametrize(
    "agent,rel,event",
    [
        ("claude-code", ".claude/settings.json", "Stop"),
        ("codex", ".codex/hooks.json", "Stop"),
        ("cursor", ".cursor/hooks.json", "stop"),
        ("gemini", ".gemini/settings.json", "SessionStart"),
    ],
)
def test_an_event_that_is_not_a_list_is_reported_not_a_crash(
    repo: Path, run_charter: Run, agent: str, rel: str, event: str
) -> None:
    text = json.dumps({"hooks": {event: "./notify.sh"}})
    (repo / rel).parent.mkdir(parents=True)
    (repo / rel).write_text(text)
    res = run_charter("install", agent, cwd=repo)
    assert res.returncode == 2 and res.stderr.startswith("charter: error:"), res.stderr
    assert rel in res.stderr and event in res.stderr and "not modified" in res.stderr
    assert "AttributeError" not in res.stderr
    assert (repo / rel).read_text() == text


def test_a_command_a_rule_forbids_is_denied_for_every_agent(demo: Path, run_charter: Run) -> None:
    """The demo's backend/AGENTS.md adds dependencies with `uv add`, never `pip install`:
    Cursor's Shell, Gemini's run_shell_command and Codex's Bash calls are denied alike,
    each in the agent's own answer shape, citing the rule."""
    command = "cd backend && pip install httpx"
    assert run_charter("compile", cwd=demo).returncode == 0  # as each agent's session start
    cursor = _agent_hook(
        run_charter,
        demo,
        "cursor",
        "preToolUse",
        _cursor(demo, "c2", "preToolUse", "Shell", {"command": command}),
    )
    assert cursor["permission"] == "deny" and "backend/AGENTS.md:L" in cursor["agent_message"]
    gemini = _agent_hook(
        run_charter,
        demo,
        "gemini",
        "BeforeTool",
        {
            "session_id": "g2",
            "cwd": str(demo),
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        },
    )
    assert gemini["decision"] == "deny" and "backend/AGENTS.md:L" in gemini["reason"]
    res = run_charter(
        "agent-hook",
        "codex",
        "PreToolUse",
        cwd=demo,
        stdin=json.dumps(
            {
                "session_id": "x2",
                "cwd": str(demo),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command},
            }
        ),
    )
    assert res.returncode in (0, 2), res.stderr
    assert "backend/AGENTS.md:L" in res.stdout + res.stderr


def test_an_unknown_agent_hook_is_one_readable_line(repo: Path, run_charter: Run) -> None:
    proc = run_charter("agent-hook", "cursor", "bogus", cwd=repo, stdin="{}")
    assert proc.returncode == 2 and proc.stdout == ""
    line = proc.stderr.strip()
    assert "\n" not in line and "unknown agent hook cursor bogus" in line
    assert "cursor: " in line and "preToolUse" in line and "{" not in line


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_file_with_windows_line_endings_keeps_them_and_comes_back_byte_for_byte(
    repo: Path, run_charter: Run, agent: str
) -> None:
    # settings saved on Windows (CRLF): read as text, the install recorded the file with
    # its line endings turned into LF, rewrote it so, and uninstall "restored" LF bytes
    for rel in AGENTS[agent]:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(USER_FILES[rel].replace("\n", "\r\n").encode())
    before = _snapshot(repo)
    assert run_charter("install", agent, cwd=repo).returncode == 0
    for rel in AGENTS[agent]:
        raw = (repo / rel).read_bytes()
        assert b"charter" in raw
        if "\n" in USER_FILES[rel]:
            assert raw.count(b"\n") == raw.count(b"\r\n"), f"{rel} keeps its CRLF endings"
        if rel.endswith(".toml"):
            assert "charter" in tomllib.loads(raw.decode())["mcp_servers"]
        else:
            json.loads(raw)
    again = run_charter("install", agent, cwd=repo)
    assert again.returncode == 0 and "already up to date" in again.stdout
    res = run_charter("install", agent, "--uninstall", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert _snapshot(repo) == before, "uninstall restores the files byte for byte"


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_json_file_keeps_its_own_indentation(repo: Path, run_charter: Run, agent: str) -> None:
    # a tab-indented settings file came back indented by two spaces: every line a change
    json_files = [rel for rel in AGENTS[agent] if rel.endswith(".json")]
    for rel in json_files:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        data = json.loads(USER_FILES[rel])
        (repo / rel).write_text(json.dumps(data, indent="\t") + "\n")
    assert run_charter("install", agent, cwd=repo).returncode == 0
    for rel in json_files:
        text = (repo / rel).read_text()
        indented = [line for line in text.splitlines() if line[:1].isspace()]
        assert "charter" in text and indented, rel
        assert all(line.startswith("\t") for line in indented), f"{rel} keeps its tabs"


def test_install_json_separates_files_from_notes_for_every_agent(tmp_path: Path) -> None:
    # `install` printed prose only: a script setting up many repositories could not tell
    # what was written from what it should tell the user, and cursor/codex/gemini named
    # their files by absolute path while the dry run and Claude Code's named them relative
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "CLAUDE.md").write_text("# R\n\n- Always run the tests.\n", encoding="utf-8")

    def run(*args: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "charter", "install", *args, "--json"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    for agent in ("claude-code", "cursor", "codex", "gemini"):
        planned = run(agent, "--dry-run")
        assert planned["dry_run"] is True and planned["changed"] is True, planned
        assert all(f.startswith("would ") for f in planned["files"]), planned
        done = run(agent)
        assert done["agent"] == agent and done["action"] == "install" and done["changed"]
        assert done["files"] and not any(str(tmp_path) in f for f in done["files"]), done
        assert not any(n.split(" ", 1)[0] in {"write", "wrote"} for n in done["notes"])
        again = run(agent)
        assert again["changed"] is False and again["files"] == [], again
        gone = run(agent, "--uninstall")
        assert gone["action"] == "uninstall" and gone["changed"], gone


def test_every_installer_reports_what_it_did_in_the_same_words(
    repo: Path, run_charter: Run
) -> None:
    # Claude Code's installer said "write .claude/settings.json" after writing it, and
    # "remove …" after removing it, where the other agents' said "wrote" and "removed"
    for agent in ("claude-code", *sorted(AGENTS)):
        plan = json.loads(run_charter("install", agent, "--dry-run", "--json", cwd=repo).stdout)
        assert plan["files"] and all(f.startswith("would write ") for f in plan["files"]), plan
        done = json.loads(run_charter("install", agent, "--json", cwd=repo).stdout)
        assert done["files"] and all(f.startswith("wrote ") for f in done["files"]), done
        gone = json.loads(run_charter("install", agent, "--uninstall", "--json", cwd=repo).stdout)
        assert gone["files"] and all(f.startswith("removed ") for f in gone["files"]), gone


def test_an_agent_prompt_that_is_not_text_is_one_note_not_its_repr(
    demo: Path, run_charter: Run
) -> None:
    """Gemini's BeforeAgent with a list as its prompt: the rules were chosen for the
    list's repr; now the prompt is dropped with a note and nothing is answered for it."""
    payload = {"session_id": "gx1", "cwd": str(demo), "prompt": ["Add a database migration"]}
    res = run_charter("agent-hook", "gemini", "BeforeAgent", cwd=demo, stdin=json.dumps(payload))
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert "prompt is list, not text; ignored" in res.stderr, res.stderr
    assert "database" not in res.stdout.lower()
