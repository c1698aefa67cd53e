"""English stemming shared by every lexical index (rule BM25, search FTS5).

Snowball, memoised: a corpus has far fewer distinct words than tokens, so each word is
stemmed once per process. Both capabilities measured Snowball above lighter strippers.

The stemmer is PyStemmer's (``Stemmer``: the Snowball C library), about twelve times
faster per word than the pure-Python one: a cold prompt hook stems every rule's words to
build its BM25 index, and indexing a large repository stems hundreds of thousands of
distinct words. Both are generated from the same Snowball source and gave the same stem
for each of ~100,000 distinct words of this repository's data (``tests/test_stemming.py``
keeps checking a sample). Without PyStemmer, the pure-Python English stemmer is used.

Only the English stemmer is loaded then: the ``snowballstemmer`` package imports all of
its 30-odd languages on ``import snowballstemmer`` (~30–50 ms, paid by every hook and
CLI process that stems a word). The same three modules (``among``, ``basestemmer``,
``english_stemmer``) are loaded from the installed package's directory under a private
package name, so the stems are the package's own and ``snowballstemmer`` itself is
untouched for anyone else in the process.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from functools import lru_cache
from typing import Any

_PRIVATE = "_charter_snowball"


def _english() -> Any:
    """PyStemmer's English stemmer, or else the pure-Python one."""
    try:
        import Stemmer

        return Stemmer.Stemmer("english")
    except (ImportError, KeyError):
        return python_english()


def python_english() -> Any:
    """The package's ``EnglishStemmer``, without running the package's ``__init__``."""
    loaded = sys.modules.get("snowballstemmer")
    spec = importlib.util.find_spec("snowballstemmer") if loaded is None else None
    if loaded is not None or spec is None or not spec.submodule_search_locations:
        from snowballstemmer.english_stemmer import EnglishStemmer

        return EnglishStemmer()
    package = sys.modules.get(_PRIVATE)
    if package is None:
        package = types.ModuleType(_PRIVATE)
        package.__path__ = list(spec.submodule_search_locations)
        sys.modules[_PRIVATE] = package
    module = importlib.import_module(f"{_PRIVATE}.english_stemmer")
    return module.EnglishStemmer()


_STEMMER: Any = None


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball stem of one lower-case word."""
    global _STEMMER
    if _STEMMER is None:
        _STEMMER = _english()
    return str(_STEMMER.stemWord(word))
