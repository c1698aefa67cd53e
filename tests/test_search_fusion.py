"""Fusion and rerankers: the math, and clear errors for misconfiguration."""

from __future__ import annotations

import numpy as np
import pytest

from charter.errors import CharterError
from charter.search.fusion import ranked, rrf, zscore
from charter.search.rerank import Candidates, RocchioReranker, get_reranker
from charter.search.settings import RerankSettings


def test_rrf_merges_duplicates_and_respects_weights() -> None:
    fused = rrf({"a": [1, 2, 3], "b": [3, 4]}, {"a": 1.0, "b": 2.0}, k=10)
    assert fused[3] == pytest.approx(1 / 13 + 2 / 11)
    assert ranked(fused)[0] == 3  # in both lists, and the heavier list ranks it first


def test_zscore_standardises_each_list() -> None:
    bm25 = {1: 30.0, 2: 10.0, 3: 20.0}
    dense = {1: 0.1, 2: 0.5, 3: 0.3}
    fused = zscore({"bm25": bm25, "dense": dense}, {"bm25": 0.6, "dense": 0.4})
    # scale-free: multiplying a list's scores by 100 changes nothing
    scaled = zscore(
        {"bm25": {k: v * 100 for k, v in bm25.items()}, "dense": dense},
        {"bm25": 0.6, "dense": 0.4},
    )
    assert fused == pytest.approx(scaled)
    assert ranked(fused) == [1, 3, 2]
    missing = zscore({"bm25": {1: 5.0, 2: 1.0}, "dense": {3: 0.9}}, {})
    assert set(missing) == {1, 2, 3}  # a chunk missing from a list gets that list's floor


def test_rocchio_moves_the_query_towards_the_top_candidate() -> None:
    query = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    vectors = np.array([[0.6, 0.8, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    plain = vectors @ query
    scores = RocchioReranker(alpha=1.0, beta=1.0, feedback=1).score(
        Candidates("q", query, [], vectors)
    )
    assert scores[1] > plain[1]  # the candidate aligned with the feedback gains
    assert scores[2] == pytest.approx(plain[2])  # an orthogonal one does not


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (RerankSettings(provider="magic"), "unknown search.rerank.provider 'magic'"),
        (RerankSettings(provider="cross-encoder"), "model_path must name a local"),
    ],
)
def test_bad_reranker_config_is_a_clear_error(settings: RerankSettings, message: str) -> None:
    with pytest.raises(CharterError, match=message):
        get_reranker(settings)


def test_none_reranker() -> None:
    assert get_reranker(RerankSettings(provider="none")) is None
