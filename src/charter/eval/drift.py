"""``charter eval drift``: the drift checker on the ``shared/bench/drift`` format.

The scoring reproduces the bench README's reference scorer exactly (case-level P/R/F1 of
``fail``, per-rule detection and attributed recall with ``alt_rules``, exact constraint
attribution, non-binding citation rate) and adds false alarms on pass cases by tag.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.models import parse_clarifications
from charter.decisions.settings import DriftSettings
from charter.embed.base import Embedder
from charter.errors import CharterError
from charter.fileio import iter_jsonl, read_text

RULES = ["QA-PGC-001", "QA-PGC-002", "QA-PGC-003", "QA-PGC-004"]


@dataclass
class Split:
    cases: list[dict[str, Any]]
    constraints: dict[str, dict[str, Any]]


def load_split(data_dir: Path) -> Split:
    cases_path = data_dir / "cases.jsonl"
    cdir = data_dir / "constraints"
    if not cases_path.is_file() or not cdir.is_dir():
        raise CharterError(f"{data_dir}: expected cases.jsonl and constraints/ (bench format)")
    cases = [case for _, case in iter_jsonl(cases_path, what="cases")]
    constraints = {}
    for path in sorted(cdir.glob("*.json")):
        try:
            constraints[path.stem] = json.loads(read_text(path, what="constraints"))
        except json.JSONDecodeError:
            raise CharterError(f"{path}: invalid JSON") from None
    return Split(cases=cases, constraints=constraints)


def predict(
    split: Split,
    embedder: Embedder | None,
    on_case: Callable[[], None] | None = None,
) -> tuple[list[dict[str, Any]], list[float]]:
    """Predictions in the bench format, plus per-case check times in seconds."""
    checkers: dict[str, DriftChecker] = {}
    preds = []
    times = []
    for case in split.cases:
        scenario = case.get("scenario", "")
        if scenario not in checkers:
            if scenario not in split.constraints:
                raise CharterError(f"case {case.get('id')}: unknown scenario {scenario!r}")
            decisions = parse_clarifications(split.constraints[scenario], scenario)
            checkers[scenario] = DriftChecker(decisions, embedder=embedder)
        t0 = time.perf_counter()
        result = checkers[scenario].check(case["text"], case.get("artifact_kind"))
        times.append(time.perf_counter() - t0)
        preds.append(
            {
                "id": case["id"],
                "verdict": result.verdict,
                "violations": [
                    {
                        "constraint_id": f.constraint_id,
                        "rule": f.rule,
                        "evidence": f.evidence,
                        "confidence": round(f.confidence, 4),
                    }
                    for f in result.findings
                ],
            }
        )
        if on_case is not None:
            on_case()
    return preds, times


def score(split: Split, predictions: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The reference scorer's metrics, plus false alarms by tag on gold-pass cases."""
    binding: dict[tuple[str, str], bool] = {}
    for scenario, data in split.constraints.items():
        for c in data.get("pgc_clarifications", []):
            binding[(scenario, c["id"])] = bool(c.get("binding"))
    pred = {p["id"]: p for p in predictions if p}
    tp = fp = fn = tn = 0
    rule_n: dict[str, int] = defaultdict(int)
    rule_det: dict[str, int] = defaultdict(int)
    rule_attr: dict[str, int] = defaultdict(int)
    exact = exact_tp = 0
    n_pred_v = bad_pred_v = 0
    tag_pass: dict[str, int] = defaultdict(int)
    tag_fa: dict[str, int] = defaultdict(int)
    tag_fail: dict[str, int] = defaultdict(int)
    tag_det: dict[str, int] = defaultdict(int)
    for g in split.cases:
        p = pred.get(g["id"], {"verdict": "pass", "violations": []})
        pv = p.get("violations", []) if p["verdict"] == "fail" else []
        gf, pf = g["expected"] == "fail", p["verdict"] == "fail"
        tp += gf and pf
        fp += (not gf) and pf
        fn += gf and not pf
        tn += (not gf) and not pf
        for tag in g.get("tags", []):
            if gf:
                tag_fail[tag] += 1
                tag_det[tag] += pf
            else:
                tag_pass[tag] += 1
                tag_fa[tag] += pf
        for v in pv:
            n_pred_v += 1
            bad_pred_v += not binding.get((g["scenario"], v.get("constraint_id")), False)
        if not gf:
            continue
        for v in g["violations"]:
            r = v["rule"]
            ok_rules = {r, *v.get("alt_rules", [])}
            rule_n[r] += 1
            rule_det[r] += pf
            rule_attr[r] += any(
                x.get("constraint_id") == v["constraint_id"] and x.get("rule") in ok_rules
                for x in pv
            )
        same = pf and {x.get("constraint_id") for x in pv} == {
            v["constraint_id"] for v in g["violations"]
        }
        exact += same
        exact_tp += same and pf
    P = tp / (tp + fp) if tp + fp else 0.0
    R = tp / (tp + fn) if tp + fn else 0.0
    return {
        "n": len(split.cases),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(P, 4),
        "recall": round(R, 4),
        "f1": round(2 * P * R / (P + R), 4) if P + R else 0.0,
        "false_alarm_rate_on_pass": round(fp / (fp + tn), 4) if fp + tn else 0.0,
        "per_rule_detection_recall": {
            r: round(rule_det[r] / rule_n[r], 4) for r in RULES if rule_n[r]
        },
        "per_rule_attributed_recall": {
            r: round(rule_attr[r] / rule_n[r], 4) for r in RULES if rule_n[r]
        },
        "exact_attribution_accuracy": round(exact / (tp + fn), 4) if tp + fn else 0.0,
        "exact_attribution_accuracy_on_tp": round(exact_tp / tp, 4) if tp else 0.0,
        "non_binding_or_unknown_citation_rate": round(bad_pred_v / n_pred_v, 4)
        if n_pred_v
        else 0.0,
        "false_alarms_on_pass_by_tag": {
            t: {"pass_cases": tag_pass[t], "false_alarms": tag_fa[t]} for t in sorted(tag_pass)
        },
        "detection_on_fail_by_tag": {
            t: {"fail_cases": tag_fail[t], "detected": tag_det[t]} for t in sorted(tag_fail)
        },
    }


def per_scenario(split: Split, predictions: list[dict[str, Any]]) -> dict[str, Any]:
    """Case-level P/R/F1 per scenario and the worst one, so one bad scenario cannot hide in
    the mean. A scenario with nothing to find and nothing flagged has no F1 (``None``) and
    ranks as perfect; otherwise the worst has the lowest F1, then the most errors."""
    by_scenario: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in split.cases:
        by_scenario[case.get("scenario", "")].append(case)
    rows = []
    for name in sorted(by_scenario):
        sub = Split(cases=by_scenario[name], constraints=split.constraints)
        m = score(sub, predictions)
        defined = m["tp"] + m["fp"] + m["fn"] > 0
        rows.append(
            {
                "scenario": name,
                "cases": m["n"],
                "tp": m["tp"],
                "fp": m["fp"],
                "fn": m["fn"],
                "tn": m["tn"],
                "precision": m["precision"] if m["tp"] + m["fp"] else None,
                "recall": m["recall"] if m["tp"] + m["fn"] else None,
                "f1": m["f1"] if defined else None,
            }
        )

    def badness(row: dict[str, Any]) -> tuple[float, int]:
        f1 = 1.0 if row["f1"] is None else row["f1"]
        return (f1, -(row["fp"] + row["fn"]))

    worst = min(rows, key=badness)["scenario"] if rows else None
    return {"per_scenario": rows, "worst_scenario": worst}


def blocking(split: Split, predictions: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """Fail detection counting only the findings sure enough to stop an agent
    (``drift.block_confidence``): the precision a Stop hook in block mode has."""
    sure = []
    for pred in predictions:
        kept = [v for v in pred["violations"] if v.get("confidence", 1.0) >= threshold]
        sure.append({**pred, "verdict": "fail" if kept else "pass", "violations": kept})
    m = score(split, sure)
    keys = ("precision", "recall", "f1", "tp", "fp", "fn", "false_alarm_rate_on_pass")
    return {"block_confidence": threshold} | {k: m[k] for k in keys}


def evaluate(
    data_dir: Path,
    embedder: Embedder | None,
    on_case: Callable[[], None] | None = None,
    block_confidence: float = DriftSettings().block_confidence,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    split = load_split(data_dir)
    preds, times = predict(split, embedder, on_case)
    metrics = score(split, preds)
    metrics |= per_scenario(split, preds)
    metrics["blocking"] = blocking(split, preds, block_confidence)
    ordered = sorted(times)
    metrics["median_check_ms"] = round(1000 * ordered[len(ordered) // 2], 2) if ordered else 0.0
    metrics["semantic_layer"] = embedder.name if embedder is not None else "off"
    return metrics, preds
