"""IR metrics as BEIR reports them (pytrec_eval's ``ndcg_cut.10`` and ``recall.100``).

Kept free of any index code so the figures can be checked against other tools: a run is
``{query_id: {doc_id: score}}`` and qrels are ``{query_id: {doc_id: grade}}``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]


def _ranked(scores: Mapping[str, float]) -> list[str]:
    # pytrec_eval breaks ties by doc id descending; we do the same for comparability.
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], _neg(kv[0])))]


def _neg(doc_id: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in doc_id)


def ndcg_at(run: Run, qrels: Qrels, k: int = 10) -> float:
    """Mean nDCG@k over the queries in ``qrels`` that have a relevant document."""
    total, n = 0.0, 0
    for qid, rels in qrels.items():
        positive = {d: g for d, g in rels.items() if g > 0}
        if not positive:
            continue
        n += 1
        ranked = _ranked(run.get(qid, {}))[:k]
        dcg = sum((2 ** positive.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked))
        ideal = sorted(positive.values(), reverse=True)[:k]
        idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
        total += dcg / idcg if idcg else 0.0
    return total / n if n else 0.0


def recall_at(run: Run, qrels: Qrels, k: int = 100) -> float:
    """Mean fraction of relevant documents found in the top ``k``."""
    total, n = 0.0, 0
    for qid, rels in qrels.items():
        positive = {d for d, g in rels.items() if g > 0}
        if not positive:
            continue
        n += 1
        ranked = set(_ranked(run.get(qid, {}))[:k])
        total += len(positive & ranked) / len(positive)
    return total / n if n else 0.0


def trec_lines(run: Run, tag: str = "charter") -> list[str]:
    """The run as TREC lines ``qid Q0 docid rank score tag``, queries in id order."""
    lines: list[str] = []
    for qid in sorted(run):
        for rank, doc in enumerate(_ranked(run[qid]), start=1):
            lines.append(f"{qid} Q0 {doc} {rank} {run[qid][doc]:.6f} {tag}")
    return lines
