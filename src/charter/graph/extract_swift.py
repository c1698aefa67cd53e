"""Swift symbols, imports, calls and type references from tree-sitter.

Classes, structs and actors become ``class`` symbols, enums ``enum``, protocols
``interface`` and type aliases ``type``, with line spans; nested types are
``Outer.Inner`` and the members of a type ``Type.method``, ``Type.property`` and, for an
initializer, ``Type.init`` (named by that qualified name, as C#'s constructors are:
``Task(`` calls the type). An ``extension Foo`` declares no type: its members are
``Foo.member`` (``extension Foo.Bar`` gives ``Foo.Bar.member``), wherever ``Foo`` is
defined. Top-level functions are ``function`` symbols and top-level ``let`` constants
``const``. Swift's default access is ``internal`` (visible in the whole module), so every
declaration is exported unless it, or a type or extension around it, is ``private`` or
``fileprivate``. A member overloaded several times is one symbol, at its first
declaration; enum cases, subscripts and ``deinit`` are not symbols.

``import Module`` (also ``@testable import`` and ``import struct Module.Name``) is an
import record of the module; a module is a SwiftPM target, the folder under ``Sources/``
or ``Tests/`` (or, outside that layout, a file's top folder, as Xcode projects lay out
targets), and the linker narrows it to the files that define a top-level name this file
uses or an extension method it calls; the files of one module see each other's
top-level names without importing them. Methods the file declares in extensions of types
it does not define are listed (``extensions``): a file calls them without naming their
file's type. Calls keep the called name (``store.send(`` → ``send``, ``Task(`` and
``.run {`` → ``run``); references keep type names written in type positions (attributes
and property wrappers among them) and the types whose members are used (``Effect.none``
→ ``Effect``). A file with an ``@main`` declaration is an entry point (``entry``).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_CALLS = """
(call_expression . (simple_identifier) @name)
(call_expression . (navigation_expression
  suffix: (navigation_suffix suffix: (simple_identifier) @name)))
(call_expression . (prefix_expression target: (simple_identifier) @name))
(constructor_expression constructed_type: (user_type . (type_identifier) @name))
"""
_REFS = """
(user_type (type_identifier) @name)
(navigation_expression target: (simple_identifier) @name)
"""
_KINDS = {"class": "class", "struct": "class", "actor": "class", "enum": "enum"}
_HIDDEN = frozenset(["private", "fileprivate"])


def _public(node: TsNode) -> bool:
    """False for a ``private`` or ``fileprivate`` declaration (``private(set)`` only
    hides the setter)."""
    for mods in (c for c in node.children if c.type == "modifiers"):
        for mod in mods.named_children:
            if mod.type == "visibility_modifier" and _text(mod).strip() in _HIDDEN:
                return False
    return True


def _keyword(node: TsNode) -> str:
    kind = node.child_by_field_name("declaration_kind")
    return _text(kind) if kind is not None else ""


def _type_name(node: TsNode) -> str:
    """A declared type's name, or the dotted type an extension extends (generic
    arguments left out: ``extension Array<Int>`` extends ``Array``)."""
    name = node.child_by_field_name("name")
    if name is None:
        return ""
    if name.type == "user_type":
        return ".".join(_text(c) for c in name.named_children if c.type == "type_identifier")
    return _text(name)


def _property_names(node: TsNode) -> list[str]:
    out = []
    for pattern in node.children_by_field_name("name"):
        ident = pattern.child_by_field_name("bound_identifier")
        if ident is not None:
            out.append(_text(ident))
    return out


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []
        self.defined_types: set[str] = set()
        self.extended: list[tuple[str, list[str]]] = []  # extended type, its methods

    def add(self, node: TsNode, name: str, qualname: str, kind: str, exported: bool) -> None:
        self.symbols.append(symbol_entry(node, name, qualname, kind, exported))

    def type(self, node: TsNode, prefix: str, exported: bool) -> None:
        name = _type_name(node)
        if not name:
            return
        keyword = _keyword(node)
        exported = exported and _public(node)
        if keyword == "extension":
            # ``extension Foo`` inside a type still extends the top-level ``Foo``
            methods = self.members(node.child_by_field_name("body"), name, exported)
            self.extended.append((name, methods))
            return
        qualname = f"{prefix}.{name}" if prefix else name
        if not prefix:
            self.defined_types.add(name)
        kind = "interface" if node.type == "protocol_declaration" else _KINDS.get(keyword, "class")
        self.add(node, name, qualname, kind, exported)
        self.members(node.child_by_field_name("body"), qualname, exported)

    def members(self, body: TsNode | None, prefix: str, exported: bool) -> list[str]:
        """Declarations in a type, extension or protocol body; the names of its methods."""
        methods = []
        for item in body.named_children if body is not None else []:
            visible = exported and _public(item)
            if item.type in ("class_declaration", "protocol_declaration"):
                self.type(item, prefix, exported)
            elif item.type in ("function_declaration", "protocol_function_declaration"):
                name = _text(item.child_by_field_name("name"))
                if name:
                    self.add(item, name, f"{prefix}.{name}", "method", visible)
                    methods.append(name)
            elif item.type == "init_declaration":
                full = f"{prefix}.init"
                self.add(item, full, full, "constructor", visible)
            elif item.type in ("property_declaration", "protocol_property_declaration"):
                for name in _property_names(item):
                    self.add(item, name, f"{prefix}.{name}", "property", visible)
            elif item.type == "typealias_declaration":
                name = _text(item.child_by_field_name("name"))
                if name:
                    self.add(item, name, f"{prefix}.{name}", "type", visible)
        return methods

    def top(self, root: TsNode) -> None:
        for child in root.named_children:
            if child.type in ("class_declaration", "protocol_declaration"):
                self.type(child, "", True)
            elif child.type == "function_declaration":
                name = _text(child.child_by_field_name("name"))
                if name:
                    self.add(child, name, name, "function", _public(child))
            elif child.type == "typealias_declaration":
                name = _text(child.child_by_field_name("name"))
                if name:
                    self.add(child, name, name, "type", _public(child))
            elif child.type == "property_declaration" and any(
                _text(c.child_by_field_name("mutability")) == "let"
                for c in child.named_children
                if c.type == "value_binding_pattern"
            ):
                for name in _property_names(child):
                    self.add(child, name, name, "const", _public(child))


def _imports(root: TsNode) -> list[dict[str, Any]]:
    """``import A`` → module ``A``; ``import struct A.B`` → module ``A``, name ``B``."""
    out = []
    for child in root.named_children:
        if child.type != "import_declaration":
            continue
        ident = next((c for c in child.named_children if c.type == "identifier"), None)
        parts = [_text(c) for c in ident.named_children] if ident is not None else []
        if parts:
            out.append({"module": parts[0], "names": parts[1:2], "level": 0})
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, imports, calls, referenced type names and extension methods of one Swift
    file."""
    root = parser("swift").parse(source).root_node
    walker = _Walker()
    walker.top(root)
    unique = unique_symbols(walker.symbols)
    extensions = {
        method
        for extended, methods in walker.extended
        if extended.split(".", 1)[0] not in walker.defined_types
        for method in methods
    }
    imports = {(d["module"], tuple(d["names"])): d for d in _imports(root)}
    record: dict[str, Any] = {
        "language": "swift",
        "symbols": unique,
        "imports": [imports[k] for k in sorted(imports)],
        "calls": sorted(captured("swift", _CALLS, root) - {""}),
        "refs": sorted(t for t in captured("swift", _REFS, root) if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
    if extensions:
        record["extensions"] = sorted(extensions)
    if any(_is_main(node) for node in root.named_children):
        record["entry"] = True
    return record


def _is_main(node: TsNode) -> bool:
    """A top-level declaration marked ``@main``: the program's entry point (a SwiftUI
    ``App``, an ``AsyncParsableCommand``), as ``main.swift`` is."""
    return any(
        attr.type == "attribute" and _text(attr).strip() == "@main"
        for mods in node.children
        if mods.type == "modifiers"
        for attr in mods.named_children
    )
