"""Command-line front door.

``main`` keeps ``charter hook …`` fast: hooks run on every prompt, so that path avoids
importing Typer and Rich and answers from a warm worker when one is running.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "hook":
        from charter.integrations.claude_code.hook_main import hook_main

        raise SystemExit(hook_main(argv[1:]))
    from charter.cli.app import run

    run()
