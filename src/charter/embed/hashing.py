"""Zero-dependency deterministic pseudo-embeddings (feature hashing of words and bigrams).

Not semantic: words only match words. It exists for tests, for machines without the
model, and as the seed's documented fallback.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence

import numpy as np

from charter.embed.base import Vectors, normalize

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    name = "hash-v1"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    def _bucket(self, token: str) -> tuple[int, float]:
        digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            for feature in features:
                idx, sign = self._bucket(feature)
                out[row, idx] += sign
        return normalize(out)
