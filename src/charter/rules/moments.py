"""Rules at the moment they apply: the version-control step a shell command takes, and
the first source file the agent reads or changes.

Process rules (commit message style, what never goes into a commit, never pushing to
``main``, what a pull request must say) apply to every task, yet a prompt rarely names
the step they govern: "fix the sorting of the latency column" does not say "commit".
With managed rules Claude Code no longer loads the whole rule file, and the always-loaded
constitution holds only rules under always / never headings, so these rules reach the
agent only when a prompt happens to retrieve them. Putting them in the constitution
costs every task's budget (measured in docs/benchmarks.md, "How much of the always-rules
the core holds"); handing them over when the agent is about to take the step costs
nothing until then.

A step is read from the parsed command (the guardrails' shell reader), not from its
text: ``git commit``, ``git push``, ``git merge``, ``git rebase``, ``git tag`` and
``gh pr create|merge``. The rules handed over are those that name the step (the step's
word stemmed, so "commit" finds "committing" and "pre-commit"; a pull request is also
"PR"), not yet in the conversation, in their files' order, within
``rules.step_rules_max_tokens``. The table of steps is the version-control vocabulary
every project shares, not tuned to any rule file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from charter.rules.model import Rule

#: git subcommands that are a step of a team's process → the words rules name it by
_GIT_STEPS: dict[str, tuple[str, ...]] = {
    "commit": ("commit",),
    "push": ("push",),
    "merge": ("merge",),
    "rebase": ("rebase",),
    "tag": ("tag", "release"),
}
#: ``gh pr create`` / ``gh pr merge``
_PR_WORDS = ("pr", "pull request")
_PR_STEPS = frozenset(["create", "merge"])
#: git's options before the subcommand that take a value (``git -C dir commit``)
_GIT_VALUE_OPTIONS = frozenset(["-C", "-c", "--git-dir", "--work-tree", "--namespace"])


def _program(word: str | None) -> str:
    return (word or "").rsplit("/", 1)[-1]


def steps_of(commands: Iterable[Sequence[str | None]]) -> list[tuple[str, tuple[str, ...]]]:
    """The process steps a shell command takes, each as (name, words rules use for it),
    in the command's order, each once."""
    found: dict[str, tuple[str, ...]] = {}
    for argv in commands:
        if not argv:
            continue
        program = _program(argv[0])
        args = list(argv[1:])
        if program == "git":
            i = 0
            while i < len(args) and (args[i] or "").startswith("-"):
                i += 2 if args[i] in _GIT_VALUE_OPTIONS else 1
            sub = args[i] if i < len(args) else None
            if sub in _GIT_STEPS:
                found.setdefault(f"git {sub}", _GIT_STEPS[sub])
        elif program == "gh" and len(args) >= 2 and args[0] == "pr" and args[1] in _PR_STEPS:
            found.setdefault(f"gh pr {args[1]}", _PR_WORDS)
    return list(found.items())


def _names_step(text: str, words: tuple[str, ...]) -> bool:
    """Whether a rule names a step: one of its stems is the step word's (``committing``,
    ``pre-commit``), or it holds the step's phrase (``pull request``)."""
    from charter.rules.lexical import tokenize

    lowered = f" {' '.join(text.lower().split())} "
    stems = set(tokenize(text))
    # an acronym's plural (``PRs``) is not stemmed to the acronym
    stems |= {t[:-1] for t in stems if t.endswith("s") and len(t) <= 4}
    for word in words:
        if " " in word:
            if f" {word}" in lowered:
                return True
        elif set(tokenize(word)) & stems:
            return True
    return False


def rules_for_steps(
    rules: Iterable[Rule], steps: list[tuple[str, tuple[str, ...]]], pinned: set[str]
) -> list[Rule]:
    """The unpinned rules that name one of ``steps``, in their files' order."""
    words = tuple(w for _, ws in steps for w in ws)
    matched = [r for r in rules if r.id not in pinned and _names_step(r.text, words)]
    matched.sort(key=lambda r: (r.source.path, r.source.line_start, r.source.line_end, r.id))
    return matched


def step_rules(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
    """PreToolUse of a shell command that commits, pushes, merges, rebases, tags or opens
    a pull request: the rules naming that step not yet in the conversation."""
    settings = state.project.settings.rules
    if settings.step_rules_max_tokens <= 0:
        return None
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if payload.get("tool_name") != "Bash" or not isinstance(command, str):
        return None
    if payload.get("charter_agent"):  # Codex, Cursor, Gemini: their answer drops context
        return None
    if not any(p in command for p in ("git", "gh")):  # the parse costs a tree-sitter load
        return None
    from charter.session.shell import analyse

    cwd = str(payload.get("cwd") or state.root)
    home = os.path.expanduser("~")
    steps = steps_of(argv for argv, _ in analyse(command, cwd, home, check_dirs=False).commands)
    if not steps:
        return None
    from charter.rules.hooks import hand_over, rules_at_hand

    found = rules_at_hand(state)
    if found is None:
        return None
    named = ", ".join(f"`{name}`" for name, _ in steps)
    return hand_over(
        state,
        payload,
        rules_for_steps(found.rules, steps, found.pinned),
        found,
        title=f"# Project rules for this {named} (Charter; rules that name the step)",
        budget=settings.step_rules_max_tokens,
        more="name this step",
    )


#: documents, plain text and rule files: reading one is not yet working on the code
_NOT_CODE = frozenset([".md", ".mdx", ".mdc", ".markdown", ".rst", ".txt", ".adoc", ".org"])
#: the moment's mark in the injected-once store: once per conversation
CODE_MOMENT = "~moment:code"


def is_source(rel: str) -> bool:
    """Whether a project path is a file the agent works on as code or configuration."""
    name = rel.rsplit("/", 1)[-1].lower()
    suffix = name[name.rfind(".") :] if "." in name[1:] else ""
    return suffix not in _NOT_CODE


def code_rules(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
    """PostToolUse of the first file tool on a source file in a conversation: the rules
    most likely to apply to every change (:mod:`charter.rules.general`), best first,
    within ``rules.code_rules_max_tokens``, once until the next compaction."""
    settings = state.project.settings.rules
    if settings.code_rules_max_tokens <= 0:
        return None
    from charter.rules.hooks import hand_over, rules_at_hand, touched_files

    if not any(is_source(rel) for rel in touched_files(payload, state.root)):
        return None
    found = rules_at_hand(state)
    if found is None or not found.general:
        return None
    from charter.rules.general import ranked

    chosen = ranked(found.rules, found.general, found.pinned, settings.code_rules_min_score)
    return hand_over(
        state,
        payload,
        chosen,
        found,
        title="# Project rules for every change (Charter; the rules most likely to apply "
        "to all code, given once)",
        budget=settings.code_rules_max_tokens,
        more="apply to every change",
        ranked=True,
        once=CODE_MOMENT,
    )
