"""Turn read rule files into typed rules: ids, tags, constitution membership."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

from charter.errors import CharterError
from charter.rules.annotate import (
    infer_domains,
    infer_intents,
    infer_risk,
    is_directive,
    normalize_risk,
    parse_annotations,
    polarity,
)
from charter.rules.blocks import Block, split_blocks, strip_strong, word_count
from charter.rules.model import DEFAULT_PRIORITY, Rule, Source
from charter.rules.sources import FOLDER_KINDS, SourceFile, scope_globs

_WS = re.compile(r"\s+")
#: HTML comments are invisible to readers (and to agents rendering Markdown): a rule's
#: text never includes them. ``charter export`` keeps each rule's citation in one.
#: One written inside a code span ("Add `<!-- markdownlint-disable MD022 -->` at the end")
#: is no comment but the text the rule names: it stays.
_HTML_COMMENT = re.compile(r"(?P<code>(?P<ticks>`+).*?(?P=ticks))|\s*<!--.*?-->", re.DOTALL)


def _drop_comments(text: str) -> str:
    """``text`` without its HTML comments, a code span's text kept as it is."""
    return _HTML_COMMENT.sub(lambda m: m.group("code") or "", text)


#: A link to a heading of the same page, ``[Error Handling](#11-error-handling)``: a
#: table of contents' entry, navigation rather than an instruction.
_ANCHOR_LINK = re.compile(r"\[[^\[\]\n]*\]\(#[^()\s]*\)")
_NAVIGATION_ONLY = re.compile(r"[\s\-*+•·|,;:.()\d]*")


def normalized(text: str) -> str:
    """The form ids are derived from: case, markup and spacing don't change an id."""
    text = re.sub(r"[*_`]+", "", text.lower())
    return _WS.sub(" ", text).strip()


def content_id(text: str, salt: str = "") -> str:
    """A stable id derived from content, not position, so unrelated edits keep it."""
    digest = hashlib.sha256(f"{normalized(text)}\x00{salt}".encode()).hexdigest()
    return f"r-{digest[:8]}"


#: What a heading may carry before its words: an emoji or other symbols ("🚨 CRITICAL RULES",
#: "⚠️ Never"), and its number in a numbered outline ("1. Safety", "8.3 Security").
_HEADING_DECORATION = re.compile(r"^(?:[^\w\s]+\s*|\d+(?:\.\d+)*[.):]?\s+)+")


#: A short label a heading opens with before what it says, set off by a colon or a dash:
#: "IMPORTANT: Always read a folder's notes", "Bug fixes — NEVER skip the failing test". One to
#: four words, so a sentence with a colon in it is not read as a label.
_HEADING_LABEL = re.compile(r"^(?:\w[\w'./&+-]*\s+){0,3}\w[\w'./&+-]*\s*(?::|\s[—–-]+)\s+(?=\S)")


def is_constitution_section(section: list[str], markers: list[re.Pattern[str]]) -> bool:
    """Whether a heading of ``section`` is a constitution marker, read as written, again
    without its decoration, so "## 🚨 CRITICAL RULES - READ FIRST" marks what it says, and
    again past a short label, so "## IMPORTANT: Always read …" does too."""
    if any(_DONE_HEADING.search(heading) for heading in section):
        return False  # "### Security System (COMPLETED)": a progress report, not rules
    headings = [
        h
        for heading in section
        for bare in (bare_heading(heading),)
        if not _PROBLEMS_HEADING.match(bare) and not _PREREQUISITES_HEADING.match(bare)
        for h in {heading, bare, _HEADING_LABEL.sub("", bare, count=1), *_qualifier(bare)}
    ]
    return any(rx.search(f"## {heading}") for heading in headings for rx in markers)


#: A bracket that ends a heading, saying what its section is or how binding: "Prisma
#: Rules (CRITICAL)", "The Law (Invariants & Constraints)", "Diagnostics (non-negotiable)".
_QUALIFIER = re.compile(r"\(\s*([^()]{2,40}?)\s*\)[\s:*_]*$")
#: A heading that reports one piece of work, whose bracket rates it ("Issue #1: Override
#: Not Applied (CRITICAL)", "Step 2: Fix EACCES (CRITICAL)"): no section of rules.
_WORK_ITEM = re.compile(
    r"(?i)^(?:issue|bug|step|phase|task|ticket|fix|problem|finding|incident|item)\b"
)


#: A heading that names what is wrong ("Known Issues (critical)"): a report, rated.
_REPORTED = re.compile(r"(?i)\b(?:issues|bugs|problems|findings|incidents|todos?)\b")


def _qualifier(bare: str) -> list[str]:
    """The bracket a heading ends with, read as a heading of its own (the markers look at a
    heading's start), unless the heading reports a piece of work."""
    m = _QUALIFIER.search(bare)
    if m is None or _WORK_ITEM.match(bare) or _REPORTED.search(bare[: m.start()]):
        return []
    named = bare[: m.start()].split()
    if len(named) <= 1 and re.fullmatch(r"(?i)required|mandatory", m.group(1)):
        return []  # "### `DATABASE_URL` (required)", "Submitter (MANDATORY)": a field
    return [m.group(1)]


#: A heading that reports the problems of its topic ("Critical Issues Requiring Immediate
#: Attention", "Security Vulnerabilities"): a list of what is wrong or open, not the rules
#: a marker word ("critical", "security") would make always loaded.
_PROBLEMS_HEADING = re.compile(
    r"(?i)(?:critical|security|safety)\s+(?:issues?|bugs?|problems?|incidents?|findings?"
    r"|vulnerabilit(?:y|ies)|gaps|todos?)\b"
)

#: A heading that lists what a task needs installed or set ("### Required Tools" over
#: "**Node.js** (specified in .nvmrc)"), or the inputs an interface takes ("### Required
#: Parameters:" over "`path`: The file path to read"): prerequisites and a reference, not
#: the rules a "Required" marker makes always loaded.
_PREREQUISITES_HEADING = re.compile(
    r"(?i)(?:required|mandatory)\s+(?:tools?|tooling|toolchains?|software|dependencies"
    r"|packages|prerequisites|versions?|services|accounts|hardware|extensions|plugins"
    r"|env(?:ironment)?\s+var(?:iable)?s"
    r"|param(?:eter)?s|arguments|args|fields|properties|attributes|inputs)\b"
)

#: A heading marked done: an upper-case COMPLETED or DONE, a status in brackets with a word
#: for done first ("(COMPLETED - Issue #14)", "(✅ 100% 완료)", "(已完成)"), or struck through
#: ("~~Monitoring System~~"): a progress report of work finished, not rules to follow.
_DONE_HEADING = re.compile(
    r"\b(?:COMPLETED|DONE)\b|~~.+~~"
    r"|\((?:[^\w()]|\d)*(?i:completed?|done|resolved|finished|fixed|완료|已完成|完成|完了)"
    r"(?:[^\w()][^()]*)?\)"
)


def bare_heading(heading: str) -> str:
    """A heading's words without a leading emoji, symbol or outline number."""
    return _HEADING_DECORATION.sub("", heading.strip())


def _search_text(block: Block, clean: str, description: str) -> str:
    parts = []
    if block.section:
        parts.append(" > ".join((block.section[1:] or block.section)[-2:]))
    if description:
        parts.append(description)
    if block.context and block.context != clean:
        parts.append(block.context[:200])
    parts.append(clean)
    if block.code_comments:
        parts.append(" ".join(block.code_comments)[:400])
    return ". ".join(parts)


_CODE_OR_TEXT = re.compile(r"(`[^`]*`)")


#: Emphasis of a few words, as Markdown reads it ("Do *not* run `X`", "Do _not_ …"): the
#: marks open before a letter and close after one, at a word's edge; a glob's star
#: ("*.ts and *.tsx") and a name's underscores ("_category_.json", "__init__") stay.
_EMPHASIS = re.compile(
    r"(?<![\w*])(?P<m>[*_])(?=[A-Za-z])(?P<t>[A-Za-z' -]{1,40}?)(?<=[A-Za-z])(?P=m)"
    r"(?![\w*]|\.\w)"
)


def _display_text(text: str) -> str:
    """Rule text for agents: emphasis markup removed, code spans kept verbatim.

    Code spans are set aside first, so bold around one (``**`/src`**``) is removed too
    and bold markers on either side of a span never pair up with each other.
    """
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    held = _CODE_OR_TEXT.sub(hold, text)
    held = _EMPHASIS.sub(r"\g<t>", strip_strong(held))
    shown = re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], held)
    return _WS.sub(" ", shown).strip()


def _inference_section(section: list[str]) -> str:
    """Headings used to infer tags: a file's lone title says little about each rule."""
    return " > ".join(section[1:] if len(section) > 1 else section)


def _checklists(blocks: list[Block]) -> set[int]:
    """``id()`` of the one-word items that belong to a checklist under a lead-in.

    A lone word or path is no rule ("- React"), except as one entry of a list its lead-in
    makes a whole ("Update ALL of these together:" over "- Rename `docs/<old>/`",
    "- `docs/versions.json`"): dropping that entry loses a file the rule names. Such a list
    is one whose lead-in ends in a colon and which holds an entry of two words or more.
    """
    lists: dict[tuple[str, tuple[str, ...]], list[Block]] = {}
    for block in blocks:
        # an exported file cites each line in a trailing comment: "Lead: <!-- f:L3 -->"
        lead = _drop_comments(block.context).rstrip()
        if block.kind in ("item", "step") and lead.endswith(":"):
            lists.setdefault((block.context, tuple(block.section)), []).append(block)
    keep: set[int] = set()
    for members in lists.values():
        if any(word_count(b.text) >= 2 for b in members):
            keep.update(id(b) for b in members)
    return keep


#: A heading that scopes the sections after it to the files a glob matches, as APM
#: (Agent Package Manager) writes the AGENTS.md it compiles: "## Files matching
#: `**/*.nix`" over "## Nix", each instruction file's sections under its ``applyTo``.
_FILES_MATCHING = re.compile(r"^(#{1,6})\s+Files\s+matching\s+`([^`]+)`\s*$", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,6})\s")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def _heading_scopes(src: SourceFile) -> list[tuple[int, list[str]]]:
    """``(first line, scopes)`` of each stretch of ``src`` a "Files matching `GLOB`"
    heading scopes, in file order; a stretch runs to the next such heading, a heading
    above its level or a thematic break. A glob of every file is the file's own scope;
    a nested file's globs are read as :func:`_inside` says. A file whose front matter
    scopes it keeps that scope."""
    if src.scopes and src.kind not in FOLDER_KINDS:
        return []
    folders = [s.removesuffix("/**") for s in src.scopes if s.endswith("/**")]
    stretches: list[tuple[int, list[str]]] = []
    level = 0
    fenced = False
    for idx, line in enumerate(src.body.split("\n")):
        if _FENCE_LINE.match(line):
            fenced = not fenced
        if fenced:
            continue
        number = src.offset + idx + 1
        heading = _HEADING.match(line)
        if not heading:
            if level and _BREAK.match(line):
                # APM closes the file with "---" over "*This file was generated by APM
                # CLI*": that note is about the file, not the last stretch's files
                level = 0
                stretches.append((number, list(src.scopes)))
            continue
        match = _FILES_MATCHING.match(line.strip())
        if match:
            level = len(match.group(1))
            globs = scope_globs(match.group(2))
            if not globs:
                stretches.append((number, list(src.scopes)))
            elif not folders:
                stretches.append((number, globs))
            else:
                stretches.append((number, _inside(globs, folders)))
        elif level and len(heading.group(1)) < level:
            level = 0
            stretches.append((number, list(src.scopes)))
    return stretches


def _inside(globs: list[str], folders: list[str]) -> list[str]:
    """``globs`` of a file scoped to ``folders``: a path from the root as written (APM
    writes `packages/client/src/**` in `packages/client/src/AGENTS.md`, and names files
    outside the folder when it places an instruction where most of them live), a
    `**/`-led glob read from the folder (`**/*.nix` in `nix/AGENTS.md` is its Nix files)."""
    out: set[str] = set()
    for glob in globs:
        bare = glob.lstrip("/")
        if bare.startswith("**/") and not any(bare.startswith(f"{f}/") for f in folders):
            out.update(f"{folder}/{bare}" for folder in folders)
        else:
            out.add(bare)
    return sorted(out)


def _scopes_at(stretches: list[tuple[int, list[str]]], line: int, default: list[str]) -> list[str]:
    scopes = default
    for first, found in stretches:
        if first > line:
            break
        scopes = found
    return scopes


#: A Markdown heading below a file's title: ``##`` to ``######``.
_SUBHEADING = re.compile(r"^ {0,3}#{2,6}\s")


def _titled_alone(
    blocks: list[Block],
    heading_lines: list[tuple[int, int, list[str]]],
    body: list[str],
    offset: int,
) -> dict[int, int]:
    """``id()`` of each block that is the only one of its section and starts right under
    the section's heading (a blank line at most between), mapped to the heading's line.
    Only a ``##`` heading or deeper: a file's ``#`` title names the file, not one rule.

    Such a heading is the rule's title ("## Security & Configuration Tips" over the one
    paragraph that says what to keep out of the repository; "### 1. Create model file"
    over its one command): the rule is cited from its heading, as a reader quoting it
    would, so the citation covers the words that say what it is about."""
    count: dict[tuple[str, ...], int] = {}
    for block in blocks:
        key = tuple(block.section)
        count[key] = count.get(key, 0) + 1
    opened = {tuple(section): (start, end) for start, end, section in heading_lines}
    out: dict[int, int] = {}
    for block in blocks:
        key = tuple(block.section)
        if not key or count[key] != 1 or key not in opened:
            continue
        start, end = opened[key]
        first = start - 1 - offset
        if not (0 <= first < len(body) and _SUBHEADING.match(body[first])):
            continue
        if 0 < block.line_start - end <= 2:
            out[id(block)] = start
    return out


def rules_from_source(
    src: SourceFile,
    markers: list[re.Pattern[str]],
    emit: Callable[[Rule], None] | None = None,
) -> list[Rule]:
    """Typed rules of one file; Markdown nested past Python's recursion limit (hostile
    emphasis runs, tags in tags) is one :class:`CharterError` naming the file. ``emit``
    is handed each rule as soon as it is made (the compile embeds them meanwhile)."""
    try:
        blocks, heading_lines = split_blocks(src.body, src.offset)
    except RecursionError:
        raise CharterError(f"{src.rel}: Markdown nested too deeply to parse") from None
    titled = _titled_alone(blocks, heading_lines, src.body.split("\n"), src.offset)
    rules: list[Rule] = []
    # a line that heads the items below it ("**CRITICAL: Never call `x`**" over a list)
    # is their section and a rule of its own: in the constitution when its items are
    titles = {b.section[-1] for b in blocks if b.section}
    checklists = _checklists(blocks)
    stretches = _heading_scopes(src)
    for block in blocks:
        ann = parse_annotations(_drop_comments(block.text))
        clean = ann.clean_text
        if _ANCHOR_LINK.search(clean) and _NAVIGATION_ONLY.fullmatch(_ANCHOR_LINK.sub("", clean)):
            continue  # a table of contents' entries: links to the page's own headings
        words = word_count(clean)
        if words < 2 and not ann.explicit_id and not (words and id(block) in checklists):
            continue
        section_path = list(block.section)
        section = " > ".join(section_path)
        tag_section = _inference_section(section_path)
        # the lead-in's words, not its citation comment (an exported file's "Lead: <!--
        # security.md:L3 -->" made its items security rules, their risk high)
        lead_in = _drop_comments(block.context)
        domains = ann.domains or infer_domains(clean + " " + lead_in, tag_section)
        intents = ann.intents or infer_intents(clean, tag_section)
        risk = normalize_risk(ann.risk) if ann.risk else infer_risk(clean, domains)
        shown = _display_text(clean)
        # "**Bug fixes — NEVER skip the failing test**:" heads its steps as the section
        # "Bug fixes — NEVER skip the failing test": the colon is no part of the title
        title = shown.rstrip(":").rstrip()
        heads = [title] if title in titles else []
        file_scopes = _scopes_at(stretches, block.line_start, src.scopes)
        scopes = sorted(set(ann.scopes) | set(file_scopes))
        # the constitution applies everywhere: a rule scoped to part of the tree (a nested
        # AGENTS.md, an ``applyTo`` file) under a "Required"/"Never" heading stays a shard
        # of its scope, not an always-loaded rule of the whole project
        # and a file its front matter loads only on demand (Cursor's ``alwaysApply:
        # false``) is not made always loaded by its headings ("# Security Guidelines")
        constitution = src.always or (
            not scopes
            and not src.on_demand
            and is_constitution_section(section_path + heads, markers)
        )
        rules.append(
            Rule(
                id=ann.explicit_id,
                text=shown,
                source=Source(
                    src.rel, titled.get(id(block), block.line_start), block.line_end, section
                ),
                priority=ann.priority if ann.priority is not None else DEFAULT_PRIORITY,
                risk=risk,
                domains=domains,
                intents=intents,
                tool_classes=ann.tool_classes,
                scopes=scopes,
                constitution=constitution,
                kind=block.kind,
                search_text=_search_text(block, clean, src.description),
                polarity=polarity(clean),
                directive=is_directive(block.text),
            )
        )
        if emit is not None:
            emit(rules[-1])
    return rules


def assign_ids(rules: Iterable[Rule]) -> list[Rule]:
    """Content ids for rules without explicit ids; identical texts get their section mixed in."""
    out = list(rules)
    seen: dict[str, int] = {}
    for rule in out:
        if rule.id:
            continue
        rid = content_id(rule.text)
        if rid in seen:
            rid = content_id(rule.text, f"{rule.source.path}#{rule.source.section}")
            n = 1
            base = rid
            while rid in seen:
                n += 1
                rid = f"{base}-{n}"
        seen[rid] = 1
        rule.id = rid
    return out


def apply_local_overrides(rules: list[Rule]) -> list[Rule]:
    """CLAUDE.local.md rules replace rules with the same id from other files."""
    local_ids = {r.id for r in rules if r.source.path.endswith("CLAUDE.local.md")}
    return [r for r in rules if r.source.path.endswith("CLAUDE.local.md") or r.id not in local_ids]
