"""Elixir symbols, module imports, calls and module references from tree-sitter.

A module is named by its full dotted path: ``defmodule Shop.Cart`` is ``Shop.Cart``, and
a ``defmodule Item`` nested in it is ``Shop.Cart.Item`` (Elixir's own naming; the nested
name is also an alias of the full one inside the outer module). ``defprotocol`` gives an
``interface`` symbol and ``defimpl P, for: T`` the module Elixir compiles it to,
``P.T`` (``for:`` left out inside a module: the module itself). Functions, macros,
delegates and guards are ``Module.fun`` symbols, ``def``/``defmacro``/``defdelegate``/
``defguard`` exported and ``defp``/``defmacrop``/``defguardp`` not; a function with
several clauses or arities is one symbol, at its first clause, spanning to its last.
``defstruct``/``defexception`` add ``Module.__struct__`` (what Elixir defines for them).

``alias A.B`` (also ``alias A.B, as: C`` and ``alias A.{B, C}``), ``import``, ``use`` and
``require`` are imports of the module names they expand to; Elixir loads a module by name,
not by path, so the linker maps each to the file defining that module (as Ruby's constant
paths). Every module a file names is a reference by its full name, after the file's
aliases (``alias Shop.Cart`` then ``Cart.total(c)`` references ``Shop.Cart``) and
``__MODULE__`` are expanded. Calls keep the called function's name, remote
(``Cart.total(c)``, ``c |> Cart.total()``) or local (``total(c)``); calls into Erlang
modules (``:ets.insert``) and Elixir's standard library (``Enum.map``) are left out, as
are the definition and control forms (``def``, ``if``, ``case``…).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, symbol_entry

_DEFS = {
    "def": True,
    "defmacro": True,
    "defdelegate": True,
    "defguard": True,
    "defp": False,
    "defmacrop": False,
    "defguardp": False,
}
_MODULES = ("defmodule", "defprotocol", "defimpl")
_IMPORTS = frozenset(["alias", "import", "use", "require"])
_STRUCTS = frozenset(["defstruct", "defexception"])
#: definition, directive and control forms: not calls of project functions
_FORMS = frozenset(
    [
        *_DEFS,
        *_MODULES,
        *_IMPORTS,
        *_STRUCTS,
        "defoverridable",
        "defcallback",
        "quote",
        "unquote",
        "unquote_splicing",
        "if",
        "unless",
        "case",
        "cond",
        "with",
        "for",
        "try",
        "receive",
        "raise",
        "reraise",
        "throw",
        "super",
        "fn",
    ]
)
#: Elixir's standard library: calls into it name none of the project's functions
_STDLIB = frozenset(
    [
        "Access",
        "Agent",
        "Application",
        "Atom",
        "Base",
        "Bitwise",
        "Calendar",
        "Code",
        "Date",
        "DateTime",
        "Enum",
        "Exception",
        "File",
        "Float",
        "Function",
        "GenServer",
        "Inspect",
        "Integer",
        "IO",
        "Kernel",
        "Keyword",
        "List",
        "Logger",
        "Macro",
        "Map",
        "MapSet",
        "Module",
        "NaiveDateTime",
        "Node",
        "Path",
        "Port",
        "Process",
        "Protocol",
        "Range",
        "Record",
        "Regex",
        "Registry",
        "Stream",
        "String",
        "StringIO",
        "Supervisor",
        "System",
        "Task",
        "Time",
        "Tuple",
        "URI",
        "Version",
    ]
)


def _target_name(node: TsNode) -> str:
    """The identifier a ``call`` node calls (``def``, ``alias``; "" for remote calls)."""
    target = node.child_by_field_name("target")
    return _text(target) if target is not None and target.type == "identifier" else ""


def _arguments(node: TsNode) -> list[TsNode]:
    for child in node.named_children:
        if child.type == "arguments":
            return list(child.named_children)
    return []


def _do_block(node: TsNode) -> TsNode | None:
    for child in node.named_children:
        if child.type == "do_block":
            return child
    return None


def _keyword(args: list[TsNode], key: str) -> TsNode | None:
    """The value of ``key:`` in a call's trailing keyword list."""
    for arg in args:
        if arg.type == "keywords":
            for pair in arg.named_children:
                k = pair.child_by_field_name("key")
                if k is not None and _text(k).strip().rstrip(":").strip() == key:
                    return pair.child_by_field_name("value")
    return None


def _head_name(head: TsNode) -> str:
    """The function name of a definition's head: ``f(x)``, ``f(x) when g``, ``f``; ""
    for operators and names built by ``unquote``."""
    if head.type == "binary_operator":
        op = head.child_by_field_name("operator")
        if _text(op) != "when":
            return ""
        left = head.child_by_field_name("left")
        return _head_name(left) if left is not None else ""
    if head.type == "identifier":
        return _text(head)
    if head.type == "call":
        return _target_name(head)
    return ""


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []
        self.seen: dict[str, dict[str, Any]] = {}
        self.imports: set[str] = set()
        self.refs: set[str] = set()
        self.calls: set[str] = set()
        self.aliases: dict[str, str] = {}

    # names -----------------------------------------------------------------------

    def expand(self, written: str, module: str) -> str:
        """The full module a written alias names in this file (``Cart`` → ``Shop.Cart``
        after ``alias Shop.Cart``)."""
        head, _, rest = written.partition(".")
        full = self.aliases.get(head)
        if full is None:
            return written
        return f"{full}.{rest}" if rest else full

    def module_expr(self, node: TsNode, module: str) -> str:
        """A module expression's full name: an alias, ``__MODULE__`` or
        ``__MODULE__.Sub`` ("" for anything else: a variable, an Erlang atom)."""
        if node.type == "alias":
            return self.expand(_text(node).replace(" ", ""), module)
        if node.type == "identifier" and _text(node) == "__MODULE__":
            return module
        if node.type == "dot":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is not None and right is not None and right.type == "alias":
                base = self.module_expr(left, module)
                return f"{base}.{_text(right)}" if base else ""
        return ""

    def add(self, node: TsNode, name: str, qualname: str, kind: str, public: bool) -> None:
        known = self.seen.get(qualname)
        if known is not None:  # another clause or arity: one symbol, spanning them
            known["line_end"] = max(known["line_end"], node.end_point[0] + 1)
            return
        entry = symbol_entry(node, name, qualname, kind, public)
        self.seen[qualname] = entry
        self.symbols.append(entry)

    # walking ---------------------------------------------------------------------

    def body(self, node: TsNode | None, module: str) -> None:
        if node is None:
            return
        for child in node.named_children:
            self.form(child, module)

    def form(self, node: TsNode, module: str) -> None:
        """One expression of a module body (or the file's top level)."""
        if node.type != "call":
            self.walk(node, module)
            return
        name = _target_name(node)
        args = _arguments(node)
        if name in _MODULES:
            self.module(node, name, args, module)
        elif name in _DEFS and module:
            self.function(node, name, args, module)
        elif name in _STRUCTS and module:
            self.add(node, "__struct__", f"{module}.__struct__", "struct", True)
            self.walk_all(args, module)
        elif name in _IMPORTS:
            self.directive(node, name, args, module)
        else:
            self.walk(node, module)

    def module(self, node: TsNode, form: str, args: list[TsNode], outer: str) -> None:
        first = args[0] if args else None
        written = _text(first).replace(" ", "") if first is not None else ""
        if form == "defimpl":
            protocol = self.module_expr(first, outer) if first is not None else ""
            target = _keyword(args, "for")
            if target is not None and target.type == "list":
                target = None  # ``for: [A, B]``: one impl per type, named by each
            base = self.module_expr(target, outer) if target is not None else outer
            if target is not None:
                self.walk(target, outer)
            if not protocol or not base:
                self.body(_do_block(node), outer)
                return
            if first is not None:
                self.walk(first, outer)
            full = f"{protocol}.{base}"
            self.add(node, full, full, "module", True)
            self.body(_do_block(node), full)
            return
        if first is None or first.type != "alias":
            # ``defmodule unquote(name) do … end`` in a macro names no module; its parts
            # are walked (walking the form itself came back here, without end)
            self.walk_all(args, outer)
            block = _do_block(node)
            if block is not None:
                self.walk(block, outer)
            return
        full = f"{outer}.{written}" if outer else written
        if outer:  # a nested module's short name is an alias of it in the outer one
            self.aliases.setdefault(written.split(".", 1)[0], f"{outer}.{written.split('.')[0]}")
        kind = "interface" if form == "defprotocol" else "module"
        self.add(node, full, full, kind, True)
        self.walk_all(args[1:], outer)
        self.body(_do_block(node), full)

    def function(self, node: TsNode, form: str, args: list[TsNode], module: str) -> None:
        head = args[0] if args else None
        name = _head_name(head) if head is not None else ""
        if name:
            self.add(node, name, f"{module}.{name}", "function", _DEFS[form])
            if head is not None and head.type == "call":  # default arguments may call
                self.walk_all(_arguments(head), module)
            if head is not None and head.type == "binary_operator":  # the guard
                right = head.child_by_field_name("right")
                if right is not None:
                    self.walk(right, module)
        if form == "defdelegate":
            target = _keyword(args, "to")
            full = self.module_expr(target, module) if target is not None else ""
            if full:
                self.refs.add(full)
                if name:
                    self.calls.add(name)
        self.walk_all([a for a in args[1:] if a.type != "identifier"], module)
        block = _do_block(node)
        if block is not None:
            self.walk(block, module)

    def directive(self, node: TsNode, form: str, args: list[TsNode], module: str) -> None:
        """``alias``/``import``/``use``/``require``: imports of the modules named."""
        first = args[0] if args else None
        if first is None:
            return
        names: list[tuple[str, str]] = []  # (full module, the alias it makes)
        if first.type == "dot" and (right := first.child_by_field_name("right")) is not None:
            if right.type == "tuple":  # alias A.{B, C}
                left = first.child_by_field_name("left")
                base = self.module_expr(left, module) if left is not None else ""
                for item in right.named_children if base else []:
                    if item.type == "alias":
                        short = _text(item).replace(" ", "")
                        names.append((f"{base}.{short}", short.rsplit(".", 1)[-1]))
            else:
                full = self.module_expr(first, module)
                if full:
                    names.append((full, full.rsplit(".", 1)[-1]))
        else:
            full = self.module_expr(first, module)
            if full:
                names.append((full, full.rsplit(".", 1)[-1]))
        if form == "alias":
            as_ = _keyword(args, "as")
            for full, short in names:
                alias = _text(as_).strip() if as_ is not None and as_.type == "alias" else short
                self.aliases[alias] = full
        for full, _ in names:
            self.imports.add(full)
            self.refs.add(full)
        for arg in args[1:]:
            if arg.type != "keywords" or form == "use":
                self.walk(arg, module)

    def walk_all(self, nodes: list[TsNode], module: str) -> None:
        for node in nodes:
            self.walk(node, module)

    def walk(self, node: TsNode, module: str) -> None:
        """References and calls under ``node``; a nested definition is walked as one."""
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.type
            if kind == "call":
                name = _target_name(current)
                if name in _MODULES or (name in _DEFS and module) or name in _IMPORTS:
                    self.form(current, module)
                    continue
                if name and name not in _FORMS:
                    self.calls.add(name)
                target = current.child_by_field_name("target")
                if target is not None and target.type == "dot":
                    self.remote(target, module)
                    stack.extend(c for c in current.named_children if c is not target)
                    continue
            elif kind == "alias":
                full = self.module_expr(current, module)
                if full and full.split(".", 1)[0] not in _STDLIB:
                    self.refs.add(full)
                continue
            elif kind == "dot":
                full = self.module_expr(current, module)
                if full:
                    self.refs.add(full)
                    continue
            elif kind == "unary_operator":
                operand = current.child_by_field_name("operand")
                if operand is not None and operand.type == "call":  # ``@attr value``
                    stack.extend(_arguments(operand))
                    continue
            stack.extend(current.named_children)

    def remote(self, dot: TsNode, module: str) -> None:
        """``Mod.fun`` of a call: a reference to ``Mod`` and a call of ``fun``."""
        left = dot.child_by_field_name("left")
        right = dot.child_by_field_name("right")
        if left is None:
            return
        receiver = self.module_expr(left, module)
        if left.type == "atom" or receiver.split(".", 1)[0] in _STDLIB:
            return
        if receiver:
            self.refs.add(receiver)
        else:
            self.walk(left, module)
        if right is not None and right.type == "identifier":
            self.calls.add(_text(right))


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, module imports, calls and referenced modules of one Elixir file."""
    root = parser("elixir").parse(source).root_node
    walker = _Walker()
    walker.body(root, "")
    return {
        "language": "elixir",
        "symbols": walker.symbols,
        "imports": [{"module": m, "names": [], "level": 0} for m in sorted(walker.imports)],
        "calls": sorted(walker.calls - {""}),
        "refs": sorted(r for r in walker.refs if len(r) > 2),
        "parse_errors": bool(root.has_error),
    }
