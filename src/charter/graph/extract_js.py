"""JavaScript, TypeScript and TSX symbols, imports, calls and JSX uses from tree-sitter.

Functions, classes (with methods), arrow functions bound to ``const``, TS interfaces,
type aliases and enums become symbols with line spans; ``export`` marks them public.
``import … from 'x'`` and ``require('x')`` become import records; JSX element names
are kept so components can be linked to where they are rendered.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode
from tree_sitter import QueryCursor

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, query

_CALLS = """
(call_expression function: [
  (identifier) @name
  (member_expression property: (property_identifier) @name)])
"""
_JSX = """
(jsx_opening_element name: (_) @name)
(jsx_self_closing_element name: (_) @name)
"""
_REQUIRE = """
(call_expression function: (identifier) @fn arguments: (arguments (string (string_fragment) @src)))
"""
_DECL = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
}
_FUNC_VALUES = ("arrow_function", "function_expression", "function", "class")


def _symbols(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(node: TsNode, name: str, kind: str, exported: bool, start: int) -> None:
        out.append(
            {
                "name": name,
                "qualname": name,
                "kind": kind,
                "line_start": start,
                "line_end": node.end_point[0] + 1,
                "exported": exported,
            }
        )
        if kind == "class":
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else []:
                if member.type == "method_definition":
                    m_name = _text(member.child_by_field_name("name"))
                    out.append(
                        {
                            "name": m_name,
                            "qualname": f"{name}.{m_name}",
                            "kind": "method",
                            "line_start": member.start_point[0] + 1,
                            "line_end": member.end_point[0] + 1,
                            "exported": exported,
                        }
                    )

    def visit(node: TsNode, exported: bool, start: int) -> None:
        if node.type in _DECL:
            name = _text(node.child_by_field_name("name"))
            if name:
                add(node, name, _DECL[node.type], exported, start)
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for decl in node.named_children:
                if decl.type != "variable_declarator":
                    continue
                value = decl.child_by_field_name("value")
                name_node = decl.child_by_field_name("name")
                if name_node is None or name_node.type != "identifier":
                    continue
                kind = "function" if value is not None and value.type in _FUNC_VALUES else "const"
                if kind == "const" and not exported:
                    continue
                add(decl, _text(name_node), kind, exported, start)

    for child in root.named_children:
        start = child.start_point[0] + 1
        if child.type == "export_statement":
            decl = child.child_by_field_name("declaration")
            if decl is not None:
                visit(decl, True, start)
            else:
                value = child.child_by_field_name("value")
                if value is not None and value.type in _FUNC_VALUES:
                    name = _text(value.child_by_field_name("name")) or "default"
                    kind = "class" if value.type == "class" else "function"
                    add(value, name, kind, True, start)
                elif value is not None and value.type in _DECL:
                    visit(value, True, start)
        else:
            visit(child, False, start)
    return out


def _imports(root: TsNode, lang: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for child in root.named_children:
        if child.type in ("import_statement", "export_statement"):
            src = child.child_by_field_name("source")
            if src is None:
                continue
            names: list[str] = []
            for sub in child.named_children:
                if sub.type == "import_clause":
                    names.extend(
                        _text(n)
                        for n in _walk(sub)
                        if n.type == "identifier"
                        and n.parent is not None
                        and n.parent.type in ("import_clause", "import_specifier")
                    )
            out.append(
                {"module": _text(src).strip("'\"`"), "names": sorted(set(names)), "level": 0}
            )
    caps = QueryCursor(query(lang, _REQUIRE)).matches(root)
    for _, cap in caps:
        fn, src_nodes = cap.get("fn", []), cap.get("src", [])
        if fn and src_nodes and _text(fn[0]) == "require":
            out.append({"module": _text(src_nodes[0]), "names": [], "level": 0})
    out.sort(key=lambda d: (d["module"], d["names"]))
    return out


def _walk(node: TsNode) -> list[TsNode]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.named_children)
    return out


def extract(source: bytes, lang: str) -> dict[str, Any]:
    """Symbols, imports, calls and JSX element names of one JS/TS/TSX file."""
    root = parser(lang).parse(source).root_node
    calls = {
        _text(n)
        for nodes in QueryCursor(query(lang, _CALLS)).captures(root).values()
        for n in nodes
    }
    jsx: set[str] = set()
    if lang in ("tsx", "javascript"):
        jsx = {
            _text(n)
            for nodes in QueryCursor(query(lang, _JSX)).captures(root).values()
            for n in nodes
        }
    return {
        "language": lang,
        "symbols": _symbols(root),
        "imports": _imports(root, lang),
        "calls": sorted(calls - {""}),
        "refs": sorted(j for j in jsx if j[:1].isupper()),
        "parse_errors": bool(root.has_error),
    }
