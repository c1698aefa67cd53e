"""The drift sentences and texts of bench/data/drift_units are training and test data:
a label that contradicts the benchmark's policy would teach a model the wrong verdict."""

from __future__ import annotations

import json
from pathlib import Path

from charter.decisions.binding import apply_binding
from charter.decisions.models import Clarification

DATA = Path(__file__).resolve().parents[1] / "bench" / "data" / "drift_units"
RULES = {"QA-PGC-001", "QA-PGC-002", "QA-PGC-003", "QA-PGC-004"}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _scenarios(root: Path) -> dict[str, dict[str, dict]]:
    """Each scenario's decisions by id, after checking every stored binding is the one
    the binding rules derive."""
    scenarios = {}
    for f in sorted((root / "constraints").glob("*.json")):
        entries = json.loads(f.read_text())["pgc_clarifications"]
        for raw in entries:
            derived = apply_binding(Clarification.model_validate(raw))
            assert (derived.binding, derived.binding_reason) == (
                raw["binding"],
                raw["binding_reason"],
            ), f"{f}: {raw['id']}"
        scenarios[f.stem] = {c["id"]: c for c in entries}
    return scenarios


def test_every_set_keeps_the_bench_policy() -> None:
    sets = sorted(p for p in DATA.iterdir() if p.is_dir())
    assert len(sets) >= 8
    seen: set[str] = set()
    for root in sets:
        scenarios = _scenarios(root)
        assert len(scenarios) == 4, root
        for unit in _jsonl(root / "units.jsonl"):
            assert unit["id"] not in seen
            seen.add(unit["id"])
            entry = scenarios[unit["scenario"]][unit["constraint_id"]]
            if unit["label"] == "violates":
                assert entry["binding"] and unit["rule"] in RULES, unit["id"]
                if unit["rule"] == "QA-PGC-002":
                    assert entry["binding_reason"] == "explicit_exclusion", unit["id"]
            else:
                assert unit["label"] == "complies", unit["id"]
        cases = _jsonl(root / "cases.jsonl")
        assert sorted(c["expected"] for c in cases) == ["fail"] * 24 + ["pass"] * 24
        for case in cases:
            assert case["id"] not in seen
            seen.add(case["id"])
            assert (case["expected"] == "fail") == bool(case["violations"])
            for v in case["violations"]:
                assert scenarios[case["scenario"]][v["constraint_id"]]["binding"], case["id"]
                assert v["evidence"] in case["text"], case["id"]


def test_the_adr_repository_set_keeps_the_bench_policy() -> None:
    """bench/data/drift_adr_repos: decisions stored by `charter decisions import` from
    real ADRs; every label cites a binding decision and quotes its text exactly."""
    root = DATA.parent / "drift_adr_repos"
    scenarios = _scenarios(root)
    cases = _jsonl(root / "cases.jsonl")
    assert len({c["id"] for c in cases}) == len(cases) >= 20
    for case in cases:
        assert (case["expected"] == "fail") == bool(case["violations"]), case["id"]
        for v in case["violations"]:
            entry = scenarios[case["scenario"]][v["constraint_id"]]
            assert entry["binding"] and v["rule"] in RULES, case["id"]
            assert v["evidence"] in case["text"], case["id"]
