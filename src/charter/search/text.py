"""Tokenisation for BM25: lower-case words, English stopwords out, Snowball stems.

Stemming is done here (not by SQLite's ``porter`` tokenizer) so the index and the query
go through exactly the same function, Snowball beats Porter on our measurements, and the
stored FTS text stays inspectable. Stems are memoised: a corpus has far fewer distinct
words than tokens.
"""

from __future__ import annotations

import re

from charter.stemming import stem
from charter.stopwords import ENGLISH

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

#: English function words, shared with the graph and the drift checker.
STOPWORDS = ENGLISH

__all__ = ["STOPWORDS", "analyze", "stem", "terms", "words"]


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits, split on punctuation)."""
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """Index terms of ``text``: words without stopwords, stemmed, in order."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def analyze(text: str) -> str:
    """``terms`` joined by spaces: the form stored in the FTS5 table."""
    return " ".join(terms(text))
