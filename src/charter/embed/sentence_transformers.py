"""Any local sentence-transformers model (optional extra; torch is never a default)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from charter.embed.base import Vectors, normalize
from charter.errors import CharterError


def require_sentence_transformers() -> Any:
    """The optional ``sentence_transformers`` module, or a one-line install hint."""
    try:
        import sentence_transformers
    except ImportError:
        raise CharterError(
            "sentence-transformers is not installed: pip install 'charter[sentence-transformers]'"
        ) from None
    return sentence_transformers


class SentenceTransformerEmbedder:
    def __init__(self, model_path: str, batch_size: int = 64) -> None:
        if not model_path or not Path(model_path).exists():
            raise CharterError(
                "embed.model_path must name a local sentence-transformers model directory"
            )
        st = require_sentence_transformers()
        self._model: Any = st.SentenceTransformer(model_path, device="cpu")
        self.name = f"st:{Path(model_path).name}"
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self._batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=self._batch_size)
        return normalize(np.asarray(vectors, dtype=np.float32))
