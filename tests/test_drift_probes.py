"""Regression guard: one-sentence probes written while developing the checker.

Each row is a sentence against a scenario's constraints: ``pass`` rows must stay quiet,
``fail`` rows must cite their ``constraint_id``. Bench scenarios are read from the shared
bench folder when it is mounted (their rows are skipped otherwise); the others come from
``tests/data/drift_extra``. Unlike the held-out split, these sentences were used while
tuning, so they guard against regressions rather than measure quality.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.models import parse_clarifications
from charter.embed.registry import get_embedder

DATA = Path(__file__).parent / "data"
BENCH = Path("/work/shared/bench/drift/constraints")
ROWS = [json.loads(x) for x in (DATA / "drift_probes.jsonl").read_text().splitlines() if x]


@cache
def checker(scenario: str) -> DriftChecker | None:
    for folder in (DATA / "drift_extra" / "constraints", BENCH):
        path = folder / f"{scenario}.json"
        if path.is_file():
            decisions = parse_clarifications(json.loads(path.read_text()))
            return DriftChecker(decisions, embedder=get_embedder("minilm"))
    return None


#: Pass probes the boosted-tree decision (round 92) flags although it was fitted on them:
#: a sentence elaborating the chosen option. Known false alarms, kept visible; the held-out
#: pooled precision rose 0.739 -> 0.776 with it (docs/decisions.md, calibrated decision).
KNOWN_FALSE_ALARMS = {13, 23, 26}


def _param(i: int, row: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(reason="known false alarm (round 92)", strict=True)]
    return pytest.param(
        row, id=f"{row['scenario']}-{i}", marks=marks if i in KNOWN_FALSE_ALARMS else ()
    )


@pytest.mark.parametrize("row", [_param(i, r) for i, r in enumerate(ROWS)])
def test_probe(row: dict[str, Any]) -> None:
    chk = checker(row["scenario"])
    if chk is None:
        pytest.skip("scenario constraints not available")
    result = chk.check(row["text"])
    if row["expected"] == "pass":
        assert result.verdict == "pass", result.as_dict()
    else:
        assert row["constraint_id"] in {f.constraint_id for f in result.findings}, result.as_dict()
