"""Experiment (stop 32, not shipped): a MiniLM cross-encoder reranking a task's rules.

Would reading the task and a rule together (a cross-encoder) place the near misses of the
bi-encoder ranking inside the budget? Four steps; ``candidates`` and ``proxy`` run with
Charter, ``train`` and ``score`` need torch and transformers (not Charter dependencies:
the separate virtualenv of ``bench/rules_embed_train.py``)::

    .venv/bin/python bench/rules_cross_encoder.py candidates --data bench/data/rules_train \\
        --out /tmp/ce-train.json
    .venv/bin/python bench/rules_cross_encoder.py candidates --data ../shared/bench/rules \\
        --data HELD_OUT --out /tmp/ce-eval.json
    TRAIN_VENV/bin/python bench/rules_cross_encoder.py train --base MINILM_DIR \\
        --examples /tmp/ce-train.json --out /tmp/ce.pt
    TRAIN_VENV/bin/python bench/rules_cross_encoder.py score --base MINILM_DIR \\
        --weights /tmp/ce.pt --examples /tmp/ce-eval.json --out /tmp/ce-eval-scored.json
    .venv/bin/python bench/rules_cross_encoder.py proxy --examples /tmp/ce-eval-scored.json

``candidates`` keeps, per labelled task, the retriever's top 40 rules in fused order with
their gold flags and the size of the default budgeted selection. The model is
all-MiniLM-L6-v2 with a linear head on ``[CLS]`` over (task, rule) pairs, trained
listwise (softmax over a task's gold rules and 15 negatives, 8 of them the hardest).
``proxy`` counts gold rules in the constitution plus the first N reranked candidates, N
the size of the default selection, for the fused order and for the fused z-score plus
``w`` times the cross-encoder's z-score. Figures and the verdict: docs/benchmarks.md
("A cross-encoder over a task's rules", stop 32).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

TOP = 40
NEGATIVES = 15
HARD = 8
MAX_LENGTH = 96
WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 1000.0)


def candidates(datas: list[Path], out: Path) -> None:
    from rules_files import compiled_files

    from charter.config import Settings
    from charter.embed.registry import rules_embedder_for
    from charter.rules.retrieve import Retriever

    settings = Settings()
    embedder = rules_embedder_for(settings)
    rows: list[dict[str, Any]] = []
    for data, rel_file, rel, compiled, tasks in compiled_files(datas, settings, embedder):
        retriever = Retriever(compiled, settings.rules, embedder)

        def gold_of(rule: Any, gold: list[list[int]], rel: str = rel) -> list[int]:
            src = rule.source
            return [
                i
                for i, lines in enumerate(gold)
                if src.path == rel and any(src.line_start <= n <= src.line_end for n in lines)
            ]

        for task in tasks:
            gold = [
                [g["line"]] + [a["line"] for a in g.get("alt", [])]
                for g in task.get("relevant", [])
            ]
            chosen = retriever.retrieve(task["task"], task.get("files"))
            ranked = retriever.retrieve(task["task"], task.get("files"), top=TOP)
            pinned = {i for r in retriever.constitution_rules for i in gold_of(r, gold)}
            rows.append(
                {
                    "set": data.name,
                    "file": rel_file,
                    "task": task["task"],
                    "ngold": len(gold),
                    "const_gold": sorted(pinned),
                    "sel": [sh.rule.id for sh in chosen.shards],
                    "cands": [
                        {
                            "id": sh.rule.id,
                            "text": sh.rule.search_text,
                            "score": sh.score,
                            "gold": gold_of(sh.rule, gold),
                        }
                        for sh in ranked.shards
                    ],
                }
            )
    out.write_text(json.dumps(rows))
    print(f"{len(rows)} tasks -> {out}")


def _model(base: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModel, AutoTokenizer

    class CrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(base)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)

        def forward(self, **batch: Any) -> Any:
            return self.head(self.encoder(**batch).last_hidden_state[:, 0]).squeeze(-1)

    return AutoTokenizer.from_pretrained(base), CrossEncoder()


def train(args: argparse.Namespace) -> None:
    import torch

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    tokenizer, model = _model(args.base)
    rows = [
        r
        for r in json.loads(args.examples.read_text())
        if any(c["gold"] for c in r["cands"]) and any(not c["gold"] for c in r["cands"])
    ]
    total = int(len(rows) * args.epochs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, total // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (total - s) / total)
    )
    model.train()
    step, started, running = 0, time.time(), 0.0
    while step < total:
        order = rows[:]
        random.shuffle(order)
        for row in order[: total - step]:
            pos = [c for c in row["cands"] if c["gold"]]
            neg = [c for c in row["cands"] if not c["gold"]]
            rest = neg[HARD:]
            neg = neg[:HARD] + random.sample(rest, min(len(rest), NEGATIVES - HARD))
            pairs = pos + neg
            batch = tokenizer(
                [row["task"]] * len(pairs),
                [c["text"] for c in pairs],
                padding=True,
                truncation=True,
                max_length=MAX_LENGTH,
                return_tensors="pt",
            )
            log_p = torch.log_softmax(model(**batch), 0)
            loss = -torch.logsumexp(log_p[: len(pos)], 0)  # probability of the gold set
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            step += 1
            running = 0.98 * running + 0.02 * loss.item()
            if step % 100 == 0:
                print(f"step {step}/{total} loss {running:.3f} {time.time() - started:.0f}s")
    torch.save(model.state_dict(), args.out)
    print(f"saved {args.out}")


def score(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(args.threads)
    tokenizer, model = _model(args.base)
    model.load_state_dict(torch.load(args.weights))
    model.eval()
    rows = json.loads(args.examples.read_text())
    with torch.no_grad():
        for row in rows:
            if not row["cands"]:
                continue
            batch = tokenizer(
                [row["task"]] * len(row["cands"]),
                [c["text"] for c in row["cands"]],
                padding=True,
                truncation=True,
                max_length=MAX_LENGTH,
                return_tensors="pt",
            )
            for cand, value in zip(row["cands"], model(**batch).tolist(), strict=True):
                cand["ce"] = value
    args.out.write_text(json.dumps(rows))


def _z(values: list[float]) -> list[float]:
    mean, sd = statistics.mean(values), statistics.pstdev(values) or 1.0
    return [(v - mean) / sd for v in values]


def proxy(examples: Path) -> None:
    results: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in json.loads(examples.read_text()):
        if not row["ngold"] or not row["cands"]:
            continue
        cands = row["cands"]
        fused, joint = _z([c["score"] for c in cands]), _z([c.get("ce", 0.0) for c in cands])
        for w in WEIGHTS:
            mixed = [a + w * b for a, b in zip(fused, joint, strict=True)]
            order = [c for _, c in sorted(zip(mixed, cands, strict=True), key=lambda t: -t[0])]
            found = set(row["const_gold"])
            for cand in order[: len(row["sel"])]:
                found |= set(cand["gold"])
            results[row["set"]][f"w={w:g}"].append(len(found) / row["ngold"])
    for name, figures in sorted(results.items()):
        cells = " ".join(f"{k} {statistics.mean(v):.4f}" for k, v in figures.items())
        print(f"{name} ({len(next(iter(figures.values())))} tasks): {cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ca = sub.add_parser("candidates")
    ca.add_argument("--data", type=Path, action="append", required=True)
    ca.add_argument("--out", type=Path, required=True)
    for name in ("train", "score"):
        p = sub.add_parser(name)
        p.add_argument("--base", type=Path, required=True, help="all-MiniLM-L6-v2 folder")
        p.add_argument("--examples", type=Path, required=True)
        p.add_argument("--out", type=Path, required=True)
        p.add_argument("--threads", type=int, default=2)
        if name == "train":
            p.add_argument("--epochs", type=float, default=1.0)
            p.add_argument("--lr", type=float, default=3e-5)
            p.add_argument("--seed", type=int, default=0)
        else:
            p.add_argument("--weights", type=Path, required=True)
    px = sub.add_parser("proxy")
    px.add_argument("--examples", type=Path, required=True)
    args = ap.parse_args()
    if args.command == "candidates":
        from rules_files import require_tasks

        require_tasks(args.data, "rules_cross_encoder")
        candidates(args.data, args.out)
    elif args.command == "train":
        train(args)
    elif args.command == "score":
        score(args)
    else:
        proxy(args.examples)


if __name__ == "__main__":
    main()
