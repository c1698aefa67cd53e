"""Chunks: the retrievable units of the search index, and the chunkers for prose.

A chunk always knows the exact 1-based line span it came from, so every result can be
cited as ``path#Lstart-Lend (Section)``; structured records additionally carry their own
address (``sot/x.csv#row=3``, ``sot/x.yaml#/deliverables/0``). Markdown is split by heading
with markdown-it-py (a real parser: fenced code containing ``#`` lines is not a heading),
and each section points at its parent section so results can be expanded with context.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


_FRONTMATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*(\n|\Z)", re.DOTALL)
_META_BULLET = re.compile(r"^[-*]\s+(zone|entity|level|version|date|status|title)\s*:\s*(.+)$")


@dataclass
class Chunk:
    """One retrievable unit with its provenance."""

    kind: str
    line_start: int
    line_end: int
    section: str
    title: str
    text: str
    ordinal: int = 0
    parent: int | None = None  # ordinal of the enclosing section's chunk
    address: str = ""  # record address suffix for SoT chunks: "row=3" or "/a/0"
    record: dict[str, str] | None = None
    doc_key: str = ""  # external document id (JSONL corpora)

    def citation(self, path: str) -> str:
        """``path#Lstart-Lend (Section)``, or the record address for SoT records."""
        if self.address:
            return f"{path}#{self.address}"
        if self.doc_key:
            return f"{path}#{self.doc_key}"
        span = f"L{self.line_start}-L{self.line_end}"
        return f"{path}#{span} ({self.section})" if self.section else f"{path}#{span}"


@dataclass
class ParsedDoc:
    """A file turned into chunks plus the metadata found in it."""

    chunks: list[Chunk]
    meta: dict[str, Any] = field(default_factory=dict)
    refs: list[str] = field(default_factory=list)


def approx_tokens(text: str) -> int:
    """A cheap token estimate (words × 1.3) used only to decide where to split."""
    return int(len(text.split()) * 1.3) + 1


def frontmatter(text: str, name: str = "document") -> tuple[dict[str, Any], int]:
    """YAML front matter as a dict and the number of lines it occupies (0 if none).

    Broken YAML is ignored (the file is still prose), but front matter over a safety limit
    (a YAML bomb) raises :class:`~charter.safeyaml.YamlLimitError` so the file is skipped.
    """
    match = _FRONTMATTER.match(text)
    if not match:
        return {}, 0
    import yaml  # the parsers load when a file is chunked, not when a search imports Chunk

    from charter import safeyaml

    try:
        data = safeyaml.load(match.group(1), name=f"{name}: front matter")
    except yaml.YAMLError:
        data = None
    lines = match.group(0).count("\n")
    return (data if isinstance(data, dict) else {}), lines


def meta_bullets(lines: list[str]) -> dict[str, str]:
    """ADR-style metadata bullets near the top (``- zone: internal``), as in the seeds."""
    found: dict[str, str] = {}
    for line in lines[:40]:
        match = _META_BULLET.match(line.strip())
        if match:
            found.setdefault(match.group(1).lower(), match.group(2).strip())
    return found


def _split_long(
    lines: list[str],
    start: int,
    end: int,
    max_tokens: int,
    breaks: frozenset[int] = frozenset(),
) -> list[tuple[int, int]]:
    """Split the 1-based inclusive span [start, end] at blank lines into pieces of at most
    ``max_tokens`` (a single paragraph larger than that stays whole). A block larger than
    that is also split before its ``breaks`` lines (the rows of a Markdown table, the items
    of a list), so a decision log kept as one long table is cited, and embedded, a few
    rows at a time instead of as one chunk whose vector saw only the header."""
    blocks: list[tuple[int, int]] = []
    block_start: int | None = None
    for number in range(start, end + 1):
        if lines[number - 1].strip():
            if block_start is None:
                block_start = number
        elif block_start is not None:
            blocks.append((block_start, number - 1))
            block_start = None
    if block_start is not None:
        blocks.append((block_start, end))
    if not blocks:
        return []
    if breaks:
        blocks = [piece for a, b in blocks for piece in _at_breaks(lines, a, b, max_tokens, breaks)]
    pieces: list[tuple[int, int]] = []
    piece_start, piece_end, budget = blocks[0][0], blocks[0][1], 0
    for a, b in blocks:
        size = sum(approx_tokens(lines[n - 1]) for n in range(a, b + 1))
        if budget and budget + size > max_tokens:
            pieces.append((piece_start, piece_end))
            piece_start, budget = a, 0
        piece_end = b
        budget += size
    pieces.append((piece_start, piece_end))
    return pieces


def _at_breaks(
    lines: list[str], start: int, end: int, max_tokens: int, breaks: frozenset[int]
) -> list[tuple[int, int]]:
    """The block [start, end] cut before each of its ``breaks`` lines when it is larger
    than ``max_tokens``; a block that fits stays one."""
    if sum(approx_tokens(lines[n - 1]) for n in range(start, end + 1)) <= max_tokens:
        return [(start, end)]
    cuts = [n for n in range(start + 1, end + 1) if n in breaks]
    bounds = [start, *cuts, end + 1]
    return [(a, b - 1) for a, b in itertools.pairwise(bounds)]


#: A table row (``| a | b |``), not its delimiter row (``|---|:--:|``).
_TABLE_ROW = re.compile(r"^\s{0,3}\|(?!\s*:?-+:?\s*(\||$))")


def _row_and_item_lines(tokens: list[Any], lines: list[str]) -> frozenset[int]:
    """1-based lines that open a list item or a table row, outside fenced and indented
    code: where an oversized block may be cut."""
    code: set[int] = set()
    starts: set[int] = set()
    for tok in tokens:
        if not tok.map:
            continue
        if tok.type in ("fence", "code_block"):
            code.update(range(tok.map[0] + 1, tok.map[1] + 1))
        elif tok.type == "list_item_open":
            starts.add(tok.map[0] + 1)
    for number, line in enumerate(lines, 1):
        if number not in code and _TABLE_ROW.match(line):
            starts.add(number)
    return frozenset(starts - code)


def _has_text(lines: list[str], start: int, end: int) -> bool:
    return any(lines[n - 1].strip() for n in range(start, end + 1))


def _has_words(lines: list[str], start: int, end: int) -> bool:
    return any(any(ch.isalnum() for ch in lines[n - 1]) for n in range(start, end + 1))


def _span_text(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start - 1 : end])


_LONE_CR = re.compile(r"\r(?!\n)")


@functools.cache
def _markdown() -> MarkdownIt:
    """Block structure only: sections need heading lines and raw heading text, never inline
    markup. Skipping the inline pass makes chunking linear on hostile input (runs of
    ``[a](`` or nested emphasis cost minutes and deep recursion in the inline parser).
    Built on first use: a search process imports :class:`Chunk` but never parses."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("inline")


def chunk_markdown(
    text: str, max_tokens: int = 400, kind: str = "markdown", name: str = "document"
) -> ParsedDoc:
    """Split Markdown into heading sections with exact spans and parent links."""
    # CommonMark ends a line at a lone CR too (old Mac files, a stray CR in a CRLF file):
    # the parser's line numbers count them, so the spans must as well
    text = _LONE_CR.sub("\n", text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    meta, fm_lines = frontmatter(text, name)
    body_lines = [""] * fm_lines + lines[fm_lines:]
    meta = {**meta_bullets(body_lines), **meta}
    tokens = _markdown().parse("\n".join(body_lines))
    headings: list[tuple[int, int, int, str]] = []  # (level, first line, last line, title)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            headings.append((int(tok.tag[1:]), tok.map[0] + 1, tok.map[1], title))
    doc_title = str(meta.get("title", "")) or next((h[3] for h in headings if h[0] == 1), "")
    breaks = _row_and_item_lines(tokens, body_lines)
    chunks: list[Chunk] = []
    total = len(lines)

    def add(start: int, end: int, section: str, title: str, parent: int | None) -> int | None:
        if end < start or not _has_text(body_lines, start, end):
            return None
        if heading_only(start, end):
            return None  # a bare heading is context (carried in the section path), not a unit
        first: int | None = None
        for a, b in _split_long(body_lines, start, end, max_tokens, breaks):
            chunk = Chunk(
                kind=kind,
                line_start=a,
                line_end=b,
                section=section,
                title=title,
                text=_span_text(lines, a, b),
                ordinal=len(chunks),
                parent=parent if first is None else first,
            )
            chunks.append(chunk)
            if first is None:
                first = chunk.ordinal
        return first

    heading_lines = {h[1]: h[2] for h in headings}

    def heading_only(start: int, end: int) -> bool:
        # a body of no word ("??", "…", "-") is a placeholder under its heading, not an
        # answer: it ranked first for the words of the heading alone
        last = heading_lines.get(start)
        return last is not None and not _has_words(body_lines, last + 1, end)

    first_heading = headings[0][1] if headings else total + 1
    add(fm_lines + 1, first_heading - 1, doc_title, doc_title, None)
    stack: list[tuple[int, str, int | None]] = []  # (level, title, chunk ordinal)
    for index, (level, start, _heading_end, title) in enumerate(headings):
        end = headings[index + 1][1] - 1 if index + 1 < len(headings) else total
        while stack and stack[-1][0] >= level:
            stack.pop()
        path = " > ".join([s[1] for s in stack] + [title])
        parent = next((s[2] for s in reversed(stack) if s[2] is not None), None)
        ordinal = add(start, end, path, title, parent)
        stack.append((level, title, ordinal))
    return ParsedDoc(chunks=chunks, meta=meta, refs=find_refs(text))


def chunk_plain(text: str, max_tokens: int = 400, kind: str = "text") -> ParsedDoc:
    """Plain text: paragraphs grouped up to ``max_tokens``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    chunks: list[Chunk] = []
    if lines and _has_text(lines, 1, len(lines)):
        for a, b in _split_long(lines, 1, len(lines), max_tokens):
            chunks.append(Chunk(kind, a, b, "", "", _span_text(lines, a, b), ordinal=len(chunks)))
    return ParsedDoc(chunks=chunks, refs=find_refs(text))


_LINK = re.compile(r"\]\(([^()\[\]\s#]+\.(?:mdx?|markdown|txt|csv|ya?ml|json))(?:#[^)]*)?\)")
_ADR_ID = re.compile(r"\b(ADR[-_ ]?\d{1,5})\b", re.IGNORECASE)
_BARE_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.(?:mdx?|markdown))\b")


def find_refs(text: str) -> list[str]:
    """References to other documents: Markdown links, bare paths, and ADR ids."""
    refs: dict[str, None] = {}
    for match in _LINK.finditer(text):
        refs.setdefault(match.group(1), None)
    for match in _BARE_PATH.finditer(text):
        refs.setdefault(match.group(1), None)
    for match in _ADR_ID.finditer(text):
        digits = re.sub(r"\D", "", match.group(1))
        refs.setdefault(f"ADR-{int(digits):04d}", None)
    return list(refs)
