"""Experiment (stop 21, not shipped): a MiniLM cross-encoder over (bound statement, unit) pairs.

Needs torch, transformers and a local full-precision all-MiniLM-L6-v2 directory
(``--base``); none of them is a Charter dependency. ``train`` fine-tunes on bench-format
splits (a unit is positive when it overlaps a gold violation's evidence for that
constraint) and/or on labelled sentences (``--units``, bench/data/drift_units),
optionally with the masked direction clauses filled with invented option names;
``score`` writes each case's highest pair probability to ``OUT.scores.json``.
Figures and the verdict: docs/benchmarks.md, Drift, stop 21.

    python bench/drift_cross_encoder.py train --base MINILM --data SPLIT... --out DIR
    python bench/drift_cross_encoder.py score --data SPLIT... --out DIR
"""

import argparse
import json
import random
import time
from pathlib import Path


def load(d):
    d = Path(d)
    cons = {p.stem: json.loads(p.read_text()) for p in (d / "constraints").glob("*.json")}
    cases = [
        json.loads(line) for line in (d / "cases.jsonl").read_text().splitlines() if line.strip()
    ]
    return cons, cases


_inv_cache = {}


def invs(scen_key, data):
    if scen_key not in _inv_cache:
        from charter.decisions.invariants import invariants
        from charter.decisions.models import parse_clarifications

        dec = parse_clarifications(data, scen_key)
        _inv_cache[scen_key] = [(i.id, f"{i.question} {i.statement}") for i in invariants(dec)]
    return _inv_cache[scen_key]


def units(text):
    from charter.decisions.drift.segment import segment

    return [(u.start, u.end, u.text) for u in segment(text)]


def pairs_for_split(d):
    cons, cases = load(d)
    out = []
    for c in cases:
        iv = invs(f"{d}:{c['scenario']}", cons[c["scenario"]])
        us = units(c["text"])
        gold = {}
        for v in c.get("violations", []):
            ev = v.get("evidence") or ""
            s = c["text"].find(ev) if ev else -1
            gold.setdefault(v["constraint_id"], []).append((s, s + len(ev)))
        for ui, (a, b, t) in enumerate(us):
            prev = us[ui - 1][2] if ui else ""
            for cid, st in iv:
                lab = 0
                for s, e in gold.get(cid, []):
                    if s >= 0 and s < b and e > a:
                        lab = 1
                out.append(
                    {
                        "split": str(d),
                        "case": c["id"],
                        "scen": c["scenario"],
                        "cid": cid,
                        "a": st,
                        "b": t,
                        "prev": prev,
                        "y": lab,
                        "fail": c["expected"] == "fail",
                    }
                )
    return out


_SYL = [
    "kor",
    "van",
    "tel",
    "mo",
    "ri",
    "sa",
    "bex",
    "lun",
    "dar",
    "quo",
    "fen",
    "zi",
    "pal",
    "ost",
    "nir",
    "ca",
    "vel",
    "tra",
    "mun",
    "glo",
]
_SUF = ["", "", " Cloud", " Pay", " Hub", " API", " Connect", " Suite", " Pro", " Link"]


def unit_pairs(d, rng, others=1):
    """Pairs from a ``units.jsonl`` set (bench/data/drift_units): each labelled sentence
    against its own constraint's statement, and against ``others`` other binding
    constraints of its scenario as a negative (a violation of one answer is not one of
    every answer)."""
    cons, _ = load(d)
    out = []
    for line in (Path(d) / "units.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        u = json.loads(line)
        iv = dict(invs(f"{d}:{u['scenario']}", cons[u["scenario"]]))
        if u["constraint_id"] not in iv:
            continue
        y = int(u["label"] == "violates")
        out.append({"a": iv[u["constraint_id"]], "b": u["text"], "prev": "", "y": y})
        rest = sorted(k for k in iv if k != u["constraint_id"])
        for k in rng.sample(rest, min(others, len(rest))):
            out.append({"a": iv[k], "b": u["text"], "prev": "", "y": 0})
    return out


def _name(rng):
    w = "".join(rng.choice(_SYL) for _ in range(rng.randint(2, 3)))
    return w.capitalize() + rng.choice(_SUF)


def direction_pairs(d, rng):
    out = []
    for p in sorted(Path(d).glob("author_*.jsonl")):
        for line in p.read_text().splitlines():
            r = json.loads(line)
            names = [_name(rng) for _ in range(3)]
            topic = r["domain"].capitalize() + " option"
            q = f"Which option should the {r['domain']} product use?"
            st = f"{q} {topic}: {names[0]} only. Excluded: {names[1]}, {names[2]}."
            # X as a rejected option: forward = violation; X as the chosen one: away = violation
            x_rej = r["text"].replace("\u27e8X\u27e9", names[1])
            out.append({"a": st, "b": x_rej, "prev": "", "y": int(r["label"] == "forward")})
            x_cho = r["text"].replace("\u27e8X\u27e9", names[0])
            out.append({"a": st, "b": x_cho, "prev": "", "y": int(r["label"] == "away")})
    return out


def encode(tok, batch, args):
    """Statement as the first segment, the unit (after its previous one with --ctx) second."""
    units = [(r["prev"] + " [SEP] " + r["b"]) if args.ctx else r["b"] for r in batch]
    return tok(
        [r["a"] for r in batch],
        units,
        truncation=True,
        max_length=args.maxlen,
        padding=True,
        return_tensors="pt",
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd")
    ap.add_argument("--data", nargs="*", default=[])
    ap.add_argument("--out", required=True)
    ap.add_argument("--base", default="")
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--neg", type=int, default=6, help="negatives kept per positive (random)")
    ap.add_argument("--ctx", action="store_true")
    ap.add_argument("--direction", default="")
    ap.add_argument("--units", nargs="*", default=[], help="units.jsonl sets to train on")
    ap.add_argument("--maxlen", type=int, default=160)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=3e-5)
    args = ap.parse_args()
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(2)
    if args.cmd == "train":
        rows = [r for d in args.data for r in pairs_for_split(d)]
        pos = [r for r in rows if r["y"]]
        neg = [r for r in rows if not r["y"]]
        random.shuffle(neg)
        neg = neg[: len(pos) * args.neg]
        data = pos + neg
        for d in args.units:
            extra = unit_pairs(d, random.Random(args.seed))
            print(f"{d}: unit pairs {len(extra)} pos {sum(r['y'] for r in extra)}", flush=True)
            data += extra
        if args.direction:
            extra = direction_pairs(args.direction, random.Random(args.seed))
            print(f"direction pairs {len(extra)} pos {sum(r['y'] for r in extra)}", flush=True)
            data += extra
        print(f"pairs {len(rows)} pos {len(pos)} train {len(data)}", flush=True)
        tok = AutoTokenizer.from_pretrained(args.base)
        model = AutoModelForSequenceClassification.from_pretrained(args.base, num_labels=1)
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
        steps = int(len(data) * args.epochs / 16)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps)
        )
        model.train()
        step = 0
        t0 = time.time()
        while step < steps:
            random.shuffle(data)
            for i in range(0, len(data) - 15, 16):
                batch = data[i : i + 16]
                logits = model(**encode(tok, batch, args)).logits.squeeze(-1)
                y = torch.tensor([float(r["y"]) for r in batch])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
                opt.zero_grad()
                step += 1
                if step % 50 == 0:
                    print(
                        f"step {step}/{steps} loss {loss.item():.3f} {time.time() - t0:.0f}s",
                        flush=True,
                    )
                if step >= steps:
                    break
        model.save_pretrained(args.out)
        tok.save_pretrained(args.out)
    elif args.cmd == "score":
        tok = AutoTokenizer.from_pretrained(args.out)
        model = AutoModelForSequenceClassification.from_pretrained(args.out)
        model.eval()
        res = []
        for d in args.data:
            rows = pairs_for_split(d)
            probs = []
            with torch.no_grad():
                for i in range(0, len(rows), 64):
                    batch = rows[i : i + 64]
                    logits = model(**encode(tok, batch, args)).logits.squeeze(-1)
                    probs += torch.sigmoid(logits).tolist()
            bycase = {}
            for r, p in zip(rows, probs, strict=True):
                k = (r["split"], r["case"])
                cur = bycase.get(k)
                if cur is None or p > cur["p"]:
                    bycase[k] = {
                        "split": r["split"],
                        "case": r["case"],
                        "fail": r["fail"],
                        "p": p,
                        "cid": r["cid"],
                        "b": r["b"],
                    }
            res += list(bycase.values())
            print(d, len(bycase), flush=True)
        Path(args.out + ".scores.json").write_text(json.dumps(res))


main()
