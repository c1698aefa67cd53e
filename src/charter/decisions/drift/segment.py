"""Split an artifact into checkable units (bullets, sentences, clauses) with exact offsets.

Findings must quote ``text[start:end]`` exactly, so segmentation never rewrites text: it
only records spans. Sentences are the unit of meaning; clauses (split at dashes,
semicolons and ", but") bound the scope of a negation, so "we won't add X — Y is in
scope" negates only X.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|\(?[a-z]\))\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'`(\[])")
_CLAUSE_BREAK = re.compile(r"\s+[—–]\s+|\s+-\s+|;\s+|,\s+(?=but\b|while\b|whereas\b|although\b)")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Unit:
    """A sentence (or bullet) with its clauses and the heading/lead-in it sits under."""

    index: int
    start: int
    end: int
    text: str
    clauses: tuple[Span, ...]
    line_start: int
    is_bullet: bool


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\r\n":
        start += 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return start, end


def _clauses(text: str, start: int, end: int) -> tuple[Span, ...]:
    out: list[Span] = []
    pos = start
    for match in _CLAUSE_BREAK.finditer(text, start, end):
        s, e = _trim(text, pos, match.start())
        if e > s:
            out.append(Span(s, e, text[s:e]))
        pos = match.end()
    s, e = _trim(text, pos, end)
    if e > s:
        out.append(Span(s, e, text[s:e]))
    return tuple(out)


def _logical_lines(text: str) -> list[tuple[int, int]]:
    """Physical lines, with hard-wrapped continuations joined to the line they continue.

    A line continues the previous one when it is not a bullet, the previous line does not
    end a sentence or introduce a list, and it starts in lower case or is indented.
    """
    spans: list[tuple[int, int]] = []
    offset = 0
    prev_open = False
    for line in text.splitlines(keepends=True):
        start = offset
        offset += len(line)
        body = line.rstrip("\r\n")
        if not body.strip():
            prev_open = False
            continue
        stripped = body.lstrip()
        continues = (
            prev_open and not _BULLET.match(body) and (stripped[:1].islower() or body[:1] in " \t")
        )
        end = start + len(body)
        if continues and spans:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        prev_open = body.rstrip()[-1:] not in ".!?:"
    return spans


def segment(text: str) -> list[Unit]:
    """Units in document order; every span indexes into ``text`` unchanged."""
    units: list[Unit] = []
    for line_start, line_end in _logical_lines(text):
        body = text[line_start:line_end]
        bullet = _BULLET.match(body)
        pos = line_start + (bullet.end() if bullet else 0)
        cuts = [m.start() for m in _SENTENCE_END.finditer(text, pos, line_end)]
        bounds = [pos, *[c + 1 for c in cuts], line_end]
        for s0, e0 in itertools.pairwise(bounds):
            s, e = _trim(text, s0, e0)
            if e <= s:
                continue
            units.append(
                Unit(
                    index=len(units),
                    start=s,
                    end=e,
                    text=text[s:e],
                    clauses=_clauses(text, s, e),
                    line_start=line_start,
                    is_bullet=bool(bullet),
                )
            )
    return units
