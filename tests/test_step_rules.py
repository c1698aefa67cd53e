"""Rules that name a version-control step reach the agent when it is about to take it.

Real ``charter hook pre-tool-use`` processes fed Claude Code's PreToolUse JSON for Bash
commands, in a real git repository whose rule file mixes process rules (commits, pushes,
pull requests) with code rules, compiled by the real CLI.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import commit_all, hook_answer, run_hook, write
from tests.decisions_support import no_worker

Run = Callable[..., subprocess.CompletedProcess[str]]

RULES = """# Contributing

## Code

- Every money amount is an integer of cents.
- Handlers validate input with the shared schema module.

## Workflow

- Write commit messages as Conventional Commits: `feat(invoices): add CSV export`.
- Run `make lint` before committing.
- Run `make test` before you push.
- Never use `git push --force`.
- Describe how you tested the change in the pull request.
- Keep PRs under 400 changed lines.
"""


@pytest.fixture
def project(repo: Path, run_charter: Run) -> Path:
    no_worker(repo)
    write(repo, "CLAUDE.md", RULES)
    assert run_charter("compile", cwd=repo).returncode == 0
    return repo


def _bash(run_charter: Run, root: Path, command: str, call: str, session: str = "s1") -> Any:
    return hook_answer(
        run_charter,
        root,
        "PreToolUse",
        session_id=session,
        tool_name="Bash",
        tool_use_id=call,
        tool_input={"command": command},
    )


def test_a_commit_brings_the_rules_that_name_committing_once(
    project: Path, run_charter: Run
) -> None:
    out = _bash(run_charter, project, 'git add -A && git commit -m "fix: round totals"', "t1")
    assert out["hookEventName"] == "PreToolUse"
    assert "permissionDecision" not in out or out["permissionDecision"] == "allow"
    text = out["additionalContext"]
    assert "# Project rules for this `git commit`" in text
    assert "Conventional Commits" in text and "(L10)" in text
    assert "`make lint` before committing" in text
    assert "integer of cents" not in text and "before you push" not in text
    # in the conversation now: the next commit adds nothing; a push adds the push rules
    assert _bash(run_charter, project, "git commit --amend --no-edit", "t2") is None
    push = _bash(run_charter, project, "git -C . push origin feature", "t3")["additionalContext"]
    assert "`make test` before you push" in push and "Conventional Commits" not in push
    # another conversation starts with none of them given
    again = _bash(run_charter, project, "git commit -m x", "t4", session="s2")
    assert "Conventional Commits" in again["additionalContext"]


def test_a_pull_request_brings_its_rules_and_other_commands_bring_none(
    project: Path, run_charter: Run
) -> None:
    for command in ("git status", "git log --oneline -5", "make test", "echo git commit"):
        assert _bash(run_charter, project, command, f"q-{command}") is None, command
    text = _bash(run_charter, project, "gh pr create --fill", "t1")["additionalContext"]
    assert "pull request" in text and "Keep PRs under 400" in text
    assert "Conventional Commits" not in text


def test_a_denied_step_still_carries_its_rules(project: Path, run_charter: Run) -> None:
    """The rule forbids ``git push --force``: the guardrail denies the command, and the
    push rules marked as given arrive with the denial, not lost with the allowed answer."""
    out = _bash(run_charter, project, "git push --force origin main", "t1")
    assert out["permissionDecision"] == "deny"
    assert "`make test` before you push" in out["additionalContext"]


def test_step_rules_can_be_turned_off(project: Path, run_charter: Run) -> None:
    no_worker(project, "[rules]\nstep_rules_max_tokens = 0\n")
    assert _bash(run_charter, project, "git commit -m x", "t1") is None


def test_steps_are_read_from_the_parsed_command() -> None:
    from charter.rules.moments import steps_of

    def names(*argvs: tuple[str | None, ...]) -> list[str]:
        return [name for name, _ in steps_of(argvs)]

    assert names(("git", "-C", "sub", "commit", "-m", "x")) == ["git commit"]
    assert names(("/usr/bin/git", "-c", "user.name=a", "push")) == ["git push"]
    assert names(("git", "status"), ("git", "diff")) == []
    assert names(("gh", "pr", "create"), ("gh", "pr", "view")) == ["gh pr create"]
    assert names(("gh", "release", "create", "v1"), ("gh", "release", "view")) == [
        "gh release create"
    ]
    assert names(("git", "commit"), ("git", "commit", "--amend")) == ["git commit"]
    assert names((None, "commit"), ("echo", "git", "commit")) == []


def test_agents_whose_tool_answers_drop_context_get_no_step_rules(
    project: Path, run_charter: Run
) -> None:
    """Codex, Cursor and Gemini CLI answer a tool call with a decision only: the rules
    are not handed over there, so they are not marked as in the conversation either."""
    done = run_hook(
        run_charter,
        project,
        "PreToolUse",
        session_id="s1",
        tool_name="Bash",
        tool_use_id="t1",
        tool_input={"command": "git commit -m x"},
        charter_agent="codex",
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout
    later = _bash(run_charter, project, "git commit -m y", "t2")
    assert "Conventional Commits" in later["additionalContext"]


OTHER_SENSES = """# Guidelines

## Background work

- Schedule background work after the transaction commits: use `on_commit`, never a bare
  `.delay()` inside an open transaction.

## Deployment

- Push back against requirements that add a pod-local cache.
- Charts are Helm releases: keep each release's values in `deploy/values.yaml`.
- Models carry a tier tag and a `granularity:*` tag.
- `cargo build` (never build with --release)

## Commit Messages

Use an optional component scope followed by a lowercase imperative summary:

```text
[scope: ]<imperative summary>
```

## Pull Requests

- A clear description of changes
- Never push to `main`; open a pull request from a branch.
"""


def test_step_words_in_another_sense_bring_nothing_and_a_steps_heading_brings_its_rules(
    repo: Path, run_charter: Run
) -> None:
    """A Django app's "after the transaction commits" came with every `git commit`, a
    Helm chart's "release" and a dbt model's "tag" with `git tag`; the commit-message
    template under "Commit Messages", which never says "commit", did not come."""
    no_worker(repo)
    write(repo, "AGENTS.md", OTHER_SENSES)
    assert run_charter("compile", cwd=repo).returncode == 0
    commit = _bash(run_charter, repo, "git commit -m 'core: fix x'", "t1")["additionalContext"]
    assert "lowercase imperative summary" in commit, commit
    assert "transaction" not in commit and "Helm" not in commit
    assert _bash(run_charter, repo, "git tag v1.2.0", "t2") is None
    push = _bash(run_charter, repo, "git push origin HEAD", "t3")["additionalContext"]
    assert "Never push to `main`" in push and "Push back" not in push, push
    pr = _bash(run_charter, repo, "gh pr create --fill", "t4")["additionalContext"]
    assert "A clear description of changes" in pr, pr


RELEASING = """# Guidelines

## Models

- Charts are Helm releases: keep each release's values in `deploy/values.yaml`.

## Release

1. Update `main` from `origin/main`.
2. Show `git log <latest>..main` and stop for approval. Do not release until approved.
3. `gh release create <tag> --generate-notes --target main`
"""


def test_a_github_release_brings_the_rules_of_releasing(repo: Path, run_charter: Run) -> None:
    """`gh release create` tags and publishes as `git tag` does, yet it was no step: the
    rules to stop for approval before releasing never came with it."""
    no_worker(repo)
    write(repo, "AGENTS.md", RELEASING)
    assert run_charter("compile", cwd=repo).returncode == 0
    out = _bash(run_charter, repo, "gh release create v2.1.0 --generate-notes", "t1")
    text = out["additionalContext"]
    assert "# Project rules for this `gh release create`" in text, text
    assert "Do not release until approved" in text and "(L10)" in text
    assert "`gh release create <tag>" in text and "Helm" not in text
    assert _bash(run_charter, repo, "gh release view v2.1.0", "t2") is None


def test_a_nested_files_step_rules_come_when_the_step_carries_changes_there(
    repo: Path, run_charter: Run
) -> None:
    """A nested AGENTS.md's "review the regenerated fixtures before committing" is a rule
    of commits that change its folder (or are made from it), not of every commit."""
    no_worker(repo)
    write(repo, "AGENTS.md", "# Agents\n\n- Sign off every commit with `git commit -s`.\n")
    write(
        repo,
        "storage/es/AGENTS.md",
        "# ES storage\n\n- Review the regenerated `testdata/` diff before committing.\n",
    )
    write(repo, "storage/es/query.go", "package es\n")
    write(repo, "docs/guide.md", "# Guide\n")
    commit_all(repo)
    assert run_charter("compile", cwd=repo).returncode == 0

    write(repo, "docs/guide.md", "# Guide\n\nMore.\n")
    text = _bash(run_charter, repo, "git commit -am 'docs: more'", "t1")["additionalContext"]
    assert "Sign off every commit" in text and "regenerated" not in text

    write(repo, "storage/es/query.go", "package es\n\nfunc Q() {}\n")
    text = _bash(run_charter, repo, "git commit -am 'fix(es): q'", "t2")["additionalContext"]
    assert "Review the regenerated `testdata/` diff" in text


def test_reading_what_a_step_carries_never_writes_the_git_index(repo: Path) -> None:
    """The hook asks git what a commit would carry just before the agent's own git command
    runs: a plain ``git status`` refreshes a stale index and takes ``index.lock`` to do it,
    which a git command started at that moment finds held and fails on."""
    import os

    from charter.rules.moments import changed_files

    write(repo, "a.txt", "one\n")
    commit_all(repo)
    index = repo / ".git" / "index"
    # same content, a new mtime: the index's stat data is stale and git would refresh it
    later = index.stat().st_mtime_ns + 5_000_000_000
    os.utime(repo / "a.txt", ns=(later, later))
    before = (index.stat().st_mtime_ns, index.read_bytes())
    write(repo, "b.txt", "two\n")
    assert changed_files(repo) == ["b.txt"]
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


def test_a_consumers_offset_commit_is_no_git_commit(tmp_path: Path) -> None:
    """A Kafka service's "Manual offset commit (auto-commit disabled)" came with every
    `git commit`; a rule about committing code still comes."""
    from charter.rules.build import rules_from_source
    from charter.rules.moments import rules_for_steps
    from charter.rules.sources import load_source

    path = tmp_path / "AGENTS.md"
    path.write_text(
        "# Kafka\n\n- Manual offset commit (auto-commit disabled)\n"
        "- Max poll records: 1\n\n# Git\n\n- Never commit secrets to git\n"
    )
    rules = rules_from_source(load_source(path, "AGENTS.md", "agents"), [])
    found = [r.text for r in rules_for_steps(rules, [("commit", ("commit",))], set())]
    assert found == ["Never commit secrets to git"], found


def test_a_push_rule_naming_a_remote_branch_ref_comes_with_a_push(tmp_path: Path) -> None:
    """ "Never push or merge to `origin/main` without …" did not come with `git push`: the
    ref in code was not read as the branch it names, so "push" kept its other sense."""
    from charter.rules.build import rules_from_source
    from charter.rules.moments import rules_for_steps
    from charter.rules.sources import load_source

    path = tmp_path / "AGENTS.md"
    path.write_text(
        "# Agents\n\n- Never push or merge to `origin/main` without explicit direction.\n"
        "- Push back on vague specs.\n- Keep `src/main` small.\n"
    )
    rules = rules_from_source(load_source(path, "AGENTS.md", "agents"), [])
    found = [r.text for r in rules_for_steps(rules, [("push", ("push",))], set())]
    assert found == ["Never push or merge to `origin/main` without explicit direction."], found


def test_a_file_loaded_only_by_name_brings_no_rules_of_a_step(
    project: Path, run_charter: Run
) -> None:
    """A Cline workflow (``/release.md``) or a Kiro ``inclusion: manual`` file is in the
    conversation only when the user asks for it; every commit brought its steps ("Commit
    the version bump as `chore: release`") among the rules of committing. They are left
    out of a step's rules as of the rules for every change; a task still retrieves them."""
    write(
        project,
        ".clinerules/workflows/release.md",
        "# Release\n\n1. Commit the version bump as `chore: release vX`.\n"
        "2. Push the release tag after the commit.\n",
    )
    write(
        project,
        ".kiro/steering/review.md",
        "---\ninclusion: manual\n---\n\n# Review\n\n- Grade every commit from A to D.\n",
    )
    assert run_charter("compile", cwd=project).returncode == 0
    text = _bash(run_charter, project, "git commit -m x", "t1")["additionalContext"]
    assert "Conventional Commits" in text
    assert "chore: release" not in text and "A to D" not in text
    found = run_charter("context", "cut a release and commit the version bump", cwd=project)
    assert "chore: release" in found.stdout


def test_a_step_rule_is_shown_up_to_the_words_that_name_the_step(
    repo: Path, run_charter: Run
) -> None:
    """ "Copy `pysrc/pkg/settings-dev.json` to `pysrc/pkg/settings.json` before running
    (do **not** commit this copy)." came before a `git commit` cut to the prompt's brief,
    "Copy `…` to `…` …": the words that make it a rule of the commit were cut off. A rule
    handed over for a step is shown whole up to three times the rule cut."""
    no_worker(repo)
    write(
        repo,
        "AGENTS.md",
        "# Repository Instructions\n\n## Running tests\n"
        "- **Python tests**:\n"
        "  - Copy `pysrc/pkg/settings-dev.json` to `pysrc/pkg/settings.json` before running"
        " (do **not** commit this copy).\n"
        "  - Execute with `uv run pytest -s --nbval ./pytest`.\n",
    )
    assert run_charter("compile", cwd=repo).returncode == 0
    text = _bash(run_charter, repo, "git commit -am wip", "t1")["additionalContext"]
    assert "(do not commit this copy)" in text, text


@pytest.mark.parametrize(
    ("text", "names_push"),
    [
        # home-assistant/iOS AGENTS.md, its skills table
        ("Skill: [`ha-ios-push-live-activities`](.agents/skills/x/SKILL.md) | Load it when "
         "you are…: Implementing or fixing push notifications or Live Activities across the "
         "local-push and remote-push flows", False),
        ("Test remote push notifications on a physical device, not the simulator.", False),
        ("Never push to the remote without running the tests.", True),
        ("Push to remote only after CI passes.", True),
        ("Rebase on the remote branch before you push.", True),
    ],
)  # fmt: skip
def test_remote_before_a_step_word_modifies_it_and_names_no_git_remote(
    text: str, names_push: bool
) -> None:
    """Round 82: every `git push` in Home Assistant's iOS app brought the row of its
    push-notifications skill ("… the local-push and remote-push flows"): "remote" was read
    as git's. 9 labelled lines: 6 -> 9."""
    from charter.rules.model import Rule, Source
    from charter.rules.moments import _names_step

    rule = Rule(id="r-1", text=text, source=Source("AGENTS.md", 3, 3, "Doc > Notes"))
    assert _names_step(rule, ("push",)) is names_push
