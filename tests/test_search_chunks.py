"""Chunk spans are exact: every chunk's text is exactly its cited lines of the file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from charter.config import Project
from charter.errors import CharterError
from charter.search.chunks import chunk_markdown, find_refs
from charter.search.code import chunk_python
from charter.search.parse import parse_file
from charter.search.records import chunk_csv, chunk_structured

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo-project"


def _lines(text: str, start: int, end: int) -> str:
    return "\n".join(text.split("\n")[start - 1 : end])


@pytest.mark.parametrize(
    "rel",
    sorted(
        p.relative_to(DEMO).as_posix()
        for p in DEMO.rglob("*.md")
        if "docs" in p.parts or "decisions" in p.parts
    ),
)
def test_markdown_spans_match_the_file(rel: str) -> None:
    text = (DEMO / rel).read_text(encoding="utf-8")
    parsed = chunk_markdown(text)
    assert parsed.chunks, rel
    for chunk in parsed.chunks:
        assert chunk.text == _lines(text, chunk.line_start, chunk.line_end)
        assert chunk.text.strip()
        assert 1 <= chunk.line_start <= chunk.line_end <= len(text.split("\n"))
    starts = [c.line_start for c in parsed.chunks]
    assert starts == sorted(starts)


def test_markdown_sections_parents_and_fences() -> None:
    text = (
        "---\nzone: restricted\ntitle: Guide\n---\n"  # lines 1-4
        "# Guide\n\nIntro text.\n\n"  # 5-8
        "## Setup\n\nRun it.\n\n```bash\n# not a heading\nmake\n```\n\n"  # 9-17
        "### Linux\n\nUse apt.\n\n"  # 18-21
        "## Usage\n\nCall it.\n"  # 22-24
    )
    parsed = chunk_markdown(text)
    assert parsed.meta["zone"] == "restricted"
    by_section = {c.section: c for c in parsed.chunks}
    assert set(by_section) == {"Guide", "Guide > Setup", "Guide > Setup > Linux", "Guide > Usage"}
    setup = by_section["Guide > Setup"]
    assert (setup.line_start, setup.line_end) == (9, 16)
    assert "# not a heading" in setup.text  # fenced code stays inside its section
    linux = by_section["Guide > Setup > Linux"]
    assert linux.parent == setup.ordinal
    assert by_section["Guide > Usage"].parent == by_section["Guide"].ordinal
    assert by_section["Guide"].line_start == 5  # front matter is not a chunk
    assert setup.citation("docs/guide.md") == "docs/guide.md#L9-L16 (Guide > Setup)"


def test_a_section_whose_body_holds_no_word_is_no_chunk() -> None:
    """A README's unwritten sections ("### How to set up the state store?" over "??")
    were chunks of their heading alone: the planning search's first answer to a question
    sharing a word with the heading."""
    text = (
        "# Setup\n\n## How to set up the state store?\n\n??\n\n"
        "## How to release a component?\n\n\u2026\n\n"
        "## How to run the tests?\n\nRun `pytest` in the component folder.\n"
    )
    sections = [c.section for c in chunk_markdown(text).chunks]
    assert sections == ["Setup > How to run the tests?"]


def test_long_sections_split_at_paragraphs_with_exact_spans() -> None:
    paragraphs = [" ".join(f"word{p}x{i}" for i in range(120)) for p in range(6)]
    text = "# Big\n\n" + "\n\n".join(paragraphs) + "\n"
    parsed = chunk_markdown(text, max_tokens=200)
    assert len(parsed.chunks) >= 3
    for chunk in parsed.chunks:
        assert chunk.text == _lines(text, chunk.line_start, chunk.line_end)
        assert chunk.section == "Big"


def test_a_long_table_or_list_splits_between_rows_with_exact_spans() -> None:
    """A decision log kept as one table (no blank lines) was one chunk of every row."""
    rows = [f"| {n} | " + " ".join(f"why{n}x{i}" for i in range(60)) + " |" for n in range(8)]
    table = "| Issue | Decision |\n| --- | --- |\n" + "\n".join(rows)
    items = "\n".join("- " + " ".join(f"item{n}x{i}" for i in range(60)) for n in range(6))
    fence = "```\n" + "\n".join("| not | a row |" for _ in range(80)) + "\n```"
    text = f"# Log\n\n{table}\n\n## Notes\n\n{items}\n\n## Code\n\n{fence}\n"
    chunks = chunk_markdown(text, max_tokens=200).chunks
    for chunk in chunks:
        assert chunk.text == _lines(text, chunk.line_start, chunk.line_end)
    log = [c for c in chunks if c.section == "Log"]
    assert len(log) >= 3
    assert log[0].text.startswith("# Log\n\n| Issue | Decision |\n| --- | --- |\n| 0 |")
    assert all(c.text.startswith("| ") for c in log[1:])
    assert len([c for c in chunks if c.section == "Log > Notes"]) >= 2
    code = [c.text for c in chunks if c.section == "Log > Code"]
    assert any(t.endswith(fence) for t in code)  # fenced: never cut at its lines
    small = chunk_markdown("# T\n\n| a | b |\n| - | - |\n| 1 | 2 |\n").chunks
    assert [(c.line_start, c.line_end) for c in small] == [(1, 5)]


def test_csv_rows_have_addresses_and_spans() -> None:
    text = (DEMO / "sot" / "deliverables.csv").read_text(encoding="utf-8")
    parsed = chunk_csv(text, "sot/deliverables.csv")
    assert [c.address for c in parsed.chunks][:2] == ["row=1", "row=2"]
    first = parsed.chunks[0]
    assert first.record is not None and first.record["deliverable_id"] == "DEL-101"
    assert _lines(text, first.line_start, first.line_end).startswith("DEL-101,")
    assert first.citation("sot/deliverables.csv") == "sot/deliverables.csv#row=1"


def test_csv_multiline_cell_span() -> None:
    text = 'id,note\nA-1,"two\nlines"\nA-2,one\n'
    rows = chunk_csv(text).chunks
    assert [(c.line_start, c.line_end) for c in rows] == [(2, 3), (4, 4)]


def test_yaml_records_have_pointers_and_spans() -> None:
    text = (DEMO / "sot" / "context.yaml").read_text(encoding="utf-8")
    parsed = chunk_structured(text, "sot/context.yaml")
    by_address = {c.address: c for c in parsed.chunks}
    assert {"/project", "/tenants/0", "/tenants/1", "/sla"} <= set(by_address)
    tenant = by_address["/tenants/1"]
    assert tenant.record == {
        "tenant_id": "TEN-4411",
        "name": "Acme Logistics UK",
        "plan": "Starter",
        "events_per_month": "600000",
    }
    span = _lines(text, tenant.line_start, tenant.line_end)
    assert span.strip().startswith("- tenant_id: TEN-4411")
    assert span.rstrip().endswith("events_per_month: 600000")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a,b\n1,2,3\n", "line 2: expected 2 fields, got 3"),
        ('a,b\n"1,2\n', "malformed CSV"),
    ],
)
def test_malformed_csv_names_the_line(text: str, message: str) -> None:
    with pytest.raises(CharterError, match=message):
        chunk_csv(text, "bad.csv")


def test_malformed_yaml_names_the_line() -> None:
    with pytest.raises(CharterError, match=r"malformed YAML bad.yaml: line 4"):
        chunk_structured("a: 1\nb:\n  - [unclosed\nc: 2\n", "bad.yaml")


def test_python_symbols_are_chunks() -> None:
    text = '"""Doc."""\nimport os\n\n\n@dec\ndef f(x):\n    return x\n\n\nclass C:\n    y = 1\n'
    parsed = chunk_python(text)
    spans = {c.section: (c.line_start, c.line_end) for c in parsed.chunks}
    assert spans == {"module": (1, 2), "def f": (5, 7), "class C": (10, 11)}


def test_references_between_documents() -> None:
    refs = find_refs("See ADR-2 and [the brief](../docs/brief.md#x), also decisions/adr-7.md.")
    assert refs == ["../docs/brief.md", "decisions/adr-7.md", "ADR-0002", "ADR-0007"]


def test_tab_indented_json_is_records_not_malformed() -> None:
    """Tabs are JSON whitespace (package.json, tsconfig.json), though YAML refuses them."""
    text = '{\n\t"name": "app",\n\t"scripts": {\n\t\t"dev": "vite dev",\n\t\t"x": "a\\tb"\n\t}\n}\n'
    parsed = parse_file(text, "json", "package.json")
    records = {c.address: (c.line_start, c.line_end, c.record) for c in parsed.chunks}
    assert records == {
        "/": (1, 7, {"name": "app"}),
        "/scripts": (3, 6, {"dev": "vite dev", "x": "a\tb"}),
    }


def test_json_with_comments_is_records_not_malformed(tmp_path: Path) -> None:
    """tsconfig.json, .vscode/settings.json, devcontainer.json are JSON with comments and
    trailing commas (``tsc --init`` writes them): read as records with their own lines,
    not skipped as malformed; a URL or ``/*`` inside a string stays as written."""
    path = tmp_path / "tsconfig.json"
    path.write_text(
        "{\n"
        "  // editor experience only\n"
        '  "extends": "@docusaurus/tsconfig",\n'
        '  "compilerOptions": {\n'
        '    "baseUrl": ".", /* resolve from here */\n'
        '    "paths": {"@site/*": ["./*"]},\n'
        '    "homepage": "https://example.org/docs",\n'
        "  },\n"
        "}\n",
        encoding="utf-8",
    )
    parsed = parse_file(path.read_text(encoding="utf-8"), "json", "tsconfig.json")
    records = {c.address: (c.line_start, c.line_end, c.record) for c in parsed.chunks}
    assert records["/"] == (1, 9, {"extends": "@docusaurus/tsconfig"})
    assert records["/compilerOptions"][:2] == (4, 8)
    assert records["/compilerOptions"][2] == {
        "baseUrl": ".",
        "homepage": "https://example.org/docs",
    }
    assert records["/compilerOptions/paths"][2] == {"@site/*": "./*"}
    with pytest.raises(CharterError, match=r"malformed JSON bad.json: line 2"):
        parse_file('{"a": 1,\n  "b": }\n', "json", "bad.json")


def test_a_yaml_stream_of_documents_is_records_not_malformed() -> None:
    # "---" between documents is valid YAML (Kubernetes manifests, UI test flows): it was
    # reported malformed and left out of the index
    text = (
        "appId: org.example.mail\n---\n# open the inbox\n- tapOn:\n    id: inbox\n"
        "- assertVisible: Inbox\n---\nkind: Service\nmetadata:\n  name: api\n"
    )
    doc = chunk_structured(text, "flows/open_inbox.yml")
    got = {(c.address, c.line_start, c.line_end) for c in doc.chunks}
    assert ("/", 1, 1) in got  # the first document keeps its plain pointers
    assert ("doc=2/0/tapOn", 5, 5) in got
    assert ("doc=2/1", 6, 6) in got
    assert ("doc=3", 8, 10) in got and ("doc=3/metadata", 10, 10) in got
    lines = text.split("\n")
    assert "inbox" in lines[5 - 1] and "api" in lines[10 - 1]
    assert len(parse_file(text, "yaml", "flows/open_inbox.yml").chunks) == len(doc.chunks)


def test_a_question_mark_inside_a_flow_mapping_value_is_part_of_it() -> None:
    # YAML 1.2 ends a plain scalar in a flow collection only at ",[]{}": a firewall's
    # access rule with a regular expression in a flow mapping was "malformed YAML" (line
    # 3: expected ',' or '}', but got '?') and the whole config file left out of search
    text = (
        "access_control:\n"
        "    - { path: ^/api/login$, roles: PUBLIC_ACCESS }\n"
        "    - { path: ^/api/docs(\\..+)?$, roles: PUBLIC_ACCESS }\n"
        "    - { path: ^/(en|fr)?/admin, roles: ROLE_ADMIN }\n"
        "flags: [a?b, c]\n"
    )
    doc = chunk_structured(text, "config/packages/security.yaml")
    records = {c.address: c.record for c in doc.chunks}
    assert records["/access_control/1"] == {"path": "^/api/docs(\\..+)?$", "roles": "PUBLIC_ACCESS"}
    assert records["/access_control/2"]["path"] == "^/(en|fr)?/admin"
    assert records["/"]["flags"] == "a?b, c"
    # an explicit key still opens with "?", and a "?" ends no plain scalar outside flow
    from charter import safeyaml

    assert safeyaml.load("{ ? a : b }", name="k.yaml") == {"a": "b"}
    assert safeyaml.load("q: what? # c\n", name="q.yaml") == {"q": "what?"}


def test_a_yaml_bomb_in_a_later_document_is_still_refused() -> None:
    from charter import safeyaml
    from tests.test_hostile_input import billion_laughs

    with pytest.raises(safeyaml.YamlLimitError, match="YAML bomb"):
        chunk_structured("name: ok\n---\n" + billion_laughs(), "evil.yaml")


def test_json_and_yaml_escapes_of_characters_past_the_bmp_are_read_as_those_characters(
    tmp_path: Path,
) -> None:
    """A Rust workspace's conformance fixture writes emoji as JSON surrogate-pair escapes
    (``"\\ud83d\\ude00"``); read through YAML each pair was two lone surrogates, and
    `charter index` died after five minutes of embedding with "surrogates not allowed"."""
    from charter.embed.registry import get_embedder
    from charter.search.indexer import Indexer

    spec = (
        '{"unicode_options": ["\\ud83d\\ude00\\ud83d\\udca9", "\\u4e16\\u754c"], '
        '"lone": "a \\udc00 b"}\n'
    )
    text = chunk_structured(spec, "ops.json", "json").chunks[0].text
    assert "😀💩, 世界" in text and "a \ufffd b" in text
    assert "😀" in chunk_structured('x: "\\ud83d\\ude00"\n', "x.yaml", "yaml").chunks[0].text
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "spec").mkdir()
    (root / "spec" / "ops.json").write_text(spec, encoding="utf-8")
    report = Indexer(Project.load(root), get_embedder("hash")).run()
    assert list(report.indexed) == ["spec/ops.json"] and not report.errors


def test_a_file_whose_lines_end_in_a_lone_cr_is_chunked_at_its_lines() -> None:
    """A rule file saved with old-Mac line endings (a lone CR) stopped `charter index`
    with "IndexError: list index out of range": the Markdown parser ends a line at a lone
    CR, the spans counted only LF. Each CR-ended line is a line of the spans, as in an
    editor; CRLF files are cut as before."""
    text = "# Rules\r\r## Style\r\r- Use 4-space indentation.\r- Never infer latches.\r"
    chunks = chunk_markdown(text).chunks
    assert [(c.section, c.line_start, c.line_end) for c in chunks] == [("Rules > Style", 3, 6)]
    assert chunks[0].text == "## Style\n\n- Use 4-space indentation.\n- Never infer latches."
    mixed = "# Notes\r\n\r\nfirst\r\n## Later\rbody\r\n"
    assert [(c.section, c.line_start, c.line_end) for c in chunk_markdown(mixed).chunks] == [
        ("Notes", 1, 3),
        ("Notes > Later", 4, 5),
    ]
