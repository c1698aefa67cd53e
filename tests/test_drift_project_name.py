"""The project's own name names none of its decisions' options.

An ADR of a reference manager listed "Replace the internal `#` in JabRef by a single `&`"
among its rejected options; every commit that named the project ("New translations
jabref_en.properties (French)", "use jabref javadoc format") was then flagged as choosing
that option: 24 of the repository's last 150 commits, most at blocking confidence. The
project's folder name, when the decisions write it as a name, is taken out of the options'
words; a folder whose name the decisions do not write as a name takes nothing away.
"""

from __future__ import annotations

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.vocab import project_name_stems
from charter.decisions.models import parse_clarifications
from tests.decisions_support import choice_entry, flagged

DECISIONS = parse_clarifications(
    {
        "pgc_clarifications": [
            choice_entry(
                "STRING_MARKER",
                "How does the entry editor mark a string constant?",
                {
                    "wrap": "Wrap string constants in hashes",
                    "amp": "Replace the internal marker in QuillMark by a single ampersand",
                },
                "wrap",
            ),
            choice_entry(
                "WEB_TIER",
                "Which web server fronts the app?",
                {"nginx": "Nginx", "caddy": "Caddy"},
                "nginx",
            ),
        ]
    }
)

ABOUT_THE_PROJECT = [
    "New translations quillmark_en.properties (French)",
    "Use QuillMark javadoc format in the exporter.",
]


def test_texts_naming_the_project_choose_no_option() -> None:
    own = DriftChecker(DECISIONS, project_folder="quillmark")
    for text in ABOUT_THE_PROJECT:
        assert flagged(own, text) == set(), text


def test_without_the_folder_they_wereflagged() -> None:
    """The cases above are real findings when the project's name is not known."""
    anonymous = DriftChecker(DECISIONS)
    for text in ABOUT_THE_PROJECT:
        assert "STRING_MARKER" in flagged(anonymous, text), text


def test_the_options_still_fire_on_what_tells_them_apart() -> None:
    own = DriftChecker(DECISIONS, project_folder="quillmark")
    assert "STRING_MARKER" in flagged(
        own, "Replace the internal marker with a single ampersand in the editor."
    )
    assert "WEB_TIER" in flagged(own, "Put Caddy in front of the app instead.")


def test_only_a_name_the_decisions_write_as_one_counts() -> None:
    assert project_name_stems(DECISIONS, "quillmark") == frozenset({"quillmark"})
    assert project_name_stems(DECISIONS, "Quillmark-main") == frozenset()
    # a folder named like a common word, or one the decisions never write, takes nothing
    assert project_name_stems(DECISIONS, "web") == frozenset()
    assert project_name_stems(DECISIONS, "server") == frozenset()
    assert project_name_stems(DECISIONS, "caddy") == frozenset()  # first word of a label


def test_a_name_written_in_capitals_is_the_projects_too() -> None:
    """A research tool's decisions write its name in capitals ("… before installing
    VELLUM"); every commit naming VELLUM ("Fix VELLUM window title on Windows") was
    flagged as choosing that rejected option (users' pass sixty-one)."""
    decisions = parse_clarifications(
        {
            "pgc_clarifications": [
                choice_entry(
                    "PY_RUNTIME",
                    "How is the Python interpreter shipped to users?",
                    {
                        "bundle": "Bundle a stand-alone Python built with PyOxidizer",
                        "preinstalled": "Require users to install Python before installing VELLUM",
                    },
                    "bundle",
                )
            ]
        }
    )
    assert project_name_stems(decisions, "vellum") == frozenset({"vellum"})
    own = DriftChecker(decisions, project_folder="vellum")
    for text in ("Fix VELLUM window title on Windows", "Bump VELLUM to 0.4.2 and rebuild"):
        assert flagged(own, text) == set(), text
    # without the folder, the name was an option's word
    assert "PY_RUNTIME" in flagged(DriftChecker(decisions), "Fix VELLUM window title on Windows")
