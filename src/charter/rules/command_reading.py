"""The words a rule names commands with: the reading of negations for commands (what
may stand between a cue and its command, what sets a condition), how a prohibition
opens ("Agents must never …"), and a program's name as a rule means it (``pip3`` is
``pip``). Shared by :mod:`charter.rules.commands` and the readings of git's acts and the
agent's tools (:mod:`charter.rules.git_readings`, :mod:`charter.rules.agent_tools`).
"""

from __future__ import annotations

import posixpath
import re

from charter.rules.negation import Reading, words_of

#: Words that may stand between a cue and the command it governs.
_RUN_WORDS = frozenset(
    {
        "run", "running", "runs", "use", "using", "uses", "call", "calling", "execute",
        "executing", "invoke", "invoking", "type", "typing", "with", "via", "through",
        "the", "a", "an", "any", "by",
    }
) | words_of("acts") | words_of("articles")  # fmt: skip
#: Words that restrict a prohibition to a context the guardrail cannot see.
_CONDITIONS = frozenset(
    {
        "against", "in", "on", "inside", "within", "outside", "when", "whenever", "while",
        "if", "unless", "except", "for", "during", "before", "after", "until", "without",
        "once", "under", "below", "beneath", "at", "yet", "from", "there", "between",
        # without being asked: the user's consent (charter.rules.consent)
        "unprompted", "unasked", "autonomously",
        # without looking first ("we do not run `X` blindly"): the user's look is asked for
        "blindly",
    }
) | words_of("conditions")  # fmt: skip
COMMAND_READING = Reading(bridge=_RUN_WORDS, conditions=_CONDITIONS, acts=words_of("acts"))
_VERSION_SUFFIX = re.compile(r"(?<=[a-z])\d+(?:\.\d+)*$")

#: A package's version or tag after its name, as a launcher is given it (``npx
#: prisma@5 db push``, ``bunx vite@latest build``).
_PACKAGE_VERSION = re.compile(r"(?<=\w)@(?:[\d^~<>=.*x-]+|latest|next|canary|beta|alpha|rc)$")


def _program(word: str) -> str:
    """A program's name as a rule means it: base name, no ``.exe``, no version suffix
    (a rule against `pip install` holds for ``pip3 install`` and ``pip3.12 install``),
    no package version a launcher was given (``prisma@5``)."""
    name = posixpath.basename(word.replace("\\", "/"))
    name = _PACKAGE_VERSION.sub("", name)
    name = name[:-4] if name.lower().endswith(".exe") else name
    bare = _VERSION_SUFFIX.sub("", name)
    return bare or name


#: The words that negate an act said to the agent ("never", "do not", "must not" …).
_NEGATION = r"(?:never|do not|don't|must not|mustn't|should not|shouldn't)"
#: How a prohibition opens: a label ("Git: …"), then whom it addresses ("Agents never …",
#: the ``who`` group, checked against the addressees), a modal ("You must never …"), the
#: negation, a colon ("NEVER: push …") and "ever" — shared by the readings below so
#: each one accepts the same openings.
_OPENING = r"^\W*(?:[A-Za-z]+\s*:\s*)?"
_PROHIBITS = (
    r"(?:(?P<who>[a-z]+)\s+)?(?:(?:must|should|will|shall)\s+)?"
    rf"{_NEGATION}(?:\s*:)?\s+(?:ever\s+)?"
)


#: One prohibition after another in a sentence ("NEVER force push, NEVER commit secrets",
#: "do not open pull requests, and do not post comments without their review").
_NEXT_PROHIBITION = re.compile(
    r"[,;]\s*(?:(?:and|but|or)\s+)?(?=(?:never|do not|don't)\b)", re.IGNORECASE
)
_OPENS_PROHIBITION = re.compile(
    rf"{_OPENING}(?:[a-z]+\s+)?(?:(?:must|should|will|shall)\s+)?(?:{_NEGATION}|no)\b",
    re.IGNORECASE,
)


def _prohibition_parts(clause: str) -> list[str]:
    """The clause (emphasis removed), or its prohibitions one by one when it opens with
    one and goes on with more ("NEVER force push, NEVER commit secrets"); not "Otherwise,
    do not commit": the words before the first one set its condition."""
    plain = re.sub(r"[*_~]+", " ", clause)
    return _NEXT_PROHIBITION.split(plain) if _OPENS_PROHIBITION.match(plain) else [plain]
