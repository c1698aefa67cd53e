"""Merge ranked candidate lists: weighted reciprocal rank fusion.

RRF needs no score calibration between BM25 (unbounded) and cosine (−1..1), which is why
the seed's "merge + deduplicate" step uses it: a chunk's fused score is
``Σ weight / (k + rank)`` over the lists it appears in, so duplicates merge naturally.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(
    lists: Mapping[str, Sequence[int]], weights: Mapping[str, float], k: int = 60
) -> dict[int, float]:
    """Fused scores per id; ``lists`` maps a list name to ids best-first."""
    fused: dict[int, float] = {}
    for name, ids in lists.items():
        weight = weights.get(name, 1.0)
        if weight == 0:
            continue
        for rank, item in enumerate(ids, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused


def ranked(scores: Mapping[int, float]) -> list[int]:
    """Ids by score descending, ties by id (deterministic)."""
    return [i for i, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
