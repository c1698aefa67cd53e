"""Embedding providers behind one protocol.

``get_embedder(settings)`` returns the configured provider. The default is the bundled
all-MiniLM-L6-v2 int8 ONNX model (no torch, no network); ``hash`` is the zero-dependency
deterministic fallback, used only when chosen or when the model is missing (with a
warning on stderr).
"""

from __future__ import annotations

from charter.embed.base import Embedder, cosine_matrix, normalize
from charter.embed.registry import get_embedder

__all__ = ["Embedder", "cosine_matrix", "get_embedder", "normalize"]
