"""The direction model of the drift checker: its features, its file, how it reads which
way a sentence points at a mention, and what that changes in a check (a kennel booking
service, a domain none of its training lines come from)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.direction import (
    LABELS,
    MARK,
    default_direction_model,
    features,
    masked,
    parse_direction_model,
)
from charter.errors import CharterError
from tests.decisions_support import clarification_entry, layered_checker

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "drift_direction"


def test_features_read_the_words_around_the_mark() -> None:
    away = features(f"Please take out the {MARK} adapter: closing this")
    assert {"l1:the", "l2:out", "l3:take", "r1:adapter", "r2::", "rw:closing"} <= away
    assert "b:the_xx" in away and "u:xx" not in away
    # the same words in the other order point the other way, and the features say so
    forward = features(f"Replace the nightly export with {MARK}.")
    backward = features(f"Replace {MARK} with the nightly export.")
    assert "l1:with" in forward and "r1:with" in backward and forward != backward
    assert "x:first" in features(f"{MARK} is out of scope") and "x:last" in forward
    assert features(f"Ship 12 units via {MARK}") == features(f"ship 7 units via {MARK}")


def test_masked_replaces_only_the_mention() -> None:
    text = "Intro. Please take out the Stripe adapter in billing. Done."
    lo = text.index("Stripe")
    out = masked(text, 7, text.index(" Done"), lo, lo + len("Stripe"))
    assert out == f"Please take out the {MARK} adapter in billing."


def test_malformed_direction_model_is_one_clear_error() -> None:
    with pytest.raises(CharterError, match=r"direction\.json: direction labels"):
        parse_direction_model({"labels": ["away", "sideways"]}, "direction.json")
    good = {label: {"bias": 0.0, "threshold": 0.5, "weights": {}} for label in LABELS}
    with pytest.raises(CharterError, match="malformed 'aside'"):
        parse_direction_model(
            {"labels": list(LABELS), **good, "aside": {"bias": 0, "threshold": 0.5, "weights": 1}},
            "direction.json",
        )


def _training_texts() -> set[str]:
    out = set()
    for path in DATA.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.add(json.loads(line)["text"])
    return out


#: Written for this test, in a domain none of the training lines use (kennels).
READINGS = [
    ("Bookings for the Easter weekend go through {X} from Monday.", "forward"),
    ("Let's route the deposit reminders through {X} too.", "forward"),
    ("We replaced the paper diary with {X} last spring.", "forward"),
    ("Please take out the {X} widget from the booking page.", "away"),
    ("Deposits are never taken through {X}.", "away"),
    ("The grooming add-on moved off {X} and onto the till.", "away"),
    ("If the council ever requires {X}, the form would need a new step.", "aside"),
]


def test_shipped_model_reads_direction_on_unseen_sentences() -> None:
    model = default_direction_model()
    assert set(model.stances) == set(LABELS) and model.meta["sentences"]
    seen = _training_texts()
    wrong = []
    for template, want in READINGS:
        text = template.format(X=MARK)
        assert text not in seen
        probs = model.probabilities(text)
        forward = 1.0 - probs["away"] - probs["aside"]
        got = max({"forward": forward, **probs}.items(), key=lambda kv: kv[1])[0]
        if got != want:
            wrong.append((text, want, probs))
    assert len(wrong) <= 1, wrong


KENNEL = {
    "pgc_clarifications": [
        clarification_entry(
            "PAYMENTS",
            "How do owners pay deposits?",
            "single_choice",
            [
                {"id": "till", "label": "Card at the kennel's own till"},
                {"id": "paypal", "label": "PayPal"},
            ],
            "till",
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def kennel(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker(KENNEL, request.param)


def test_direction_is_a_feature_of_option_mentions(kennel: DriftChecker) -> None:
    gone = "Review of the booking page: please take out the PayPal button, it is unused now."
    used = "Owners now pay their deposit through PayPal when they book online."
    by_text = {}
    for text in (gone, used):
        cands = [c for c in kennel.candidates(text) if c.features.get("src_term")]
        assert cands, text
        by_text[text] = max(c.features["dir_away"] for c in cands)
    assert by_text[gone] > 0.5 > by_text[used]
    assert kennel.check(used, "chat").verdict == "fail"
