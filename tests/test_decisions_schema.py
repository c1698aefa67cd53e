"""The published JSON Schema matches the models; documents round-trip unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from charter.decisions.models import parse_clarifications, schema_text
from charter.errors import CharterError
from tests.decisions_support import decisions

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schemas" / "pgc_clarifications.v1.json"
BENCH = Path("/work/shared/bench/drift/constraints")


def test_checked_in_schema_matches_models() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == schema_text(), (
        "schemas/pgc_clarifications.v1.json is stale: run "
        "`charter decisions schema --write schemas/pgc_clarifications.v1.json`"
    )


def test_schema_describes_the_seed_shape() -> None:
    schema = json.loads(SCHEMA.read_text())
    props = schema["$defs"]["Clarification"]["properties"]
    for key in (
        "id",
        "text",
        "priority",
        "answer_type",
        "choices",
        "user_answer",
        "user_answer_label",
        "resolved",
        "binding",
        "binding_reason",
    ):
        assert key in props
    assert props["priority"]["enum"] == ["must", "should", "could"]
    assert schema["required"] == ["pgc_clarifications"]


def test_round_trip_is_byte_identical() -> None:
    text = decisions().canonical_text()
    again = parse_clarifications(json.loads(text)).canonical_text()
    assert again == text


def test_seed_example_round_trips() -> None:
    seed = {
        "pgc_clarifications": [
            {
                "id": "TARGET_PLATFORM",
                "text": "What platform should the app target?",
                "priority": "must",
                "answer_type": "single_choice",
                "choices": [
                    {"id": "web", "label": "Web browser"},
                    {"id": "mobile", "label": "Mobile application"},
                ],
                "user_answer": "web",
                "user_answer_label": "Web browser",
                "resolved": True,
                "binding": True,
                "binding_reason": "must_answered",
            }
        ]
    }
    assert parse_clarifications(seed).to_canonical() == seed


@pytest.mark.skipif(not BENCH.is_dir(), reason="shared bench data not mounted")
def test_bench_files_round_trip() -> None:
    for path in BENCH.glob("*.json"):
        data = json.loads(path.read_text())
        assert parse_clarifications(data).to_canonical() == data


@pytest.mark.parametrize(
    "bad",
    [
        {"pgc_clarifications": [{"id": "X"}]},
        {
            "pgc_clarifications": [
                {"id": "X", "text": "?", "priority": "maybe", "answer_type": "yes_no"}
            ]
        },
        {"nope": []},
        {
            "pgc_clarifications": [
                {"id": "X", "text": "?", "priority": "must", "answer_type": "yes_no"},
                {"id": "X", "text": "?", "priority": "must", "answer_type": "yes_no"},
            ]
        },
    ],
)
def test_invalid_documents_give_one_line_errors(bad: object) -> None:
    with pytest.raises(CharterError) as info:
        parse_clarifications(bad, "input.json")
    assert "\n" not in str(info.value) and "input.json" in str(info.value)
