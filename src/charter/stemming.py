"""English stemming shared by every lexical index (rule BM25, search FTS5).

Snowball, memoised: a corpus has far fewer distinct words than tokens, so each word is
stemmed once per process. Both capabilities measured Snowball above lighter strippers.
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball stem of one lower-case word."""
    return str(_STEMMER.stemWord(word))
