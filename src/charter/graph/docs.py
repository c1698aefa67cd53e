"""Markdown documents and ADRs as ``doc:`` nodes with their sections.

A section is a heading with its line span (up to the next heading of the same or a
higher level). Paths and backticked identifiers a section mentions are kept so the
builder can draw ``cites`` edges to the files and symbols it talks about.
"""

from __future__ import annotations

import re
from typing import Any

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_PATHLIKE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.\w+|[\w-]+\.(?:py|ts|tsx|js|jsx|md))\b")
_BACKTICK = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def extract(text: str) -> dict[str, Any]:
    """Title, sections (title, slug, level, span) and mentioned paths/identifiers."""
    lines = text.split("\n")
    heads: list[tuple[int, int, str]] = []  # (line, level, title)
    in_fence = False
    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _HEADING.match(line)
        if match:
            heads.append((number, len(match.group(1)), match.group(2).strip()))
    sections: list[dict[str, Any]] = []
    used: dict[str, int] = {}
    for i, (start, level, title) in enumerate(heads):
        end = len(lines)
        for later_line, later_level, _ in heads[i + 1 :]:
            if later_level <= level:
                end = later_line - 1
                break
        base = slug(title)
        used[base] = used.get(base, 0) + 1
        key = base if used[base] == 1 else f"{base}-{used[base]}"
        body = "\n".join(lines[start - 1 : end])
        sections.append(
            {
                "title": title,
                "slug": key,
                "level": level,
                "line_start": start,
                "line_end": max(start, end),
                "mentions": sorted(set(_PATHLIKE.findall(body))),
                "identifiers": sorted(set(_BACKTICK.findall(body))),
            }
        )
    title = heads[0][2] if heads else ""
    return {"language": "markdown", "title": title, "sections": sections}
