"""Commands the user told the session not to run, held by the PreToolUse guardrail.

"Never run `deno publish`" typed in a prompt came back after compaction, but the agent's
``deno publish`` went through: only files the user forbade (``user_edits``) and commands
a rule file forbids (``rule_commands``) were held. The prompt's commands are now read as
a rule's sentence is (``charter.rules.commands``) when it is captured, and a Bash call
running one asks (``user_commands``), quoting the user, until they allow it again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from charter.session.forbidden_commands import (
    commands_forbidden_in,
    commands_permitted_in,
)
from tests.conftest import write
from tests.test_session_guardrails import (
    NO_WORKER,
    _hook,
    decision,
    make_project,
    payload,
    submit_prompt,
)

# -- the reader, on the user's own sentences ------------------------------------------------


@pytest.mark.parametrize(
    ("said", "forbidden"),
    [
        ("Never run `deno publish`.", ["deno publish"]),
        ("don't run npm publish, I release by hand", ["npm publish"]),
        ("Do not run `pnpm android` here, there is no emulator on this machine.", ["pnpm android"]),
        ("don't run expo prebuild --clean, it wipes ios/ on every run", ["expo prebuild --clean"]),
        ("Fix the build. Never run make deploy, I do that myself.", ["make deploy"]),
        ("Please don't use pip install, use uv add instead.", ["pip install"]),
        ("never git push --force", ["git push --force"]),
        ("Don't run npm run deploy yourself.", ["npm run deploy"]),
        ("Don't commit with `--no-verify`.", ["commit --no-verify"]),
        ("Never run `deno publish`, use `deno task release`", ["deno publish"]),
        # Python's environment managers are command-line programs as pip and poetry are
        ("And don't run pipenv run pytest, CI does that.", ["pipenv run pytest"]),
        ("never rye sync --update-all", ["rye sync --update-all"]),
        # git's bare acts, also where they close the sentence that asked for the work
        ("Don't commit, I'll review and commit myself.", ["git commit"]),
        ("tidy the parser in lib/scan.py — don't commit, I'll do that", ["git commit"]),
        (
            "Fix scrollBy so it clamps the offset, and don't commit anything — I'll review first.",
            ["git commit"],
        ),
        ("Fix the flaky test, but never push.", ["git push"]),
        ("Store the token in .env, and don't commit it to the repository.", []),
        ("Run all four checks, and don't commit until all are clean", []),
        # a condition: a context the guardrail cannot see, not the command
        ("Never run terraform destroy against production", []),
        ("don't run `npm publish` in CI", []),
        ("Do not run npm publish until I say so", []),
        # a mention, a question, prose that is no command line
        ("what does `npm publish` do?", []),
        ("what does npm publish do?", []),
        ("Running npm publish failed with E403, can you look?", []),
        ("don't go there", []),
        ("never make a mess of the history", []),
        ("Don't run the tests", []),
        ("Don't use npm.", []),  # one word is not a command
    ],
)
def test_the_commands_a_user_forbids_are_read_like_a_rules(said: str, forbidden: list[str]) -> None:
    found = commands_forbidden_in(said)
    assert [c.command for c in found] == forbidden
    for command in found:
        # the user's sentence (the one that forbids), to quote
        assert said.startswith(command.rule_text) or said.endswith(command.rule_text + ".")
        assert command.cite == "the user"


def test_a_bare_command_ends_where_the_prose_begins() -> None:
    """The bare command is read up to the first word that is not an argument: a
    condition after it still makes the sentence conditional, "again" is no argument."""
    (found,) = commands_forbidden_in("don't run rm -rf build/ again")
    assert (found.program, found.words, sorted(found.flags)) == ("rm", ("build/",), ["-f", "-r"])
    assert commands_forbidden_in("never run docker compose down -v on the shared box") == []


@pytest.mark.parametrize(
    ("said", "permitted"),
    [
        ("you can run `deno publish` now", ["deno publish"]),
        ("go ahead and publish with deno publish", ["deno publish"]),
        ("can you run npm publish?", ["npm publish"]),
        ("OK, run `npm publish --dry-run` first", ["npm publish --dry-run"]),
        ("did you run npm publish?", []),  # asks about it
        ("I'll do it with `npm publish` myself", []),  # the user acting
        ("I'll go ahead and run npm publish", []),
        # the user's own act in another clause leaves the permission whole
        ("you can run npm run db:migrate:prod now, I checked the SQL", ["npm run db:migrate:prod"]),
        ("go ahead and run `npm publish`, I'll watch the logs", ["npm publish"]),
        ("Run npm publish on staging", []),  # a condition
        ("Never run `deno publish`.", []),  # negated
        ("what does `npm publish` do?", []),
        ("Don't run npm publish. Go ahead and run npm test.", ["npm test"]),
        # a negation after a contrast belongs to the clause it turns to
        (
            "Ok, you can run `sls deploy --stage dev` now, but still not prod.",
            ["sls deploy --stage dev"],
        ),
        ("You can run `npm test`, but don't run `npm publish`.", ["npm test"]),
        ("Don't run `sls deploy`, but you can run `sls info`.", ["sls info"]),
        ("You can't run `sls deploy`, though.", []),
    ],
)
def test_what_the_user_asks_to_run_is_read_without_a_negation(
    said: str, permitted: list[str]
) -> None:
    assert [c for c, _ in commands_permitted_in(said)] == permitted


# -- through the real hooks ----------------------------------------------------------------


_prompt = submit_prompt


def _bash(
    run_charter: Any, root: Path, command: str, n: int, **extra: Any
) -> dict[str, Any] | None:
    """The PreToolUse hook's answer to a Bash call of ``command`` (None: let through)."""
    body = {**payload(root, "Bash", {"command": command}, n), **extra}
    proc = _hook(run_charter, root, body)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def test_hook_asks_before_running_what_the_user_said_not_to_run(
    tmp_path: Path, run_charter: Any
) -> None:
    """The user said "never run `deno publish`" and "don't run npm publish": the Bash
    call running either (alone, or as one command of a chain) asks, quoting them; other
    commands, another conversation and `user_commands = "off"` are let through, "deny"
    denies, and the call is in the audit log."""
    root = make_project(tmp_path, "unscoped")
    _prompt(run_charter, root, "Bump the version. Never run `deno publish`, I release by hand.")
    _prompt(run_charter, root, "And don't run npm publish either.")

    held = _bash(run_charter, root, "deno publish", 1)
    assert decision(held) == "ask"
    assert held is not None
    reason = held["hookSpecificOutput"]["permissionDecisionReason"]
    assert "the user told this session not to run `deno publish`" in reason
    assert '"Never run `deno publish`, I release by hand"' in reason
    assert decision(_bash(run_charter, root, "deno fmt && deno publish --allow-dirty", 2)) == "ask"
    assert decision(_bash(run_charter, root, "cd web && npm publish --tag next", 3)) == "ask"
    for n, harmless in enumerate(("deno fmt", "npm test", "git status | head -3"), start=4):
        assert _bash(run_charter, root, harmless, n) is None, harmless
    assert _bash(run_charter, root, "deno publish", 7, session_id="another-conversation") is None
    audit = (root / "artifacts/guardrails/audit.jsonl").read_text().splitlines()
    assert [json.loads(x)["tool_use_id"] for x in audit] == ["toolu_1", "toolu_2", "toolu_3"]

    write(root, "charter.toml", NO_WORKER + '\n[session.guardrails]\nuser_commands = "deny"\n')
    assert decision(_bash(run_charter, root, "deno publish", 8)) == "deny"
    write(root, "charter.toml", NO_WORKER + '\n[session.guardrails]\nuser_commands = "off"\n')
    assert _bash(run_charter, root, "deno publish", 9) is None


def test_the_user_allowing_the_command_lifts_their_earlier_words(
    tmp_path: Path, run_charter: Any
) -> None:
    """A later prompt that asks for the command lifts the guardrail for it (another
    conversation's does not); a narrower permission leaves the rest held; a later
    prohibition puts it back."""
    root = make_project(tmp_path, "unscoped")
    _prompt(run_charter, root, "don't run npm publish, I release by hand")
    assert decision(_bash(run_charter, root, "npm publish", 1)) == "ask"

    _prompt(run_charter, root, "OK, run `npm publish --dry-run` first")
    assert _bash(run_charter, root, "npm publish --dry-run", 2) is None
    assert decision(_bash(run_charter, root, "npm publish", 3)) == "ask"

    _prompt(run_charter, root, "You can run npm publish now.", "another-conversation")
    assert decision(_bash(run_charter, root, "npm publish", 4)) == "ask"
    _prompt(run_charter, root, "Looks good, go ahead and publish with npm publish.")
    assert _bash(run_charter, root, "npm publish", 5) is None

    _prompt(run_charter, root, "Never run `npm publish` again.")
    assert decision(_bash(run_charter, root, "npm publish", 6)) == "ask"


def test_a_prompt_asking_for_gits_act_lets_it_through_that_turn(
    tmp_path: Path, run_charter: Any
) -> None:
    """ "Fix it, and don't commit anything — I'll review first", then "Looks good, go
    ahead and commit": the commit still asked (an agent whose hooks cannot ask was
    refused what the user had just asked for). The prompt of this turn that asks for the
    act lets it through; the next turn's words hold it again, and a commit named as a
    noun ("fix the commit message") asks for nothing."""
    root = make_project(tmp_path, "unscoped")
    _prompt(run_charter, root, "Fix the parser, and don't commit anything — I'll review first.")
    assert decision(_bash(run_charter, root, "git commit -am wip", 1)) == "ask"
    _prompt(run_charter, root, "Looks good, go ahead and commit.")
    assert _bash(run_charter, root, "git commit -am 'fix parser'", 2) is None
    assert _bash(run_charter, root, "git push", 3) is None  # never held
    _prompt(run_charter, root, "Now fix the commit message template.")
    assert decision(_bash(run_charter, root, "git commit -am again", 4)) == "ask"


def test_the_words_typed_when_rejecting_a_call_hold_the_command(
    tmp_path: Path, run_charter: Any
) -> None:
    """A rejected tool call's reason never passes through UserPromptSubmit: it is read
    when the failure is captured, and holds the command the same way."""
    root = make_project(tmp_path, "unscoped")
    body = {
        **payload(root, "Bash", {"command": "git push --force"}, 1),
        "hook_event_name": "PostToolUseFailure",
        "error": "The user doesn't want to proceed with this tool use. The tool use was "
        "rejected. The user provided the following reason for the rejection: "
        "never git push --force, rebase and ask me",
    }
    proc = run_charter("hook", "post-tool-use-failure", cwd=root, stdin=json.dumps(body))
    assert proc.returncode == 0, proc.stderr
    assert decision(_bash(run_charter, root, "git push --force origin main", 2)) == "ask"
    assert _bash(run_charter, root, "git push origin main", 3) is None


def test_the_users_commands_are_read_once_when_the_prompt_is_captured(
    tmp_path: Path, run_charter: Any
) -> None:
    """The guardrail runs before every Bash call: it reads the prompts marked at capture
    (``forbids_commands``), never every prompt's text again; a prompt with no command
    forbidden carries no mark."""
    from charter.config import Project
    from charter.session.service import Session, session_key

    root = make_project(tmp_path, "unscoped")
    _prompt(run_charter, root, "Never run `deno publish`.")
    _prompt(run_charter, root, "what does `deno publish` do?")
    session = Session(Project.load(root))
    try:
        track = session.tracks.current()
        prompts = session.journal.events(session=session_key("s-guard"), track=track)
        marked = session.journal.events(
            session=session_key("s-guard"),
            track=track,
            kinds=("prompt",),
            having="forbids_commands",
        )
        assert len([e for e in prompts if e.kind == "prompt"]) == 2
        assert [
            [
                (c["command"], c["program"], c["words"], c["rule_text"])
                for c in e.data["forbids_commands"]
            ]
            for e in marked
        ] == [[("deno publish", "deno", ["publish"], "Never run `deno publish`")]]
        session.journal.add(session_key("s-other"), track, "prompt", {"text": "never npm publish"})
    finally:
        session.close()
    unmarked = _bash(run_charter, root, "npm publish", 1, session_id="s-other")
    assert unmarked is None  # journaled without the mark: not read a second time


def test_an_unreadable_journal_asks_rather_than_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guardrails fail closed: when the journal cannot be read, a Bash call is asked
    about, never let through unchecked."""
    import sqlite3

    import charter.session.forbidden_commands as reader
    from charter.config import Project
    from charter.session.guardrails import pre_tool_use_output

    root = make_project(tmp_path, "unscoped")
    (root / ".charter" / "session.db").write_bytes(b"")

    def broken(*_: Any) -> list[Any]:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(reader, "user_forbidden_commands", broken)
    out = pre_tool_use_output(Project.load(root), payload(root, "Bash", {"command": "ls"}))
    assert decision(out) == "ask"
    assert out is not None
    assert "database is locked" in out["hookSpecificOutput"]["permissionDecisionReason"]
