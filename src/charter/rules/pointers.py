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
from collections.abc import Iterable
from pathlib import Path

#: A rule file with this many rules or fewer that names Markdown files is a pointer.
POINTER_MAX_RULES = 5
#: Bounded work on any rule file: references read per file, files listed per folder.
MAX_REFERENCES = 64
_MARKDOWN = (".md", ".mdc", ".markdown")
_SPAN = re.compile(r"`([^`\n]{1,300})`")
_LINK = re.compile(r"\]\(([^)\s]{1,300})\)")
#: A path in running text: at least one folder separator or a Markdown suffix.
_BARE = re.compile(
    r"(?<![\w/`(\]])((?:\.{1,2}/)?[\w@.-]+(?:/[\w@.-]+)+/?|[\w@.-]+\.(?:md|mdc|markdown))(?![\w`])"
)


def _candidates(text: str) -> Iterable[str]:
    yield from (m.group(1) for m in _SPAN.finditer(text))
    yield from (m.group(1) for m in _LINK.finditer(text))
    yield from (m.group(1) for m in _BARE.finditer(_SPAN.sub(" ", text)))


def _no_rules(name: str) -> bool:
    """A Markdown file the agent loads itself when it applies, never a rule file to list
    in ``rules.sources``: an agent skill's ``SKILL.md``, a Copilot prompt file run by
    name (``*.prompt.md``)."""
    return name == "SKILL.md" or name.lower().endswith(".prompt.md")


def _markdown_in(folder: Path) -> bool:
    try:
        return any(
            p.suffix.lower() in _MARKDOWN and not _no_rules(p.name) and p.is_file()
            for p in folder.iterdir()
        )
    except OSError:
        return False


def named_markdown(root: Path, rule_file: str, text: str, compiled: set[str]) -> list[str]:
    """The project's Markdown files and folders of Markdown files that ``text`` (the rule
    file ``rule_file``, project-relative) names and Charter does not compile, as
    project-relative paths (a folder ends in ``/``), sorted. URLs, anchors, paths outside
    the project and missing paths are not references; nor are skills and prompt files
    (:func:`_no_rules`), which the agent loads itself."""
    base = root.resolve()
    here = (base / rule_file).parent
    found: set[str] = set()
    for seen, raw in enumerate(dict.fromkeys(_candidates(text))):
        if seen >= MAX_REFERENCES:
            break
        ref = raw.strip().split("#", 1)[0].rstrip(".,;:")
        if not ref or "://" in ref or ref.startswith(("~", "$", "-")) or "*" in ref:
            continue
        for start in (here, base):
            try:
                target = (start / ref.lstrip("/")).resolve()
                target.relative_to(base)
            except (OSError, ValueError):
                continue
            rel = target.relative_to(base).as_posix()
            if target.is_file() and target.suffix.lower() in _MARKDOWN:
                if rel not in compiled and rel != rule_file and not _no_rules(target.name):
                    found.add(rel)
                break
            if target.is_dir() and target != base and _markdown_in(target):
                if not any(c.startswith(rel + "/") for c in compiled):
                    found.add(rel + "/")
                break
    # a folder whose files the text also names one by one is named by them
    files = [f for f in found if not f.endswith("/")]
    return sorted(f for f in found if not (f.endswith("/") and any(x.startswith(f) for x in files)))
