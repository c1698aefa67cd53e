"""Structured source-of-truth files (CSV rows, YAML/JSON records) as addressable chunks.

Each record keeps its canonical field values as strings plus an address a person can
follow: ``sot/engagements.csv#row=14`` (1-based data row, header excluded) or
``sot/context.yaml#/deliverables/3`` (a JSON Pointer). YAML and JSON are read through
PyYAML's composer so every record also knows its exact line span. A malformed file
raises :class:`CharterError` naming the file and line; the indexer reports it and goes on.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from charter import safejson, safeyaml
from charter.errors import CharterError
from charter.search.chunks import Chunk, ParsedDoc

#: Field names that make a good record title, in order of preference.
TITLE_KEYS = ("id", "key", "name", "title", "code", "slug")


def _record_title(fields: dict[str, str]) -> str:
    """The record's own name: ``id``, else a leading ``*_id`` column, else a name field."""
    lowered = {k.lower(): v for k, v in fields.items()}
    if lowered.get("id"):
        return lowered["id"]
    first_key = next(iter(lowered), "")
    if first_key.endswith("_id") and lowered[first_key]:
        return lowered[first_key]
    for key in TITLE_KEYS:
        if lowered.get(key):
            return lowered[key]
    for key, value in lowered.items():
        if key.endswith("_id") and value:
            return value
    return next(iter(fields.values()), "") if fields else ""


def _record_text(context: str, fields: dict[str, str]) -> str:
    body = "\n".join(f"{k}: {v}" for k, v in fields.items())
    return f"{context}\n{body}" if context else body


def csv_records(lines: Iterable[str], name: str = "csv") -> Iterator[CsvRecord]:
    """Data rows of CSV ``lines`` (any iterable: a string's lines or an open file).

    Works row by row, so a large SoT file is streamed rather than read whole; a malformed
    row raises :class:`CharterError` naming the file and line.
    """
    reader = csv.reader(lines, strict=True)
    header: list[str] | None = None
    row_number = 0
    previous_line = 0
    try:
        for row in reader:
            first_line = previous_line + 1
            previous_line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [h.strip() for h in row]
                if len(set(header)) != len(header) or not all(header):
                    raise CharterError(
                        f"malformed CSV {name}: line {first_line}: header has empty or "
                        "duplicate column names"
                    )
                continue
            row_number += 1
            if len(row) != len(header):
                raise CharterError(
                    f"malformed CSV {name}: line {first_line}: expected {len(header)} fields, "
                    f"got {len(row)}"
                )
            fields = {h: cell.strip() for h, cell in zip(header, row, strict=True)}
            yield CsvRecord(row_number, first_line, reader.line_num, fields, _record_title(fields))
    except csv.Error as exc:
        raise CharterError(f"malformed CSV {name}: line {reader.line_num}: {exc}") from None
    except UnicodeDecodeError:
        raise CharterError(f"malformed CSV {name}: not valid UTF-8 text") from None


@dataclass
class CsvRecord:
    """One CSV data row: its 1-based number (header excluded), line span and fields."""

    row: int
    line_start: int
    line_end: int
    fields: dict[str, str]
    title: str


def chunk_csv(text: str, name: str = "csv") -> ParsedDoc:
    """One chunk per data row; the header gives field names."""
    chunks: list[Chunk] = []
    for rec in csv_records(io.StringIO(text), name):
        chunks.append(
            Chunk(
                kind="csv",
                line_start=rec.line_start,
                line_end=rec.line_end,
                section=f"row {rec.row}" + (f" ({rec.title})" if rec.title else ""),
                title=rec.title,
                text=_record_text(name, rec.fields),
                ordinal=len(chunks),
                address=f"row={rec.row}",
                record=rec.fields,
            )
        )
    return ParsedDoc(chunks=chunks)


#: A UTF-16 surrogate: JSON and YAML write characters past U+FFFF as a pair of escapes
#: (``"\\ud83d\\ude00"``), which PyYAML reads as two lone surrogates, not one character.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _scalar(node: yaml.Node) -> str:
    """A scalar's text; escaped surrogate pairs become the character they write (a lone
    one, U+FFFD): a lone surrogate cannot be encoded as UTF-8, and the first hash or
    store of the chunk failed, after minutes of embedding, on a test fixture's emoji."""
    value = node.value if isinstance(node, yaml.ScalarNode) else ""
    text = str(value).strip()
    if _SURROGATE.search(text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _pointer_part(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def chunk_structured(text: str, name: str = "yaml", kind: str = "yaml") -> ParsedDoc:
    """Records of a YAML or JSON document (or of each document of a YAML stream).

    A record is any mapping that has at least one scalar value (its scalar fields become
    the record); lists of scalars are joined with ", ". Nested mappings and lists of
    mappings become records of their own at their JSON Pointer.
    """
    try:
        # a stream of documents (``---`` between them) is read whole: one document's
        # records keep their JSON Pointer, the second's start ``doc=2``, and so on
        if kind == "yaml":
            roots = safeyaml.compose_all(text, name=name)
        else:
            root = safeyaml.compose(text, name=name)
            roots = [root] if root is not None else []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CharterError(f"malformed {kind.upper()} {name}: {where}{problem}") from None
    chunks: list[Chunk] = []
    if not roots:
        return ParsedDoc(chunks=chunks)

    def visit(node: yaml.Node, pointer: str, context: str, parent: int | None) -> None:
        if isinstance(node, yaml.MappingNode):
            fields: dict[str, str] = {}
            children: list[tuple[yaml.Node, str, str]] = []
            for key_node, value_node in node.value:
                key = _scalar(key_node)
                if isinstance(value_node, yaml.ScalarNode):
                    fields[key] = _scalar(value_node)
                elif isinstance(value_node, yaml.SequenceNode) and all(
                    isinstance(v, yaml.ScalarNode) for v in value_node.value
                ):
                    fields[key] = ", ".join(_scalar(v) for v in value_node.value)
                else:
                    children.append(
                        (value_node, f"{pointer}/{_pointer_part(key)}", _join(context, key))
                    )
            me = parent
            if fields:
                title = _record_title(fields)
                chunks.append(
                    Chunk(
                        kind=kind,
                        line_start=node.start_mark.line + 1,
                        line_end=_end_line(node),
                        section=context or "(root)",
                        title=title,
                        text=_record_text(context, fields),
                        ordinal=len(chunks),
                        parent=parent,
                        address=pointer or "/",
                        record=fields,
                    )
                )
                me = chunks[-1].ordinal
            for child, child_pointer, child_context in children:
                visit(child, child_pointer, child_context, me)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                visit(item, f"{pointer}/{index}", f"{context}[{index}]", parent)

    for number, root in enumerate(roots, 1):
        visit(root, "" if number == 1 else f"doc={number}", "", None)
    lines = text.split("\n")
    for chunk in chunks:  # block scalars' end marks sit past their trailing blank lines
        while chunk.line_end > chunk.line_start and not lines[chunk.line_end - 1].strip():
            chunk.line_end -= 1
    return ParsedDoc(chunks=chunks)


def _join(context: str, key: str) -> str:
    return f"{context}.{key}" if context else key


def _end_line(node: yaml.Node) -> int:
    """1-based last line of a node's own content.

    PyYAML's end mark of a block collection points at the next sibling, so the end is
    taken from the last scalar inside it (scalar and flow-collection marks are exact).
    """
    if isinstance(node, yaml.MappingNode) and node.value and not node.flow_style:
        return _end_line(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and node.value and not node.flow_style:
        return _end_line(node.value[-1])
    end = node.end_mark
    if end.column == 0 and end.line > node.start_mark.line:
        return int(end.line)
    return int(end.line) + 1


def parse_json_strict(text: str, name: str) -> Any:
    """Validate JSON syntax first so errors name JSON's own line and column."""
    try:
        return safejson.loads(text, name=name)
    except json.JSONDecodeError as exc:
        raise CharterError(f"malformed JSON {name}: line {exc.lineno}: {exc.msg}") from None


def json_text(text: str, name: str) -> str:
    """``text`` as strict JSON with the same lines and columns.

    Config files named ``.json`` are often JSON with comments (``tsconfig.json``,
    ``.vscode/settings.json``, ``devcontainer.json``: ``//`` and ``/* */`` comments and
    trailing commas, which their tools accept). When strict JSON fails and blanking those
    gives valid JSON, that is the text; otherwise the strict error is raised.
    """
    try:
        parse_json_strict(text, name)
        return text
    except CharterError as strict:
        cleaned = _blank_jsonc(text)
        if cleaned == text:
            raise
        try:
            parse_json_strict(cleaned, name)
        except CharterError:
            raise strict from None
        return cleaned


def _blank_jsonc(text: str) -> str:
    """Comments and trailing commas outside strings turned to spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    last_comma = -1  # index of a comma with only blanks and comments after it so far
    while i < n:
        ch = text[i]
        if ch == '"':
            last_comma = -1
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
            i = end
            continue
        if ch == ",":
            last_comma = i
        elif ch in "}]" and last_comma >= 0:
            out[last_comma] = " "
            last_comma = -1
        elif not ch.isspace():
            last_comma = -1
        i += 1
    return "".join(out)
