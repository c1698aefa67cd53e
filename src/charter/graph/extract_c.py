"""C and C++ symbols, includes, calls and type references from tree-sitter.

A C project's structure is its includes: ``#include "tcp.h"`` names a file of the
project, and ``#include <uv.h>`` often does too (a public header under ``include/``), so
both forms are kept and the linker resolves them against the file list. Functions are
symbols wherever they are declared or defined: a prototype in a header and its body in
a ``.c`` file are both the function a task may name. ``static`` functions are not
exported, nor are class members under ``private:``/``protected:`` (a ``class`` starts
private, a ``struct`` public). Out-of-line definitions (``Status DBImpl::Get(...)``) are
``DBImpl.Get``, as if written in the class. Namespaces only wrap: the file path already
tells two ``Options`` classes apart. A ``#define`` with a value is a macro symbol; one
without (an include guard, a feature flag) defines nothing a task would name.

A ``.h`` file may be C, C++ or Objective-C: it is read as C; when the C grammar finds
errors, as Objective-C if it declares an ``@interface``/``@protocol`` (or ``#import``s),
else as C++ when the C++ grammar finds none (``class``, ``namespace``, templates).
Objective-C classes, protocols and categories are symbols with their methods as
``Class.selector`` (the selector's first part), messages (``[obj setObject:x]``) calls.

The preprocessor makes recoverable syntax errors routine (``UV_EXTERN int f(void);``,
macros that expand to statements), so they are not noted on the file as they are for
other languages.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import captured, parser, symbol_entry, unique_symbols
from charter.graph.parsers import node_text as _text

_CALLS = """
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (field_identifier) @name))
(call_expression function: (qualified_identifier name: (identifier) @name))
"""
_C_CALLS = """
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (field_identifier) @name))
"""
_OBJC_CALLS = """
(call_expression function: (identifier) @name)
(call_expression function: (field_expression field: (field_identifier) @name))
(message_expression method: (identifier) @name)
"""
#: Objective-C classes named where they are used: a message's receiver (``[Foo alloc]``)
#: and a superclass or protocol list are identifiers, not type names
_OBJC_REFS = """
(message_expression receiver: (identifier) @name)
(class_interface (identifier) @name)
(protocol_reference_list (identifier) @name)
"""
_TYPE_REFS = "(type_identifier) @name"
_CPP_SCOPES = "(namespace_identifier) @name"
_TYPES = {
    "class_specifier": "class",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
}
#: declarator wrappers between a declaration and the name it declares
_WRAPPERS = frozenset(
    [
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
        "array_declarator",
        "init_declarator",
    ]
)
#: containers whose children are declared at the level of the container itself
_TRANSPARENT = frozenset(
    [
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
        "linkage_specification",
        "declaration_list",
        "template_declaration",
    ]
)


def _declared(node: TsNode | None) -> tuple[str, str, bool]:
    """(owner, name, is_function) of the name a declarator declares: ``DBImpl::Get``
    gives ``("DBImpl", "Get", True)``; a template's arguments are dropped."""
    function = False
    current = node
    while current is not None:
        kind = current.type
        if kind == "function_declarator":
            function = True
        if kind in ("identifier", "field_identifier", "type_identifier", "destructor_name"):
            return "", _text(current), function
        if kind in ("operator_name", "operator_cast"):
            return "", _text(current).replace(" ", ""), function
        if kind == "qualified_identifier":
            parts = [_strip_template(p) for p in _text(current).replace(" ", "").split("::")]
            parts = [p for p in parts if p]
            if not parts:
                return "", "", function
            return (parts[-2] if len(parts) > 1 else ""), parts[-1], function
        if kind not in _WRAPPERS:
            return "", "", function
        current = current.child_by_field_name("declarator") or (
            current.named_children[0] if current.named_children else None
        )
    return "", "", function


def _strip_template(name: str) -> str:
    cut = name.find("<")
    return name[:cut] if cut >= 0 else name


def _is_static(node: TsNode) -> bool:
    return any(
        c.type == "storage_class_specifier" and _text(c) == "static" for c in node.named_children
    )


class _Walker:
    def __init__(self) -> None:
        self.symbols: list[dict[str, Any]] = []

    def add(self, node: TsNode, owner: str, name: str, kind: str, public: bool) -> None:
        if not name:
            return
        qualname = f"{owner}.{name}" if owner else name
        self.symbols.append(symbol_entry(node, name, qualname, kind, public))

    def body(self, node: TsNode | None, owner: str = "", public: bool = True) -> None:
        """Declarations in a file, namespace or class body (``owner`` is the class)."""
        if node is None:
            return
        for child in node.named_children:
            kind = child.type
            if kind == "access_specifier":
                public = _text(child).strip().rstrip(":") == "public"
            elif kind in _TRANSPARENT:
                self.body(child, owner, public)
            elif kind == "namespace_definition":
                self.body(child.child_by_field_name("body"))
            elif kind in _TYPES:
                self.type_(child, owner, public)
            elif kind == "function_definition":
                self.function(child, owner, public)
            elif kind in ("declaration", "field_declaration"):
                self.declaration(child, owner, public)
            elif kind == "type_definition":
                self.typedef(child, owner, public)
            elif kind == "alias_declaration":
                self.add(child, owner, _text(child.child_by_field_name("name")), "type", public)
            elif kind in _OBJC_TYPES:
                self.objc_type(child)
            elif kind == "preproc_function_def" or (
                kind == "preproc_def" and child.child_by_field_name("value") is not None
            ):
                self.add(child, "", _text(child.child_by_field_name("name")), "macro", True)

    def objc_type(self, node: TsNode) -> None:
        """``@interface Foo``/``@implementation Foo``/``@protocol P`` and their methods as
        ``Foo.method`` by the selector's first part (``storeImage`` for
        ``storeImage:forKey:``, what a person writes); a category adds its methods to
        the class it extends."""
        names = [c for c in node.named_children if c.type == "identifier"]
        if not names:
            return
        name = _text(names[0])
        category = node.child_by_field_name("category")
        if category is None and node.type != "class_implementation":
            self.add(node, "", name, _OBJC_TYPES[node.type], True)
        elif category is None and not any(s["qualname"] == name for s in self.symbols):
            self.add(node, "", name, "class", True)
        stack = list(node.named_children)
        while stack:
            child = stack.pop(0)
            if child.type == "implementation_definition":
                stack[:0] = child.named_children
            elif child.type in ("method_declaration", "method_definition"):
                selector = next((c for c in child.named_children if c.type == "identifier"), None)
                if selector is not None:
                    self.add(child, name, _text(selector), "method", True)
            elif child.type == "function_definition":
                self.function(child, "", True)
            elif child.type == "property_declaration":
                for ident in _property_names(child):
                    self.add(child, name, ident, "method", True)

    def type_(self, node: TsNode, owner: str, public: bool, name: str = "") -> None:
        body = node.child_by_field_name("body")
        name = _strip_template(_text(node.child_by_field_name("name")).split("::")[-1]) or name
        if body is None or not name:
            return
        self.add(node, owner, name, _TYPES[node.type], public)
        if node.type != "enum_specifier":
            qualname = f"{owner}.{name}" if owner else name
            self.body(body, qualname, node.type != "class_specifier")

    def function(self, node: TsNode, owner: str, public: bool) -> None:
        scope, name, _ = _declared(node.child_by_field_name("declarator"))
        exported = public and not _is_static(node)
        self.add(node, scope or owner, name, "method" if (scope or owner) else "function", exported)

    def declaration(self, node: TsNode, owner: str, public: bool) -> None:
        """A prototype or a method declaration (``int uv_run(uv_loop_t*);``), or a type
        defined inside a declaration (``struct foo { … } x;``); variables are skipped."""
        spec = node.child_by_field_name("type")
        if spec is not None and spec.type in _TYPES:
            self.type_(spec, owner, public)
        for declarator in node.children_by_field_name("declarator"):
            scope, name, function = _declared(declarator)
            if function:
                kind = "method" if (scope or owner) else "function"
                self.add(node, scope or owner, name, kind, public and not _is_static(node))

    def typedef(self, node: TsNode, owner: str, public: bool) -> None:
        """``typedef struct uv_loop_s uv_loop_t;``: the alias is a type; an anonymous
        struct defined here is named by it."""
        names = [_declared(d)[1] for d in node.children_by_field_name("declarator")]
        names = [n for n in names if n]
        spec = node.child_by_field_name("type")
        if spec is not None and spec.type in _TYPES:
            self.type_(spec, owner, public, names[0] if names else "")
            defined = _text(spec.child_by_field_name("name"))
            if not defined and spec.child_by_field_name("body") is not None:
                defined = names[0] if names else ""  # the anonymous type it names
        else:
            defined = ""
        for name in names:
            if name != defined:
                self.add(node, owner, name, "type", public)


_OBJC_TYPES = {
    "class_interface": "class",
    "class_implementation": "class",
    "protocol_declaration": "interface",
}


def _property_names(node: TsNode) -> list[str]:
    """``@property (nonatomic) NSString *name;`` → ``name``."""
    out = []
    for child in node.named_children:
        if child.type == "struct_declaration":
            for declarator in child.named_children:
                if declarator.type == "struct_declarator":
                    name = _declared(
                        declarator.named_children[0] if declarator.named_children else None
                    )[1]
                    if name:
                        out.append(name)
    return out


def _includes(root: TsNode) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "module_import":  # ``@import UIKit;``: a framework, never a file
            continue
        if node.type == "preproc_include":
            path = node.child_by_field_name("path")
            if path is not None:
                written = _text(path).strip()
                system = path.type == "system_lib_string"
                module = written.strip('<>"').strip()
                if module:
                    out.append({"module": module, "names": [], "system": system})
            continue
        if node.type in ("function_definition", "compound_statement"):
            continue
        stack.extend(node.named_children)
    return sorted(out, key=lambda imp: (imp["module"], imp["system"]))


def _parse(source: bytes, language: str, header: bool) -> tuple[TsNode, str]:
    if language == "objc":
        source = _ANNOTATION.sub(_blank, source)
    root = parser(language).parse(source).root_node
    if header and language == "c" and root.has_error:
        if _OBJC_MARK.search(source):  # ``@interface``: no other grammar reads it at all
            return parser("objc").parse(_ANNOTATION.sub(_blank, source)).root_node, "objc"
        cpp = parser("cpp").parse(source).root_node
        if not cpp.has_error:
            return cpp, "cpp"
    return root, language


#: what only Objective-C writes: its ``@`` keywords and ``#import``
_OBJC_MARK = re.compile(rb"^\s*(?:@interface|@implementation|@protocol|#import)\b", re.MULTILINE)


#: An Objective-C annotation macro (``NS_ASSUME_NONNULL_BEGIN``, ``NS_DESIGNATED_INITIALIZER``,
#: ``API_AVAILABLE(ios(10.0))``): an all-caps name with an underscore, and its arguments.
#: No grammar expands macros, and these stand where a declaration's syntax has no room for
#: a name, hiding the ``@interface`` around them; blanked (same length: lines keep their
#: numbers) before an Objective-C file is parsed.
_ANNOTATION = re.compile(rb"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*\b(?:\s*\((?:[^()\n]|\([^()\n]*\))*\))?")


def _blank(match: re.Match[bytes]) -> bytes:
    return b" " * len(match.group(0))


def is_objc(source: bytes) -> bool:
    """Whether a ``.m`` file is Objective-C (MATLAB writes ``.m`` files too)."""
    return bool(_OBJC_MARK.search(source))


def extract(source: bytes, language: str, header: bool = False) -> dict[str, Any]:
    """Symbols, includes, calls and type references of one C or C++ file (``language``
    is ``c`` or ``cpp``; a ``header`` read as C is tried as C++ when C fails)."""
    root, language = _parse(source, language, header)
    walker = _Walker()
    walker.body(root)
    queries = {"cpp": _CALLS, "objc": _OBJC_CALLS}
    calls = captured(language, queries.get(language, _C_CALLS), root)
    refs = captured(language, _TYPE_REFS, root)
    if language == "objc":
        refs |= captured(language, _OBJC_REFS, root)
    if language == "cpp":
        refs |= {_strip_template(n) for n in captured(language, _CPP_SCOPES, root)}
    return {
        "language": language,
        "symbols": unique_symbols(walker.symbols, longest=True),
        "imports": _includes(root),
        "calls": sorted(calls - {""}),
        "refs": sorted(r for r in refs if len(r) > 2),
    }
