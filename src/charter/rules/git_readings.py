"""Git's acts a rule forbids, read from its words, and how a call does them.

- committing a path ("Never commit `.env`"): ``git add`` / ``git commit`` naming it
  (:data:`COMMIT_PATH_KIND`, :func:`stages`);
- git's writes as a class ("Do NOT use git commit, push, or other write operations",
  "Use only read-only Git commands"): every git command that writes
  (:data:`GIT_WRITE_KIND`, :func:`git_writes`);
- what a commit message or pull request must not hold ("Never add Co-Authored-By
  lines", "Never add "Generated with Claude Code" to commits"): the messages and bodies
  a call gives (:func:`commit_messages`, :func:`pr_bodies`, :func:`co_authored`,
  :func:`message_holds`).

Each is held as a :class:`charter.rules.commands.ForbiddenCommand` of its kind.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from charter.rules.command_reading import (
    _CONDITIONS,
    _NEGATION,
    _OPENING,
    _PROHIBITS,
    COMMAND_READING,
    _program,
    _prohibition_parts,
)
from charter.rules.negation import _ADDRESSEES, SPAN, clauses, forbidden_spans

#: A path a rule forbids committing ("Never commit `.env`", "Never commit .env, AWS keys,
#: samconfig.toml, or node_modules"): ``git add`` or ``git commit`` naming a file there
#: (forced past ``.gitignore`` too) is held. A file staged by ``git add -A`` is not seen.
COMMIT_PATH_KIND = "commit-path"
_COMMIT_PROHIBITION = re.compile(
    rf"{_OPENING}{_PROHIBITS}(?:commit|check\s+in|stage|git\s+add|push)\s+(?P<what>.*)$",
    re.IGNORECASE,
)
_ITEM_NUMBER = re.compile(r"^\W*\d+(?:\.\d+)*\.?\s+")


def _unemphasised(text: str, strip: Callable[[str], str]) -> str:
    """``text`` with ``strip`` (emphasis marks away) applied outside its code spans: a
    pair of marks around a span goes, a span's own underscores stay."""
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    held = strip(re.sub(r"`[^`\n]*`", hold, text)).replace("~~", "")
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], held)


def _commit_paths(text: str) -> list[str]:
    """The project paths a sentence of ``text`` forbids committing, each as a path
    pattern (see :func:`charter.rules.edits.parse_path`); none when what it forbids sets a
    condition ("… unless the user asks", "… without review"). Only an entry of the list
    that is a path and nothing more counts: "never commit values into `application.conf`",
    "a hand-edited `dist/manifest.json`" or "`.bazelrc` changes that only make sense on
    your machine" forbid something about the file, not the file."""
    from charter.rules.blocks import strip_strong
    from charter.rules.edits import parse_path

    found: list[str] = []
    for start, end in clauses(text):
        # emphasis marks go, not a path's underscores (`resources/_gen/`, `__pycache__/`):
        # code spans are left as written
        plain = _unemphasised(text[start:end], strip_strong)
        # a numbered item ("1.7.15 Never commit …") opens as a bare one does, and so does
        # a lead before a colon ("ALL LANES: do NOT commit …")
        plain = _ITEM_NUMBER.sub("", plain.strip())
        for part in dict.fromkeys([plain, _AFTER_DASH.sub("", plain, 1)]):
            match = _COMMIT_PROHIBITION.match(part.strip())
            if not match or (match.group("who") or "you").lower() not in _ADDRESSEES:
                continue
            # what follows a colon, a dash, a semicolon or the end of an aside is another
            # sentence ("…: Always verify …", "(… do not commit inputs), and a `x.txt`")
            what = re.split(r"\s*(?::\s|;|\)|\s[—–-]\s)", match.group("what"), maxsplit=1)[0]
            what = _INTO_GIT.sub("", what).strip().rstrip(".")
            if _CONDITIONS & set(re.findall(r"[a-z]+", SPAN.sub(" ", what).lower())):
                continue  # "… for production", "files from `build/`": not every commit
            for item in _LIST_ENTRY.split(what):
                entry = _PATH_ENTRY.fullmatch(item.strip())
                if entry is None:
                    continue
                pattern = parse_path(entry.group("path").strip("`"))
                if pattern is not None and not re.search(r"\.[a-z]+[A-Z]", pattern):
                    found.append(pattern)  # not code: `lib.fakeHash` is no file
    return list(dict.fromkeys(found))


#: What a sentence says must stay out of git, its paths as the subject ("`data/raw/` must
#: stay untracked", "The `.roo/` and `mcp/` directories are ignored and must stay
#: untracked") or the object of "keep" ("Keep `.env.local` untracked", "Keep local-only
#: artifacts untracked (for example, `.claude-*` folders)"): committing them is forbidden.
_MUST_STAY_UNTRACKED = re.compile(
    r"^(?P<what>.*?)\s+(?:must|should|need\s+to|has\s+to|have\s+to)\s+(?:always\s+)?"
    r"(?:stay|remain|be\s+kept)\s+untracked\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_KEEP_UNTRACKED = re.compile(
    r"^\W*(?:(?:always|please)\s+)?keep\s+(?P<what>(?:`[^`\n]*`|[^.;:`])*?)\s+untracked\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
#: An aside of examples right after what is kept out: "(for example, `.claude-*` folders)".
_EXAMPLES = re.compile(
    r"^\s*\((?:for\s+example|e\.g\.|such\s+as|like|i\.e\.)[,:]?\s*(?P<spans>[^)]*)\)",
    re.IGNORECASE,
)


def _untracked_paths(text: str) -> list[str]:
    """The project paths a sentence of ``text`` says must stay untracked (see
    :data:`_MUST_STAY_UNTRACKED`), as path patterns; none when the sentence sets a
    condition ("… until the release is cut", "if index data must stay untracked")."""
    from charter.rules.blocks import strip_strong
    from charter.rules.edits import parse_path

    found: list[str] = []
    for start, end in clauses(text):
        plain = _unemphasised(text[start:end], strip_strong).strip()
        for reading in (_MUST_STAY_UNTRACKED, _KEEP_UNTRACKED):
            match = reading.match(plain)
            if match is None:
                continue
            # the subject is the last part of the sentence before the verb ("…, not
            # these, and `data/raw/` must stay untracked"); what follows the verb may
            # be another predicate ("… and be truncated after each commit") or examples
            what = re.split(r"\s*(?:,|;)\s*", match.group("what"))[-1]
            rest = match.group("rest")
            examples = _EXAMPLES.match(rest)
            spans = SPAN.findall(what) + (SPAN.findall(examples.group("spans")) if examples else [])
            tail = re.split(r"\s+and\s+|\(", rest[examples.end() if examples else 0 :])[0]
            words = set(re.findall(r"[a-z]+", SPAN.sub(" ", what + " " + tail).lower()))
            if words & _CONDITIONS or re.search(rf"\b{_NEGATION}\b|\bnot\b", SPAN.sub(" ", what)):
                continue
            for span in spans:
                pattern = parse_path(span.strip())
                if pattern is not None and not re.search(r"\.[a-z]+[A-Z]", pattern):
                    found.append(pattern)
    return list(dict.fromkeys(found))


#: Where a commit goes, said after what it holds ("… to version control"): no condition.
_INTO_GIT = re.compile(
    r"\s+(?:to|into|in)\s+(?:the\s+)?(?:version\s+control|source\s+control|git(?:hub)?|"
    r"(?:the\s+)?repo(?:sitory)?)\b",
    re.IGNORECASE,
)
#: Entries of the list a sentence forbids: "`.env`, keys, credentials or data".
_LIST_ENTRY = re.compile(r",\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+")
#: An entry that is a path and nothing more: "`.env`", "the `Library/` folder",
#: "samconfig.toml", "`.env` files".
_PATH_ENTRY = re.compile(
    r"(?:(?:a|an|the|any|your|our|these|those)\s+)?"
    r"(?P<path>`[^`\n]+`|\.?[\w.-]*\w(?:/[\w.*-]*)*/?)"
    r"(?:\s+(?:files?|folders?|director(?:y|ies)|dirs?))?",
    re.IGNORECASE,
)


def stages(
    argv: Sequence[str | None],
    cwd_rel: str | None,
    pattern: str,
    pending: Callable[[], list[tuple[str, bool]]] | None = None,
) -> bool:
    """Whether ``argv`` is a ``git add`` (``git stage``) or ``git commit`` naming a file
    under ``pattern`` (project-relative, as :class:`charter.rules.edits.ForbiddenEdit`
    matches it), run in ``cwd_rel``; or one staging everything (``git add -A``, ``git
    add .``, ``git commit -a``) while such a file waits to be staged: ``pending()`` lists
    the project's changed (tracked) and untracked, not ignored, files; ``git commit -a``
    takes only the tracked ones."""
    from charter.rules.edits import path_matches

    called = _git_call(argv)
    if not called or called[0] not in ("add", "stage", "commit"):
        return False
    sub = called[0]
    valued = {"-m", "--message", "-F", "--file", "-C", "-c", "--author", "--date",
              "--trailer", "--fixup", "--squash", "-t", "--template", "--cleanup"}  # fmt: skip
    args = called[1:]
    paths: list[str] = []
    skip = False
    for arg in args:
        if skip or arg is None:
            skip = False
            continue
        if arg in valued or (sub == "commit" and re.fullmatch(r"-[a-zA-Z]*m", arg)):
            skip = True
            continue
        if arg.startswith("-"):
            continue
        paths.append(arg)
    sweeping = {"-A", "--all"} if sub != "commit" else {"-a", "--all"}
    here = posixpath.normpath(cwd_rel or ".")
    swept: list[str] = []  # the folders whose every change this stages
    if any(a in sweeping or (sub == "commit" and re.fullmatch(r"-[b-zA-Z]*a\w*", a or ""))
           for a in args):  # fmt: skip
        swept.append(".")
    for path in paths:
        rel = posixpath.normpath(posixpath.join(cwd_rel or "", path)).removeprefix("./")
        if rel in (".", "") or path in (":/", ":"):
            swept.append("." if path.startswith(":") else here)
        elif rel and not rel.startswith("..") and path_matches(rel, pattern):
            return True
    if swept and pending is not None:
        for rel, tracked in pending():
            if sub == "commit" and not tracked:
                continue
            inside = any(f == "." or rel.startswith(f.rstrip("/") + "/") for f in swept)
            if inside and path_matches(rel, pattern):
                return True
    return False


#: Git commands that write named as a class ("Claude MUST NEVER execute git write
#: operations", "Do NOT use git commit, push, pull, or other write operations", "never
#: run … any git commands that modify version control state"), or as its converse ("Use
#: only read-only git commands", "Use read-only Git commands for inspection unless the
#: user requested a mutation"): every git command that changes the repository, its work
#: tree, index, refs or configuration (:func:`git_writes`). Read as the build class is.
GIT_WRITE_KIND = "git-write"
_GIT_WRITE_CLASS = re.compile(
    r"\b(?:(?:any|all|other)\s+)?(?:"
    r"git\s+(?:write|mutating|state[- ]changing)\s+(?:operations?|commands?|actions?)"
    r"|(?:write|mutating|state[- ]changing)\s+git\s+(?:operations?|commands?|actions?)"
    r"|git\s+(?:operations?|commands?)\s+that\s+(?:modify|change|alter|mutate|write\s+to)"
    r"(?:\s+(?:the\s+)?(?:version[- ]control\s+state|repo(?:sitory)?(?:\s+state)?|history"
    r"|working\s+tree|index|state))?"
    r")",
    re.IGNORECASE,
)
#: "git commit, push, pull, or other write operations": git's commands named in words,
#: then the class they belong to; the whole list is the class.
_OTHER_WRITES = re.compile(
    r"\bgit\s+[\w\s,/-]{0,80}?\b(?:or|and)\s+(?:any\s+)?other\s+write\s+operations\b",
    re.IGNORECASE,
)
#: The converse: only git's reading commands, for what the reading is for ("Use read-only
#: Git commands for inspection").
_READ_ONLY_GIT = re.compile(
    r"\b(?:(?:only\s+)?(?:use|run)\s+(?:only\s+)?read[- ]only\s+git\s+(?:commands?|operations?)"
    r"(?:\s+only)?(?:\s+(?:for|to)\s+(?:inspection|inspect|inspecting|review|reviewing|reading)"
    r"(?:\s+(?:the\s+)?(?:changes|history|state|code))?)?"
    r"|git\s+(?:operations?|commands?|access)\s+(?:are|is)\s+read[- ]only)\b",
    re.IGNORECASE,
)
_GIT_WRITE_MARK = "\u27e6git writes\u27e7"
#: Git commands that always write (the work tree, the index, refs, history, objects).
_GIT_WRITING = frozenset(
    {"add", "commit", "push", "pull", "merge", "rebase", "reset", "restore", "checkout",
     "switch", "cherry-pick", "revert", "am", "apply", "rm", "mv", "clean", "init", "gc",
     "prune", "filter-branch", "filter-repo", "replace", "update-ref", "update-index",
     "read-tree", "commit-tree", "write-tree", "bisect", "sparse-checkout", "fast-import",
     "repack", "maintenance"}
)  # fmt: skip
#: Git commands that write only when a verb says so: the verbs that only read.
_GIT_READING_VERBS = {
    "stash": {"list", "show"},
    "remote": {"show", "get-url", "-v"},
    "worktree": {"list"},
    "notes": {"list", "show"},
    "submodule": {"status", "summary"},
    "reflog": {"show"},
}
#: ``git branch``/``git tag`` options that change refs (a name alone creates one).
_GIT_REF_WRITES = frozenset(
    {"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-u",
     "--set-upstream-to", "--unset-upstream", "--edit-description", "-f", "--force", "-s",
     "--sign", "--annotate"}
)  # fmt: skip
_GIT_LISTING = frozenset({"branch", "tag"})
_GIT_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color",
     "--get-colorbool"}
)  # fmt: skip
_GIT_CONFIG_WRITES = frozenset(
    {"--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e", "--rename-section",
     "--remove-section"}
)  # fmt: skip
_GIT_GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def _git_call(argv: Sequence[str | None]) -> list[str | None]:
    """A git call's subcommand and its arguments, git's own options before it skipped
    (``git -C dir -c k=v commit -m x``: ``commit -m x``); empty when ``argv`` runs no git
    subcommand. ``None`` stands for a word the hook cannot read."""
    if not argv or argv[0] is None or _program(argv[0]) != "git":
        return []
    rest = list(argv[1:])
    i = 0
    while i < len(rest) and (rest[i] or "").startswith("-"):
        i += 2 if rest[i] in _GIT_GLOBAL_VALUES else 1
    return rest[i:]


def git_writes(argv: Sequence[str | None]) -> bool:
    """Whether running ``argv`` is a git command that writes, as "never run git write
    operations" means it: ``git commit``, ``git checkout``, ``git stash``, ``git branch
    feat``, ``git tag v1``, ``git config user.name x``, ``git remote add …``; not ``git
    status``, ``git log``, ``git diff``, ``git branch -a``, ``git stash list``, ``git
    config --get x``, nor a command git does not have (an alias: unknown)."""
    called = _git_call(argv)
    if not called:
        return False
    if called[0] is None:
        return True  # a subcommand the hook cannot read: held
    sub, args = called[0], [a for a in called[1:] if a is not None]
    words = [a for a in args if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    if sub in _GIT_WRITING:
        return True
    if sub == "stash":  # `git stash` alone stashes
        return not words or words[0] not in _GIT_READING_VERBS[sub]
    if sub in _GIT_READING_VERBS:  # `git remote` and `git remote -v` list
        return bool(words) and words[0] not in _GIT_READING_VERBS[sub]
    if sub in _GIT_LISTING:
        if flags & (_GIT_REF_WRITES | ({"-a"} if sub == "tag" else set())):
            return True
        return bool(words) and not flags & {"-l", "--list", "-v", "--verify"}
    if sub == "config":
        if flags & _GIT_CONFIG_READS:
            return False
        return len(words) > 1 or bool(flags & _GIT_CONFIG_WRITES)
    if sub == "symbolic-ref":
        return len(words) > 1 or bool(flags & {"-d", "--delete"})
    return False


def _git_write_class(text: str) -> bool:
    """Whether ``text`` forbids git commands that write as a class (see
    :data:`GIT_WRITE_KIND`)."""
    marked = _OTHER_WRITES.sub(f"`{_GIT_WRITE_MARK}`", text)
    marked = _GIT_WRITE_CLASS.sub(f"`{_GIT_WRITE_MARK}`", marked)
    marked = _READ_ONLY_GIT.sub(f"never run `{_GIT_WRITE_MARK}`", marked)
    if _GIT_WRITE_MARK not in marked:
        return False
    return _GIT_WRITE_MARK in forbidden_spans(marked, COMMAND_READING)


#: A sentence that forbids putting something into commit messages, said to the agent:
#: a co-author ("Never add Co-Authored-By lines", "NEVER add Co-Authored-By lines
#: mentioning Claude", "Never add yourself (Claude) as a co-author on commits") or a
#: quoted phrase ("Never add "Generated with Claude Code" to commits"). Claude Code
#: writes both into every commit message by default. A dot inside a word (an address, a
#: file name) does not end what is forbidden.
_COMMIT_TEXT_PROHIBITION = re.compile(
    rf"{_OPENING}{_PROHIBITS}(?:add|include|append|put|insert|write|use)\s+"
    r"(?P<what>(?:[^.;]|\.(?=\S))*)$",
    re.IGNORECASE,
)
#: Who the trailer credits when the rule says so: an AI assistant, the agent itself.
_AI_CREDIT = re.compile(
    r"\b(?:claude|anthropic|yourself|ai|assistants?|llms?|gpt|chatgpt|openai|copilot|codex|"
    r"gemini|cursor|bots?)\b",
    re.IGNORECASE,
)
_CO_AUTHOR = re.compile(r"\bco-?\s?author(?:ed[- ]by|ing|ship)?s?\b", re.IGNORECASE)
_ABBREVIATION = re.compile(r"\b([ie])\.([eg])\.", re.IGNORECASE)
#: A quoted phrase ("…", “…”) of a few words: text the message must not hold.
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{3,80})[\"”]")
#: Where the phrase must not go: commits or their messages.
_INTO_PRS = re.compile(r"\bPRs?\b|(?i:\bpull\s+requests?\b)")
_INTO_COMMITS = re.compile(
    r"\b(?:to|in|into|on)\s+(?:the\s+|any\s+|your\s+|a\s+|an\s+|each\s+|every\s+)?commit", re.I
)
_AFTER_DASH = re.compile(r"^[^—–:]{1,100}(?:\s[—–-]|:)[*_]*\s")
_TRAILER_LINE = re.compile(r"^\s*co-authored-by\s*:(?P<who>.*)$", re.IGNORECASE | re.MULTILINE)
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")


def _commit_text(text: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """What a sentence of ``text`` forbids putting into commit messages outright (see
    :data:`_COMMIT_TEXT_PROHIBITION`): a co-author trailer (``"ai"`` when the rule names
    an AI assistant, else ``"any"``; ``""`` for none), the quoted phrases, lower-cased,
    and where they are kept out of: ``git`` commits, ``gh`` pull requests ("… to commits
    or PRs"). A condition in what it forbids ("… unless the user asks") leaves it to the
    consent reading."""
    for start, end in clauses(text):
        # "i.e." and "e.g." end no sentence ("(i.e. avoid "Co-Authored-By: Claude")")
        clause = _ABBREVIATION.sub(r"\1\2", text[start:end].replace("`", " "))
        # a lead before a dash or a colon ("No Claude credit — never add …", "No AI
        # Attribution: Never add …") opens it as a one-word label does, and says where
        # when it names commits or pull requests ("**Pull requests:** Do NOT add …")
        lead = _AFTER_DASH.match(clause)
        label = re.sub(r"[*_]+", "", lead.group(0)) if lead else ""
        parts = _prohibition_parts(clause) + _prohibition_parts(_AFTER_DASH.sub("", clause, 1))
        for part in parts:
            found = _COMMIT_TEXT_PROHIBITION.match(part.strip())
            if not found or (found.group("who") or "you").lower() not in _ADDRESSEES:
                continue
            what = found.group("what")
            if {"unless", "without", "except", "if", "when"} & set(
                re.findall(r"[a-z]+", _QUOTED.sub(" ", what).lower())
            ):
                continue
            trailer = ""
            named = _CO_AUTHOR.search(what)
            if named is not None:
                # whom it credits: the words around "co-author", up to the next entry of
                # a list ("Co-Authored-By, "Generated with", or Claude-Session …")
                credited = re.split(r",|\bor\b|\band\b", what[named.end() :])[0]
                ai = _AI_CREDIT.search(credited + " " + what[: named.start()])
                trailer = "ai" if ai else "any"
            phrases = tuple(
                " ".join(q.lower().split())
                for q in _QUOTED.findall(what)
                if not _CO_AUTHOR.search(q)
            )
            # a trailer is a commit's wherever the rule puts it
            commits = _INTO_COMMITS.search(what) or re.search(r"\bcommits?\b", label, re.I)
            places = ("git",) * bool(commits or trailer)
            places += ("gh",) * bool(_INTO_PRS.search(what) or _INTO_PRS.search(label))
            if not places:
                continue  # a phrase kept out of code or docs: no commit's, no PR's
            if trailer or phrases:
                return trailer, phrases, places
    return "", (), ()


def commit_messages(argv: Sequence[str | None]) -> list[str] | None:
    """The message texts of a ``git commit`` ``argv`` (``-m``, ``--message``, and each
    ``--trailer`` as a ``Key: value`` line), None for another command. A message the hook
    cannot read (``-F file``, a variable) is left out, not guessed at."""
    called = _git_call(argv)
    if not called or called[0] != "commit":
        return None
    texts: list[str] = []
    args = called[1:]
    for n, arg in enumerate(args):
        following = args[n + 1] if n + 1 < len(args) else None
        if arg is None or arg == "--":
            continue
        if arg in ("--message", "--trailer"):
            texts.append(following or "")
        elif arg.startswith(("--message=", "--trailer=")):
            texts.append(arg.split("=", 1)[1])
        elif arg.startswith("-") and not arg.startswith("--") and "m" in arg:
            texts.append(arg[arg.index("m") + 1 :] or following or "")
    # a `--trailer` is written `key=value` as well as `key: value`
    return [re.sub(r"^(\s*[\w-]+)\s*=", r"\1:", t) for t in texts]


def pr_bodies(argv: Sequence[str | None]) -> list[str] | None:
    """The title and body texts of a ``gh pr create`` or ``gh pr edit`` ``argv`` (``-t``,
    ``--title``, ``-b``, ``--body``), None for another command; ``--body-file`` is left
    out, not guessed at."""
    if not argv or argv[0] is None or _program(argv[0]) != "gh":
        return None
    if list(argv[1:3]) not in (["pr", "create"], ["pr", "edit"]):
        return None
    texts: list[str] = []
    args = list(argv[3:])
    for n, arg in enumerate(args):
        following = args[n + 1] if n + 1 < len(args) else None
        if arg in ("-t", "--title", "-b", "--body"):
            texts.append(following or "")
        elif arg is not None and arg.startswith(("--title=", "--body=")):
            texts.append(arg.split("=", 1)[1])
    return texts


def _message_texts(argv: Sequence[str | None], program: str) -> list[str]:
    """What a commit (``git``) or a pull request (``gh``) says, as :func:`commit_messages`
    and :func:`pr_bodies` read it."""
    found = commit_messages(argv) if program == "git" else pr_bodies(argv)
    return found or []


def co_authored(argv: Sequence[str | None], ai_only: bool = False) -> bool:
    """Whether ``argv`` is a ``git commit`` whose message credits a co-author (one naming
    an AI assistant when ``ai_only``)."""
    for text in _message_texts(argv, _program(argv[0] or "") if argv else ""):
        for found in _TRAILER_LINE.finditer(text):
            if not ai_only or _AI_CREDIT.search(found.group("who")):
                return True
    return False


def message_holds(argv: Sequence[str | None], phrase: str) -> bool:
    """Whether ``argv`` is a ``git commit`` whose message holds ``phrase`` (lower case),
    read as the reader sees it: a Markdown link as its text ("Generated with [Claude
    Code](https://…)" holds "generated with claude code"), spacing and case aside."""
    for text in _message_texts(argv, _program(argv[0] or "") if argv else ""):
        if phrase in " ".join(_MARKDOWN_LINK.sub(r"\1", text).lower().split()):
            return True
    return False
