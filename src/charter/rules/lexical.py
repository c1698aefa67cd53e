"""A small in-memory BM25 over rule texts, so exact identifiers in a task still match.

Rule sets are hundreds of items, so a dense numpy term matrix is faster to build and
query than any external index and needs nothing on disk.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from charter.stemming import stem

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_]*")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "when",
        "you",
        "your",
        "we",
        "our",
        "use",
        "used",
        "using",
        "should",
        "must",
        "can",
        "do",
        "not",
        "don't",
        "all",
        "any",
        "if",
        "into",
        "than",
        "then",
        "there",
        "these",
        "those",
        "which",
        "while",
        "who",
        "how",
        "what",
    ]
)


def tokenize(text: str) -> list[str]:
    """Lower-case Snowball stems; identifiers are also split on ``_`` and camelCase."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    out = []
    for tok in _TOKEN.findall(text.lower()):
        parts = [tok, *tok.split("_")] if "_" in tok else [tok]
        for part in parts:
            if part and part not in _STOP and len(part) > 1:
                out.append(stem(part))
    return out


class BM25:
    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        tokenized = [tokenize(d) for d in docs]
        vocab: dict[str, int] = {}
        for toks in tokenized:
            for t in toks:
                vocab.setdefault(t, len(vocab))
        self.vocab = vocab
        n = len(docs)
        tf = np.zeros((n, max(1, len(vocab))), dtype=np.float32)
        for i, toks in enumerate(tokenized):
            for t in toks:
                tf[i, vocab[t]] += 1
        lengths = tf.sum(axis=1)
        avg = float(lengths.mean()) if n else 1.0
        df = (tf > 0).sum(axis=0)
        self.idf = np.log(1 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
        denom = tf + k1 * (1 - b + b * lengths[:, None] / max(avg, 1e-9))
        self.weights = (tf * (k1 + 1) / np.where(denom == 0, 1, denom)).astype(np.float32)

    def ideal(self, query: str) -> float:
        """What a rule of average length holding each of the query's known words once
        would score: a yardstick for how much of the query the best match covers."""
        cols = sorted({self.vocab[t] for t in tokenize(query) if t in self.vocab})
        return float(self.idf[cols].sum()) if cols else 0.0

    def scores(self, query: str) -> npt.NDArray[np.float32]:
        cols = sorted({self.vocab[t] for t in tokenize(query) if t in self.vocab})
        if not cols:
            return np.zeros(self.weights.shape[0], dtype=np.float32)
        return (self.weights[:, cols] * self.idf[cols]).sum(axis=1).astype(np.float32)
