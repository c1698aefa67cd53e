"""The C Snowball stemmer (PyStemmer) and the pure-Python one give the same stems.

Every lexical index (rule BM25, search FTS5, the graph's terms) keys on these stems, and
an index built by one process is read by another: a stem that changed with the
implementation would silently stop matching. The sample is every distinct word of this
repository's docs, examples and test data, so it covers the project's own vocabulary.
"""

from __future__ import annotations

import re
from pathlib import Path

from charter import stemming

ROOT = Path(__file__).resolve().parents[1]


def _vocabulary() -> list[str]:
    words: set[str] = set()
    for folder in ("docs", "examples", "tests/data"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in {".md", ".mdc", ".json", ".jsonl", ".py", ".csv", ".txt"}:
                text = path.read_text(encoding="utf-8", errors="ignore")
                words.update(w.lower() for w in re.findall(r"\w+", text))
    return sorted(words)


def test_the_fast_stemmer_is_used_and_agrees_with_the_reference() -> None:
    import Stemmer

    assert isinstance(stemming._english(), Stemmer.Stemmer)
    fast, reference = stemming._english(), stemming.python_english()
    words = _vocabulary()
    assert len(words) > 5_000
    differ = [(w, fast.stemWord(w), reference.stemWord(w)) for w in words]
    differ = [d for d in differ if d[1] != d[2]]
    assert not differ, differ[:10]
    # the shared entry point returns the same stems (and plural meets singular)
    assert stemming.stem("dataclasses") == stemming.stem("dataclass")
    assert stemming.stem("running") == reference.stemWord("running") == "run"
