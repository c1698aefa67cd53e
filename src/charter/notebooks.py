"""Jupyter notebooks read as what their authors wrote: the cells' sources, each source
line tied to the line of the ``.ipynb`` file that stores it, and no outputs.

Why: a notebook's JSON is mostly metadata and outputs (plots as base64, tables, logs,
sometimes a token echoed by a cell), none of which an agent should retrieve by or be
shown; its sources are code and prose like any other file's. Tying each source line to
its physical line lets a search citation (``eda.ipynb#L120-L131``) open at the cell, and
lets the graph run the Python extractor over a notebook's code as over a module's, with
every symbol's lines the file's own lines. Search and the graph both read notebooks
through this one module.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from charter.errors import CharterError

#: The notebook suffix both search and the graph read through this module
SUFFIX = ".ipynb"

#: One JSON token: a string (escapes unrolled, so a long base64 output is one fast match),
#: a punctuation mark, or a bare scalar (number, true, false, null)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')
#: An IPython line magic, shell escape or help request (``%matplotlib inline``,
#: ``!pip install x``, ``?df``): not Python, so the extractor sees ``pass`` in its place
_MAGIC = re.compile(r"^(\s*)(?:%|!|\?)")
#: A cell magic's first line (``%%time``, ``%%bash``) and its name
_CELL_MAGIC = re.compile(r"^\s*%%(\w*)")
#: IPython's cell magics whose body is Python (timing, capturing, profiling); any other
#: (``%%bash``, ``%%sql``, ``%%writefile``, ``%%html``) holds another language or a file
_PYTHON_CELL_MAGICS = frozenset(
    ["time", "timeit", "capture", "prun", "debug", "python", "python3", "memit", "lprun"]
)


@dataclass(frozen=True)
class Cell:
    """One cell's source and where each of its lines is stored in the file."""

    index: int  # position among the notebook's cells, from 0
    kind: str  # code | markdown | raw
    source: str
    lines: tuple[int, ...]  # 1-based file line of each line of ``source.split("\n")``


@dataclass(frozen=True)
class Notebook:
    """A parsed notebook: its kernel's language and its cells, outputs left out."""

    language: str  # lower-case kernel language; "python" when the notebook does not say
    cells: tuple[Cell, ...]
    line_count: int  # lines of the .ipynb file

    def text(self) -> str:
        """Every cell's source, blank lines between: the notebook's words."""
        return "\n\n".join(c.source for c in self.cells if c.source.strip())

    def aligned_code(self) -> str:
        """The code cells' lines at their own file lines, blank elsewhere.

        A parser over this text reports a symbol at the line of the ``.ipynb`` that holds
        it. Magics become ``pass``; a cell that is still not Python (a ``%%bash`` body, a
        cell that never ran cleanly) is left out, as is one whose lines share a file line
        (a source stored as one string), which cannot be placed line for line."""
        out = [""] * self.line_count
        for cell in self.cells:
            if cell.kind != "code" or not cell.source.strip():
                continue
            lines = cell.source.split("\n")
            if any(b <= a for a, b in zip(cell.lines, cell.lines[1:], strict=False)):
                continue
            if self.language == "python":
                python = python_lines(lines)
                if python is None:
                    continue
                lines = python
            for number, line in zip(cell.lines, lines, strict=False):
                if 0 < number <= self.line_count:
                    out[number - 1] = line
        return "\n".join(out)


def python_lines(lines: list[str]) -> list[str] | None:
    """A code cell's lines as plain Python (magics as ``pass``), or None when the cell is
    not Python even then."""
    magic = _CELL_MAGIC.match(lines[0]) if lines else None
    if magic:
        if magic.group(1) not in _PYTHON_CELL_MAGICS:
            return None
        lines = ["pass", *lines[1:]]
    out: list[str] = []
    continued = False  # a magic's line ending in ``\`` goes on in the next line
    for line in lines:
        if continued:
            out.append("")
        else:
            match = _MAGIC.match(line)
            out.append(f"{match.group(1)}pass" if match else line)
            if not match:
                continue
        continued = line.rstrip().endswith("\\")
    try:
        ast.parse("\n".join(out))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return out


def _source_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    return None


def _language(data: dict[str, Any]) -> str:
    meta = data.get("metadata")
    if isinstance(meta, dict):
        for key, field in (("kernelspec", "language"), ("language_info", "name")):
            block = meta.get(key)
            name = block.get(field) if isinstance(block, dict) else None
            if isinstance(name, str) and name.strip():
                return name.strip().lower()
    return "python"


def _raw_cells(data: dict[str, Any]) -> tuple[list[Any], str]:
    """The cell list and the key path prefix its tokens carry (nbformat 4, or 3's
    first worksheet)."""
    cells = data.get("cells")
    if isinstance(cells, list):
        return cells, "cells"
    sheets = data.get("worksheets")
    if isinstance(sheets, list) and sheets and isinstance(sheets[0], dict):
        cells = sheets[0].get("cells")
        if isinstance(cells, list):
            return cells, "worksheets"
    raise ValueError("no cells")


def _source_lines(text: str, layout: str) -> dict[int, list[int]]:
    """For each cell, the file line of each string of its source (one entry when the
    source is stored as a single string), read off the JSON's tokens in one pass."""
    wanted_depth = 4 if layout == "cells" else 6
    found: dict[int, list[int]] = {}
    containers: list[str] = []
    path: list[Any] = []
    expect_key = False
    line = 1
    last = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == "{" or first == "[":
            containers.append(first)
            path.append(None if first == "{" else 0)
            expect_key = first == "{"
        elif first == "}" or first == "]":
            if not containers:
                break
            containers.pop()
            path.pop()
            expect_key = False
        elif first == ",":
            if containers and containers[-1] == "[":
                path[-1] += 1
            else:
                expect_key = True
        elif first == ":":
            expect_key = False
        elif first == '"':
            if expect_key and containers and containers[-1] == "{":
                path[-1] = token
                continue
            cell = _cell_of(path, layout, wanted_depth)
            if cell is not None:
                start = match.start()
                line += text.count("\n", last, start)
                last = start
                found.setdefault(cell, []).append(line)
    return found


def _cell_of(path: list[Any], layout: str, depth: int) -> int | None:
    """The cell index when ``path`` is a string of a cell's source, else None."""
    if layout == "cells":
        # ["cells", i, "source", j] or, for a single-string source, ["cells", i, "source"]
        if len(path) not in (depth - 1, depth) or path[0] != '"cells"':
            return None
        key, index = path[2], path[1]
        ok = key == '"source"'
    else:
        # ["worksheets", 0, "cells", i, "input" | "source", j]
        if len(path) not in (depth - 1, depth) or path[0] != '"worksheets"' or path[1] != 0:
            return None
        if path[2] != '"cells"':
            return None
        key, index = path[4], path[3]
        ok = key in ('"source"', '"input"')
    return index if ok and isinstance(index, int) else None


def _line_map(parts: list[str], starts: list[int], count: int) -> tuple[int, ...]:
    """The file line of each of a source's ``count`` lines, given the file line of each
    stored string (a line begins in the string that holds its first character)."""
    out: list[int] = []
    at_start = True
    for part, number in zip(parts, starts, strict=False):
        if not part:
            continue
        if at_start:
            out.append(number)
        inner = part[:-1] if part.endswith("\n") else part
        out.extend([number] * inner.count("\n"))
        at_start = part.endswith("\n")
    if at_start and out:  # the empty line after a final newline: the next file line
        out.append(out[-1] + 1)
    fill = out[-1] if out else (starts[0] if starts else 1)
    return tuple((out + [fill] * count)[:count])


def read_notebook(text: str, name: str) -> Notebook:
    """The notebook in ``text``; raises :class:`CharterError` naming ``name`` when it is
    not JSON or holds no cells."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CharterError(f"{name}: not a valid notebook (JSON: {exc})") from None
    if not isinstance(data, dict):
        raise CharterError(f"{name}: not a valid notebook (no cells)")
    try:
        raw, layout = _raw_cells(data)
    except ValueError:
        raise CharterError(f"{name}: not a valid notebook (no cells)") from None
    positions = _source_lines(text, layout)
    cells: list[Cell] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            continue
        kind = item.get("cell_type")
        stored = item.get("source", item.get("input"))
        source = _source_text(stored)
        if not isinstance(kind, str) or source is None:
            continue
        kind = "markdown" if kind in ("markdown", "heading") else kind
        parts: list[str] = stored if isinstance(stored, list) else [source]
        starts = positions.get(index, [])
        count = source.count("\n") + 1
        lines = _line_map(parts, starts, count) if starts else (1,) * count
        cells.append(Cell(index, kind, source, lines))
    return Notebook(_language(data), tuple(cells), text.count("\n") + 1)
