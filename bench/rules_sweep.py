"""Compile real rule files one by one and count the cuts a user would call wrong.

    python bench/rules_sweep.py DIR... [--max-tokens 150] [--show] [--json]

Each rule file found under a DIR (by Charter's own discovery, so a ``.cursor/rules/*.mdc``
or ``.kiro/steering/*.md`` is read as that kind) is copied alone into a temporary project
and parsed as ``charter compile`` parses it (sources, blocks, ids, copies folded; no
embedding). Then, per file and pooled:

- ``heading``: a rule that is only a heading of the file, or a short label ending in ":";
- ``code``: a rule that is a code block's comments alone or a table's separator row;
- ``cut``: a rule cut mid-sentence: its text ends without terminal punctuation while the
  next source line goes on with the sentence (or it starts mid-sentence);
- ``long``: a rule longer than ``--max-tokens`` (a paragraph swallowing several rules);
- ``dup``: a rule whose text another rule of the file has too;
- ``uncovered``: a source line that instructs (imperative, must, never, always …) and that
  no rule's span covers (code, front matter, comments and headings aside);
- ``front``: a front-matter key shown as a rule;
- ``markup``: an HTML comment or an XML-like tag inside a rule's text;
- ``unforbid``: a list item shown without the prohibition it sits under ("❌ Don't:",
  "Do not use these commands:") while it forbids nothing itself, so it says the opposite.

The counts are a guide for reading the flagged rules (``--show``), not a target: a lead-in
ending in ":" is a rule on purpose, and some long paragraphs are one rule.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from charter.config import Project, Settings
from charter.rules.annotate import is_directive, polarity
from charter.rules.blocks import word_count
from charter.rules.build import normalized
from charter.rules.compiler import CompileReport, _parse_rules, _sources_for
from charter.rules.model import Rule
from charter.rules.sources import SourceFile, discover
from charter.tokens import count_tokens

KINDS = ("heading", "code", "cut", "long", "dup", "uncovered", "front", "markup", "unforbid")

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_SEPARATOR = re.compile(r"^[\s|:-]*-{3,}[\s|:-]*$")
_TAG = re.compile(r"</?[A-Za-z][\w.-]*(?:\s[^<>]*)?/?>")
_CODE_SPAN = re.compile(r"`[^`]*`")
_LIST_START = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_ENDS = re.compile(r"[.!?:;。！？：；…)\]」』）]$")


def _plain(text: str) -> str:
    return re.sub(r"[*_`#]+", "", text).strip()


def _layout(src: SourceFile) -> tuple[list[str], set[int], set[int], dict[int, str]]:
    """The file's lines (0-based list), the 1-based lines inside code fences or HTML
    comments, the lines of front matter, and the heading texts by line."""
    lines = src.text.splitlines()
    hidden: set[int] = set()
    headings: dict[int, str] = {}
    fence = ""
    comment = False
    for number, line in enumerate(lines, 1):
        if number <= src.offset:
            continue
        opened = _FENCE.match(line)
        if fence:
            hidden.add(number)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            hidden.add(number)
            continue
        if comment or "<!--" in line:
            hidden.add(number)
            comment = "-->" not in line.split("<!--")[-1] if "<!--" in line else "-->" not in line
            continue
        heading = _HEADING.match(line)
        if heading:
            headings[number] = _plain(heading.group(1))
    front = set(range(1, src.offset + 1))
    return lines, hidden, front, headings


def _continues(line: str) -> bool:
    """Does this source line go on with a sentence begun above it?"""
    stripped = line.strip()
    if not stripped or _LIST_START.match(line) or _HEADING.match(line) or _FENCE.match(line):
        return False
    if stripped.startswith(("|", ">", "<", "#")):
        return False
    return stripped[0].islower()


def _list_lead(lines: list[str], start: int) -> str:
    """The heading or colon-ended line right over the list that holds line ``start``
    (a top-level item's), or ``""``."""
    if not 0 < start <= len(lines) or not re.match(r"^(?:[-*+]|\d+[.)])\s", lines[start - 1]):
        return ""
    i = start - 2
    while i >= 0 and lines[i].strip() and not _HEADING.match(lines[i]):
        if not (_LIST_START.match(lines[i]) or lines[i].startswith((" ", "\t"))):
            return ""
        i -= 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i < 0:
        return ""
    heading = _HEADING.match(lines[i])
    if heading:
        return heading.group(1)
    line = lines[i].strip()
    return line if _plain(line).endswith((":", "：")) else ""


def check_file(src: SourceFile, rules: list[Rule], max_tokens: int) -> dict[str, list[str]]:
    lines, hidden, front, headings = _layout(src)
    heading_texts = {h.lower().rstrip(":") for h in headings.values()}
    keys = {str(k).lower() for k in src.meta}
    found: dict[str, list[str]] = {kind: [] for kind in KINDS}

    def flag(kind: str, rule: Rule | None, note: str, line: int = 0) -> None:
        where = f"L{rule.source.line_start}-{rule.source.line_end}" if rule else f"L{line}"
        found[kind].append(f"{where}: {note[:160]}")

    seen: Counter[str] = Counter(normalized(r.text).rstrip(".") for r in rules)
    covered: set[int] = set()
    for rule in rules:
        start, end = rule.source.line_start, rule.source.line_end
        covered.update(range(start, end + 1))
        text = rule.text.strip()
        plain = _plain(text)
        if plain.lower().rstrip(":") in heading_texts or (
            plain.endswith(":") and word_count(plain) <= 6
        ):
            flag("heading", rule, text)
        if rule.kind == "code" or _SEPARATOR.match(text) or text.startswith(("```", "~~~")):
            flag("code", rule, text)
        tail = plain.rstrip("*_` ")
        if tail and not _ENDS.search(tail) and rule.kind != "command":
            after = lines[end] if end < len(lines) else ""
            if end + 1 not in hidden and _continues(after):
                flag("cut", rule, f"{text} || next: {after.strip()}")
        first = lines[start - 1] if 0 < start <= len(lines) else ""
        before = lines[start - 2] if start >= 2 else ""
        if (
            rule.kind not in ("command", "row")
            and _continues(first)
            and before.strip()
            and not _LIST_START.match(before)
            and not _HEADING.match(before)
            and start - 1 not in hidden
            and not _ENDS.search(_plain(before))
        ):
            flag("cut", rule, f"starts mid-sentence: {text}")
        tokens = count_tokens(text)
        if tokens > max_tokens:
            flag("long", rule, f"{tokens} tokens: {text}")
        if seen[normalized(text).rstrip(".")] > 1:
            flag("dup", rule, text)
        if start <= src.offset or (
            ":" in plain and plain.split(":", 1)[0].strip().lower() in keys and src.offset
        ):
            flag("front", rule, text)
        lead = _list_lead(lines, start)
        if (
            rule.kind in ("item", "step")
            and lead
            and polarity(lead) == "never"
            and not polarity(text)
            and _plain(lead).rstrip(":：") not in plain
        ):
            flag("unforbid", rule, f"{text} || under: {lead}")
        bare = _CODE_SPAN.sub("", text)
        if "<!--" in bare or "-->" in bare or _TAG.search(bare):
            flag("markup", rule, text)
    for number, line in enumerate(lines, 1):
        if number in covered or number in hidden or number in front or number in headings:
            continue
        stripped = _LIST_START.sub("", line).strip()
        after = lines[number] if number < len(lines) else ""
        if _SEPARATOR.match(stripped) or (stripped.startswith("|") and _SEPARATOR.match(after)):
            continue  # a table's separator, or its header row (each row's context)
        bare = _TAG.sub(" ", stripped).strip()
        if word_count(bare) >= 3 and is_directive(bare):
            flag("uncovered", None, bare, number)
    return found


def sweep(dirs: list[Path], max_tokens: int) -> list[dict[str, object]]:
    settings = Settings()
    out: list[dict[str, object]] = []
    for folder in dirs:
        for kind, path in sorted(discover(folder, settings.rules.exclude), key=lambda e: e[1]):
            rel = path.relative_to(folder)
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / "project"
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, root / rel)
                project = Project(root=root, settings=settings, state_override=Path(tmp) / "state")
                report = CompileReport()
                sources = _sources_for(project, [root / rel], report)
                rules = _parse_rules(project, sources, report)
                src = sources[0]
                mine = [r for r in rules if r.source.path == src.rel]
                found = check_file(src, mine, max_tokens)
            out.append(
                {
                    "file": f"{folder.name}/{rel}",
                    "kind": kind,
                    "rules": len(mine),
                    "counts": {k: len(v) for k, v in found.items()},
                    "flagged": found,
                    "errors": report.errors,
                }
            )
    return out


def len_rules(result: dict[str, object]) -> int:
    rules = result["rules"]
    assert isinstance(rules, int)
    return rules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path, help="directories holding rule files")
    parser.add_argument("--max-tokens", type=int, default=150, help="a longer rule is flagged")
    parser.add_argument("--show", action="store_true", help="print every flagged rule")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    missing = [d for d in args.dirs if not d.is_dir()]
    if missing:
        sys.exit(f"rules_sweep: not a directory: {missing[0]}")
    results = sweep(args.dirs, args.max_tokens)
    pooled: Counter[str] = Counter()
    for result in results:
        counts = result["counts"]
        assert isinstance(counts, dict)
        pooled.update(counts)
    total_rules = sum(len_rules(r) for r in results)
    if args.json:
        print(json.dumps({"files": results, "pooled": dict(pooled), "rules": total_rules}))
        return 0
    print(f"{'file':52} {'rules':>5} " + " ".join(f"{k:>9}" for k in KINDS))
    for result in results:
        counts = result["counts"]
        assert isinstance(counts, dict)
        print(
            f"{str(result['file'])[:52]:52} {result['rules']:>5} "
            + " ".join(f"{counts[k]:>9}" for k in KINDS)
        )
        if args.show:
            flagged = result["flagged"]
            assert isinstance(flagged, dict)
            for kind in KINDS:
                for note in flagged[kind]:
                    print(f"    [{kind}] {note}")
    print(
        f"{'pooled (' + str(len(results)) + ' files)':52} {total_rules:>5} "
        + " ".join(f"{pooled[k]:>9}" for k in KINDS)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
