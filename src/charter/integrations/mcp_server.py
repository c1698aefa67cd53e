"""``charter mcp``: Charter's tools over the Model Context Protocol (official SDK, stdio).

Each capability offers its tools on the seam (:mod:`charter.plugins`); this module only
builds the server, registers every offered tool, and turns a user error
(:class:`CharterError`) raised by a tool body into an MCP tool error. Tools find the
project through :func:`get_project`. Nothing is ever printed to stdout (it carries the
protocol); logs go to stderr.

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
import inspect
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.paths import find_project
from charter.safejson import replace_lone_surrogates

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


def user_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with a :class:`CharterError` turned into an MCP tool error (one line)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with tool_errors():
            return fn(*args, **kwargs)

    return run


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
    named = os.environ.get(PROJECT_ENV)
    start = named or str(Path.cwd())
    if not named and find_project(Path(start)) is None:
        # started where no project is (a user-level server launched from $HOME): answer
        # every call with the reason instead of writing .charter/ into that directory
        raise CharterError(
            f"{start} is in no project (no charter.toml, [tool.charter] or .git above it): "
            f"start the server in one, or name it with --project or ${PROJECT_ENV}"
        )
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


def build_server(
    project_dir: Path | None = None, project_getter: Callable[[], Project] | None = None
) -> Any:
    """An ``MCPServer`` with the tools every capability offers on the seam.

    ``project_getter`` replaces :func:`get_project` (in-memory tests).
    """
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
    from charter.plugins import tool_set

    for tool in tool_set(project_getter or get_project).tools:
        server.tool(name=tool.name, description=tool.description)(serialized(user_errors(tool.fn)))
    _on_a_budget(server)
    return server


#: Methods of capabilities Charter does not have. The SDK registers handlers for them by
#: default, and a client that sees resources or prompts advertised adds its own tools
#: for them to every model request (about 540 tokens in Claude Code).
UNUSED_METHODS = (
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
)


_LIMITS = ("maxLength", "minLength", "maxItems", "minItems")


def compact_schema(schema: Any) -> Any:
    """A tool's input schema without what costs tokens and tells the model little:
    pydantic's generated ``title`` keys, length limits, empty defaults, and ``anyOf
    [X, null]`` for an optional parameter. The advertised schema only guides the model;
    every call is still validated against the full one."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _LIMITS or (key == "default" and value in ("", False, None, [], {})):
            continue
        out[key] = value if key in ("enum", "const", "default") else compact_schema(value)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        other = next(o for o in options if o != {"type": "null"})
        merged = {k: v for k, v in out.items() if k != "anyOf"}
        if merged.get("default") is None:
            merged.pop("default", None)
        if isinstance(other, dict):
            return {**other, **merged}
    return out


def _on_a_budget(server: Any) -> None:
    """Every tool definition goes to the model on every request: keep them small, and
    advertise only the capabilities Charter has (SDK internals, pinned; tested)."""
    for tool in server._tool_manager.list_tools():
        tool.parameters = compact_schema(tool.parameters)
    handlers = server._lowlevel_server._request_handlers
    for method in UNUSED_METHODS:
        handlers.pop(method, None)
    _one_line_argument_errors(server._tool_manager)


def argument_errors(exc: Any) -> str:
    """``argument: message`` per failed argument, on one line (pydantic's own text is a
    block per error with a documentation link)."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


def _one_line_argument_errors(manager: Any) -> None:
    """Arguments that fail the tool's schema come back as one line naming each argument."""
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    call_tool = manager.call_tool

    async def call(name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if isinstance(arguments, dict):
            # half a surrogate pair ("\\ud83d" in the JSON) cannot be written back in
            # the reply: the call was never answered and the client waited for ever
            replace_lone_surrogates(arguments)
        try:
            return await call_tool(name, arguments, *args, **kwargs)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise  # a crash inside a tool keeps the SDK's generic message
            raise ToolError(f"Error executing tool {name}: {argument_errors(cause)}") from cause

    manager.call_tool = call


class _LoneSurrogateTolerantAdapter:
    """The SDK's JSON-RPC message adapter, reading a message its strict parser refuses
    only for half a surrogate pair (``"\\ud83d"``: valid JSON, as a cut emoji leaves
    it) with each such half read as U+FFFD. The SDK dropped the message without a reply,
    so the client waited for ever on that call (SDK internals, pinned; tested)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def validate_json(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        import json

        from pydantic import ValidationError

        try:
            return self._inner.validate_json(data, *args, **kwargs)
        except ValidationError as exc:
            refused = exc
        try:
            message = json.loads(data)
        except (ValueError, TypeError, RecursionError):
            raise refused from None
        if not isinstance(message, dict) or not replace_lone_surrogates(message):
            raise refused
        return self._inner.validate_json(json.dumps(message), *args, **kwargs)


def _tolerate_lone_surrogates() -> None:
    import mcp_types

    adapter = mcp_types.jsonrpc_message_adapter
    if not isinstance(adapter, _LoneSurrogateTolerantAdapter):
        mcp_types.jsonrpc_message_adapter = _LoneSurrogateTolerantAdapter(adapter)  # type: ignore[assignment]


def serve(project_dir: Path | None = None) -> None:
    """Run the stdio server until the client disconnects."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(message)s")
    server = build_server(project_dir)
    _tolerate_lone_surrogates()
    server.run("stdio")
