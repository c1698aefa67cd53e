"""Code-aware terms on top of search's analyzer: identifiers split, whole ones kept.

``getUserName`` and ``get_user_name`` both give ``get user name`` plus the whole
identifier, so an issue that says "user name" and one that pastes the identifier both
match. Stopwords and Snowball stems come from ``charter.search.text`` (one analyzer).
Chinese and Japanese, written without spaces, give each pair of neighbouring characters
("分页查询" gives 分页, 页查, 查询): a task written in them ("给用户模块新增分页查询接口")
named no term at all, and task context ranked nothing, though the project's documents,
rules and comments are written in the same words.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from charter.search.text import STOPWORDS, stem

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A run of Chinese or Japanese characters (kana, CJK ideographs).
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")
#: Identifiers, or runs of Chinese or Japanese, in text order.
_WORD = re.compile(IDENT.pattern + "|" + _UNSPACED.pattern)


def _bigrams(run: str) -> list[str]:
    """Each pair of neighbouring characters of a run written without spaces."""
    return [run[i : i + 2] for i in range(len(run) - 1)]


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
    for match in _WORD.finditer(text):
        word = match.group(0)
        out.extend(_bigrams(word) if _UNSPACED.match(word) else ident_terms(word))
    return out


def term_counts(text: str) -> dict[str, int]:
    """How often each term of ``text`` occurs, keyed in first-occurrence order (what
    ``Counter(code_terms(text))`` gives): identifiers are counted first, in C, and each
    distinct one split once, so a file's thousand ``self``s cost one lookup. A text with
    Chinese or Japanese in it is counted term by term, its pairs in their place."""
    if not text.isascii() and _UNSPACED.search(text):
        return dict(Counter(code_terms(text)))
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
    for run in _UNSPACED.findall(text):
        for term in _bigrams(run):
            out.setdefault(term, term)
    return out
