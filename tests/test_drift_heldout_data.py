"""The labelled drift sets in ``tests/data`` keep the bench format and labelling policy.

Each held-out set is written by hand (several by engineers who never ran the checker), and
a figure measured on a set with a broken label is a wrong figure: evidence that is not in
the text, a violation citing a constraint that does not bind, or a ``binding`` flag the
bench's own rule would not give (resolved, and `must`, marked hard or an exclusion), so a set
whose writer read the policy differently fails this test instead of scoring quietly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from charter.decisions.binding import is_resolved
from charter.decisions.models import parse_clarifications
from charter.eval.drift import load_split

DATA = Path(__file__).resolve().parent / "data"
SETS = sorted(p for p in DATA.glob("drift_*") if (p / "cases.jsonl").is_file())
RULES = {"QA-PGC-001", "QA-PGC-002", "QA-PGC-003", "QA-PGC-004"}


def test_there_are_held_out_sets() -> None:
    assert len(SETS) >= 18


def problems(split_dir: Path) -> list[str]:
    """Every label of ``split_dir`` that breaks the bench's format or policy."""
    out: list[str] = []
    split = load_split(split_dir)
    binding: dict[str, dict[str, bool]] = {}
    for scenario, data in split.constraints.items():
        raw = {c["id"]: c for c in data["pgc_clarifications"]}
        binding[scenario] = {}
        for entry in parse_clarifications(data, scenario).pgc_clarifications:
            # the bench README's rule: resolved and (must, marked hard, or an exclusion)
            reason = raw[entry.id].get("binding_reason")
            derived = is_resolved(entry.user_answer) and (
                entry.priority == "must" or reason in ("user_marked_hard", "explicit_exclusion")
            )
            if derived != entry.binding:
                out.append(f"{scenario}/{entry.id}: binding does not re-derive")
            binding[scenario][entry.id] = entry.binding
    ids = [c["id"] for c in split.cases]
    if len(ids) != len(set(ids)):
        out.append("duplicate case ids")
    for case in split.cases:
        where = case["id"]
        if case["scenario"] not in binding:
            out.append(f"{where}: unknown scenario")
            continue
        if case["expected"] not in ("pass", "fail"):
            out.append(f"{where}: expected is {case['expected']!r}")
        if not 15 <= len(case["text"].split()) <= 260:
            out.append(f"{where}: text of {len(case['text'].split())} words")
        if bool(case["violations"]) != (case["expected"] == "fail"):
            out.append(f"{where}: verdict and violations disagree")
        for v in case["violations"]:
            if binding[case["scenario"]].get(v["constraint_id"]) is not True:
                out.append(f"{where}: {v['constraint_id']} does not bind")
            if v["rule"] not in RULES or not set(v.get("alt_rules", [])) <= RULES:
                out.append(f"{where}: unknown rule")
            if not v["evidence"] or v["evidence"] not in case["text"]:
                out.append(f"{where}: evidence is not in the text")
    return out


@pytest.mark.parametrize("split_dir", SETS, ids=[p.name for p in SETS])
def test_labels_follow_the_bench_policy(split_dir: Path) -> None:
    assert problems(split_dir) == []


def test_a_broken_label_is_reported(tmp_path: Path) -> None:
    """The check can fail: a violation of a `should` answer, and evidence not in the text."""
    (tmp_path / "constraints").mkdir()
    clar = {
        "id": "THEME",
        "text": "Which colour theme should the site use?",
        "priority": "should",
        "answer_type": "single_choice",
        "choices": [{"id": "dark", "label": "Dark"}, {"id": "light", "label": "Light"}],
        "user_answer": "dark",
        "user_answer_label": "Dark",
        "resolved": True,
        "binding": False,
        "binding_reason": "non_binding_priority",
    }
    (tmp_path / "constraints" / "site.json").write_text(json.dumps({"pgc_clarifications": [clar]}))
    text = " ".join(["The site ships a light theme by default for every visitor."] * 4)
    case = {
        "id": "s-01",
        "scenario": "site",
        "artifact_kind": "story",
        "text": text,
        "expected": "fail",
        "violations": [
            {"constraint_id": "THEME", "rule": "QA-PGC-001", "evidence": "a pale theme"}
        ],
        "tags": [],
    }
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n")
    assert problems(tmp_path) == [
        "s-01: THEME does not bind",
        "s-01: evidence is not in the text",
    ]
