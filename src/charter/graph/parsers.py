"""Tree-sitter parsers and queries, created once per process (they are not free to build).

Grammars come from PyPI wheels (tree-sitter-python, -javascript, -typescript, -go, -rust,
-java, -kotlin, -ruby, -php, -c, -cpp, -objc, -c-sharp, -swift, -elixir, -scala, -zig,
-lua, -dart, -hcl, -solidity, -bash)
and load with no network, each only when a file of its language is first parsed.
``language_of`` maps a path to the grammar that parses it, or None for languages the
graph keeps at file level.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

from tree_sitter import Language, Parser, Query, Tree
from tree_sitter import Node as TsNode

_EXT = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".php": "php",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    # CUDA is C++ with kernel-launch syntax the grammar recovers from
    ".cu": "cpp",
    ".cuh": "cpp",
    # Objective-C and Objective-C++ (a ``.m`` that is MATLAB stays text)
    ".m": "objc",
    ".mm": "objc",
    ".zig": "zig",
    ".cs": "csharp",
    ".swift": "swift",
    ".ex": "elixir",
    ".exs": "elixir",
    ".scala": "scala",
    ".sc": "scala",
    ".lua": "lua",
    ".dart": "dart",
    ".tf": "hcl",
    ".hcl": "hcl",
    ".sol": "solidity",
    ".proto": "proto",  # no grammar wheel: read by the small reader of ``extract_proto``
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
}


def language_of(path: str) -> str | None:
    """python, javascript, typescript, tsx, go, rust, java, kotlin, ruby, php, c, cpp, objc,
    csharp, swift, elixir, scala, zig, lua, dart, hcl (Terraform), solidity, proto (read
    without tree-sitter), shell, or None (file level); a ``.h`` header is ``c`` until its content
    says C++ or Objective-C."""
    dot = path.rfind(".")
    return _EXT.get(path[dot:].lower()) if dot >= 0 else None


#: Each grammar's wheel and the function in it that gives its language; a wheel is
#: imported the first time a file of its language is parsed, so a project without Go
#: never loads the Go grammar (a cold hook stays light).
_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    # ``language_php`` reads the HTML around ``<?php`` (``language_php_only`` would not)
    "php": ("tree_sitter_php", "language_php"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "objc": ("tree_sitter_objc", "language"),
    "zig": ("tree_sitter_zig", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "elixir": ("tree_sitter_elixir", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "lua": ("tree_sitter_lua", "language"),
    "dart": ("tree_sitter_dart", "language"),
    "hcl": ("tree_sitter_hcl", "language"),
    "solidity": ("tree_sitter_solidity", "language"),
    "shell": ("tree_sitter_bash", "language"),
}


#: Languages read by a small reader of their own, not tree-sitter (no grammar wheel).
READERS = frozenset(["proto"])
#: Languages whose files get symbols (the others stay at file level).
STRUCTURED = frozenset(_GRAMMARS) | READERS


@cache
def language(name: str) -> Language:
    import importlib

    module, function = _GRAMMARS[name]
    handle = getattr(importlib.import_module(module), function)()
    if isinstance(handle, int):
        # tree-sitter-solidity's binding returns the language's address as an int, which
        # py-tree-sitter deprecates (a warning now, an error later): the capsule the
        # other grammars return holds the same static pointer
        handle = _capsule(handle)
    return Language(handle)


def _capsule(address: int) -> object:
    """A ``tree_sitter.Language`` capsule around a grammar's static language pointer."""
    import ctypes

    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule: object = new(address, b"tree_sitter.Language", None)
    return capsule


#: How long one file may take to parse. A grammar's error recovery can go superlinear on
#: input no one writes by hand (200,000 lines of nested brackets took tree-sitter-kotlin
#: over two minutes and a gigabyte by ten seconds); past this the parse is cancelled,
#: ``ValueError``, and the file is kept at file level. Real files parse in milliseconds.
PARSE_SECONDS = 5.0


class BoundedParser:
    """A grammar's parser whose :meth:`parse` gives up after :data:`PARSE_SECONDS`."""

    def __init__(self, parser: Parser) -> None:
        self._parser = parser

    def parse(self, source: bytes) -> Tree:
        """The tree of ``source``; ``ValueError`` when the parse runs out of time."""
        deadline = time.monotonic() + PARSE_SECONDS

        def read(offset: int, _point: object) -> bytes:
            return source[offset : offset + 65536]

        def too_long(*_state: object) -> bool:
            return time.monotonic() > deadline

        # tree-sitter calls the progress callback only when it reads through a callback
        try:
            return self._parser.parse(read, progress_callback=too_long)
        except ValueError:
            # a cancelled parse is resumed by the next call unless the parser is reset:
            # the next file would be read as the rest of this one
            self._parser.reset()
            raise


@cache
def parser(name: str) -> BoundedParser:
    return BoundedParser(Parser(language(name)))


@cache
def query(name: str, source: str) -> Query:
    return Query(language(name), source)


def node_text(node: TsNode | None) -> str:
    """A node's source text ("" for a missing node); bad bytes never stop extraction."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def captured(name: str, source: str, root: TsNode) -> set[str]:
    """The text of every node a query of language ``name`` captures under ``root`` (the
    names a file calls, the types it uses), each extractor's one way to ask."""
    from tree_sitter import QueryCursor

    return {
        node_text(n)
        for nodes in QueryCursor(query(name, source)).captures(root).values()
        for n in nodes
    }


def unique_symbols(symbols: list[dict[str, Any]], *, longest: bool = False) -> list[dict[str, Any]]:
    """One symbol per qualified name (overloads, a type's repeated extensions, a C
    prototype before its body would give one id twice), in first-seen order: the first
    of each, or with ``longest`` the one spanning most lines (the definition, not its
    forward declaration)."""
    best: dict[str, dict[str, Any]] = {}
    for sym in symbols:
        kept = best.get(sym["qualname"])
        if kept is None or (
            longest
            and (sym["line_end"] - sym["line_start"]) > (kept["line_end"] - kept["line_start"])
        ):
            best[sym["qualname"]] = sym
    return list(best.values())


def symbol_entry(
    node: TsNode, name: str, qualname: str, kind: str, exported: bool
) -> dict[str, object]:
    """One extracted symbol in the shape every extractor returns (lines are 1-based)."""
    return {
        "name": name,
        "qualname": qualname,
        "kind": kind,
        "line_start": node.start_point[0] + 1,
        "line_end": node.end_point[0] + 1,
        "exported": exported,
    }
