"""Tokenisation for BM25: lower-case words, English stopwords out, Snowball stems.

Stemming is done here (not by SQLite's ``porter`` tokenizer) so the index and the query
go through exactly the same function, Snowball beats Porter on our measurements, and the
stored FTS text stays inspectable. Stems are memoised: a corpus has far fewer distinct
words than tokens.
"""

from __future__ import annotations

import re

from charter.stemming import stem

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

#: A compact English stopword list (NLTK's, minus negations that change meaning).
_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours
    yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

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
