"""Experiment (stop 21): does a larger bi-encoder separate fail from pass drift cases?

Case-level AUC of the best (unit, rejected option) similarity, MiniLM against a local
sentence-transformers model (``--model``, e.g. all-mpnet-base-v2). Needs
sentence-transformers; figures in docs/benchmarks.md, Drift, stop 21.

    python bench/drift_similarity_auc.py --model DIR SPLIT...
"""

import argparse
import json
import re
from pathlib import Path

import numpy as np

from charter.embed.registry import get_embedder

ap = argparse.ArgumentParser()
ap.add_argument("--model", required=True)
ap.add_argument("dirs", nargs="+")
args = ap.parse_args()
dirs = args.dirs


def sents(t):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", t) if len(s.strip()) > 3]


def opts(cons):
    out = []
    for c in cons.get("pgc_clarifications", []):
        if not c.get("binding") or not c.get("choices"):
            continue
        ans = c.get("user_answer")
        ans = ans if isinstance(ans, list) else [ans]
        chosen = [ch["label"] for ch in c["choices"] if ch["id"] in ans]
        rej = [ch["label"] for ch in c["choices"] if ch["id"] not in ans]
        if rej and chosen:
            out.append((c["id"], c["text"], chosen, rej))
    return out


def auc(pos, neg):
    pos, neg = np.array(pos), np.array(neg)
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


models = {"minilm": get_embedder("minilm")}
from sentence_transformers import SentenceTransformer  # noqa: E402 - optional, after MiniLM loads

mp = SentenceTransformer(args.model, device="cpu")


class E:
    def embed(self, t):
        v = mp.encode(list(t), batch_size=32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


models["mpnet"] = E()
for name, emb in models.items():
    for variant in ["diff", "rej"]:
        allp, alln = [], []
        for d in dirs:
            d = Path(d)
            cons = {p.stem: json.loads(p.read_text()) for p in (d / "constraints").glob("*.json")}
            cache = {}
            P, N = [], []
            for line in (d / "cases.jsonl").read_text().splitlines():
                c = json.loads(line)
                o = opts(cons[c["scenario"]])
                ss = sents(c["text"])
                if not ss or not o:
                    continue
                sv = emb.embed(ss)
                best = -9
                for cid, q, ch, rj in o:
                    key = (c["scenario"], cid)
                    if key not in cache:
                        cache[key] = (
                            emb.embed([f"{q} {x}" for x in ch]),
                            emb.embed([f"{q} {x}" for x in rj]),
                        )
                    cv, rv = cache[key]
                    s_r = (sv @ rv.T).max(axis=1)
                    s_c = (sv @ cv.T).max(axis=1)
                    val = (s_r - s_c) if variant == "diff" else s_r
                    best = max(best, float(val.max()))
                (P if c["expected"] == "fail" else N).append(best)
            allp += P
            alln += N
            print(name, variant, d.name, "AUC", round(auc(P, N), 3), flush=True)
        print(name, variant, "ALL", round(auc(allp, alln), 3), flush=True)
