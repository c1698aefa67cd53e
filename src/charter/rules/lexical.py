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
    """BM25 over the rules. Each word keeps the rules it occurs in and their weights (a
    dense rules × words matrix grew with both: 6,000 rules of 9,000 distinct words took a
    gigabyte, past the hooks' memory cap); a query's columns are laid out dense again, so
    every score is computed with the same float32 operations as before."""

    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        tokenized = [tokenize(d) for d in docs]
        vocab: dict[str, int] = {}
        counts: list[dict[int, int]] = []
        for toks in tokenized:
            row: dict[int, int] = {}
            for t in toks:
                col = vocab.setdefault(t, len(vocab))
                row[col] = row.get(col, 0) + 1
            counts.append(row)
        self.vocab = vocab
        n = self.n = len(docs)
        lengths = np.array([sum(row.values()) for row in counts], dtype=np.float32)
        avg = float(lengths.mean()) if n else 1.0
        df = np.zeros(max(1, len(vocab)), dtype=np.int64)
        for row in counts:
            for col in row:
                df[col] += 1
        self.idf = np.log(1 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
        # per rule, the length term of the denominator, as the dense form broadcast it
        norm = k1 * (1 - b + b * lengths[:, None] / max(avg, 1e-9))
        docs_of: list[list[int]] = [[] for _ in range(len(df))]
        tfs_of: list[list[float]] = [[] for _ in range(len(df))]
        for i, row in enumerate(counts):
            for col, count in row.items():
                docs_of[col].append(i)
                tfs_of[col].append(count)
        self.postings: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]] = []
        for col in range(len(df)):
            rows = np.array(docs_of[col], dtype=np.intp)
            tf = np.array(tfs_of[col], dtype=np.float32)[:, None]
            denom = tf + norm[rows]
            weight = (tf * (k1 + 1) / np.where(denom == 0, 1, denom)).astype(np.float32)
            self.postings.append((rows, weight[:, 0]))

    def _columns(self, cols: list[int]) -> npt.NDArray[np.float32]:
        """The rules × ``cols`` weights, zero where a rule lacks the word; column-major,
        the layout the dense matrix's column selection had, so the sums add in its order."""
        out = np.zeros((self.n, len(cols)), dtype=np.float32, order="F")
        for j, col in enumerate(cols):
            rows, weight = self.postings[col]
            out[rows, j] = weight
        return out

    def ideal(self, query: str) -> float:
        """What a rule of average length holding each of the query's known words once
        would score: a yardstick for how much of the query the best match covers."""
        cols = sorted({self.vocab[t] for t in tokenize(query) if t in self.vocab})
        return float(self.idf[cols].sum()) if cols else 0.0

    def scores(self, query: str) -> npt.NDArray[np.float32]:
        cols = sorted({self.vocab[t] for t in tokenize(query) if t in self.vocab})
        if not cols:
            return np.zeros(self.n, dtype=np.float32)
        return (self._columns(cols) * self.idf[cols]).sum(axis=1).astype(np.float32)
