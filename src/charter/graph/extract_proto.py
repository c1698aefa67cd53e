"""Protocol Buffers (proto2, proto3, editions): package, types, rpcs, imports, type uses.

A ``.proto`` file is a service's contract: a task names its messages (``CreateJobRequest``)
and rpcs, and the code generated from it or implementing it names them too. This is a
small recursive-descent reader over ``schema_tokens``, tolerant of what it does not know:
an unknown statement is skipped to its ``;`` or its balanced ``{ … }`` block, so an
option's aggregate value, a new keyword or a syntax error loses that statement only.

Messages, enums and services are symbols named by their package-qualified, nested names
(``acme.jobs.v1.Job.State``), so the short name a task writes (``State``, ``Job.State``)
finds them; an rpc is ``acme.jobs.v1.JobService.CreateJob``; a proto2 ``group`` is a
nested message. ``import "a/b.proto"`` is an import (``public`` and ``weak`` too). Each
type a field, map value, rpc or ``extend`` names is kept with the scope it was written
in (``["acme.jobs.v1.Job", "State"]``): the linker resolves it as protoc does, innermost
scope first, among every file's types (``link_schema``).
"""

from __future__ import annotations

from typing import Any

from charter.graph.schema_tokens import Token, tokenize

#: field types that are not messages
_SCALARS = frozenset(
    [
        *("double", "float", "bool", "string", "bytes"),
        *("int32", "int64", "uint32", "uint64", "sint32", "sint64"),
        *("fixed32", "fixed64", "sfixed32", "sfixed64"),
    ]
)
_LABELS = frozenset(["optional", "required", "repeated", "stream"])
#: declarations that are types: their symbol kind
_TYPE_KINDS = {"message": "class", "enum": "enum", "service": "interface"}
_OPEN = {"{": "}", "(": ")", "[": "]"}


class _Reader:
    """One file's tokens and what has been read from them."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.package = ""
        self.symbols: list[dict[str, Any]] = []
        self.imports: list[dict[str, Any]] = []
        self.type_refs: list[list[str]] = []
        self.errors = False

    def peek(self, offset: int = 0) -> Token | None:
        at = self.pos + offset
        return self.tokens[at] if at < len(self.tokens) else None

    def text(self, offset: int = 0) -> str:
        token = self.peek(offset)
        return token.text if token is not None else ""

    def line(self) -> int:
        token = self.peek() or (self.tokens[-1] if self.tokens else None)
        return token.line if token is not None else 1

    def skip_balanced(self) -> int:
        """Past the bracketed group starting here; the line of its closing token."""
        stack: list[str] = []
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            self.pos += 1
            if token.kind == "punct" and token.text in _OPEN:
                stack.append(_OPEN[token.text])
            elif token.kind == "punct" and stack and token.text == stack[-1]:
                stack.pop()
                if not stack:
                    return token.line
        self.errors = True
        return self.line()

    def statement(self) -> list[Token]:
        """The tokens up to this statement's ``;`` (consumed) or a block it opens (a
        bracketed option value is kept whole), not past a ``}`` that closes the body."""
        out: list[Token] = []
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            if token.kind == "punct" and token.text == ";":
                self.pos += 1
                return out
            if token.kind == "punct" and token.text in ("{", "}"):
                return out
            if token.kind == "punct" and token.text in ("[", "("):
                start = self.pos
                self.skip_balanced()
                out.extend(self.tokens[start : self.pos])
                continue
            out.append(token)
            self.pos += 1
        return out

    def ref(self, scope: str, name: str) -> None:
        if name and name not in _SCALARS:
            self.type_refs.append([scope, name])

    def symbol(self, qualname: str, kind: str, start: int, end: int) -> None:
        self.symbols.append(
            {
                # the name code generated from the schema gives the type (``Job_State`` in
                # Go aside): a use of it that nothing else defines links here
                "name": qualname.rsplit(".", 1)[-1],
                "qualname": qualname,
                "kind": kind,
                "line_start": start,
                "line_end": max(start, end),
                "exported": True,
            }
        )

    def block_end(self) -> int:
        """After a declaration's name: its ``{ … }`` skipped, or where it stopped."""
        if self.text() == "{":
            return self.skip_balanced()
        self.errors = True
        return self.line()

    def body(self, scope: str, kind: str) -> int:
        """The declarations inside ``{ … }`` of a message, enum, service, oneof or extend
        (``kind``) in ``scope``; the line of the closing brace."""
        if self.text() != "{":
            self.errors = True
            return self.line()
        self.pos += 1
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            if token.kind == "punct" and token.text == "}":
                self.pos += 1
                return token.line
            if token.kind == "punct" and token.text == ";":
                self.pos += 1
                continue
            self.declaration(scope, kind)
        self.errors = True
        return self.line()

    def named(self, scope: str, kind: str, symbol_kind: str) -> None:
        """``message|enum|service NAME { … }``: a symbol and its body."""
        start = self.line()
        self.pos += 1
        name = self.peek()
        if name is None or name.kind != "name" or "." in name.text:
            self.errors = True
            self.statement()
            if self.text() == "{":
                self.skip_balanced()
            return
        self.pos += 1
        qualname = f"{scope}.{name.text}" if scope else name.text
        index = len(self.symbols)
        self.symbol(qualname, symbol_kind, start, start)
        end = self.body(qualname, kind)
        self.symbols[index]["line_end"] = max(start, end)

    def rpc(self, scope: str) -> None:
        """``rpc Name (stream Req) returns (stream Resp) ;`` or ``{ option … }``."""
        start = self.line()
        self.pos += 1
        words = self.statement()
        names = [t.text for t in words if t.kind == "name" and t.text not in _LABELS]
        if names:
            self.symbol(f"{scope}.{names[0]}", "method", start, start)
            for name in names[1:]:
                if name != "returns":
                    self.ref(self.package, name)
        if self.text() == "{":
            end = self.skip_balanced()
            if names:
                self.symbols[-1]["line_end"] = max(start, end)

    def field(self, scope: str, words: list[Token]) -> None:
        """A field's type (``repeated a.B name = 1``, ``map<string, B> m = 2``), or an
        unknown statement whose first name is taken for nothing."""
        names = [t for t in words if t.kind in ("name", "punct")]
        while names and names[0].text in _LABELS:
            names = names[1:]
        if not names or names[0].kind != "name":
            return
        if names[0].text == "map" and len(names) > 1 and names[1].text == "<":
            inner = [t.text for t in names[2:6] if t.kind == "name"]
            if len(inner) >= 2:
                self.ref(scope, inner[1])
            return
        if len(names) > 1 and names[1].kind == "name":  # ``Type name = N``
            self.ref(scope, names[0].text)

    def declaration(self, scope: str, kind: str) -> None:
        """One statement or nested declaration of a body (or the file) at ``self.pos``."""
        word = self.text()
        head = self.peek()
        if head is not None and head.kind != "name":
            self.pos += 1  # a stray token: skip it
            if head.text == "{":
                self.pos -= 1
                self.skip_balanced()
            return
        after = self.peek(1)
        if word in _TYPE_KINDS and after is not None and after.kind == "name":
            self.named(scope, word, _TYPE_KINDS[word])
            return
        if word == "rpc" and kind == "service":
            self.rpc(scope)
            return
        if word == "oneof" and kind == "message":
            self.pos += 2
            self.body(scope, "message")
            return
        if word == "extend":
            self.pos += 1
            target = self.text()
            self.pos += 1
            self.ref(scope, target)
            self.body(scope, "message")
            return
        if word in ("option", "reserved", "extensions", "syntax", "edition"):
            self.statement()
            if self.text() == "{":  # a malformed aggregate: skip its block
                self.skip_balanced()
            return
        if word == "package" and kind == "file":
            words = self.statement()
            if len(words) > 1:
                self.package = words[1].text.lstrip(".")
            return
        if word == "import" and kind == "file":
            words = self.statement()
            paths = [t.text for t in words if t.kind == "string"]
            if paths:
                self.imports.append({"module": paths[0], "names": [], "level": 0})
            return
        words = self.statement()
        if self.text() == "{":  # a proto2 group: a nested message named by the field
            start = words[0].line if words else self.line()
            name = next((t.text for t in words if t.kind == "name" and t.text[:1].isupper()), "")
            if name and kind == "message":
                qualname = f"{scope}.{name}"
                index = len(self.symbols)
                self.symbol(qualname, "class", start, start)
                self.symbols[index]["line_end"] = self.body(qualname, "message")
            else:
                self.skip_balanced()
            return
        if kind == "message":
            self.field(scope, words)


def extract(source: bytes) -> dict[str, Any]:
    """The package, symbols, imports and scoped type uses of one ``.proto`` file."""
    text = source.decode("utf-8", errors="replace")
    tokens = tokenize(text)
    reader = _Reader(tokens)
    while reader.pos < len(tokens):
        token = tokens[reader.pos]
        if token.kind == "punct" and token.text in (";", "}"):
            reader.errors = reader.errors or token.text == "}"
            reader.pos += 1
            continue
        # a top-level declaration's scope is the package, once it has been read
        reader.declaration(reader.package, "file")
    seen: set[str] = set()
    symbols = []
    for sym in reader.symbols:
        if sym["qualname"] not in seen:
            seen.add(sym["qualname"])
            symbols.append(sym)
    refs = sorted({(scope, name) for scope, name in reader.type_refs})
    return {
        "language": "proto",
        "proto_package": reader.package,
        "symbols": symbols,
        "imports": reader.imports,
        "calls": [],
        "refs": [],
        "type_refs": [list(pair) for pair in refs],
        "parse_errors": reader.errors,
    }
