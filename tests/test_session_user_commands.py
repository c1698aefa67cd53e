"""Commands the user told the session not to run, held by the PreToolUse guardrail.

"Never run `deno publish`" typed in a prompt came back after compaction, but the agent's
``deno publish`` went through: only files the user forbade (``user_edits``) and commands
a rule file forbids (``rule_commands``) were held. The prompt's commands are now read as
a rule's sentence is (``charter.rules.commands``) when it is captured, and a Bash call
running one asks (``user_commands``), quoting the user, until they allow it again.
"""

from __future__ import annotations

import pytest

from charter.session.forbidden_commands import (
    commands_forbidden_in,
    commands_permitted_in,
)

# -- the reader, on the user's own sentences ------------------------------------------------


@pytest.mark.parametrize(
    ("said", "forbidden"),
    [
        ("Never run `deno publish`.", ["deno publish"]),
        ("don't run npm publish, I release by hand", ["npm publish"]),
        ("Fix the build. Never run make deploy, I do that myself.", ["make deploy"]),
        ("Please don't use pip install, use uv add instead.", ["pip install"]),
        ("never git push --force", ["git push --force"]),
        ("Don't run npm run deploy yourself.", ["npm run deploy"]),
        ("Don't commit with `--no-verify`.", ["commit --no-verify"]),
        ("Never run `deno publish`, use `deno task release`", ["deno publish"]),
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
        ("Run npm publish on staging", []),  # a condition
        ("Never run `deno publish`.", []),  # negated
        ("what does `npm publish` do?", []),
        ("Don't run npm publish. Go ahead and run npm test.", ["npm test"]),
    ],
)
def test_what_the_user_asks_to_run_is_read_without_a_negation(
    said: str, permitted: list[str]
) -> None:
    assert [c for c, _ in commands_permitted_in(said)] == permitted
