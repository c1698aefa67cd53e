"""Options named with a symbol: "C#", "F#", "C++".

A decision "Rust only. Excluded: C++, C#" never fired: a word was letters and digits, so
"C#" and "C++" read as the bare letter "C", which is too short to name anything, and
"Rewrite the service in C++" passed. The letter and its symbol are one word now.
"""

from __future__ import annotations

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.drift.lexicon import tokens
from tests.decisions_support import bound, choice_entry, flagged

DECISIONS = bound(
    choice_entry(
        "LANG",
        "Which language is the service written in?",
        {"rust": "Rust", "cpp": "C++", "cs": "C#"},
        "rust",
    ),
    choice_entry(
        "TESTS",
        "Which language are the property tests written in?",
        {"py": "Python", "fs": "F#"},
        "py",
    ),
)


def test_a_letter_and_its_symbol_are_one_word() -> None:
    assert tokens("C#, F# and C++ (not C)") == ["C#", "F#", "and", "C++", "not", "C"]
    assert tokens("Rewrite it in C++17.") == ["Rewrite", "it", "in", "C++"]
    # a word of more letters keeps what follows it out, as before
    assert tokens("issue#12, x#y and a++b") == ["issue", "x", "y", "and", "a", "b"]


def test_an_option_named_with_a_symbol_is_read() -> None:
    checker = DriftChecker(DECISIONS)
    assert "LANG" in flagged(checker, "Rewrite the service in C++.")
    assert "LANG" in flagged(checker, "Port the service to C#.")
    assert "TESTS" in flagged(checker, "Write the property tests in F# from now on.")
    for text in (
        "Keep the service in Rust.",
        "The C compiler flags are set in build.rs.",
        "We looked at C++ and C# but stay on Rust.",
    ):
        assert flagged(checker, text) == set(), text
