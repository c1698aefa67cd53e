"""Java and Kotlin symbols, imports, calls and type references from tree-sitter.

Classes, records, enums and Kotlin objects become ``class`` symbols, interfaces (and Java
annotation types) ``interface`` symbols, with line spans; nested types are ``Outer.Inner``
and the methods of a type ``Type.method`` (a Kotlin companion object's functions belong to
its class). Kotlin top-level functions are ``function`` symbols and top-level
``const val`` are ``const``. Java members are exported when ``public`` (an interface's
members always are); Kotlin declarations are public unless ``private`` or ``internal``.
A method overloaded several times is one symbol, at its first declaration.

Each file records its ``package``; each ``import a.b.C`` is an import record whose
module ``resolve.Resolver.jvm`` maps to the files of package ``a.b`` (by their package
declaration) named ``C`` or, for a Kotlin file declaring several top-level names,
defining ``C``; ``a.b.*`` names the package. Calls keep the called name (``store.save(``
→ ``save``, ``new Task(`` and Kotlin's ``Task(`` → ``Task``); references keep capitalised
type names and the classes whose members are called (``Registry.all()`` → ``Registry``).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_JAVA_CALLS = """
(method_invocation name: (identifier) @name)
(object_creation_expression type: [
  (type_identifier) @name
  (generic_type (type_identifier) @name)])
"""
_JAVA_REFS = """
(type_identifier) @name
(method_invocation object: (identifier) @name)
(field_access object: (identifier) @name)
"""
_KOTLIN_CALLS = """
(call_expression . (identifier) @name)
(call_expression . (navigation_expression (identifier) @name .))
"""
_KOTLIN_REFS = """
(user_type . (identifier) @name)
(navigation_expression . (identifier) @name)
"""
_JAVA_TYPES = {
    "class_declaration": "class",
    "record_declaration": "class",
    "enum_declaration": "class",
    "interface_declaration": "interface",
    "annotation_type_declaration": "interface",
}
_KOTLIN_TYPES = {"class_declaration", "object_declaration"}


def _modifiers(node: TsNode) -> str:
    return " ".join(_text(c) for c in node.children if c.type == "modifiers")


def _java_members(
    body: TsNode | None, prefix: str, public: bool, out: list[dict[str, Any]]
) -> None:
    """Types and methods declared in a Java class, interface, enum or record body."""
    for item in body.named_children if body is not None else []:
        if item.type == "enum_body_declarations":
            _java_members(item, prefix, public, out)
        elif item.type in _JAVA_TYPES:
            _java_type(item, prefix, out, public)
        elif item.type == "method_declaration":
            name = _text(item.child_by_field_name("name"))
            if name:
                exported = public or "public" in _modifiers(item).split()
                out.append(symbol_entry(item, name, f"{prefix}.{name}", "method", exported))


def _java_type(node: TsNode, prefix: str, out: list[dict[str, Any]], in_interface: bool) -> None:
    name = _text(node.child_by_field_name("name"))
    if not name:
        return
    qualname = f"{prefix}.{name}" if prefix else name
    kind = _JAVA_TYPES[node.type]
    exported = in_interface or "public" in _modifiers(node).split()
    out.append(symbol_entry(node, name, qualname, kind, exported))
    _java_members(node.child_by_field_name("body"), qualname, kind == "interface", out)


def _kotlin_public(node: TsNode) -> bool:
    for mods in (c for c in node.children if c.type == "modifiers"):
        for mod in mods.named_children:
            if mod.type == "visibility_modifier" and _text(mod) in ("private", "internal"):
                return False
    return True


def _kotlin_kind(node: TsNode) -> str:
    return "interface" if any(c.type == "interface" for c in node.children) else "class"


def _kotlin_body(node: TsNode) -> TsNode | None:
    return next((c for c in node.children if c.type in ("class_body", "enum_class_body")), None)


def _kotlin_members(body: TsNode | None, prefix: str, out: list[dict[str, Any]]) -> None:
    for item in body.named_children if body is not None else []:
        if item.type in _KOTLIN_TYPES:
            _kotlin_type(item, prefix, out)
        elif item.type == "companion_object":  # its functions are called as Type.f()
            _kotlin_members(_kotlin_body(item), prefix, out)
        elif item.type == "function_declaration":
            name = _text(item.child_by_field_name("name"))
            if name:
                out.append(
                    symbol_entry(item, name, f"{prefix}.{name}", "method", _kotlin_public(item))
                )


def _kotlin_type(node: TsNode, prefix: str, out: list[dict[str, Any]]) -> None:
    name = _text(node.child_by_field_name("name"))
    if not name:
        return
    qualname = f"{prefix}.{name}" if prefix else name
    kind = _kotlin_kind(node) if node.type == "class_declaration" else "class"
    out.append(symbol_entry(node, name, qualname, kind, _kotlin_public(node)))
    _kotlin_members(_kotlin_body(node), qualname, out)


def _kotlin_symbols(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for child in root.named_children:
        if child.type in _KOTLIN_TYPES:
            _kotlin_type(child, "", out)
        elif child.type == "function_declaration":
            name = _text(child.child_by_field_name("name"))
            if name:
                out.append(symbol_entry(child, name, name, "function", _kotlin_public(child)))
        elif child.type == "property_declaration" and "const" in _modifiers(child).split():
            for var in (c for c in child.named_children if c.type == "variable_declaration"):
                name = next((_text(c) for c in var.named_children if c.type == "identifier"), "")
                if name:
                    out.append(symbol_entry(child, name, name, "const", _kotlin_public(child)))
    return out


def _dotted(node: TsNode | None) -> str:
    return "".join(_text(node).split()) if node is not None else ""


#: Per language: the node that declares a file's package, and those that import.
_PACKAGE_AND_IMPORTS = {
    "java": ("package_declaration", ("import_declaration",)),
    "kotlin": ("package_header", ("import", "import_header")),
}


def _imports(root: TsNode, language: str) -> tuple[str, list[dict[str, Any]]]:
    """The file's package and its imports (``a.b.*`` for a whole package; else the
    imported name is the last part: ``a.b.C`` imports ``C``)."""
    package_type, import_types = _PACKAGE_AND_IMPORTS[language]
    package, out = "", []
    for child in root.named_children:
        if child.type != package_type and child.type not in import_types:
            continue
        name = next((c for c in child.named_children if "identifier" in c.type), None)
        dotted = _dotted(name)
        if child.type == package_type:
            package = dotted
        elif any(c.type == "asterisk" for c in child.named_children) or (
            _text(child).rstrip().endswith("*")
        ):
            out.append({"module": f"{dotted}.*", "names": [], "level": 0})
        elif dotted:
            out.append({"module": dotted, "names": [dotted.rsplit(".", 1)[-1]], "level": 0})
    return package, out


def extract(source: bytes, language: str) -> dict[str, Any]:
    """Symbols, package, imports, calls and referenced type names of one Java or Kotlin
    file (``language`` is ``java`` or ``kotlin``)."""
    root = parser(language).parse(source).root_node
    symbols: list[dict[str, Any]] = []
    if language == "java":
        for child in root.named_children:
            if child.type in _JAVA_TYPES:
                _java_type(child, "", symbols, False)
        package, imports = _imports(root, "java")
        calls = captured(language, _JAVA_CALLS, root)
        refs = captured(language, _JAVA_REFS, root)
    else:
        symbols = _kotlin_symbols(root)
        package, imports = _imports(root, "kotlin")
        calls = captured(language, _KOTLIN_CALLS, root)
        refs = captured(language, _KOTLIN_REFS, root)
    unique = unique_symbols(symbols)
    imports.sort(key=lambda d: (d["module"], d["names"]))
    record: dict[str, Any] = {
        "language": language,
        "symbols": unique,
        "imports": imports,
        "calls": sorted(calls - {""}),
        "refs": sorted(t for t in refs if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
    if package:
        record["package"] = package
    return record
