"""bench/prohibitions_scan.py over real rule files: each command and edit the rules hold,
with the decision the guardrail takes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import write

REPO = Path(__file__).resolve().parents[1]


def test_lists_what_each_file_holds_and_how(tmp_path: Path) -> None:
    write(
        tmp_path,
        "proj/CLAUDE.md",
        "# Rules\n\n- Never run `npm publish`.\n"
        "- Do not commit or push unless explicitly requested.\n"
        "- Never edit `dist/` by hand.\n- Write tests first.\n",
    )
    broken = tmp_path / "missing" / "AGENTS.md"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "prohibitions_scan.py"), "--json",
         str(tmp_path / "proj" / "CLAUDE.md"), str(broken)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = json.loads(done.stdout)[str(tmp_path / "proj" / "CLAUDE.md")]
    held = {(r["kind"], r["what"], r["decision"]) for r in rows}
    assert held == {
        ("command", "npm publish", "deny"),
        ("command", "git commit", "ask"),
        ("command", "git push", "ask"),
        ("edit", "dist/", "deny"),
    }
    assert str(broken) in done.stderr and "Traceback" not in done.stderr
