"""Go symbols, imports, calls and type references from tree-sitter.

Top-level functions, methods (``Type.Method``, named after their receiver's type), types
(structs, interfaces, aliases) and exported constants and variables become symbols with
line spans; a capitalised name is exported, as in Go. Each ``import "path"`` is an import
record that ``resolve.Resolver.go`` maps to the directory of that package through the
project's ``go.mod`` files (a Go package is a directory); its ``names`` are the names the
file uses through the package (``models.Task``), so the import edge goes to the files of
the package that define them rather than to every file of the folder. Calls keep the called name
(``models.CreateTask(`` → ``CreateTask``); references keep exported type names used from
other packages (``models.Task``) and this package's types.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node as TsNode
from tree_sitter import QueryCursor

from charter.graph.parsers import captured, parser, query, symbol_entry
from charter.graph.parsers import node_text as _text

_CALLS = """
(call_expression function: [
  (identifier) @name
  (selector_expression field: (field_identifier) @name)
  (generic_type type: (type_identifier) @name)])
"""
_REFS = "(type_identifier) @name"
_QUALIFIED = """
(selector_expression operand: (identifier) @pkg field: (field_identifier) @name)
(qualified_type package: (package_identifier) @pkg name: (type_identifier) @name)
"""
_TYPE_KIND = {"struct_type": "class", "interface_type": "interface"}
_MAJOR = re.compile(r"v[0-9]+")


def _receiver_type(node: TsNode) -> str:
    """``T`` of ``func (t *T[K]) M()``, or "" when the receiver has no named type."""
    receiver = node.child_by_field_name("receiver")
    for param in receiver.named_children if receiver is not None else []:
        kind = param.child_by_field_name("type")
        while kind is not None and kind.type in ("pointer_type", "generic_type"):
            kind = kind.child_by_field_name("type") or (
                kind.named_children[0] if kind.named_children else None
            )
        if kind is not None and kind.type == "type_identifier":
            return _text(kind)
    return ""


def _symbol(node: TsNode, name: str, qualname: str, kind: str) -> dict[str, Any]:
    return symbol_entry(node, name, qualname, kind, name[:1].isupper())


def _symbols(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for child in root.named_children:
        if child.type == "function_declaration":
            name = _text(child.child_by_field_name("name"))
            if name:
                out.append(_symbol(child, name, name, "function"))
        elif child.type == "method_declaration":
            name = _text(child.child_by_field_name("name"))
            owner = _receiver_type(child)
            if name:
                qualname = f"{owner}.{name}" if owner else name
                out.append(_symbol(child, name, qualname, "method"))
        elif child.type == "type_declaration":
            for spec in child.named_children:
                if spec.type not in ("type_spec", "type_alias"):
                    continue
                name = _text(spec.child_by_field_name("name"))
                body = spec.child_by_field_name("type")
                kind = _TYPE_KIND.get(body.type if body is not None else "", "type")
                if name:
                    out.append(_symbol(spec, name, name, kind))
        elif child.type in ("const_declaration", "var_declaration"):
            for spec in _walk_specs(child):
                for name_node in spec.children_by_field_name("name"):
                    name = _text(name_node)
                    if name[:1].isupper():  # unexported constants are noise, as in JS
                        out.append(_symbol(spec, name, name, "const"))
    return out


def _walk_specs(node: TsNode) -> list[TsNode]:
    out = []
    for spec in node.named_children:
        if spec.type in ("const_spec", "var_spec"):
            out.append(spec)
        elif spec.type == "var_spec_list":
            out.extend(s for s in spec.named_children if s.type == "var_spec")
    return out


def _alias(path: str) -> str:
    """The name a package is used by when imported without one: its last path element
    (``…/pkg/models`` → ``models``; ``…/yaml.v3`` → ``yaml``; ``…/foo/v2`` → ``foo``)."""
    parts = path.split("/")
    last = parts[-1]
    if _MAJOR.fullmatch(last) and len(parts) > 1:
        last = parts[-2]
    return last.split(".", 1)[0].removeprefix("go-").replace("-", "_")


def _imports(root: TsNode) -> list[dict[str, Any]]:
    """Import records; ``names`` are the package's names this file uses (``models.Task``
    → ``Task``), so the import links to the files that define them."""
    used: dict[str, set[str]] = {}
    for _, cap in QueryCursor(query("go", _QUALIFIED)).matches(root):
        pkg, name = cap.get("pkg", []), cap.get("name", [])
        if pkg and name:
            used.setdefault(_text(pkg[0]), set()).add(_text(name[0]))
    out: list[dict[str, Any]] = []
    for child in root.named_children:
        if child.type != "import_declaration":
            continue
        specs = [s for s in child.named_children if s.type == "import_spec"]
        for group in child.named_children:
            if group.type == "import_spec_list":
                specs.extend(s for s in group.named_children if s.type == "import_spec")
        for spec in specs:
            path = _text(spec.child_by_field_name("path")).strip('"`')
            if path:
                alias = _text(spec.child_by_field_name("name")) or _alias(path)
                names = sorted(used.get(alias, ())) if alias not in ("_", ".") else []
                out.append({"module": path, "names": names, "level": 0})
    out.sort(key=lambda d: (d["module"], d["names"]))
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, imports, calls and referenced type names of one Go file."""
    root = parser("go").parse(source).root_node
    calls = captured("go", _CALLS, root)
    types = captured("go", _REFS, root)
    symbols = _symbols(root)
    return {
        "language": "go",
        "symbols": symbols,
        "imports": _imports(root),
        "calls": sorted(calls - {""}),
        "refs": sorted(t for t in types if len(t) > 2 and t[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
