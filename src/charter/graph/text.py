"""Code-aware terms on top of search's analyzer: identifiers split, whole ones kept.

``getUserName`` and ``get_user_name`` both give ``get user name`` plus the whole
identifier, so an issue that says "user name" and one that pastes the identifier both
match. Stopwords and Snowball stems come from ``charter.search.text`` (one analyzer).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from charter.search.text import STOPWORDS, stem

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@lru_cache(maxsize=200_000)
def ident_terms(identifier: str) -> tuple[str, ...]:
    """Terms of one identifier: its snake/camel parts, stemmed, and the whole of it."""
    parts = [p.lower() for chunk in identifier.split("_") for p in _CAMEL.findall(chunk)]
    out = [stem(p) for p in parts if p not in STOPWORDS and len(p) > 1]
    whole = identifier.lower().strip("_")
    if len(parts) > 1 and whole:
        out.append(whole)
    return tuple(out)


def code_terms(text: str) -> list[str]:
    """All terms of a code or prose text, in order."""
    out: list[str] = []
    for match in IDENT.finditer(text):
        out.extend(ident_terms(match.group(0)))
    return out


def term_counts(text: str) -> dict[str, int]:
    """How often each term of ``text`` occurs, keyed in first-occurrence order (what
    ``Counter(code_terms(text))`` gives): identifiers are counted first, in C, and each
    distinct one split once, so a file's thousand ``self``s cost one lookup."""
    out: dict[str, int] = {}
    for identifier, count in Counter(IDENT.findall(text)).items():
        for term in ident_terms(identifier):
            out[term] = out.get(term, 0) + count
    return out


def surface_forms(text: str) -> dict[str, str]:
    """Each term of ``text`` mapped to the first word of ``text`` that gave it, so a
    person is shown "invoices" where the index matched the stem ``invoic``."""
    out: dict[str, str] = {}
    for match in IDENT.finditer(text):
        identifier = match.group(0)
        parts = [p.lower() for chunk in identifier.split("_") for p in _CAMEL.findall(chunk)]
        for word in parts:
            if word not in STOPWORDS and len(word) > 1:
                out.setdefault(stem(word), word)
        if len(parts) > 1:  # the whole identifier is a term too (see ident_terms)
            out.setdefault(identifier.lower().strip("_"), identifier)
    return out
