"""bench/agent_tokens.py's split of Charter's rule context by the file each line cites,
read from a real prompt hook's answer: how much of it restates rule files Claude Code
alone loads, and how much brings rules it never shows."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from types import ModuleType

from charter.tokens import count_tokens
from tests.conftest import hook_answer, write

REPO = Path(__file__).resolve().parents[1]


def _agent_tokens() -> ModuleType:
    path = REPO / "bench" / "agent_tokens.py"
    spec = importlib.util.spec_from_file_location("agent_tokens", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("agent_tokens", module)
    spec.loader.exec_module(module)
    return module


def test_rule_context_is_counted_by_the_file_each_rule_cites(
    repo: Path, run_charter: Callable[..., CompletedProcess[str]]
) -> None:
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    write(
        repo,
        "CLAUDE.md",
        "# Exports\n\n- Stream CSV exports row by row; never build the file in memory.\n"
        "- Write CSV as UTF-8 with a header row.\n",
    )
    write(
        repo,
        "backend/AGENTS.md",
        "# Backend\n\n- Write CSV exports with `stream_csv()` from `app/exports/csv.py`.\n",
    )
    assert run_charter("compile", cwd=repo).returncode == 0
    answer = hook_answer(
        run_charter, repo, "UserPromptSubmit", prompt="Add a CSV export of the invoices"
    )
    assert answer is not None
    context = answer["additionalContext"]
    bench = _agent_tokens()
    rules, _ = bench.split_hook_text(context)
    by_file = bench.rule_tokens_by_file(rules)
    assert {"CLAUDE.md", "backend/AGENTS.md"} <= set(by_file)
    assert set(by_file) <= {"", "CLAUDE.md", "backend/AGENTS.md"}
    # every line is counted once, under the file it cites or under "" for headings
    assert sum(by_file.values()) == sum(count_tokens(line) for line in rules.splitlines(True))
    assert by_file[""] > 0
