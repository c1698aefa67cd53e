"""The learned stance model of the drift checker: the shipped file, its fit, and how it
reads sentences of a domain none of its training sentences come from (observatory
operations)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.stance import (
    LABELS,
    SHIPPED,
    default_stance_model,
    features,
    parse_stance_model,
)
from charter.errors import CharterError
from tests.bench_support import run_bench
from tests.decisions_support import choice_entry, layered_checker

ROOT = Path(__file__).resolve().parents[1]
CUES = ROOT / "bench" / "data" / "drift_cues"


def test_shipped_model_matches_its_training_data() -> None:
    model = default_stance_model()
    assert tuple(model.stances) == SHIPPED
    files = model.meta["files"]
    assert isinstance(files, dict) and files
    for name, digest in files.items():
        # the shipped weights were fitted on exactly the committed sentences
        assert hashlib.sha256((CUES / name).read_bytes()).hexdigest()[:16] == digest
    for stance in model.stances.values():
        assert 0.0 < stance.threshold < 1.0 and stance.weights


@pytest.mark.parametrize(
    ("text", "stance"),
    [
        (
            "We could let the vendor's scheduler run the queue on clear nights instead.",
            "suggestion",
        ),
        ("It would make sense to move the flat-field frames to the archive server.", "suggestion"),
        (
            "Do we keep the dusk calibration run, or fold it into the morning checks?",
            "decision_point",
        ),
        ("Need a call from the director on which filter set goes first.", "decision_point"),
        (
            "The director is still going back and forth on whether raw frames stay on campus.",
            "undecided",
        ),
        ("Nobody has landed on which filter set goes first yet.", "undecided"),
    ],
)
def test_reads_a_stance_in_an_unseen_domain(text: str, stance: str) -> None:
    assert stance in default_stance_model().labels(text)


@pytest.mark.parametrize(
    "text",
    [
        "The calibration run starts at 18:00 and writes one FITS file per filter.",
        "Any frame that could contain a satellite trail is flagged for review.",
        "The dome closes instead of waiting when the humidity passes 85 %.",
        "Which port the mount controller listens on is in the wiring diagram.",
    ],
)
def test_plain_lines_with_stance_words_take_no_stance(text: str) -> None:
    assert not default_stance_model().labels(text)


def test_features_fold_digits_and_mark_questions() -> None:
    a, b = features("Ship 12 units?"), features("ship 7 units?")
    assert a == b and "p:?" in a and "b:<s>_ship" in a


def test_malformed_model_is_one_clear_error() -> None:
    with pytest.raises(CharterError, match=r"stance\.json: stance labels"):
        parse_stance_model({"labels": ["undecided"]}, "stance.json")
    good = {label: {"bias": 0.0, "threshold": 0.5, "weights": {}} for label in LABELS}
    broken = {"labels": list(LABELS), **good, "history": {"bias": "x"}}
    with pytest.raises(CharterError, match="malformed 'history'"):
        parse_stance_model(broken, "stance.json")
    assert parse_stance_model({"labels": list(LABELS), **good}, "stance.json").stances


def test_fit_is_deterministic_and_loads(tmp_path: Path) -> None:
    data = tmp_path / "cues"
    data.mkdir()
    for path in sorted(CUES.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        (data / path.name).write_text("\n".join(lines[:160]) + "\n", encoding="utf-8")
    outs = []
    for run in range(2):
        out = tmp_path / f"model{run}.json"
        run_bench("stance_fit.py", "--data", str(data), "--l2", "1", "--write", "--out", str(out))
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    model = parse_stance_model(json.loads(outs[0]), "fitted")
    assert set(model.meta["files"]) == {p.name for p in data.glob("*.jsonl")}


OBSERVATORY = {
    "pgc_clarifications": [
        choice_entry(
            "QUEUE_SCHEDULER",
            "Which scheduler runs the observing queue?",
            {"own": "Our own queue scheduler", "acp": "ACP Scheduler"},
            "own",
        ),
        choice_entry(
            "ARCHIVE_HOST",
            "Where are raw frames archived?",
            {"campus": "The campus archive server", "s3": "Amazon S3"},
            "campus",
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def observatory(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker(OBSERVATORY, request.param)


@pytest.mark.parametrize(
    "text",
    [
        # no cue phrase of the old lexicon: the model reads the stance
        "Since the night assistants know ACP Scheduler best, it might make sense to let "
        "ACP Scheduler run the queue on clear nights.",
        "Decide with the director which scheduler we go live on, ACP Scheduler or ours, "
        "before first light.",
        # a short choice request points back at the options of the sentence before
        "Candidates for the queue: our own queue scheduler, ACP Scheduler. Which one do we go "
        "with?",
    ],
)
def test_a_floated_alternative_is_a_reopened_decision(observatory: DriftChecker, text: str) -> None:
    found = {(f.rule, f.constraint_id) for f in observatory.check(text).findings}
    assert ("QA-PGC-004", "QUEUE_SCHEDULER") in found


def test_someone_elses_ask_floats_nothing(observatory: DriftChecker) -> None:
    text = "A visiting astronomer asked whether we could archive to Amazon S3 like her institute."
    assert observatory.check(text).findings == []


@pytest.mark.parametrize(
    "text",
    [
        # no cue phrase of the lexicon: the model reads the choice as still open
        "The director is still going back and forth on whether raw frames stay on campus.",
        "Nobody has landed on where raw frames are archived yet, so the export waits.",
    ],
)
def test_a_settled_choice_described_as_open_is_read_by_the_model(
    observatory: DriftChecker, text: str
) -> None:
    found = {(f.rule, f.constraint_id) for f in observatory.check(text).findings}
    assert ("QA-PGC-003", "ARCHIVE_HOST") in found
