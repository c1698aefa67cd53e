"""Rust symbols, calls and type references from tree-sitter.

Top-level functions, structs (``class``), enums, traits (``interface``), type aliases,
constants, statics and ``macro_rules!`` become symbols with line spans; the
functions of an ``impl`` block are methods named after the implemented type
(``Engine.start``). An item with a visibility modifier (``pub``, ``pub(crate)``) is
exported. ``use`` paths are not resolved to files yet: calls (``Task::new(`` → ``new``,
``helper(``) and capitalised type names link through names defined once in the project.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry
from charter.graph.parsers import node_text as _text

_CALLS = """
(call_expression function: [
  (identifier) @name
  (scoped_identifier name: (identifier) @name)
  (field_expression field: (field_identifier) @name)])
(macro_invocation macro: (identifier) @name)
"""
_REFS = "(type_identifier) @name"
_KIND = {
    "function_item": "function",
    "struct_item": "class",
    "union_item": "class",
    "enum_item": "enum",
    "trait_item": "interface",
    "type_item": "type",
    "const_item": "const",
    "static_item": "const",
    "macro_definition": "function",
}


def _exported(node: TsNode) -> bool:
    return any(c.type == "visibility_modifier" for c in node.children)


def _impl_type(node: TsNode) -> str:
    kind = node.child_by_field_name("type")
    while kind is not None and kind.type in ("generic_type", "scoped_type_identifier"):
        kind = kind.child_by_field_name("type") or kind.child_by_field_name("name")
    return _text(kind) if kind is not None and kind.type == "type_identifier" else ""


def _symbols(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for child in root.named_children:
        if child.type in _KIND:
            name = _text(child.child_by_field_name("name"))
            if name:
                kind = _KIND[child.type]
                out.append(symbol_entry(child, name, name, kind, _exported(child)))
        elif child.type == "impl_item":
            owner = _impl_type(child)
            body = child.child_by_field_name("body")
            for item in body.named_children if body is not None else []:
                if item.type != "function_item":
                    continue
                name = _text(item.child_by_field_name("name"))
                if name:
                    qualname = f"{owner}.{name}" if owner else name
                    # a trait's method is as public as the trait; else its own ``pub``
                    public = _exported(item) or child.child_by_field_name("trait") is not None
                    out.append(symbol_entry(item, name, qualname, "method", public))
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, calls and referenced type names of one Rust file."""
    root = parser("rust").parse(source).root_node
    calls = captured("rust", _CALLS, root)
    types = captured("rust", _REFS, root)
    return {
        "language": "rust",
        "symbols": _symbols(root),
        "imports": [],
        "calls": sorted(calls - {""}),
        "refs": sorted(t for t in types if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
