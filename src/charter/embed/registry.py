"""Choose and cache the embedding provider named in settings."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable

from charter.embed.base import Embedder
from charter.embed.hashing import HashEmbedder
from charter.errors import CharterError

_CACHE: dict[tuple[str, str, int, int, str], Embedder] = {}
#: One lock per provider key: a model asked for while another thread loads it (the
#: compile's preload, :func:`preload_rules_embedder`) is waited for, never loaded twice.
_LOADING: dict[tuple[str, str, int, int, str], threading.Lock] = {}
_LOADING_LOCK = threading.Lock()
_PRELOADED: set[tuple[str, str, int, int, str]] = set()


def get_embedder(
    provider: str = "minilm",
    *,
    model_path: str = "",
    batch_size: int = 16,
    max_tokens: int = 256,
    variant: str = "general",
) -> Embedder:
    """The provider for ``provider``, built once per process.

    ``variant`` picks between the bundled MiniLM models (``general`` or ``rules``); other
    providers have one model and ignore it. ``minilm`` falls back to ``hash`` with a
    warning on stderr when the bundled model is missing or fails its checksum, so
    retrieval keeps working (at lower quality); a broken ``rules`` model falls back to the
    general one.
    """
    if provider != "minilm":
        variant = "general"
    key = (provider, model_path, batch_size, max_tokens, variant)
    if key in _CACHE:
        return _CACHE[key]
    with _LOADING_LOCK:
        lock = _LOADING.setdefault(key, threading.Lock())
    with lock:
        if key in _CACHE:
            return _CACHE[key]
        return _load(key)


def _load(key: tuple[str, str, int, int, str]) -> Embedder:
    provider, model_path, batch_size, max_tokens, variant = key
    embedder: Embedder
    if provider == "hash":
        embedder = HashEmbedder()
    elif provider == "minilm" and variant != "general":
        try:
            from charter.embed.minilm import MiniLMEmbedder

            embedder = MiniLMEmbedder(batch_size=batch_size, max_tokens=max_tokens, variant=variant)
        except (CharterError, ImportError, OSError) as exc:
            print(f"charter: warning: {exc}; using the general model", file=sys.stderr)
            embedder = get_embedder(provider, batch_size=batch_size, max_tokens=max_tokens)
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


def embedder_for(
    settings: object, *, variant: str = "general", max_tokens: int | None = None
) -> Embedder:
    """The embedder for a :class:`charter.config.Settings` (its ``embed`` section);
    ``max_tokens`` may only lower the section's cut."""
    embed = getattr(settings, "embed")  # noqa: B009 - avoids an import cycle with config
    return get_embedder(
        embed.provider,
        model_path=embed.model_path,
        batch_size=embed.batch_size,
        max_tokens=min(embed.max_tokens, max_tokens or embed.max_tokens),
        variant=variant,
    )


def rules_embedder_for(settings: object) -> Embedder:
    """The embedder rules compile and retrieval use: ``rules.embed_model`` of the bundled
    MiniLM models (the configured provider's one model otherwise)."""
    rules = getattr(settings, "rules")  # noqa: B009 - avoids an import cycle with config
    return embedder_for(settings, variant=rules.embed_model)


def import_provider(settings: object) -> None:
    """Import the configured provider's code in the calling thread.

    Compile loads the model in a worker thread while it parses; imports hold the GIL,
    the model load itself does not, so importing first lets the two really overlap.
    """
    embed = getattr(settings, "embed")  # noqa: B009 - avoids an import cycle with config
    if embed.provider == "minilm":
        with contextlib.suppress(ImportError):
            import charter.embed.minilm  # noqa: F401


def preload_rules_embedder(settings: object, then: Callable[[], object] | None = None) -> None:
    """Start loading the rules embedder in a background thread; :func:`rules_embedder_for`
    then returns it (waiting for the load if it is still under way). ``then`` runs in
    that thread after the load (work that leaves the GIL free, as the load does).

    ``charter compile`` calls this before its CLI's imports and argument parsing, so the
    model's session is built meanwhile and the compile can embed its first rules as soon
    as they are parsed. A failed load is left to the compile's own call, which reports
    it as before.
    """
    embed = getattr(settings, "embed")  # noqa: B009 - avoids an import cycle with config
    rules = getattr(settings, "rules")  # noqa: B009
    key = (embed.provider, embed.model_path, embed.batch_size, embed.max_tokens, rules.embed_model)
    with _LOADING_LOCK:
        if key in _PRELOADED:
            return  # under way already (the CLI starts it before its imports)
        _PRELOADED.add(key)
    import_provider(settings)

    def load() -> None:
        with contextlib.suppress(Exception):
            rules_embedder_for(settings)
        if then is not None:
            with contextlib.suppress(Exception):
                then()

    threading.Thread(target=load, name="charter-preload", daemon=True).start()
