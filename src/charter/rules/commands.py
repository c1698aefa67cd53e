"""Shell commands a rule forbids outright, read from the rule's own words.

"Add dependencies with `uv add`, never with `pip install`" is the kind of rule agents
break most visibly, and the only moment it can be held is before the command runs: a
rule injected as context reaches the model after it has already chosen the call. The
PreToolUse guardrails (``[session.guardrails] rule_commands``) therefore deny a command
that a rule forbids, citing the rule.

What counts as forbidden is read by :mod:`charter.rules.negation`; a command is a code
span of at least two words whose first names a program (``pip install``, ``dune clean``,
``vendor/bin/pint --test``): one word (`eval`, `any`) is as often a keyword of the
project's language. The sentence must set no condition (against, in, on, when, unless,
for, without, …): "never run `terraform destroy` against production" forbids a context,
not the command, so it stays advice. A rule scoped to a folder (a nested ``AGENTS.md``)
only applies to commands run in that folder.

Git's acts read from a rule's words (committing a path, git's writes as a class, what a
commit message or pull request must not hold) are in :mod:`charter.rules.git_readings`,
the agent's tools a rule forbids in :mod:`charter.rules.agent_tools`, and the words both
share with this module in :mod:`charter.rules.command_reading`.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from charter.package_runners import FOLDER_OPTIONS, binary_at, folder_option, without_folder
from charter.rules.agent_tools import TOOL_KIND, _mcp_tools
from charter.rules.command_reading import (
    _CONDITIONS,
    _NEGATION,
    _OPENING,
    _PROHIBITS,
    COMMAND_READING,
    _program,
    _prohibition_parts,
)
from charter.rules.consent import consent_heading, consent_shadow
from charter.rules.edits import GLOB
from charter.rules.git_readings import (
    COMMIT_PATH_KIND,
    GIT_WRITE_KIND,
    _commit_paths,
    _commit_text,
    _git_write_class,
    _untracked_paths,
    co_authored,
    git_writes,
    message_holds,
    stages,
)
from charter.rules.model import Rule
from charter.rules.negation import (
    _ADDRESSEES,
    SPAN,
    Prohibition,
    clauses,
    collect,
    distributed,
    forbidden_options,
    forbidden_spans,
    negated,
)

_PROGRAM = re.compile(r"^(?:\.{0,2}/)?(?:[\w.-]+/)*[a-z][a-z0-9._+-]*$")
#: Nouns that name a program (generic English): "the `npx` command", a "binaries"
#: heading; right after a one-word span, or anywhere in its section's headings.
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;:!?)*_]|\s[-–—]\s|(?:\bor\b|\band\b|/)\s*`)")
_PROGRAM_NOUN = re.compile(
    r"\s*(?:command|commands|binary|binaries|executable|executables|cli|clis)\b|"
    r".*\b(?:commands|binaries|executables|cli|package\s+managers?)\b",
    re.IGNORECASE,
)
#: A script named by its file: one that runs as a program by its extension
#: (`deploy.sh`, `Build.bat`, `setup.ps1`) or by a path from here (`./gradlew`,
#: `../bin/api`). No keyword of a language looks like either.
_SCRIPT = re.compile(
    r"^(?:\.{0,2}/)?(?:[\w.-]+/)*[\w.-]+\.(?:sh|bash|zsh|bat|cmd|ps1|exe)$|"
    r"^\.{1,2}/(?:[\w.-]+/)*[\w.-]*\w[\w.-]*$",
    re.IGNORECASE,
)
#: "directly" after a script adds no condition ("never run `./bin/api` directly").
_DIRECTLY = re.compile(r"\s+directly\b", re.IGNORECASE)
#: A preference said to the agent, up to the span it turns down: "Use `pnpm`, not
#: `npm`", "**Always use `bun` instead of `npm` or `yarn`**" (the ``x`` group holds the
#: spans chosen, "`bun` / `bunx`"). Only the imperative counts: "you can use `yarn`
#: instead of `npm`", "we recommend using …" and "prefer `X` over `Y`" leave it open.
_PREFERENCE = re.compile(
    r"^[\W_]*(?:(?:always|only)\s+)?use\s+(?P<x>`[^`]+`(?:\s*(?:/|or)\s*`[^`]+`)*)[*_]*"
    r"(?:\s+commands?)?\s*,?"
    r"\s+(?:not|never|instead\s+of|rather\s+than|over)\s+(?:[*_]*`[^`]+`[*_]*\s*(?:,|or|/)\s*)*"
    r"[*_]*$",
    re.IGNORECASE,
)
#: Where a preference's sentence begins: after a sentence's end, a colon, a dash or a
#: bold label ("This is a **pnpm** repo – use `pnpm`, not `npm`").
_PREFERENCE_START = re.compile(r"(?:[.;:!?](?:\*\*)?\s+|\s[-–—]\s|^)")
#: A label that opens a rule ("Package manager: `pnpm` (never `npm` or `yarn`)"): a
#: heading of its own for the spans after it.
_RULE_LABEL = re.compile(r"^\W*([A-Za-z][\w ]{0,40}?)\W*:")
#: A slot for a package's name: a word that is not a path or a requirements file
#: (``pip install -r requirements.txt`` and ``npm install ./lib`` add no dependency).
PACKAGE_WORD = "<package>"
#: How each package manager adds a dependency (program, words): what a rule means by
#: "add a dependency" (generic: the package managers' own commands).
DEPENDENCY_ADDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("npm", ("install", PACKAGE_WORD)),
    ("npm", ("i", PACKAGE_WORD)),
    ("npm", ("add", PACKAGE_WORD)),
    ("yarn", ("add",)),
    ("pnpm", ("add",)),
    ("pnpm", ("install", PACKAGE_WORD)),
    ("pnpm", ("i", PACKAGE_WORD)),
    ("bun", ("add",)),
    ("bun", ("install", PACKAGE_WORD)),
    ("deno", ("add",)),
    ("pip", ("install", PACKAGE_WORD)),
    ("uv", ("add",)),
    ("uv", ("pip", "install", PACKAGE_WORD)),
    ("poetry", ("add",)),
    ("pdm", ("add",)),
    ("pipenv", ("install", PACKAGE_WORD)),
    ("conda", ("install", PACKAGE_WORD)),
    ("cargo", ("add",)),
    ("go", ("get", PACKAGE_WORD)),
    ("gem", ("install", PACKAGE_WORD)),
    ("bundle", ("add",)),
    ("composer", ("require",)),
)
#: A token that stands for something else (``<file>``, ``PACKAGE``, ``...``): the command
#: is read up to it.
_PLACEHOLDER = re.compile(r"[<>{}$|&()\[\]…]|^\.\.\.$|^-+$|^[A-Z][A-Z0-9_]+$")
#: A slot for any argument written right after a program: ``<bin>``, ``<args...>``, ``...``.
_ANY_ARGUMENT = re.compile(r"^(?:<[^<>\s]+>|\.\.\.|…)$")
#: The word a slot leaves in a command's words: any argument, which must be given.
ANY_WORD = "<any>"
#: A pipe between two commands: a span holding one is a pipeline, not one command.
_PIPES = frozenset({"|", "|&"})
#: A redirection or a list operator (``>``, ``2>&1``, ``&&``, ``;``): no argument slot.
_SHELL_OP = re.compile(r"^(?:\d*[<>]{1,2}(?:&\d*)?|&>{1,2}|&&?|\|\|?|;;?)$")
#: An assignment, comparison or arrow standing alone: code of a language, not a command
#: (`instance.count += 1; instance.save()`).
_OPERATOR = re.compile(r"^(?:[-+*/%&|^]|\*\*|//|<<|>>)?=$|^[!=]==?$|^=>$|^->$|^:=$")
#: A word of operator marks only (`++`, `|>`, `::`, `<-`): an infix operator of a
#: language (`list ++ [new]`), no argument a program is given; the shell's own operators
#: (``&&``, ``>>``), end of options (``--``) and the parent folder (``..``) aside.
_INFIX = re.compile(r"^(?!--$|\.\.\.?$)[-+*/%^=!<>~|&:.]{2,}$")
#: Reserved words of programming languages that name no command-line program: a span
#: starting with one is code (`not delivery_unchanged`, `as const`, `assert false`).
_CODE_KEYWORDS = frozenset(
    {
        "and", "as", "assert", "async", "await", "const", "def", "del", "elif", "fn",
        "func", "function", "impl", "instanceof", "lambda", "let", "mut", "nil", "not",
        "null", "or", "pub", "raise", "return", "struct", "throw", "typeof", "var",
        "yield",
    }
)  # fmt: skip


@dataclass(frozen=True)
class ForbiddenCommand(Prohibition):
    """One command a rule forbids: a program, the words that must follow it, its flags."""

    command: str  # the span as the rule wrote it
    program: str
    words: tuple[str, ...]
    flags: frozenset[str]
    scopes: tuple[str, ...] = ()
    #: "user" when the rule allows the command on the user's say-so ("unless the user
    #: asks", :mod:`charter.rules.consent`): the guardrail asks instead of denying
    consent: str = ""
    #: the branch a push must not go to ("never push directly to `main`"): the command
    #: is ``git push`` (with its flags) whose destination is that branch
    branch: str = ""
    #: a class of commands named in words, not one command: ``"build"`` for "never run
    #: build commands" (any command that builds, :func:`builds`)
    kind: str = ""
    #: a commit message trailer the rule forbids ("Never add Co-Authored-By lines"):
    #: ``"any"`` co-author, or ``"ai"`` one naming an AI assistant; the command is ``git
    #: commit`` with such a trailer in its message
    trailer: str = ""
    #: a phrase the rule keeps out of commit messages ("Never add "Generated with Claude
    #: Code" to commits"), lower-cased: ``git commit`` with a message holding it
    phrase: str = ""

    @property
    def shown(self) -> str:
        """How a listing names it: the command as code, a class in words."""
        if self.trailer:
            return "a commit message with a Co-Authored-By trailer" + (
                " naming an AI assistant" if self.trailer == "ai" else ""
            )
        if self.phrase:
            return f'a commit message holding "{self.phrase}"'
        if self.kind == GIT_WRITE_KIND:
            return "any git command that writes (`git commit`, `git stash`, …)"
        if self.kind == COMMIT_PATH_KIND:
            return f"committing `{self.command}` (`git add`, `git commit` of it)"
        if self.kind == TOOL_KIND:
            mcp = self.command.startswith("mcp__")
            return f"the {'MCP ' if mcp else ''}tool `{self.command}`"
        return (
            "any build command (`npm run build`, `./build.sh`, …)"
            if self.kind
            else (f"`{self.command}`")
        )

    def matches_tool(self, tool: str) -> bool:
        """Whether calling the agent's tool ``tool`` (``mcp__github__merge_pull_request``)
        is what this rule forbids: the MCP tool it names, or any of a server's."""
        if self.kind != TOOL_KIND:
            return self._host_act_tool(tool)
        if not self.command.startswith("mcp__"):
            return tool == self.command  # one of Claude Code's own tools
        pattern = self.command if self.command.count("__") >= 2 else f"{self.command}__*"
        return fnmatch.fnmatchcase(tool, pattern)

    def _host_act_tool(self, tool: str) -> bool:
        """Whether the MCP tool ``tool`` makes what a forbidden ``gh pr create`` or ``gh
        issue create`` makes: its name says creating a pull (or merge) request or an issue
        (``mcp__github__create_pull_request``, ``mcp__gitlab__create_merge_request``,
        ``mcp__github__create_issue``), as the rule forbids opening one however it is done."""
        if self.program != "gh" or self.trailer or self.phrase or self.scopes:
            return False
        if self.words not in (("pr", "create"), ("issue", "create")) or self.flags:
            return False
        if not tool.startswith("mcp__"):
            return False
        name = re.sub(r"([a-z])([A-Z])", r"\1_\2", tool.rsplit("__", 1)[-1]).lower()
        words = re.split(r"[_\W]+", name)
        if not words or words[0] not in ("create", "open", "new", "submit", "file"):
            return False
        thing = " ".join(words[1:])
        if self.words[0] == "pr":
            return thing in ("pull request", "pr", "merge request", "mr")
        return thing == "issue"

    def matches(
        self,
        argv: Sequence[str | None],
        cwd_rel: str | None = None,
        branch_of: Callable[[str | None], str | None] | None = None,
        pending: Callable[[], list[tuple[str, bool]]] | None = None,
    ) -> bool:
        """Whether running ``argv`` in ``cwd_rel`` (project-relative; None: unknown or
        outside) does what this rule forbids. ``branch_of(cwd_rel)`` is the branch checked
        out there (None: unknown), for a push that names no destination."""
        if not argv or argv[0] is None:
            return False
        if self.kind == BUILD_KIND:
            return _in_scope(self.scopes, cwd_rel) and builds(argv)
        if self.kind == GIT_WRITE_KIND:
            return _in_scope(self.scopes, cwd_rel) and git_writes(argv)
        if self.kind == TOOL_KIND:
            return False  # a tool of the agent's, not a command: see :meth:`matches_tool`
        if self.kind == COMMIT_PATH_KIND:
            return _in_scope(self.scopes, cwd_rel) and stages(argv, cwd_rel, self.command, pending)
        if self.trailer or self.phrase:
            if _program(argv[0]) != self.program or not _in_scope(self.scopes, cwd_rel):
                return False  # kept out of commits, not pull requests (or the reverse)
            if self.trailer:
                return co_authored(argv, self.trailer == "ai")
            return message_holds(argv, self.phrase)
        if self.branch and self.words == ("commit",):
            return self._commits_on_branch(argv, cwd_rel, branch_of)
        if self.branch:
            return self._pushes_to_branch(argv, cwd_rel, branch_of)
        if self.program and _program(argv[0]) != self.program:  # "": any program
            return False
        if not _in_scope(self.scopes, cwd_rel):
            return False
        # ``npm --prefix web publish`` is ``npm publish`` run in ``web`` (a rule may also
        # name the call with its folder: "never run `npm --prefix server run test:e2e`")
        moved = [argv[0], *without_folder(_program(argv[0] or ""), argv[1:])]
        if any(self._same_call(a, cwd_rel) for a in dict.fromkeys((tuple(moved), tuple(argv)))):
            return True
        # "never run `npm --prefix server run test:e2e`": that call run in ``server``,
        # however it gets there (``cd server && npm run test:e2e``, the option after
        # the script); the call was moved there when it was read (charter.session.shell)
        own = self._own_folder()
        return own is not None and _here(cwd_rel) == own[0] and own[1]._same_call(moved, cwd_rel)

    def _own_folder(self) -> tuple[str, ForbiddenCommand] | None:
        """The folder this rule's command names with its package manager's folder option
        (``npm --prefix server run test:e2e``: ``server``), and the rule without it; None
        when it names none, or the rule is scoped (the folder is then the scope's)."""
        if self.scopes or self.kind or self.branch or self.program not in FOLDER_OPTIONS:
            return None
        try:
            tokens = shlex.split(self.command)
        except ValueError:
            return None
        found = folder_option(self.program, tokens[1:])
        if found is None or found[1] is None or _program(tokens[0]) != self.program:
            return None
        folder = posixpath.normpath(found[1]).strip("/")
        if folder.startswith("..") or GLOB.search(folder):
            return None
        words = self.words
        if not tokens[1 + found[0]].startswith("-"):  # ``--prefix=server`` is one flag
            if found[1] not in words:
                return None
            at = words.index(found[1])
            words = words[:at] + words[at + 1 :]
        flags = self.flags - FOLDER_OPTIONS[self.program]
        return ("" if folder == "." else folder), replace(self, words=words, flags=flags)

    def _same_call(self, argv: Sequence[str | None], cwd_rel: str | None) -> bool:
        """Whether ``argv`` starts with this rule's words and carries its flags."""
        words = [a for a in argv[1:] if a is None or not a.startswith("-")]
        if self.program == "gh" and words[:2] in (["pr", "new"], ["issue", "new"]):
            words[1] = "create"  # the GitHub CLI's own alias of `gh pr create`, `gh issue create`
        if len(words) < len(self.words) or not all(
            _same_word(w, want, cwd_rel) for w, want in zip(words, self.words, strict=False)
        ):
            return False
        given = [a for a in argv[1:] if a is not None]
        flags = _flag_set(given) | ({"--"} if "--" in given else set())
        if _program(argv[0] or "") == "git" and words and words[0] in _GIT_SHORT:
            flags |= _git_short_long(str(words[0]), given)
        return self.flags <= flags

    def _git_words(
        self, argv: Sequence[str | None], cwd_rel: str | None, verb: str
    ) -> list[str | None] | None:
        """The words of a ``git VERB`` run where this rule holds (None: another command)."""
        if _program(argv[0] or "") != "git" or not _in_scope(self.scopes, cwd_rel):
            return None
        words = [a for a in argv[1:] if a is None or not a.startswith("-")]
        return words if words and words[0] == verb else None

    def _commits_on_branch(
        self,
        argv: Sequence[str | None],
        cwd_rel: str | None,
        branch_of: Callable[[str | None], str | None] | None,
    ) -> bool:
        """A ``git commit`` made while this rule's branch is checked out ("never commit
        directly to `main`"): a commit lands on the branch checked out."""
        if self._git_words(argv, cwd_rel, "commit") is None:
            return False
        return branch_of is not None and branch_of(cwd_rel) == self.branch

    def _pushes_to_branch(
        self,
        argv: Sequence[str | None],
        cwd_rel: str | None,
        branch_of: Callable[[str | None], str | None] | None,
    ) -> bool:
        words = self._git_words(argv, cwd_rel, "push")
        if words is None:
            return False
        given = [a for a in argv[1:] if a is not None]
        if not self.flags <= _flag_set(given):
            return False
        refspecs = words[2:]  # after the remote
        if any(w is None for w in refspecs):
            return False  # a computed refspec: where it goes is unknown
        if any(a in ("--all", "--mirror", "--branches") for a in given):
            return True  # every branch, this one too
        current = branch_of(cwd_rel) if branch_of is not None else None
        if not refspecs:  # the branch checked out, to its upstream of the same name
            return current == self.branch
        return any(_push_destination(str(r), current) == self.branch for r in refspecs)


def _push_destination(refspec: str, current: str | None) -> str | None:
    """The branch a refspec pushes to: ``main``, ``+main``, ``HEAD:main``,
    ``feature:refs/heads/main`` all go to ``main``; ``HEAD`` to the branch checked out."""
    dst = refspec.lstrip("+").rsplit(":", 1)[-1]
    dst = dst.removeprefix("refs/heads/")
    return current if dst == "HEAD" else dst


def current_branch(directory: Path) -> str | None:
    """The branch checked out in the git work tree holding ``directory`` (None: none, a
    detached HEAD, or unreadable), from its ``HEAD`` file: no git process per call."""
    for folder in (directory, *directory.parents):
        dot = folder / ".git"
        try:
            if dot.is_file():
                line = dot.read_text(encoding="utf-8", errors="replace").strip()
                if not line.startswith("gitdir:"):
                    return None
                git_dir = (folder / line[len("gitdir:") :].strip()).resolve()
            elif dot.is_dir():
                git_dir = dot
            else:
                continue
            head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        return (
            head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None
        )
    return None


def _same_word(word: str | None, want: str, cwd_rel: str | None = None) -> bool:
    """A task runner's namespaced task is its namespace's: a rule against `rails
    credentials` holds for ``rails credentials:edit`` (rake, artisan, mix, npm scripts
    name tasks ``namespace:task``); one against `pnpm test:e2e` not for ``pnpm test``.
    A path the rule names from the root is the same path given from where the command
    runs (`touch tmp/restart.txt` is ``touch ../tmp/restart.txt`` run in ``app/``)."""
    if word is None:
        return want in (ANY_WORD, PACKAGE_WORD)  # a computed argument is still one
    if want == PACKAGE_WORD:
        return not (
            word.startswith((".", "/", "~"))
            or word.endswith((".txt", ".toml", ".cfg", ".lock", ".json", ".in"))
        )
    if want == ANY_WORD or word == want or word.startswith(want + ":"):
        return True
    if len(want) > 1 and want.endswith("*") and fnmatch.fnmatchcase(word, want):
        return True  # `task scaffold:*`: every task of the namespace
    if "/" not in want or cwd_rel is None or word.startswith("/"):
        return False
    here = "" if cwd_rel.strip("/") in ("", ".") else cwd_rel.strip("/")
    return posixpath.normpath(posixpath.join(here, word)) == posixpath.normpath(want)


def _here(cwd_rel: str | None) -> str | None:
    """A project-relative folder as folders are compared: "" for the root."""
    if cwd_rel is None:
        return None
    here = cwd_rel.strip("/")
    return "" if here == "." else here


def _in_scope(scopes: Sequence[str], cwd_rel: str | None) -> bool:
    """A command runs in a directory, not on a file. Folder scopes (``backend/**``: a
    nested AGENTS.md, ``web/**/*``, or globs that each name a folder) hold when the
    command runs under one of the folders; a rule whose globs name files (``*.py``, ``src/**/*.ts``,
    ``package.json``) is about kinds of files, not places, and holds anywhere."""
    # `kitten-lynx/**/*` (Copilot's own `applyTo` example) is every file of the folder,
    # as `kitten-lynx/**` is: a place, not a kind of file
    whole = [s.removesuffix("/*") if s.endswith("/**/*") else s for s in scopes]
    folders = [
        s.removeprefix("./").lstrip("/")[:-3].rstrip("/")
        for s in whole
        if s.endswith("/**") and not GLOB.search(s[:-3])
    ]
    if not folders or len(folders) < len(scopes):  # a set of files, not a folder
        return True
    if cwd_rel is None:
        return False
    here = cwd_rel.strip("/")
    here = "" if here == "." else here
    return any(here == f or here.startswith(f + "/") for f in folders if f)


#: git's one-letter spellings of long options a rule may forbid, per subcommand, and the
#: letters that take a value there (``-m msg``, ``-mmsg``: the letters after one in a
#: bundle are its value, not options, so ``-mnew`` is no ``-n``). git's own CLI: ``-n`` is
#: ``--no-verify`` for ``commit`` but a dry run for ``push``.
_GIT_SHORT = {
    "commit": ({"n": "--no-verify"}, frozenset("mFcCt")),
    "push": ({"f": "--force"}, frozenset("o")),
}


def _git_short_long(verb: str, args: Sequence[str]) -> set[str]:
    """The long options ``git VERB``'s arguments carry spelled as one letter
    (:data:`_GIT_SHORT`): alone or in a bundle (``-nm msg``), not inside a value
    (``-m -n``, ``-mnew``)."""
    letters, takes_value = _GIT_SHORT.get(verb, ({}, frozenset()))
    found: set[str] = set()
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--":
            break
        if not arg.startswith("-") or arg.startswith("--"):
            continue
        for i, letter in enumerate(arg[1:]):
            if letter in letters:
                found.add(letters[letter])
            if letter in takes_value:
                skip = i == len(arg) - 2  # the value is the next argument
                break
    return found


def _flag_set(args: Iterable[str]) -> frozenset[str]:
    """Flags as single options: ``-rf`` is ``-r`` and ``-f``; ``--x=1`` is ``--x``."""
    out: set[str] = set()
    for a in args:
        if a == "--":
            break
        if a.startswith("--"):
            out.add(a.split("=", 1)[0])
        elif a.startswith("-") and len(a) > 1:
            out.update(f"-{c}" for c in a[1:] if c.isalnum())
    return frozenset(out)


#: Who does the act, said after it: the agent ("yourself", "on their own"), which leaves
#: the act bare (generic English).
_BY_AGENT_WORDS = r"(?:yourself|themselves|on\s+(?:your|their)\s+own|automatically)"
#: What may follow an option forbidden alone: nothing, another entry, another act ("or
#: publish …"), a reason or a purpose ("to bypass hooks"), who uses it when that is the
#: agent ("on their own"). A word that qualifies the use ("broadly", "by default") makes
#: it a matter of degree the hook cannot judge.
_OPTION_TAIL = re.compile(
    r"^[*_]*\s*(?:$|[,;:()—–]|\s-\s|(?:or|and|nor|to|flags?|options?|switch(?:es)?)\b|"
    rf"{_BY_AGENT_WORDS}\W*$|"
    r"[.!?](?:\s|$))",
    re.IGNORECASE,
)


def _option_alone(rule: Rule, span: str) -> bool:
    """Whether the option span ends what its sentence forbids (see :data:`_OPTION_TAIL`)."""
    at = rule.text.find(f"`{span}`")
    return at >= 0 and _OPTION_TAIL.match(rule.text[at + len(span) + 2 :]) is not None


#: Options an agent's rule file means for one program whatever else the rule names:
#: ``--no-verify`` skips git's hooks (``git commit``, ``git push``, ``git merge``); on
#: ``cargo publish`` or ``npm version`` it is another thing, which such a rule is not about.
_OPTION_OWNERS = {"--no-verify": "git"}


def option_owner(tokens: Iterable[str]) -> str:
    """The program whose options ``tokens`` all are (:data:`_OPTION_OWNERS`), or ""."""
    owners = {_OPTION_OWNERS.get(t.partition("=")[0], "") for t in tokens}
    return owners.pop() if len(owners) == 1 else ""


def _long_options(span: str) -> tuple[str, tuple[str, ...], frozenset[str]] | None:
    """A span of long options only ("never use `--no-verify`"): any program's command
    that carries them (the program that owns them, :data:`_OPTION_OWNERS`). One-letter
    options (`-i`, `-f`) mean something else to every program (``grep -i``, ``sed -i``),
    so a span holding one is not read this way."""
    try:
        tokens = shlex.split(span)
    except ValueError:
        return None
    if not tokens or not all(re.fullmatch(r"--[a-z0-9][a-z0-9-]+", t) for t in tokens):
        return None
    return option_owner(tokens), (), _flag_set(tokens)


def parse_command(span: str) -> tuple[str, tuple[str, ...], frozenset[str]] | None:
    """(program, words, flags) when ``span`` reads as a command of two or more words."""
    try:
        tokens = shlex.split(span)
    except ValueError:
        return None
    if tokens and (
        tokens[0] in _CODE_KEYWORDS
        or any(_OPERATOR.match(t) or (_INFIX.match(t) and not _SHELL_OP.match(t)) for t in tokens)
    ):
        return None
    if any(t in _PIPES for t in tokens):
        # `git show SHA | sed -n '80,200p'`: what is forbidden is the pipeline, and its
        # first command alone (`git show SHA > .tmp/patch`) may be the very advice
        return None
    kept: list[str] = []
    slot: tuple[str, ...] = ()
    for token in tokens:
        if token != "--" and (
            _PLACEHOLDER.search(token) or token.endswith((":", ";", ",")) or "=" in token[:1]
        ):
            # a slot (`<package>`, `...`, `$DIR`) stands for an argument the command is
            # given: `npm install <package>` forbids adding a package, not `npm install`
            slot = (ANY_WORD,) if _PLACEHOLDER.search(token) and not _SHELL_OP.match(token) else ()
            break
        kept.append(token)
    if len(kept) == 1 and len(tokens) > 1 and _ANY_ARGUMENT.match(tokens[1]):
        # `npx <bin>`: the program with whatever it is given, so it is the program that
        # is named (one word alone may be a keyword of the code; a slot after it is not)
        return (_program(kept[0]), slot, frozenset()) if _PROGRAM.match(kept[0]) else None
    if len(kept) < 2 or not _PROGRAM.match(kept[0]):
        return None
    words = tuple(t for t in kept[1:] if not t.startswith("-")) + slot
    flags = _flag_set(kept[1:]) | ({"--"} if "--" in kept else set())
    return _program(kept[0]), words, frozenset(flags)


#: What launches a package's binary (charter.session.shell runs the binary it names as
#: well as the launcher): with no subcommand, and with one (``npm exec``, ``pnpm dlx``).
_LAUNCHERS = frozenset({"npx", "pnpx", "bunx"})
_LAUNCHING = {"npm": ("exec", "x"), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "bun": ("x",)}
_LAUNCHER_VALUE_OPTIONS = frozenset({"-p", "--package"})


def _launched(span: str, rule_text: str) -> tuple[str, tuple[str, ...], frozenset[str]] | None:
    """The command a span runs through a package launcher, when it names the act
    (``npx prisma migrate reset``, or ``pnpm prisma migrate reset`` with no launcher word,
    :mod:`charter.package_runners`: ``prisma migrate reset``, a program and a subcommand):
    the act is forbidden however the binary is started (``pnpm exec prisma migrate
    reset``, ``bunx prisma …``, a global ``prisma …``). A launcher and a binary alone
    (``npx tsc``) may be the launcher turned down, and a rule that names the act another
    way too ("use `pnpm exec tsc --build` instead of `npx tsc --build`") prefers one
    launcher: both keep the span as written."""
    try:
        tokens = shlex.split(span)
    except ValueError:
        return None
    if not tokens:
        return None
    name = _program(tokens[0])
    at = 1
    if name not in _LAUNCHERS:
        if len(tokens) > 1 and tokens[1] in _LAUNCHING.get(name, ()):
            at = 2
        elif (binary := binary_at(name, tokens[1:])) is not None:
            at = 1 + binary  # `pnpm prisma migrate reset`: the binary by its name
        else:
            return None
    while at < len(tokens) and tokens[at].startswith("-"):
        at += 2 if tokens[at] in _LAUNCHER_VALUE_OPTIONS else 1
        if tokens[at - 1] == "--":
            break
    inner = tokens[at:]
    if len(inner) < 2 or inner[1].startswith("-"):
        return None
    parsed = parse_command(shlex.join(inner))
    if parsed is None or not parsed[1] or parsed[1][0] == ANY_WORD:
        return None
    act = " ".join(inner)
    for m in SPAN.finditer(rule_text):
        if m.group(1).strip() != span.strip() and act in m.group(1):
            return None
    return parsed


def _named_program(
    span: str, rule: Rule, programs: Mapping[str, frozenset[str]] | None = None
) -> tuple[str, tuple[str, ...], frozenset[str]] | None:
    """A one-word span the rule itself calls a program: "never use the `npx` command",
    or "Never use `npx`." ending its clause under a heading about running binaries, or
    the one a preference turns down for a program (:func:`_turned_down`). One word alone
    is as often a keyword of the project's language (`any`, `eval`), so it counts only
    when the words around it or the section say what it is; then any run of it is
    forbidden."""
    word = span.strip()
    at = rule.text.find(f"`{span}`")
    after = rule.text[at + len(span) + 2 :] if at >= 0 else ""
    if _SCRIPT.match(word):
        # a script says what it is; what follows must not narrow when it may not run
        # ("never run `./redrive.sh` in a loop")
        rest = after[m.end() :] if (m := _DIRECTLY.match(after)) else after
        return (_program(word), (), frozenset()) if _CLAUSE_END.match(rest) else None
    if not _PROGRAM.match(word) or "/" in word:
        return None
    # under a heading about programs, the span must end its clause ("`npx`." and not
    # "`any` types": a noun after it says what it is)
    label = _RULE_LABEL.match(rule.text)
    headings = f"{rule.source.section or ''} / {label.group(1) if label else ''}"
    framed = _PROGRAM_NOUN.match(after) or (
        _CLAUSE_END.match(after)
        and (
            _PROGRAM_NOUN.search(headings)
            or _turned_down(rule.text[:at], word, rule.id, programs or {})
        )
    )
    return (_program(word), (), frozenset()) if framed else None


def _turned_down(
    before: str, word: str, rule_id: str, programs: Mapping[str, frozenset[str]]
) -> bool:
    """Whether ``before`` (a rule's text up to ``word``'s span) prefers another program
    to it: "Use `pnpm`, not `npm`". The span chosen is a program when it is a command
    (`bun test`) or one the project's rule files run (`pnpm install` in a shell block);
    then the one turned down is a program too, unless those files run it themselves
    ("use `uvicorn`, not `npm`" for the backend beside "`npm run dev`" for the front
    end: a choice for one part of the project, not against the program)."""
    starts = list(_PREFERENCE_START.finditer(before))
    sentence = before[starts[-1].end() :] if starts else before
    match = _PREFERENCE.match(sentence)
    if match is None or programs.get(_program(word), frozenset()) - {rule_id}:
        return False  # the rule's own reasons ("so `npm ci` fails") run nothing
    chosen = [m.group(1).strip() for m in SPAN.finditer(match.group("x"))]
    if any(_program(word) in {_program(t) for t in span.split()} for span in chosen):
        return False  # "Use `python -m pip`, not `pip`": the command chosen runs it too
    return any(
        parse_command(span) is not None
        or (bool(_PROGRAM.match(span)) and _program(span) in programs)
        for span in chosen
    )


def programs_run(rules: Iterable[Rule]) -> dict[str, frozenset[str]]:
    """The programs the rule files run: each command of a shell block they show, and each
    command of two words or more a rule names without forbidding it ("Use `uv`, not
    `pip`. All Python deps via `uv sync`"), each with the ids of the rules that run it."""
    found: dict[str, set[str]] = {}
    for rule in rules:
        own = _own_command(rule)
        if own is not None:
            found.setdefault(own[0], set()).add(rule.id)
            continue
        if "`" not in rule.text:
            continue
        named = [(m.group(1), parse_command(m.group(1))) for m in SPAN.finditer(rule.text)]
        named = [(span, parsed) for span, parsed in named if parsed is not None and parsed[0]]
        if named and negated(rule.text):
            forbidden = set(forbidden_spans(rule.text, COMMAND_READING))
            named = [(span, parsed) for span, parsed in named if span not in forbidden]
        for _, parsed in named:
            if parsed is not None:
                found.setdefault(parsed[0], set()).add(rule.id)
    return {program: frozenset(ids) for program, ids in found.items()}


def _own_command(rule: Rule) -> tuple[str, tuple[str, ...], frozenset[str]] | None:
    """The command a command rule (a line of a shell block with its comment) runs."""
    if rule.kind != "command" or not rule.text.startswith("`"):
        return None
    span = rule.text[1:].split("`", 1)[0]
    return parse_command(span)


#: A sentence that forbids one act and says nothing more ("Agents never push.", "Never
#: commit."), a one-word subject at most before the prohibition.
_BARE_PROHIBITION = re.compile(
    rf"^\W*(?:(?P<who>[a-z]+)\s+)?{_NEGATION}\s+(?P<act>[a-z]+)\W*$",
    re.IGNORECASE,
)


def _bare_acts(text: str) -> set[str]:
    """Acts a sentence of ``text`` forbids with no object and no condition."""
    acts: set[str] = set()
    for start, end in clauses(text):
        found = _BARE_PROHIBITION.match(re.sub(r"[*_~]+", " ", text[start:end]))
        # said to the agent ("Agents never push."), not of something else ("CI never …")
        if found and (found.group("who") or "you").lower() in _ADDRESSEES:
            acts.add(found.group("act").lower())
    return acts


def _named_acts(rule: Rule) -> list[str]:
    """Commands the rule names for an act it forbids in a sentence of its own: "**Agents
    never push.** … This covers every publication path: `git push` and all its variants"
    forbids `git push`, though the sentence naming it forbids nothing (the span is the
    act's command when its first word after the program is the act)."""
    acts = _bare_acts(rule.text)
    if not acts:
        return []
    named: list[str] = []
    for match in SPAN.finditer(rule.text):
        parsed = parse_command(match.group(1))
        if parsed is not None and parsed[1][:1] and parsed[1][0] in acts:
            named.append(match.group(1))
    return named


#: The git commands that discard work or rewrite shared history: what a rule means by
#: "destructive git commands" (each read as a forbidden span is).
DESTRUCTIVE_GIT = (
    "git reset --hard",
    "git push --force",
    "git push -f",
    "git push --force-with-lease",
    "git clean -f",
    "git clean --force",
    "git branch -D",
    "git stash drop",
    "git stash clear",
)
#: A sentence that forbids them as a class, with no condition ("Do not run destructive
#: git commands.", "Never use destructive git operations").
_DESTRUCTIVE_PROHIBITION = re.compile(
    rf"^\W*(?:(?P<who>[a-z]+)\s+)?{_NEGATION}\s+"
    r"(?:(?:run|use|execute|perform|issue|make)\s+)?(?:any\s+)?destructive\s+"
    r"git\s+(?:commands?|operations?|actions?)\W*$",
    re.IGNORECASE,
)


def _destructive_git(text: str) -> list[str]:
    """The commands of :data:`DESTRUCTIVE_GIT` when a sentence of ``text`` forbids
    destructive git commands outright (said to the agent, no condition)."""
    for start, end in clauses(text):
        found = _DESTRUCTIVE_PROHIBITION.match(re.sub(r"[*_~`]+", " ", text[start:end]))
        if found and (found.group("who") or "you").lower() in _ADDRESSEES:
            return list(DESTRUCTIVE_GIT)
    return []


#: What "force push" is in git's commands (a subset of :data:`DESTRUCTIVE_GIT`).
FORCE_PUSH = ("git push --force", "git push -f", "git push --force-with-lease")
#: A sentence that forbids force pushes with no target and no condition ("Never force
#: push.", "Do not force-push commits", "No force pushes.", "Force-pushing is forbidden");
#: "never force push to `main`" names a target the guardrail does not resolve: advice.
_FORCE_PUSH_PROHIBITION = re.compile(
    rf"{_OPENING}(?:{_PROHIBITS}"
    r"(?:(?:use|do|run|perform|make)\s+)?(?:a\s+|any\s+)?"
    r"force[- ]?push(?:es|ed|ing)?|no\s+force[- ]?push(?:es|ing)?|"
    r"force[- ]?push(?:es|ing)?\s+(?:is|are)\s+(?:forbidden|prohibited|banned|not allowed|"
    r"not permitted|disallowed))"
    r"(?:\s+(?:anything|commits?|changes|branches|(?:the\s+)?history|ever|at\s+all))?"
    # the command it means, in brackets ("DO NOT force-push (git push --force)")
    r"(?:\s*\((?:e\.g\.\s*)?git\s+push\b[^()]*\))?\W*$",
    re.IGNORECASE,
)
#: A branch a push must not go to: a code span, or git's default branch names.
_BRANCH = r"(?:`(?:refs/heads/)?[\w./-]+`|main|master)"
#: A sentence that forbids pushing to a branch, said to the agent: "Never push directly
#: to `main`", "Do not commit or push to master", "Never force push to `main` or
#: `release`"; "or any shared branch" after it names nothing the hook can see and is
#: dropped; a reason may follow a dash, a colon or a clause of its own ("…, it's
#: protected"). Any other words after the branch (a time, a condition) make it advice.
_PUSH_TO = re.compile(
    rf"{_OPENING}{_PROHIBITS}"
    r"(?:commit\s+(?:and|or)\s+)?(?P<force>force[- ]?)?push(?:es|ing)?\s+"
    r"(?:(?:anything|commits?|changes|code|your\s+changes|your\s+work|work|directly|"
    r"straight)\s+){0,3}(?:to|into|onto)\s+(?:the\s+)?(?:remote\s+)?"
    r"(?:(?:protected|shared|default|upstream)\s+)?"
    rf"(?P<branches>{_BRANCH}(?:\s*(?:,|/|\bor\b|, or)\s*{_BRANCH})*)"
    r"(?:\s+branch(?:es)?)?(?:\s+(?:directly|straight))?(?:\s*,?\s*or\s+(?:to\s+)?any\s+(?:other\s+)?"
    r"(?:shared|protected|release|public|long-lived)\s+branch(?:es)?)?"
    r"\s*(?:$|[-—–:(]|,\s*(?:it|this|that|which|they|since|because|as|every|all)\b)",
    re.IGNORECASE,
)


#: A sentence that forbids committing to a branch, said to the agent: "Never commit
#: directly to `main`", "Do not commit or push to master", "Don't commit on `main`;
#: work on a branch". As for pushes, other words after the branch make it advice.
_COMMIT_TO = re.compile(
    rf"{_OPENING}{_PROHIBITS}"
    r"commit(?:s|ting)?(?:\s+(?:and|or)\s+push(?:es|ing)?)?\s+"
    r"(?:(?:anything|changes|code|your\s+changes|your\s+work|work|directly|straight)\s+){0,3}"
    r"(?:to|into|onto|on)\s+(?:the\s+)?(?:(?:protected|shared|default)\s+)?"
    rf"(?P<branches>{_BRANCH}(?:\s*(?:,|/|\bor\b|, or)\s*{_BRANCH})*"
    # git's default names may lead a list of the project's own: "main/develop"
    r"(?:/[A-Za-z][\w.-]*)*)"
    r"(?:\s+branch(?:es)?)?(?:\s+(?:directly|straight))?"
    r"\s*(?:$|[-—–:(;]|,\s*(?:it|this|that|which|they|since|because|as|every|all|use|work|"
    r"create|open)\b)",
    re.IGNORECASE,
)


def _commits_to(text: str) -> list[str]:
    """Each branch a sentence of ``text`` forbids committing to."""
    found: list[str] = []
    for start, end in clauses(text):
        for part in _prohibition_parts(text[start:end]):
            match = _COMMIT_TO.match(part.strip())
            if not match or (match.group("who") or "you").lower() not in _ADDRESSEES:
                continue
            for name in re.findall(r"`[^`]+`|[A-Za-z][\w.-]*", match.group("branches")):
                branch = name.strip("`").removeprefix("refs/heads/")
                if name.lower() != "or" and branch not in found:
                    found.append(branch)
    return found


def _pushes_to(text: str) -> list[tuple[str, bool]]:
    """(branch, force only) for each branch a sentence of ``text`` forbids pushing to."""
    found: list[tuple[str, bool]] = []
    for start, end in clauses(text):
        for part in _prohibition_parts(text[start:end]):
            match = _PUSH_TO.match(part.strip())
            if not match or (match.group("who") or "you").lower() not in _ADDRESSEES:
                continue
            for name in re.findall(_BRANCH, match.group("branches"), re.IGNORECASE):
                branch = name.strip("`").removeprefix("refs/heads/")
                if (branch, bool(match.group("force"))) not in found:
                    found.append((branch, bool(match.group("force"))))
    return found


#: "Build commands" named as a class ("NEVER run build commands", "Do not run build
#: commands unless specifically told to", "never run `flutter run` or any build
#: commands"): the rule forbids every command that builds the project, which no code
#: span names. The phrase is read as a span of its own would be (same negation,
#: condition and consent readings), with its determiner: "or any build commands" is an
#: entry of the list before it.
BUILD_KIND = "build"
_BUILD_CLASS = re.compile(r"\b(?:(?:any|all|other)\s+)?build\s+commands?\b", re.IGNORECASE)
#: What stands for the phrase while the sentence is read (no rule file writes it).
_BUILD_MARK = "\u27e6build commands\u27e7"
#: Programs that run a script file named as their first argument (``python3 build.py``,
#: ``bash build.sh``): the file says what runs.
_SCRIPT_HOSTS = frozenset(
    {"python", "py", "node", "bash", "sh", "zsh", "php", "ruby", "perl", "pwsh", "powershell",
     "bun", "deno", "tsx", "ts-node"}
)  # fmt: skip
#: A script, task or target named for building: ``build``, ``build.sh``, ``Build.bat``,
#: ``build:prod``, ``build-storybook``, ``tauri:build`` (``build_runner``, a code
#: generator, and ``prebuild`` are named otherwise).
_BUILD_NAME = re.compile(
    r"(?:[\w.-]*:)?build(?:[-:][\w:.-]*)?(?:\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php|bat|"
    r"cmd|ps1))?",
    re.IGNORECASE,
)
#: Each build tool's own verbs of building besides ``build`` (generic: the tools' commands).
_BUILD_VERBS = {
    "gradle": ("assemble",),
    "gradlew": ("assemble",),
    "mvn": ("package", "install"),
    "mvnw": ("package", "install"),
    "make": ("all",),
    "gmake": ("all",),
}


def builds(argv: Sequence[str | None]) -> bool:
    """Whether running ``argv`` builds something, as "never run build commands" means it:
    a program named for building (``xcodebuild``, ``msbuild``, ``sphinx-build``), a build
    script run by its file (``./build.sh``, ``python3 build.py``), a tool's ``build``
    command or task (``cargo build``, ``flutter build apk``, ``yarn build``, ``vite
    build``, ``python -m build``), a package script named for building (``npm run
    build``, ``pnpm run build:admin``, ``composer run-script build``), ``make`` with no
    target or a build target, ``cmake --build``, ``gradle assemble…``, ``mvn package``.
    ``flutter run``, ``npm test`` and ``dart run build_runner build`` (code generation)
    are not builds."""
    if not argv or argv[0] is None:
        return False
    name = _program(argv[0]).lower()
    words = [a for a in argv[1:] if a is not None and not a.startswith("-")]
    flags = {a for a in argv[1:] if a is not None and a.startswith("-")}
    if _BUILD_NAME.fullmatch(name) or (name.endswith("build") and len(name) > len("build")):
        return True  # `./build.sh`, `xcodebuild`, `ndk-build`
    if name == "cmake":
        return "--build" in flags  # not configuring: `cmake -S . -B out`
    if not words:
        return name in ("make", "gmake", "ninja")
    first = words[0]
    if name in _SCRIPT_HOSTS and ("." in first or "/" in first):
        # `python3 build.py`, `node scripts/build.mjs`: the script file runs
        return bool(_BUILD_NAME.fullmatch(posixpath.basename(first)))
    if first in ("run", "run-script", "task") and len(words) > 1:
        return bool(_BUILD_NAME.fullmatch(words[1]))  # `npm run build:admin`
    if _BUILD_NAME.fullmatch(first) and "." not in first:
        return True  # `cargo build`, `python -m build`, `yarn build:prod`, `make build`
    return any(first.startswith(verb) for verb in _BUILD_VERBS.get(name, ()))


def _build_class(text: str) -> bool:
    """Whether ``text`` forbids build commands as a class (see :data:`BUILD_KIND`)."""
    if not _BUILD_CLASS.search(text):
        return False
    marked = _BUILD_CLASS.sub(f"`{_BUILD_MARK}`", text)
    return _BUILD_MARK in forbidden_spans(marked, COMMAND_READING)


#: A sentence that forbids adding dependencies, said to the agent: "Never add new
#: dependencies.", "Do not install third-party packages", and (from its consent reading,
#: :mod:`charter.rules.consent`) "Ask before adding a new third-party dependency to
#: `backend/` or `web/`": each package manager's add command, held in those folders.
_DEPENDENCY_PROHIBITION = re.compile(
    rf"{_OPENING}{_PROHIBITS}"
    r"(?:add|adding|install|installing|introduce|introducing|pull\s+in|bring\s+in)\s+"
    r"(?:(?:any|a|an|new|extra|additional|more|other|another)\s+)*"
    r"(?:(?:third[- ]party|external|outside|npm|pip|python|pypi|cargo|go|ruby|js|"
    r"javascript|runtime|dev|production)\s+)*(?:[a-z]+\s+or\s+[a-z]+\s+)?"
    r"(?:dependenc(?:y|ies)|packages?|librar(?:y|ies)|crates?|gems?"
    # "ask before adding one", in a rule or under a heading about dependencies
    r"|(?P<pronoun>one|ones|any|them|new\s+ones|one\s+more))"
    r"(?:\s+(?:to|in|into)\s+(?:the\s+)?(?P<dirs>`[^`]+`(?:\s*(?:,|\bor\b|\band\b)\s*`[^`]+`)*)"
    r"(?:\s+(?:project|package|folder|directory|app|workspace)s?)?)?"
    r"\s*(?:$|[-—–:;(]|,\s*(?:it|this|that|which|they|since|because|as|every|all)\b)",
    re.IGNORECASE,
)


_DEPENDENCY_WORDS = re.compile(r"\b(?:dependenc(?:y|ies)|packages?|librar(?:y|ies))\b", re.I)


def _dependency_adds(
    text: str, section: str = ""
) -> list[tuple[tuple[str, tuple[str, ...]], tuple[str, ...]]]:
    """((program, words), folder scopes) of each add command a sentence of ``text``
    forbids; no scope when a named target is a file (``package.json``: everywhere). A
    pronoun ("ask before adding one") stands for dependencies only when the rule or its
    ``section`` (headings) names them."""
    for start, end in clauses(text):
        for part in _prohibition_parts(text[start:end]):
            found = _DEPENDENCY_PROHIBITION.match(part.strip())
            if not found or (found.group("who") or "you").lower() not in _ADDRESSEES:
                continue
            if found.group("pronoun") and not (
                _DEPENDENCY_WORDS.search(text[:start]) or _DEPENDENCY_WORDS.search(section)
            ):
                continue
            dirs = re.findall(r"`([^`]+)`", found.group("dirs") or "")
            folders = [d.strip("./").rstrip("/") for d in dirs]
            scopes = (
                tuple(f"{f}/**" for f in folders)
                if folders and all(f and "." not in f.rsplit("/", 1)[-1] for f in folders)
                else ()
            )
            return [(add, scopes) for add in DEPENDENCY_ADDS]
    return []


#: The git commands a bare act means when a sentence forbids it with no object ("Never
#: commit.", "Do not commit or push unless the user asks."): in an agent's rule file these
#: verbs are git's (generic: git's own command names).
GIT_ACTS = {
    "commit": ("git commit",),
    "push": ("git push",),
    "rebase": ("git rebase",),
    "amend": ("git commit --amend",),
}
#: Acts on the code host said with what they make ("open pull requests", "create a PR",
#: "file an issue"): in an agent's rule file, the GitHub CLI's command for each.
HOST_ACTS = {"pr": "gh pr create", "issue": "gh issue create"}
_HOST_VERB = re.compile(r"^(?:open|create|submit|file|raise|make)\s+(?P<what>\S.*)$")
_HOST_THING = re.compile(
    r"(?:(?:an?|any|new|draft|the|more)\s+)*(?:(?P<pr>pull[\s-]requests?|prs?)|issues?)",
    re.IGNORECASE,
)
#: Words after the things made that leave the act bare ("… pull requests yourself").
_HOST_BARE = re.compile(rf"\s+{_BY_AGENT_WORDS}$")


def host_acts(act: str) -> list[str]:
    """The code host's commands (:data:`HOST_ACTS`) an act makes: its verb, then a list
    of short objects of which some are pull requests or issues ("open issues or pull
    requests", "create pull requests, tags, or releases"); none when an object says
    more (a place, a target: "open pull requests against it")."""
    m = _HOST_VERB.match(act.strip().lower())
    if m is None:
        return []
    what = _HOST_BARE.sub("", m.group("what").strip())
    parts = [p for p in re.split(r"\s*(?:,\s*(?:or\s+|and\s+)?|\bor\b|\band\b)\s*", what)]
    if not parts or any(not p or len(p.split()) > 3 for p in parts):
        return []
    found: list[str] = []
    for part in parts:
        thing = _HOST_THING.fullmatch(part)
        if thing is not None:
            command = HOST_ACTS["pr" if thing.group("pr") else "issue"]
            found += [command] if command not in found else []
    return found


#: Commits said as a thing made ("Never create commits", "Do not make any commits"):
#: the act of committing.
_MAKING = frozenset({"create", "make"})
_COMMITS_MADE = frozenset({"commits", "a commit", "any commits", "new commits", "git commits"})
#: The acts of :data:`GIT_ACTS` whose object is a file, often left unsaid.
_FILE_ACTS = frozenset({"commit", "amend"})
_EXCEPTION_WORDS = re.compile(r"\b(?:except|unless|other than|apart from)\b")
#: What may follow a bare act and leave it bare: "anything", "changes", "to git" …
_BARE_OBJECTS = frozenset(
    {
        "", "anything", "changes", "code", "your changes", "your work", "work", "to git",
        "to the repo", "to the repository", "to remote", "to the remote", "to origin",
        "commits", "any changes", "yourself", "themselves", "on your own", "on their own",
        "automatically",
    }
)  # fmt: skip
#: Words after a bare object that leave it bare: who does the act ("commit changes
#: yourself", "push anything on your own") forbids the agent's doing it, nothing more.
_BY_THE_AGENT = re.compile(rf"(?<=\w)\s+{_BY_AGENT_WORDS}$")
_ACT_LIST = re.compile(
    rf"{_OPENING}{_PROHIBITS}"
    # an entry may hold a contraction ("don't commit, I'll review it"; "commit and don't
    # push"): as "I will" and "do not" are read
    r"(?P<acts>[a-z][a-z ,'’]*?)\s*(?:[(—–:;]\s.*|\s-\s.*|\(.*)?\W*$",
    re.IGNORECASE,
)


def _git_acts(text: str, anywhere: bool = False) -> list[str]:
    """The git commands of the bare acts (:data:`GIT_ACTS`) a sentence of ``text``
    forbids: each entry of its list of acts is a verb alone or with a bare object; the
    other entries ("deploy", "commit secrets") forbid nothing here. ``anywhere``: a lone
    act counts in any sentence (see below), not only in the one that opens the rule."""
    found: list[str] = []
    for n, (start, end) in enumerate(clauses(text)):
        for k, part in enumerate(_prohibition_parts(text[start:end])):
            match = _ACT_LIST.match(part.strip())
            if not match or (match.group("who") or "you").lower() not in _ADDRESSEES:
                continue
            acts = match.group("acts").lower()
            # "Never commit." alone after something described ("Agent wallet key. Never
            # commit.", ".env is local only. Never commit.") is about that thing: a lone
            # act whose object is a file counts only when it opens the rule (a push's
            # object is a branch: "… Do not push." is git's push wherever it stands)
            if acts in _FILE_ACTS and (n, k) != (0, 0) and not anywhere:
                continue
            if set(acts.split()) & (_CONDITIONS - {"on"}) or _EXCEPTION_WORDS.search(acts):
                continue  # "… until tests pass", "… unless asked": not outright
            entries = [  # "commit and never push": each entry without its own negation
                re.sub(r"^(?:never|do not|don't|not)\s+", "", e.strip())
                for e in re.split(r"\s*(?:,\s*(?:or|and)\s+|,|\bor\b|\band\b)\s*", acts)
            ]
            # "open issues or pull requests": one verb over its objects; "open pull
            # requests, write the task log": an entry of a list of acts
            for command in host_acts(acts) + [c for e in entries for c in host_acts(e)]:
                found += [command] if command not in found else []
            # "commit or push to remote repositories": the last object may be both verbs'
            if (
                len(entries) == 2
                and "," not in acts
                and entries[1].partition(" ")[2] not in _BARE_OBJECTS
            ):
                continue
            for entry in entries:
                verb, _, rest = entry.partition(" ")
                rest = _BY_THE_AGENT.sub("", rest.strip())
                if verb in _MAKING and rest in _COMMITS_MADE:  # "create commits": commit
                    verb, rest = "commit", ""
                if verb in GIT_ACTS and rest in _BARE_OBJECTS:
                    found += [c for c in GIT_ACTS[verb] if c not in found]
    return found


def _act_commands(act: str) -> list[tuple[str, tuple[str, ...], frozenset[str]]]:
    """The commands an act said in words is done with, an option in brackets after it
    being one of theirs: "force-push" is ``git push``, "amend commits" ``git commit
    --amend`` (:data:`GIT_ACTS`); "skip pre-commit hooks" names none."""
    said = f"Never {act}."
    spans = ["git push"] if _force_push(said) else _git_acts(said, anywhere=True)
    parsed = [parse_command(span) for span in spans]
    return [p for p in parsed if p is not None]


def _force_push(text: str) -> list[str]:
    """The commands of :data:`FORCE_PUSH` when a sentence of ``text`` forbids force
    pushes outright (said to the agent, no target, no condition)."""
    for start, end in clauses(text):
        for part in _prohibition_parts(text[start:end].replace("`", " ")):
            for said in (part, *_alternatives(part)):
                found = _FORCE_PUSH_PROHIBITION.match(said)
                if found and (found.group("who") or "you").lower() in _ADDRESSEES:
                    return list(FORCE_PUSH)
    return []


#: How a prohibition opens, up to its first act ("Do not ", "Agents must never ").
_PROHIBITION_OPENING = re.compile(rf"{_OPENING}{_PROHIBITS}", re.IGNORECASE)


#: Words that give an act a target ("… or push to main", "… or rebase shared branches"):
#: said after the last act of a list, the target may be every act's (generic English, and
#: git's word for what a push goes to).
_TARGET_WORDS = frozenset({"to", "into", "onto", "branch", "branches"})


def _alternatives(part: str) -> list[str]:
    """Each act of a prohibition's "or" list, said alone with its opening: "Never
    force-push or rewrite history" gives "Never force-push" and "Never rewrite history".
    Words after the last act may set a condition or a target on every act before it
    ("Do not skip hooks or force-push to main"): then only the last act is said alone."""
    opening = _PROHIBITION_OPENING.match(part)
    if opening is None:
        return []
    # what is in brackets gives examples or a command, not acts of the list
    said = re.sub(r"\s*\([^()]*\)", "", part[opening.end() :])
    acts = re.split(r"\s*,\s*(?:(?:or|nor)\s+)?|\s+(?:or|nor)\s+", said)
    if len(acts) < 2:
        return []
    last = set(re.findall(r"[a-z]+", acts[-1].lower()))
    if (
        last & (_CONDITIONS | _TARGET_WORDS)
        or _EXCEPTION_WORDS.search(acts[-1])
        or re.search(_BRANCH, acts[-1], re.IGNORECASE)
    ):
        acts = acts[-1:]
    return [part[: opening.end()] + act for act in acts]


#: A code span of options only, written right after a command's span as another way to
#: write its last option: "`git pull --rebase` / `-r` / `--rebase-merges`".
_FLAG_ALTERNATIVE = re.compile(r"\s*(?:/|\bor\b)\s*`(-[^`]*)`")


def _flag_alternatives(text: str, span: str) -> list[str]:
    """The commands "`git pull --rebase` / `-r`" also names: ``span`` with its last
    option replaced by each options-only span written after it, joined by ``/`` or "or"
    (a command without an option has none to replace: nothing)."""
    at = text.find(f"`{span}`")
    try:
        tokens = shlex.split(span)
    except ValueError:
        return []
    if at < 0 or len(tokens) < 3 or not tokens[-1].startswith("-"):
        return []
    found: list[str] = []
    pos = at + len(span) + 2
    while match := _FLAG_ALTERNATIVE.match(text, pos):
        try:
            options = shlex.split(match.group(1))
        except ValueError:
            break
        if not options or not all(t.startswith("-") for t in options):
            break
        found.append(shlex.join(tokens[:-1] + options))
        pos = match.end()
    return found


#: What may follow a command a list entry opens with: nothing, or what it does ("`terraform
#: apply` - Infrastructure deployment", "`x`: Promote challenger", "`x` (Host management)").
_DESCRIBED = re.compile(r"^\s*(?:$|[-–—:]\s|\()")


def _listed_command(rule: Rule) -> tuple[str, str, tuple[str, ...], frozenset[str]] | None:
    """The command a list entry opens with, read up to its first option or slot (an
    example's values are not the command): "`terraform apply` - Infrastructure
    deployment" gives ``terraform apply``."""
    m = re.match(r"^\W*`([^`\n]+)`", rule.text)
    if m is None or not _DESCRIBED.match(rule.text[m.end() :]):
        return None
    try:
        tokens = shlex.split(m.group(1))
    except ValueError:
        return None
    head: list[str] = []
    for token in tokens:
        if token.startswith("-") or _PLACEHOLDER.search(token) or "=" in token:
            break
        head.append(token)
    slot = len(head) < len(tokens) and _ANY_ARGUMENT.match(tokens[len(head)]) is not None
    if len(head) == 1 and slot:
        parsed = parse_command(f"{head[0]} <args>")
    else:
        parsed = parse_command(shlex.join(head[:4])) if len(head) >= 2 else None
    if parsed is None:
        return None
    return (m.group(1), *parsed)


def commands_in(
    rule: Rule, programs: Mapping[str, frozenset[str]] | None = None
) -> list[ForbiddenCommand]:
    if consent_heading(rule):
        # under a heading that puts its commands to the user, nothing is denied outright:
        # what the rule forbids, and a command it lists, wait for the user's say-so
        found = [replace(c, consent="user") for c in _commands_in(rule, programs)]
        listed = _listed_command(rule)
        if listed is not None and listed[0] not in {c.command for c in found}:
            span, program, words, flags = listed
            found.append(
                ForbiddenCommand(
                    rule_id=rule.id,
                    cite=rule.source.cite(),
                    rule_text=rule.text,
                    command=span,
                    program=program,
                    words=words,
                    flags=flags,
                    scopes=tuple(rule.scopes),
                    consent="user",
                )
            )
        return found
    return _commands_in(rule, programs)


def _commands_in(
    rule: Rule, programs: Mapping[str, frozenset[str]] | None = None
) -> list[ForbiddenCommand]:
    """The commands ``rule`` forbids outright (see the module docstring), and the options
    it forbids an act to take ("never commit with `--no-verify`": any program's
    ``commit`` with that flag); then those it forbids until the user consents ("unless
    the user asks"), marked ``consent="user"``. ``programs``: those the rule files run
    (:func:`programs_run`), which tell a program from a word of code."""
    said = distributed(rule.text)
    if said != rule.text:
        # "Never: A; B; C": each act read as said alone, the rule cited as written
        each = _commands_in(replace(rule, text=said), programs)
        return [replace(c, rule_text=rule.text) for c in each]
    found = _read_commands(rule, programs=programs)
    shadow = consent_shadow(rule.text)
    if shadow is None:
        return found
    held = {c.command for c in found}
    for cmd in _read_commands(replace(rule, text=shadow), consented=True, programs=programs):
        if cmd.command not in held:
            held.add(cmd.command)
            found.append(replace(cmd, rule_text=rule.text, consent="user"))
    return found


def _read_commands(
    rule: Rule, consented: bool = False, programs: Mapping[str, frozenset[str]] | None = None
) -> list[ForbiddenCommand]:
    """What :func:`commands_in` reads from ``rule.text`` as written (``consented``: the
    text is a consent reading, whose acts the condition taken out was about)."""
    found: list[ForbiddenCommand] = []

    def hold(
        command: str,
        program: str = "",
        words: tuple[str, ...] = (),
        flags: frozenset[str] = frozenset(),
        scopes: tuple[str, ...] = (),
        **more: str,
    ) -> None:
        """Hold what the rule forbids: a command's words, or (``more``: ``kind``,
        ``branch``, ``trailer``, ``phrase``) a class or a thing named in words."""
        found.append(
            ForbiddenCommand(
                rule_id=rule.id,
                cite=rule.source.cite(),
                rule_text=rule.text,
                command=command,
                program=program,
                words=words,
                flags=flags,
                scopes=scopes or tuple(rule.scopes),
                **more,
            )
        )

    for verb, options, act in forbidden_options(rule.text, COMMAND_READING):
        try:
            tokens = shlex.split(options)
        except ValueError:
            continue
        if tokens and all(t.startswith("-") for t in tokens) and act:
            # "Never force-push (`--force`)": the option of the command the act names
            # (`git push --force`, not `rm --force`); an act naming none ("Never skip
            # hooks (`--no-verify`)") leaves a long option any program's, and a one-letter
            # option (`-f`) means something else to every program: not read
            acts = _act_commands(act)
            for program, words, flags in acts:
                command = " ".join((program, *words, *sorted(flags - _flag_set(tokens)), options))
                hold(command, program, words, flags | _flag_set(tokens))
            if not acts and all(t.startswith("--") for t in tokens):
                owner = option_owner(tokens)
                commands = {
                    parsed[:2]
                    for m in SPAN.finditer(rule.text)
                    if (parsed := parse_command(m.group(1))) is not None
                }
                if owner:
                    hold(options, owner, (), _flag_set(tokens))
                elif len(commands) == 1:  # the command the rule is about: `gh pr merge`
                    program, words = next(iter(commands))
                    command = " ".join((program, *words, options))
                    hold(command, program, words, _flag_set(tokens))
                # else: whose option it is stays unknown ("bypass protection (`--admin`,
                # `--force`)": `git push --force`, not `npm install --force`): not read
        elif tokens and all(t.startswith("-") for t in tokens):
            program, command = "", f"{verb} {options}".strip()
            own = _own_command(rule)
            if verb and own is not None and own[1][:1] == (verb,):
                # a command's comment ("`cargo build` (never build with --release)"): that
                # program's verb with the option, not any program's
                program, command = own[0], f"{own[0]} {verb} {options}"
            hold(command, program, (verb,) if verb else (), _flag_set(tokens))
    spans = forbidden_spans(rule.text, COMMAND_READING)
    spans += [span for span in _named_acts(rule) if span not in spans]
    spans += [span for span in _destructive_git(rule.text) if span not in spans]
    spans += [span for span in _force_push(rule.text) if span not in spans]
    if not found:  # "Never amend commits (`--amend`)": the option already says what it is
        spans += [s for s in _git_acts(rule.text, anywhere=consented) if s not in spans]
    for span in list(spans):
        spans += [alt for alt in _flag_alternatives(rule.text, span) if alt not in spans]
    for (program, words), scopes in _dependency_adds(rule.text, rule.source.section or ""):
        hold(f"{program} {' '.join(words)}", program, words, frozenset(), scopes)
    for branch in _commits_to(rule.text):
        hold(f"git commit … on {branch}", "git", ("commit",), frozenset(), branch=branch)
    for branch, force in _pushes_to(rule.text):
        for flag in ("--force", "-f", "--force-with-lease") if force else ("",):
            command = f"git push {flag + ' ' if flag else ''}… {branch}"
            flags = _flag_set([flag]) if flag else frozenset()
            hold(command, "git", ("push",), flags, branch=branch)

    for verb, said in _options_when(rule.text):
        hold(f"git {verb} {' '.join(said)}", "git", (verb,), _flag_set(said))
    if _build_class(rule.text):
        hold("build commands", kind=BUILD_KIND)
    for path in dict.fromkeys(_commit_paths(rule.text) + _untracked_paths(rule.text)):
        hold(path, "git", kind=COMMIT_PATH_KIND)
    for tool in _mcp_tools(rule.text):
        hold(tool, kind=TOOL_KIND)
    trailer, phrases, places = _commit_text(rule.text)
    for place in places:
        for held, phrase in [(trailer, "")] * bool(trailer) + [("", p) for p in phrases]:
            act = "git commit" if place == "git" else "gh pr create"
            what = "Co-Authored-By" if held else phrase
            words = ("commit",) if place == "git" else ("pr",)
            hold(f"{act} … {what}", place, words, trailer=held, phrase=phrase)
    if _git_write_class(rule.text):
        hold("git commands that write", kind=GIT_WRITE_KIND)
    # options alone are any program's only when no command is named with them ("`git
    # pull --rebase` / `--rebase-merges`" names the other spelling of that command)
    named = any(parse_command(m.group(1)) for m in SPAN.finditer(rule.text)) or bool(found)
    for span in spans:
        parsed = (
            _launched(span, rule.text)
            or parse_command(span)
            or _named_program(span, rule, programs)
            or (
                None
                if not _option_alone(rule, span) or (named and not option_owner(span.split()))
                else _long_options(span)
            )
        )
        if parsed is not None:
            hold(span, *parsed)
    return found


#: Long options forbidden while doing one of git's acts, said as the act's "-ing" form and
#: nothing after it: "**NEVER use `--no-verify` flag when committing**", "Never pass
#: `--force` when pushing"; "… when committing to main" names a target: advice.
_OPTIONS_WHEN = re.compile(
    rf"{_OPENING}{_PROHIBITS}(?:use|pass|add|run\s+with)\s+(?:the\s+)?"
    r"(?P<options>`--[a-z0-9][a-z0-9-]*`(?:\s*(?:,|/|or|,\s*or)\s*`--[a-z0-9][a-z0-9-]*`)*)"
    r"\s+(?:(?:flags?|options?)\s+)?(?:when|while)\s+(?P<act>committing|pushing|rebasing)"
    r"(?:\s+(?:changes|code|anything|commits))?\W*$",
    re.IGNORECASE,
)
_GERUNDS = {"committing": "commit", "pushing": "push", "rebasing": "rebase"}


def _options_when(text: str) -> list[tuple[str, list[str]]]:
    """(git's verb, options) for each sentence of ``text`` that forbids long options while
    doing one of git's acts (:data:`_OPTIONS_WHEN`), said to the agent."""
    found: list[tuple[str, list[str]]] = []
    for start, end in clauses(text):
        for part in _prohibition_parts(text[start:end]):
            m = _OPTIONS_WHEN.match(part.strip())
            if m and (m.group("who") or "you").lower() in _ADDRESSEES:
                options = re.findall(r"`(--[^`]+)`", m.group("options"))
                found.append((_GERUNDS[m.group("act").lower()], options))
    return found


def forbidden_commands(rules: Iterable[Rule]) -> list[ForbiddenCommand]:
    """Every command the rules forbid, in rule order (one entry per rule and command)."""
    rules = list(rules)
    programs = programs_run(rules)
    return collect(rules, lambda rule: commands_in(rule, programs), lambda c: c.command)


def first_violation(
    commands: Sequence[ForbiddenCommand],
    invocations: Iterable[tuple[Sequence[str | None], str | None]],
    branch_of: Callable[[str | None], str | None] | None = None,
    pending: Callable[[], list[tuple[str, bool]]] | None = None,
) -> tuple[ForbiddenCommand, Sequence[str | None]] | None:
    """The first (rule command, argv) pair where an invocation does what a rule forbids;
    ``invocations`` are (argv, project-relative cwd or None); ``branch_of`` as for
    :meth:`ForbiddenCommand.matches`."""
    for argv, cwd_rel in invocations:
        for cmd in commands:
            if cmd.matches(argv, cwd_rel, branch_of, pending):
                return cmd, argv
    return None
