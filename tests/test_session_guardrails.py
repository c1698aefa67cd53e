"""PreToolUse guardrails: every bypass trick blocked, benign commands pass, fail closed.

The corpus (tests/data/guardrail_cases.json, shared with bench/guardrails_bench.py) runs
through :func:`pre_tool_use_output` on a real project in a tmp dir (real git repo, real
symlink into ``.git``, real track files); a selection runs through the real
``charter hook pre-tool-use`` subprocess with Claude Code's PreToolUse JSON on stdin.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.session.guardrails import pre_tool_use_output
from charter.session.schema import PlanStep, render_plan
from charter.session.shell import analyse
from tests.conftest import write

CASES = json.loads((Path(__file__).parent / "data" / "guardrail_cases.json").read_text())
NO_WORKER = "[hooks]\nwarm_worker = false\n"
SPEC = """# Spec: feat

## Goal
Add the feature to the app package.

## Scope
- `src/app/` (the package)

## Acceptance criteria
- pytest passes
"""


def make_project(base: Path, phase: str, config: str = NO_WORKER) -> Path:
    """A git repo with src/, docs/, a .env, a symlink into .git and a track in ``phase``."""
    root = base / f"repo-{phase}"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "charter.toml", config)
    write(root, "src/app/main.py", "print('a')\n")
    write(root, "docs/a.md", "# a\n")
    write(root, ".env", "TOKEN=1\n")
    (root / ".charter").mkdir()
    (root / "docs" / "link-to-git").symlink_to(root / ".git")
    if phase != "unscoped":
        write(root, "docs/tracks/ACTIVE_TRACK", "feat\n")
        write(root, "docs/tracks/feat/SPEC.md", SPEC)
        verify = "pytest tests/app -q" if phase == "executing" else ""
        steps = [PlanStep("P1", "Write the handler", "pending", verify)]
        write(root, "docs/tracks/feat/PLAN.md", render_plan("feat", steps))
    return root


def _fill(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root)).replace("{home}", os.path.expanduser("~"))
    if isinstance(value, dict):
        return {k: _fill(v, root) for k, v in value.items()}
    return value


def payload(root: Path, tool: str, tool_input: dict[str, Any], n: int = 0) -> dict[str, Any]:
    return {
        "session_id": "s-guard",
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": _fill(tool_input, root),
        "tool_use_id": f"toolu_{n}",
    }


def submit_prompt(run: Any, root: Path, text: str, session_id: str = "s-guard") -> None:
    """``text`` through the real UserPromptSubmit hook, as Claude Code sends it."""
    body = {
        **payload(root, "Bash", {}),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
        "session_id": session_id,
    }
    for key in ("tool_name", "tool_input", "tool_use_id"):
        body.pop(key)
    proc = run("hook", "user-prompt-submit", cwd=root, stdin=json.dumps(body))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def decision(out: dict[str, Any] | None) -> str:
    if out is None:
        return "allow"
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse"
    assert spec["permissionDecisionReason"].startswith("Charter guardrails:")
    return str(spec["permissionDecision"])


@pytest.fixture
def projects(tmp_path: Path) -> dict[str, Path]:
    return {phase: make_project(tmp_path, phase) for phase in ("unscoped", "planning", "executing")}


def _run_cases(cases: list[dict[str, Any]], projects: dict[str, Path]) -> list[tuple[str, str]]:
    results = []
    for n, case in enumerate(cases):
        root = projects[case["phase"]]
        out = pre_tool_use_output(Project.load(root), payload(root, case["tool"], case["input"], n))
        results.append((json.dumps(case["input"])[:90], decision(out)))
    return results


def test_every_bypass_trick_is_denied_or_asked(projects: dict[str, Path]) -> None:
    results = _run_cases(CASES["bypass"], projects)
    allowed = [
        (case["phase"], text)
        for case, (text, got) in zip(CASES["bypass"], results, strict=True)
        if got == "allow"
    ]
    assert not allowed, f"false allows: {allowed}"
    assert len(CASES["bypass"]) >= 60
    # concrete targets are denied, not merely asked; "ask" is kept for what no parser
    # can resolve before the command runs (variables, computed paths, xargs input)
    for case, (text, got) in zip(CASES["bypass"], results, strict=True):
        assert got == case["expect"], text


def test_benign_commands_pass(projects: dict[str, Path]) -> None:
    results = _run_cases(CASES["benign"], projects)
    blocked = [text for text, got in results if got != "allow"]
    assert len(CASES["benign"]) >= 10
    assert len(blocked) <= len(CASES["benign"]) // 10, f"false blocks: {blocked}"
    assert not blocked, f"false blocks: {blocked}"


def check(root: Path, tool: str, tool_input: dict[str, Any]) -> str:
    return decision(pre_tool_use_output(Project.load(root), payload(root, tool, tool_input)))


def test_no_spec_means_only_protected_paths_are_denied(projects: dict[str, Path]) -> None:
    root = projects["unscoped"]
    for rel in ("src/app/main.py", "README.md", "tests/test_x.py", ".github/workflows/ci.yml"):
        assert check(root, "Write", {"file_path": rel}) == "allow"


def test_blocked_call_is_logged_once_with_the_event_time(projects: dict[str, Path]) -> None:
    root = projects["planning"]
    transcript = root / "transcript.jsonl"
    transcript.write_text(
        json.dumps({"type": "assistant", "timestamp": "2025-11-02T10:00:00.000Z"}) + "\n"
    )
    out = pre_tool_use_output(
        Project.load(root), payload(root, "Bash", {"command": "echo x > src/app/main.py"}, 7)
    )
    assert decision(out) == "deny"
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert "planning" in reason and "docs/" in reason and "PLAN.md" in reason
    lines = (root / "artifacts/guardrails/audit.jsonl").read_text().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["tool_use_id"] == "toolu_7" and entry["decision"] == "deny"
    assert entry["time"] == "2025-11-02T10:00:00.000Z"
    assert entry["targets"] == ["src/app/main.py"] and entry["phase"] == "planning"


def test_executing_widens_writes_to_the_spec_scope(projects: dict[str, Path]) -> None:
    planning, executing = projects["planning"], projects["executing"]
    call = ("Write", {"file_path": "src/app/main.py"})
    assert check(planning, *call) == "deny"
    assert check(executing, *call) == "allow"
    # fixing the plan flips the phase (the verdict is cached by content, not by time)
    plan = planning / "docs/tracks/feat/PLAN.md"
    plan.write_text(render_plan("feat", [PlanStep("P1", "Write it", "pending", "pytest -q")]))
    assert check(planning, *call) == "allow"


def test_codex_apply_patch_is_checked_like_a_write(projects: dict[str, Path]) -> None:
    """Codex edits files only through ``apply_patch``, whose input is the patch text:
    every file its headers name is checked (before, a patch wrote ``.env`` unasked)."""

    def patch(*headers: str) -> dict[str, Any]:
        body = "".join(f"*** {h}\n+x\n" for h in headers)
        return {"command": f"*** Begin Patch\n{body}*** End Patch\n"}

    unscoped, executing = projects["unscoped"], projects["executing"]
    assert check(unscoped, "apply_patch", patch("Add File: .env")) == "deny"
    # a committed template of it is not a secret file ("add every new variable to
    # .env.example" is a rule the agent must be able to follow)
    assert check(unscoped, "apply_patch", patch("Update File: .env.example")) == "allow"
    assert check(unscoped, "apply_patch", patch("Update File: .env.local")) == "deny"
    assert check(unscoped, "apply_patch", patch("Update File: src/app/main.py")) == "allow"
    assert check(unscoped, "apply_patch", patch("Delete File: .git/config")) == "deny"
    moved = patch("Update File: src/app/main.py", "Move to: {root}/../elsewhere.py")
    assert check(unscoped, "apply_patch", moved) == "deny"
    assert check(executing, "apply_patch", patch("Add File: README.md")) == "deny"  # scope
    assert check(unscoped, "apply_patch", {"command": "+x"}) == "deny"  # no file named


def test_allowed_tools_globs(tmp_path: Path) -> None:
    tools = '["Read", "Bash", "mcp__charter__*"]'
    config = NO_WORKER + f"\n[session.guardrails]\nallowed_tools = {tools}\n"
    root = make_project(tmp_path, "unscoped", config)
    project = Project.load(root)
    got = {
        tool: decision(pre_tool_use_output(project, payload(root, tool, {"file_path": "a.md"})))
        for tool in ("Read", "Write", "mcp__charter__search", "mcp__other__search")
    }
    assert got == {
        "Read": "allow",
        "Write": "deny",
        "mcp__charter__search": "allow",
        "mcp__other__search": "deny",
    }


def test_paths_are_normalised(tmp_path: Path) -> None:
    root = make_project(tmp_path, "unscoped")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "src" / "out").symlink_to(outside)
    cases = {
        "src/out/x.py": "deny",  # symlink leaving the project
        str(root / "src/app/../../.git/HEAD"): "deny",
        "src\\..\\.git\\config": "deny",
        "./src/./app/x.py": "allow",
        "~/x.txt": "deny",
    }
    for path, want in cases.items():
        out = pre_tool_use_output(Project.load(root), payload(root, "Write", {"file_path": path}))
        assert decision(out) == want, path


def test_shell_tracks_cd_chains_and_subshells() -> None:
    here = "/"
    a = analyse("cd /srv && (cd x; touch a) && touch b", here, "/root", check_dirs=False)
    assert sorted(t.path for t in a.targets) == ["/srv/b", "/srv/x/a"]
    a = analyse("cd /srv || cd /opt; touch c", here, "/root", check_dirs=False)
    assert a.unresolved and not a.targets  # the cd may have gone either way
    a = analyse("cat a | (cd /srv; cat) > out", "/w", "/root", check_dirs=False)
    assert [t.path for t in a.targets] == ["/w/out"]


def test_substitutions_in_an_unquoted_here_document_run_first() -> None:
    """bash expands ``$(…)`` and backticks in the body of ``<<EOF`` (not ``<<'EOF'``)
    before the command runs: a write there is a write."""
    for command in (
        "cat <<EOF > notes.txt\n$(rm -rf .git)\nEOF",
        "cat <<EOF\nsee `echo x > .git/config` here\nEOF",
        'cat <<-EOF\n\t"quoted" $(touch .charter/x)\n\tEOF',
        "python - <<EOF\nprint('$(rm -rf .git)')\nEOF",
    ):
        a = analyse(command, "/w", "/root", check_dirs=False)
        assert [t.path for t in a.targets if "/w/." in t.path], command
    for command in (  # quoted delimiters: the body is literal text
        "cat <<'EOF' > notes.txt\n$(rm -rf .git)\nEOF",
        'cat <<"EOF"\n`echo x > .git/config`\nEOF',
        "cat <<\\EOF\n$(rm -rf .git)\nEOF",
        "cat <<EOF\nprice: \\$(rm -rf .git) and \\`touch .git/x\\`\nEOF",
    ):
        a = analyse(command, "/w", "/root", check_dirs=False)
        assert not [t.path for t in a.targets if "/w/." in t.path], command
        assert not a.unresolved, command


def test_brace_expansion_names_each_path() -> None:
    """``rm -rf {.git,build}`` removes .git: bash expands braces before the command runs."""
    a = analyse("rm -rf {.git,build} .{charter,cache}/x", "/w", "/root", check_dirs=False)
    assert sorted(t.path for t in a.targets) == [
        "/w/.cache/x",
        "/w/.charter/x",
        "/w/.git",
        "/w/build",
    ]
    a = analyse("touch f{1..3}.txt x{a,{b,c}}", "/w", "/root", check_dirs=False)
    assert sorted(t.path for t in a.targets) == [
        "/w/f1.txt", "/w/f2.txt", "/w/f3.txt", "/w/xa", "/w/xb", "/w/xc",
    ]  # fmt: skip
    quoted = analyse("touch '{.git,x}' \"{a,b}\" {single}", "/w", "/root", check_dirs=False)
    assert sorted(t.path for t in quoted.targets) == ["/w/{.git,x}", "/w/{a,b}", "/w/{single}"]
    huge = analyse("touch f{1..100000}", "/w", "/root", check_dirs=False)
    assert huge.unresolved and not huge.targets


def test_commands_run_by_trap_watch_busybox_and_parallel_are_checked() -> None:
    for command in (
        "trap 'rm -rf .git' EXIT",
        "watch -n 5 rm -rf .git",
        "busybox rm -rf .git",
        "sudo busybox sh -c 'rm -rf .git'",
    ):
        a = analyse(command, "/w", "/root", check_dirs=False)
        assert "/w/.git" in [t.path for t in a.targets], command
    a = analyse("parallel -j 4 rm -rf ::: build .git", "/w", "/root", check_dirs=False)
    assert sorted(t.path for t in a.targets) == ["/w/.git", "/w/build"]
    a = analyse("cat list | parallel rm {}", "/w", "/root", check_dirs=False)
    assert a.unresolved  # the names come from the input: ask
    for command in (
        "trap - EXIT",
        "trap -p",
        "trap '' INT",
        "watch -n 1 git status",
        "parallel gzip -t ::: a.gz b.gz",
    ):
        a = analyse(command, "/w", "/root", check_dirs=False)
        assert not a.targets and not a.unresolved, command


def test_a_relative_symlink_target_is_relative_to_the_link(tmp_path: Path) -> None:
    """``ln -s ../README.md docs/README.md`` links to the project's README (the target is
    read from the link's directory), and ``ln -s ../.git docs/g`` links into .git."""
    (tmp_path / "docs").mkdir()
    here = str(tmp_path)

    def link_targets(command: str) -> list[str]:
        a = analyse(command, here, "/root")
        return [t.path for t in a.targets if t.why == "ln (link target)"]

    assert link_targets("ln -s ../README.md docs/README.md") == [f"{here}/README.md"]
    assert link_targets("ln -s ../.git docs/g") == [f"{here}/.git"]
    assert link_targets("ln -s ../.git docs") == [f"{here}/.git"]  # the link is docs/.git
    assert link_targets("ln -s ../x docs/sub/") == [f"{here}/docs/x"]
    assert link_targets("ln -sr README.md docs/r") == [f"{here}/README.md"]  # -r: from here
    assert link_targets("ln README.md docs/hard") == [f"{here}/README.md"]  # hard link
    assert link_targets("ln -s /etc/hosts docs/h") == ["/etc/hosts"]


def test_hook_denies_writes_hidden_in_a_here_document_or_braces(
    tmp_path: Path, run_charter: Any
) -> None:
    root = make_project(tmp_path, "unscoped")
    for command in ("cat <<EOF > notes.txt\n$(rm -rf .git)\nEOF", "rm -rf {.git,build}"):
        proc = _hook(run_charter, root, payload(root, "Bash", {"command": command}))
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert decision(out) == "deny", command
        assert ".git is protected" in out["hookSpecificOutput"]["permissionDecisionReason"]


# -- through the real hook subprocess ------------------------------------------------------


def _hook(run_charter: Any, root: Path, body: dict[str, Any] | str) -> Any:
    stdin = body if isinstance(body, str) else json.dumps(body)
    return run_charter("hook", "pre-tool-use", cwd=root, stdin=stdin)


def test_hook_subprocess_denies_and_allows(tmp_path: Path, run_charter: Any) -> None:
    root = make_project(tmp_path, "planning")
    selection = [
        ("Bash", {"command": "cd .git && echo x > config"}, "deny"),
        ("Bash", {"command": "bash -c 'rm -rf .charter'"}, "deny"),
        ("Write", {"file_path": str(root / "src/app/main.py"), "content": "x"}, "deny"),
        ("Bash", {"command": "rm $X"}, "ask"),
        ("Bash", {"command": "git status && pytest -q"}, "allow"),
        ("Write", {"file_path": str(root / "docs/notes.md"), "content": "x"}, "allow"),
    ]
    for n, (tool, tool_input, want) in enumerate(selection):
        proc = _hook(run_charter, root, payload(root, tool, tool_input, n))
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        out = json.loads(proc.stdout) if proc.stdout.strip() else None
        assert decision(out) == want, (tool, tool_input, proc.stdout, proc.stderr)
    log = (root / "artifacts/guardrails/audit.jsonl").read_text().splitlines()
    logged = [json.loads(x)["tool_use_id"] for x in log]
    assert logged == ["toolu_0", "toolu_1", "toolu_2", "toolu_3"]


def test_hook_fails_closed_on_broken_config_and_input(tmp_path: Path, run_charter: Any) -> None:
    root = make_project(tmp_path, "unscoped")
    write(root, "charter.toml", "[session.guardrails]\nallowed_tools = 'not a list'\n")
    write_call = payload(root, "Write", {"file_path": str(root / "a.md"), "content": "x"})
    proc = _hook(run_charter, root, write_call)
    out = json.loads(proc.stdout)
    assert decision(out) == "deny", proc.stderr
    assert "failed closed" in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert "allowed_tools" in out["hookSpecificOutput"]["permissionDecisionReason"]
    # the hint names the command that checks the setup (`charter session gates` checks
    # compaction and recovery, not the configuration)
    assert "`charter doctor`" in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Traceback" not in proc.stderr
    read_call = payload(root, "Read", {"file_path": str(root / "a.md")})
    proc = _hook(run_charter, root, read_call)
    assert proc.returncode == 0 and proc.stdout.strip() == ""  # reads still pass
    write(root, "charter.toml", NO_WORKER)
    proc = _hook(run_charter, root, "{not json")
    assert decision(json.loads(proc.stdout)) == "deny"
    # a broken ACTIVE_TRACK pointer also fails closed, naming the file
    write(root, "docs/tracks/ACTIVE_TRACK", "../../etc\n")
    proc = _hook(run_charter, root, write_call)
    reason = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "ACTIVE_TRACK" in reason


def test_disabled_guardrails_allow_everything(tmp_path: Path) -> None:
    off = NO_WORKER + "\n[session.guardrails]\nenabled = false\n"
    root = make_project(tmp_path, "planning", off)
    out = pre_tool_use_output(Project.load(root), payload(root, "Bash", {"command": "rm -rf .git"}))
    assert out is None


def test_every_deny_reason_names_the_path_and_what_to_do(tmp_path: Path, run_charter: Any) -> None:
    """The agent reads the reason and must know what went wrong and what to do next."""
    root = make_project(tmp_path, "executing")
    outside = "/srv/elsewhere/x.py"  # neither the project nor scratch space
    calls = [
        # (tool, input, words the reason must hold)
        ("Bash", {"command": "git checkout -- ."}, [": . is outside the write scope", "SPEC.md"]),
        ("Write", {"file_path": str(root / "lib/x.py")}, ["lib/x.py", "## Scope", "SPEC.md"]),
        ("Edit", {"file_path": str(root / ".env")}, [".env is a secret file", "ask the user"]),
        ("Bash", {"command": "rm .git/index.lock"}, [".git/index.lock", "ask the user"]),
        ("Write", {"file_path": outside}, [outside, "inside the project", "/tmp"]),
        (
            "Bash",
            {"command": "find . -name '*.pyc' -delete"},
            ["contains the protected", "subdirectory"],
        ),
    ]
    for n, (tool, tool_input, words) in enumerate(calls):
        proc = _hook(run_charter, root, payload(root, tool, tool_input, n))
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert decision(out) == "deny", tool_input
        reason = out["hookSpecificOutput"]["permissionDecisionReason"]
        for word in words:
            assert word in reason, (tool_input, reason)


# -- what the user told the session not to edit --------------------------------------------


def _user_said(tmp_path: Path, run_charter: Any, said: str, *files: str) -> Path:
    """An unscoped project with a migrations folder (and ``files``), after the user's
    prompt ``said`` went through the real UserPromptSubmit hook (session ``s-guard``)."""
    root = make_project(tmp_path, "unscoped")
    write(root, "backend/app/alembic/env.py", "x = 1\n")
    for name in files:
        write(root, name, "[env]\n")
    prompt = {**payload(root, "Write", {}), "hook_event_name": "UserPromptSubmit", "prompt": said}
    for key in ("tool_name", "tool_input", "tool_use_id"):
        prompt.pop(key)
    proc = run_charter("hook", "user-prompt-submit", cwd=root, stdin=json.dumps(prompt))
    assert proc.returncode == 0, proc.stderr
    return root


@pytest.mark.parametrize(
    ("said", "forbidden"),
    [
        ("Never touch the backend/app/alembic folder, I write the migrations myself.", True),
        ("please don't edit anything under backend/app/alembic/", True),
        ("Do not modify `backend/app/alembic/` by hand.", True),
        ("don't touch backend/app/alembic until I say so", False),  # a condition
        ("never edit backend/app/alembic to make the tests pass", False),  # a purpose
        ("the backend/app/alembic folder is messy, don't worry about it", False),
        ("see https://example.com/backend/app/alembic for the docs", False),
    ],
)
def test_user_forbidden_edits_are_read_like_rules(said: str, forbidden: bool) -> None:
    from charter.session.forbidden import forbidden_in

    found = forbidden_in(said, "/nonexistent")
    assert bool(found) == forbidden, found
    if forbidden:
        assert found[0][0].rstrip("/") == "backend/app/alembic"


def test_a_bare_file_name_at_the_root_is_a_path_the_user_forbids(
    tmp_path: Path, run_charter: Any
) -> None:
    """ "Use the existing class, don't touch platformio.ini, and do not flash the board":
    users name a root config file without a "/" or backticks, and the agent's Edit of it
    went through. A bare file name is a path when the project has that file at its root;
    one it does not have there ("config.h" here), or a name like "Node.js", is that name
    anywhere in the tree, which no edit of another file matches."""
    from charter.session.forbidden import forbidden_in

    said = "Use the existing class, don't touch platformio.ini, and do not flash the board."
    root = _user_said(tmp_path, run_charter, said, "platformio.ini")
    assert forbidden_in(said, str(root))[0][0] == "platformio.ini"
    assert [p for p, _ in forbidden_in("Don't touch config.h or Node.js.", str(root))] == [
        "**/config.h",
        "**/Node.js",
    ]
    assert forbidden_in(said, "") == []  # no project, no file to name

    ini = {"file_path": str(root / "platformio.ini"), "old_string": "[env]", "new_string": "x"}
    proc = _hook(run_charter, root, payload(root, "Edit", ini, 1))
    assert decision(json.loads(proc.stdout)) == "ask", proc.stdout


def test_a_bare_file_name_below_the_root_is_the_file_the_user_forbids(
    tmp_path: Path, run_charter: Any
) -> None:
    """ "Don't touch dispatch.lua or parse.lua": users name a module by its file name,
    not by its path, and the agent's Edit of `lua/app/commands/dispatch.lua` went through
    without a question since only a file at the root counted. A bare name the root lacks
    is that name anywhere in the tree: both files ask, a file of another name does not,
    and "now update dispatch.lua" lifts it."""
    from charter.session.forbidden import forbidden_in

    said = "Route the lookups through the service. Don't touch dispatch.lua or parse.lua."
    root = _user_said(tmp_path, run_charter, said)
    for name in ("dispatch.lua", "parse.lua", "init.lua"):
        write(root, f"lua/app/commands/{name}", "return {}\n")
    assert [p for p, _ in forbidden_in(said, str(root))] == ["**/dispatch.lua", "**/parse.lua"]

    def edit(name: str, n: int) -> str | None:
        path = str(root / "lua/app/commands" / name)
        tool_input = {"file_path": path, "old_string": "return", "new_string": "x"}
        proc = _hook(run_charter, root, payload(root, "Edit", tool_input, n))
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        return decision(json.loads(proc.stdout)) if proc.stdout.strip() else None

    assert [edit("dispatch.lua", 1), edit("parse.lua", 2), edit("init.lua", 3)] == [
        "ask",
        "ask",
        None,
    ]
    later = {**payload(root, "Write", {}), "hook_event_name": "UserPromptSubmit"}
    for key in ("tool_name", "tool_input", "tool_use_id"):
        later.pop(key)
    later["prompt"] = "Now update dispatch.lua as well."
    proc = run_charter("hook", "user-prompt-submit", cwd=root, stdin=json.dumps(later))
    assert proc.returncode == 0, proc.stderr
    assert [edit("dispatch.lua", 4), edit("parse.lua", 5)] == [None, "ask"]


def test_hook_asks_before_editing_what_the_user_said_not_to_touch(
    tmp_path: Path, run_charter: Any
) -> None:
    """The user said "never touch the backend/app/alembic folder" in a prompt: the
    recovered context repeated it, but the guardrail let the agent's Write into that
    folder through. Now the call asks the user, quoting them; other files, other
    conversations and `user_edits = "off"` are unaffected, and "deny" denies."""
    said = "Add tags. Never touch the backend/app/alembic folder, I write the migrations myself."
    root = _user_said(tmp_path, run_charter, said)

    migration = {"file_path": str(root / "backend/app/alembic/versions/a1_tags.py"), "content": "x"}
    edit_env = {"file_path": str(root / "backend/app/alembic/env.py"), "old_string": "x"}
    model = {"file_path": str(root / "backend/app/models.py"), "content": "x"}
    results = []
    for n, (tool, tool_input) in enumerate(
        [("Write", migration), ("Edit", edit_env), ("Write", model)]
    ):
        proc = _hook(run_charter, root, payload(root, tool, tool_input, n))
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        results.append(json.loads(proc.stdout) if proc.stdout.strip() else None)
    assert [decision(r) for r in results] == ["ask", "ask", "allow"]
    reason = results[0]["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Never touch the backend/app/alembic folder" in reason

    other = {**payload(root, "Write", migration, 9), "session_id": "another-conversation"}
    assert _hook(run_charter, root, other).stdout.strip() == ""

    write(root, "charter.toml", NO_WORKER + '\n[session.guardrails]\nuser_edits = "deny"\n')
    out = json.loads(_hook(run_charter, root, payload(root, "Write", migration, 10)).stdout)
    assert decision(out) == "deny"
    write(root, "charter.toml", NO_WORKER + '\n[session.guardrails]\nuser_edits = "off"\n')
    assert _hook(run_charter, root, payload(root, "Write", migration, 11)).stdout.strip() == ""


@pytest.mark.parametrize(
    ("said", "permitted"),
    [
        (
            "Now update backend/app/alembic/env.py to read the new URL.",
            "backend/app/alembic/env.py",
        ),
        ("you can edit the backend/app/alembic folder again", "backend/app/alembic"),
        ("Can you change `backend/app/alembic/env.py`?", "backend/app/alembic/env.py"),
        ("Never touch the backend/app/alembic folder.", ""),
        ("before you touch backend/app/alembic, ask me", ""),  # a condition
        ("I wrote backend/app/alembic myself", ""),  # no editing verb
        ("never edit backend/app/alembic to make the tests pass", ""),  # negated
    ],
)
def test_what_the_user_asks_to_edit_is_read_like_a_rule_without_its_negation(
    said: str, permitted: str
) -> None:
    from charter.session.forbidden import permitted_in

    assert [p for p, _ in permitted_in(said, "/nonexistent")] == ([permitted] if permitted else [])


def test_the_user_asking_to_edit_there_after_all_lifts_their_earlier_words(
    tmp_path: Path, run_charter: Any
) -> None:
    """The user said "never touch the backend/app/alembic folder", then asked for one of
    its files to be updated, then gave the folder back: each later prompt lifts the
    guardrail for what it names, and only that; another conversation's words lift
    nothing here."""
    said = "Never touch the backend/app/alembic folder, I write the migrations myself."
    root = _user_said(tmp_path, run_charter, said)
    env = {"file_path": str(root / "backend/app/alembic/env.py"), "content": "y"}
    migration = {"file_path": str(root / "backend/app/alembic/versions/a1.py"), "content": "x"}

    def prompt(text: str, session_id: str = "s-guard") -> None:
        submit_prompt(run_charter, root, text, session_id)

    def decisions(n: int) -> list[str]:
        out = []
        for i, target in enumerate((env, migration)):
            proc = _hook(run_charter, root, payload(root, "Write", target, n + i))
            out.append(decision(json.loads(proc.stdout) if proc.stdout.strip() else None))
        return out

    assert decisions(0) == ["ask", "ask"]
    prompt("Now update backend/app/alembic/env.py to read the new URL.", "another-conversation")
    assert decisions(2) == ["ask", "ask"]
    prompt("Now update backend/app/alembic/env.py to read the new URL.")
    assert decisions(4) == ["allow", "ask"]
    prompt("OK, you can edit the backend/app/alembic folder again.")
    assert decisions(6) == ["allow", "allow"]
    prompt("Please don't touch backend/app/alembic/ any more.")
    assert decisions(8) == ["ask", "ask"]


def test_the_users_words_are_read_once_when_the_prompt_is_captured(
    tmp_path: Path, run_charter: Any
) -> None:
    """The guardrail runs before every file tool of a days-long session: it reads the
    prompts marked at capture as forbidding an edit, never every prompt's text again (on
    2,000 prompts that was most of a second per call). A prompt journaled without the
    mark is not read a second time."""
    from charter.config import Project
    from charter.session.service import Session, session_key

    said = "Never touch the backend/app/alembic folder, I write the migrations myself."
    root = _user_said(tmp_path, run_charter, said)
    session = Session(Project.load(root))
    try:
        track = session.tracks.current()
        marked = session.journal.events(
            session=session_key("s-guard"), track=track, kinds=("prompt",), having="forbids"
        )
        assert [e.data["forbids"] for e in marked] == [[["backend/app/alembic/", said[:-1]]]]
        # the same words journaled without the mark (as before this reading existed)
        session.journal.add(session_key("s-other"), track, "prompt", {"text": said})
    finally:
        session.close()
    target = {"file_path": str(root / "backend/app/alembic/env.py"), "content": "y"}
    assert (
        decision(json.loads(_hook(run_charter, root, payload(root, "Write", target)).stdout))
        == "ask"
    )
    unmarked = {**payload(root, "Write", target, 1), "session_id": "s-other"}
    assert _hook(run_charter, root, unmarked).stdout.strip() == ""


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git clean -fdx", "deny"),
        ("git clean -fd", "deny"),
        ("git clean -fdX", "deny"),
        ("git -C . clean -ffdx", "deny"),
        ("git clean -n -d", "allow"),
        ("git clean --dry-run -x", "allow"),
        ("git clean -fdx build/ work/", "allow"),
    ],
)
def test_git_clean_of_the_whole_tree_is_a_recursive_delete(
    tmp_path: Path, command: str, expected: str
) -> None:
    """`rm -rf .charter` was denied but `git clean -fdx` was not, though it deletes every
    ignored file: the session journal, the compiled rules, and (untracked until the team
    commits them) the bound decisions that even `git clean -fd` takes. A `git clean`
    that is not a dry run deletes its pathspecs recursively, the whole tree without
    one; the reason names `.charter/`, not `.git/`, which git clean never touches."""
    root = make_project(tmp_path, "unscoped")
    out = pre_tool_use_output(Project.load(root), payload(root, "Bash", {"command": command}))
    assert decision(out) == expected, out
    if expected == "deny":
        reason = out["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
        assert "contains the protected .charter/" in reason, reason


def test_a_sed_in_place_of_a_file_the_user_forbids_asks(tmp_path: Path, run_charter: Any) -> None:
    """ "don't edit anything under backend/app/alembic/" held an Edit there and let
    `sed -i` of the same file run (users' pass sixty-seven). An in-place shell rewrite is
    an edit; reading the file with sed, or removing a cache file, is not."""
    said = "please don't edit anything under backend/app/alembic/"
    root = _user_said(tmp_path, run_charter, said)
    sed = {"command": "sed -i 's/x = 1/x = 2/' backend/app/alembic/env.py"}
    proc = _hook(run_charter, root, payload(root, "Bash", sed, 1))
    out = json.loads(proc.stdout)
    assert decision(out) == "ask", proc.stdout
    assert "backend/app/alembic/env.py" in out["hookSpecificOutput"]["permissionDecisionReason"]
    for harmless in ("sed -n 1p backend/app/alembic/env.py", "sed -i 's/a/b/' backend/app/main.py"):
        proc = _hook(run_charter, root, payload(root, "Bash", {"command": harmless}, 2))
        assert proc.stdout.strip() == "" or decision(json.loads(proc.stdout)) == "allow", harmless


def test_what_a_rule_holds_until_asked_passes_when_this_prompt_asks(
    tmp_path: Path, run_charter: Any
) -> None:
    """ "Do not commit or push unless explicitly requested" waits for the user: the call
    is asked for, unless the user's prompt of this turn asks for it ("Commit and push.",
    "add httpx to the backend"); a prompt that negates it, or an earlier one, does not
    count, and a rule that forbids outright still denies."""
    from tests.conftest import compiled_repo

    rules = (
        "# Rules\n\n"
        "- Do not commit or push unless explicitly requested.\n"
        "- Ask before adding a new dependency.\n"
        "- Never edit `db/schema.rb` without asking.\n"
        "- Never run `npm publish`.\n"
    )
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})

    def bash(command: str) -> str:
        body = payload(root, "Bash", {"command": command})
        return decision(pre_tool_use_output(Project.load(root), body))

    def write_schema() -> str:
        body = payload(root, "Write", {"file_path": "{root}/db/schema.rb", "content": "x\n"})
        return decision(pre_tool_use_output(Project.load(root), body))

    assert bash("git commit -m x") == "ask"  # no prompt yet
    submit_prompt(run_charter, root, "Fix the typo in the README; don't commit yet.")
    assert bash("git commit -m x") == "ask"
    submit_prompt(run_charter, root, "Looks good. Commit and push, please.")
    assert bash("git commit -m x") == "allow" and bash("git push origin feat") == "allow"
    assert bash("uv add httpx") == "ask" and write_schema() == "ask"
    submit_prompt(run_charter, root, "Add httpx and update db/schema.rb for the new column.")
    assert bash("uv add httpx") == "allow" and bash("uv add requests") == "ask"
    assert write_schema() == "allow"
    assert bash("git push") == "ask"  # the earlier prompt's ask was for that turn
    assert bash("npm publish") == "deny"


def test_what_the_user_says_they_will_do_themselves_is_no_request(
    tmp_path: Path, run_charter: Any
) -> None:
    """ "…, I will build it myself" names the act the rule holds, but as the user's own:
    the call is still asked for. The part of the prompt that asks the agent still counts,
    and "I want you to push" is a request."""
    from tests.conftest import compiled_repo

    rules = "# Rules\n\n- Do not commit or push unless explicitly requested.\n"
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})

    def bash(command: str) -> str:
        body = payload(root, "Bash", {"command": command})
        return decision(pre_tool_use_output(Project.load(root), body))

    submit_prompt(run_charter, root, "Fix the typo in the README, I will commit it myself.")
    assert bash("git commit -m x") == "ask"
    submit_prompt(run_charter, root, "Commit the fix, then I'll push it after the review.")
    assert bash("git commit -m x") == "allow" and bash("git push") == "ask"
    submit_prompt(run_charter, root, "I want you to push the branch now.")
    assert bash("git push origin feat") == "allow"


def test_a_root_file_without_an_extension_is_a_path_the_user_forbids(
    tmp_path: Path, run_charter: Any
) -> None:
    """ "Make the content retries configurable … Don't touch the Makefile, and never run
    cargo publish" (a real Rust service's task): the command was asked about, the Edit of
    the Makefile went through. A capitalised word with no extension is a path when the
    project has a file of that name at its root; a word it has no file for is prose."""
    from charter.session.forbidden import forbidden_in, permitted_in

    said = "Add a retry flag. Don't touch the Makefile, and never run cargo publish."
    root = _user_said(tmp_path, run_charter, said, "Makefile")
    assert [p for p, _ in forbidden_in(said, str(root))] == ["Makefile"]
    assert forbidden_in("Leave the Dockerfile alone.", str(root)) == []  # no such file
    assert forbidden_in("Do not Make changes there.", str(root)) == []
    assert [p for p, _ in permitted_in("Now update the Makefile.", str(root))] == ["Makefile"]

    edit = {"file_path": str(root / "Makefile"), "old_string": "all:", "new_string": "x"}
    proc = _hook(run_charter, root, payload(root, "Edit", edit, 1))
    assert decision(json.loads(proc.stdout)) == "ask", proc.stdout
