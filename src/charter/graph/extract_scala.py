"""Scala symbols, package, imports, calls and type references from tree-sitter.

Classes (``case class`` too), objects and enums become ``class`` symbols and traits
``interface`` symbols, with line spans; nested types are ``Outer.Inner``, a type's
``def`` members ``Type.method`` and its ``val``/``var`` members ``Type.name``
(``property``), abstract ones included; an extension's methods belong to the scope
around it. Scala 3 top-level ``def`` are ``function`` symbols and top-level ``val``/
``var`` ``property`` symbols; ``type`` aliases are ``type`` symbols. Declarations are
public unless ``private`` or ``protected`` (``private[pkg]``, ``protected[this]`` too).
A method overloaded several times is one symbol, at its first declaration; definitions
inside a method body are not symbols.

The file's package is its package clauses joined (``package a.b`` then ``package c`` is
``a.b.c``), and a chained clause's enclosing packages (``a.b``) are recorded as
``enclosing``: their names are visible in the file without an import, as in Scala. Each
imported name is one import record resolved like Java's and Kotlin's (``Resolver.jvm``):
``import a.b.C`` and ``import a.b.{C, D => E}`` (``a.b.C``, ``a.b.D``), ``import a.b._``
/ ``a.b.*`` / ``a.b.given`` name the package (``a.b.*``); imports inside a class or a
method count as the file's. Calls keep the called name (``store.save(`` → ``save``,
``new Task(`` and ``Task(`` → ``Task``); references keep capitalised type names and the
objects whose members are used (``Registry.all`` → ``Registry``).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_CALLS = """
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (identifier) @name))
(call_expression function: (generic_function function: (identifier) @name))
(call_expression function: (generic_function
  function: (field_expression field: (identifier) @name)))
(instance_expression (type_identifier) @name)
(instance_expression (generic_type type: (type_identifier) @name))
(instance_expression (compound_type base: (type_identifier) @name))
(applied_constructor_type (type_identifier) @name)
(applied_constructor_type (generic_type type: (type_identifier) @name))
"""
_REFS = """
(type_identifier) @name
(field_expression value: (identifier) @name)
"""
_TYPES = {
    "class_definition": "class",
    "object_definition": "class",
    "enum_definition": "class",
    "trait_definition": "interface",
    "package_object": "class",
}
_DEFS = ("function_definition", "function_declaration")
_VALS = ("val_definition", "val_declaration", "var_definition", "var_declaration")


def _public(node: TsNode) -> bool:
    for mods in (c for c in node.children if c.type == "modifiers"):
        for mod in mods.named_children:
            if mod.type == "access_modifier" and _text(mod).startswith(("private", "protected")):
                return False
    return True


def _val_names(node: TsNode) -> list[str]:
    """The names a ``val``/``var`` binds: ``val a``, ``var a, b`` (not a tuple's parts)."""
    name = node.child_by_field_name("name") or node.child_by_field_name("pattern")
    if name is None:
        return []
    if name.type == "identifier":
        return [_text(name)]
    if name.type == "identifiers":
        return [_text(c) for c in name.named_children if c.type == "identifier"]
    return []


class _Symbols:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []

    def add(self, node: TsNode, name: str, prefix: str, kind: str, exported: bool) -> None:
        if name:
            qualname = f"{prefix}.{name}" if prefix else name
            self.symbols.append(symbol_entry(node, name, qualname, kind, exported))

    def body(self, body: TsNode | None, prefix: str) -> None:
        """The definitions of a file, a package block, or a type's body (``prefix`` is
        the type's qualified name, "" at the top level)."""
        for item in body.named_children if body is not None else []:
            if item.type in _TYPES:
                name = _text(item.child_by_field_name("name"))
                if not name:
                    continue
                self.add(item, name, prefix, _TYPES[item.type], _public(item))
                self.body(item.child_by_field_name("body"), f"{prefix}.{name}" if prefix else name)
            elif item.type in _DEFS:
                kind = "method" if prefix else "function"
                name = _text(item.child_by_field_name("name"))
                self.add(item, name, prefix, kind, _public(item))
            elif item.type in _VALS:
                for name in _val_names(item):
                    self.add(item, name, prefix, "property", _public(item))
            elif item.type == "given_definition":
                name = _text(item.child_by_field_name("name"))
                self.add(item, name, prefix, "property", _public(item))
            elif item.type == "type_definition":
                name = _text(item.child_by_field_name("name"))
                self.add(item, name, prefix, "type", _public(item))
            elif item.type == "extension_definition":  # its methods belong to the scope
                inner = item.child_by_field_name("body")
                if inner is not None and inner.type in _DEFS:
                    self.body(item, prefix)
                else:
                    self.body(inner, prefix)
            elif item.type == "package_clause":  # ``package inner { ... }``
                self.body(item.child_by_field_name("body"), prefix)
            elif item.type in ("template_body", "enum_body", "indented_block"):
                self.body(item, prefix)


def _dotted(node: TsNode | None) -> str:
    return "".join(_text(node).split()) if node is not None else ""


def _import_records(node: TsNode) -> list[dict[str, Any]]:
    """The records of one ``import`` (several for ``import a.B, c.D`` or selectors)."""
    out: list[dict[str, Any]] = []
    path: list[str] = []

    def close(selector: TsNode | None) -> None:
        if not path:
            return
        base = ".".join(path)
        if selector is None:
            out.append({"module": base, "names": [path[-1]], "level": 0})
        elif selector.type == "namespace_wildcard":
            out.append({"module": f"{base}.*", "names": [], "level": 0})
        elif selector.type == "as_renamed_identifier":
            name = _text(selector.child_by_field_name("name"))
            if name:
                out.append({"module": f"{base}.{name}", "names": [name], "level": 0})
        elif selector.type == "namespace_selectors":
            for sel in selector.named_children:
                if sel.type == "identifier":
                    name = _text(sel)
                elif sel.type in ("arrow_renamed_identifier", "as_renamed_identifier"):
                    alias = sel.child_by_field_name("alias")
                    if alias is not None and alias.type == "wildcard":
                        continue  # ``C => _`` hides C
                    name = _text(sel.child_by_field_name("name"))
                elif sel.type == "namespace_wildcard":
                    out.append({"module": f"{base}.*", "names": [], "level": 0})
                    continue
                else:
                    continue
                if name:
                    out.append({"module": f"{base}.{name}", "names": [name], "level": 0})

    selector: TsNode | None = None
    for i, child in enumerate(node.children):
        if child.type == ",":
            close(selector)
            path, selector = [], None
        elif child.type == "identifier" and node.field_name_for_child(i) == "path":
            path.append(_text(child))
        elif child.type in ("namespace_wildcard", "namespace_selectors", "as_renamed_identifier"):
            selector = child
    close(selector)
    return out


def _package_and_imports(root: TsNode) -> tuple[list[str], list[dict[str, Any]]]:
    """The file's chained package clauses (``["a.b", "c"]``) and all its imports."""
    packages: list[str] = []
    for child in root.named_children:
        if child.type == "package_clause":
            name = _dotted(child.child_by_field_name("name"))
            if name:
                packages.append(name)
            if child.child_by_field_name("body") is not None:
                break  # ``package a { ... }``: the first block's package is the file's
    imports: list[dict[str, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "import_declaration":
                imports.extend(_import_records(child))
            elif child.named_child_count:
                stack.append(child)
    return packages, imports


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, package, imports, calls and referenced type names of one Scala file."""
    root = parser("scala").parse(source).root_node
    table = _Symbols()
    table.body(root, "")
    packages, imports = _package_and_imports(root)
    calls = captured("scala", _CALLS, root)
    refs = captured("scala", _REFS, root)
    unique_imports = {(i["module"], tuple(i["names"])): i for i in imports}
    record: dict[str, Any] = {
        "language": "scala",
        "symbols": unique_symbols(table.symbols),
        "imports": [unique_imports[k] for k in sorted(unique_imports)],
        "calls": sorted(calls - {""}),
        "refs": sorted(t for t in refs if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
    if packages:
        record["package"] = ".".join(packages)
        if len(packages) > 1:  # a chained clause sees its enclosing packages' names
            record["enclosing"] = [".".join(packages[:k]) for k in range(len(packages) - 1, 0, -1)]
    return record
