"""Rust symbols, calls and type references from tree-sitter.

Top-level functions, structs (``class``), enums, traits (``interface``), type aliases,
constants, statics and ``macro_rules!`` become symbols with line spans; the
functions of an ``impl`` block are methods named after the implemented type
(``Engine.start``). An item with a visibility modifier (``pub``, ``pub(crate)``) is
exported. A file's top-level ``mod name;`` declarations and ``use`` paths (a use tree
flattened: ``use crate::a::{b::C, d}`` is ``crate::a::b::C`` and ``crate::a::d``) are its
imports, which the resolver turns into files; calls (``Task::new(`` → ``new``,
``helper(``) and capitalised type names link through the imported files' names, else
names defined once in the project.
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


def _use_paths(node: TsNode | None, prefix: str = "") -> list[str]:
    """The paths a ``use`` tree names (``{…}`` lists and ``as`` aliases flattened; a glob
    ``a::*`` names ``a``)."""
    if node is None:
        return []
    kind = node.type
    if kind == "use_as_clause":
        return _use_paths(node.child_by_field_name("path"), prefix)
    if kind == "use_list":
        return [p for child in node.named_children for p in _use_paths(child, prefix)]
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = _joined(prefix, _text(path)) if path is not None else prefix
        return _use_paths(node.child_by_field_name("list"), inner)
    if kind == "use_wildcard":
        named = [c for c in node.named_children if c.type != "use_list"]
        return [_joined(prefix, _text(named[0]))] if named else ([prefix] if prefix else [])
    if kind in ("identifier", "scoped_identifier", "crate", "self", "super"):
        return [_joined(prefix, _text(node))]
    return []


def _joined(prefix: str, path: str) -> str:
    path = "".join(path.split())
    return f"{prefix}::{path}" if prefix else path


def _imports(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for child in root.named_children:
        if child.type == "mod_item" and child.child_by_field_name("body") is None:
            name = _text(child.child_by_field_name("name"))
            if name:
                out.append({"module": name, "names": [], "level": 0, "kind": "mod"})
        elif child.type == "use_declaration":
            for path in _use_paths(child.child_by_field_name("argument")):
                last = path.rsplit("::", 1)[-1]
                out.append({"module": path, "names": [last], "level": 0, "kind": "use"})
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, calls and referenced type names of one Rust file."""
    root = parser("rust").parse(source).root_node
    calls = captured("rust", _CALLS, root)
    types = captured("rust", _REFS, root)
    return {
        "language": "rust",
        "symbols": _symbols(root),
        "imports": _imports(root),
        "calls": sorted(calls - {""}),
        "refs": sorted(t for t in types if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
