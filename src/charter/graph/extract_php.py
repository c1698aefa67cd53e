"""PHP symbols, ``use`` imports, calls and class references from tree-sitter.

PHP names a class by its fully qualified name (``App\\Models\\Account``): classes,
interfaces, traits and enums are symbols by that name, whether the file says
``namespace App\\Models;`` or wraps its code in ``namespace App\\Models { … }``, and
methods are ``App\\Models\\Account.balance`` (exported unless ``private`` or
``protected``). Every class name a file uses (``new X``, ``X::method()``, ``X::class``,
type hints, ``extends``/``implements``, trait ``use``, ``instanceof``, ``catch``,
attributes) is a reference by the name PHP resolves it to: an imported alias to what it
imports, an unqualified or qualified name to the current namespace plus the name, a
leading ``\\`` to the global name. ``use`` statements (grouped ``use App\\{A, B}``,
aliases, ``use function``) are imports by fully qualified name; the linker finds their
files through composer.json's PSR-4 map or the file defining the name.

The grammar's ``php`` language parses a file with HTML around ``<?php`` (a template,
a view), which ``php_only`` would not.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, symbol_entry

_TYPES = {
    "class_declaration": "class",
    "trait_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
}
_NAMES = ("name", "qualified_name", "relative_name")
_HIDING = frozenset({"private", "protected"})
#: names that are no class: the relative scopes and the built-in types a grammar may
#: read as a class name in a type position
_NOT_CLASSES = frozenset(
    [
        "self",
        "static",
        "parent",
        "mixed",
        "iterable",
        "object",
        "callable",
        "void",
        "null",
        "false",
        "true",
        "never",
        "array",
        "bool",
        "boolean",
        "int",
        "integer",
        "float",
        "double",
        "string",
        "resource",
    ]
)
_CALL_TYPES = (
    "member_call_expression",
    "nullsafe_member_call_expression",
    "scoped_call_expression",
)


def _join(namespace: str, name: str) -> str:
    return f"{namespace}\\{name}" if namespace else name


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []
        self.imports: set[str] = set()
        self.refs: set[str] = set()
        self.calls: set[str] = set()
        self.namespace = ""
        self.aliases: dict[str, str] = {}  # lower-case alias → imported class
        self.functions: dict[str, str] = {}  # alias → imported function's own name

    def statements(self, nodes: list[TsNode]) -> None:
        for child in nodes:
            if child.type == "namespace_definition":
                self.enter(_text(child.child_by_field_name("name")))
                body = child.child_by_field_name("body")
                if body is not None:  # ``namespace X { … }``: the block is the scope
                    self.statements(body.named_children)
            elif child.type == "namespace_use_declaration":
                self.use(child)
            else:
                self.references(child)

    def enter(self, namespace: str) -> None:
        """A new namespace: its name, and no imports yet."""
        self.namespace = namespace.replace(" ", "").strip("\\")
        self.aliases = {}
        self.functions = {}

    def use(self, node: TsNode) -> None:
        """``use A\\B;``, ``use A\\B as C, D;``, ``use A\\{B, C as D};``, ``use function
        A\\f;`` (``use const`` imports no file)."""
        kind = next((c.type for c in node.children if c.type in ("function", "const")), "")
        prefix = ""
        clauses = node.named_children
        group = node.child_by_field_name("body")
        if group is not None:
            prefix = next((_text(c) for c in clauses if c.type == "namespace_name"), "")
            clauses = group.named_children
        for clause in clauses:
            if clause.type != "namespace_use_clause":
                continue
            own = next((c.type for c in clause.children if c.type in ("function", "const")), "")
            name = next((c for c in clause.named_children if c.type in _NAMES), None)
            written = _text(name).replace(" ", "").strip("\\")
            if not written or (own or kind) == "const":
                continue
            full = _join(prefix.replace(" ", "").strip("\\"), written)
            alias = _text(clause.child_by_field_name("alias")) or full.rsplit("\\", 1)[-1]
            if (own or kind) == "function":
                self.functions[alias] = full.rsplit("\\", 1)[-1]
            else:
                self.aliases[alias.lower()] = full
            self.imports.add(full)

    def resolve(self, node: TsNode | None) -> str:
        """The fully qualified class a name node means here ("" for none)."""
        if node is None or node.type not in _NAMES:
            return ""
        written = _text(node).replace(" ", "")
        if written.startswith("\\"):
            return written[1:]
        if written.lower() in _NOT_CLASSES:
            return ""
        if node.type == "relative_name" or written.lower().startswith("namespace\\"):
            return _join(self.namespace, written.split("\\", 1)[1])
        head, sep, rest = written.partition("\\")
        imported = self.aliases.get(head.lower())
        if imported:
            return f"{imported}{sep}{rest}"
        return _join(self.namespace, written)

    def ref(self, node: TsNode | None) -> None:
        full = self.resolve(node)
        if full:
            self.refs.add(full)

    def type_(self, node: TsNode) -> None:
        name = _text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        if name:
            full = _join(self.namespace, name)
            self.symbols.append(symbol_entry(node, full, full, _TYPES[node.type], True))
        for child in node.named_children:
            if child == body and name:
                self.members(child, full)
            elif child.type != "name":
                self.references(child)

    def members(self, body: TsNode, owner: str) -> None:
        for member in body.named_children:
            if member.type == "method_declaration":
                name = _text(member.child_by_field_name("name"))
                hidden = any(
                    c.type == "visibility_modifier" and _text(c).lower() in _HIDING
                    for c in member.children
                )
                if name:
                    qualname = f"{owner}.{name}"
                    self.symbols.append(symbol_entry(member, name, qualname, "method", not hidden))
            self.references(member)

    def function(self, node: TsNode) -> None:
        name = _text(node.child_by_field_name("name"))
        if name:  # called by its own name; known by its full one
            full = _join(self.namespace, name)
            self.symbols.append(symbol_entry(node, name, full, "function", True))

    def references(self, node: TsNode) -> None:
        """Classes named and functions/methods called under ``node``."""
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.type
            children = current.named_children
            if kind in _TYPES:
                self.type_(current)
                continue
            if kind == "function_definition":
                self.function(current)  # then its parameters and body, below
            elif kind == "named_type":
                self.ref(children[0] if children else None)
                continue
            elif kind in ("object_creation_expression", "class_constant_access_expression"):
                if children and children[0].type in _NAMES:
                    self.ref(children[0])
                    children = children[1:]
            elif kind in _CALL_TYPES:
                self.ref(current.child_by_field_name("scope"))
                name = current.child_by_field_name("name")
                if name is not None and name.type == "name":
                    self.calls.add(_text(name))
            elif kind == "scoped_property_access_expression":
                self.ref(current.child_by_field_name("scope"))
            elif kind == "function_call_expression":
                function = current.child_by_field_name("function")
                if function is not None and function.type in _NAMES:
                    called = _text(function).rsplit("\\", 1)[-1]
                    self.calls.add(self.functions.get(called, called))
            elif kind in ("base_clause", "class_interface_clause", "use_declaration"):
                for child in children:
                    self.ref(child)
            elif kind == "attribute":
                if children and children[0].type in _NAMES:
                    self.ref(children[0])
            elif kind == "binary_expression":
                operator = current.child_by_field_name("operator")
                if operator is not None and operator.type == "instanceof":
                    self.ref(current.child_by_field_name("right"))
            elif kind == "namespace_use_declaration":
                self.use(current)
                continue
            stack.extend(c for c in children if c.type not in _NAMES)


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, imports, calls and referenced classes of one PHP file."""
    root = parser("php").parse(source).root_node
    walker = _Walker()
    walker.statements(root.named_children)
    return {
        "language": "php",
        "symbols": walker.symbols,
        "imports": [{"module": m, "names": [], "level": 0} for m in sorted(walker.imports)],
        "calls": sorted(walker.calls - {""}),
        "refs": sorted(r for r in walker.refs if len(r) > 2),
        "parse_errors": bool(root.has_error),
    }
