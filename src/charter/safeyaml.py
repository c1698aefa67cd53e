"""The one way Charter reads YAML: PyYAML's SafeLoader with limits a hostile file can't pass.

``yaml.safe_load`` blocks code execution but not resource exhaustion. Aliases compose to
shared nodes, so a "billion laughs" document is small and loads fast, then blows up in
whatever walks it next (``str()``, ``json.dumps``, a record walker): gigabytes and minutes
from a kilobyte of front matter. Merge keys (``<<: [*a, *a]``) copy node lists at
construction time, so they blow up inside PyYAML itself. Deep nesting overflows the
recursive composer. So every document here is composed first and checked before anything
is constructed or walked:

- size: at most :data:`MAX_YAML_BYTES` of text;
- nesting: at most :data:`MAX_DEPTH` levels of mappings and sequences;
- aliases: at most :data:`MAX_ALIASES` alias uses, no alias to its own ancestor (cycles);
- expansion: the tree with every alias expanded may hold at most as many nodes again as
  the document itself, or :data:`MAX_EXPANSION` more, whichever is larger — real files
  reuse a block or two, a bomb multiplies.

A violation raises :class:`YamlLimitError` (a :class:`CharterError` naming the file), so
callers that skip a broken file with a note skip this one the same way. Syntax errors are
still raised as ``yaml.YAMLError`` so callers keep their line-numbered messages.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.tokens import ScalarToken

from charter.errors import CharterError

#: Largest YAML text parsed (front matter, SoT files, decisions input).
MAX_YAML_BYTES = 5 * 1024 * 1024
#: Deepest nesting of mappings/sequences accepted.
MAX_DEPTH = 64
#: Most alias uses (``*name``) accepted in one document.
MAX_ALIASES = 1000
#: Nodes aliases may add beyond the document's own (or as many as it has, if more).
MAX_EXPANSION = 10_000


class YamlLimitError(CharterError):
    """A YAML document over a safety limit (size, depth, aliases, expansion)."""


class _Limit(Exception):
    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that counts nesting, nodes and aliases while composing."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.nodes = 0
        self.aliases = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                line = self.peek_event().start_mark.line + 1
                raise _Limit(f"more than {MAX_ALIASES} aliases", line)
            return super().compose_node(parent, index)
        self.nodes += 1
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                line = self.peek_event().start_mark.line + 1
                raise _Limit(f"nested deeper than {MAX_DEPTH} levels", line)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def scan_plain(self) -> ScalarToken:
        """PyYAML's plain scalar, with YAML 1.2's flow context: a ``?`` inside a plain
        scalar is a character of it, not a key indicator. PyYAML ends the scalar there,
        so a regular expression in a flow mapping (``{ path: ^/api/docs(\\..+)?$,
        roles: PUBLIC_ACCESS }``, the shape of a Symfony firewall's ``access_control``)
        was "malformed YAML" and its file left out of search. Only ``,[]{}`` end a plain
        scalar in flow context, as the specification says; a ``?`` that opens a key
        (``{ ? a : b }``) is read before any scalar and is unchanged."""
        chunks: list[str] = []
        start_mark = self.get_mark()
        end_mark = start_mark
        indent = self.indent + 1
        spaces: list[str] = []
        breaks = "\0 \t\r\n\x85\u2028\u2029"
        while True:
            length = 0
            if self.peek() == "#":
                break
            while True:
                ch = self.peek(length)
                if (
                    ch in breaks
                    or (
                        ch == ":"
                        and self.peek(length + 1) in breaks + (",[]{}" if self.flow_level else "")
                    )
                    or (self.flow_level and ch in ",[]{}")
                ):
                    break
                length += 1
            if length == 0:
                break
            self.allow_simple_key = False
            chunks.extend(spaces)
            chunks.append(self.prefix(length))
            self.forward(length)
            end_mark = self.get_mark()
            spaces = self.scan_plain_spaces(indent, start_mark)
            if not spaces or self.peek() == "#" or (not self.flow_level and self.column < indent):
                break
        return ScalarToken("".join(chunks), True, start_mark, end_mark)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def expanded_size(root: yaml.Node, limit: int) -> int:
    """Nodes in the tree with every alias expanded, stopping once past ``limit``.

    Iterative and memoised per node, so it costs one visit per distinct node however
    large the expansion; an alias to an ancestor (a cycle) raises :class:`_Limit`.
    """
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1 + sum(sizes[id(c)] for c in _children(node))
            sizes[key] = min(total, limit + 1)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _Limit("an alias refers to its own ancestor (recursive document)")
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise _Limit("an alias refers to its own ancestor (recursive document)")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _check_size(text: str, name: str) -> None:
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_YAML_BYTES:
        raise YamlLimitError(f"{name}: YAML too large ({size} bytes > {MAX_YAML_BYTES})")


def _check_expansion(root: yaml.Node, nodes: int) -> None:
    bound = nodes + max(nodes, MAX_EXPANSION)
    if expanded_size(root, bound) > bound:
        raise _Limit(f"aliases expand it to over {bound} nodes from {nodes} (a YAML bomb?)")


def _compose(text: str, name: str) -> tuple[yaml.Node | None, _LimitedLoader]:
    _check_size(text, name)
    loader = _LimitedLoader(text)
    try:
        root = loader.get_single_node()
        if root is not None:
            _check_expansion(root, loader.nodes)
    except _Limit as exc:
        loader.dispose()
        where = f":{exc.line}" if exc.line else ""
        raise YamlLimitError(f"{name}{where}: unsafe YAML: {exc.reason}") from None
    except RecursionError:
        loader.dispose()
        raise YamlLimitError(f"{name}: unsafe YAML: nested too deeply") from None
    return root, loader


def compose(text: str, *, name: str) -> yaml.Node | None:
    """The checked node graph of a single YAML (or JSON) document, or None if empty."""
    root, loader = _compose(text, name)
    loader.dispose()
    return root


def compose_all(text: str, *, name: str) -> list[yaml.Node]:
    """The checked node graph of each document of a YAML stream (documents separated by
    ``---``: Kubernetes manifests, test flows), empty documents left out; the limits hold
    per document (an alias never reaches into another document), and size for the file."""
    _check_size(text, name)
    loader = _LimitedLoader(text)
    roots: list[yaml.Node] = []
    try:
        while loader.check_node():
            before = loader.nodes
            root = loader.get_node()
            if root is not None:
                _check_expansion(root, loader.nodes - before)
                roots.append(root)
    except _Limit as exc:
        where = f":{exc.line}" if exc.line else ""
        raise YamlLimitError(f"{name}{where}: unsafe YAML: {exc.reason}") from None
    except RecursionError:
        raise YamlLimitError(f"{name}: unsafe YAML: nested too deeply") from None
    finally:
        loader.dispose()
    return roots


def load(text: str, *, name: str) -> Any:
    """``yaml.safe_load`` for one document, within the limits above."""
    root, loader = _compose(text, name)
    try:
        if root is None:
            return None
        return loader.construct_document(root)
    except RecursionError:
        raise YamlLimitError(f"{name}: unsafe YAML: nested too deeply") from None
    finally:
        loader.dispose()
