"""Solidity symbols, imports, calls and references from tree-sitter-solidity.

A contract, abstract contract or library is a ``class`` symbol and an interface an
``interface``; what they declare is ``Contract.member``: functions, modifiers, the
constructor (``Vault.constructor``), ``receive``/``fallback``, events, errors, structs,
enums and state variables. A file's own free functions, structs, enums, errors, events,
user-defined value types and constants are top-level symbols (every one of them can be
imported by another file). Exported is Solidity's own notion of who may use a name from
outside: ``public`` and ``external`` members are, ``private`` ones never; ``internal``
ones are not, except in a library, where ``internal`` functions and constants are the
library's API (called as ``L.f()`` or through ``using L for T`` and inlined into the
caller). A state variable without a visibility is internal; a function without one is
external in an interface and public in old contracts.

Every ``import`` is an import of its path (``import "./A.sol";``,
``import {X} from "../B.sol";``, ``import "@openzeppelin/contracts/…";``); the linker
resolves it (relative paths from the importer, other paths through the project's
remappings). Calls keep the called name (``foo()``, ``x.foo()``, ``L.foo()``,
``super.foo()``), as do a function's modifiers and a constructor's base-constructor
arguments; references keep every user-defined type written (inheritance, ``override``,
parameters, variables, ``using L for T``), ``new C(…)``'s contract, ``emit E(…)``'s event,
``revert Err(…)``'s error, and a CapWords name whose member is read (``TickMath.MIN_TICK``:
a library, contract or enum by the style guide's naming).
"""

from __future__ import annotations

import posixpath
import tomllib
from typing import Any

from tree_sitter import Node as TsNode
from tree_sitter import QueryCursor

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, query, symbol_entry, unique_symbols

_CONTAINERS = {
    "contract_declaration": "class",
    "library_declaration": "class",
    "interface_declaration": "interface",
}
#: Declarations that may stand at a file's top level or inside a contract, by kind.
_DECLARATIONS = {
    "struct_declaration": "class",
    "enum_declaration": "enum",
    "event_definition": "event",
    "error_declaration": "error",
    "user_defined_type_definition": "type",
}
#: Functions and objects the language provides: a call to them names no project code.
_BUILTIN_CALLS = frozenset(
    [
        "require",
        "assert",
        "revert",
        "keccak256",
        "sha256",
        "ripemd160",
        "ecrecover",
        "addmod",
        "mulmod",
        "blockhash",
        "blobhash",
        "gasleft",
        "selfdestruct",
        "type",
        "payable",
    ]
)
_BUILTIN_OBJECTS = frozenset(["abi", "msg", "block", "tx", "bytes", "string", "this", "super"])


def _visibility(node: TsNode) -> str:
    """``public``, ``external``, ``internal``, ``private``, or "" when none is written."""
    vis = node.child_by_field_name("visibility") or next(
        (c for c in node.named_children if c.type == "visibility"), None
    )
    return _text(vis).strip()


def _exported(node: TsNode, container: str) -> bool:
    """Whether code outside the contract (and its heirs) may use a member (see the
    module's docstring: a library's ``internal`` functions are its API)."""
    if node.type == "modifier_definition":
        return False  # a modifier is for the contract and its heirs only
    if node.type not in ("function_definition", "state_variable_declaration"):
        return True  # constructors, receive/fallback, events, errors, structs, enums
    vis = _visibility(node)
    if vis in ("public", "external"):
        return True
    if vis == "private":
        return False
    if container == "library_declaration":
        return True
    # no visibility: a state variable is internal, a function external (interface) or public
    return vis == "" and node.type == "function_definition"


def _is_constant(node: TsNode) -> bool:
    return any(not c.is_named and c.type == "constant" for c in node.children)


def _source(node: TsNode) -> str:
    """The path an ``import`` directive names, without its quotes."""
    return _text(node.child_by_field_name("source")).strip().strip("\"'")


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []
        self.imports: list[dict[str, Any]] = []

    def add(self, node: TsNode, name: str, qualname: str, kind: str, exported: bool) -> None:
        if name:
            self.symbols.append(symbol_entry(node, name, qualname, kind, exported))

    def top(self, root: TsNode) -> None:
        for child in root.named_children:
            name = _text(child.child_by_field_name("name"))
            if child.type == "import_directive":
                names = [
                    _text(c)
                    for i, c in enumerate(child.children)
                    if child.field_name_for_child(i) == "import_name"
                ]
                module = _source(child)
                if module:
                    self.imports.append({"module": module, "names": names, "level": 0})
            elif child.type in _CONTAINERS:
                self.add(child, name, name, _CONTAINERS[child.type], True)
                body = child.child_by_field_name("body")
                for member in body.named_children if body is not None else []:
                    self.member(member, name, child.type)
            elif child.type == "function_definition":
                self.add(child, name, name, "function", True)
            elif child.type == "constant_variable_declaration":
                self.add(child, name, name, "const", True)
            elif child.type in _DECLARATIONS:
                self.add(child, name, name, _DECLARATIONS[child.type], True)

    def member(self, node: TsNode, owner: str, container: str) -> None:
        name = _text(node.child_by_field_name("name"))
        kind = _DECLARATIONS.get(node.type, "")
        if node.type in ("function_definition", "modifier_definition"):
            kind = "method" if node.type == "function_definition" else "modifier"
        elif node.type == "state_variable_declaration":
            kind = "const" if _is_constant(node) else "variable"
        elif node.type == "constructor_definition":
            name, kind = "constructor", "method"
        elif node.type == "fallback_receive_definition":
            keyword = next((c.type for c in node.children if not c.is_named), "")
            name, kind = (keyword if keyword in ("receive", "fallback") else "fallback"), "method"
        if kind:
            self.add(node, name, f"{owner}.{name}", kind, _exported(node, container))


#: What a file calls and references, matched in C rather than walked node by node (a
#: Foundry test file holds thousands of expressions): a call's name and the object it is
#: called on, an event or error with its object, a modifier or base constructor, every
#: identifier of a type written, and a member read off a name.
_USES = """
(call_expression function: (expression [
  (identifier) @call
  (member_expression object: (_) @object property: (identifier) @call)
  (struct_expression type: (expression [
    (identifier) @call
    (member_expression object: (_) @object property: (identifier) @call)]))]))
(emit_statement name: (expression [
  (identifier) @ref
  (member_expression object: (_) @object property: (identifier) @ref)]))
(revert_statement error: (expression [
  (identifier) @ref
  (member_expression object: (_) @object property: (identifier) @ref)]))
(modifier_invocation (identifier) @call)
(user_defined_type (identifier) @ref)
(type_alias (identifier) @ref)
(member_expression object: (identifier) @owner property: (identifier) @member)
"""


def _uses(root: TsNode) -> tuple[set[str], set[str]]:
    """The names a file calls and the names it references (see the module's docstring)."""
    calls: set[str] = set()
    refs: set[str] = set()
    for _pattern, found in QueryCursor(query("solidity", _USES)).matches(root):
        obj = found.get("object", [None])[0]
        owner = _text(obj) if obj is not None and obj.type == "identifier" else ""
        if owner in _BUILTIN_OBJECTS - {"this", "super"}:
            continue  # ``abi.encode(…)``, ``msg.sender``: the language's own
        if owner[:1].isupper():  # ``L.foo()``, ``emit Lib.Ev()``: the library named
            refs.add(owner)
        for node in found.get("call", []):
            if _text(node) not in _BUILTIN_CALLS:
                calls.add(_text(node))
        refs.update(_text(node) for node in found.get("ref", []))
        for node in found.get("owner", []):  # ``TickMath.MIN_TICK``: a CapWords name's member
            if _text(node)[:1].isupper():
                refs.add(_text(node))
                refs.update(_text(m) for m in found.get("member", []))
    calls.discard("")
    refs.discard("")
    return calls, refs


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, imports, calls and references of one Solidity file."""
    root = parser("solidity").parse(source).root_node
    walker = _Walker()
    walker.top(root)
    calls, refs = _uses(root)
    return {
        "language": "solidity",
        "symbols": unique_symbols(walker.symbols, longest=True),
        "imports": walker.imports,
        "calls": sorted(calls),
        "refs": sorted(refs),
        "parse_errors": bool(root.has_error),
    }


def project_settings(rel: str, text: str) -> dict[str, Any]:
    """What a Foundry ``foundry.toml`` or a ``remappings.txt`` tells the linker: its
    import remappings as ``[context, prefix, target]`` (context and target relative to
    the project root, as the compiler reads them from the file's folder) and, for
    ``foundry.toml``, the library folders (``libs``) whose packages Foundry remaps by
    itself (``forge-std/`` → ``lib/forge-std/src/``). Empty for any other file."""
    name = rel.rsplit("/", 1)[-1].lower()
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    lines: list[str] = []
    libs: list[str] = []
    if name == "remappings.txt":
        lines = [ln.strip() for ln in text.splitlines()]
    elif name == "foundry.toml":
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return {"sol_remappings": []}
        profiles = data.get("profile", {})
        sections = [data.get("default"), *(profiles.values() if isinstance(profiles, dict) else [])]
        for section in sections:
            if not isinstance(section, dict):
                continue
            found = section.get("remappings", [])
            lines += (
                [r.strip() for r in found if isinstance(r, str)] if isinstance(found, list) else []
            )
            found = section.get("libs", [])
            libs += [d for d in found if isinstance(d, str)] if isinstance(found, list) else []
    else:
        return {}
    remappings: dict[tuple[str, str, str], None] = {}
    for line in lines:
        if "=" not in line or line.startswith("#"):
            continue
        left, _, target = line.partition("=")
        context, _, prefix = left.rpartition(":")
        if not prefix.strip():
            continue
        remappings[(_under(folder, context.strip()), prefix.strip(), _under(folder, target))] = None
    out: dict[str, Any] = {"sol_remappings": [list(r) for r in remappings]}
    if libs:
        out["sol_libs"] = list(dict.fromkeys(_under(folder, d) for d in libs))
    return out


def _under(folder: str, path: str) -> str:
    """``path`` written in ``folder`` as a path from the project root ("" stays "";
    a target's trailing ``/`` is kept, as the compiler joins the rest to it)."""
    path = path.strip()
    if not path:
        return ""
    joined = (
        posixpath.normpath(posixpath.join(folder, path)) if folder else posixpath.normpath(path)
    )
    joined = "" if joined == "." else joined
    return joined + "/" if path.endswith("/") and joined else joined
