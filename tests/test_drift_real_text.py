"""The drift checker on real repository text: commit titles, dependency bumps, tables.

Decisions imported from real ADRs were checked against the same repositories' later
commit messages (``bench/drift_real_text.py``); most of those commits follow the
decisions, so a finding there is almost always a false alarm. Each test is one shape of
text that raised one, with the violation it must still catch beside it.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.lexicon import token_spans
from tests.decisions_support import choice_entry, layered_checker

CLARIFICATIONS = [
    choice_entry(
        "TICKETS",
        "Where are tickets tracked?",
        {
            "jira": "Jira",
            "zenhub": "GitHub Issues + Zenhub",
            "openproject": "OpenProject",
        },
        "jira",
    ),
    choice_entry(
        "PLUGIN_NAMES",
        "How does a function learn its plugin's name?",
        {
            "clone": "Clone each function when it is added to a plugin and set the name",
            "factory": "Add a new parameter to PluginFactory.CreateFromFunctions to enable "
            "setting the plugin name in the associated metadata instances",
        },
        "clone",
    ),
    choice_entry(
        "MIGRATIONS",
        "How are database migrations run?",
        {"alembic": "Alembic", "dms": "AWS Database Migration Service", "flyway": "Flyway"},
        "alembic",
    ),
    choice_entry(
        "VERSIONS",
        "How are connector versions released?",
        {"keep": "Keep As-Is", "ga": "Preview and General versioning"},
        "keep",
    ),
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    return layered_checker({"pgc_clarifications": CLARIFICATIONS}, request.param)


def _flagged(checker: DriftChecker, text: str) -> set[str]:
    return {f.constraint_id for f in checker.check(text).findings}


QUIET = [
    # a host inside a link or an e-mail address is where a thing lives, not a choice
    "Bumps [gradle-wrapper](https://github.com/gradle/gradle) from 9.7.0 to 9.7.1.\n\n"
    "Co-authored-by: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
    # a tag opening a commit title is no name: "[Issue #12]" is the ticket, not GitHub Issues
    "[Issue #11777] Spec for the application form\n\nAdds the feature file.",
    # the first word after a tag ("[Breaking] Add") is the title's verb, not the option's
    "Python: [Breaking] Add tool approval callback for the agent (#14210)",
    # two common words of a sentence-long option ("add", "parameter") name nothing
    "Adds a `TimeProvider` constructor parameter to `TimePlugin` (defaults to the system "
    "clock, so existing callers are unaffected).",
    # a table header and an HTML heading capitalise their first word
    "| Old | New | Version |\n|---|---|---|\n| 1.2 | 1.3 | patch |",
    "<h2>Version 3.2.1</h2>\n<p>Fixes a crash on start.</p>",
    # a file path's folders are where a file lives ("`.github/workflows/`" is no GitHub)
    "Updated `.github/workflows/ci.yml` to cache the npm install between jobs.",
    # a title in headline case capitalises every word, so no capital marks a name
    "[Unticketed] Automated Update to Database ERD Diagrams and OpenAPI Docs (#12111)",
]

CAUGHT = [
    ("We'll move the backlog to GitHub Issues with a Zenhub board next sprint.", "TICKETS"),
    (
        "Plan: add a new parameter to PluginFactory.CreateFromFunctions so callers can set "
        "the plugin name on the metadata instances.",
        "PLUGIN_NAMES",
    ),
    ("From now on schema changes go through AWS Database Migration Service.", "MIGRATIONS"),
]


@pytest.mark.parametrize("text", QUIET)
def test_real_commit_text_that_follows_the_decisions_is_not_flagged(
    checker: DriftChecker, text: str
) -> None:
    assert _flagged(checker, text) == set()


@pytest.mark.parametrize(("text", "constraint"), CAUGHT)
def test_the_same_options_named_as_a_choice_are_still_caught(
    checker: DriftChecker, text: str, constraint: str
) -> None:
    assert constraint in _flagged(checker, text)


def test_address_and_path_words_are_not_tokens_but_link_text_and_pairs_are() -> None:
    text = "Use [Crowdin](https://crowdin.com/) as <team@crowdin.com> said in docs/i18n.md"
    words = [raw for _, _, raw in token_spans(text)]
    assert words == ["Use", "Crowdin", "as", "said", "in"]
    pairs = [raw for _, _, raw in token_spans("Native iOS/Android apps, CI/CD")]
    assert pairs == ["Native", "iOS", "Android", "apps", "CI", "CD"]
