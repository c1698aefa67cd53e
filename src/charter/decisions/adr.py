"""Read the decision an Architecture Decision Record already records (MADR and Nygard).

``charter decisions import --adr PATH…`` turns each *accepted* ADR whose outcome names
one of its considered options into an intake item (question, choices, answer); the
store's import path then binds it like any other (``must`` by default: an accepted
architecture decision is one downstream work must follow).

The file is parsed with markdown-it (as :mod:`charter.rules.blocks` does) and sections
are found by heading text, from a small vocabulary of the two formats' own section names
(generic ADR vocabulary, not any project's wording):

- title: the first ``#`` heading, else front matter ``title``; a leading number or
  ``ADR-NNNN:`` is dropped;
- status: front matter ``status``, a ``Status`` section, or a ``Status: …`` line
  (MADR 2's ``* Status: accepted`` bullet, ``**Status**: Accepted``, one line of a
  ``Date: …`` / ``Status: …`` header);
- options: the first list under ``Considered Options`` / ``Options Considered`` /
  ``Alternatives Considered`` / ``Considered Alternatives`` / ``Options`` /
  ``Alternatives``; an item's label is its bold lead, else its text before ``: ``, without a
  leading ``Option #2:`` and, for prose, up to its first sentence end or reason;
  without such a list, two or more headings of one level that number the options
  (``### Option 1: SQLite (✅ Chosen)``), each label without its mark;
- decision: ``Decision Outcome`` (MADR) or ``Decision`` (Nygard). A paragraph or bullet
  ``Chosen option: …`` names the option by number (``option 2``), by quoted or bold label,
  or by the text before ``because``; without it the section must name exactly one
  option's label, or exactly one option of the list is marked as taken (``✅ Chosen``).

A decision record may also be one YAML mapping (``.yaml``/``.yml``): its ``title`` and
``decision`` fields, an optional ``status``, and the options it turned down under
``rejected_alternatives`` (also ``rejected_options``, ``alternatives``, ``alternatives
considered``; each a string or a mapping whose ``alternative`` / ``option`` / ``name`` /
``title`` / ``label`` names it). The choice taken is its ``chosen_option`` (or
``chosen``) when given, else its title, which in such records states the decision ("pnpm
as package manager"); a record with no status that names the alternatives it rejected
records a decision taken.

A file may hold several records (an arc42 "Architecture Decisions" chapter): two or more
headings of one level whose sections each have a status and a decision are read as one
record each. A field written as a bold label alone on its line (``**Decision**:``) is a
heading; a title "X instead of Y or Z" names the alternatives it rejected.

Nothing is guessed: an ADR whose decision names no single option is reported
``unreadable`` with the reason, and the user writes an intake form for it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.errors import CharterError
from charter.fileio import read_text
from charter.stopwords import ENGLISH

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

ADR_SUFFIXES = (".md", ".markdown", ".mdx")
#: Decision records written as one YAML mapping each (see the module docstring).
RECORD_SUFFIXES = (".yaml", ".yml")

#: Section names of the two formats, lower-cased (a trailing colon is ignored).
STATUS_HEADINGS = frozenset({"status"})
OPTIONS_HEADINGS = frozenset(
    {
        "considered options",
        "options considered",
        "alternatives considered",
        "considered alternatives",
        "options",
        "alternatives",
    }
)
DECISION_HEADINGS = frozenset({"decision outcome", "decision"})
#: Sections that list only the alternatives a decision turned down.
REJECTED_HEADINGS = frozenset(
    {"rejected alternatives", "alternatives rejected", "rejected options", "options rejected"}
)

#: The note of a record that states no status and no decision (an RFC, a design note).
NO_DECISION_NOTE = "no Status and no Decision section: no choice to bind (searched)"

#: Lifecycle words of ADR statuses; any of the first three wins over ``accepted`` (an
#: "Accepted, superseded by 0007" ADR never binds).
_RETIRED = ("superseded", "deprecated", "rejected")
#: Statuses of a decision in force: accepted, and the words for an accepted one carried
#: further ("Implemented; graduated from RFC 0009", "Approved", "✅ Active design")
_IN_FORCE = ("accepted", "approved", "adopted", "implemented", "active")
_TITLE_NUMBER = re.compile(r"^(?:adr)?[\s-]*\d+\s*[.:\-–—)]?\s*", re.I)
_FIELD = re.compile(r"^\s*(?P<key>status|chosen option)\s*:\s*(?P<value>.*)$", re.I | re.S)
_OPTION_NUMBER = re.compile(r"^(?:option\s*)?(?P<n>\d+)\b\s*[,:.)-]?\s*", re.I)
_TAG_LINE = re.compile(r"^\s*</?[A-Za-z][^>]*>\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
#: A template's placeholder left in place of a title: ``{title}``, ``<title>``, ``[title]``.
_PLACEHOLDER = re.compile(r"^\s*(?:\{[^{}]*\}|<[^<>]*>|\[[^\[\]]*\])\s*$")

#: A quoted label; the other kind of quote may nest inside it ("Include 'Consulted' of RACI").
_QUOTED = re.compile(
    r"^(?:\"(?P<dq>[^\"]+)\"|“(?P<cq>[^”]+)”|'(?P<sq>[^']+)'(?!\w)|‘(?P<sc>[^’]+)’|«(?P<gq>[^»]+)»)"
)
#: An option item that marks itself as the one taken: a check mark ("**Files** ✅ Chosen",
#: "Direct calls ✔") or the word chosen / selected set apart ("(chosen)", "— selected").
_CHOSEN_MARK = re.compile(
    r"[✅✔✓☑]\ufe0f?(?:\s*(?:chosen|selected)\b)?"
    r"|[(\[]\s*(?:chosen|selected)\s*[)\]]"
    r"|\s[—–-]\s*(?:chosen|selected)\s*$",
    re.I,
)


@dataclass
class AdrReading:
    """What was read from one ADR file."""

    path: Path
    outcome: str  # "accepted" (an intake item), "skipped" or "unreadable"
    note: str = ""
    status: str | None = None
    line: int = 0  # 1-based line of the decision (the citation)
    item: dict[str, Any] = field(default_factory=dict)  # the intake item, when accepted
    #: the record's own id when the file holds several records (else the file's id)
    key: str = ""

    @property
    def record_id(self) -> str:
        """The id this record binds under, bound or not (the file's, or its own)."""
        return self.key or adr_id(self.path)

    @property
    def id(self) -> str | None:
        value = self.item.get("id")
        return str(value) if value else None

    @property
    def answer(self) -> str | None:
        value = self.item.get("answer")
        return str(value) if value else None

    @property
    def excluded(self) -> list[str]:
        return [c for c in self.item.get("choices", []) if c != self.answer]


def adr_files(paths: list[Path]) -> list[Path]:
    """The Markdown files named, and those under the folders named (sorted, no hidden)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = [
                p
                for p in sorted(path.rglob("*"))
                if p.is_file()
                and p.suffix.lower() in ADR_SUFFIXES + RECORD_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            ]
            if not found:
                raise CharterError(
                    f"{path}: no Markdown files (.md, .markdown, .mdx) or YAML decision "
                    "records (.yaml, .yml)"
                )
            out.extend(found)
        elif path.is_file():
            out.append(path)
        else:
            raise CharterError(f"{path}: no such file or folder")
    seen: set[Path] = set()
    unique = []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def adr_id(path: Path) -> str:
    """A stable id from the file name: ``0004-message-broker.md`` → ``ADR-0004-message-broker``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", path.stem).strip("-.") or "adr"
    stem = re.sub(r"^adr[-_]+", "", stem, flags=re.I) or stem
    return f"ADR-{stem}"


# -- Markdown ---------------------------------------------------------------------------


def _plain(node: SyntaxTreeNode) -> str:
    """The visible text of an inline subtree (markup and inline HTML dropped)."""
    if node.type in ("text", "code_inline"):
        return node.content
    if node.type in ("softbreak", "hardbreak"):
        return " "
    if node.type == "html_inline":
        return ""
    return "".join(_plain(child) for child in node.children)


def _inline(block: SyntaxTreeNode) -> SyntaxTreeNode | None:
    for child in block.children:
        if child.type == "inline":
            return child
    return None


def _block_text(block: SyntaxTreeNode) -> str:
    """Plain text of a paragraph or heading (or of a list item's first paragraph)."""
    if block.type == "list_item":
        paragraphs = [c for c in block.children if c.type == "paragraph"]
        return _block_text(paragraphs[0]) if paragraphs else ""
    inline = _inline(block)
    text = _plain(inline) if inline is not None else ""
    text = re.sub(r"\{/\*.*?\*/\}", "", text)  # MDX comments
    return " ".join(text.split())


def _block_lines(block: SyntaxTreeNode) -> list[str]:
    """The lines of a paragraph (or a list item's first paragraph), each as plain text: a
    header of ``Key: value`` lines written without blank lines between them ("Date: …" over
    "Status: Accepted") is one paragraph of several fields."""
    if block.type == "list_item":
        paragraphs = [c for c in block.children if c.type == "paragraph"]
        return _block_lines(paragraphs[0]) if paragraphs else []
    inline = _inline(block)
    lines = [""]
    for child in inline.children if inline is not None else []:
        if child.type in ("softbreak", "hardbreak"):
            lines.append("")
        else:
            lines[-1] += _plain(child)
    return [" ".join(line.split()) for line in lines if line.strip()]


def _heading_key(node: SyntaxTreeNode) -> str:
    return re.sub(r"^[\d.\s]+", "", _block_text(node)).rstrip(":").strip().lower()


@dataclass
class _Section:
    heading: SyntaxTreeNode
    blocks: list[SyntaxTreeNode]


def _sections(nodes: list[SyntaxTreeNode]) -> list[_Section]:
    """Each heading with the blocks up to the next heading of the same or a higher level
    (so a ``### Consequences`` stays inside ``## Decision Outcome``)."""
    out: list[_Section] = []
    for index, node in enumerate(nodes):
        if node.type != "heading":
            continue
        level = int(node.tag[1])
        blocks = []
        for later in nodes[index + 1 :]:
            if later.type == "heading" and int(later.tag[1]) <= level:
                break
            blocks.append(later)
        out.append(_Section(node, blocks))
    return out


def _find(sections: list[_Section], names: frozenset[str]) -> _Section | None:
    for section in sections:
        if _heading_key(section.heading) in names:
            return section
    for section in sections:
        # a section named, then titled: "## Decision: Explicit Resolution Policy"
        named = _TITLED.match(_heading_key(section.heading))
        if named and named.group("name") in names:
            return section
    return None


#: A heading that names its section, then gives it a title after a colon or a dash.
_TITLED = re.compile(r"^(?P<name>[^:—–]+?)\s*(?::|\s[—–-])\s+\S")


def _direct(section: _Section) -> list[SyntaxTreeNode]:
    """The blocks of ``section`` before its first sub-heading: a list there is the
    section's own, not one inside a sub-section (an option's "Pros"/"Cons" bullets)."""
    out = []
    for block in section.blocks:
        if block.type == "heading":
            break
        out.append(block)
    return out


def _items_and_paragraphs(blocks: list[SyntaxTreeNode]) -> list[SyntaxTreeNode]:
    """Paragraphs and list items in document order (nested lists flattened)."""
    out: list[SyntaxTreeNode] = []
    for block in blocks:
        if block.type == "paragraph":
            out.append(block)
        elif block.type in ("bullet_list", "ordered_list"):
            for item in block.children:
                out.append(item)
                out.extend(
                    _items_and_paragraphs(
                        [c for c in item.children if c.type in ("bullet_list", "ordered_list")]
                    )
                )
        elif block.type == "blockquote":
            out.extend(_items_and_paragraphs(block.children))
        elif block.type == "html_block":
            # an MDX component (<Info>…</Info>) or HTML wrapper around Markdown lines:
            # its tag-only lines dropped, the rest is read as Markdown
            from charter.rules.blocks import _tree

            content = _HTML_COMMENT.sub("", block.content)
            inner = "\n".join(line for line in content.split("\n") if not _TAG_LINE.match(line))
            if inner.strip() and inner != block.content:
                # re-read only what dropping the tags changed: a comment or a block the
                # parser reads as HTML again would otherwise be read forever
                out.extend(_items_and_paragraphs(list(_tree(inner).children)))
    return out


def _option_label(item: SyntaxTreeNode) -> str:
    """An option's label: its bold lead, else its text before ``: ``, else its text."""
    paragraphs = [c for c in item.children if c.type == "paragraph"]
    inline = _inline(paragraphs[0]) if paragraphs else None
    if inline is None:
        return ""
    children = [c for c in inline.children if not (c.type == "text" and not c.content.strip())]
    if children and children[0].type == "strong" and not _LIST_NUMBER.match(_plain(children[0])):
        label = _plain(children[0])
    else:
        # "Option #2: JSOs per component": the number orders the list, the rest names it
        text = _LIST_NUMBER.sub("", _block_text(item), count=1)
        # "MADR 4.0.0 – The Markdown Architectural Decision Records", "NNNN-title.md - format
        # used by adr-tools": a name, a spaced dash, then what it is or why
        text = _DESCRIBED.split(text, maxsplit=1)[0]
        # "Other templates listed at https://github.com/…": the link points at the option;
        # its words would name every link, and the option's id would keep them
        text = _LINK.sub("", text).strip() or text
        label = text.split(": ", 1)[0] if ": " in text else text
        # an item written as a sentence or two ("Leave as is and do not support this use
        # case as it may make the behaviour seem inconsistent. Once set …"): its first
        # clause names the option; the reason and the rest would match every text that
        # names the product
        label = _first_clause(label)
    label = _CHOSEN_MARK.split(label, maxsplit=1)[0] if _CHOSEN_MARK.search(label) else label
    return _unwrap(label)


def _bold_lead(item: SyntaxTreeNode) -> bool:
    """A list item that opens with bold words (the option's name)."""
    paragraphs = [c for c in item.children if c.type == "paragraph"]
    inline = _inline(paragraphs[0]) if paragraphs else None
    children = [
        c for c in (inline.children if inline else []) if c.type != "text" or c.content.strip()
    ]
    return bool(children) and children[0].type == "strong"


def _unwrap(label: str) -> str:
    """A label without its end punctuation, and without the quotes around it only when
    they wrap all of it (``Include in section "More Information"`` keeps its quotes)."""
    label = label.strip().strip(" ,.;:").strip()
    while len(label) > 1 and label[0] in _OPENING and label[-1] == _OPENING[label[0]]:
        label = label[1:-1].strip()
    if not any(q in label[1:-1] for q in _QUOTES):
        label = label.strip(_QUOTES)  # a stray quote at an end, none inside
    return label.strip(" ,.;:").strip()


_OPENING = {'"': '"', "“": "”", "'": "'", "`": "`"}
_QUOTES = "\"“”'`"
#: A bare link in an option's text, with the word that introduces it ("see", "at").
_LINK = re.compile(
    r"\s*\(?(?:\b(?:see|at|in|on|from|via)\s+)?<?\b(?:https?://|www\.)[^\s)>]+>?\)?", re.I
)
#: A spaced dash after an option's name, before what it is ("Formless – No conventions").
_DESCRIBED = re.compile(r"(?<=[^\s\d])\s+[–—-]\s+(?=[^\s\d])")
#: An example set in an option's name ("Assign an identifier, e.g., `[A] Use gradle`",
#: "Add the number (e.g., \"# 2. Title\")"): it shows the option, it does not name it.
_EXAMPLE = re.compile(r"[\s,]*\(?\s*\b(?:e\.\s?g|i\.\s?e)\.?,?\s.*$", re.I | re.S)


#: "Option #2:", "Option 1 -", "Option 1.1:" leading a list item: its number, not its name.
_LIST_NUMBER = re.compile(r"^\s*option\s*#?\s*\d+(?:\.\d+)*\s*(?:[:.)–—]|\s-)\s*", re.I)
#: Where an option written as prose stops naming it: the end of its first sentence, or a
#: reason ("…, because", "… as it may", "… since").
_SENTENCE_END = re.compile(r"(?<=[\w)`'\"])\.\s+(?=[A-Z])")
_REASON = re.compile(r",?\s+(?:because|as it|as this|since)\s", re.I)


def _first_clause(label: str) -> str:
    """The words of a prose option that name it, when a few words of its own come first."""
    example = _EXAMPLE.search(label)
    if example and label[: example.start()].split():
        label = label[: example.start()]
    for pattern in (_SENTENCE_END, _REASON):
        found = pattern.search(label)
        if found and len(label[: found.start()].split()) >= 3:
            label = label[: found.start()]
    return label


#: A heading that names one considered option by number: "### Option 2: PostgreSQL".
_OPTION_HEADING = re.compile(r"^option\s*\d+\s*[:.)–—-]\s*(?P<label>.+)$", re.I)
#: A mark in brackets after an option's name: "(✅ Chosen)", "(❌ Not Chosen)", "(rejected)".
_MARK_SUFFIX = re.compile(
    r"\s*[(\[][^()\[\]]*(?:[✅✔✓☑❌✗✘]|\b(?:chosen|selected|rejected)\b)[^()\[\]]*[)\]]\s*$",
    re.I,
)


#: A considered option's heading, numbered or bracketed: "### 2. Marker Files",
#: "### [Hub-only Stop]".
_HEADING_NUMBER = re.compile(r"^(?:option\s*)?\d+\s*[.:)–—-]?\s+", re.I)
#: "### Alternative 2: …" headings often list the rejected choices only (the one taken is
#: missing): read only when one of them is marked as taken.
_ALTERNATIVE_HEADING = re.compile(r"^alternatives?\s*\d+\b", re.I)


def _section_heading_options(section: _Section) -> list[tuple[str, SyntaxTreeNode, str]]:
    """(label, heading, text) of the options an options section gives a sub-heading each
    ("## Alternatives Considered" over "### Config-based Default", "### Hardcoded
    Official Account (Selected)"): two or more sub-headings of its first sub-level, each
    named without its number, brackets or mark."""
    heads = [b for b in section.blocks if b.type == "heading"]
    if not heads:
        return []
    level = heads[0].tag
    found: list[tuple[str, SyntaxTreeNode, str]] = []
    alternatives = False
    for head in heads:
        if head.tag != level:
            continue
        text = _block_text(head)
        label = text.strip()
        if label.startswith("[") and label.endswith("]"):
            label = label[1:-1].strip()
        numbered = _ALTERNATIVE_HEADING.match(label)
        if numbered:
            alternatives = True
            label = re.sub(r"^\s*[.:)–—-]?\s*", "", label[numbered.end() :])
        label = _MARK_SUFFIX.sub("", _HEADING_NUMBER.sub("", label, count=1))
        if _CHOSEN_MARK.search(label):
            label = _CHOSEN_MARK.split(label, maxsplit=1)[0]
        found.append((label.strip().strip("\"“”'`").strip(" ,.;:").strip(), head, text))
    if alternatives and sum(1 for _, _, text in found if _CHOSEN_MARK.search(text)) != 1:
        return []  # "Alternative N" headings with none marked taken: the rejected ones only
    return found if len(found) >= 2 else []


def _heading_options(sections: list[_Section]) -> list[tuple[str, SyntaxTreeNode, str]]:
    """(label, heading, text) of the options an ADR gives one heading each ("### Option
    1: SQLite (✅ Chosen)", "### Option 2: PostgreSQL (❌ Not Chosen)"): two or more such
    headings of one level. "Alternative N" headings are not read: ADRs use them for the
    rejected choices only, so the one taken would be missing from the list."""
    found: list[tuple[str, SyntaxTreeNode, str]] = []
    for section in sections:
        text = _block_text(section.heading)
        named = _OPTION_HEADING.match(text)
        if named:
            label = _MARK_SUFFIX.sub("", named.group("label"))
            if _CHOSEN_MARK.search(label):
                label = _CHOSEN_MARK.split(label, maxsplit=1)[0]
            found.append(
                (label.strip().strip("\"“”'`").strip(" ,.;:").strip(), section.heading, text)
            )
    if len(found) < 2 or len({node.tag for _, node, _ in found}) != 1:
        return []
    return found


#: An alternative marked as turned down: the word after a separator, a sentence's end or
#: at the start ("**Rejected**: …", "— rejected on the evidence", ": rejected (…)", "…
#: numbers. Rejected.", "Verdict: REJECTED - …", "(❌ Not Chosen)"), followed by the
#: verdict's punctuation or reason, or a leading cross. The word as an adjective is no mark
#: ("Drop rejected messages: rejected messages are lost" names what an option handles).
_REJECTION = re.compile(
    r"(?:^|[:;,—–(\[]|\s-|\.)\s*(?:[❌✗✘]\ufe0f?\s*)?(?:rejected|not\s+(?:chosen|selected))"
    r"(?=\s*(?:[:.;,—–()\]]|-\s|$)|\s+(?:because|for|as|due|since|on|per|by|in|after|"
    r"once|outright|here|now|today|again)\b)",
    re.I,
)
#: A cross opening an alternative's own name ("### ❌ Keep the PVC", "- ✗ Kafka"): in its
#: body a cross marks a list of drawbacks ("**❌ Cons:**"), not the alternative.
_CROSS_LEAD = re.compile(r"^\s*[❌✗✘]")
#: Where a rejected alternative written as one plain sentence stops naming it: its verb
#: ("Treating inert as hidden would remove …", "Inferring X from Y is unreliable").
_SENTENCE_VERB = re.compile(r"\s+(?:would|is|are|was|were)\s", re.I)
#: A letter or number that orders the alternatives, not part of a name: "Option E: …",
#: "Strategy A: …", "Alternative 2 - …".
_ORDINAL_LEAD = re.compile(
    r"^(?:option|alternative|strategy|approach|path)\s*#?\s*(?:[A-Z]|\d+)\s*[:.)–—-]\s*",
    re.I,
)


#: A reference to another record or an issue inside an alternative's name ("Keep the ADR-0039
#: EnvoyPatchPolicy", "Reuse ADR-0028's formula", "(#1017)"): it cites, it names nothing,
#: and as a word of the option every text citing any ADR would name it.
_REFERENCE = re.compile(
    r"\s*\((?:ADRs?[\s-]?\d+|#\d+)\)|\s*(?:\bADRs?[\s-]?\d+(?:['’]s)?|#\d+)\b", re.I
)
#: Words that count or quantify, naming no alternative alone ("All three", "Both").
_COUNT_WORDS = frozenset(
    [
        "all",
        "both",
        "either",
        "neither",
        "none",
        "one",
        "two",
        "three",
        "four",
        "five",
    ]
)


def _rejected_label(label: str, prose: bool = False) -> str:
    """A rejected alternative's name: without the letter that orders it ("Option E: …"),
    references to other records, a gloss in brackets at its end ("The first container
    factory on the Mac (ADR 0005)") and, written as a sentence (``prose``), what follows
    its verb. Empty when what is left only counts ("All three")."""
    label = _ORDINAL_LEAD.sub("", label).strip() or label
    label = _REFERENCE.sub("", label).strip() or label
    if not set(re.findall(r"[a-z0-9]+", label.lower())) - _COUNT_WORDS - ENGLISH:
        return ""
    label = _unwrap(_GLOSS.sub("", label)) or label
    verb = _SENTENCE_VERB.search(label) if prose else None
    if verb and len(label[: verb.start()].split()) >= 2:
        label = label[: verb.start()]
    return _unwrap(label)


def _rejects(name: str) -> bool:
    """An alternative's own line (its heading, or its item's first paragraph) marks it
    turned down."""
    return bool(_REJECTION.search(name) or _CROSS_LEAD.match(name))


def _marks_rejection(blocks: list[SyntaxTreeNode]) -> bool:
    """One of ``blocks`` (an alternative's own text, paragraphs and bullets) says it was
    turned down."""
    return any(
        _REJECTION.search(_block_text(b)) or _bold_verdict(b) for b in _items_and_paragraphs(blocks)
    )


def _bold_verdict(block: SyntaxTreeNode) -> bool:
    """A paragraph or bullet that opens with the bold word itself ("**Rejected** The need
    for a separate cache …")."""
    if block.type == "list_item":
        paragraphs = [c for c in block.children if c.type == "paragraph"]
        if not paragraphs:
            return False
        block = paragraphs[0]
    inline = _inline(block)
    children = [
        c for c in (inline.children if inline else []) if c.type != "text" or c.content.strip()
    ]
    return (
        bool(children)
        and children[0].type == "strong"
        and bool(_REJECTION.fullmatch(_plain(children[0]).strip()))
    )


def _rejected_alternatives(
    sections: list[_Section], options_section: _Section | None
) -> list[tuple[str, SyntaxTreeNode]]:
    """(label, node) of the alternatives an ADR lists as turned down: every item of a
    "Rejected Alternatives" section, else the items of its options section that each say
    they were rejected ("### mattn/go-sqlite3" over "- **Rejected**: …"). Nygard ADRs list
    only these, and state the choice taken in the Decision section's prose and the title.
    Empty when an item is marked as taken (the options list then says which one was)."""
    section = _find(sections, REJECTED_HEADINGS)
    every = section is not None
    section = section or options_section
    if section is None:
        return []
    lists = [b for b in _direct(section) if b.type in ("bullet_list", "ordered_list")]
    found: list[tuple[str, SyntaxTreeNode, bool, str]] = []
    prose: set[int] = set()  # items whose label may be a sentence (no bold lead, no colon)
    if lists:
        for item in lists[0].children:
            said = _block_text(item)
            mark = _rejects(said) or _marks_rejection(
                [c for c in item.children if c.type in ("bullet_list", "ordered_list")]
            )
            found.append((_option_label(item), item, mark, said))
            if ": " not in said and not _bold_lead(item):
                prose.add(id(item))
    else:
        heads = [b for b in section.blocks if b.type == "heading"]
        level = heads[0].tag if heads else ""
        for pos, block in enumerate(section.blocks):
            if block.type != "heading" or block.tag != level:
                continue
            body = []
            for later in section.blocks[pos + 1 :]:
                if later.type == "heading" and int(later.tag[1]) <= int(level[1]):
                    break
                body.append(later)
            said = _block_text(block)
            label = re.sub(r"^alternatives?\s*\d+\b\s*[.:)–—-]?\s*", "", said, flags=re.I)
            label = _MARK_SUFFIX.sub("", _HEADING_NUMBER.sub("", label, count=1))
            if label.startswith("[") and label.endswith("]"):
                label = label[1:-1]
            mark = _rejects(said) or _marks_rejection(body)
            found.append((label, block, mark, said))
    if any(_CHOSEN_MARK.search(said) for _, _, _, said in found):
        return []
    return [
        (name, node)
        for label, node, mark, _ in found
        if (every or mark) and (name := _rejected_label(label, id(node) in prose))
    ]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# -- reading one ADR ----------------------------------------------------------------------


def _status(meta: dict[str, Any], sections: list[_Section], nodes: list[SyntaxTreeNode]) -> str:
    if isinstance(meta.get("status"), str) and meta["status"].strip():
        return str(meta["status"])
    section = _find(sections, STATUS_HEADINGS)
    if section is not None:
        texts = [_block_text(b) for b in _items_and_paragraphs(section.blocks)]
        return " ".join(t for t in texts if t)
    for block in _items_and_paragraphs([n for n in nodes if n.type != "heading"]):
        if _opens_with_code(block):
            continue  # "`status`: string (`pending`, `active`)": a field of a schema
        for line in _block_lines(block):
            found = _FIELD.match(line)
            if found and found.group("key").lower() == "status":
                return found.group("value")
    return _table_status(nodes)


def _table_status(nodes: list[SyntaxTreeNode]) -> str:
    """The status a record's property table gives: a two-column table with a body row
    ``| **Status** | Accepted |`` (``| Property | Value |`` over date, status, …)."""
    for table in nodes:
        if table.type != "table":
            continue
        for part in table.children:
            for row in part.children if part.type == "tbody" else ():
                cells = [" ".join(_plain(cell).split()) for cell in row.children]
                if len(cells) == 2 and cells[0].rstrip(":").strip().lower() == "status":
                    return cells[1]
    return ""


def _opens_with_code(block: SyntaxTreeNode) -> bool:
    """The paragraph (or a list item's first paragraph) opens with a code span: a line
    such as "`status`: string" names a field of the data the record describes."""
    if block.type == "list_item":
        paragraphs = [c for c in block.children if c.type == "paragraph"]
        return bool(paragraphs) and _opens_with_code(paragraphs[0])
    inline = _inline(block)
    children = [
        c for c in (inline.children if inline else []) if c.type != "text" or c.content.strip()
    ]
    return bool(children) and children[0].type == "code_inline"


def status_word(text: str) -> str:
    """``accepted``, ``superseded``, … — the lifecycle state a status text states."""
    words = re.findall(r"[a-z]+", text.lower())
    for retired in _RETIRED:
        if retired in words:
            return retired
    if any(word in words for word in _IN_FORCE):
        return "accepted"
    return words[0] if words else ""


def _states_choice(decision: _Section) -> bool:
    """The Decision section has a ``Chosen option: …`` line."""
    return any(
        (found := _FIELD.match(_block_text(block))) is not None
        and found.group("key").lower() == "chosen option"
        for block in _items_and_paragraphs(decision.blocks)
    )


def _chosen(
    decision: _Section, options: list[str]
) -> tuple[str | None, SyntaxTreeNode | None, str]:
    """(chosen label, the block that names it, why not) from a Decision section."""
    for block in _items_and_paragraphs(decision.blocks):
        found = _FIELD.match(_block_text(block))
        if not found or found.group("key").lower() != "chosen option":
            continue
        value = found.group("value").strip()
        number = _OPTION_NUMBER.match(value)
        by_number = None
        if number:
            n = int(number.group("n"))
            if not 1 <= n <= len(options):
                return None, block, f"'Chosen option' names option {n} of {len(options)}"
            by_number = options[n - 1]
            value = value[number.end() :]
        quoted = _QUOTED.match(value)
        bold = _bold_value(block) if number is None else None
        if quoted:
            said = next(g for g in quoted.groups() if g)
        elif bold:
            # "Chosen option: **separate repository with release branches**, hosted at
            # <…>. This repository keeps …": the bold words name the choice, the rest of
            # the line says where it lives and what else follows
            said = bold
        else:
            said = re.split(r",?\s+because\b", value, maxsplit=1, flags=re.I)[0]
        said = said.strip().strip(" ,.;:")
        matches = _matching(said, options) if _norm(said) else []
        if by_number is not None and (not matches or matches == [by_number]):
            return by_number, block, ""
        if by_number is not None:
            return None, block, f"'Chosen option' says option {n} but names {said!r}"
        if len(matches) == 1:
            return matches[0], block, ""
        what = "several" if matches else "none"
        return None, block, f"'Chosen option: {said}' matches {what} of the considered options"
    # "Option 1 - We will use the cluster accounts …": the Decision opens with the number
    numbered = [
        (int(found.group("n")), block)
        for block in _items_and_paragraphs(decision.blocks)
        if (found := _DECIDED_NUMBER.match(_block_text(block)))
    ]
    if numbered and len({n for n, _ in numbered}) == 1 and 1 <= numbered[0][0] <= len(options):
        return options[numbered[0][0] - 1], numbered[0][1], ""
    named = _named(decision, options)
    if len(named) == 1:
        return named[0][0], named[0][1], ""
    if named:
        which = ", ".join(repr(n) for n, _ in named)
        return None, None, f"the Decision section names several listed options ({which})"
    return None, None, f"the Decision section names none of the {len(options)} listed options"


def _named(decision: _Section, options: list[str]) -> list[tuple[str, SyntaxTreeNode]]:
    """The listed options the Decision section names, each with the block naming it."""
    named: list[tuple[str, SyntaxTreeNode]] = []
    for block in _items_and_paragraphs(decision.blocks):
        text = f" {_norm(_block_text(block))} "
        for option in options:
            if f" {_norm(option)} " in text and option not in [n for n, _ in named]:
                named.append((option, block))
    return named


#: A Decision paragraph or item that opens with an option's number and a separator:
#: "Option 1 - We will use …", "Option #2: …", "**Option 3.** …".
_DECIDED_NUMBER = re.compile(r"^\s*option\s*#?\s*(?P<n>\d+)\s*(?:[:.)–—]|\s-\s|$)", re.I)


def _matching(said: str, options: list[str]) -> list[str]:
    key = _norm(said)
    exact = [o for o in options if _norm(o) == key]
    if exact:
        return exact
    found = [o for o in options if _norm(o).startswith(key + " ") or key.startswith(_norm(o) + " ")]
    if found or len(key.split()) < 2:
        return found
    # "separate repository with release branches" for an option written as a sentence
    # ("Move the plugin sources to a separate repository with release branches frozen
    # at …"): a phrase of two or more words inside one option's words names that option
    return [o for o in options if f" {key} " in f" {_norm(o)} "]


def _bold_value(block: SyntaxTreeNode) -> str:
    """The bold words right after ``Chosen option:`` in ``block`` (empty when none)."""
    if block.type == "list_item":
        paragraphs = [c for c in block.children if c.type == "paragraph"]
        if not paragraphs:
            return ""
        block = paragraphs[0]
    inline = _inline(block)
    children = [
        c for c in (inline.children if inline else []) if c.type != "text" or c.content.strip()
    ]
    if len(children) < 2 or children[0].type != "text" or children[1].type != "strong":
        return ""
    opening = _FIELD.match(children[0].content)
    if opening is None or opening.group("value").strip():
        return ""  # words before the bold ones: the bold words do not open the value
    return " ".join(_plain(children[1]).split())


def _title_from_name(stem: str) -> str:
    """``0039-set-plugin-name-in-metadata`` → ``Set plugin name in metadata``."""
    words = re.sub(r"[-_]+", " ", _TITLE_NUMBER.sub("", stem)).strip()
    return words[:1].upper() + words[1:]


def read_adr(path: Path, display: str | None = None, *, titles: bool = False) -> AdrReading:
    """Read one ADR file (never raises for content; unreadable files are reported).

    ``titles``: an ADR that lists only the alternatives it rejected binds its title as the
    choice taken (``charter decisions import --adr --titles``); without it such an ADR is
    unreadable, with a note naming what it rejected."""
    from charter.search.chunks import frontmatter

    shown = display or str(path)
    text = read_text(path, what="ADR").removeprefix("\ufeff")
    if "template" in path.stem.lower():
        return AdrReading(path, "skipped", "a template, not a decision")
    if path.stem.lower() in ("readme", "index"):
        return AdrReading(path, "skipped", "an index, not a decision")
    if _rule_file(path):
        # the ADR folder's own AGENTS.md (how to write one, a template's "Status: Proposed |
        # Accepted") was read as a record and reported with the template's status
        return AdrReading(path, "skipped", "an agent's rule file, not a decision")
    if path.suffix.lower() in RECORD_SUFFIXES:
        return read_record(path, text, shown)
    meta, fm_lines = frontmatter(text, shown)
    body = _field_headings("\n".join(text.split("\n")[fm_lines:]))
    return _read_markdown(path, meta, fm_lines, body, titles)


def read_adr_records(
    path: Path, display: str | None = None, *, titles: bool = False
) -> list[AdrReading]:
    """The records one file holds: one, or each of several (an arc42 "Architecture
    Decisions" chapter: one ``## ADR-001: …`` section per record, each with its own
    status and decision), read as if each were a file of its own."""
    from charter.search.chunks import frontmatter

    single = [read_adr(path, display, titles=titles)]
    if path.suffix.lower() not in ADR_SUFFIXES or single[0].note.startswith(
        ("a template", "an index", "an agent's rule file")
    ):
        return single
    text = read_text(path, what="ADR").removeprefix("\ufeff")
    _meta, fm_lines = frontmatter(text, display or str(path))
    lines = text.split("\n")[fm_lines:]
    records = _records(_field_headings("\n".join(lines)))
    if not records:
        return single
    readings = []
    for start, end, heading in records:
        # the record's heading becomes its title; every line keeps its number
        sub = ["# " + heading, *lines[start + 1 : end]]
        reading = _read_markdown(
            path, {}, fm_lines + start, _field_headings("\n".join(sub)), titles
        )
        reading.key = _record_key_of(path, heading)
        # a record that binds nothing is cited by its heading: the file alone does not
        # tell which of its records the note is about
        reading.line = reading.line or fm_lines + start + 1
        if reading.item:
            reading.item["id"] = reading.key
        readings.append(reading)
    return readings


#: A field of a record written as a bold label alone on its line ("**Decision**:"), which
#: formats without headings per field (arc42's decisions chapter, compact ADRs) use as
#: their sections: read as a heading of its own, its line kept.
_FIELD_LABEL = re.compile(
    r"^(?:\*\*|__)(?P<name>[A-Za-z][A-Za-z ]{0,38}?)\s*[:.]?\s*(?:\*\*|__)\s*[:.]?\s*$"
)
_FIELD_NAMES = (
    STATUS_HEADINGS
    | OPTIONS_HEADINGS
    | DECISION_HEADINGS
    | REJECTED_HEADINGS
    | frozenset({"context", "consequences", "context and problem statement", "rationale"})
)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
#: A field written inline after its bold label ("**Decision**: Use pnpm, because …",
#: "* **Decision:** We will use …", the compact ADRs and decision logs that write each
#: field on one line): read as a section of its own holding the text after the label (a
#: status line is read as it is written).
_INLINE_DECISION = re.compile(
    r"^(?:\s{0,3}[-*+]\s+)?(?:\*\*|__)(?P<name>[A-Za-z][A-Za-z ]{0,38}?)\s*[:.]?\s*(?:\*\*|__)"
    r"\s*[:.]\s*(?P<rest>\S.*)$|"
    r"^(?:\s{0,3}[-*+]\s+)?(?:\*\*|__)(?P<name2>[A-Za-z][A-Za-z ]{0,38}?)\s*[:.]\s*(?:\*\*|__)"
    r"\s*(?P<rest2>\S.*)$"
)


@dataclass(frozen=True)
class _Body:
    """A record's Markdown with its field labels made headings (:func:`_field_headings`):
    ``inserted`` are the lines added for an inline decision's text (its heading keeps the
    label's line), taken out again when the parsed blocks are given their lines."""

    text: str
    inserted: tuple[int, ...] = ()


def _field_headings(body: str) -> _Body:
    out: list[str] = []
    inserted: list[int] = []
    fence = ""
    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            found = _FIELD_LABEL.match(line)
            inline = None if found else _INLINE_DECISION.match(line)
            if found and " ".join(found.group("name").lower().split()) in _FIELD_NAMES:
                line = "###### " + found.group("name").strip()
            elif inline:
                name = (inline.group("name") or inline.group("name2")).strip()
                if " ".join(name.lower().split()) in _FIELD_NAMES - STATUS_HEADINGS:
                    # "**Decision**: Use X" is "###### Decision" over "Use X", on one line
                    # (and "**Consequences:** …" after it ends the decision's text)
                    out.append("###### " + name)
                    inserted.append(len(out))
                    line = inline.group("rest") or inline.group("rest2")
        out.append(line)
    return _Body("\n".join(out), tuple(inserted))


def _parse(body: _Body) -> list[SyntaxTreeNode]:
    """The top-level blocks of ``body``, each block's lines those of the file as written
    (an inline decision's text on its label's line)."""
    from bisect import bisect_left, bisect_right

    from charter.rules.blocks import _tree

    tree = _tree(body.text)
    if body.inserted:
        seen: set[int] = set()
        for node in tree.walk():
            tokens = [node.token] if node.token else list(node.nester_tokens or ())
            for token in tokens:
                if id(token) in seen or not token.map:
                    continue
                seen.add(id(token))
                start, end = token.map
                token.map = [
                    start - bisect_right(body.inserted, start),
                    end - bisect_left(body.inserted, end),
                ]
    return list(tree.children)


def _records(body: _Body) -> list[tuple[int, int, str]]:
    """(first line, end line, heading) of each record in a file holding several: headings
    of one level whose sections each have a status of their own, two or more of them also
    a decision (one ADR has one status; an option's section has no decision). A record
    whose decision is not a section (deferred, "Decisions", inline) is still one: its own
    status or note says why it binds nothing."""
    sections = _sections(_parse(body))
    levels = Counter(int(s.heading.tag[1]) for s in sections)
    for level in sorted(n for n, count in levels.items() if count >= 2):
        found, decided = [], 0
        for section in sections:
            if int(section.heading.tag[1]) != level:
                continue
            inner = _sections(section.blocks)
            if not _status({}, inner, section.blocks):
                continue
            decided += _find(inner, DECISION_HEADINGS) is not None
            # a section's blocks run up to the next heading of its level or higher
            last = section.blocks[-1] if section.blocks else section.heading
            start, end = (section.heading.map or [0])[0], (last.map or [0, 0])[1]
            found.append((start, max(end, start + 1), _block_text(section.heading)))
        if decided >= 2:
            return found
    return []


def _record_key_of(path: Path, heading: str) -> str:
    """``ADR-001-use-protobuf`` from "ADR-001: Use Protobuf" (a record's own number and
    words, as a file's id is ``ADR-0004-message-broker``: the words give its invariant a
    topic), else the file's id and the heading's words."""
    numbered = re.match(r"^\s*(?:ADR)?[\s-]*(\d+)\b", heading, re.I)
    rest = _TITLE_NUMBER.sub("", heading) if numbered else heading
    words = re.sub(r"[^A-Za-z0-9]+", "-", rest.lower()).strip("-")
    if len(words) > 60:
        words = words[:60].rsplit("-", 1)[0]
    if numbered:
        return f"ADR-{numbered.group(1)}" + (f"-{words}" if words else "")
    return f"{adr_id(path)}-{words or 'record'}"


def _read_markdown(
    path: Path, meta: dict[str, Any], fm_lines: int, body: _Body, titles: bool
) -> AdrReading:
    """Read one Markdown record: ``body`` after its front matter (``fm_lines`` lines)."""
    nodes = _parse(body)
    sections = _sections(nodes)
    decision = _find(sections, DECISION_HEADINGS)
    status_text = _status(meta, sections, nodes)
    if decision is None and not status_text:
        # a record whose title states the decision, in prose (no Status, no Decision
        # section, no options): nothing to bind, and search still serves it as an ADR
        return AdrReading(path, "skipped", NO_DECISION_NOTE)
    status = status_word(status_text)
    implicit = not status_text and decision is not None and _states_choice(decision)
    if implicit:
        # MADR leaves the status optional: a record with no status whose Decision Outcome
        # names its chosen option records a decision taken (a proposal says "Proposed")
        status = "accepted"
    if not status:
        return AdrReading(path, "unreadable", "no Status found (only accepted ADRs bind)")
    if status != "accepted":
        shown_status = " ".join(status_text.split())[:80]
        return AdrReading(path, "skipped", f"status {shown_status!r}", status=status)
    h1s = [s.heading for s in sections if s.heading.tag == "h1"]
    candidates = [_block_text(h1s[0])] if h1s else []
    candidates += [str(meta.get("title") or "").strip(), _title_from_name(path.stem)]
    # a template's unfilled title ("# {short title of solved problem and solution}")
    # names nothing: the front matter's title or the file's own name does
    title = next((t for t in candidates if t and not _PLACEHOLDER.match(t)), "")
    title = _TITLE_NUMBER.sub("", title).strip() or title
    reading = AdrReading(path, "unreadable", status=status)
    if not title:
        reading.note = "no title (a '# Title' heading or front matter 'title')"
        return reading
    if decision is None:
        reading.note = "no 'Decision' or 'Decision Outcome' section"
        return reading
    reading.line = fm_lines + (decision.heading.map or [0])[0] + 1
    options_section = _find(sections, OPTIONS_HEADINGS)
    lists = [
        b
        for b in (_direct(options_section) if options_section else [])
        if b.type in ("bullet_list", "ordered_list")
    ]
    # (label, node, text) of each considered option: the items of the options list, else
    # the options section's sub-headings ("### Config-based Default"), else "### Option 1:
    # SQLite (✅ Chosen)" headings, one section per option
    entries = (
        [(_option_label(item), item, _block_text(item)) for item in lists[0].children]
        if lists
        else (options_section and _section_heading_options(options_section))
        or _heading_options(sections)
    )
    entries = [e for e in entries if e[0]]
    rejected = _rejected_alternatives(sections, options_section)
    if not entries:
        if rejected:
            return _title_chosen(reading, path, title, rejected, titles)
        instead = _INSTEAD.match(title)
        if instead:
            # "Jdp Dependency Injection Instead of Spring or CDI": the title names the
            # choice taken and the alternatives it turned down
            named = [
                (label, decision.heading)
                for label in _ALTERNATIVE_SPLIT.split(instead.group("rest").strip(" .?!"))
                if label.strip()
            ]
            return _title_chosen(
                reading, path, title, named, titles, chosen=instead.group("chosen").strip()
            )
        reading.note = "no 'Considered Options' list, so no option to bind"
        return reading
    options = [label for label, _, _ in entries]
    # the same words twice; options that differ only in a symbol ("… character `§`",
    # "… character `%`") are distinct options, each with an id of its own
    names = [" ".join(o.lower().split()) for o in options]
    if len(set(names)) != len(names):
        reading.note = "two considered options have the same name"
        return reading
    chosen, block, why = _chosen(decision, options)
    marked = [(label, node) for label, node, said in entries if _CHOSEN_MARK.search(said)]
    if (
        chosen is None
        and len(marked) == 1
        and not _FIELD.match(_block_text(block or decision.heading))
    ):
        # "- **Files (JSON/CSV)** ✅ Chosen" in the options list, the Decision section
        # in its own words ("Use file-based storage"): the list says which one was taken
        chosen, block, why = marked[0][0], marked[0][1], ""
    elif chosen is not None and len(marked) == 1 and marked[0][0] != chosen:
        chosen, why = (
            None,
            (
                f"the Decision section names {chosen!r} but the options list marks "
                f"{marked[0][0]!r} as chosen"
            ),
        )
    turned_down = {id(node) for _, node in rejected} | {_norm(label) for label, _ in rejected}
    if rejected and not marked and (chosen is None or _norm(chosen) in turned_down):
        # the Decision names none of the listed options, or names a rejected one only to
        # say no: the one it names among those not marked rejected is the choice taken
        # ("We have decided to use **GitBook** … like Confluence"), else the title states it
        open_options = [
            (label, node)
            for label, node, _ in entries
            if id(node) not in turned_down and _norm(label) not in turned_down
        ]
        named = _named(decision, [label for label, _ in open_options])
        if len(named) != 1:
            return _title_chosen(reading, path, title, rejected, titles)
        chosen, block, why = named[0][0], named[0][1], ""
    if chosen is None:
        reading.note = why
        if block is not None:
            reading.line = fm_lines + (block.map or [0])[0] + 1
        return reading
    if block is not None:
        reading.line = fm_lines + (block.map or [0])[0] + 1
    reading.outcome = "accepted"
    if implicit:
        reading.note = "no status: its chosen option read as accepted (MADR's status is optional)"
    reading.item = _choice_item(path, title, options, chosen)
    return reading


#: Words of a rejected alternative's name, beyond which it describes an approach ("Put tier
#: rules in charts/core-gateway instead of per-model") rather than naming one: the words
#: of such a sentence are the project's everyday words, and drift would read every text
#: about the same code as bringing it back.
MAX_REJECTED_WORDS = 5


#: A title that states the choice and what it was taken over: "X instead of Y or Z".
_INSTEAD = re.compile(r"^(?P<chosen>.+?)\s+(?:instead\s+of|rather\s+than)\s+(?P<rest>\S.*)$", re.I)
_ALTERNATIVE_SPLIT = re.compile(
    r"\s*(?:,\s*(?:or\s+|and\s+|nor\s+)?|\s(?:or|and|nor)\s+|/)\s*", re.I
)


def _title_chosen(
    reading: AdrReading,
    path: Path,
    title: str,
    rejected: list[tuple[str, SyntaxTreeNode]],
    titles: bool,
    chosen: str = "",
) -> AdrReading:
    """Bind an ADR that lists only the alternatives it rejected: its title is the choice
    taken (as a YAML record's is), the rejected alternatives are excluded. Only when asked
    (``titles``): the title is a reading of the ADR, not a choice it lists, and a folder of
    such records written in a project's everyday words ("Keep the ArgoCD sync windows",
    "vLLM + GGUF") has drift flag a fifth of the project's own commit messages."""
    named = [label for label, _ in rejected if len(_norm(label).split()) <= MAX_REJECTED_WORDS]
    if not named:
        reading.note = (
            "the alternatives it rejected are described, not named (more than "
            f"{MAX_REJECTED_WORDS} words each), so no option to bind"
        )
        return reading
    if not titles:
        shown = ", ".join(named[:3]) + (", …" if len(named) > 3 else "")
        said = "its title names" if chosen else "lists only"
        reading.note = (
            f"{said} the alternatives it rejected ({shown}); `--titles` binds its title "
            "as the choice taken"
        )
        return reading
    clash = "a rejected alternative has the title's or another one's name"
    chosen = chosen or title
    if _bind(reading, path, title, [chosen, *named], chosen, clash):
        reading.note = (
            f"the title read as the choice taken: {chosen!r} instead of {', '.join(named)}"
            if chosen != title
            else "the title read as the choice taken: it lists only the alternatives it rejected"
        )
    return reading


def _bind(
    reading: AdrReading, path: Path, title: str, options: list[str], chosen: str, clash: str
) -> bool:
    """Bind ``reading`` to ``chosen`` among ``options``, unless two options share a name
    (then ``clash`` is its note): a choice between two spellings of one option binds
    nothing a check could tell apart."""
    names = [_norm(o) for o in options]
    if len(set(names)) != len(names):
        reading.note = clash
        return False
    reading.outcome = "accepted"
    reading.item = _choice_item(path, title, options, chosen)
    return True


def _choice_item(path: Path, title: str, options: list[str], chosen: str) -> dict[str, Any]:
    """The decision an accepted record binds: its title as the question, one option chosen."""
    return {
        "id": adr_id(path),
        "question": title,
        "answer_type": "single_choice",
        "choices": options,
        "answer": chosen,
    }


# -- YAML decision records -----------------------------------------------------------------

#: Keys of the options a YAML record turned down, and of the choice it took (compared
#: lower-cased, with spaces and dashes as underscores).
_REJECTED_KEYS = (
    "rejected_alternatives",
    "rejected_options",
    "alternatives",
    "alternatives_considered",
    "considered_alternatives",
)
_CHOSEN_KEYS = ("chosen_option", "chosen")
#: Keys of a mapping item that name the option it stands for.
_OPTION_NAME_KEYS = ("alternative", "option", "name", "title", "label")


def _record_key(key: object) -> str:
    return re.sub(r"[\s-]+", "_", str(key).strip().lower())


def _record_option(item: object) -> str:
    """The name of one listed alternative: a string, or a mapping's naming field."""
    if isinstance(item, dict):
        named = {_record_key(k): v for k, v in item.items()}
        item = next((named[k] for k in _OPTION_NAME_KEYS if named.get(k)), "")
    if not isinstance(item, str | int | float) or isinstance(item, bool):
        return ""
    label = _unwrap(" ".join(str(item).split()))
    # "yarn (classic or berry)", "Bare React Native CLI (no Expo)": the words in brackets
    # after the name gloss it; as words of the option a text would have to repeat them
    return _unwrap(_GLOSS.sub("", label)) or label


#: A bracketed gloss ending an option's name.
_GLOSS = re.compile(r"\s*\([^()]*\)\s*$")


def read_record(path: Path, text: str, shown: str) -> AdrReading:
    """Read one YAML decision record (see the module docstring)."""
    import yaml

    from charter import safeyaml

    try:
        data = safeyaml.load(text, name=shown)
    except (yaml.YAMLError, CharterError):
        return AdrReading(path, "unreadable", "not valid YAML")
    fields = {_record_key(k): v for k, v in data.items()} if isinstance(data, dict) else {}
    title = fields.get("title")
    if not isinstance(title, str) or not title.strip() or not fields.get("decision"):
        return AdrReading(
            path, "skipped", "not a decision record (no 'title' and 'decision' fields)"
        )
    title = _TITLE_NUMBER.sub("", " ".join(title.split())).strip() or title.strip()
    status_text = fields.get("status")
    status_text = str(status_text) if isinstance(status_text, str | int | float) else ""
    status = status_word(status_text) if status_text.strip() else ""
    if status and status != "accepted":
        shown_status = " ".join(status_text.split())[:80]
        return AdrReading(path, "skipped", f"status {shown_status!r}", status=status)
    listed: object = next((fields[k] for k in _REJECTED_KEYS if fields.get(k)), [])
    rejected = [o for o in map(_record_option, listed if isinstance(listed, list) else []) if o]
    found = re.search(r"^decision\s*:", text, re.M | re.I)
    line = text.count("\n", 0, found.start()) + 1 if found else 1
    reading = AdrReading(path, "unreadable", status=status or "accepted", line=line)
    if not rejected:
        reading.note = "no 'rejected_alternatives' list, so no option to bind"
        return reading
    chosen_value = next((fields[k] for k in _CHOSEN_KEYS if fields.get(k)), title)
    chosen = _record_option(chosen_value) or title
    clash = "two options have the same name"
    if _bind(reading, path, title, [chosen, *rejected], chosen, clash) and not status:
        reading.note = "no status: a record that names the alternatives it rejected is taken"
    return reading


def _rule_file(path: Path) -> bool:
    """Is ``path`` named as an agent's rule file is (``AGENTS.md``, ``CLAUDE.md``, …)?"""
    from charter.rules.sources import classify

    return classify(path.name) is not None


def read_adrs(
    paths: list[Path], root: Path | None = None, *, titles: bool = False
) -> list[AdrReading]:
    """Every ADR under ``paths``; a second file with the same id is reported unreadable."""
    readings: list[AdrReading] = []
    seen: dict[str, Path] = {}
    for path in adr_files(paths):
        for reading in read_adr_records(path, display_path(path, root), titles=titles):
            if reading.id is not None:
                if reading.id in seen:
                    reading.outcome = "unreadable"
                    reading.note = f"same id {reading.id} as {display_path(seen[reading.id], root)}"
                    reading.item = {}
                else:
                    seen[reading.id] = path
            readings.append(reading)
    return readings


def display_path(path: Path, root: Path | None) -> str:
    """``path`` relative to the project root when inside it (the citation's form)."""
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(path)
