"""Ruby symbols, calls and constant references from tree-sitter.

Ruby has no imports to follow: Rails (Zeitwerk) and most gems load a constant from the
file its name points at, and code names the constants it uses (``Transfer.create!``,
``Balance::Calculator.new``). So classes and modules are symbols named by their full
constant path (``Account::Syncer``, whether written ``class Account::Syncer`` or nested
in ``module Account``), and every constant a file uses is a reference by that path; the
graph links a reference to the one file defining it. A bare constant inside a namespace
may mean a sibling (``Syncer`` inside ``module Account`` is ``Account::Syncer``), so each
enclosing path is offered too, and only a path defined exactly once links. A namespace
wrapper that only holds other classes (``module Account`` around ``class Syncer``) defines
nothing itself, or every file under ``account/`` would define ``Account``.

Methods are ``Type.method`` (``self.`` methods too); a method after a bare ``private`` or
``protected``, or wrapped in ``private def``, is not exported.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry
from charter.graph.parsers import node_text as _text

_CALLS = "(call method: (identifier) @name)"
_TYPES = ("class", "module")
_HIDING = frozenset({"private", "protected"})


def _constant_path(node: TsNode | None) -> str:
    """``Account::Syncer`` for a name node (a leading ``::`` dropped)."""
    return _text(node).strip().lstrip(":").replace(" ", "") if node is not None else ""


def _only_types(body: TsNode | None) -> bool:
    """Whether a class or module body holds nothing but classes and modules (or nothing
    but comments): a namespace wrapper."""
    if body is None:
        return True
    return all(c.type in (*_TYPES, "comment") for c in body.named_children)


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []
        self.refs: set[str] = set()

    def body(self, node: TsNode | None, scope: list[str]) -> None:
        """Definitions and references in one class/module/program body."""
        if node is None:
            return
        hidden = False
        for child in node.named_children:
            if child.type == "identifier" and _text(child) in _HIDING:
                hidden = True  # a bare ``private``: what follows is not public
            elif child.type == "identifier" and _text(child) == "public":
                hidden = False
            elif child.type in _TYPES:
                self.type_(child, scope)
            elif child.type in ("method", "singleton_method"):
                self.method(child, scope, not hidden)
            elif child.type == "call" and _wraps_method(child):
                private = _text(child.child_by_field_name("method")) in _HIDING
                args = child.child_by_field_name("arguments")
                for item in args.named_children if args is not None else []:
                    if item.type in ("method", "singleton_method"):
                        self.method(item, scope, not private and not hidden)
                self.references(child, scope, skip_methods=True)
            else:
                self.references(child, scope)

    def type_(self, node: TsNode, scope: list[str]) -> None:
        written = _constant_path(node.child_by_field_name("name"))
        if not written:
            return
        full = written if not scope else f"{scope[-1]}::{written}"
        body = node.child_by_field_name("body")
        if not _only_types(body):
            kind = "class" if node.type == "class" else "module"
            self.symbols.append(symbol_entry(node, full, full, kind, True))
        superclass = node.child_by_field_name("superclass")
        if superclass is not None:
            self.references(superclass, scope)
        self.body(body, [*scope, full])

    def method(self, node: TsNode, scope: list[str], public: bool) -> None:
        name = _text(node.child_by_field_name("name"))
        if not name:
            return
        owner = scope[-1] if scope else ""
        qualname = f"{owner}.{name}" if owner else name
        self.symbols.append(
            symbol_entry(node, name, qualname, "method" if owner else "function", public)
        )
        self.references(node, scope)

    def references(self, node: TsNode, scope: list[str], skip_methods: bool = False) -> None:
        """Constants used under ``node``: a ``scope_resolution`` by its whole path, a bare
        constant by itself and by each enclosing namespace's path."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "scope_resolution":
                path = _constant_path(current)
                if path[:1].isupper():
                    self.refs.add(path)
                    continue
            elif current.type == "constant":
                name = _text(current)
                self.refs.add(name)
                self.refs.update(f"{outer}::{name}" for outer in scope)
                continue
            elif current.type in _TYPES and current is not node:
                continue  # a nested definition is walked as one
            elif skip_methods and current.type in ("method", "singleton_method"):
                continue
            stack.extend(current.named_children)


def _wraps_method(node: TsNode) -> bool:
    """``private def x`` / ``protected def x`` / ``memoize def x``: a call whose argument
    is a method definition."""
    args = node.child_by_field_name("arguments")
    return args is not None and any(
        c.type in ("method", "singleton_method") for c in args.named_children
    )


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, calls and referenced constants of one Ruby file."""
    root = parser("ruby").parse(source).root_node
    walker = _Walker()
    walker.body(root, [])
    calls = captured("ruby", _CALLS, root)
    return {
        "language": "ruby",
        "symbols": walker.symbols,
        "imports": [],
        "calls": sorted(calls - {""}),
        "refs": sorted(r for r in walker.refs if len(r) > 2),
        "parse_errors": bool(root.has_error),
    }
