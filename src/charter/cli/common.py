"""Shared CLI plumbing: consoles, project loading, JSON output, error handling."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from charter.config import Project

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def load_project(path: Path | None = None) -> Project:
    return Project.load(path)


def emit_json(obj: Any) -> None:
    """Machine output: one JSON document on stdout, keys sorted, UTF-8."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n")


def emit_jsonl(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n")
    sys.stdout.flush()


def fail(message: str, code: int = 2) -> None:
    err_console.print(f"[red]error:[/red] {message}", soft_wrap=True)
    raise SystemExit(code)
