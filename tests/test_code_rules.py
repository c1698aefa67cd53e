"""The rules that apply to every change arrive once, with the first source file.

Real ``charter hook post-tool-use`` processes fed Claude Code's PostToolUse JSON for file
tools, in a real git repository whose rule file mixes every-line rules (formatting,
naming, process) with rules about one construct, compiled by the real CLI with the
bundled rules model and the bundled scoring model.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import hook_answer, run_hook, write
from tests.decisions_support import no_worker

Run = Callable[..., subprocess.CompletedProcess[str]]

TITLE = "# Project rules for every change"

RULES = """# Contributing

## Code style

- Indent with tabs, never spaces.
- Name functions and variables in `snake_case` and classes in `PascalCase`.
- Never use `any` in TypeScript; narrow `unknown` instead.
- Every public function has a docstring.

## Invoices

- Round invoice totals with `round_half_even` from `money.py`.
- A credit note references the invoice it corrects by its number.
- Late fees are computed nightly by the `late_fees` job, never in a request.

## Exports

- CSV exports stream rows through `stream_csv()`.
- PDF exports embed the tenant's logo from the asset store.

## Workflow

- Run `make lint` and `make test` before every commit.
- Use `pnpm`, never `npm`, to add dependencies.
"""


@pytest.fixture
def project(repo: Path, run_charter: Run) -> Path:
    no_worker(repo)
    write(repo, "CLAUDE.md", RULES)
    write(repo, "app/invoices.py", "def total(lines):\n\treturn sum(lines)\n")
    write(repo, "docs/guide.md", "# Guide\n")
    assert run_charter("compile", cwd=repo).returncode == 0
    return repo


def _read(run_charter: Run, root: Path, rel: str, call: str, session: str = "s1") -> Any:
    out = hook_answer(
        run_charter,
        root,
        "PostToolUse",
        session_id=session,
        tool_name="Read",
        tool_use_id=call,
        tool_input={"file_path": str(root / rel)},
        tool_response={"type": "text"},
    )
    return None if out is None else out["additionalContext"]


def _rules_in(text: str) -> list[str]:
    return [line for line in text.split(TITLE, 1)[1].splitlines() if line.startswith("- ")]


def test_the_first_source_file_brings_the_every_change_rules_once(
    project: Path, run_charter: Run
) -> None:
    assert _read(run_charter, project, "docs/guide.md", "t0") is None  # a document: not yet
    text = _read(run_charter, project, "app/invoices.py", "t1")
    assert text is not None and TITLE in text
    lines = _rules_in(text)
    assert lines and all("(L" in line for line in lines)  # cited like every rule
    body = "\n".join(lines)
    assert "Indent with tabs" in body and "snake_case" in body
    # rules about one construct are left to the tasks that need them
    for construct in ("round_half_even", "Late fees", "stream_csv", "PDF exports"):
        assert construct not in body, construct
    # once per conversation: the next file brings none of them, another conversation does
    assert _read(run_charter, project, "app/invoices.py", "t2") is None
    again = _read(run_charter, project, "app/invoices.py", "t3", session="s2")
    assert again is not None and "Indent with tabs" in again


def test_the_moment_comes_again_after_a_compaction(project: Path, run_charter: Run) -> None:
    assert TITLE in _read(run_charter, project, "app/invoices.py", "t1")
    done = run_hook(run_charter, project, "SessionStart", session_id="s1", source="compact")
    assert done.returncode == 0, done.stderr
    later = _read(run_charter, project, "app/invoices.py", "t2")
    assert later is not None and TITLE in later


def test_the_same_tool_call_asked_again_gets_its_rules_again(
    project: Path, run_charter: Run
) -> None:
    """An answer can be lost after the rules were recorded as given (a killed worker, a
    retry): the same tool call gets them again instead of "already in the conversation"."""
    first = _read(run_charter, project, "app/invoices.py", "t1")
    assert first == _read(run_charter, project, "app/invoices.py", "t1")


def test_rules_the_moment_held_back_are_not_recorded_by_a_later_file(
    project: Path, run_charter: Run
) -> None:
    """Once the moment is in the conversation a later source file shows nothing, so it
    records nothing either: a rule the budget held back at the moment and marked given
    then would never reach the agent (the prompt hook would call it "already in the
    conversation")."""
    no_worker(project, "[rules]\ncode_rules_max_tokens = 30\n")
    first = _read(run_charter, project, "app/invoices.py", "t1")
    assert first is not None and "Indent with tabs" not in first  # held back by the budget
    assert _read(run_charter, project, "app/invoices.py", "t2") is None
    asked = hook_answer(
        run_charter,
        project,
        "UserPromptSubmit",
        session_id="s1",
        prompt="Reindent app/invoices.py: tabs or spaces?",
    )
    assert asked is not None and "Indent with tabs" in asked["additionalContext"]


def test_the_budget_holds_and_zero_turns_it_off(project: Path, run_charter: Run) -> None:
    no_worker(project, "[rules]\ncode_rules_max_tokens = 30\n")
    text = _read(run_charter, project, "app/invoices.py", "t1")
    assert text is not None
    lines = _rules_in(text)
    assert 1 <= len(lines) <= 2  # ~30 tokens: one or two short rules, the likeliest
    assert any("tabs" in line or "`any`" in line for line in lines), lines
    no_worker(project, "[rules]\ncode_rules_max_tokens = 0\n")
    assert _read(run_charter, project, "app/invoices.py", "t1", session="s9") is None


def test_scores_are_stored_only_for_rules_no_other_channel_delivers(
    project: Path, run_charter: Run
) -> None:
    state = json.loads((project / ".charter" / "rules.json").read_text())
    general = state["general"]
    constitution = set(state["constitution"]["rule_ids"])
    scoped = {r["id"] for r in state["rules"] if r.get("scopes")}
    assert general and not (set(general) & (constitution | scoped))
    assert all(0.0 <= v <= 1.0 for v in general.values())
    # deterministic: a second compile scores the same
    before = (project / ".charter" / "rules.json").read_bytes()
    (project / ".charter" / "rules.json").unlink()
    (project / ".charter" / "rules.meta.json").unlink()
    assert run_charter("compile", cwd=project).returncode == 0
    assert (project / ".charter" / "rules.json").read_bytes() == before


def test_a_file_loaded_only_when_asked_for_gives_no_rules_for_every_change(
    repo: Path, run_charter: Run
) -> None:
    """A steering file Kiro loads only when the user names it (``inclusion: manual``), a
    Windsurf ``trigger: manual`` rule and a Cursor rule with neither ``alwaysApply``,
    ``globs`` nor a ``description`` hold what the team keeps out unless asked for (a review
    checklist, a migration reference): no rule of theirs is handed over with the first
    source file as one for every change. A task that asks for them still retrieves them,
    and a file loaded by its description (``inclusion: auto``) is scored as before."""
    no_worker(repo)
    write(repo, "CLAUDE.md", RULES)
    manual = {
        ".kiro/steering/review.md": "---\ninclusion: manual\n---\n\n",
        ".windsurf/rules/grades.md": "---\ntrigger: manual\n---\n\n",
        ".cursor/rules/migrate.mdc": "---\ndescription:\nglobs:\nalwaysApply: false\n---\n\n",
    }
    for path, head in manual.items():
        write(
            repo,
            path,
            head + "- Indent with tabs and name functions in `snake_case`.\n"
            "- Every public function has a docstring and type hints.\n",
        )
    write(
        repo,
        ".kiro/steering/style.md",
        "---\ninclusion: auto\ndescription: code style\n---\n\n"
        "- Keep every line under 100 characters.\n",
    )
    assert run_charter("compile", cwd=repo).returncode == 0
    state = json.loads((repo / ".charter" / "rules.json").read_text())
    by_path: dict[str, list[str]] = {}
    for rule in state["rules"]:
        by_path.setdefault(rule["source"]["path"], []).append(rule["id"])
    general = state["general"]
    assert general and not any(i in general for path in manual for i in by_path.get(path, []))
    assert all(i in general for i in by_path[".kiro/steering/style.md"])
    assert all(
        i in general for i in by_path["CLAUDE.md"] if i not in state["constitution"]["rule_ids"]
    )
    found = run_charter("context", "Write the invoice review with docstrings", "--json", cwd=repo)
    shards = json.loads(found.stdout)["shards"]
    assert any(s["rule"]["source"]["path"] in manual for s in shards)


def test_vectors_of_another_model_are_not_scored() -> None:
    import numpy as np

    from charter.rules.general import general_scores
    from charter.rules.model import Rule, Source

    rules = [
        Rule(id=f"r{i}", text="Indent with tabs.", source=Source("A.md", i, i, "")) for i in (1, 2)
    ]
    vectors = np.ones((2, 384), dtype=np.float32)
    assert general_scores(rules, vectors, set(), model_name="another-model") == {}
    assert general_scores(rules, np.ones((2, 8)), set(), model_name="x") == {}


def test_a_bare_lead_in_is_no_rule_for_every_change() -> None:
    """ "Key Principles:" came with the first Read of a source file, without the items it
    introduces; a lead-in with its items or code in its text still counts."""
    from charter.rules.general import candidates
    from charter.rules.model import Rule, Source

    texts = ["**Key Principles:**", "Indent with tabs.", "Lag alltid en `.dockerignore`:"]
    rules = [Rule(id=f"r{i}", text=t, source=Source("A.md", i, i, "")) for i, t in enumerate(texts)]
    assert candidates(rules, set()) == [1, 2]


def test_is_source() -> None:
    from charter.rules.moments import is_source

    assert is_source("app/invoices.py") and is_source("web/App.tsx") and is_source("Makefile")
    assert is_source("config/settings.toml") and is_source(".env.example")
    assert not is_source("README.md") and not is_source("docs/a.rst")
    assert not is_source(".cursor/rules/style.mdc") and not is_source("notes.txt")


def test_two_moments_together_stay_under_claude_codes_limit(repo: Path, run_charter: Run) -> None:
    """Each handler keeps its own context under Claude Code's 10,000 characters; the path's
    rules and the every-change rules of one tool call, both at large budgets, must too."""
    no_worker(repo, "[rules]\npath_rules_max_tokens = 6000\ncode_rules_max_tokens = 6000\n")
    style = "\n".join(
        f"- Format rule {i}: indent with tabs and name every variable {i} in snake_case."
        for i in range(150)
    )
    scoped = "\n".join(
        f"- Backend rule {i}: handlers in module {i} validate input with the shared schema."
        for i in range(150)
    )
    write(repo, "CLAUDE.md", f"# Style\n\n{style}\n")
    write(repo, "backend/AGENTS.md", f"# Backend\n\n{scoped}\n")
    write(repo, "backend/app.py", "X = 1\n")
    assert run_charter("compile", cwd=repo).returncode == 0
    done = run_hook(
        run_charter,
        repo,
        "PostToolUse",
        session_id="s1",
        tool_name="Read",
        tool_use_id="t1",
        tool_input={"file_path": str(repo / "backend/app.py")},
        tool_response={},
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Backend rule" in text
    assert len(text) < 10_000


def test_a_compile_since_the_warm_retriever_loaded_is_seen(project: Path, run_charter: Run) -> None:
    """The warm worker keeps the retriever it loaded; a compile written since (the CLI,
    another session's hook) must reach the tool-time hooks and the next prompt, not wait
    for the rule files to change again."""
    from charter.integrations.claude_code.handlers import HookState
    from charter.rules.hooks import retriever_for, rules_at_hand

    state = HookState(project)
    assert "Indent with tabs" in " ".join(r.text for r in retriever_for(state).compiled.rules)
    write(project, "CLAUDE.md", RULES.replace("Indent with tabs", "Indent with four spaces"))
    assert run_charter("compile", cwd=project).returncode == 0
    found = rules_at_hand(state)
    assert found is not None
    texts = " ".join(r.text for r in found.rules)
    assert "four spaces" in texts and "Indent with tabs" not in texts
    assert found.general  # the scores came with the state on disk
    fresh = retriever_for(state)  # and the prompt hook reloads
    assert "four spaces" in " ".join(r.text for r in fresh.compiled.rules)
