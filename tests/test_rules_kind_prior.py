"""The learned lift a kind of task gives the rules it needs: the shipped model, and how
retrieval applies a head (real compiles, the real rules model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import charter.rules.kind_prior as kind_prior
from charter.config import Project
from charter.embed.minilm import model_files
from charter.embed.registry import rules_embedder_for
from charter.rules.compiler import compile_rules
from charter.rules.intent import INTENTS
from charter.rules.retrieve import Retriever
from tests.conftest import write

RULES = """# Rules

## Style

- Use tabs for indentation in Go files.
- Keep functions under forty lines.

## Testing

- Every bug fix comes with a regression test that fails without the fix.
- Run `make test` before you open a pull request.

## Docs

- Add an entry to CHANGELOG.md under Unreleased for every user-visible change.
"""


def _retriever(root: Path, weight: float | None = None) -> Retriever:
    project = Project.load(root)
    if weight is not None:
        project.settings.rules.kind_prior = weight
    compiled = compile_rules(project, write=False)
    return Retriever(compiled, project.settings.rules, rules_embedder_for(project.settings))


def test_the_shipped_model_is_fitted_on_the_bundled_rules_models_vectors() -> None:
    model = kind_prior._model()
    assert model is not None
    # a head fitted on another model's vectors would lift noise: the name holds its checksum
    assert model["embedding"] == f"charter-rules-minilm-int8-{model_files('rules')[2][:12]}"
    assert set(model["heads"]) == set(INTENTS)
    assert all(len(head) == model["dim"] == 384 for head in model["heads"].values())
    assert model["score_coefficient"] > 0


def test_the_lift_only_reorders_a_tasks_candidates(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    r = _retriever(repo)
    assert r.kind_prior is not None
    for intent in INTENTS:
        lift = r.kind_prior.lift(intent)
        assert lift is not None and lift.shape == (len(r.candidates),)
        assert abs(float(lift.mean())) < 1e-6  # centred: nothing rises past the floor alone


def test_weight_zero_and_another_models_vectors_give_no_lift(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    assert _retriever(repo, weight=0.0).kind_prior is None
    vectors = np.ones((3, 384), dtype=np.float32)
    assert kind_prior.kind_prior_for("all-MiniLM-L6-v2-int8", vectors) is None
    assert kind_prior.kind_prior_for("hashing-384", vectors) is None


def test_a_head_lifts_the_rules_it_points_at(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A head along one rule's vector lifts that rule for tasks of its intent only."""
    write(repo, "CLAUDE.md", RULES)
    base = _retriever(repo, weight=0.0)
    target = next(pos for pos, i in enumerate(base.candidates) if "CHANGELOG" in base.rules[i].text)
    task = "Fix the crash when the config file is empty"  # a bug fix
    before = [s.rule.text for s in base.retrieve(task, top=10).shards]
    model: dict[str, Any] = {
        "embedding": base.embedder.name,
        "dim": 384,
        "score_coefficient": 1.0,
        "heads": {"bug-fix": [float(x) for x in base.cand_vectors[target]]},
    }
    monkeypatch.setattr(kind_prior, "_model", lambda: model)
    lifted = _retriever(repo, weight=3.0)
    after = [s.rule.text for s in lifted.retrieve(task, top=10).shards]
    changelog = base.rules[base.candidates[target]].text
    assert after.index(changelog) < before.index(changelog)
    assert after[0] == changelog
    # a task of another intent is ranked as without the model
    other = "Document the retry policy in the README"
    assert [s.rule.text for s in lifted.retrieve(other, top=10).shards] == [
        s.rule.text for s in base.retrieve(other, top=10).shards
    ]
