"""C# symbols, namespaces, ``using`` directives, calls and type references from tree-sitter.

Classes, records and structs become ``class`` symbols, interfaces ``interface``, enums
``enum`` and delegates ``type``, with line spans; nested types are ``Outer.Inner`` and the
members of a type ``Type.Method``, ``Type.Property`` and, for constructors,
``Type.Type``. A constructor's ``name`` is that qualified name too: under the bare type
name it would make every type with a constructor a name defined twice, and ``new Task(``
would no longer reach the one ``Task`` of the project (it links to the type). ``public``
and ``internal`` members are exported (visible outside the file's type, like Rust's
``pub(crate)``), as are an interface's members and a top-level type without an access
modifier (internal by default). A member overloaded several times is one symbol, at its
first declaration.

Each file records the namespaces it declares (block ``namespace A.B { }``, nested ones
joined, and file-scoped ``namespace A.B;``). ``using A.B;`` is an import of that
namespace, which the linker narrows to the files that define a name this file uses;
``using static A.B.Helpers;`` and an alias ``using T = A.B.Task;`` import a type, resolved
by ``resolve.Resolver.csharp``; ``global using`` marks an import every file of the same
project (the folder of the nearest ``.csproj``) sees. The file's extension methods are
listed, as a ``using`` brings them in without its class being named. Calls keep the called name
(``store.Save(`` → ``Save``, ``new Task(`` → ``Task``); references keep type names
written in type positions, the classes whose members are used (``Guard.Against`` →
``Guard``) and attributes (``[Audit]`` → ``Audit`` and ``AuditAttribute``).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_NAME = "[(identifier) @name (generic_name . (identifier) @name)]"
_CALLS = f"""
(invocation_expression function: [
  (identifier) @name
  (generic_name . (identifier) @name)
  (member_access_expression name: {_NAME})
  (conditional_access_expression (member_binding_expression name: {_NAME}))])
(object_creation_expression type: [
  {_NAME[1:-1]}
  (qualified_name name: {_NAME})])
"""
_REFS = """
(_ type: [(identifier) @name (qualified_name name: (identifier) @name)])
(_ returns: [(identifier) @name (qualified_name name: (identifier) @name)])
(generic_name . (identifier) @name)
(type_argument_list (identifier) @name)
(base_list [(identifier) @name (qualified_name name: (identifier) @name)])
(member_access_expression expression: (identifier) @name)
(explicit_interface_specifier (identifier) @name)
"""
_ATTRIBUTES = "(attribute name: (identifier) @name)"
_TYPES = {
    "class_declaration": "class",
    "record_declaration": "class",
    "struct_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "delegate_declaration": "type",
}
_MEMBERS = {
    "method_declaration": "method",
    "constructor_declaration": "constructor",
    "property_declaration": "property",
}
_ACCESS = frozenset(["public", "internal", "protected", "private", "file"])


def _modifiers(node: TsNode) -> set[str]:
    return {_text(c) for c in node.children if c.type == "modifier"}


def _exported(node: TsNode, in_interface: bool, top_level: bool) -> bool:
    mods = _modifiers(node)
    if mods & {"public", "internal"}:
        return True
    if in_interface:  # an interface's members are public unless marked otherwise
        return "private" not in mods
    return top_level and not mods & _ACCESS  # a top-level type is internal by default


def _extension(method: TsNode) -> bool:
    """``static T Name(this Foo foo, …)``: called as ``foo.Name()``, so a file calling it
    needs the namespace of its static class without naming that class."""
    params = method.child_by_field_name("parameters")
    first = (
        next((c for c in params.named_children if c.type == "parameter"), None) if params else None
    )
    return first is not None and "this" in _modifiers(first)


def _type(
    node: TsNode,
    prefix: str,
    out: list[dict[str, Any]],
    in_interface: bool,
    extensions: set[str],
) -> None:
    name = _text(node.child_by_field_name("name"))
    if not name:
        return
    qualname = f"{prefix}.{name}" if prefix else name
    kind = _TYPES[node.type]
    out.append(symbol_entry(node, name, qualname, kind, _exported(node, in_interface, not prefix)))
    body = node.child_by_field_name("body")
    if body is None or body.type != "declaration_list":  # enums list values, not members
        return
    interface = kind == "interface"
    for item in body.named_children:
        if item.type in _TYPES:
            _type(item, qualname, out, interface, extensions)
        elif item.type in _MEMBERS:
            member = _text(item.child_by_field_name("name"))
            if member:
                full = f"{qualname}.{member}"
                label = full if item.type == "constructor_declaration" else member
                exported = _exported(item, interface, False)
                out.append(symbol_entry(item, label, full, _MEMBERS[item.type], exported))
                if item.type == "method_declaration" and not prefix and _extension(item):
                    extensions.add(member)


def _dotted(node: TsNode | None) -> str:
    return "".join(_text(node).split()) if node is not None else ""


def _using(node: TsNode) -> dict[str, Any] | None:
    """One ``using`` directive as an import record (None for ``using X = Y<Z>;`` and
    other forms that name no namespace or type of the project)."""
    alias = node.child_by_field_name("name")
    target = next(
        (
            c
            for c in node.named_children
            if c.type in ("identifier", "qualified_name") and c != alias
        ),
        None,
    )
    module = _dotted(target)
    if not module or "<" in module:  # a generic type is none of the project's files
        return None
    words = {c.type for c in node.children if not c.is_named}
    record: dict[str, Any] = {"module": module, "names": [], "level": 0}
    if alias is not None or "static" in words:  # a type (an alias may name a namespace)
        record["names"] = [module.rsplit(".", 1)[-1]]
    if "global" in words:
        record["global"] = True
    return record


def _walk(
    nodes: list[TsNode],
    namespace: str,
    symbols: list[dict[str, Any]],
    namespaces: set[str],
    imports: list[dict[str, Any]],
    extensions: set[str],
) -> None:
    """Declarations in a compilation unit or a namespace body; a file-scoped namespace
    holds every declaration after it."""
    for child in nodes:
        if child.type in _TYPES:
            _type(child, "", symbols, False, extensions)
        elif child.type == "using_directive":
            record = _using(child)
            if record is not None:
                imports.append(record)
        elif child.type in ("namespace_declaration", "file_scoped_namespace_declaration"):
            name = _dotted(child.child_by_field_name("name"))
            inner = f"{namespace}.{name}" if namespace and name else name or namespace
            if inner:
                namespaces.add(inner)
            body = child.child_by_field_name("body")
            if body is not None:
                _walk(body.named_children, inner, symbols, namespaces, imports, extensions)
            else:
                namespace = inner


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, namespaces, ``using`` imports, calls and referenced type names of one C#
    file."""
    root = parser("csharp").parse(source).root_node
    symbols: list[dict[str, Any]] = []
    namespaces: set[str] = set()
    imports: list[dict[str, Any]] = []
    extensions: set[str] = set()
    _walk(root.named_children, "", symbols, namespaces, imports, extensions)
    unique = unique_symbols(symbols)
    imports.sort(key=lambda d: (d["module"], d["names"], d.get("global", False)))
    attributes = captured("csharp", _ATTRIBUTES, root)
    refs = captured("csharp", _REFS, root) | attributes | {f"{a}Attribute" for a in attributes}
    record: dict[str, Any] = {
        "language": "csharp",
        "symbols": unique,
        "imports": imports,
        "calls": sorted(captured("csharp", _CALLS, root) - {""}),
        "refs": sorted(t for t in refs if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
    if namespaces:
        record["namespaces"] = sorted(namespaces)
    if extensions:
        record["extensions"] = sorted(extensions)
    return record
