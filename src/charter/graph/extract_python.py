"""Python symbols, imports, calls and references from tree-sitter.

Classes, functions and methods become symbols with their line spans (decorators
included); ``import`` / ``from … import`` become import records resolved to files later
(the resolver needs the whole file list); calls and identifiers are kept as name sets so
``calls`` / ``references`` edges can be drawn to symbols defined elsewhere.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser
from charter.graph.parsers import node_text as _text

_CALLS = """
(call function: [(identifier) @name (attribute attribute: (identifier) @name)])
"""
_IDENTS = "(identifier) @id"


def _symbols(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def visit(block: TsNode, prefix: str, in_class: bool) -> None:
        for child in block.named_children:
            node, start = child, child.start_point[0] + 1
            if child.type == "decorated_definition":
                inner = child.child_by_field_name("definition")
                if inner is None:
                    continue
                node = inner
            if node.type not in ("class_definition", "function_definition"):
                continue
            name = _text(node.child_by_field_name("name"))
            if not name:
                continue
            qual = f"{prefix}{name}"
            is_class = node.type == "class_definition"
            kind = "class" if is_class else ("method" if in_class else "function")
            out.append(
                {
                    "name": name,
                    "qualname": qual,
                    "kind": kind,
                    "line_start": start,
                    "line_end": node.end_point[0] + 1,
                    "exported": not name.startswith("_") and "." not in prefix.rstrip("."),
                }
            )
            body = node.child_by_field_name("body")
            if body is not None and is_class:
                visit(body, qual + ".", True)

    visit(root, "", False)
    return out


def _imports(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "import_statement":
            for name in node.children_by_field_name("name"):
                target = name.child_by_field_name("name") if name.type == "aliased_import" else name
                out.append({"module": _text(target), "names": [], "level": 0})
        elif node.type == "import_from_statement":
            module = node.child_by_field_name("module_name")
            level, mod = 0, _text(module)
            if module is not None and module.type == "relative_import":
                raw = _text(module)
                level = len(raw) - len(raw.lstrip("."))
                mod = raw.lstrip(".")
            names = []
            for name in node.children_by_field_name("name"):
                target = name.child_by_field_name("name") if name.type == "aliased_import" else name
                names.append(_text(target))
            out.append({"module": mod, "names": names, "level": level})
        elif node.type in (
            "module",
            "block",
            "if_statement",
            "try_statement",
            "else_clause",
            "except_clause",
            "function_definition",
            "class_definition",
            "decorated_definition",
            "with_statement",
            "elif_clause",
            "finally_clause",
        ):
            stack.extend(node.named_children)
    out.sort(key=lambda d: (d["module"], d["level"], d["names"]))
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, imports, calls and referenced names of one Python file."""
    tree = parser("python").parse(source)
    root = tree.root_node
    calls = captured("python", _CALLS, root)
    idents = captured("python", _IDENTS, root)
    symbols = _symbols(root)
    defined = {s["name"] for s in symbols}
    return {
        "language": "python",
        "symbols": symbols,
        "imports": _imports(root),
        "calls": sorted(calls - {""}),
        "refs": sorted(i for i in idents - defined if len(i) > 2 and i[0].isupper()),
        "parse_errors": bool(root.has_error),
    }
