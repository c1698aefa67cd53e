"""Token counting in cl100k, offline (toktok-rs ships the encoding compiled in)."""

from __future__ import annotations

from collections.abc import Sequence

ENCODING = "cl100k_base"


def count_tokens(text: str) -> int:
    """cl100k token count of ``text``; falls back to chars/4 if the tokenizer is missing."""
    return count_many([text])[0]


def count_many(texts: Sequence[str]) -> list[int]:
    if not texts:
        return []
    try:
        import toktok

        return [int(n) for n in toktok.batch_count(list(texts), ENCODING)]
    except ImportError:  # pragma: no cover - toktok-rs is a pinned dependency
        return [max(1, len(t) // 4) if t else 0 for t in texts]


def estimate_tokens(text: str) -> int:
    """About how many cl100k tokens ``text`` holds (a quarter of its characters), without
    the tokenizer: building cl100k costs ~0.5 s in a fresh process, which a hook that runs
    on every file tool call cannot pay to size a budget."""
    return (len(text) + 3) // 4 if text else 0
