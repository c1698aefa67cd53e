"""Rerankers: one protocol, chosen by name in ``[search.rerank]``.

No cross-encoder weights ship inside a PyPI package (see DEPENDENCIES.md), so the default
works with what is already loaded: ``rocchio`` moves the query vector towards the
centroid of the fused head (pseudo-relevance feedback in embedding space) and rescores
the candidates with their stored vectors — no model call, well under a millisecond.
``late-interaction`` runs the bundled MiniLM token by token (ColBERT-style MaxSim on an
off-the-shelf bi-encoder; offline, but it re-encodes every candidate, so it is slow on
CPU). Users with a local cross-encoder point ``model_path`` at it and pick
``cross-encoder``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from charter.errors import CharterError
from charter.search.settings import RerankSettings

Scores = npt.NDArray[np.float32]


@dataclass
class Candidates:
    """What a reranker gets: the query and the fused head, best first."""

    query: str
    query_vector: npt.NDArray[np.float32]
    texts: list[str]
    vectors: npt.NDArray[np.float32]  # (len(texts), dim), L2-normalised, as stored


class Reranker(Protocol):
    """Scores candidates against a query; higher is more relevant.

    ``kind`` says how the engine uses the scores: ``dense`` scores replace the dense
    list's scores for the whole candidate pool, which is then fused again; ``order``
    scores reorder the fused head (``rerank.candidates``) of a model reranker.
    """

    name: str
    kind: str

    def score(self, candidates: Candidates) -> Scores: ...


class RocchioReranker:
    """Pseudo-relevance feedback on stored vectors: q' = α·q + β·mean(top m fused).

    Candidates come in fused order; their stored vectors are rescored against q'.
    """

    name = "rocchio"
    kind = "dense"

    def __init__(self, alpha: float = 1.0, beta: float = 0.5, feedback: int = 3) -> None:
        self.alpha, self.beta, self.feedback = alpha, beta, feedback

    def score(self, candidates: Candidates) -> Scores:
        vectors = candidates.vectors
        if not len(vectors):
            return np.zeros(0, dtype=np.float32)
        centroid = vectors[: self.feedback].mean(axis=0)
        query = self.alpha * candidates.query_vector + self.beta * centroid
        query = query / max(float(np.linalg.norm(query)), 1e-9)
        return (vectors @ query).astype(np.float32)


class LateInteractionReranker:
    """MaxSim over MiniLM token embeddings (no extra weights, runs offline)."""

    name = "late-interaction-minilm"
    kind = "order"

    def __init__(self, max_tokens: int = 256) -> None:
        from charter.embed.minilm import load_session

        self._session, self._inputs, self._tok = load_session(max_tokens)

    def _tokens(self, texts: Sequence[str]) -> list[npt.NDArray[np.float32]]:
        """Per text, its L2-normalised token vectors without [CLS]/[SEP]."""
        from charter.embed.minilm import hidden_states

        encodings = self._tok.encode_batch(list(texts))
        hidden, _ = hidden_states(self._session, self._inputs, encodings)
        out: list[npt.NDArray[np.float32]] = []
        for row, enc in enumerate(encodings):
            vecs = hidden[row, 1 : max(2, len(enc.ids) - 1)]
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            out.append((vecs / np.maximum(norms, 1e-9)).astype(np.float32))
        return out

    def score(self, candidates: Candidates) -> Scores:
        query, texts = candidates.query, candidates.texts
        if not texts:
            return np.zeros(0, dtype=np.float32)
        q = self._tokens([query])[0]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        scores = np.zeros(len(texts), dtype=np.float32)
        for start in range(0, len(order), 16):
            idx = order[start : start + 16]
            for i, doc in zip(idx, self._tokens([texts[i] for i in idx]), strict=True):
                scores[i] = float((q @ doc.T).max(axis=1).mean())
        return scores


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder loaded from a local directory."""

    def __init__(self, model_path: str) -> None:
        if not model_path or not Path(model_path).exists():
            raise CharterError(
                "search.rerank.model_path must name a local CrossEncoder model directory"
            )
        from charter.embed.sentence_transformers import require_sentence_transformers

        self._model: Any = require_sentence_transformers().CrossEncoder(model_path, device="cpu")
        self.name = f"cross-encoder:{Path(model_path).name}"
        self.kind = "order"

    def score(self, candidates: Candidates) -> Scores:
        query, texts = candidates.query, candidates.texts
        if not texts:
            return np.zeros(0, dtype=np.float32)
        raw = self._model.predict([(query, t) for t in texts])
        return np.asarray(raw, dtype=np.float32).reshape(-1)


_CACHE: dict[tuple[str, str, float, float, int], Reranker | None] = {}


def get_reranker(settings: RerankSettings) -> Reranker | None:
    """The configured reranker (built once per process), or None for ``none``."""
    key = (settings.provider, settings.model_path, settings.alpha, settings.beta, settings.feedback)
    if key in _CACHE:
        return _CACHE[key]
    reranker: Reranker | None
    if settings.provider == "none":
        reranker = None
    elif settings.provider == "rocchio":
        reranker = RocchioReranker(settings.alpha, settings.beta, settings.feedback)
    elif settings.provider == "late-interaction":
        reranker = LateInteractionReranker()
    elif settings.provider == "cross-encoder":
        reranker = CrossEncoderReranker(settings.model_path)
    else:
        raise CharterError(
            f"unknown search.rerank.provider {settings.provider!r} "
            "(rocchio | late-interaction | none | cross-encoder)"
        )
    _CACHE[key] = reranker
    return reranker
