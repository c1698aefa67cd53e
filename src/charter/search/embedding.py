"""The embedder search uses: the project's shared provider, truncated for search chunks.

The project's provider and its general model (rules have a model of their own, see
:func:`charter.embed.registry.rules_embedder_for`), but chunks are cut at
``search.index.embed_max_tokens``: MiniLM was trained on 128-token inputs, and on CPU the
cost of embedding grows with input length.
"""

from __future__ import annotations

from charter.embed.base import Embedder
from charter.embed.registry import embedder_for


def search_embedder(settings: object) -> Embedder:
    """The embedder for a :class:`charter.config.Settings`' search index."""
    search = getattr(settings, "search")  # noqa: B009 - avoids an import cycle with config
    return embedder_for(settings, max_tokens=search.index.embed_max_tokens)
