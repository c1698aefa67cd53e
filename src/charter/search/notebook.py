"""A Jupyter notebook as chunks: its Markdown cells as prose, its code cells as code,
each cited at the ``.ipynb`` lines that hold it, outputs never indexed.

A code cell's section is the notebook heading it sits under plus its cell number
(``Feature engineering > cell 7``): the heading is what the author called the step, and
it is what a task usually names.
"""

from __future__ import annotations

import re
from dataclasses import replace

from charter.notebooks import Cell, read_notebook
from charter.search.chunks import Chunk, ParsedDoc, chunk_markdown, find_refs
from charter.search.code import chunk_code, chunk_python

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _headings(source: str) -> list[tuple[int, str]]:
    """The Markdown headings of one cell, outside code fences."""
    out: list[tuple[int, str]] = []
    fenced = False
    for line in source.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            match = _HEADING.match(line)
            if match:
                out.append((len(match.group(1)), match.group(2)))
    return out


def _cell_chunks(cell: Cell, language: str, max_tokens: int, name: str) -> ParsedDoc:
    if cell.kind == "markdown":
        return chunk_markdown(cell.source, max_tokens, kind="markdown", name=name)
    if cell.kind == "code" and language == "python":
        return chunk_python(cell.source, max_tokens)
    if cell.kind == "code":
        return chunk_code(cell.source, max_tokens)
    return chunk_markdown(cell.source, max_tokens, kind="text", name=name)


def chunk_notebook(text: str, name: str, max_tokens: int = 400) -> ParsedDoc:
    """Chunks of a notebook's cells; raises CharterError when it is not a notebook."""
    notebook = read_notebook(text, name)
    chunks: list[Chunk] = []
    stack: list[tuple[int, str]] = []  # the headings the current cell sits under
    refs: list[str] = []
    for cell in notebook.cells:
        if not cell.source.strip():
            continue
        outer = " > ".join(title for _level, title in stack)
        parsed = _cell_chunks(cell, notebook.language, max_tokens, name)
        base = len(chunks)
        last = len(cell.lines)
        for chunk in parsed.chunks:
            section = chunk.section
            if cell.kind == "code":
                label = f"cell {cell.index + 1}"
                if section and section != "module":
                    label = f"{label} > {section}"
                section = f"{outer} > {label}" if outer else label
            elif not section:
                section = outer
            chunks.append(
                replace(
                    chunk,
                    line_start=cell.lines[min(chunk.line_start, last) - 1],
                    line_end=cell.lines[min(chunk.line_end, last) - 1],
                    section=section,
                    title=chunk.title or section,
                    ordinal=len(chunks),
                    parent=None if chunk.parent is None else chunk.parent + base,
                )
            )
        if cell.kind == "markdown":
            refs.extend(find_refs(cell.source))
            for level, title in _headings(cell.source):
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
    return ParsedDoc(chunks=chunks, refs=list(dict.fromkeys(refs)))
