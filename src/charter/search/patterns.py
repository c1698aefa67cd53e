"""Recognisers for checkable facts in free text: IDs, dates, money, numbers, quoted phrases.

Shared by exact lookups in search (match these literally before ranking) and by fact
verification (look each one up in the structured source of truth). Every recogniser also
gives a normalised form so ``$52,500``, ``52500`` and ``52,500.00`` compare equal, and
``Nov 15, 2025`` equals ``2025-11-15``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for m in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
ID = re.compile(r"\b[A-Z][A-Z0-9]{1,11}(?:[-_][A-Z0-9]{1,12})*[-_]\d{1,10}[A-Z]?\b")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
TEXT_DATE_MDY = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE
)
TEXT_DATE_DMY = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.IGNORECASE
)
MONEY = re.compile(
    r"(?:(?P<cur>[$€£])\s?|\b(?P<code>USD|EUR|GBP)\s?)"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(?P<mult>[kKmM])\b)?"
)
#: Plain numbers; not parts of words, versions (2.32.4), times (14:00) or ranges (3-5).
NUMBER = re.compile(
    r"(?<![\w.$€£:-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?P<pct>\s?%)?(?![\w:-]|\.\d)"
)
QUOTED = re.compile(r"[\"“]([^\"”]{2,200})[\"”]")


@dataclass(frozen=True)
class Fact:
    """One checkable value found in text."""

    kind: str  # id | date | money | number | phrase
    text: str  # as written
    value: str  # normalised
    start: int
    end: int
    line: int


def _normal_number(text: str) -> str:
    value = float(text.replace(",", ""))
    return str(int(value)) if value == int(value) else repr(value)


def normalise(kind: str, text: str) -> str:
    """The comparable form of a value of ``kind`` (used on SoT fields too)."""
    raw = text.strip()
    if kind == "date":
        found = find_facts(raw, kinds=("date",))
        return found[0].value if found else raw
    if kind in ("money", "number"):
        cleaned = re.sub(r"[$€£,\s%]|USD|EUR|GBP", "", raw)
        multiplier = 1.0
        if cleaned[-1:].lower() == "k":
            multiplier, cleaned = 1000.0, cleaned[:-1]
        elif cleaned[-1:].lower() == "m":
            multiplier, cleaned = 1_000_000.0, cleaned[:-1]
        try:
            return _normal_number(str(float(cleaned) * multiplier))
        except ValueError:
            return raw.lower()
    if kind == "id":
        return raw.upper()
    return raw.lower()


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def find_facts(text: str, kinds: tuple[str, ...] = ("id", "date", "money", "number")) -> list[Fact]:
    """Facts in ``text`` in order of appearance; overlapping matches keep the first kind."""
    taken: list[tuple[int, int]] = []
    facts: list[Fact] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    def add(kind: str, start: int, end: int, value: str) -> None:
        if free(start, end):
            taken.append((start, end))
            facts.append(Fact(kind, text[start:end], value, start, end, _line_of(text, start)))

    if "date" in kinds:
        for m in ISO_DATE.finditer(text):
            y, mo, d = (int(g) for g in m.groups())
            if _valid(y, mo, d):
                add("date", m.start(), m.end(), f"{y:04d}-{mo:02d}-{d:02d}")
        for m in TEXT_DATE_MDY.finditer(text):
            mo, d, y = _MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3))
            if _valid(y, mo, d):
                add("date", m.start(), m.end(), f"{y:04d}-{mo:02d}-{d:02d}")
        for m in TEXT_DATE_DMY.finditer(text):
            d, mo, y = int(m.group(1)), _MONTHS[m.group(2).lower()], int(m.group(3))
            if _valid(y, mo, d):
                add("date", m.start(), m.end(), f"{y:04d}-{mo:02d}-{d:02d}")
    if "id" in kinds:
        for m in ULID.finditer(text):
            if any(c.isalpha() for c in m.group(0)) and any(c.isdigit() for c in m.group(0)):
                add("id", m.start(), m.end(), m.group(0).upper())
        for m in ID.finditer(text):
            add("id", m.start(), m.end(), m.group(0).upper())
    if "money" in kinds:
        for m in MONEY.finditer(text):
            add("money", m.start(), m.end(), normalise("money", m.group(0)))
    if "number" in kinds:
        for m in NUMBER.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if not text[line_start : m.start()].strip() and text[m.end() : m.end() + 1] in (
                ".",
                ")",
            ):
                continue  # an ordered-list marker, not a fact
            kind = "number"
            value = (
                _normal_number(m.group(1)) if not m.group(2) else normalise("number", m.group(0))
            )
            if m.group("pct"):
                value += "%"
            add(kind, m.start(), m.end(), value)
    if "phrase" in kinds:
        for m in QUOTED.finditer(text):
            add("phrase", m.start(1), m.end(1), m.group(1).strip().lower())
    facts.sort(key=lambda f: f.start)
    return facts


def _valid(y: int, mo: int, d: int) -> bool:
    try:
        date(y, mo, d)
    except ValueError:
        return False
    return 1900 <= y <= 2200
