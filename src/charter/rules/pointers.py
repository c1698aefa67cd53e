"""Markdown files a rule file sends the agent to, which Charter does not compile.

Some rule files are pointers: "Read the `./context` directory, and specially
`./context/00-agents.md`". The agent follows the pointer and reads the rules there;
Charter compiles what the pointer file itself says (a few sentences) and, unless the user
lists the files it names in ``rules.sources``, never sees the rules. Nothing here guesses
which named files hold rules: ``compile`` warns when a rule file that compiles to almost
nothing names Markdown files, and ``charter doctor`` lists what every rule file names, so
the user decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from charter.rules.sources import excluded

#: A rule file with this many rules or fewer that names Markdown files is a pointer.
POINTER_MAX_RULES = 5
#: Bounded work on any rule file: references read per file, files listed per folder.
MAX_REFERENCES = 64
_MARKDOWN = (".md", ".mdc", ".markdown")
_SPAN = re.compile(r"`([^`\n]{1,300})`")
_LINK = re.compile(r"\]\(([^)\s]{1,300})\)")
#: A path in running text: at least one folder separator or a Markdown suffix. A path
#: that goes on into a glob (``packages/api/**``) names the files it matches, not a file
#: or folder to read.
_BARE = re.compile(
    r"(?<![\w/`(\]])((?:\.{1,2}/)?[\w@.-]+(?:/[\w@.-]+)+/?|[\w@.-]+\.(?:md|mdc|markdown))(?![\w`*/])"
)


def _body(text: str) -> str:
    """``text`` without a leading front-matter block: its ``globs``, ``applyTo`` and
    ``paths`` scope the rules to files, they send the agent nowhere. The lines stay
    (blank) so nothing else moves."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text
    for idx in range(1, len(lines)):
        if lines[idx].strip() in ("---", "..."):
            return "\n" * idx + "\n".join(lines[idx:])
    return text


def _candidates(text: str) -> Iterable[str]:
    text = _body(text)
    yield from (m.group(1) for m in _SPAN.finditer(text))
    yield from (m.group(1) for m in _LINK.finditer(text))
    yield from (m.group(1) for m in _BARE.finditer(_SPAN.sub(" ", text)))


def _no_rules(name: str) -> bool:
    """A Markdown file the agent loads itself when it applies, never a rule file to list
    in ``rules.sources``: an agent skill's ``SKILL.md``, a Copilot prompt file run by
    name (``*.prompt.md``)."""
    return name == "SKILL.md" or name.lower().endswith(".prompt.md")


def _in_skill(base: Path, target: Path) -> bool:
    """Is ``target`` a file of an agent skill (a folder above it, inside the project,
    holds a ``SKILL.md``)? Its references load with the skill, as the skill file does."""
    for folder in target.parents:
        if folder == base or base not in folder.parents:
            return False
        if (folder / "SKILL.md").is_file():
            return True
    return False


def _markdown_in(folder: Path) -> bool:
    """Is ``folder`` a folder of Markdown documents (``docs/``, ``context/``)? At least
    half of what it holds: a code folder with a README or a ``SKILLS.md`` beside its
    sources ("`Components/`, `Pages/`: Blazor UI") is named for its code, not as a place
    of rules to compile."""
    try:
        entries = [p for p in folder.iterdir() if not p.name.startswith(".")]
        documents = sum(
            1
            for p in entries
            if p.suffix.lower() in _MARKDOWN and not _no_rules(p.name) and p.is_file()
        )
    except OSError:
        return False
    return documents > 0 and 2 * documents >= len(entries)


def named_markdown(
    root: Path, rule_file: str, text: str, compiled: set[str], exclude: Sequence[str] = ()
) -> list[str]:
    """The project's Markdown files and folders of Markdown files that ``text`` (the rule
    file ``rule_file``, project-relative) names and Charter does not compile, as
    project-relative paths (a folder ends in ``/``), sorted. URLs, anchors, paths outside
    the project and missing paths are not references; nor are skills and prompt files
    (:func:`_no_rules`), which the agent loads itself, nor a path ``rules.exclude``
    (``exclude``) leaves out: the user chose not to compile it."""
    base = root.resolve()
    here = (base / rule_file).parent
    found: set[str] = set()
    seen = 0
    for read, raw in enumerate(dict.fromkeys(_candidates(text))):
        # bounded work: the paths among the code spans count (a long file's hundred
        # spans of commands and names left `agent_docs/index.md` past the bound)
        if seen >= MAX_REFERENCES or read >= 8 * MAX_REFERENCES:
            break
        ref = raw.strip().split("#", 1)[0].rstrip(".,;:")
        if not ref or "://" in ref or ref.startswith(("~", "$", "-")) or "*" in ref:
            continue
        if any(c.isspace() for c in ref) and not ref.lower().endswith(_MARKDOWN):
            continue  # a command or a phrase, not a path
        seen += "/" in ref or ref.lower().endswith(_MARKDOWN)
        for start in (here, base):
            try:
                target = (start / ref.lstrip("/")).resolve()
                target.relative_to(base)
            except (OSError, ValueError):
                continue
            rel = target.relative_to(base).as_posix()
            if target.is_file() and target.suffix.lower() in _MARKDOWN:
                if (
                    rel not in compiled
                    and rel != rule_file
                    and not _no_rules(target.name)
                    and not _in_skill(base, target)
                ):
                    found.add(rel)
                break
            if target.is_dir() and target != base and _markdown_in(target):
                if not any(c.startswith(rel + "/") for c in compiled):
                    found.add(rel + "/")
                break
    # a folder whose files the text also names one by one is named by them
    files = [f for f in found if not f.endswith("/")]
    return sorted(
        f
        for f in found
        if not (f.endswith("/") and any(x.startswith(f) for x in files))
        and not excluded(f, list(exclude))
    )


#: A sentence that sends the reader elsewhere ("See `AGENTS.md` for …", "Read …", "Refer
#: to …", "Project instructions are in …"): generic English, not any file's wording.
_SENDS = re.compile(
    r"^\W*(?:please\s+)?(?:see|read|follow|refer\s+to|consult|check|look\s+at|go\s+to)\b"
    r"|\b(?:are|is|live|lives)\s+(?:also\s+)?(?:kept\s+|described\s+|documented\s+)?(?:in|at)\s*$",
    re.I,
)
#: Words of its own beyond the references that a pointer sentence may have ("for the
#: shared project instructions"): more, and it says something besides where to look.
POINTER_OWN_WORDS = 8


#: A Claude Code ``@path`` import, as :mod:`charter.rules.sources` follows it.
_IMPORT = re.compile(r"(?<![\w`/])@((?:~/|\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)*)")
#: Words a label after an import may have ("← circuit topology, all component values,
#: signal flow"); more, and the line says something of its own.
IMPORT_LABEL_WORDS = 12


def imports_only(root: Path, rule_file: str, text: str, compiled: set[str]) -> bool:
    """Whether a rule is a run of ``@path`` imports of rule files compiled here, each with
    at most a short label ("@.claude/rules/dsp.md ← WDF implementation rules, API
    reference"). Claude Code reads an imported file in the import's place, so the lines
    stand for those files, whose rules Charter compiles one by one; as a rule of its own
    the run of paths and labels was noise injected for any task about the labels' words."""
    found = list(_IMPORT.finditer(text))
    if not found or re.search(r"[^\W_]", text[: found[0].start()]):
        return False
    for at, match in enumerate(found):
        ref = _resolve(root, rule_file, match.group(1))
        if ref is None or ref not in compiled or ref == rule_file:
            return False
        end = found[at + 1].start() if at + 1 < len(found) else len(text)
        if len(re.findall(r"[^\W\d_][\w'-]*", text[match.end() : end])) > IMPORT_LABEL_WORDS:
            return False
    return True


#: A line that opens with a link to a file, then at most a summary of it after a dash or a
#: colon ("[Configs](../.claude/rules/configs.md) — how configs are loaded"): an index
#: entry. Its label is the link's words; the summary says what the file holds.
_LINK_ENTRY = re.compile(
    r"^\W*\[[^\]\n]{1,120}\]\(([^)\s]{1,300})\)[*_]*\s*(?:[-–—:]\s*(.*))?$", re.S
)
#: Words that make a summary a rule of its own ("— always run the tests first").
_SUMMARY_RULE = re.compile(
    r"\b(?:must|never|always|do\s+not|don't|should|shall|only|required|avoid|prefer|use|"
    r"run|ensure|make\s+sure|need\s+to|not)\b",
    re.I,
)


def links_only_to(root: Path, rule_file: str, text: str, compiled: set[str]) -> bool:
    """Whether a rule is an index entry for a rule file compiled here: a link to it and a
    short summary of what it holds, no act of its own (:data:`_LINK_ENTRY`). That
    file's rules reach the agent one by one; the entry was retrieved for its summary's
    words and sent the agent to read the whole file."""
    entry = _LINK_ENTRY.match(text.strip())
    if entry is None:
        return False
    ref = _resolve(root, rule_file, entry.group(1))
    if ref is None or ref not in compiled or ref == rule_file:
        return False
    summary = entry.group(2) or ""
    words = re.findall(r"[^\W\d_][\w'-]*", summary)
    return len(words) <= IMPORT_LABEL_WORDS and not _SUMMARY_RULE.search(summary)


def points_only_to(root: Path, rule_file: str, text: str, compiled: set[str]) -> bool:
    """Whether a rule's whole text only sends the agent to rule files Charter compiles
    ("See `AGENTS.md` for the shared project instructions." in a ``CLAUDE.md``, or a run
    of ``@path`` imports of them: :func:`imports_only`). Those files' rules reach the
    agent already, each when it applies; the pointer would only send it to read the
    whole file again (what managed rules exist to avoid)."""
    if imports_only(root, rule_file, text, compiled) or links_only_to(
        root, rule_file, text, compiled
    ):
        return True
    refs = [m for m in (_resolve(root, rule_file, c) for c in _candidates(text)) if m]
    if not refs or not all(ref in compiled and ref != rule_file for ref in refs):
        return False
    rest = _SPAN.sub(" ", _LINK.sub(" ", text))
    rest = _BARE.sub(" ", rest)
    words = re.findall(r"[A-Za-z']+", rest)
    return len(words) <= POINTER_OWN_WORDS + 1 and bool(_SENDS.search(" ".join(words)))


def _resolve(root: Path, rule_file: str, raw: str) -> str | None:
    """The project-relative path of a file ``raw`` names from ``rule_file``, or None."""
    base = root.resolve()
    ref = raw.strip().split("#", 1)[0].rstrip(".,;:")
    if not ref or "://" in ref or ref.startswith(("~", "$", "-")) or "*" in ref:
        return None
    for start in ((base / rule_file).parent, base):
        try:
            target = (start / ref.lstrip("/")).resolve()
            rel = target.relative_to(base).as_posix()
        except (OSError, ValueError):
            continue
        if target.is_file():
            return rel
    return None
