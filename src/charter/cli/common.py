"""Shared CLI plumbing: consoles, project loading, JSON output, error handling."""

from __future__ import annotations

import codecs
import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from charter.config import Project
from charter.errors import CharterError

#: The ``--project/-C`` option every command that reads a project takes (its default is
#: the cwd: ``project_dir: ProjectDir = Path(".")``), declared once so all say the same.
ProjectDir = Annotated[Path, typer.Option("--project", "-C", help="project root")]

#: No emoji codes: Rich turned the ``:x:`` of a quoted ``user:x:1000`` line, a rule or an
#: artifact into an emoji, so the text shown was not the text read. Charter's own
#: messages use none.
console = Console(highlight=False, emoji=False)
err_console = Console(stderr=True, highlight=False, emoji=False)


def load_project(path: Path | None = None) -> Project:
    """The project around ``path`` (the cwd by default).

    A directory in no project (no charter.toml, ``[tool.charter]`` pyproject or ``.git``
    at or above it) is taken as the project, as a quick try in a fresh folder expects,
    except where a project never is: the filesystem root, the home directory or above it,
    and the temp directory. A ``charter compile`` there walked every rule file of other
    people's work and wrote hundreds of MB of state; the hooks refuse such places too.
    """
    project = Project.load(path)
    if project.config_path is None and not_a_project(project.root):
        raise CharterError(
            f"{project.root} is in no project (no charter.toml, [tool.charter] pyproject or "
            ".git at or above it) and is never taken as one: run Charter inside a "
            "project, or `charter init` in the directory you mean"
        )
    return project


def not_a_project(root: Path) -> bool:
    """Whether ``root`` is a place no project is rooted at, when nothing marks it as one."""
    import tempfile

    from charter.paths import find_project

    if find_project(root) is not None:
        return False
    root = root.resolve()
    home = Path.home().resolve()
    never = {Path(root.anchor), Path(tempfile.gettempdir()).resolve(), Path("/tmp").resolve()}
    return root in never or root == home or root in home.parents


def _speaks_utf8(stream: Any) -> bool:
    """Whether ``stream`` encodes text as UTF-8 (any spelling of the codec's name)."""
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        return False


def tolerate_narrow_stdout() -> None:
    """Let human output degrade, not fail, on a stdout that is not UTF-8.

    Under a legacy locale (``LANG=en_US.ISO-8859-1``) or ``PYTHONIOENCODING=latin-1``
    (as on a Windows pipe in cp1252), stdout cannot encode the em dashes and ellipses of
    rule files and results: Python raised mid-table and ``search``, ``context`` and
    ``capsule --json`` failed with a ``UnicodeEncodeError``. Characters the stream cannot
    encode now print as ``?``; JSON is ASCII-escaped there instead (:func:`emit_json`),
    so machine output stays exact.
    """
    if _speaks_utf8(sys.stdout):
        return
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if callable(reconfigure):
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="replace")


def _json_line(obj: Any) -> str:
    # UTF-8 where stdout speaks it; otherwise \uXXXX escapes, which every ASCII-based
    # encoding carries unchanged and every JSON parser reads back to the same text
    return json.dumps(obj, ensure_ascii=not _speaks_utf8(sys.stdout), sort_keys=True) + "\n"


def emit_json(obj: Any) -> None:
    """Machine output: one JSON document on stdout, keys sorted, UTF-8 (ASCII-escaped
    when stdout is not UTF-8)."""
    sys.stdout.write(_json_line(obj))


def emit_jsonl(obj: Any) -> None:
    sys.stdout.write(_json_line(obj))
    sys.stdout.flush()


def fail(message: str, code: int = 2) -> None:
    err_console.print(f"[red]error:[/red] {message}", soft_wrap=True)
    raise SystemExit(code)
