"""docs/cli.md against the real Typer app: every command and option a user can type is
documented, nothing documented is gone, and every option says what it does in --help.

The app is walked as ``charter --help`` builds it (every capability's commands come in
through the plugin seam), so a command or option added without its line in the CLI
reference fails here, and so does a line left behind by a removed one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer

from charter.cli.app import app

CLI_MD = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
HEADING = re.compile(r"^### `charter ([^`]*)`", re.M)


def _commands() -> dict[str, Any]:
    """Every visible leaf command by its path ("session note risk")."""
    found: dict[str, Any] = {}

    def walk(command: Any, path: list[str]) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                if not getattr(sub, "hidden", False):
                    walk(sub, [*path, name])
            return
        found[" ".join(path)] = command

    walk(typer.main.get_command(app), [])
    return found


COMMANDS = _commands()


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option"]


def _sections() -> dict[str, str]:
    """The text of each ``### `charter PATH ARGS``` section, keyed by the command path."""
    text = CLI_MD.read_text(encoding="utf-8")
    marks = list(HEADING.finditer(text))
    sections: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        words = mark.group(1).split()
        path = [w for w in words if re.fullmatch(r"[a-z][a-z-]*", w)]
        sections[" ".join(path)] = text[mark.start() : end]
    return sections


SECTIONS = _sections()


def test_the_walk_sees_the_whole_app() -> None:
    # guards the walk itself: a Typer change that hid the sub-commands would pass vacuously
    assert {"search", "session note risk", "decisions verify", "eval session"} <= set(COMMANDS)
    assert len(COMMANDS) > 40


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_and_option_is_documented(path: str) -> None:
    assert path in SECTIONS, f"docs/cli.md has no '### `charter {path} …`' section"
    section = SECTIONS[path]
    command = COMMANDS[path]
    for param in command.params:
        if param.param_type_name == "argument":
            name = param.metavar or param.name.upper()
            assert f"`{name}" in section, f"charter {path}: argument {name}"
    for option in _options(command):
        if "--project" in option.opts:
            continue  # documented once, at the top (see the next test)
        names = "/".join(option.opts + option.secondary_opts)
        assert f"`{names}" in section, f"charter {path}: {names} missing from docs/cli.md"


def test_no_documented_command_or_option_is_stale() -> None:
    for path, section in SECTIONS.items():
        assert path in COMMANDS, f"docs/cli.md documents `charter {path}`, which does not exist"
        known = {name for o in _options(COMMANDS[path]) for name in o.opts + o.secondary_opts}
        for line in section.splitlines():
            item = re.match(r"- `(-[^` ]+)", line)
            if item:
                for name in item.group(1).split("/"):
                    assert name in known, f"charter {path}: documented {name} does not exist"


def _overview_spans() -> list[str]:
    """Each `charter …` code span in the overview table at the top of docs/cli.md."""
    text = CLI_MD.read_text(encoding="utf-8").split("## Commands and options")[0]
    rows = [line for line in text.splitlines() if line.startswith("| `charter ")]
    return [s for row in rows for s in re.findall(r"`(charter [^`]*)`", row)]


def _resolve(words: list[str]) -> list[str]:
    """The command paths a span names (``decisions merge\\|import`` names both)."""
    paths = [""]
    for word in words:
        choices = [w for w in word.replace("\\|", "|").split("|") if w]
        longer = [f"{p} {c}".strip() for p in paths for c in choices]
        hits = [p for p in longer if any(k == p or k.startswith(p + " ") for k in COMMANDS)]
        if not hits:
            break
        paths = hits
    return [p for p in paths if p in COMMANDS]


def test_the_overview_names_real_commands_and_options() -> None:
    spans = _overview_spans()
    assert len(spans) > 30
    for span in spans:
        words = span.split()[1:]
        if words[:1] == ["--version"]:
            continue
        paths = _resolve(words)
        assert paths, f"docs/cli.md overview: `{span}` names no command"
        known = {n for p in paths for o in _options(COMMANDS[p]) for n in o.opts}
        for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", span):
            assert option in known, f"docs/cli.md overview: `{span}`: {option} does not exist"


def test_project_option_everywhere_but_the_commands_named() -> None:
    intro = CLI_MD.read_text(encoding="utf-8").split("| command |")[0]
    without = sorted(
        p for p, c in COMMANDS.items() if not any("--project" in o.opts for o in _options(c))
    )
    for path in without:
        assert f"`{path}`" in intro, f"docs/cli.md: say that `charter {path}` has no --project"
    for path, command in COMMANDS.items():
        for option in _options(command):
            if "--project" in option.opts:
                assert "-C" in option.opts, f"charter {path}: --project without -C"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_option_and_argument_has_help(path: str) -> None:
    for param in COMMANDS[path].params:
        help_text = getattr(param, "help", None)
        assert help_text and help_text.strip(), f"charter {path}: {param.name} has no --help text"
