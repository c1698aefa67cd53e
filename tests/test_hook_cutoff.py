"""The prompt hook's relative cutoff: it adds only the rules scoring near the best one,
says that more exist, and leaves them reachable through ``charter context`` /
``rules_for_task``; a cutoff of 0 gives everything the retrieval budget holds."""

from __future__ import annotations

import json
from pathlib import Path

from charter.rules.render import citations
from tests.conftest import run_hook, write

RULES = """# Rules

## Database

- Every schema change needs a reversible Alembic migration.
- Add an index for each foreign key column.
- Never edit a migration that has been merged; write a new one.
- Name migrations with a timestamp and a short verb phrase.

## Frontend

- All user-visible strings must go through the i18n `t()` helper.
- Use CSS variables for spacing, never raw px values.
- Keep components under 200 lines.

## Testing

- Mock external HTTP calls in unit tests with respx.
- Name test files `test_<module>.py`.
- Tests run against a real Postgres; never mock the database layer.

## Operations

- Deploy to production only from the main branch via the release pipeline.
- Page the on-call engineer for any error budget burn above 5% an hour.
- Rotate API keys every 90 days.
"""
PROMPT = "Add a database migration that creates the credit_notes table"


def _hook_rules(run_charter, repo: Path, session: str) -> tuple[list[str], str]:
    proc = run_hook(run_charter, repo, "UserPromptSubmit", prompt=PROMPT, session_id=session)
    assert proc.returncode == 0, proc.stderr
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    return citations(text), text


def _context(run_charter, repo: Path) -> dict:
    proc = run_charter("context", PROMPT, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_hook_keeps_rules_near_the_best_and_says_more_exist(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n[rules]\nbudget_tokens = 1000\n")
    full = _context(run_charter, repo)
    scores = {
        f"{s['rule']['source']['path']}:L{s['rule']['source']['line_start']}"
        f"-L{s['rule']['source']['line_end']}": s["score"]
        for s in full["shards"]
    }
    given, text = _hook_rules(run_charter, repo, "s-default")
    best = max(scores.values())
    assert given and set(given) < set(scores)  # a strict subset of what the budget holds
    # every rule near the best is given; what is left out scores below the cutoff (a
    # small section or procedure the best rules sit in may still be completed)
    assert {c for c, v in scores.items() if v >= 0.4 * best + 1e-4} <= set(given)
    assert all(scores[c] < 0.4 * best + 1e-4 for c in set(scores) - set(given))
    assert "CLAUDE.md:L5-L5" in given  # the migration rule itself
    assert "rules_for_task lists them" in text


def test_cutoff_zero_gives_the_whole_retrieval(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(
        repo,
        "charter.toml",
        "[hooks]\nwarm_worker = false\n[rules]\nbudget_tokens = 1000\nhook_relative_cutoff = 0\n",
    )
    full = _context(run_charter, repo)
    given, text = _hook_rules(run_charter, repo, "s-zero")
    assert len(given) == len(full["shards"])
    assert "rules_for_task" not in text
    assert full["cut"] is False


def test_the_left_out_note_is_said_once_per_conversation(repo: Path, run_charter) -> None:
    """The note that less likely rules were left out stays in the conversation like the
    rules: a later prompt with new rules does not repeat it, a compaction brings it back."""
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n[rules]\nbudget_tokens = 1000\n")
    note = "rules_for_task lists them"

    def ask(prompt: str) -> str:
        proc = run_hook(run_charter, repo, "UserPromptSubmit", prompt=prompt, session_id="s-note")
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]

    first = ask(PROMPT)
    assert note in first
    second = ask("Translate the button labels of the frontend with the i18n helper")
    assert "i18n" in second and note not in second  # new rules, the note already given
    compacted = run_hook(run_charter, repo, "SessionStart", source="compact", session_id="s-note")
    assert compacted.returncode == 0, compacted.stderr
    assert note in ask(PROMPT)  # the compacted conversation no longer holds it
