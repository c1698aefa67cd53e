"""Rules scoped to a path reach the agent when it reads or changes a file there.

Real ``charter hook post-tool-use`` processes fed Claude Code's PostToolUse JSON, in a
real git repository with a root CLAUDE.md, a nested AGENTS.md and a Cursor rule with
globs, compiled by the real CLI.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import hook_answer, run_hook, write
from tests.decisions_support import no_worker

Run = Callable[..., subprocess.CompletedProcess[str]]

ROOT_RULES = "# Rules\n\n- Never push to main.\n- Every money amount is an integer of cents.\n"
BACKEND = (
    "# Backend\n\n"
    "- Add dependencies with `uv add`, never with `pip install`.\n"
    "- Use the async session from `get_session` in request handlers.\n"
    "- Tests mirror `app/` under `backend/tests/`.\n"
)
CURSOR = (
    "---\ndescription: React components\nglobs: web/**/*.tsx\nalwaysApply: false\n---\n\n"
    "- Write function components with named exports.\n"
    "- Give list items stable keys from data ids, never array indexes.\n"
)


@pytest.fixture
def project(repo: Path, run_charter: Run) -> Path:
    no_worker(repo)
    write(repo, "CLAUDE.md", ROOT_RULES)
    write(repo, "backend/AGENTS.md", BACKEND)
    write(repo, ".cursor/rules/react.mdc", CURSOR)
    write(repo, "backend/app/invoices.py", "X = 1\n")
    write(repo, "web/src/List.tsx", "export const List = 1;\n")
    assert run_charter("compile", cwd=repo).returncode == 0
    return repo


#: the rules that apply to every change join the first source file's context
#: (tests/test_code_rules.py); this file is about the path-scoped ones
EVERY_CHANGE = "# Project rules for every change"


def _touch(run_charter: Run, root: Path, tool: str, path: str, call: str, **extra: Any) -> str:
    """The path-scoped part of the context PostToolUse gives for ``tool`` on ``path`` ("" for
    none)."""
    out = hook_answer(
        run_charter,
        root,
        "PostToolUse",
        tool_name=tool,
        tool_use_id=call,
        tool_input={"file_path": path, **extra},
        tool_response={},
    )
    if out is None:
        return ""
    return str(out["additionalContext"]).split(EVERY_CHANGE, 1)[0].rstrip("\n")


def test_a_read_below_a_nested_agents_md_brings_its_rules_once(
    project: Path, run_charter: Run
) -> None:
    text = _touch(run_charter, project, "Read", str(project / "backend/app/invoices.py"), "t1")
    assert "# Project rules for backend/app/invoices.py" in text
    assert "In backend/AGENTS.md:" in text
    assert "never with `pip install`. (L3)" in text and "(L5)" in text
    assert "Never push to main" not in text  # unscoped rules are the prompt hook's
    assert "stable keys" not in text  # another path's rules
    # the same rules are in the conversation now: another file there adds nothing
    assert _touch(run_charter, project, "Edit", str(project / "backend/app/other.py"), "t2") == ""
    # a Cursor rule's globs scope it the same way
    web = _touch(run_charter, project, "Read", str(project / "web/src/List.tsx"), "t3")
    assert "In .cursor/rules/react.mdc:" in web and "stable keys" in web
    assert "pip install" not in web


def test_compaction_clears_them_and_a_retried_call_gets_them_again(
    project: Path, run_charter: Run
) -> None:
    path = str(project / "backend/app/invoices.py")
    first = _touch(run_charter, project, "Read", path, "t1")
    assert "In backend/AGENTS.md:" in first
    # the same tool call answered again (its first answer was lost): the same rules
    assert _touch(run_charter, project, "Read", path, "t1") == first
    started = run_hook(run_charter, project, "SessionStart", source="compact")
    assert started.returncode == 0, started.stderr
    assert _touch(run_charter, project, "Read", path, "t9") == first


def test_a_read_of_a_rule_file_does_not_hand_over_its_own_rules(
    project: Path, run_charter: Run
) -> None:
    # `backend/AGENTS.md` lies in its own scope, `backend/**`: a Read of it brought its
    # rules again beside the whole file the agent had just read; a partial Read (an
    # offset or limit) still brings them, and a source file there brings them as before
    whole = _touch(run_charter, project, "Read", str(project / "backend/AGENTS.md"), "t1")
    assert "backend/AGENTS.md:" not in whole and "pip install" not in whole
    part = _touch(run_charter, project, "Read", str(project / "backend/AGENTS.md"), "t2", limit=3)
    assert "In backend/AGENTS.md:" in part


@pytest.mark.parametrize(
    ("tool", "path", "extra"),
    [
        ("Read", "/etc/hosts", {}),  # outside the project
        ("Read", "../outside/backend/x.py", {}),
        ("Bash", "backend/app/invoices.py", {}),  # not a file tool
        ("Read", "", {}),
        ("Read", "README.md", {}),  # no scoped rule covers it
    ],
)
def test_nothing_for_other_tools_or_paths(
    project: Path, run_charter: Run, tool: str, path: str, extra: dict[str, Any]
) -> None:
    assert _touch(run_charter, project, tool, path, "t1", **extra) == ""


def test_the_budget_holds_some_back_and_zero_turns_it_off(project: Path, run_charter: Run) -> None:
    path = str(project / "backend/app/invoices.py")
    (project / "charter.toml").write_text(
        "[hooks]\nwarm_worker = false\n\n[rules]\npath_rules_max_tokens = 30\n"
    )
    some = _touch(run_charter, project, "Read", path, "t1")
    assert "In backend/AGENTS.md:" in some
    assert some.count("\n- ") < 3 and "more rules scoped to this path" in some
    (project / "charter.toml").write_text(
        "[hooks]\nwarm_worker = false\n\n[rules]\npath_rules_max_tokens = 0\n"
    )
    assert _touch(run_charter, project, "Read", path, "t2") == ""


def test_a_relative_path_resolves_against_the_calls_cwd(project: Path, run_charter: Run) -> None:
    text = _touch(run_charter, project, "Write", "backend/app/new.py", "t1", content="x = 1\n")
    assert "In backend/AGENTS.md:" in text


def _codex_patch(run_charter: Run, root: Path, patch: str, call: str) -> str:
    """The context ``charter hook post-tool-use`` gives Codex's PostToolUse of an
    ``apply_patch`` (Codex 0.169.0 sends the tool under its own name, the patch text as
    ``tool_input.command``, and reads ``hookSpecificOutput.additionalContext`` back)."""
    done = run_hook(
        run_charter,
        root,
        "PostToolUse",
        tool_name="apply_patch",
        tool_use_id=call,
        tool_input={"command": patch},
        tool_response="Success. Updated the following files:\n",
        turn_id="turn-1",
        model="gpt-5",
    )
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_a_codex_patch_brings_the_rules_of_every_file_it_writes(
    project: Path, run_charter: Run
) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: backend/app/invoices.py\n@@\n-X = 1\n+X = 2\n"
        f"*** Add File: {project / 'web/src/Row.tsx'}\n+export const Row = 1;\n"
        "*** Delete File: README.md\n*** End Patch\n"
    )
    text = _codex_patch(run_charter, project, patch, "call_1")
    assert text.startswith("# Project rules for backend/app/invoices.py, web/src/Row.tsx")
    assert "In backend/AGENTS.md:" in text and "In .cursor/rules/react.mdc:" in text
    again = "*** Begin Patch\n*** Add File: backend/app/x.py\n+Y = 1\n*** End Patch\n"
    assert _codex_patch(run_charter, project, again, "call_2") == ""
    deleted = "*** Begin Patch\n*** Delete File: backend/app/x.py\n*** End Patch\n"
    assert _codex_patch(run_charter, project, deleted, "call_3") == ""


def _gemini_after_tool(run_charter: Run, root: Path, tool: str, path: str, stamp: str) -> str:
    """The context ``charter agent-hook gemini AfterTool`` gives Gemini CLI for the input
    Gemini CLI 0.61.0 sends (no tool call id; its own tool names; ``file_path``)."""
    payload = {
        "session_id": "gemini-s1",
        "transcript_path": "",
        "cwd": str(root),
        "hook_event_name": "AfterTool",
        "timestamp": stamp,
        "tool_name": tool,
        "tool_input": {"file_path": path},
        "tool_response": {"llmContent": "X = 1\n", "returnDisplay": ""},
    }
    done = run_charter("agent-hook", "gemini", "AfterTool", cwd=root, stdin=json.dumps(payload))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout or "{}")
    specific = out.get("hookSpecificOutput") or {}
    if not specific:
        return ""
    assert specific["hookEventName"] == "AfterTool"
    return str(specific["additionalContext"])


def test_gemini_after_tool_brings_them_once(project: Path, run_charter: Run) -> None:
    path = str(project / "backend/app/invoices.py")
    text = _gemini_after_tool(run_charter, project, "read_file", path, "2026-01-01T00:00:00.001Z")
    assert text.startswith("# Project rules for backend/app/invoices.py")
    assert "In backend/AGENTS.md:" in text
    # a later call names no id either: it is still another call, and finds them given
    other = str(project / "backend/app/other.py")
    later = "2026-01-01T00:00:05.000Z"
    assert _gemini_after_tool(run_charter, project, "replace", other, later) == ""
    web = _gemini_after_tool(
        run_charter, project, "write_file", str(project / "web/src/List.tsx"), later
    )
    assert "In .cursor/rules/react.mdc:" in web


def test_a_prompt_names_a_file_in_a_dot_folder(tmp_path: Path) -> None:
    """A path the prompt names keeps its leading dot (``.github/workflows/ci.yml``): read
    without it, the file was not found and the rules scoped to it never applied."""
    from charter.rules.hooks import files_in_prompt

    write(tmp_path, ".github/workflows/ci.yml", "on: push\n")
    write(tmp_path, "src/app.py", "x = 1\n")
    write(tmp_path.parent, "elsewhere.py", "x = 1\n")
    prompt = "Cache cargo in .github/workflows/ci.yml, and see ./src/app.py, ../elsewhere.py"
    assert files_in_prompt(prompt, tmp_path) == [".github/workflows/ci.yml", "src/app.py"]


def test_the_most_specific_scope_comes_first(repo: Path, run_charter: Run) -> None:
    """A file under several scoped rule files (a Kiro ``fileMatchPattern: "web/*"`` and
    one for ``web/e2e/**``) gets the rules of the narrowest scope first: in file order
    the broad file's rules filled the budget and the e2e file's never arrived."""
    no_worker(repo)
    broad = "".join(f"- Web rule number {n}: keep components small and typed.\n" for n in range(12))
    write(
        repo,
        ".kiro/steering/a-web.md",
        '---\ninclusion: fileMatch\nfileMatchPattern: "web/*"\n---\n\n' + broad,
    )
    write(
        repo,
        ".kiro/steering/b-e2e.md",
        '---\ninclusion: fileMatch\nfileMatchPattern: "web/e2e/**"\n---\n\n'
        "- Wait for the network to be idle before asserting in an end-to-end test.\n",
    )
    write(repo, "web/e2e/login.spec.ts", "test('x', () => {});\n")
    write(repo, "web/app.ts", "export const x = 1;\n")
    (repo / "charter.toml").write_text(
        "[hooks]\nwarm_worker = false\n\n[rules]\npath_rules_max_tokens = 60\n"
    )
    assert run_charter("compile", cwd=repo).returncode == 0
    text = _touch(run_charter, repo, "Read", str(repo / "web/e2e/login.spec.ts"), "t1")
    assert "In .kiro/steering/b-e2e.md:" in text and "network to be idle" in text
    assert "In .kiro/steering/a-web.md:" in text  # the broad file's first rules still fit
    assert "more rules scoped to this path" in text
    # shown in their files' order
    assert text.index("a-web.md") < text.index("b-e2e.md")
    # a file only the broad scope covers: its rules, in file order
    web = _touch(run_charter, repo, "Read", str(repo / "web/app.ts"), "t2")
    assert "Web rule number" in web and "b-e2e.md" not in web
