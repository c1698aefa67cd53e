"""Turn one file's text into chunks according to its kind (the chunker dispatch)."""

from __future__ import annotations

import re

from charter.search.chunks import ParsedDoc, chunk_markdown, chunk_plain
from charter.search.code import chunk_code, chunk_python
from charter.search.records import chunk_csv, chunk_structured, json_text


def parse_file(text: str, kind: str, name: str, max_tokens: int = 400) -> ParsedDoc:
    """Chunks of ``text``; raises CharterError for malformed structured data."""
    if kind in ("markdown", "adr"):
        return chunk_markdown(text, max_tokens, kind=kind, name=name)
    if kind == "csv":
        return chunk_csv(text, name)
    if kind == "yaml":
        return chunk_structured(text, name, kind="yaml")
    if kind == "json":
        text = json_text(text, name)  # JSON with comments (tsconfig.json) included
        # Tabs are JSON whitespace but cannot precede a YAML token. Strict JSON has just
        # refused any raw tab inside a string, so each one is whitespace: a space keeps
        # every line and column.
        return chunk_structured(text.replace("\t", " "), name, kind="json")
    if kind == "notebook":
        from charter.search.notebook import chunk_notebook

        return chunk_notebook(text, name, max_tokens)
    if kind == "python":
        return chunk_python(text, max_tokens)
    if kind == "code":
        return chunk_code(text, max_tokens)
    return chunk_plain(text, max_tokens)


#: Template tags of the engines that render YAML and JSON: ERB (Rails' fixtures and
#: ``database.yml``), Jinja and Go templates (Ansible, Helm), Liquid.
_TEMPLATE_TAG = re.compile(r"<%|\{\{|\{%")


def is_template(text: str) -> bool:
    """Whether structured text holds template tags: a file that only becomes YAML or
    JSON once rendered, so failing to parse it as written is no malformation."""
    return bool(_TEMPLATE_TAG.search(text))


#: Folders of files a test suite reads (generic layout words, as the graph's test paths)
_FIXTURE_DIRS = frozenset(
    [
        "test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "__fixtures__",
        "testdata", "__tests__", "integration_test",
    ]
)  # fmt: skip


def is_fixture(rel_path: str) -> bool:
    """Whether a file sits in a test suite's folder: a malformed manifest there is most
    often malformed on purpose (a test that a parser rejects it), not a mistake to report
    on every index run."""
    return any(part.lower() in _FIXTURE_DIRS for part in rel_path.split("/")[:-1])


def embed_text(section: str, text: str) -> str:
    """What the dense model sees: the section path first, then the chunk."""
    return f"{section}\n{text}" if section else text
