"""A rejected option named by a word the project's own files also use.

Decisions imported from real ADRs and checked against the same repositories' later commit
messages (``bench/drift_real_text.py --tree``) were flagged on commits like "Parse text
from JSON" under "chat messages are serialized to an embedded store, not JSON" (the
project keeps JSON files everywhere), "vm: add write_variable_raw" under an option named
"VM" (the project has a ``vm`` crate) and "[Unticketed] Python scan updates" under a
front-end decision that rejected Python (the API is Python). Such a word still counts
beside another word of the option or a word of the question; alone it decides nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from charter.config import Project
from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.project_words import project_words
from charter.decisions.models import parse_clarifications
from charter.decisions.service import checker_for
from tests.decisions_support import choice_entry, flagged

DECISIONS = parse_clarifications(
    {
        "pgc_clarifications": [
            choice_entry(
                "CHAT_STORE",
                "In which format are the saved chat messages serialized?",
                {"kv": "KVStore", "json": "JSON", "custom": "Custom format"},
                "kv",
            ),
            choice_entry(
                "FRONTEND_LANGUAGE",
                "Which language is the front end written in?",
                {"ts": "TypeScript", "py": "Python"},
                "ts",
            ),
        ]
    }
)

PATHS = [
    "api/src/app.py",
    "api/src/db/models.py",
    "api/pyproject.toml",
    "frontend/src/app.tsx",
    "frontend/src/page.tsx",
    "frontend/package.json",
    "config/settings.json",
    "docs/decisions/0004-json-files.md",
    "docs/guide/typescript-notes.md",
]

ABOUT_THE_PROJECT = [
    "Add an export engine producing a JSON file",
    "[Unticketed] Python scan updates",
]


def test_words_come_from_file_and_folder_names_and_languages() -> None:
    words = project_words(PATHS)
    assert {"json", "python", "api", "src", "frontend"} <= words
    # a word in one file only, or only in documentation, is no use of the thing
    assert "model" not in words
    assert "typescript" in words  # .tsx sources, not the note in docs/
    assert "decision" not in words


def test_texts_naming_what_the_project_uses_choose_no_option() -> None:
    own = DriftChecker(DECISIONS, project_words=project_words(PATHS))
    for text in ABOUT_THE_PROJECT:
        assert flagged(own, text) == set(), text


def test_without_the_files_they_were_flagged() -> None:
    anonymous = DriftChecker(DECISIONS)
    assert "CHAT_STORE" in flagged(anonymous, ABOUT_THE_PROJECT[0])
    assert "FRONTEND_LANGUAGE" in flagged(anonymous, ABOUT_THE_PROJECT[1])


def test_the_word_still_counts_beside_words_of_the_question() -> None:
    own = DriftChecker(DECISIONS, project_words=project_words(PATHS))
    assert "CHAT_STORE" in flagged(own, "Serialize the saved chat messages as JSON.")
    assert "FRONTEND_LANGUAGE" in flagged(own, "I rewrote the front end in Python.")


def test_only_the_names_asked_about_are_looked_for() -> None:
    """A hook asks about a rejected option's few names; the answer is the same as reading
    the whole tree's vocabulary, restricted to them."""
    everything = project_words(PATHS)
    for wanted in ({"json", "haskell"}, {"python", "typescript", "frontend"}, set()):
        assert project_words(PATHS, frozenset(wanted)) == everything & wanted


def test_a_name_the_project_does_not_use_still_decides_alone() -> None:
    checker = DriftChecker(DECISIONS, project_words=project_words(["src/main.go", "src/db.go"]))
    assert "FRONTEND_LANGUAGE" in flagged(checker, "I rewrote the front end in Python.")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_the_project_checker_reads_the_tracked_files(tmp_path: Path) -> None:
    """Through the service, in a real git repository: tracked files count, an untracked
    file does not, and ``drift.project_words = false`` turns the reading off."""
    root = tmp_path / "proj"
    for rel in PATHS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    (root / "scratch").mkdir()
    for name in ("haskell_a.hs", "haskell_b.hs"):
        (root / "scratch" / name).write_text("x\n", encoding="utf-8")
    (root / "charter.toml").write_text("", encoding="utf-8")
    checker = checker_for(Project.load(root), DECISIONS, semantic=False)
    assert flagged(checker, ABOUT_THE_PROJECT[1]) == set()
    words = checker._prep.vocab[1].rejected[0].places
    assert words == frozenset({"python"})
    assert project_words_of(root, {"haskell", "python"}) == frozenset({"python"})

    (root / "charter.toml").write_text("[drift]\nproject_words = false\n", encoding="utf-8")
    off = checker_for(Project.load(root), DECISIONS, semantic=False)
    assert "FRONTEND_LANGUAGE" in flagged(off, ABOUT_THE_PROJECT[1])


def project_words_of(root: Path, wanted: set[str]) -> frozenset[str]:
    from charter.decisions.service import _project_words

    return _project_words(Project.load(root))(frozenset(wanted))


def test_a_name_ending_in_s_is_found_in_the_files() -> None:
    """A key is a stem already: stemmed again, "database" ("databas") became "databa" and
    was never found among the project's words."""
    decisions = parse_clarifications(
        {
            "pgc_clarifications": [
                choice_entry(
                    "MESSAGE_STORE",
                    "How are the saved chat messages kept?",
                    {"json": "Use JSON files", "db": "Use database"},
                    "json",
                )
            ]
        }
    )
    paths = ["src/model/database/Entry.java", "src/gui/DatabaseView.java"]
    own = DriftChecker(decisions, project_words=project_words(paths))
    assert own._prep.vocab[0].rejected[0].places == frozenset({"databas"})
    assert flagged(own, "Refine the active database replacement") == set()
    assert "MESSAGE_STORE" in flagged(
        DriftChecker(decisions), "Refine the active database replacement"
    )
