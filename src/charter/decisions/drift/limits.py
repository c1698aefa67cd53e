"""Quantity limits a free-text decision sets, and the quantities a text states.

A free-text answer often fixes numbers: "loans last at most 7 days", "no teacher gets more
than 5 consecutive periods", "only addresses within 25 km of the depot". A text breaks such
an answer without naming any option: "loans of up to 14 days", "a seventh request is
accepted", "the radius went from 25 to 40 km". Word overlap cannot see that; comparing the
quantities can. This module reads a quantity as a number with the measure it counts (the
words after it, a currency before it), converts times to one scale, and reads the bound
an answer puts on it from the comparative in front ("at most", "no fewer than").

The cue words here are generic English comparatives, small and documented; what a limit is
about comes from the answer's own words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from charter.decisions.drift import lexicon

BoundKind = Literal["max", "min", "exact"]

_SMALL = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen", "twenty"),
]
_TENS = {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
#: Ordinals from "third" on: "a seventh request" is the count seven; "first" and "second"
#: are too often something else ("the first appointment", "30 seconds").
_ORDINALS = {
    w: i + 3
    for i, w in enumerate(
        [
            *("third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"),
            *("eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth"),
            *("seventeenth", "eighteenth", "nineteenth", "twentieth"),
        ]
    )
}
_WORD_VALUES = {w: i for i, w in enumerate(_SMALL)} | _TENS
_WORD_NUMBER = (
    r"(?:(?:" + "|".join(_TENS) + r")(?:[- ](?:" + "|".join(_SMALL[1:10]) + r"))?"
    r"|" + "|".join(sorted(_SMALL[1:], key=len, reverse=True)) + r")"
)
_CURRENCY = r"(?:GBP|EUR|USD|CHF|CAD|AUD|NZD|JPY|INR|SEK|NOK|DKK|PLN|[£€$¥₹])"
#: A currency sign and its code are one measure ("£15" and "GBP 45" are both pounds).
_SIGN_CODES = {"£": "GBP", "€": "EUR", "$": "USD", "¥": "JPY", "₹": "INR"}
_NUMBER = re.compile(
    r"(?P<cur>" + _CURRENCY + r")?\s?"
    r"(?<![\w.:/#-])"
    r"(?:(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?P<ordsuf>st|nd|rd|th)?"
    r"|(?P<word>" + _WORD_NUMBER + r")|(?P<ord>" + "|".join(_ORDINALS) + r"))"
    r"(?![\w:/])(?!\.\d)",
    re.I,
)
#: The time scale, in seconds: one measure whatever unit a text picks.
_TIME = {
    "second": 1,
    "sec": 1,
    "secs": 1,
    "s": 1,
    "minute": 60,
    "min": 60,
    "mins": 60,
    "hour": 3600,
    "hr": 3600,
    "hrs": 3600,
    "h": 3600,
    "day": 86400,
    "night": 86400,
    "week": 604800,
    "wk": 604800,
    "fortnight": 1209600,
    "month": 2629800,
    "year": 31557600,
    "yr": 31557600,
    "yrs": 31557600,
}
_PERCENT = re.compile(r"\s?(?:%|per\s?cent\b|percent\b)", re.I)
#: Comparatives that cap a quantity ("at most 7 days") or set its floor ("at least 2").
_MAX_BEFORE = re.compile(
    r"\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|within|less\s+than|fewer\s+than"
    r"|a\s+maximum\s+of|maximum(?:\s+of)?|max\.?|no\s+later\s+than|no\s+longer\s+than"
    r"|limited\s+to|capped\s+at|a\s+cap\s+of|cap(?:ped)?\s+of|never\s+more\s+than"
    r"|not\s+exceed(?:ing)?|exceed)\s*$",
    re.I,
)
_MIN_BEFORE = re.compile(
    r"\b(?:at\s+least|no\s+fewer\s+than|no\s+less\s+than|not\s+less\s+than|a\s+minimum\s+of"
    r"|minimum(?:\s+of)?|min\.?|no\s+earlier\s+than|no\s+sooner\s+than)\s*$",
    re.I,
)
_MAX_AFTER = re.compile(r"^\S*\s*(?:\w+\s+){0,2}?(?:or\s+(?:less|fewer|under|below))\b", re.I)
_MIN_AFTER = re.compile(r"^\S*\s*(?:\w+\s+){0,2}?(?:or\s+(?:more|longer|over|above))\b", re.I)
#: A quantity that says whom or what a rule applies to, not what it allows ("dogs over 40
#: kg", "anglers aged 66 or over", "children under 13").
_CONDITION_BEFORE = re.compile(
    r"\b(?:over|above|under|below|aged|older\s+than|younger\s+than|if|when|once|for)\s*$",
    re.I,
)
#: In a text, only the words that say whom a quantity picks out: "kept for 18 months"
#: states a duration, "dogs over 40 kg" picks dogs out.
_WHOM_BEFORE = re.compile(
    r"\b(?:over|above|under|below|aged|older\s+than|younger\s+than)\s*$", re.I
)
_CONDITION_AFTER = re.compile(r"^\S*\s*(?:\w+\s+){0,2}?or\s+(?:over|older|above)\b", re.I)
#: A band a price or rate applies to ("GBP 35 for up to 3 items"), not a cap on it.
_BAND = re.compile(r"\bfor\s+(?:up\s+to|at\s+most|no\s+more\s+than)\s*$", re.I)
#: "from 15 to 5", "15 → 5": the first number is the old value.
_CHANGE = re.compile(r"\bfrom\s*$", re.I)
_UNIT_WORDS = 3
#: What follows a quantity and says the text keeps the limit ("… is refused", "… gets an
#: error").
_REFUSED = re.compile(
    r"\b(?:refused|rejected|blocked|denied|declined|disallowed|not\s+allowed|errors?|fails?)\b",
    re.I,
)
_SHARE = re.compile(r"\s+of\s+(?:the\s+|a\s+)?(?P<total>\d+)(?=\s)", re.I)
#: "no teacher gets more than 5 periods": a plain comparative caps a quantity only under
#: a negation earlier in its clause ("Orders of more than 50 items" is a condition).
_MORE_BEFORE = re.compile(r"\b(?:more|longer|later|greater|higher|bigger|larger)\s+than\s*$", re.I)


@dataclass(frozen=True)
class Quantity:
    """A number and the measure it counts: ``time`` (value in seconds), ``%``,
    ``money:GBP`` or the stems of the words after the number ("items", "consecutive
    teaching periods" → {consecut, teach, period})."""

    value: float
    measure: str
    units: frozenset[str]
    start: int
    end: int


@dataclass(frozen=True)
class Bound:
    """One cap or floor of a free-text answer and the words of its clause (what it is
    about)."""

    kind: BoundKind
    quantity: Quantity
    about: frozenset[str]


def _value(m: re.Match[str]) -> float | None:
    if m.group("num"):
        return float(m.group("num").replace(",", ""))
    if m.group("ord"):
        return float(_ORDINALS[m.group("ord").lower()])
    word = m.group("word").lower().replace("-", " ").split()
    total = 0
    for w in word:
        if w not in _WORD_VALUES:
            return None
        total += _WORD_VALUES[w]
    return float(total)


def quantities(text: str) -> list[Quantity]:
    """The quantities ``text`` states, in order. A number without a measure (a year, a
    version, a bare count with nothing after it) is left out."""
    out = []
    skip_total: str | None = None
    for m in _NUMBER.finditer(text):
        if skip_total is not None and m.group(0).strip() == skip_total:
            skip_total = None
            continue
        skip_total = None
        value = _value(m)
        if value is None:
            continue
        after = text[m.end() : m.end() + 60]
        if m.group("cur"):
            cur = m.group("cur").upper()
            cur = _SIGN_CODES.get(cur, cur)
            out.append(Quantity(value, f"money:{cur}", frozenset(), m.start(), m.end()))
            continue
        if _PERCENT.match(after):
            out.append(Quantity(value, "%", frozenset(), m.start(), m.end()))
            continue
        words: list[str] = []
        share = _SHARE.match(after)  # "25 of the 30 weekly periods": 25 periods
        if share:
            after = after[share.end() :]
            skip_total = share.group("total")
        head = re.split(r"[,.;:()!?]", after, maxsplit=1)[0]
        for tok in [t for t in re.split(r"[\s-]+", head) if t]:
            if len(words) >= _UNIT_WORDS:
                break
            low = tok.lower()
            if not re.fullmatch(r"[a-z]+", low):
                break
            if low in ("of", "the", "a", "an") and not words:
                continue  # "25 of the 30 weekly periods"
            if low in lexicon.STOPWORDS and low not in _TIME:
                break
            words.append(low)
        if not words:
            continue
        scale = _TIME.get(words[0]) or _TIME.get(words[0][:-1] if words[0][-1:] == "s" else "")
        if scale and not m.group("ordsuf") and not m.group("ord"):
            unit_words = frozenset(lexicon.stem(w) for w in words[1:2] if w == "old")
            measure = "age" if unit_words else "time"
            out.append(Quantity(value * scale, measure, unit_words, m.start(), m.end()))
            continue
        # what is counted: the words after the number ("items", "consecutive teaching
        # periods"); two counts are of one thing when they share one of them
        units = frozenset(lexicon.stem(w) for w in words)
        out.append(Quantity(value, "count", units, m.start(), m.end()))
    return _drop_old_values(text, out)


def _drop_old_values(text: str, found: list[Quantity]) -> list[Quantity]:
    """ "from 15 to 5 minutes", "15 → 5": only the new value is what the text now says."""
    out = []
    for i, q in enumerate(found):
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt is not None:
            between = text[q.end : nxt.start]
            arrow = re.fullmatch(r"\s*(?:→|->|=>)\s*", between)
            moved = re.fullmatch(r"\s*(?:\w+\s+){0,2}?to\s*", between, re.I) and _CHANGE.search(
                text[max(0, q.start - 30) : q.start]
            )
            if arrow or moved:
                continue
        out.append(q)
    return out


def _same(a: Quantity, b: Quantity) -> bool:
    """Two quantities of one measure: times and ages by scale, money by currency, counts
    by a shared word of what they count."""
    if a.measure != b.measure:
        return False
    if a.measure == "count":
        return bool(a.units & b.units)
    return True


def same_measure(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities can be compared (see :func:`_same`)."""
    return _same(a, b)


def _clause_quantities(answer: str) -> Iterator[tuple[str, Quantity, str, str]]:
    """Each quantity of a free-text answer with its clause and the 40 characters either
    side: caps, floors and plain values are all read from that window."""
    for clause in re.split(r"[.;]\s+|\n+|,\s+(?:and|but)\s+", answer):
        for q in quantities(clause):
            yield clause, q, clause[max(0, q.start - 40) : q.start], clause[q.end : q.end + 40]


def bounds(answer: str) -> list[Bound]:
    """The caps and floors a free-text answer states, each with the words of its clause."""
    out = []
    for clause, q, before, after in _clause_quantities(answer):
        if _CONDITION_BEFORE.search(before) or _CONDITION_AFTER.match(after):
            continue
        if _BAND.search(before):  # "GBP 35 for up to 3 items": a price band
            continue
        kind: BoundKind | None = None
        negated = lexicon.PRE_NEGATORS.search(clause[: q.start])
        capped = _MAX_BEFORE.search(before) or _MAX_AFTER.match(after)
        if capped or (_MORE_BEFORE.search(before) and negated):
            kind = "max"
        elif _MIN_BEFORE.search(before) or _MIN_AFTER.match(after):
            kind = "min"
        if kind is None:
            continue
        about = frozenset(lexicon.content_stems(clause)) - q.units
        out.append(Bound(kind, q, about))
    return out


def stated_values(answer: str) -> list[Bound]:
    """The plain values a free-text answer states, neither a cap nor a floor nor whom a
    rule applies to ("bags stay on the shelf for 14 days", "anonymised 24 months after
    closure"), each with the words of its clause, as ``exact`` bounds."""
    capped = {(b.quantity.start, b.quantity.value) for b in bounds(answer)}
    out = []
    for clause, q, before, after in _clause_quantities(answer):
        if _WHOM_BEFORE.search(before) or _CONDITION_AFTER.match(after):
            continue
        if _BAND.search(before) or _MIN_AFTER.match(after) or _MAX_AFTER.match(after):
            continue
        if _MAX_BEFORE.search(before) or _MIN_BEFORE.search(before):
            continue
        if (q.start, q.value) in capped:
            continue
        # the words of the clause without the quantity and its unit word ("14 days")
        rest = re.sub(r"^\W*\w+", " ", clause[q.end :], count=1)
        about = frozenset(lexicon.content_stems(clause[: q.start] + rest)) - q.units
        out.append(Bound("exact", q, about))
    return out


def restates(bound: Bound, said: list[Quantity]) -> bool:
    """The text states the bound's own value: its other quantities are other things
    ("a 1-hour lecture is playable within 15 minutes" against a 15-minute cap)."""
    return any(_same(bound.quantity, q) and q.value == bound.quantity.value for q in said)


def broken(bound: Bound, q: Quantity, before: str, after: str) -> bool:
    """``q`` (with the text just before and after it) states a value past ``bound``: more
    than its cap, less than its floor. A value the text itself caps or negates within the
    bound ("never more than 14 days") is not past it."""
    if not _same(bound.quantity, q):
        return False
    if lexicon.PRE_NEGATORS.search(before):  # "never makes anyone wait longer than 60 minutes"
        return False
    if _WHOM_BEFORE.search(before) or _CONDITION_AFTER.match(after):
        return False
    if _REFUSED.search(after):  # "an 11th open request is refused": the limit holds
        return False
    if bound.kind == "max":
        return q.value > bound.quantity.value
    if bound.kind == "exact":
        return q.value != bound.quantity.value
    return q.value < bound.quantity.value
