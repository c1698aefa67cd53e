"""The CLI's front door: usage errors, --version, exit codes (real subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

from charter import __version__


def test_usage_errors_are_one_line_with_exit_code_2(repo: Path, run_charter) -> None:
    for args in (["no-such-command"], ["context", "--top", "many", "task"], ["--bogus"]):
        proc = run_charter(*args, cwd=repo)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("charter: error: "), proc.stderr
        assert "Traceback" not in proc.stderr


def test_version_flag_and_bare_invocation(repo: Path, run_charter) -> None:
    proc = run_charter("--version", cwd=repo)
    assert proc.returncode == 0 and proc.stdout.strip() == f"charter {__version__}"
    bare = run_charter(cwd=repo)
    assert bare.returncode == 0 and "compile" in bare.stdout


def test_output_is_flushed_before_the_fast_exit(repo: Path, run_charter) -> None:
    """The CLI leaves with os._exit; large JSON written to a pipe must arrive whole."""
    (repo / "CLAUDE.md").write_text(
        "# Rules\n\n" + "".join(f"- Always check invariant number {i}.\n" for i in range(300))
    )
    proc = run_charter("context", "check the invariants", "--json", "--top", "300", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["shards"]) > 100


BRACKETS = "Put it in the [tool.ruff] table, tick [x] when done, never close [/bold] tags."


def test_square_brackets_in_project_text_are_printed_not_read_as_markup(
    repo: Path, run_charter
) -> None:
    """Tables print the project's own words (docs, rules, plan steps, risks). Read as Rich
    markup, '[x]' or '[high]' vanished and a stray '[/bold]' crashed the command."""
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text(f"# Style\n\n{BRACKETS} zorblax\n")
    (repo / "CLAUDE.md").write_text(f"# Rules\n\n## Always\n\n- {BRACKETS}\n")
    runs = {
        "index": run_charter("index", cwd=repo),
        "search": run_charter("search", "zorblax", "--mode", "planning", cwd=repo),
        "compile": run_charter("compile", cwd=repo),
        "context": run_charter("context", "tick the ruff table tags", cwd=repo),
        "risk": run_charter("session", "note", "risk", "Ruff [tool.ruff] drift", cwd=repo),
    }
    for name, proc in runs.items():
        assert proc.returncode == 0, (name, proc.stderr)
        assert "MarkupError" not in proc.stderr, name
    flat = {name: " ".join(proc.stdout.split()) for name, proc in runs.items()}
    for name in ("search", "compile", "context"):
        for literal in ("[tool.ruff]", "[x]", "[/bold]"):
            assert literal in flat[name], (name, literal, flat[name])
    assert "[medium] open" in flat["risk"]


def test_facts_check_help_names_every_sot_format(repo: Path, run_charter) -> None:
    """SoT records are read from CSV, YAML and JSON (docs/search.md); the help said
    '(CSV/YAML)'."""
    proc = run_charter("facts", "check", "--help", cwd=repo, env={"COLUMNS": "200"})
    assert proc.returncode == 0
    assert "CSV/YAML/JSON" in proc.stdout


def test_failing_checks_exit_1_as_documented(repo: Path, run_charter) -> None:
    """'session evaluate' and 'session gates' print FAIL and promise exit 1; typer.Exit(1)
    inside a command was returned, not raised, by app(standalone_mode=False), so both
    exited 0 and a CI step running them could never fail."""
    for args, says in (
        (("session", "evaluate"), "SPEC.md does not exist"),
        (("session", "gates"), "gates failed: evaluator"),
    ):
        proc = run_charter(*args, cwd=repo)
        assert says in proc.stdout + proc.stderr, args
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_hook_help_is_help_not_a_hook_run(repo: Path, run_charter) -> None:
    """``charter hook EVENT --help`` shows the command's help (every event named); it
    must not read stdin, answer as a hook or build state in the project."""
    from charter.integrations.claude_code.fastpath import EVENTS

    for args in (
        ("hook", "--help"),
        ("hook", "session-start", "--help"),
        ("hook", "stop", "--help"),
    ):
        done = run_charter(*args, cwd=repo, stdin="")
        assert done.returncode == 0, done.stderr
        flat = " ".join(done.stdout.replace("│", " ").split())
        assert "charter hook [OPTIONS]" in flat
        assert all(event in flat for event in EVENTS)
        assert not flat.startswith("{")
    assert not (repo / ".charter").exists()


def test_a_stdout_that_is_not_utf8_gets_output_not_an_encoding_error(
    repo: Path, run_charter
) -> None:
    """A legacy locale or a cp1252 Windows pipe cannot encode a rule's em dash: human
    output degrades to '?', JSON comes out ASCII-escaped and reads back the same."""
    (repo / "CLAUDE.md").write_text(
        "# Rules\n\n## Always\n\n- Store money as integer cents — never floats… ever.\n",
        encoding="utf-8",
    )
    narrow = {"PYTHONIOENCODING": "latin-1"}
    assert run_charter("compile", cwd=repo).returncode == 0
    wide = run_charter("context", "store money", "--json", cwd=repo)
    assert wide.returncode == 0 and "—" in wide.stdout, wide.stderr
    as_json = run_charter("context", "store money", "--json", cwd=repo, env=narrow)
    assert as_json.returncode == 0, as_json.stderr
    assert as_json.stdout.isascii() and json.loads(as_json.stdout) == json.loads(wide.stdout)
    for args in (["context", "store money"], ["capsule", "--json"]):
        human = run_charter(*args, cwd=repo, env=narrow)
        assert human.returncode == 0, (args, human.stderr)
        assert "Error" not in human.stderr and "never floats" in human.stdout


def test_the_cli_refuses_the_home_directory_as_a_project_but_not_a_fresh_folder(
    tmp_path: Path, run_charter
) -> None:
    """No marker above $HOME: a ``charter compile`` there would walk everyone's rule
    files and write its state in $HOME. A fresh folder below it is still a project."""
    home = tmp_path / "home"
    (home / "work" / "notes").mkdir(parents=True)
    (home / "work" / "notes" / "CLAUDE.md").write_text("# Notes\n\n- Never use tabs.\n")
    env = {"HOME": str(home)}
    proc = run_charter("compile", cwd=home, env=env)
    assert proc.returncode == 2 and "is in no project" in proc.stderr
    assert proc.stderr.count("\n") == 1 and not (home / ".charter").exists()
    proc = run_charter("doctor", cwd=home, env=env)
    assert proc.returncode == 2 and "is in no project" in proc.stderr
    assert not (home / ".charter").exists()
    fresh = home / "work" / "notes"
    proc = run_charter("compile", cwd=fresh, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (fresh / ".charter").is_dir()


def test_a_file_where_a_folder_goes_is_named_not_an_errno(repo: Path, run_charter) -> None:
    """A file named ``.claude`` or ``docs`` (where Charter makes ``docs/tracks/``), or a
    folder named ``.mcp.json``, was "NotADirectoryError: [Errno 20] Not a directory:
    '…/docs/tracks/master'", naming a path that does not exist rather than the file in
    the way. The line now names the file to move; the hook note says the same."""
    (repo / ".claude").write_text("notes\n")
    proc = run_charter("install", "claude-code", cwd=repo)
    line = proc.stderr.strip()
    assert proc.returncode == 1 and "\n" not in line and "Errno" not in line
    assert line.endswith(f"folder {repo / '.claude'}: a file of that name is in the way; move it")
    (repo / ".claude").unlink()
    (repo / ".mcp.json").mkdir()
    proc = run_charter("install", "claude-code", cwd=repo)
    line = proc.stderr.strip()  # refused before anything is read (round seventy-two's check)
    assert proc.returncode != 0 and "\n" not in line and "Errno" not in line
    assert f"{repo / '.mcp.json'} is not a regular file" in line
    (repo / ".mcp.json").rmdir()
    (repo / "docs").write_text("notes\n")
    start = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo)})
    hook = run_charter("hook", "session-start", cwd=repo, stdin=start)
    assert hook.returncode == 0
    assert f"{repo / 'docs'} is a file where a folder is needed; move it" in hook.stderr
    assert "Errno" not in hook.stderr
    proc = run_charter("session", "state", cwd=repo)
    assert proc.returncode == 1 and "Errno" not in proc.stderr
    assert f"{repo / 'docs'} is a file where a folder is needed" in proc.stderr


def test_an_argument_that_is_not_utf8_is_one_line_naming_it(repo: Path) -> None:
    """A task typed in a Latin-1 terminal reached Charter as lone surrogates: `context`
    said "TypeError: TextEncodeInput must be …" and `decisions add` "UnicodeEncodeError
    … surrogates not allowed". The argument is named, its bad byte escaped."""
    import os
    import subprocess

    from tests.conftest import CHARTER_BIN

    (repo / "CLAUDE.md").write_text("# Rules\n\n- Always run the tests.\n")
    task = b"fix the caf\xe9 menu"
    for args in ([b"context", task], [b"decisions", b"add", b"--id", b"MENU", b"--text", task]):
        proc = subprocess.run(
            [os.fsencode(CHARTER_BIN), *args], cwd=repo, capture_output=True, timeout=120
        )
        line = proc.stderr.decode().strip()
        assert proc.returncode == 2 and "\n" not in line, line
        assert line == (
            "charter: error: argument 'fix the caf\\xe9 menu' is not valid UTF-8 (each byte "
            "that is not is shown as \\x..); write it in UTF-8"
        )
    assert not (repo / ".charter" / "decisions").exists()


def test_an_error_about_a_descriptor_number_is_described_without_a_path() -> None:
    """An OSError's ``filename`` may be a descriptor number: the one-line description must
    not fail on it (it would turn one error line into a traceback)."""
    import errno

    from charter.errors import describe

    assert describe(OSError(errno.EBADF, "Bad file descriptor", 3)) == (
        "OSError: [Errno 9] Bad file descriptor: 3"
    )
    assert describe(PermissionError(errno.EACCES, "Permission denied", "/x/y")) == (
        "/x/y: Permission denied"
    )
