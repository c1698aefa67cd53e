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
text: ``git commit``, ``git push``, ``git merge``, ``git rebase``, ``git tag``,
``gh pr create|merge`` and ``gh release create``. The rules handed over are those that
name the step (the step's word stemmed, so "commit" finds "committing" and "pre-commit";
a pull request is also "PR"), not yet in the conversation, in their files' order, within
``rules.step_rules_max_tokens``. The table of steps is the version-control vocabulary
every project shares, not tuned to any rule file.

A rule names a step in its own words or under a heading that does ("Commit Messages"
over a template that never says "commit"), and in the step's version-control sense. The
step words have other senses rule files use as often: a database transaction commits
("schedule the task after the transaction commits", `on_commit`), a team pushes back or
pushes a framework to its limits, Kustomize does a strategic merge, Helm has releases,
dbt models have tags. So the words are read in prose (not inside code, where
`on_commit`, `HelmRelease` or `--release` name other things; a `git …` or `gh …`
command in code is read), a sentence about a transaction (or a consumer's offsets) does
not name a commit, and
push, merge, tag and release name the step only in a rule about version control (git,
a branch, main, a commit, a pull request, GitHub, …) or when they say when something is
done ("before you push", "after merging").

The first source file the agent reads or changes in a conversation brings the rules most
likely to apply to every change (formatting, naming, type safety, the package manager),
as scored at compile time by :mod:`charter.rules.general`, best first, once until the
next compaction.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.filetypes import TYPESET

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
#: ``gh release create`` tags a commit and publishes it, as ``git tag`` and a push do:
#: the rules that govern releasing ("stop for approval before you release") are its
_RELEASE_WORDS = _GIT_STEPS["tag"]
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
        elif program == "gh" and args[:2] == ["release", "create"]:
            found.setdefault("gh release create", _RELEASE_WORDS)
    return list(found.items())


#: Step words with other senses as common in rule files (push back, a strategic merge, a
#: model's tags, a Helm release): they name the step only in a rule about version control
#: or when they say when something is done.
_AMBIGUOUS = frozenset(["push", "merge", "tag", "release"])
#: Words of version control that make an ambiguous step word's sense the step's.
_VCS_WORDS = frozenset(
    [
        "git", "gh", "github", "gitlab", "branch", "branches", "remote", "origin", "upstream",
        "commit", "commits", "committed", "committing", "rebase", "pr", "prs",
        "pull request", "pull requests", "changelog",
    ]
)  # fmt: skip
#: Branch names count in code (`main`): in prose they are adjectives ("the main loop").
_BRANCHES = frozenset(["main", "master", "develop", "trunk"])
#: A sentence about a database transaction or a message consumer's offsets (Kafka's
#: "manual offset commit"): its "commit" is theirs, not git's.
_TRANSACTION = re.compile(
    r"\b(?:transactions?|transactional|rollbacks?|savepoints?|offsets?)\b", re.I
)
_CODE_SPAN = re.compile(r"`([^`]*)`")
#: A program named for a step (``pre-commit``) names the step when a command runs it.
_STEP_PARTS = frozenset(["commit", "push", "merge", "rebase"])
_VCS_COMMAND = re.compile(r"^\s*(?:git|gh)\s")
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")
_TEMPORAL = r"\b(?:before|after|when|until|once|prior to)\s+(?:(?:you|we|they|it)\s+)?"


def _prose(text: str) -> str:
    """``text`` with its code left out (``on_commit``, ``HelmRelease``, ``--release``
    name other things), except a command of a version-control program (``git push``,
    ``gh pr create``, ``pre-commit run``), which names its step."""

    def code(m: re.Match[str]) -> str:
        span = m.group(1)
        words = span.split()
        if len(words) >= 2 and (
            _VCS_COMMAND.match(span) or any(p in _STEP_PARTS for p in words[0].split("-"))
        ):
            return span
        return " "

    return _OPTION.sub(" ", _CODE_SPAN.sub(code, text))


def _words(text: str) -> set[str]:
    """Lowercased words and two-word phrases of ``text`` (an acronym's plural, ``PRs``,
    also as the acronym)."""
    plain = re.findall(r"[a-z]+", text.lower())
    out = set(plain) | {f"{a} {b}" for a, b in pairwise(plain)}
    return out | {t[:-1] for t in out if t.endswith("s") and len(t) <= 4}  # PRs


def _says(sentence: str, word: str) -> bool:
    """Whether ``sentence`` uses the step word ``word`` (any inflection, a hyphenated
    compound such as ``pre-commit``, or the phrase ``pull request``)."""
    from charter.rules.lexical import tokenize

    if " " in word:
        return f" {word}" in f" {' '.join(sentence.lower().split())} "
    stems = set(tokenize(sentence))
    stems |= {t[:-1] for t in stems if t.endswith("s") and len(t) <= 4}  # PRs
    return bool(set(tokenize(word)) & stems)


def _in_sense(prose: str, context: set[str], word: str) -> bool:
    """Whether ``prose`` uses ``word`` in its version-control sense (see the module)."""
    sentences = [s for s in _SENTENCE.split(prose) if _says(s, word)]
    if word == "commit":
        return any(not _TRANSACTION.search(s) for s in sentences)
    if not sentences:
        return False
    if word not in _AMBIGUOUS:
        return True
    if context & (_VCS_WORDS - {word}):
        return True
    stem = re.escape(word[:-1] if word.endswith("e") else word)
    return any(re.search(_TEMPORAL + stem + r"\w*\b", s, re.I) for s in sentences)


#: "remote" right before an ambiguous step word modifies it ("remote push notifications",
#: "the local-push and remote-push flows"): no git remote, so no context of version control.
_REMOTE_MODIFIER = re.compile(r"\bremote[\s-]+(?=(?:push|merge|tag|release)\w*\b)", re.I)


def _unmodified(prose: str) -> str:
    """``prose`` without a "remote" that only modifies the step word after it."""
    return _REMOTE_MODIFIER.sub(" ", prose)


def _names_step(rule: Rule, words: tuple[str, ...]) -> bool:
    """Whether a rule names one of a step's words in its version-control sense, in its
    own text or in the heading it sits under."""
    heading = rule.source.section.rsplit(" > ", 1)[-1] if rule.source.section else ""
    prose = _prose(rule.text)
    # the rule's prose, and a branch it names in code (`main`); not identifiers
    # (`GitRepository` is no git)
    branches = {w for w in _CODE_SPAN.findall(rule.text) if _is_branch(w)}
    context = _words(_unmodified(prose)) | _words(_unmodified(_prose(heading)))
    context |= {"branch"} if branches else set()
    return any(
        _in_sense(prose, context, word)
        or (heading and _in_sense(_prose(heading), context, word) and not _about_other(rule, word))
        for word in words
    )


#: What may stand before a branch name in a ref: ``origin/main``, ``refs/heads/main``.
_REF_PARTS = frozenset(["origin", "upstream", "refs", "heads", "remotes"])


def _is_branch(span: str) -> bool:
    """A code span naming a branch: ``main``, or a ref to it (``origin/main``)."""
    *lead, last = span.strip().split("/")
    return last in _BRANCHES and all(p in _REF_PARTS for p in lead)


def _about_other(rule: Rule, word: str) -> bool:
    """A rule under a step's heading that uses the word in the other sense itself (a
    "…after commit" heading over "… after the transaction commits")."""
    return word == "commit" and bool(_TRANSACTION.search(rule.text))


def rules_for_steps(
    rules: Iterable[Rule], steps: list[tuple[str, tuple[str, ...]]], pinned: set[str]
) -> list[Rule]:
    """The unpinned rules that name one of ``steps``, in their files' order."""
    words = tuple(w for _, ws in steps for w in ws)
    matched = [r for r in rules if r.id not in pinned and _names_step(r, words)]
    matched.sort(key=lambda r: (r.source.path, r.source.line_start, r.source.line_end, r.id))
    return matched


def changed_files(root: Path) -> list[str] | None:
    """The project-relative files git sees changed (staged, unstaged or untracked): what
    a commit or push now would carry. None when git cannot tell.

    ``--no-optional-locks``: a plain ``git status`` may refresh the index and take its
    lock, and the agent's own git command (or another hook's) must never find
    ``index.lock`` held by a hook."""
    try:
        done = subprocess.run(
            [
                "git",
                "--no-optional-locks",
                "-C",
                str(root),
                "status",
                "--porcelain=v1",
                "-z",
                "-uall",
            ],
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    out: list[str] = []
    entries = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        out.append(entry[3:])
        if entry[0] in "RC":  # a rename or copy: its source path follows
            i += 1
    return out


def in_scope_of_step(rules: list[Rule], root: Path, cwd: str) -> list[Rule]:
    """Of ``rules``, those that hold where the step is taken: a rule scoped to part of the
    tree (a nested ``AGENTS.md``) only when the command runs there or git has changes
    there ("review the regenerated `testdata/` diff before committing" of the storage
    package is no rule of a commit that touches only the docs)."""
    from charter.rules.scopes import scope_matches

    if not any(r.scopes for r in rules):
        return rules
    here: list[str] = []
    try:
        rel = Path(cwd).resolve().relative_to(root.resolve()).as_posix()
    except (OSError, ValueError):
        rel = ""
    if rel not in ("", "."):
        here.append(rel.rstrip("/") + "/")
    changed = changed_files(root)
    if changed is None:
        return rules  # unknown: as before, every rule that names the step
    return [r for r in rules if not r.scopes or scope_matches(r.scopes, here + changed)]


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
    # a file loaded only when the user asks for it by name (a Cline workflow, Kiro's
    # `inclusion: manual`) is not in the conversation when the agent commits on its own
    held = [r for r in found.rules if r.source.path not in found.asked_for]
    chosen = in_scope_of_step(rules_for_steps(held, steps, found.pinned), state.root, cwd)
    return hand_over(
        state,
        payload,
        chosen,
        found,
        title=f"# Project rules for this {named} (Charter; rules that name the step)",
        budget=settings.step_rules_max_tokens,
        more="name this step",
        # whole: "Copy `a.json` to `b.json` before running (do not commit this copy)" cut
        # to the prompt's brief lost the words that make it a rule of the commit
        whole=True,
    )


#: documents, plain text and rule files: reading one is not yet working on the code
_NOT_CODE = frozenset(
    [".md", ".mdx", ".mdc", ".markdown", ".rst", ".txt", ".adoc", ".org", *TYPESET]
)
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
    from charter.rules.hooks import drops_tool_context, hand_over, rules_at_hand, touched_files

    settings = state.project.settings.rules
    if settings.code_rules_max_tokens <= 0 or drops_tool_context(payload):
        return None

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
