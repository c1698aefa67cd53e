"""Claude Code hooks through a real subprocess, fed real hook JSON."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from charter.paths import worker_socket
from tests.conftest import hook_payload, run_hook, start_worker, write

RULES = """# Rules

## Security

- Never commit secrets or `.env` files.

## Database

- Every schema change needs a reversible Alembic migration.
- Add an index for each foreign key column.

## Testing

- Mock external HTTP calls in unit tests with respx.
"""
NO_WORKER = "[hooks]\nwarm_worker = false\n"


def _context(stdout: str, event: str) -> str:
    out = json.loads(stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == event
    text: str = out["hookSpecificOutput"]["additionalContext"]
    return text


def test_session_start_pins_constitution_including_after_compact(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    for source in ("startup", "compact"):
        proc = run_hook(run_charter, repo, "SessionStart", source=source)
        assert proc.returncode == 0, proc.stderr
        text = _context(proc.stdout, "SessionStart")
        assert "Never commit secrets" in text
        assert "In CLAUDE.md:\n- Never commit secrets or `.env` files. (L3-L5)" in text
        assert ("compaction" in text) is (source == "compact")


def test_session_start_on_resume_gives_nothing_the_conversation_holds(
    repo: Path, run_charter
) -> None:
    """Claude Code replays a resumed conversation with its SessionStart context: an
    unchanged answer is not given again, a changed constitution is, and a new
    conversation (startup, clear, compact) always gets the whole answer."""
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    first = _context(
        run_hook(run_charter, repo, "SessionStart", source="startup").stdout, "SessionStart"
    )
    assert "Never commit secrets" in first
    resumed = run_hook(run_charter, repo, "SessionStart", source="resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "Never commit secrets" not in resumed.stdout
    write(repo, "CLAUDE.md", RULES + "\n## Safety\n\n- Never run migrations against production.\n")
    changed = run_hook(run_charter, repo, "SessionStart", source="resume")
    assert "Never run migrations against production" in _context(changed.stdout, "SessionStart")
    again = run_hook(run_charter, repo, "SessionStart", source="resume")
    assert "Never run migrations against production" not in again.stdout
    for source in ("clear", "compact", "startup"):
        whole = run_hook(run_charter, repo, "SessionStart", source=source)
        assert "Never commit secrets" in _context(whole.stdout, "SessionStart"), source


def test_user_prompt_submit_injects_task_rules(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    payload = hook_payload("UserPromptSubmit", repo, prompt="Add a due_date column to invoices")
    proc = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=payload)
    assert proc.returncode == 0, proc.stderr
    text = _context(proc.stdout, "UserPromptSubmit")
    assert "Alembic migration" in text
    assert "Never commit secrets" not in text  # constitution is pinned at session start


def test_hook_recompiles_when_rules_change(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    payload = hook_payload("UserPromptSubmit", repo, prompt="Add a new column to the orders table")
    first = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=payload)
    assert "Alembic" in first.stdout
    write(repo, "CLAUDE.md", RULES.replace("Alembic", "yoyo-migrations"))
    second = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=payload)
    assert "yoyo-migrations" in second.stdout and "Alembic" not in second.stdout


def test_hooks_fail_open_on_bad_input(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    for stdin in ("not json at all", "[1, 2]"):
        proc = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=stdin)
        assert proc.returncode == 0
        assert proc.stdout == ""
        assert "charter:" in proc.stderr and "Traceback" not in proc.stderr
    write(repo, "charter.toml", "[rules\nbroken toml")
    proc = run_hook(run_charter, repo, "SessionStart", source="startup")
    assert proc.returncode == 0 and proc.stdout == ""
    assert "failed open" in proc.stderr and "Traceback" not in proc.stderr


def test_warm_worker_answers_and_sees_rule_changes(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    sock, pid = start_worker(run_charter, repo)
    try:
        payload = hook_payload("UserPromptSubmit", repo, prompt="Add a new column to orders")
        proc = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=payload)
        assert "Alembic" in _context(proc.stdout, "UserPromptSubmit")
        write(repo, "CLAUDE.md", RULES.replace("Alembic", "yoyo-migrations"))
        proc = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=payload)
        assert "yoyo-migrations" in proc.stdout
    finally:
        os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 10
    while sock.exists() and time.time() < deadline:
        time.sleep(0.1)
    assert not sock.exists(), "worker left its socket behind"


def test_hook_answers_within_its_deadline(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    proc = run_hook(
        run_charter, repo, "SessionStart", env={"CHARTER_HOOK_DEADLINE": "0.01"}, source="startup"
    )
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "no answer within" in proc.stderr and "Traceback" not in proc.stderr
    time.sleep(1)
    assert not worker_socket(repo).with_suffix(".lock").exists(), "warm_worker = false ignored"


def test_worker_socket_depends_on_the_charter_version(repo: Path, monkeypatch) -> None:
    import charter

    current = worker_socket(repo)
    monkeypatch.setattr(charter, "__version__", "999.0.0")
    assert worker_socket(repo) != current
    assert worker_socket(repo).parent == current.parent


def test_fast_path_finds_the_same_worker_socket(repo: Path, monkeypatch) -> None:
    from charter import __version__
    from charter.integrations.claude_code import fastpath
    from charter.paths import runtime_base

    xdg = os.environ["XDG_RUNTIME_DIR"]  # a private one (conftest)
    for runtime in (xdg, None):
        if runtime is None:
            monkeypatch.delenv("XDG_RUNTIME_DIR")
        for tmpdir in (None, str(repo)):
            if tmpdir is None:
                monkeypatch.delenv("TMPDIR", raising=False)
            else:
                monkeypatch.setenv("TMPDIR", tmpdir)
            assert fastpath.runtime_base() == str(runtime_base())
            assert fastpath.socket_path(str(repo), __version__) == str(worker_socket(repo))
    nested = repo / "a" / "b"
    nested.mkdir(parents=True)
    assert fastpath.find_root(str(nested)) == str(repo.resolve())
    from charter.paths import shared_dir

    monkeypatch.setenv("HOME", str(nested))
    for where in ("/", str(repo), str(nested), str(nested / "c"), str(repo.parent)):
        assert fastpath.shared_dir(where) == shared_dir(where), where
    assert shared_dir(str(repo)) and not shared_dir(str(nested / "c"))


def test_tool_hooks_take_the_fast_path_through_the_worker(repo: Path, run_charter) -> None:
    _sock, pid = start_worker(run_charter, repo)
    env = {"PYTHONPROFILEIMPORTTIME": "1", "CLAUDE_PROJECT_DIR": str(repo)}
    try:
        deny = hook_payload(
            "PreToolUse", repo, tool_name="Write", tool_input={"file_path": str(repo / ".git/x")}
        )
        proc = run_charter("hook", "pre-tool-use", cwd=repo, stdin=deny, env=env)
        answer = json.loads(proc.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny"
        assert "claude_code.hook_main" not in proc.stderr  # answered by the fast path
        assert "| json\n" not in proc.stderr
        read = hook_payload(
            "PostToolUse",
            repo,
            tool_name="Read",
            tool_input={"file_path": str(repo / "notes.txt")},
            tool_response={},
        )
        proc = run_charter("hook", "post-tool-use", cwd=repo, stdin=read, env=env)
        assert proc.returncode == 0 and proc.stdout == ""
        assert "claude_code.hook_main" not in proc.stderr
        log = (repo / "artifacts/sessions/test-session/work_log.md").read_text()
        assert "Read notes.txt → ok" in log
        broken = run_charter("hook", "pre-tool-use", cwd=repo, stdin="{not json", env=env)
        assert "claude_code.hook_main" in broken.stderr  # the full client decides
        assert (
            json.loads(broken.stdout.splitlines()[-1])["hookSpecificOutput"]["permissionDecision"]
            == "deny"
        )
    finally:
        os.kill(pid, signal.SIGTERM)


def test_rules_already_in_the_conversation_are_not_injected_again(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    prompt = hook_payload("UserPromptSubmit", repo, prompt="Add a new column to orders")
    first = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=prompt)
    assert "Alembic" in _context(first.stdout, "UserPromptSubmit")
    again = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=prompt)
    assert "Alembic" not in again.stdout
    assert "already in the conversation" in again.stderr + again.stdout
    other = json.loads(prompt)
    other["session_id"] = "another-session"
    fresh = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=json.dumps(other))
    assert "Alembic" in fresh.stdout  # another conversation has not seen it
    for source, repeats in (("resume", False), ("compact", True)):
        start = hook_payload("SessionStart", repo, source=source)
        assert run_charter("hook", "session-start", cwd=repo, stdin=start).returncode == 0
        after = run_charter("hook", "user-prompt-submit", cwd=repo, stdin=prompt)
        assert ("Alembic" in after.stdout) is repeats, source


def test_lean_prompt_hook_adds_at_most_its_share_of_new_rules(repo: Path, run_charter) -> None:
    from charter.tokens import count_tokens

    bullets = "\n".join(
        f"- Database rule {i}: every schema change needs a reversible Alembic migration "
        f"step number {i} with its own index on column c{i}."
        for i in range(30)
    )
    write(repo, "CLAUDE.md", "# Rules\n\n## Database\n\n" + bullets + "\n")
    prompt = hook_payload("UserPromptSubmit", repo, prompt="Add a reversible Alembic migration")

    def rule_lines(toml: str) -> tuple[list[str], str]:
        write(repo, "charter.toml", NO_WORKER + toml)
        run_hook(run_charter, repo, "SessionStart")
        out = _context(
            run_charter("hook", "user-prompt-submit", cwd=repo, stdin=prompt).stdout,
            "UserPromptSubmit",
        )
        return [line for line in out.splitlines() if line.startswith("- ")], out

    full, _ = rule_lines("")
    lean, text = rule_lines("[rules]\nhook_budget_fraction = 0.05\n")
    whole = count_tokens((repo / "CLAUDE.md").read_text())
    assert 0 < len(lean) < len(full)
    assert sum(count_tokens(line) + 1 for line in lean) <= int(whole * 0.05)
    assert "rules_for_task lists them" in text


#: the hook finds its project from its cwd alone
NO_PROJECT_DIR = ("CLAUDE_PROJECT_DIR",)


def test_hook_outside_any_project_says_so_and_touches_nothing(
    repo: Path, tmp_path: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """A ``cwd`` with no charter.toml, [tool.charter] or .git above it (/tmp, $HOME) is
    not a project: the hook must not compile every rule file under it nor write there."""
    outside = tmp_path / "outside"
    write(outside, "notes/CLAUDE.md", "# Notes\n\n- Some rule nobody asked for.\n")
    for event, name, extra in (
        ("session-start", "SessionStart", {"source": "startup"}),
        ("user-prompt-submit", "UserPromptSubmit", {"prompt": "Add a column to invoices"}),
        ("pre-tool-use", "PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        ("stop", "Stop", {"last_assistant_message": "Done."}),
    ):
        started = time.monotonic()
        payload = hook_payload(name, outside, **extra)
        proc = run_charter("hook", event, cwd=outside, stdin=payload, unset=NO_PROJECT_DIR)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout == "", proc.stdout
        assert "no project" in proc.stderr
        assert time.monotonic() - started < 10
    assert not (outside / ".charter").exists()
    # the hook's own working directory is still used when it lies in a project
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", NO_WORKER)
    payload = hook_payload("SessionStart", outside, source="startup")
    proc = run_charter("hook", "session-start", cwd=repo, stdin=payload, unset=NO_PROJECT_DIR)
    assert "Never commit secrets" in _context(proc.stdout, "SessionStart")
    assert not (outside / ".charter").exists()


def test_an_agent_started_in_home_or_tmp_names_no_project(
    tmp_path: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """Claude Code started in $HOME names it as $CLAUDE_PROJECT_DIR, Cursor opened on /tmp
    names that in workspace_roots: neither is a project, so the hooks answer nothing (one
    note) and write nothing there; before, session start compiled every rule file under
    $HOME and wrote .charter/ and docs/tracks/ into it. A named folder outside git is
    still the project."""
    home = tmp_path / "home"
    write(home, "notes/AGENTS.md", "# Notes\n\n- Some rule nobody asked for.\n")
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": str(home)}
    payload = hook_payload("SessionStart", home, source="startup")
    proc = run_charter("hook", "session-start", cwd=home, stdin=payload, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == "" and "no project" in proc.stderr, proc.stderr
    guard = hook_payload("PreToolUse", home, tool_name="Bash", tool_input={"command": "ls"})
    proc = run_charter("hook", "pre-tool-use", cwd=home, stdin=guard, env=env)
    assert proc.returncode == 0 and "no project" in proc.stderr, proc.stderr
    assert not (home / ".charter").exists() and not (home / "docs").exists()
    cursor = {"conversation_id": "c1", "workspace_roots": [str(home)], "cwd": str(home)}
    proc = run_charter(
        "agent-hook", "cursor", "sessionStart", cwd=home, stdin=json.dumps(cursor), env=env
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}, proc.stderr
    assert not (home / ".charter").exists() and not (home / "docs").exists()
    # a project folder the agent names, in no git repository, stays the project
    plain = tmp_path / "plain"
    write(plain, "CLAUDE.md", RULES)
    write(plain, "NOTES.md", "x\n")
    payload = hook_payload("SessionStart", plain, source="startup")
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": str(plain)}
    proc = run_charter("hook", "session-start", cwd=plain, stdin=payload, env=env)
    assert "Never commit secrets" in _context(proc.stdout, "SessionStart"), proc.stderr


def test_every_spelling_of_an_event_runs_its_hook(tmp_path: Path, run_charter) -> None:
    """A settings file may name the event as Claude Code does (``PreToolUse``): the
    guardrail must still run, not exit quietly (which Claude Code reads as "allow")."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "charter.toml", NO_WORKER)
    body = json.dumps(
        {
            "session_id": "s",
            "cwd": str(root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / ".git" / "config"), "content": "x"},
        }
    )
    for name in ("pre-tool-use", "PreToolUse", "pre_tool_use", "pretooluse"):
        proc = run_charter("hook", name, cwd=root, stdin=body)
        assert proc.returncode == 0, (name, proc.stderr)
        decision = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"]
        assert decision == "deny", name


def test_an_unknown_event_is_answered_as_its_input_names_it_or_refused(
    tmp_path: Path, run_charter
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "charter.toml", NO_WORKER)
    body = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf .git"},
    }
    proc = run_charter("hook", "before-tool", cwd=root, stdin=json.dumps(body))
    assert "unknown hook event 'before-tool'" in proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    body.pop("hook_event_name")
    proc = run_charter("hook", "before-tool", cwd=root, stdin=json.dumps(body))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "usage: charter hook" in proc.stderr
