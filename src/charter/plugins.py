"""The one seam between capabilities and front doors (pluggy hook specifications).

Capabilities (rules, search, decisions, session, …) offer what they have here — MCP
tools, Claude Code hook handlers — and front doors (the MCP server, the hook dispatcher,
the CLI) read it. Arrows only point down: a capability never imports
``charter.integrations`` or ``charter.cli``; a front door never reaches into a
capability's internals for what the seam offers. A third-party package adds to Charter
the same way, through the ``charter`` entry-point group.

Three hooks:

- :meth:`Specs.charter_mcp_tools` — add tools to a :class:`ToolSet`. A tool body is a
  plain typed function; it finds its project with ``tools.project()`` and raises
  :class:`~charter.errors.CharterError` for user errors. The MCP door turns those into
  tool errors and decides which thread runs the body.
- :meth:`Specs.charter_hook_handlers` — add handlers to a :class:`HookSet`, per Claude
  Code event and role (capture, pinned context, prompt context, decision, composition).
- :meth:`Specs.charter_cli` — add Typer command groups (the CLI door's own modules
  implement it; so can plugins).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import pluggy

hookspec = pluggy.HookspecMarker("charter")
hookimpl = pluggy.HookimplMarker("charter")

#: Charter's own plugins, in registration order. Front doors read them through
#: :func:`manager`; nothing else needs to know this list.
BUILTIN_PLUGINS = (
    "charter.search.plugin",
    "charter.rules.plugin",
    "charter.decisions.plugin",
    "charter.session.plugin",
    "charter.graph.plugin",
    "charter.cli.plugin",
)


class HookState(Protocol):
    """What a hook handler gets: the project, and a cache the warm worker keeps alive
    between events (handlers keep their warm objects there, keyed by their own names)."""

    root: Any
    project: Any
    cache: dict[str, Any]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    fn: Callable[..., Any]


class ToolSet:
    """The MCP tools capabilities offer; ``project`` is how a tool finds its project."""

    def __init__(self, project: Callable[[], Any]) -> None:
        self.project = project
        self.tools: list[Tool] = []

    def tool(
        self, name: str, description: str
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            if any(t.name == name for t in self.tools):
                raise ValueError(f"MCP tool {name!r} offered twice")
            self.tools.append(Tool(name, description, fn))
            return fn

        return add


#: A handler that records something and returns notes for stderr.
Capture = Callable[[HookState, dict[str, Any]], list[str]]
#: (heading, text) parts session start always pins (constitution, invariants).
Pinned = Callable[[HookState, dict[str, Any], list[str]], list[tuple[str, str]]]
#: Text added to a prompt's context (or None), notes appended to the list.
Context = Callable[[HookState, dict[str, Any], list[str]], str | None]
#: A hook's own JSON answer (Stop block, PreToolUse deny), or None; notes appended.
Decide = Callable[[HookState, dict[str, Any], list[str]], dict[str, Any] | None]
#: Session start's text from the pinned parts: (text, notes).
Compose = Callable[[HookState, dict[str, Any], list[tuple[str, str]]], tuple[str, list[str]]]


@dataclass
class HookSet:
    """Claude Code hook handlers by event (CLI names: ``post-tool-use`` …) and role."""

    capture: dict[str, list[Capture]] = field(default_factory=dict)
    pinned: list[tuple[int, Pinned]] = field(default_factory=list)
    context: dict[str, list[Context]] = field(default_factory=dict)
    decide: dict[str, list[Decide]] = field(default_factory=dict)
    compose: list[Compose] = field(default_factory=list)
    #: Events whose ``decide`` handlers fail closed (guardrails) instead of open.
    fail_closed: set[str] = field(default_factory=set)

    def on_capture(self, *events: str) -> Callable[[Capture], Capture]:
        def add(fn: Capture) -> Capture:
            for event in events:
                self.capture.setdefault(event, []).append(fn)
            return fn

        return add

    def on_pinned(self, order: int) -> Callable[[Pinned], Pinned]:
        """Session start pins parts in ascending ``order`` (constitution 10, invariants 20)."""

        def add(fn: Pinned) -> Pinned:
            self.pinned.append((order, fn))
            return fn

        return add

    def on_context(self, event: str) -> Callable[[Context], Context]:
        def add(fn: Context) -> Context:
            self.context.setdefault(event, []).append(fn)
            return fn

        return add

    def on_decide(self, event: str, *, fail_closed: bool = False) -> Callable[[Decide], Decide]:
        def add(fn: Decide) -> Decide:
            self.decide.setdefault(event, []).append(fn)
            if fail_closed:
                self.fail_closed.add(event)
            return fn

        return add


class Specs:
    """The hook specifications (see the module docstring)."""

    @hookspec
    def charter_mcp_tools(self, tools: ToolSet) -> None:
        """Add MCP tools to ``tools``."""

    @hookspec
    def charter_hook_handlers(self, hooks: HookSet) -> None:
        """Add Claude Code hook handlers to ``hooks``."""

    @hookspec
    def charter_cli(self, app: Any, eval_app: Any) -> None:
        """Add Typer commands to the ``charter`` app and its ``eval`` group."""


@functools.cache
def manager() -> pluggy.PluginManager:
    """The plugin manager with Charter's own plugins and any installed ones."""
    pm = pluggy.PluginManager("charter")
    pm.add_hookspecs(Specs)
    for name in BUILTIN_PLUGINS:
        pm.register(importlib.import_module(name), name)
    pm.load_setuptools_entrypoints("charter")
    return pm


def tool_set(project: Callable[[], Any]) -> ToolSet:
    tools = ToolSet(project)
    manager().hook.charter_mcp_tools(tools=tools)
    return tools


@functools.cache
def hook_set() -> HookSet:
    hooks = HookSet()
    manager().hook.charter_hook_handlers(hooks=hooks)
    return hooks
