"""The calibrated drift decision: model file, fitting, and the generic checks it rests on.

The scenario here (a newsletter platform) is unlike every labelled split, so these tests
exercise behaviour that has to carry over to unseen constraints.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from charter.decisions.drift.calibrate import (
    DESCRIBED_FEATURES,
    FEATURES,
    Candidate,
    DriftModel,
    Trees,
    Weights,
    default_model,
    parse_model,
)
from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.vocab import _forbidden_clauses
from charter.decisions.models import parse_clarifications
from charter.embed.registry import get_embedder
from charter.errors import CharterError
from tests.decisions_support import choice_entry, clarification_entry

ROOT = Path(__file__).resolve().parents[1]


CLARIFICATIONS = {
    "pgc_clarifications": [
        choice_entry(
            "MAIL_PROVIDER",
            "Which service sends the newsletters?",
            {"postmark": "Postmark", "sendgrid": "SendGrid"},
            "postmark",
        ),
        clarification_entry(
            "SUBSCRIBER_PRIVACY",
            "What may public archive pages show about subscribers?",
            "free_text",
            None,
            "Subscriber email addresses are never shown on the public archive; only the "
            "issue and its date.",
        ),
        clarification_entry(
            "DOUBLE_BOOKING",
            "How are sponsor slots handled?",
            "free_text",
            None,
            "Double booking is never allowed: a sold slot closes for every sponsor at once.",
        ),
        clarification_entry(
            "PAID_TIERS",
            "Do we offer paid subscriptions?",
            "yes_no",
            None,
            None,
        ),
        clarification_entry(
            "ARCHIVE", "Is there a public archive of past issues?", "yes_no", None, "yes"
        ),
    ]
}


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    embedder = get_embedder("minilm") if request.param == "semantic" else None
    return DriftChecker(parse_clarifications(CLARIFICATIONS), embedder=embedder)


def _found(checker: DriftChecker, text: str) -> set[tuple[str, str]]:
    result = checker.check(text)
    for f in result.findings:  # every finding keeps its exact evidence span
        assert text[f.start : f.end] == f.evidence
    return {(f.constraint_id, f.rule) for f in result.findings}


# -- the model file ------------------------------------------------------------------------


def _model_dict(**over: Any) -> dict[str, Any]:
    part = {"weights": [0.0] * len(FEATURES), "threshold": 0.5}
    data: dict[str, Any] = {"features": list(FEATURES), "semantic": part, "lexical": part}
    data.update(over)
    return data


def test_shipped_model_matches_this_feature_list() -> None:
    model = default_model()
    assert isinstance(model.semantic, Trees) and model.semantic.trees
    assert isinstance(model.lexical, Weights) and len(model.lexical.weights) == len(FEATURES)
    assert 0.0 < model.semantic.threshold < 1.0
    assert 0.0 < model.lexical.threshold < 1.0
    fitted = model.meta["fitted_on"]
    assert "tests/data/drift_holdout3" in fitted  # type: ignore[operator]
    # the held group of issue 13's pooled measurement stays out of the fit
    assert not any(
        name.rsplit("holdout", 1)[-1].isdigit() and int(name.rsplit("holdout", 1)[-1]) % 2 == 0
        for name in fitted  # type: ignore[attr-defined]
    )
    assert not any("drift_units" in n or "drift_adr_repos" in n for n in fitted)  # type: ignore[attr-defined]


def _tree_part(threshold: float = 0.5) -> dict[str, Any]:
    bias = FEATURES.index("hedge")
    # one stump: a hedged sentence scores -2, any other +2 (base 0)
    tree = [[bias, 0.5, 1, 2], [2.0], [-2.0]]
    return {"base": 0.0, "trees": [tree], "threshold": threshold}


def test_trees_decide_by_their_splits() -> None:
    model = parse_model(_model_dict(semantic=_tree_part()), "model.json")
    assert isinstance(model.semantic, Trees)
    plain = Candidate("X", "QA-PGC-001", 0, 1, "lexical", 1.0, {"hedge": 0.0})
    hedged = Candidate("X", "QA-PGC-001", 0, 1, "lexical", 1.0, {"hedge": 1.0})
    assert model.semantic.probability(plain) == pytest.approx(1 / (1 + np.exp(-2.0)))
    assert model.semantic.probability(hedged) == pytest.approx(1 / (1 + np.exp(2.0)))


@pytest.mark.parametrize(
    "trees",
    [
        [[[len(FEATURES), 0.5, 1, 2], [1.0], [0.0]]],  # no such feature
        [[[0, 0.5, 1, 9], [1.0], [0.0]]],  # no such child
        [[[0, 0.5, 0, 1], [1.0]]],  # a child pointing back at the root
        [[[1.0, 2.0]]],  # neither a split nor a leaf
        [[]],
        "x",
    ],
)
def test_malformed_trees_are_one_clear_error(trees: object) -> None:
    part = {**_tree_part(), "trees": trees}
    with pytest.raises(CharterError, match=r"model\.json"):
        parse_model(_model_dict(semantic=part), "model.json")


@pytest.mark.parametrize(
    "bad",
    [
        _model_dict(features=["bias"]),
        _model_dict(semantic={"weights": [1.0], "threshold": 0.5}),
        _model_dict(lexical={"weights": ["x"] * len(FEATURES), "threshold": 0.5}),
        _model_dict(semantic=None),
    ],
)
def test_malformed_model_is_one_clear_error(bad: dict[str, Any]) -> None:
    with pytest.raises(CharterError, match=r"model\.json"):
        parse_model(bad, "model.json")


def test_threshold_decides_which_candidates_become_findings() -> None:
    decisions = parse_clarifications(CLARIFICATIONS)
    text = "The digest now goes out through SendGrid's batch API."
    keep_all = Weights(tuple(0.0 for _ in FEATURES), 0.4)  # every probability is 0.5
    keep_none = Weights(tuple(0.0 for _ in FEATURES), 0.6)
    loose = DriftChecker(decisions, model=DriftModel(keep_all, keep_all, {}))
    strict = DriftChecker(decisions, model=DriftModel(keep_none, keep_none, {}))
    cands = loose.candidates(text)
    assert cands and all(c.probability == pytest.approx(0.5) for c in cands)
    assert set(cands[0].features) <= set(FEATURES)
    assert loose.check(text).verdict == "fail"
    assert strict.check(text).verdict == "pass"


# -- fitting -------------------------------------------------------------------------------


def _fit_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("drift_fit", ROOT / "bench" / "drift_fit.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["drift_fit"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_fit_is_deterministic_and_scores_held_out_scenarios() -> None:
    fit = _fit_module()
    rows = fit.collect([ROOT / "tests" / "data" / "drift_extra"], semantic=False)
    assert rows.x.shape == (len(rows.y), len(FEATURES)) and rows.y.sum() > 0
    w1, w2 = fit.fit(rows.x, rows.y), fit.fit(rows.x, rows.y)
    assert np.array_equal(w1, w2)
    report = fit.run(rows, 0.9, nested=False)
    held = report["splits"]["drift_extra"]["held_out"]
    assert held["tp"] + held["fn"] == int(rows.case_fail.sum())
    assert len(report["held_out_pred"]) == len(rows.case_fail)


def test_threshold_choice_respects_the_precision_floor() -> None:
    fit = _fit_module()
    fail = np.array([True, True, False, False, True])
    score = np.array([0.9, 0.7, 0.8, 0.1, 0.3])
    t = fit.choose_threshold(fail, score, 0.9)
    assert fit.prf(fail, score >= t)["precision"] >= 0.9
    assert t == pytest.approx(0.85)  # halfway to the next lower score


def test_boosted_trees_fit_deterministically_and_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fit = _fit_module()
    monkeypatch.setattr(fit, "TREE_MIN_LEAF", 3)  # a small split: few candidates
    rows = fit.collect([ROOT / "tests" / "data" / "drift_extra"], semantic=False)
    m1, m2 = fit.fit_trees(rows.x, rows.y), fit.fit_trees(rows.x, rows.y)
    assert m1 == m2 and len(m1["trees"]) == fit.TREE_ROUNDS
    p = fit.prob(rows.x, m1)
    assert p[rows.y > 0].mean() > p[rows.y == 0].mean()  # it learned something
    report = {"weights": m1, "threshold": 0.5}
    part = fit._part(report)
    model = parse_model(
        {"features": list(FEATURES), "semantic": part, "lexical": part}, str(tmp_path / "m")
    )
    assert isinstance(model.semantic, Trees)
    # the shipped inference agrees with the fit script's
    feats = [dict(zip(FEATURES, row, strict=True)) for row in rows.x[:20]]
    shipped = [model.semantic.probability(Candidate("X", "r", 0, 1, "l", 1.0, f)) for f in feats]
    assert np.allclose(shipped, p[:20], atol=1e-4)


def test_undescribed_copies_teach_the_model_a_sentence_without_similarities() -> None:
    fit = _fit_module()
    cols = [FEATURES.index(n) for n in DESCRIBED_FEATURES]
    x = np.zeros((3, len(FEATURES)))
    x[:, cols] = 0.7
    x[0, FEATURES.index("embedded")] = 1.0  # the semantic layer's sentence: always described
    y = np.array([1.0, 0.0, 1.0])
    ax, ay, aw = fit.with_undescribed(x, y, None)
    assert ax.shape[0] == 5 and list(ay[3:]) == [0.0, 1.0]
    assert not ax[3:, cols].any() and (ax[:3, cols] == 0.7).all()
    assert list(aw) == [1.0, 0.5, 0.5, 0.5, 0.5]  # each described candidate weighs 1 in all


def test_fit_script_writes_a_loadable_model(tmp_path: Path) -> None:
    fit = _fit_module()
    rows = fit.collect([ROOT / "tests" / "data" / "drift_extra"], semantic=False)
    report = fit.run(rows, 0.9, nested=False)
    part = {"weights": report["weights"], "threshold": report["threshold"]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"features": list(FEATURES), "semantic": part, "lexical": part}))
    model = parse_model(json.loads(path.read_text()), str(path))
    assert model.lexical.threshold == pytest.approx(report["threshold"])


# -- generic checks the candidates rest on ----------------------------------------------------


def test_negated_passive_forbids_its_subject_only() -> None:
    (clause,) = _forbidden_clauses(
        "Subscriber email addresses are never shown on the public archive.", set()
    )
    assert clause.matches({"email", "shown", "public", "archiv"})
    assert not clause.matches({"shown", "public", "archiv", "issu"})


def test_never_allowed_before_a_colon_forbids_the_subject() -> None:
    (clause,) = _forbidden_clauses(
        "Double booking is never allowed: a sold slot closes for every sponsor.", set()
    )
    assert "slot" not in clause.core and clause.core


@pytest.mark.parametrize(
    "text",
    [
        # the archive shows issues; subscriber addresses are not mentioned
        "The public archive shows each issue with its date, newest first.",
        # a swap names the chosen service as the thing being replaced... by the chosen one
        "We swapped SendGrid for Postmark last month.",
        # a reported ask is not a commitment
        "Two readers keep asking about SendGrid templates.",
        # the open question is the clause's topic, not the archive in the next clause
        "Whether we offer paid tiers is still open; the public archive of past issues stays free.",
    ],
)
def test_generic_pass_stays_quiet(checker: DriftChecker, text: str) -> None:
    assert _found(checker, text) == set()


def test_lexical_candidates_carry_their_sentence_similarity() -> None:
    decisions = parse_clarifications(CLARIFICATIONS)
    checker = DriftChecker(decisions, embedder=get_embedder("minilm"))
    text = (
        "Intro line about the weekly issue.\nWe swapped Postmark for SendGrid in the sending job."
    )
    cands = [c for c in checker.candidates(text) if c.constraint_id == "MAIL_PROVIDER"]
    assert cands and all(c.features.get("sent_embedded") == 1.0 for c in cands)
    assert all(-1.0 <= c.features["sent_sim_topic"] <= 1.0 for c in cands)
    # without the embedding model there is nothing to describe them with
    lexical = DriftChecker(decisions).candidates(text)
    assert lexical and not any(c.features.get("sent_embedded") for c in lexical)


def test_described_sentences_are_capped_per_check() -> None:
    from charter.decisions.drift import checker as module

    decisions = parse_clarifications(CLARIFICATIONS)
    checker = DriftChecker(decisions, embedder=get_embedder("minilm"))
    lines = [f"Batch {i}: the digest goes out through SendGrid's API." for i in range(6)]
    cands = checker.candidates("\n".join(lines))
    described = {c.start for c in cands if c.features.get("sent_embedded")}
    embedded = {c.start for c in cands if c.features.get("embedded")}
    assert len(described - embedded) <= module.MAX_DESCRIBED_UNITS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The public archive page lists every subscriber's email address under the issue.",
            "SUBSCRIBER_PRIVACY",
        ),
        ("We swapped Postmark for SendGrid in the sending job.", "MAIL_PROVIDER"),
    ],
)
def test_generic_violation_fires(checker: DriftChecker, text: str, expected: str) -> None:
    assert expected in {cid for cid, _ in _found(checker, text)}
