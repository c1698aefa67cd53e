"""Personalized PageRank by power iteration on a sparse, column-normalised matrix.

HippoRAG-style: the walk restarts at the task's seed nodes with probability
``1 - damping`` and otherwise follows an edge, so score flows from what the task names
to what those things import, call, test and cite. Dangling nodes return their mass to
the seeds. Edges are followed both ways (an importer is as relevant as the imported).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
from scipy import sparse


def transition(n: int, edges: Sequence[tuple[int, int, float]]) -> sparse.csr_matrix:
    """Column-stochastic matrix M (M[j, i] = P(i → j)) of an undirected weighted graph."""
    if not edges:
        return sparse.csr_matrix((n, n), dtype=np.float64)
    src = np.asarray([e[0] for e in edges] + [e[1] for e in edges], dtype=np.int64)
    dst = np.asarray([e[1] for e in edges] + [e[0] for e in edges], dtype=np.int64)
    w = np.asarray([e[2] for e in edges] * 2, dtype=np.float64)
    adj = sparse.csr_matrix((w, (dst, src)), shape=(n, n))
    out = np.asarray(adj.sum(axis=0)).reshape(-1)
    scale = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
    return sparse.csr_matrix(adj @ sparse.diags(scale))


def personalized_pagerank(
    matrix: sparse.csr_matrix,
    seeds: Mapping[int, float],
    damping: float,
    *,
    tol: float = 1e-9,
    max_iter: int = 100,
) -> npt.NDArray[np.float64]:
    """Stationary scores (sum 1) for restart distribution ``seeds`` (weights, any scale)."""
    n = matrix.shape[0]
    p = np.zeros(n, dtype=np.float64)
    for index, weight in seeds.items():
        p[index] += max(weight, 0.0)
    if p.sum() <= 0:
        return np.zeros(n, dtype=np.float64)
    p /= p.sum()
    dangling = np.asarray(matrix.sum(axis=0)).reshape(-1) == 0
    x = p.copy()
    for _ in range(max_iter):
        lost = x[dangling].sum()
        nxt = damping * (matrix @ x + lost * p) + (1 - damping) * p
        if np.abs(nxt - x).sum() < tol:
            return np.asarray(nxt)
        x = nxt
    return x
