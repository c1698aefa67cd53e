"""Command-line front door.

``main`` keeps ``charter hook …`` fast: hooks run on every prompt, so that path avoids
importing Typer and Rich and answers from a warm worker when one is running.

Once a command (or a hook) has finished, the process leaves with ``os._exit`` after
flushing its output. Every file Charter writes is complete by then (atomic renames, committed SQLite
transactions), and tearing down numpy and onnxruntime at interpreter exit costs about a
tenth of a second per command that nothing needs.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    argv = sys.argv[1:]
    # ``python -m charter`` puts the cwd (the project) first on sys.path: drop it before
    # importing anything, so a project file or package named like a module Charter uses
    # (an old vendored ``requests/``) never runs in its place
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd)]
    if argv and argv[0] == "hook" and "--help" not in argv[1:]:
        import time

        from charter.integrations.claude_code import fastpath

        began = time.monotonic()
        preread = None
        if len(argv) == 2:
            argv[1] = fastpath.canonical_event(argv[1]) or argv[1]
        if len(argv) == 2 and argv[1] in fastpath.FAST_EVENTS:
            answered, preread = fastpath.run(argv[1], began + fastpath.STDIN_SECONDS)
            if answered is not None:
                os._exit(answered)  # written with os.write: nothing left to flush
        from charter.integrations.claude_code.hook_main import hook_main

        left = fastpath.STDIN_SECONDS - (time.monotonic() - began)
        # the hook's answer is written and flushed below: skip interpreter teardown
        # (pydantic, sqlite3, numpy), ~30 ms of a cold Stop hook's 300 ms budget
        _exit_now(hook_main(argv[1:], preread=preread, stdin_seconds=left))
    if argv[:1] == ["compile"]:
        _preload_compile(argv[1:])
    from charter.cli.app import run

    try:
        run()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    _exit_now(code)


def _preload_compile(args: list[str]) -> None:
    """``charter compile`` in the project around the cwd: start loading its rules model
    and the token counter before the CLI's own imports and argument parsing (~0.3 s), so
    both are ready by the time the first rules are parsed (the compile waits for the same
    load, never starts a second). Any doubt (another project named, help asked for, no project
    marker, a config that does not load) leaves the load to the command itself."""
    if any(a in ("--help", "-h") or a.startswith(("--project", "-C")) for a in args):
        return
    try:
        from charter.config import Project
        from charter.paths import find_project

        project = Project.load()
        if project.config_path is None and find_project(project.root) is None:
            return
        from charter.embed.registry import preload_rules_embedder
        from charter.tokens import warm

        # then the cl100k tables (~0.15 s, built without the GIL), which the compile
        # needs as its shards embed: on the core the model load had, before the first
        # rules are parsed, instead of on the compile's thread while the model runs
        preload_rules_embedder(project.settings, then=warm)
    except Exception:  # the command reports what is wrong
        return


def _exit_now(code: object) -> None:
    import contextlib

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
