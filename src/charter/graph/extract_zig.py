"""Zig symbols, file imports and calls from tree-sitter.

Zig imports files by path: ``const Page = @import("page.zig").Page;`` names a file
beside the importer, so every ``@import`` of a ``.zig`` path is an import the linker
resolves exactly (``@import("std")`` and other package names are not files). A file is
itself a struct, and its top-level ``const X = struct { … }`` (enum, union, opaque) is a
type whose functions are ``X.fn``; ``pub`` marks what other files may use. Calls are by
function or method name.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_CALLS = """
(call_expression function: (identifier) @name)
(call_expression function: (field_expression member: (identifier) @name))
"""
_CONTAINERS = {
    "struct_declaration": "class",
    "enum_declaration": "enum",
    "union_declaration": "class",
    "opaque_declaration": "class",
}


def _public(node: TsNode) -> bool:
    return any(not c.is_named and c.type == "pub" for c in node.children)


def _name(node: TsNode) -> str:
    ident = next((c for c in node.named_children if c.type == "identifier"), None)
    return _text(ident)


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []
        self.imports: set[str] = set()

    def members(self, node: TsNode, owner: str) -> None:
        """Declarations of a file or of a container type (``owner``)."""
        for child in node.named_children:
            if child.type == "function_declaration":
                name = _name(child)
                if name:
                    qualname = f"{owner}.{name}" if owner else name
                    kind = "method" if owner else "function"
                    self.symbols.append(symbol_entry(child, name, qualname, kind, _public(child)))
            elif child.type == "variable_declaration":
                self.variable(child, owner)

    def variable(self, node: TsNode, owner: str) -> None:
        name = _name(node)
        value = next(
            (c for c in node.named_children if c.type in _CONTAINERS),
            None,
        )
        if name and value is not None:
            qualname = f"{owner}.{name}" if owner else name
            self.symbols.append(
                symbol_entry(node, name, qualname, _CONTAINERS[value.type], _public(node))
            )
            self.members(value, qualname)


def _imports(root: TsNode) -> set[str]:
    """Every ``@import("x.zig")`` path in the file (package names are not files)."""
    out: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        args = node.named_children
        if node.type == "builtin_function" and args and _text(args[0]) == "@import":
            path = _text(args[1]).strip().strip("()").strip().strip('"') if len(args) > 1 else ""
            if path.endswith(".zig"):
                out.add(path)
            continue
        stack.extend(node.named_children)
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, file imports and calls of one Zig file."""
    root = parser("zig").parse(source).root_node
    walker = _Walker()
    walker.members(root, "")
    calls = captured("zig", _CALLS, root)
    return {
        "language": "zig",
        "symbols": unique_symbols(walker.symbols),
        "imports": [{"module": m, "names": [], "level": 0} for m in sorted(_imports(root))],
        "calls": sorted(calls - {""}),
        "refs": [],
        "parse_errors": bool(root.has_error),
    }
