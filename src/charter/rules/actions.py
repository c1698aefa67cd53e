"""What a task does besides what it is about: bring a third-party package into the project.

A task that adds a dependency names the package and what it is for ("pull in gl-matrix to
speed up Mat4 multiplication"); the rule it needs names the act ("avoid adding new
dependencies unless absolutely necessary", "do not introduce third-party frameworks
without asking first"). The task's words and embedding are about matrices, the rule's
about dependencies, so neither the lexical nor the dense score joins them.

:func:`adds_dependency` reads the act from the task's grammar, not from any package name:
a verb of bringing something in ("pull in", "bring in", "install", "adopt", "depend on"),
or a verb of adding or using whose object is called a package, library, dependency,
framework, crate or SDK. Retrieval then also matches the rules against
:data:`ADDS_DEPENDENCY`, a plain statement of the act, as it matches a task's head
(``action_view``). The word lists are generic English, kept small on purpose.
"""

from __future__ import annotations

import re

#: The act, said plainly: what a rule about new dependencies is close to.
ADDS_DEPENDENCY = "Add a new third-party dependency, a package or library, to the project."

#: Verbs of bringing something in. "pull in" of changes or a branch is git's, not this.
_BRING_IN = re.compile(
    r"\b(?:pull(?:s|ing|ed)?|bring(?:s|ing)?|brought)\s+in\b"
    r"(?!\s+(?:the\s+)?(?:latest|upstream|changes?|main|master|commits?|branch)\b)"
    r"|\b(?:install|adopt)(?:s|ed|ing)?\s+(?:the\s+|a\s+)?(?=[`@\w])"
    r"|\bdepend(?:s|ing)?\s+on\b",
    re.IGNORECASE,
)
#: Verbs of adding or using, whose object decides.
_ADD = re.compile(
    r"\b(?:add(?:s|ing)?|use|using|introduce|switch\s+to|swap\s+(?:\w+\s+){1,2}for"
    r"|replace\s+(?:\w+\s+){1,2}with)\b",
    re.IGNORECASE,
)
#: What a package is called; not a folder ("packages/core") or a compound ("package-lock").
_PACKAGE = re.compile(
    r"\b(?:packages?|librar(?:y|ies)|libs?|dependenc(?:y|ies)|frameworks?|crates?|sdks?)\b"
    r"(?![/.-]\w)",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"[,;:.?!]\s+|\s+(?:and|then|so|but)\s+", re.IGNORECASE)


def adds_dependency(task: str) -> bool:
    """Does ``task`` ask to bring a third-party package in (as read from its grammar)?"""
    if _BRING_IN.search(task):
        return True
    for clause in _CLAUSES.split(task):
        verb = _ADD.search(clause)
        if verb is None:
            continue
        # the object: the next few words after the verb ("use the marked package",
        # "add zod as a dependency", "add a small JS modal library")
        if _PACKAGE.search(" ".join(clause[verb.end() :].split()[:6])):
            return True
    return False
