"""The held-out localization split's builder (``bench/materialize_localize_data.py``):
gold files by the dev README's rule, dev repositories left out, read from a real bare
git mirror."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import commit_all

ROOT = Path(__file__).resolve().parent.parent


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location(
        "materialize_localize_data", ROOT / "bench" / "materialize_localize_data.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PATCH = (
    "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
    "diff --git a/tests/test_core.py b/tests/test_core.py\n"
    "diff --git a/pkg/testing/helpers.py b/pkg/testing/helpers.py\n"
    "diff --git a/pkg/conftest.py b/pkg/conftest.py\n"
    "diff --git a/pkg/io_test.py b/pkg/io_test.py\n"
    "diff --git a/pkg/core.py b/pkg/core.py\n"
)


def test_gold_files_drop_tests_and_repeat_nothing() -> None:
    assert _builder().gold_files(PATCH) == ["pkg/core.py"]


def test_tasks_come_from_the_mirror_without_the_dev_repositories(tmp_path: Path) -> None:
    module = _builder()
    work = tmp_path / "work"
    work.mkdir()
    items = [
        {"instance_id": "a__b-1", "repo": "a/b", "base_commit": "c1",
         "problem_statement": "Crash in core", "golden_patch": PATCH},
        {"instance_id": "dev__d-2", "repo": "dev/d", "base_commit": "c2",
         "problem_statement": "x", "golden_patch": PATCH},
    ]  # fmt: skip
    target = work / module.SOURCE_PATH
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(items))
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    commit = commit_all(work, "data")
    mirrors = tmp_path / "mirrors"
    owner, name = module.SOURCE_REPO.split("/")
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(work), str(mirrors / f"{owner}+{name}" / "repo")],
        check=True,
    )
    module.SOURCE_COMMIT = commit
    dev = tmp_path / "dev.jsonl"
    dev.write_text(json.dumps({"repo": "dev/d"}) + "\n")
    tasks = module.build(mirrors, set(), dev)
    assert tasks == [
        {"id": "a__b-1", "repo": "a/b", "base_commit": "c1", "task": "Crash in core",
         "gold_files": ["pkg/core.py"]}
    ]  # fmt: skip
