"""Fit the model that scores which rules apply to every change
(``charter/data/general_rules_model.json``; :mod:`charter.rules.general`).

Labelled rule files in the rules benchmark's layout (``<slug>/<file>`` with
``always.json``) are compiled as Charter compiles them; each rule that no other channel
delivers (not in the constitution, not path-scoped) is a row: its rules-model vector and
structural features, positive when it covers a line of ``always.json``. An L2 logistic
regression (Newton's method, numpy, deterministic) is fitted.

Evaluation is leave one FILE out: each file's rules are scored by a model fitted on the
other files, then handed over as the hook does (best first, at or above the minimum score,
within the token budget; rules already in the constitution count as held) and the share of
the file's always-rules held is averaged per file. ``--write`` fits on every file and
writes the model.

Usage::

    python bench/materialize_rules_data.py --mirrors /work/.mirror --out /tmp/h32
    python bench/rules_general_fit.py --data ../shared/bench/rules --data /tmp/h32 \\
        [--budget 300 --min-score 0.05] [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from charter.config import Project, Settings
from charter.embed.registry import rules_embedder_for
from charter.rules.compiler import compile_rules
from charter.rules.general import STRUCTURE, candidates, features, score_rows
from charter.rules.render import render_rule_line
from charter.tokens import estimate_tokens

ROOT = Path(__file__).resolve().parents[1]
MODEL_PATH = ROOT / "src" / "charter" / "data" / "general_rules_model.json"


@dataclass
class LabelledFile:
    name: str
    x: np.ndarray  # candidate rows x features
    y: np.ndarray  # 1 = covers an always-rule
    costs: list[int]  # tokens of each candidate's line as the hook shows it
    gold: list[set[int]]  # per always-rule: candidate rows covering it; -1 = the core
    model: str


def _rule_file(folder: Path) -> Path | None:
    files = [p for p in sorted(folder.iterdir()) if p.name not in ("always.json", "source.json")]
    return files[0] if len(files) == 1 else None


def load(data_dirs: list[Path], settings: Settings) -> list[LabelledFile]:
    embedder = rules_embedder_for(settings)
    out = []
    for data in data_dirs:
        for always_path in sorted(data.glob("*/always.json")):
            path = _rule_file(always_path.parent)
            if path is None:
                print(f"{always_path.parent}: expected one rule file", file=sys.stderr)
                continue
            always = json.loads(always_path.read_text(encoding="utf-8"))["always"]
            with tempfile.TemporaryDirectory() as tmp:
                project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
                compiled = compile_rules(project, [path], embedder=embedder, write=False)
            rules = compiled.rules
            core = set(compiled.constitution.rule_ids)
            rows = candidates(rules, core)
            chosen = [rules[i] for i in rows]
            gold = []
            for g in always:
                lines = [g["line"]] + [a["line"] for a in g.get("alt", [])]
                held = {
                    j
                    for j, r in enumerate(chosen)
                    if any(r.source.line_start <= ln <= r.source.line_end for ln in lines)
                }
                if any(
                    r.id in core and r.source.line_start <= ln <= r.source.line_end
                    for r in rules
                    for ln in lines
                ):
                    held.add(-1)
                gold.append(held)
            y = np.array([any(j in g for g in gold) for j in range(len(chosen))], dtype=float)
            limit = settings.rules.max_rule_tokens
            costs = [estimate_tokens(render_rule_line(r, limit)) + 1 for r in chosen]
            x = features(chosen, compiled.vectors[rows]) if rows else np.zeros((0, 0))
            name = f"{data.name}/{always_path.parent.name}"
            out.append(LabelledFile(name, x, y, costs, gold, compiled.model))
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> dict[str, object]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-6
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = l2 * np.r_[np.ones(len(w) - 1), 0.0]
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return {
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "weights": w[:-1].tolist(),
        "bias": float(w[-1]),
    }


def auc(y: np.ndarray, s: np.ndarray) -> float:
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    pos = y == 1
    n1, n0 = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)) if n1 and n0 else 0.0


def handed(f: LabelledFile, scores: np.ndarray, budget: int, min_score: float) -> list[int]:
    """The rows the hook hands over: best first, at or above ``min_score``, within budget."""
    room, taken = budget, []
    for j in sorted(range(len(scores)), key=lambda j: -scores[j]):
        if scores[j] < min_score or f.costs[j] > room:
            continue
        taken.append(j)
        room -= f.costs[j]
    return taken


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, action="append", required=True)
    ap.add_argument("--l2", type=float, default=100.0)
    ap.add_argument("--budget", type=int, nargs="+", default=[200, 300, 400])
    ap.add_argument("--min-score", type=float, nargs="+", default=[0.0, 0.05, 0.1])
    ap.add_argument("--write", action="store_true", help="fit on every file, write the model")
    args = ap.parse_args()
    settings = Settings()
    files = [f for f in load(args.data, settings) if len(f.x)]
    scores: dict[str, np.ndarray] = {}
    for f in files:
        train = [g for g in files if g is not f]
        model = fit(np.vstack([g.x for g in train]), np.concatenate([g.y for g in train]), args.l2)
        scores[f.name] = score_rows(model, f.x)
    all_y = np.concatenate([f.y for f in files])
    all_s = np.concatenate([scores[f.name] for f in files])
    print(f"files {len(files)}, candidate rules {len(all_y)}, labelled always {int(all_y.sum())}")
    print(f"leave-one-file-out AUC {auc(all_y, all_s):.3f}")
    splits = sorted({f.name.split("/")[0] for f in files})
    for budget in args.budget:
        for min_score in args.min_score:
            per: dict[str, list[float]] = {s: [] for s in splits}
            picked = hits = tokens = 0
            for f in files:
                rows = set(handed(f, scores[f.name], budget, min_score))
                if f.gold:
                    held = sum(1 for g in f.gold if g & (rows | {-1}))
                    per[f.name.split("/")[0]].append(held / len(f.gold))
                picked += len(rows)
                hits += int(sum(f.y[j] for j in rows))
                tokens += sum(f.costs[j] for j in rows)
            cov = "  ".join(f"{s} {np.mean(v):.3f}" for s, v in per.items() if v)
            print(
                f"budget {budget} min score {min_score}: always-rules held {cov}; "
                f"precision {hits / max(picked, 1):.2f}, tokens per file {tokens / len(files):.0f}"
            )
    if args.write:
        model = fit(np.vstack([f.x for f in files]), all_y, args.l2)
        dim = files[0].x.shape[1] - len(STRUCTURE)
        model = {
            "embedding": files[0].model,
            "dim": dim,
            "features": f"{dim} vector dimensions, then " + ", ".join(STRUCTURE),
            "l2": args.l2,
            "fitted_on": [f.name.split("/", 1)[1] for f in files],
            **model,
        }
        MODEL_PATH.write_text(json.dumps(model, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
