"""The chosen option named as the thing something else replaces.

"Watchers now use polling every 500 ms instead of BroadcastChannel" abandons the bound
choice of BroadcastChannel whether or not polling is a listed option; the checker read
the chosen name as negated ("instead of") and passed it (found by real users' pass
fifty-three). And a verdict must not depend on the process's hash seed: the same text
against the same decisions was flagged under one ``PYTHONHASHSEED`` and passed under
another (a topic sum over a set's order).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from charter.decisions.drift.checker import DriftChecker
from tests.decisions_support import ACCOUNTING, choice_entry, flagged, layered_checker

CLARIFICATIONS = [
    choice_entry(
        "WATCH_MECHANISM",
        "How do watchers learn about changes?",
        {"broadcast": "BroadcastChannel", "polling": "Polling"},
        "broadcast",
    ),
    ACCOUNTING,
    choice_entry(
        "EMAILS",
        "How does the API send e-mails?",
        {"events": "Using events", "direct": "Direct email call"},
        "events",
    ),
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker({"pgc_clarifications": CLARIFICATIONS}, request.param)


ABANDONED = [
    "Watchers now use a 500 ms timer loop instead of BroadcastChannel.",
    "Replaced BroadcastChannel with a timer loop in the watcher.",
    "Switched the watcher from BroadcastChannel to a 500 ms timer loop.",
    "Invoices now go to a spreadsheet export rather than Xero.",
]

KEPT = [
    # the chosen option is the new side
    "Watchers use BroadcastChannel instead of a timer loop.",
    # the replacement itself is negated or ruled out
    "We will not use a timer loop instead of BroadcastChannel.",
    "Replacing BroadcastChannel with a timer loop was considered and rejected.",
    # the name qualifies a detail of the chosen option that is replaced
    "Instead of one Xero credit line per returned keg, the export groups them per size.",
    # the chosen option on both sides: a refinement of it
    "The watcher now uses one shared BroadcastChannel instead of a BroadcastChannel per tab.",
    # a common word of the chosen option in another sense: "Using events" (a real commit)
    "Replace deprecated DOMNodeInserted event with MutationObserver.",
    # a swap that is a noun, not a verb
    "The swap is only final once a coordinator approves it, exactly like a sign-up in Xero.",
]


@pytest.mark.parametrize("text", ABANDONED)
def test_the_chosen_option_replaced_by_something_else_isflagged(
    checker: DriftChecker, text: str
) -> None:
    findings = checker.check(text).findings
    assert findings, text
    assert {f.rule for f in findings} == {"QA-PGC-001"}
    want = "ACCOUNTING" if "Xero" in text else "WATCH_MECHANISM"
    assert {f.constraint_id for f in findings} == {want}
    # the evidence is the sentence's own words, an exact span
    assert all(text[f.start : f.end] == f.evidence for f in findings)


@pytest.mark.parametrize("text", KEPT)
def test_the_chosen_option_kept_refined_or_only_discussed_is_not(
    checker: DriftChecker, text: str
) -> None:
    assert flagged(checker, text) == set(), text


_SEED_PROBE = """
import json, sys
from pathlib import Path
from charter.config import Settings
from charter.decisions.drift.checker import DriftChecker
from charter.decisions.models import parse_clarifications
from charter.embed.registry import embedder_for
data = json.loads(Path(sys.argv[1]).read_text())
checker = DriftChecker(parse_clarifications(data, "s"), embedder=embedder_for(Settings()))
out = []
for text in json.loads(Path(sys.argv[2]).read_text()):
    result = checker.check(text)
    out.append(sorted((f.constraint_id, f.rule, round(f.confidence, 9)) for f in result.findings))
print(json.dumps(out))
"""


def test_a_verdict_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """A held-out set's QA plan (a pass case) against its scenario's decisions: one seed
    in eight flagged it at 0.673, the others gave 0.495 (below the threshold)."""
    data_dir = Path(__file__).parent / "data" / "drift_holdout39"
    case = next(
        json.loads(line)
        for line in (data_dir / "cases.jsonl").read_text().splitlines()
        if line.strip() and json.loads(line)["id"] == "cd-08"
    )
    constraints = data_dir / "constraints" / f"{case['scenario']}.json"
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps([case["text"]]))
    outputs = set()
    for seed in range(1, 9):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        res = subprocess.run(
            [sys.executable, "-c", _SEED_PROBE, str(constraints), str(texts)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(res.stdout)
    assert len(outputs) == 1, outputs
