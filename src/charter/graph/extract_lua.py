"""Lua symbols, ``require``d modules and calls from tree-sitter.

A Lua module is a file that builds a table and returns it (``local M = {} … return M``);
the table is the module, so its functions are named after the module, not after the
local that holds it: in ``lua/cmp/core.lua`` ``function M.complete()`` is
``core.complete`` (an ``init.lua`` is named after its folder). Other tables a file
assigns at its top level (``local Picker = {}``, ``Config = {}``) are ``class`` symbols
named after themselves, and their functions (``function Picker.new()``,
``function Picker:find()``, ``Picker.close = function() … end`` and a constructor's
``go = function() … end`` fields) are ``Picker.new``, ``Picker.find``… A
``local function`` is a file's own; a global function, a global table's functions and
the functions on the returned table (or named in a returned table constructor) are
exported.

``require("a.b")`` (also ``require "a.b"``) names a module the linker finds on
``package.path``: ``a/b.lua`` or ``a/b/init.lua`` under the project's root, ``lua/``,
``src/`` or ``lib/``; other names are libraries. Calls are by function or method name.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_CALLS = """
(function_call name: (identifier) @name)
(function_call name: (dot_index_expression field: (identifier) @name))
(function_call name: (method_index_expression method: (identifier) @name))
"""
#: calls that build a table: ``setmetatable({}, mt)`` returns its first argument
_TABLE_CALLS = frozenset(["setmetatable"])


def module_name(path: str) -> str:
    """The name a file's returned table goes by: its stem, or its folder's for ``init.lua``."""
    parts = path.rsplit(".", 1)[0].split("/")
    if parts[-1] == "init" and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def _string(node: TsNode | None) -> str:
    """The text of a string literal node ("" for anything else)."""
    if node is None or node.type != "string":
        return ""
    content = node.child_by_field_name("content")
    return _text(content)


def _requires(root: TsNode) -> set[str]:
    """Every module name a file passes to ``require`` as a literal."""
    out: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_call" and _text(node.child_by_field_name("name")) == "require":
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is None and args is not None and args.type == "string":
                first = args
            name = _string(first).strip()
            if name:
                out.add(name)
        stack.extend(node.named_children)
    return out


def _is_table(value: TsNode | None) -> bool:
    if value is None:
        return False
    if value.type == "table_constructor":
        return True
    if value.type == "function_call":
        callee = _text(value.child_by_field_name("name"))
        return callee in _TABLE_CALLS
    return False


def _pairs(statement: TsNode) -> list[tuple[TsNode, TsNode | None]]:
    """The (target, value) pairs of an assignment (``local a, b = x, y``)."""
    assignment = statement
    if statement.type == "variable_declaration":
        assignment = next(
            (c for c in statement.named_children if c.type == "assignment_statement"), statement
        )
    if assignment.type != "assignment_statement":
        return []
    targets = next((c for c in assignment.named_children if c.type == "variable_list"), None)
    values = next((c for c in assignment.named_children if c.type == "expression_list"), None)
    names = targets.named_children if targets is not None else []
    vals = values.named_children if values is not None else []
    return [(n, vals[i] if i < len(vals) else None) for i, n in enumerate(names)]


class _Walker:
    def __init__(self, module: str) -> None:
        self.module = module
        self.symbols: list[dict[str, Any]] = []
        #: a table's name in the source → its qualified name
        self.tables: dict[str, str] = {}
        #: table names declared ``local`` (their functions are not exported unless returned)
        self.local_tables: set[str] = set()
        self.returned = ""
        self.returned_fields: set[str] = set()

    def scan_return(self, root: TsNode) -> None:
        """The table the file returns (``return M``) or the names a returned table
        constructor lists (``return { setup = setup }``)."""
        last = next((c for c in reversed(root.named_children) if c.type != "comment"), None)
        if last is None or last.type != "return_statement":
            return
        values = next((c for c in last.named_children if c.type == "expression_list"), None)
        value = values.named_children[0] if values is not None and values.named_children else None
        if _is_table(value) and value is not None and value.type == "function_call":
            args = value.child_by_field_name("arguments")  # ``return setmetatable(M, mt)``
            value = args.named_children[0] if args is not None and args.named_children else None
        if value is None:
            return
        if value.type == "identifier":
            self.returned = _text(value)
        elif value.type == "table_constructor":
            for field in value.named_children:
                target = field.child_by_field_name("value")
                if field.type == "field" and target is not None and target.type == "identifier":
                    self.returned_fields.add(_text(target))

    def qualify(self, table: TsNode) -> tuple[str, bool]:
        """The qualified name of the table a function is set on (``M`` → the module's
        name, ``a.b`` → ``a.b``) and whether its members are exported."""
        text = _text(table)
        root, _, rest = text.partition(".")
        if root == self.returned:
            base, exported = self.module, True
        else:
            base = self.tables.get(root, root)
            exported = root not in self.local_tables
        return (f"{base}.{rest}" if rest else base), exported

    def add_table(self, node: TsNode, name: str, local: bool) -> None:
        if name in self.tables:
            return
        returned = name == self.returned
        qualname = self.module if returned else name
        self.tables[name] = qualname
        if local:
            self.local_tables.add(name)
        kind = "module" if returned else "class"
        self.symbols.append(symbol_entry(node, qualname, qualname, kind, returned or not local))

    def member(self, node: TsNode, owner: str, name: str, exported: bool, method: bool) -> None:
        if name:
            kind = "method" if method else "function"
            self.symbols.append(symbol_entry(node, name, f"{owner}.{name}", kind, exported))

    def fields(self, table: TsNode, owner: str, exported: bool) -> None:
        """Functions in a table constructor: ``{ setup = function() … end }``."""
        for field in table.named_children:
            value = field.child_by_field_name("value")
            key = field.child_by_field_name("name")
            if (
                field.type == "field"
                and value is not None
                and key is not None
                and value.type == "function_definition"
                and key.type == "identifier"
            ):
                self.member(field, owner, _text(key), exported, False)

    def statements(self, root: TsNode) -> None:
        for child in root.named_children:
            if child.type == "function_declaration":
                self.function(child)
            elif child.type in ("variable_declaration", "assignment_statement"):
                self.assignment(child, local=child.type == "variable_declaration")

    def function(self, node: TsNode) -> None:
        name = node.child_by_field_name("name")
        local = any(not c.is_named and c.type == "local" for c in node.children)
        if name is None:
            return
        if name.type == "identifier":
            text = _text(name)
            exported = not local or text in self.returned_fields
            self.symbols.append(symbol_entry(node, text, text, "function", exported))
        elif name.type in ("dot_index_expression", "method_index_expression"):
            table = name.child_by_field_name("table")
            field = name.child_by_field_name(
                "method" if name.type == "method_index_expression" else "field"
            )
            if table is None:
                return
            owner, exported = self.qualify(table)
            method = name.type == "method_index_expression"
            self.member(node, owner, _text(field), exported, method)

    def assignment(self, node: TsNode, local: bool) -> None:
        for target, value in _pairs(node):
            if target.type == "identifier":
                name = _text(target)
                if _is_table(value):
                    self.add_table(node, name, local)
                    if value is not None and value.type == "table_constructor":
                        self.fields(value, self.tables[name], name == self.returned or not local)
                elif value is not None and value.type == "function_definition":
                    exported = not local or name in self.returned_fields
                    self.symbols.append(symbol_entry(node, name, name, "function", exported))
            elif target.type == "dot_index_expression" and value is not None:
                table = target.child_by_field_name("table")
                field = _text(target.child_by_field_name("field"))
                if table is None or not field:
                    continue
                owner, exported = self.qualify(table)
                if value.type == "function_definition":
                    self.member(node, owner, field, exported, False)
                elif value.type == "table_constructor":
                    self.fields(value, f"{owner}.{field}", exported)


def extract(source: bytes, path: str = "") -> dict[str, Any]:
    """Symbols, required modules and calls of one Lua file (``path`` names its module)."""
    root = parser("lua").parse(source).root_node
    walker = _Walker(module_name(path) if path else "module")
    walker.scan_return(root)
    walker.statements(root)
    calls = captured("lua", _CALLS, root) - {"require", ""}
    return {
        "language": "lua",
        "symbols": unique_symbols(walker.symbols),
        "imports": [{"module": m, "names": [], "level": 0} for m in sorted(_requires(root))],
        "calls": sorted(calls),
        "refs": [],
        "parse_errors": bool(root.has_error),
    }
