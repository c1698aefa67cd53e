"""``charter mcp``: Charter's tools over the Model Context Protocol (official SDK, stdio).

Each capability owns its tools: this module only builds the server and asks every
capability module that exists to ``register(server)`` its tools. A capability that is not
installed yet is skipped. Tools find the project through :func:`get_project`. Nothing is
ever printed to stdout (it carries the protocol); logs go to stderr.

Thread safety: the SDK runs a synchronous tool on whatever worker thread is free, and
several calls of one session run at once. The tools keep SQLite connections, engines and
models warm between calls, and a SQLite connection belongs to the thread that opened it.
So every tool body runs on ONE dedicated thread (:data:`TOOL_EXECUTOR`), one call after
another: concurrent calls queue instead of tripping over each other's connections, and
warm state is never shared across threads. Other processes (a ``charter index`` run)
are handled by SQLite's WAL and the index generation check.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import importlib
import inspect
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.errors import CharterError

#: Capability modules that contribute tools, in registration order.
TOOL_MODULES = (
    "charter.search.mcp_tools",
    "charter.rules.mcp_tools",
    "charter.decisions.mcp_tools",
    "charter.session.mcp_tools",
)
PROJECT_ENV = "CHARTER_PROJECT"

log = logging.getLogger("charter.mcp")
_PROJECT: dict[str, Project] = {}

#: The one thread every tool body runs on (see the module docstring).
TOOL_EXECUTOR = concurrent.futures.ThreadPoolExecutor(
    max_workers=1, thread_name_prefix="charter-tool"
)


def serialized(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as a coroutine function that runs ``fn`` on :data:`TOOL_EXECUTOR`.

    ``functools.wraps`` keeps the signature and annotations, so the SDK derives the same
    input schema from the wrapper as from ``fn``.
    """
    if inspect.iscoroutinefunction(fn):
        return fn

    @functools.wraps(fn)
    async def run(*args: Any, **kwargs: Any) -> Any:
        future = TOOL_EXECUTOR.submit(functools.partial(fn, *args, **kwargs))
        return await asyncio.wrap_future(future)

    return run


class SerialToolServer:
    """What a capability's ``register(server)`` sees: the server, whose ``tool``
    decorator registers the tool body wrapped by :func:`serialized`."""

    def __init__(self, server: Any) -> None:
        self._server = server

    def tool(self, *args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Any]:
        register = self._server.tool(*args, **kwargs)

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            register(serialized(fn))
            return fn

        return decorator

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)


@contextlib.contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a user error into an MCP tool error (the client sees the one-line message)."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        yield
    except CharterError as exc:
        raise ToolError(str(exc)) from None


def get_project() -> Project:
    """The project this server serves (``--project``, ``$CHARTER_PROJECT`` or the cwd).

    Loaded once; the configuration is re-read when ``charter.toml`` changes.
    """
    start = os.environ.get(PROJECT_ENV) or str(Path.cwd())
    cached = _PROJECT.get(start)
    if cached is not None:
        config = cached.config_path
        stamp = getattr(cached, "_charter_stamp", None)
        current = config.stat().st_mtime_ns if config and config.exists() else None
        if stamp == current:
            return cached
    project = Project.load(start)
    config = project.config_path
    project._charter_stamp = (  # type: ignore[attr-defined]
        config.stat().st_mtime_ns if config and config.exists() else None
    )
    _PROJECT[start] = project
    return project


def build_server(project_dir: Path | None = None) -> Any:
    """An ``MCPServer`` with the tools of every available capability registered."""
    from mcp.server import MCPServer

    if project_dir is not None:
        os.environ[PROJECT_ENV] = str(Path(project_dir).resolve())
    server = MCPServer(
        name="charter",
        instructions=(
            "Charter: the project's rules, cited search over docs/ADRs/source-of-truth, "
            "and fact checks. Search returns citations path#Lstart-Lend (Section); verify "
            "numbers, dates and IDs with verify_facts before relying on them."
        ),
        log_level="WARNING",
    )
    for name in TOOL_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                log.info("skipping %s (not installed)", name)
                continue
            log.warning("skipping %s: %s", name, exc)
            continue
        except Exception as exc:  # a broken capability must not take the server down
            log.warning("skipping %s: %s: %s", name, type(exc).__name__, exc)
            continue
        register = getattr(module, "register", None)
        if register is None:
            log.warning("skipping %s: no register(server)", name)
            continue
        register(SerialToolServer(server))
    return server


def serve(project_dir: Path | None = None) -> None:
    """Run the stdio server until the client disconnects."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(message)s")
    server = build_server(project_dir)
    server.run("stdio")
