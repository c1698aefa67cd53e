"""The embedding protocol every provider implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``name`` identifies the model so stored vectors from another model are never mixed
    with fresh ones (it is part of every vector cache key).
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)


def cosine_matrix(query: Vectors, matrix: Vectors) -> npt.NDArray[np.float32]:
    """Cosine of one normalised query against rows of a normalised matrix."""
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    return (matrix @ query.reshape(-1)).astype(np.float32)
