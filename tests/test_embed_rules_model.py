"""The bundled rules model: verified, named apart from the general model, used by rules
compile and retrieval (and only there), and never a reason for retrieval to stop.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from charter.config import Project, Settings
from charter.embed import minilm, registry
from charter.errors import CharterError
from charter.rules.compiler import compile_rules
from tests.conftest import write

TEXTS = [
    "Money amounts are integer cents; never floats.",
    "Add a refund endpoint to the billing API",
    "`jobs/` — background work: exports, emails, reports",
]


def test_the_rules_model_is_bundled_verified_and_named_by_its_checksum() -> None:
    model, tokenizer, expected = minilm.model_files("rules")
    assert model.is_file() and tokenizer.is_file()
    assert model.parent == Path(minilm.__file__).resolve().parent.parent / "data" / "models"
    assert hashlib.sha256(model.read_bytes()).hexdigest() == expected
    assert tokenizer == minilm.model_files("general")[1]  # one vocabulary for both

    rules = minilm.MiniLMEmbedder(variant="rules")
    general = minilm.MiniLMEmbedder()
    assert rules.name == f"charter-rules-minilm-int8-{expected[:12]}"
    assert general.name == "all-MiniLM-L6-v2-int8" and rules.dim == general.dim
    a, b = rules.embed(TEXTS), general.embed(TEXTS)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    cosines = (a * b).sum(axis=1)
    # fine-tuned from the general network: related vectors, not the same ones
    assert cosines.min() > 0.5 and cosines.max() < 0.9999, cosines
    assert rules.embed(TEXTS).tobytes() == a.tobytes()
    # weights folded to float32 at load: a text's vector does not depend on its batch
    alone = np.stack([rules.embed([text])[0] for text in TEXTS])
    assert alone.tobytes() == a.tobytes()


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(CharterError, match="unknown MiniLM variant"):
        minilm.model_files("large")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, "charter-rules-minilm-int8-"),
        ({"rules": {"embed_model": "general"}}, "all-MiniLM-L6-v2-int8"),
        ({"embed": {"provider": "hash"}, "rules": {"embed_model": "rules"}}, "hash"),
    ],
)
def test_rules_compile_embeds_with_the_configured_model(
    repo: Path, config: dict[str, object], expected: str
) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Money amounts are integer cents.\n- Never log tokens.\n")
    project = Project(root=repo, settings=Settings.model_validate(config))
    compiled = compile_rules(project, write=False)
    assert compiled.model.startswith(expected), compiled.model
    assert compiled.model == registry.rules_embedder_for(project.settings).name


def test_a_rules_model_failing_its_checksum_falls_back_to_the_general_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = json.loads(minilm._RULES_MANIFEST.read_text())
    bad = tmp_path / "models" / "rules-minilm.json"
    bad.parent.mkdir()
    (bad.parent / real["file"]).write_bytes(b"not the model")
    bad.write_text(json.dumps(real))
    monkeypatch.setattr(minilm, "_RULES_MANIFEST", bad)
    monkeypatch.setattr(registry, "_CACHE", {})
    embedder = registry.get_embedder("minilm", variant="rules")
    assert embedder.name == "all-MiniLM-L6-v2-int8"
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and "using the general model" in err

    bad.write_text("{not json")
    monkeypatch.setattr(registry, "_CACHE", {})
    with pytest.raises(CharterError, match="manifest unreadable"):
        minilm.model_files("rules")
    assert registry.get_embedder("minilm", variant="rules").name == "all-MiniLM-L6-v2-int8"
