"""Mechanical merge: deterministic bytes (hash-tested), strict ids, intake import."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from charter.decisions.intake import from_document, import_file
from charter.decisions.merge import merge_questions_answers, upsert
from charter.errors import CharterError
from tests.decisions_support import ANSWERS, QUESTIONS, decisions, write_inputs

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "examples" / "demo-project" / ".charter-seed"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_merge_is_deterministic() -> None:
    first = merge_questions_answers(QUESTIONS, ANSWERS).canonical_text()
    reordered_answers = dict(reversed(list(ANSWERS.items())))
    second = merge_questions_answers(QUESTIONS, reordered_answers).canonical_text()
    assert sha(first) == sha(second)
    data = json.loads(first)["pgc_clarifications"]
    assert [e["id"] for e in data] == [q["id"] for q in QUESTIONS]
    assert data[0]["user_answer_label"] == "Web browser"
    assert data[2]["binding_reason"] == "explicit_exclusion"


def test_merge_cli_output_hash_is_stable(
    repo: Path, run_charter: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    q, a = write_inputs(repo)
    hashes = set()
    for name in ("one.json", "two.json"):
        res = run_charter(
            "decisions",
            "merge",
            "--questions",
            str(q),
            "--answers",
            str(a),
            "--out",
            name,
            cwd=repo,
        )
        assert res.returncode == 0, res.stderr
        hashes.add(sha((repo / name).read_text(encoding="utf-8")))
    assert hashes == {sha(decisions().canonical_text())}


def test_demo_seed_merge_hash_is_pinned() -> None:
    """A regression pin: any change to the merged bytes of the demo inputs is deliberate."""
    q = json.loads((SEED / "questions.json").read_text())
    a = json.loads((SEED / "answers.json").read_text())
    text = merge_questions_answers(q, a).canonical_text()
    assert sha(text) == sha(merge_questions_answers(q, a).canonical_text())
    assert sha(text) == PINNED_DEMO_SHA, sha(text)


PINNED_DEMO_SHA = "c17da61f17603476dacabc7f8266fa7384287728435fae60138f7b4546776046"


def test_answers_by_label_and_unknown_ids() -> None:
    merged = merge_questions_answers(QUESTIONS, {**ANSWERS, "DATABASE": "MongoDB"})
    assert merged.require("DATABASE").user_answer == "mongodb"
    with pytest.raises(CharterError, match="unknown questions: NOPE"):
        merge_questions_answers(QUESTIONS, {"NOPE": "x"})
    with pytest.raises(CharterError, match="not one of the choices"):
        merge_questions_answers(QUESTIONS, {"DATABASE": "oracle"})


def test_upsert_never_changes_a_bound_entry() -> None:
    current = decisions()
    changed = merge_questions_answers(QUESTIONS, {**ANSWERS, "DATABASE": "mongodb"})
    with pytest.raises(CharterError, match="renegotiate DATABASE") as raised:
        upsert(current, changed)
    assert "would change bound DATABASE from" in str(raised.value)
    left_out = merge_questions_answers(
        QUESTIONS, {k: v for k, v in ANSWERS.items() if k != "DATABASE"}
    )
    with pytest.raises(CharterError, match=r"leave bound DATABASE .* unanswered"):
        upsert(current, left_out)
    informational = merge_questions_answers(QUESTIONS, {**ANSWERS, "THEME": "dark"})
    merged, ids = upsert(current, informational)
    assert ids == ["THEME"] and merged.require("THEME").user_answer == "dark"


def test_intake_yaml_and_exclusions(tmp_path: Path) -> None:
    form = tmp_path / "intake.yaml"
    form.write_text(
        "decisions:\n"
        "  - id: REGION\n    question: Where is data hosted?\n    answer: EU only\n"
        "  - id: SSO\n    question: Is SSO in scope?\n    priority: could\n    answer: no\n"
        "excluded:\n  - offline mode\n",
        encoding="utf-8",
    )
    got = import_file(form)
    by_id = {e.id: e for e in got.pgc_clarifications}
    assert by_id["REGION"].binding_reason == "must_answered"
    assert by_id["SSO"].binding_reason == "explicit_exclusion"
    assert by_id["EXCLUDED_OFFLINE_MODE"].binding is True


def test_import_accepts_canonical_and_question_answer_documents() -> None:
    canonical = from_document(decisions().to_canonical(), "x")
    assert canonical.canonical_text() == decisions().canonical_text()
    qa = from_document({"questions": QUESTIONS, "answers": ANSWERS}, "x")
    assert qa.canonical_text() == decisions().canonical_text()
    with pytest.raises(CharterError, match="no decisions found"):
        from_document({"hello": 1}, "x")


def test_bad_yaml_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("decisions: [\n  - x: :\n", encoding="utf-8")
    with pytest.raises(CharterError) as info:
        import_file(bad)
    assert "\n" not in str(info.value)


def test_markdown_intake_form(tmp_path: Path) -> None:
    form = tmp_path / "intake.md"
    form.write_text(
        "# Intake\n\n## DB: Which database is the system of record? (must)\n"
        "- [x] postgres: PostgreSQL\n- [ ] mongodb: MongoDB\n\n"
        "## CHANNELS: Which notification channels? (should)\n"
        "- [x] email: Email\n- [x] slack: Slack\n- [ ] sms: SMS\n\n"
        "## RETENTION: How long are invoices kept? [hard]\nAnswer: Ten years.\n\n"
        "## MOBILE: Is a native mobile app in scope? (could)\nAnswer: no\n\n"
        "## Excluded\n- crypto payments\n",
        encoding="utf-8",
    )
    got = {e.id: e for e in import_file(form, default_priority="should").pgc_clarifications}
    assert got["DB"].user_answer_label == "PostgreSQL" and got["DB"].binding
    assert got["CHANNELS"].user_answer == ["email", "slack"] and not got["CHANNELS"].binding
    assert got["RETENTION"].priority == "should"  # the configured default
    assert got["RETENTION"].binding_reason == "user_marked_hard"
    assert got["MOBILE"].binding_reason == "explicit_exclusion"
    assert got["EXCLUDED_CRYPTO_PAYMENTS"].binding


def _one(choices: list[dict[str, str]], answer: object) -> dict[str, object]:
    entry = {"id": "QUEUE", "text": "Which job queue?", "priority": "must"}
    return {**entry, "answer_type": "single_choice", "choices": choices, "user_answer": answer}


def test_an_imported_answer_or_choice_id_the_choices_do_not_bear_out_is_one_error() -> None:
    """A canonical file whose answer names no choice, or whose choice ids repeat, was
    imported and bound as written (``decisions add`` already refused the first)."""
    oban, exq = {"id": "OBAN", "label": "Oban"}, {"id": "EXQ", "label": "Exq"}
    with pytest.raises(CharterError, match=r"in\.json: QUEUE: answer 'SIDEKIQ' is not one"):
        from_document({"pgc_clarifications": [_one([oban, exq], "SIDEKIQ")]}, "in.json")
    twice = [oban, {"id": "oban", "label": "Exq"}]
    with pytest.raises(CharterError, match=r"in\.json: QUEUE: choice id 'oban' is given twice"):
        from_document({"pgc_clarifications": [_one(twice, "OBAN")]}, "in.json")
    with pytest.raises(CharterError, match="choice id 'OBAN' is given twice"):
        merge_questions_answers([_one([oban, oban], None)], {"QUEUE": "OBAN"})
    for answer in ("OBAN", "oban", "undecided", None):  # still fine
        from_document({"pgc_clarifications": [_one([oban, exq], answer)]}, "in.json")
