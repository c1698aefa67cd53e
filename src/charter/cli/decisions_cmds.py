"""CLI commands of the decisions capability (placeholder until it lands)."""

from __future__ import annotations

import typer


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this capability's commands to ``app`` and its ``eval`` sub-command."""
