"""The stand-in repository of a replayed session, and edits applied to it.

Charter sees real git diffs during a replay: the repository starts with the files the
session edits (their recorded original content), and each successful Write / Edit /
MultiEdit / NotebookEdit is applied before its PostToolUse, the way Claude Code did it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from charter.errors import CharterError

#: Fixed author/committer data: the stand-in repository is byte-identical across replays.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "replay",
    "GIT_AUTHOR_EMAIL": "replay@example.invalid",
    "GIT_COMMITTER_NAME": "replay",
    "GIT_COMMITTER_EMAIL": "replay@example.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def make_repo(project: Path, seed_dir: Path, dirs: list[Path]) -> None:
    """A fresh git repository at ``project`` holding the seed files, committed once."""
    if seed_dir.is_dir():
        shutil.copytree(seed_dir, project, dirs_exist_ok=True)
    project.mkdir(parents=True, exist_ok=True)
    for directory in dirs:
        directory.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **_GIT_ENV}
    for args in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", "before the session"],
    ):
        done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise CharterError(f"git {args[1]} failed in {project}: {done.stderr.strip()}")


def apply_edit(path: Path, name: str, tool_input: dict[str, Any], result: Any) -> None:
    """Apply a Write / Edit / MultiEdit / NotebookEdit the way Claude Code did."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if name == "Write":
        path.write_text(
            str(tool_input.get("content", "")), encoding="utf-8", errors="surrogatepass"
        )
        return
    text = path.read_text(encoding="utf-8", errors="surrogatepass") if path.is_file() else ""
    if name == "NotebookEdit":
        text = _notebook_edit(text, tool_input)
    else:
        edits = tool_input.get("edits") if name == "MultiEdit" else [tool_input]
        original = result.get("originalFile") if isinstance(result, dict) else None
        first = edits[0] if isinstance(edits, list) and edits else {}
        if (
            isinstance(original, str)
            and isinstance(first, dict)
            and str(first.get("old_string", "")) not in text
        ):
            text = original  # the stand-in drifted from the real file: resync
        for edit in edits if isinstance(edits, list) else []:
            if not isinstance(edit, dict):
                continue
            old, new = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
            if old and old in text:
                text = (
                    text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
                )
            elif not old and not text:
                text = new
            else:
                text = text + ("" if text.endswith("\n") or not text else "\n") + new
    path.write_text(text, encoding="utf-8", errors="surrogatepass")


def _notebook_edit(text: str, tool_input: dict[str, Any]) -> str:
    source = str(tool_input.get("new_source", ""))
    try:
        notebook: dict[str, Any] = json.loads(text) if text.strip() else {}
        cells: list[dict[str, Any]] = notebook.setdefault("cells", [])
        notebook.setdefault("nbformat", 4)
        notebook.setdefault("nbformat_minor", 5)
        notebook.setdefault("metadata", {})
        cell_id = tool_input.get("cell_id")
        mode = tool_input.get("edit_mode") or "replace"
        index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
        cell: dict[str, Any] = {
            "cell_type": tool_input.get("cell_type") or "code",
            "source": source,
            "metadata": {},
        }
        if mode == "insert":
            cells.insert(0 if index is None else index + 1, cell)
        elif mode == "delete" and index is not None:
            cells.pop(index)
        elif index is not None:
            cells[index]["source"] = source
        else:
            cells.append(cell)
        return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    except (ValueError, AttributeError, TypeError):
        return text + source
