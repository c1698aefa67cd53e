"""The held-out rules data in ``bench/data/rules``: labels and provenance are complete, and
the materialize script's label check catches a label that does not quote its line.

The rule files themselves are read from their repositories at measurement time
(``bench/materialize_rules_data.py``), never committed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "rules"


def _materializer() -> object:
    spec = importlib.util.spec_from_file_location(
        "materialize_rules_data", ROOT / "bench" / "materialize_rules_data.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labels_and_provenance_are_complete_and_no_rule_file_is_committed() -> None:
    tasks = [json.loads(x) for x in (DATA / "tasks.jsonl").read_text().splitlines()]
    files = {t["file"] for t in tasks}
    assert len(files) >= 18
    assert len({t["id"] for t in tasks}) == len(tasks)
    provenance = {json.loads(p.read_text())["saved_as"] for p in DATA.glob("*/source.json")}
    assert files == provenance, "labelled files and source.json files must match"
    for rel in files:
        assert not (DATA / rel).exists(), f"{rel}: rule files are materialized, not committed"
        mine = [t for t in tasks if t["file"] == rel]
        assert 10 <= len(mine) <= 20
        assert sum(not t["relevant"] for t in mine) == 2
        for task in mine:
            assert task["task"].strip()
            assert task["id"].startswith(rel.split("/")[0] + "-")
            for gold in task["relevant"]:
                assert isinstance(gold["line"], int) and gold["line"] >= 1 and gold["text"]
        slug = rel.split("/")[0]
        always = json.loads((DATA / slug / "always.json").read_text())
        assert always["file"] == rel and always["always"]
        source = json.loads((DATA / slug / "source.json").read_text())
        assert source["saved_as"] == rel and len(source["sha256"]) == 64
        assert len(source["commit"]) == 40 and source["repo"].count("/") == 1
        assert source["licence"] and source["path"]


def test_label_check_catches_a_label_that_does_not_quote_its_line(tmp_path: Path) -> None:
    module = _materializer()
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "AGENTS.md").write_text("# Rules\n\n- Use gofmt.\n- Never panic.\n")
    good = {"line": 3, "text": "- Use gofmt."}
    bad = {"line": 4, "text": "- Never ever panic."}
    rows = [
        {"id": "t1", "file": "x/AGENTS.md", "task": "format", "relevant": [good]},
        {"id": "t2", "file": "x/AGENTS.md", "task": "errors", "relevant": [bad]},
    ]
    (tmp_path / "tasks.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    problems = module.check_labels(tmp_path)  # type: ignore[attr-defined]
    assert problems == ["t2: x/AGENTS.md:4 does not quote its line"]


TRAIN = ROOT / "bench" / "data" / "rules_train"


def test_training_data_quotes_its_lines_and_keeps_its_shape() -> None:
    """The rules embedding model is fitted on this data: a label that does not quote its
    line would teach the model the wrong rule, so every one is checked here."""
    module = _materializer()
    assert module.check_labels(TRAIN) == []  # type: ignore[attr-defined]
    tasks = [json.loads(x) for x in (TRAIN / "tasks.jsonl").read_text().splitlines()]
    assert len({t["id"] for t in tasks}) == len(tasks)
    files = {t["file"] for t in tasks}
    provenance = {json.loads(p.read_text())["saved_as"] for p in TRAIN.glob("*/source.json")}
    assert files == provenance and len(files) >= 120
    for rel in files:
        assert (TRAIN / rel).is_file(), f"{rel}: invented files are committed whole"
        mine = [t for t in tasks if t["file"] == rel]
        # 25 tasks a file in rounds one and two; round three scales them with the length
        assert len(mine) in (12, 16, 25, 30) and sum(not t["relevant"] for t in mine) == 2
        slug = rel.split("/")[0]
        always = json.loads((TRAIN / slug / "always.json").read_text())
        assert always["file"] == rel and always["always"]
        for entry in always["always"]:
            line = (TRAIN / rel).read_text(encoding="utf-8").splitlines()[entry["line"] - 1]
            assert line == entry["text"], f"{rel}:{entry['line']}"
        source = json.loads((TRAIN / slug / "source.json").read_text())
        assert source["repo"] == f"synthetic/{slug}" and source["licence"] == "CC0-1.0"
