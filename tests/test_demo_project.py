"""The demo project stays a faithful showcase: it compiles cleanly and lint finds its one
planted contradiction (``make demo`` relies on both)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

DEMO = Path(__file__).parent.parent / "examples" / "demo-project"


def test_demo_project_lint_finds_the_planted_contradiction(tmp_path: Path, run_charter) -> None:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".charter"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    compiled = run_charter("compile", "--json", cwd=root)
    assert compiled.returncode == 0, compiled.stderr
    summary = json.loads(compiled.stdout)
    assert summary["rules"] >= 100 and summary["errors"] == []
    assert len(summary["sources"]) >= 5
    lint = run_charter("lint", "--json", cwd=root)
    issues = json.loads(lint.stdout)["issues"]
    contradictions = [i for i in issues if i["kind"] == "contradiction"]
    assert len(contradictions) == 1
    assert "f-strings" in contradictions[0]["message"]
