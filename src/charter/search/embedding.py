"""The embedder search uses: the project's shared provider, truncated for search chunks.

Same provider and model as the rules engine (so vectors are comparable and cached under
the same model name), but chunks are cut at ``search.index.embed_max_tokens``: MiniLM was
trained on 128-token inputs, and on CPU the cost of embedding grows with input length.
"""

from __future__ import annotations

from charter.embed.base import Embedder
from charter.embed.registry import get_embedder


def search_embedder(settings: object) -> Embedder:
    """The embedder for a :class:`charter.config.Settings`' search index."""
    embed = getattr(settings, "embed")  # noqa: B009 - avoids an import cycle with config
    search = getattr(settings, "search")  # noqa: B009
    return get_embedder(
        embed.provider,
        model_path=embed.model_path,
        batch_size=embed.batch_size,
        max_tokens=min(embed.max_tokens, search.index.embed_max_tokens),
    )
