"""Choose and cache the embedding provider named in settings."""

from __future__ import annotations

import contextlib
import sys

from charter.embed.base import Embedder
from charter.embed.hashing import HashEmbedder
from charter.errors import CharterError

_CACHE: dict[tuple[str, str, int, int], Embedder] = {}


def get_embedder(
    provider: str = "minilm", *, model_path: str = "", batch_size: int = 16, max_tokens: int = 256
) -> Embedder:
    """The provider for ``provider``, built once per process.

    ``minilm`` falls back to ``hash`` with a warning on stderr when the bundled model is
    missing or fails its checksum, so retrieval keeps working (at lower quality).
    """
    key = (provider, model_path, batch_size, max_tokens)
    if key in _CACHE:
        return _CACHE[key]
    embedder: Embedder
    if provider == "hash":
        embedder = HashEmbedder()
    elif provider == "minilm":
        try:
            from charter.embed.minilm import MiniLMEmbedder

            embedder = MiniLMEmbedder(batch_size=batch_size, max_tokens=max_tokens)
        except (CharterError, ImportError, OSError) as exc:
            print(f"charter: warning: {exc}; using the hash embedder", file=sys.stderr)
            embedder = HashEmbedder()
    elif provider == "sentence-transformers":
        from charter.embed.sentence_transformers import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder(model_path, batch_size=batch_size)
    else:
        raise CharterError(
            f"unknown embed.provider {provider!r} (minilm | hash | sentence-transformers)"
        )
    _CACHE[key] = embedder
    return embedder


def embedder_for(settings: object) -> Embedder:
    """The embedder for a :class:`charter.config.Settings` (its ``embed`` section)."""
    embed = getattr(settings, "embed")  # noqa: B009 - avoids an import cycle with config
    return get_embedder(
        embed.provider,
        model_path=embed.model_path,
        batch_size=embed.batch_size,
        max_tokens=embed.max_tokens,
    )


def import_provider(settings: object) -> None:
    """Import the configured provider's code in the calling thread.

    Compile loads the model in a worker thread while it parses; imports hold the GIL,
    the model load itself does not, so importing first lets the two really overlap.
    """
    embed = getattr(settings, "embed")  # noqa: B009 - avoids an import cycle with config
    if embed.provider == "minilm":
        with contextlib.suppress(ImportError):
            import charter.embed.minilm  # noqa: F401
