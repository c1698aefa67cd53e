"""Shapes seen in real rule files that the parser must show as the file says them."""

from __future__ import annotations

import re
from pathlib import Path

from charter.rules.build import rules_from_source
from charter.rules.model import Rule
from charter.rules.sources import load_source

MARKERS = [re.compile(r"must|never|always|critical", re.IGNORECASE)]


def _rules(tmp_path: Path, text: str, name: str = "CLAUDE.md") -> list[Rule]:
    path = tmp_path / name
    path.write_text(text)
    return rules_from_source(load_source(path, name, "claude"), MARKERS)


def _by_text(rules: list[Rule], needle: str) -> Rule:
    matches = [r for r in rules if needle in r.text]
    assert matches, f"no rule containing {needle!r}: {[r.text for r in rules]}"
    return matches[0]


def test_bold_around_a_code_span_is_removed_like_any_bold(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Layout\n\n"
        "- **`/src`**: main source code\n"
        "- **`build.yml`** / **`deploy.yml`** - release workflows\n"
        "- **`StyleSheet.create` is unnecessary** with `makeStyles`\n"
        "- Mask secrets with `**********`, **never** log them\n",
    )
    texts = [r.text for r in rules]
    assert texts == [
        "`/src`: main source code",
        "`build.yml` / `deploy.yml` - release workflows",
        "`StyleSheet.create` is unnecessary with `makeStyles`",
        "Mask secrets with `**********`, never log them",
    ]
