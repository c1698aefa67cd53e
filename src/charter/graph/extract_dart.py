"""Dart (and Flutter) symbols, file imports, calls and type references from tree-sitter.

Dart imports files by URI: ``import 'src/page.dart';`` and ``import '../x.dart';`` are
paths from the importer, ``import 'package:name/a/b.dart';`` is ``lib/a/b.dart`` of the
package whose ``pubspec.yaml`` says ``name: name`` (the linker resolves both), and
``dart:`` libraries are not files. ``export`` re-exports a file (a package's library
file is mostly exports of its ``src/`` files), ``part``/``part of`` make several files one
library. Classes, mixins, extensions, extension types and enums hold methods, getters,
setters and constructors (``Page.init``, ``Page.Page`` for the unnamed one); top-level
functions, getters and ``final``/``const``/``var`` variables (a Flutter app's providers)
are symbols too. A name starting with ``_`` is private to its library, the rest exported.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, symbol_entry, unique_symbols

_TYPES = {
    "class_definition": "class",
    "mixin_declaration": "class",
    "extension_declaration": "class",
    "extension_type_declaration": "class",
    "enum_declaration": "enum",
}
_BODIES = ("class_body", "extension_body", "enum_body")
_FUNCTIONS = ("function_signature", "getter_signature", "setter_signature")
_CONSTRUCTORS = (
    "constructor_signature",
    "constant_constructor_signature",
    "factory_constructor_signature",
    "redirecting_factory_constructor_signature",
)
_SELECTORS = ("unconditional_assignable_selector", "conditional_assignable_selector")


def _ident(node: TsNode, kind: str = "identifier") -> str:
    named = node.child_by_field_name("name")
    if named is not None:
        return _text(named)
    return _text(next((c for c in node.named_children if c.type == kind), None))


def _member_name(sig: TsNode, owner: str) -> str:
    """A method's, getter's or setter's name; a constructor's is its own (``named`` of
    ``Page.named``) or the class's (the unnamed constructor)."""
    if sig.type in _FUNCTIONS:
        return _ident(sig)
    if sig.type in _CONSTRUCTORS:
        idents = [_text(c) for c in sig.named_children if c.type == "identifier"]
        if len(idents) >= 2:
            return idents[1]
        return idents[0] if idents else owner.rsplit(".", 1)[-1]
    return ""


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []

    def add(
        self, node: TsNode, end: TsNode, name: str, qualname: str, kind: str, exported: bool
    ) -> None:
        entry = symbol_entry(node, name, qualname, kind, exported and not name.startswith("_"))
        entry["line_end"] = max(entry["line_end"], end.end_point[0] + 1)  # type: ignore[call-overload]
        self.symbols.append(entry)

    def top(self, root: TsNode) -> None:
        children = root.named_children
        for i, child in enumerate(children):
            nxt = children[i + 1] if i + 1 < len(children) else None
            body = nxt if nxt is not None and nxt.type == "function_body" else child
            if child.type in _TYPES:
                self.type(child)
            elif child.type in _FUNCTIONS:
                name = _ident(child)
                if name:
                    self.add(child, body, name, name, "function", True)
            elif child.type in ("static_final_declaration_list", "initialized_identifier_list"):
                for item in child.named_children:
                    name = _ident(item)
                    if name:
                        self.add(item, item, name, name, "variable", True)
            elif child.type == "type_alias":
                name = _ident(child, "type_identifier")
                if name:
                    self.add(child, child, name, name, "type", True)

    def type(self, node: TsNode) -> None:
        name = _ident(node)
        if not name and node.type == "extension_declaration":  # ``extension on String``
            name = _ident(node, "type_identifier")
        if not name:
            return
        self.add(node, node, name, name, _TYPES[node.type], True)
        body = next((c for c in node.named_children if c.type in _BODIES), None)
        members = body.named_children if body is not None else []
        for i, child in enumerate(members):
            sig = child.named_children[0] if child.named_children else None
            if sig is None or child.type not in ("method_signature", "declaration"):
                continue
            member = _member_name(sig, name)
            if not member:
                continue
            nxt = members[i + 1] if i + 1 < len(members) else None
            end = nxt if child.type == "method_signature" and nxt is not None else child
            end = end if end.type == "function_body" else child
            self.add(child, end, member, f"{name}.{member}", "method", not name.startswith("_"))


def _uri(node: TsNode) -> str:
    literal = next((c for c in node.named_children if c.type == "string_literal"), None)
    return _text(literal).strip("'\"") if literal is not None else ""


def _directives(root: TsNode) -> list[dict[str, Any]]:
    """The project files a file names: imports (each conditional alternative too),
    exports and parts; ``dart:`` and other schemes but ``package:`` are not files."""
    out: dict[str, str] = {}
    for child in root.named_children:
        uris: list[tuple[str, str]] = []
        if child.type == "import_or_export":
            for directive in child.named_children:
                kind = "export" if directive.type == "library_export" else "import"
                for node in _descendants(directive, "uri"):
                    uris.append((_uri(node), kind))
        elif child.type in ("part_directive", "part_of_directive"):
            for node in child.named_children:
                if node.type == "uri":
                    uris.append((_uri(node), "part"))
        for uri, kind in uris:
            if uri.endswith(".dart") and (uri.startswith("package:") or ":" not in uri):
                out.setdefault(uri, kind)
    return [{"module": m, "names": [], "level": 0, "kind": k} for m, k in sorted(out.items())]


def _descendants(node: TsNode, kind: str) -> list[TsNode]:
    found: list[TsNode] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if item.type == kind:
            found.append(item)
        else:
            stack.extend(item.named_children)
    return found


def _calls_and_refs(root: TsNode) -> tuple[set[str], set[str]]:
    """Names called (``foo(…)``, ``x.foo(…)``, ``x?.foo(…)``, ``Page(…)``, ``new Page()``)
    and capitalized type names used (annotations, ``extends``, ``Colors.red``)."""
    calls: set[str] = set()
    refs: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        children = node.named_children
        for i, child in enumerate(children):
            if child.type in ("identifier", "type_identifier"):
                word = _text(child)
                if len(word) > 2 and word[:1].isupper():
                    refs.add(word)
            if child.type != "selector" or not i:
                continue
            if not any(c.type == "argument_part" for c in child.named_children):
                continue
            prev = children[i - 1]
            if prev.type == "identifier":
                calls.add(_text(prev))
            elif prev.type == "selector" and prev.named_children:
                inner = prev.named_children[0]
                if inner.type in _SELECTORS and inner.named_children:
                    calls.add(_text(inner.named_children[-1]))
        if node.type in ("new_expression", "const_object_expression"):
            calls.add(_ident(node, "type_identifier"))
        stack.extend(children)
    return calls, refs


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, file imports, calls and type references of one Dart file."""
    root = parser("dart").parse(source).root_node
    walker = _Walker()
    walker.top(root)
    calls, refs = _calls_and_refs(root)
    return {
        "language": "dart",
        "symbols": unique_symbols(walker.symbols, longest=True),
        "imports": _directives(root),
        "calls": sorted(calls - {""}),
        "refs": sorted(refs),
        "parse_errors": bool(root.has_error),
    }
