"""Configuration: defaults round-trip through charter.toml; errors name the key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from charter.config import Project, Settings, parse_settings, render_default_config
from charter.errors import CharterError
from tests.conftest import write


def test_default_config_round_trips() -> None:
    parsed = parse_settings(tomllib.loads(render_default_config()))
    assert parsed == Settings()


def test_pyproject_tool_section_is_read(repo: Path) -> None:
    write(repo, "pyproject.toml", "[project]\nname='x'\n\n[tool.charter.rules]\ntop_n = 9\n")
    assert Project.load(repo).settings.rules.top_n == 9


def test_bad_config_names_the_key(repo: Path) -> None:
    write(repo, "charter.toml", "[rules]\nmax_constitution_lines = 'many'\n")
    with pytest.raises(CharterError, match=r"rules\.max_constitution_lines"):
        Project.load(repo)
    write(repo, "charter.toml", "[rules]\nno_such_key = 1\n")
    with pytest.raises(CharterError, match="no_such_key"):
        Project.load(repo)


def test_configuration_doc_lists_every_default() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    assert render_default_config() in doc, "regenerate docs/configuration.md (charter init)"
