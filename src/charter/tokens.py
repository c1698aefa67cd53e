"""Token counting in cl100k, offline (toktok-rs ships the encoding compiled in)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

ENCODING = "cl100k_base"
#: From this many texts on, counting is spread over every core.
_POOLED = 64
_ONE: list[Callable[[str], int] | None] = []


def _one_text_counter(toktok: Any) -> Callable[[str], int] | None:
    """The loaded encoding's own count of one text, when toktok has it: ~0.3 µs for a
    rule's line, where ``batch_count`` of one text costs ~37 µs (it sets its workers up
    on every call, and drops and takes the GIL back). Cutting a compile's rule lines to
    their budgets counts ~3000 texts one or a few at a time. Not in toktok's documented
    API (``batch_count``, ``truncate``), so it is used only when present; its counts are
    ``batch_count``'s (``tests/test_tokens.py``)."""
    if not _ONE:
        try:
            count = toktok._encoding(ENCODING).count
        except (AttributeError, KeyError, TypeError):
            count = None
        _ONE.append(count if callable(count) else None)
    return _ONE[0]


def count_tokens(text: str) -> int:
    """cl100k token count of ``text``; falls back to chars/4 if the tokenizer is missing."""
    return count_many([text])[0]


def count_many(texts: Sequence[str]) -> list[int]:
    """cl100k counts of ``texts``. An empty text is 0 without the tokenizer, whose first
    use in a process costs ~0.2 s: a project with no rule files starts a session without
    building it."""
    counts = [0] * len(texts)
    todo = [i for i, t in enumerate(texts) if t]
    if not todo:
        return counts
    try:
        import toktok

        # a few texts are counted in this thread: handing them to the tokenizer's pool
        # of every core costs more than counting them, and far more while the embedding
        # model holds those cores (a compile counts rule lines as its shards embed)
        one = _one_text_counter(toktok) if len(todo) < _POOLED else None
        if one is not None:
            found = [one(texts[i]) for i in todo]
        else:
            threads = 1 if len(todo) < _POOLED else 0
            found = toktok.batch_count([texts[i] for i in todo], ENCODING, threads=threads)
    except ImportError:  # pragma: no cover - toktok-rs is a pinned dependency
        found = [max(1, len(texts[i]) // 4) for i in todo]
    for i, n in zip(todo, found, strict=True):
        counts[i] = int(n)
    return counts


def warm() -> None:
    """Build the cl100k tables now (a thread waiting on something else can pay for them)."""
    count_many(["warm"])


def estimate_tokens(text: str) -> int:
    """About how many cl100k tokens ``text`` holds (a quarter of its characters), without
    the tokenizer: building cl100k costs ~0.5 s in a fresh process, which a hook that runs
    on every file tool call cannot pay to size a budget."""
    return (len(text) + 3) // 4 if text else 0
