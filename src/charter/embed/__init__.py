"""Embedding providers behind one protocol.

``get_embedder(settings)`` returns the configured provider. The default is the bundled
all-MiniLM-L6-v2 int8 ONNX model (no torch, no network); ``hash`` is the zero-dependency
deterministic fallback, used only when chosen or when the model is missing (with a
warning on stderr).
"""

from __future__ import annotations

import os

# The onnxruntime wheel carries Microsoft's 1DS telemetry client: from the first
# session on it writes a device id under ~/.cache/Microsoft and, in a process that lives
# a while (the MCP server, the warm worker), looks up and posts to its event collector.
# It reads this switch once, when onnxruntime is imported, and only Charter's
# ``charter.embed.minilm`` (inside this package) imports it: set it here, before that.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from charter.embed.base import Embedder, cosine_matrix, normalize
from charter.embed.registry import get_embedder

__all__ = ["Embedder", "cosine_matrix", "get_embedder", "normalize"]
