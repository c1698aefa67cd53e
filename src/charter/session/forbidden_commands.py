"""Commands the user told this session not to run, read from their own words.

"Never run `deno publish`", "don't run npm publish, I release by hand": recovery gives
the sentence back after a compaction, but nothing stopped the agent's ``deno publish``.
The PreToolUse guardrails (``[session.guardrails] user_commands``, ``ask`` by default: the
user may since have changed their mind) stop a Bash call that runs one, quoting the user.

The words are read exactly as a rule file's are (:func:`charter.rules.commands.commands_in`
on each sentence: a negation, a command of at least two words whose first names a
program, no condition such as "against production", "in CI", "until I say so"), from
the prompts (and the words typed when rejecting a tool call) as each is journaled on the
active track (the sessions it resumed included): the guardrail before a Bash call reads
only the prompts so marked (``forbids_commands`` in the event).

Users seldom put a command in backticks, so a bare one in prose counts when it is
clearly a command line: a word of :data:`PROGRAMS` (well-known command-line programs:
package managers, version control, build, deploy and database tools, ``rm`` …), right
after a verb of running ("run", "use", "execute", "with" …) or, for a program whose name
is no English word, right after the negation itself ("never git push"), followed by at
least one argument. The command ends at the clause's end or at the first word that is
not an argument (a condition, a conjunction, a pronoun, "again", "yourself" …):
"don't run terraform destroy against production" is read as "don't run `terraform
destroy` against production", which forbids a context, not the command. A mention that
forbids nothing ("what does npm publish do?") stays a mention.

The user may change their mind: a later sentence that asks or allows the agent to run
it ("you can run `deno publish` now", "go ahead and publish with deno publish": a verb
of running governs the command, no negation (but for one after a contrast: "…, but still
not prod"), no condition, no first person, a question
only when it asks the agent, "can you run …?") lifts the earlier words
(``permits_commands`` in the event): wholly when the permitted command covers the
forbidden one ("`git push`" lifts "`git push --force`"), for that form only when it is
narrower ("`npm publish --dry-run`" leaves ``npm publish`` held).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from charter.rules.commands import COMMAND_READING, ForbiddenCommand, commands_in, parse_command
from charter.rules.negation import SPAN, clause_start, clauses, negated

#: Sentences longer than this are pasted text (a log, a file), not an instruction.
_MAX_SENTENCE = 400
#: The citation a user's prohibition carries in place of a rule file's.
USER_CITE = "the user"

#: Command-line programs a bare word in prose is read as (a curated list: a machine's
#: PATH would make the journal differ between machines).
PROGRAMS = frozenset(
    {
        # version control and forges
        "git", "gh", "glab", "hg", "svn", "jj",
        # JavaScript
        "npm", "npx", "pnpm", "yarn", "bun", "bunx", "deno", "node", "corepack", "lerna",
        "nx", "turbo", "changeset", "tsc", "eslint", "prettier", "jest", "vitest",
        "playwright", "cypress", "vite", "webpack", "expo", "eas", "vercel", "netlify",
        "wrangler", "firebase", "supabase", "prisma",
        # Python
        "pip", "pipx", "pipenv", "uv", "uvx", "poetry", "pdm", "hatch", "rye", "conda", "mamba",
        "python", "pytest", "tox", "nox", "twine", "alembic", "ruff", "mypy", "django-admin",
        # other languages
        "cargo", "rustup", "dotnet", "mvn", "mvnw", "gradle", "gradlew", "sbt", "cmake",
        "ninja", "bazel", "bundle", "gem", "rails", "composer", "php", "artisan", "mix",
        "rebar3", "dune", "opam", "cabal", "xcodebuild", "flutter", "pod", "fastlane",
        "adb", "zig", "gofmt", "golangci-lint",
        # containers, clouds, infrastructure
        "docker", "docker-compose", "podman", "kubectl", "helm", "terraform", "tofu",
        "pulumi", "ansible", "ansible-playbook", "aws", "gcloud", "az", "flyctl",
        "heroku", "doctl", "systemctl", "brew", "apt", "apt-get", "dnf", "yum", "pacman",
        # databases
        "psql", "mysql", "sqlite3", "redis-cli", "mongosh", "pg_dump", "pg_restore",
        # files and processes
        "rm", "rmdir", "mv", "chmod", "chown", "sudo", "rsync", "scp", "ssh", "curl",
        "wget", "pkill", "killall", "dd", "mkfs", "truncate", "shred",
        # programs named by an English word: read only after a verb of running
        "go", "make", "just", "task", "rake", "swift", "dart", "stack", "nix", "kill",
        "fly", "next", "black",
    }
)  # fmt: skip
#: Programs named by an English word: "don't go there", "never make a mess" are no
#: commands, so these count only after a verb of running ("never run make deploy").
_ENGLISH = frozenset(
    {"go", "make", "just", "task", "rake", "swift", "dart", "stack", "kill", "fly", "next",
     "black", "mix", "bundle", "pod", "node", "python", "gem", "nix", "apt"}
)  # fmt: skip
#: What a bare command may follow: a verb of running, or a negation (see the docstring).
_RUNNING = r"run|running|use|using|execute|invoke|call|type|with|via"
_CUE = r"never|don'?t|do\s+not|must\s+not|mustn'?t|should\s+not|shouldn'?t|avoid|no\s+more"
_BARE_START = re.compile(
    # the program in a lookahead: "don't run npm …" is the cue, then the verb, then it
    rf"(?i:\b(?P<verb>{_RUNNING})|\b(?P<cue>{_CUE}))\s+(?=(?P<program>[a-z][a-z0-9_.+-]*)\s)"
)
#: An argument of a bare command: a word, a path, a flag, a ``task:name``.
_ARGUMENT = re.compile(r"^(?:-{1,2}[\w][\w.=:/@+-]*|[\w@./~][\w.:/@+=~-]*)$")
#: Words that end a bare command: what follows is prose, not its arguments.
#: (A verb of running is an argument here: ``npm run build``, ``docker run``.)
_PROSE = (
    COMMAND_READING.conditions
    | frozenset(
        {
            "and", "or", "but", "nor", "because", "since", "so", "as", "then", "than",
            "again", "anymore", "more", "now", "ever", "please", "yourself", "myself",
            "ourselves", "i", "i'll", "i'm", "me", "we", "you", "it", "that", "this",
            "these", "those", "here", "either", "too", "is", "are", "was", "be", "to",
            "instead", "rather", "manually", "locally", "directly", "automatically",
            "anything", "everything", "things", "yet", "ok", "okay", "thanks", "command",
            "commands", "script", "at", "all", "by", "hand", "unless", "the", "a", "an",
            "with", "via", "through", "using", "of", "any", "some", "first",
        }
    )
)  # fmt: skip
_MAX_ARGUMENTS = 6
#: Verbs of running that, governing a command with no negation, ask or allow it.
_PERMIT_VERBS = frozenset({"run", "use", "execute", "invoke", "call", "type", "with"})
#: The user speaking of what they do themselves ("I'll do it with `npm publish`").
_FIRST_PERSON = frozenset({"i", "i'll", "i'm", "i've", "i'd", "me", "myself", "we'll"})
#: Where the clause a command stands in ends, for who acts in it: punctuation, not a
#: conjunction ("I'll go ahead and run `X`" is still the user's own act).
_PUNCTUATION = re.compile(r"[,;:!?()\[\]—–，；：！？（）]|\s-\s")
#: Where a sentence turns to a contrast: what follows says something else.
_CONTRAST = re.compile(r"[,;]?\s+\b(?:but|though|although)\b", re.I)
#: A question that asks the agent to act ("can you run …?"); others ask about it.
_ASKING = frozenset({"can", "could", "would", "will", "please"})


@dataclass(frozen=True)
class UserForbiddenCommand:
    """A command the user forbade (``command.rule_text`` is their sentence), and the
    narrower forms of it they later allowed."""

    command: ForbiddenCommand
    time: str
    allowed: tuple[ForbiddenCommand, ...] = ()

    @property
    def words(self) -> str:
        return self.command.rule_text

    def matches(self, argv: Sequence[str | None], cwd_rel: str | None = None) -> bool:
        if any(a.matches(argv, cwd_rel) for a in self.allowed):
            return False
        return self.command.matches(argv, cwd_rel)


def _quote_bare(sentence: str) -> str:
    """``sentence`` with each bare command line in backticks (see the module docstring);
    what is already in a code span is left as it is."""
    inside = [m.span() for m in SPAN.finditer(sentence)]
    out, last = [], 0
    for m in _BARE_START.finditer(sentence):
        if m.start() < last or any(a <= m.start("program") < b for a, b in inside):
            continue
        program = m.group("program")
        if program not in PROGRAMS or (m.group("cue") and program in _ENGLISH):
            continue
        end = m.end("program")
        kept = 0
        for token in re.finditer(r"\S+", sentence[end:]):
            raw = token.group(0)
            word = raw.rstrip(",.;:!?)\"'")
            if (
                not word
                or "`" in raw
                or not _ARGUMENT.match(word)
                or word.lower() in _PROSE
                or kept >= _MAX_ARGUMENTS
            ):
                break
            kept += 1
            end = m.end("program") + token.start() + len(word)
            if word != raw:  # punctuation after it ends the clause
                break
        if not kept:
            continue  # one word is not a command
        start = m.start("program")
        out.append(sentence[last:start] + "`" + sentence[start:end] + "`")
        last = end
    return "".join(out) + sentence[last:]


def _sentences(text: str) -> list[tuple[str, str, bool]]:
    """(the sentence as the user wrote it, the sentence with bare commands quoted,
    whether it ends with a question mark) for each sentence of ``text`` short enough to
    be an instruction."""
    out = []
    for start, end in clauses(text):
        sentence = text[start:end].strip()
        if sentence and len(sentence) <= _MAX_SENTENCE:
            asked = text[end : end + 1] in ("?", "？")
            out.append((" ".join(sentence.split()), _quote_bare(sentence), asked))
    return out


#: A prohibition that closes a user's sentence after what they asked for ("Fix scrollBy,
#: and don't commit anything", "… — don't commit, I'll do that", "Fix it, but never
#: push"): the user says it to the agent about this work, so it is read as a sentence of
#: its own. (A rule file's "Run the checks, but do not commit" is a step's advice.)
_LATER_PROHIBITION = re.compile(
    r"(?:[,;—–]|\s-)\s*(?:(?:and|but|so|then)\s+)?(?:please\s+)?"
    r"(?=(?:never|do not|don't|don’t|dont)\b)",
    re.IGNORECASE,
)


def _readings(quoted: str) -> list[str]:
    """The sentence, then each prohibition that closes it (see :data:`_LATER_PROHIBITION`)."""
    return [quoted, *(quoted[m.end() :] for m in _LATER_PROHIBITION.finditer(quoted))]


def commands_forbidden_in(text: str) -> list[ForbiddenCommand]:
    """The commands ``text`` forbids, each read by :func:`commands_in` as a rule's
    sentence would be, citing the user and quoting their sentence."""
    from charter.rules.model import Rule, Source

    found: list[ForbiddenCommand] = []
    seen: set[str] = set()
    for said, quoted, _ in _sentences(text):
        read = [
            command
            for reading in _readings(quoted)
            for command in commands_in(
                Rule(id="user", text=reading, source=Source("prompt", 1, 1, ""))
            )
        ]
        for command in read:
            if command.command in seen:
                continue
            seen.add(command.command)
            found.append(
                dataclasses.replace(command, rule_id="user", cite=USER_CITE, rule_text=said)
            )
    return found


def commands_permitted_in(text: str) -> list[tuple[str, str]]:
    """(command, sentence) for each command ``text`` asks or allows the agent to run (see
    the module docstring); a command the same text forbids is not permitted by it."""
    forbidden = {c.command for c in commands_forbidden_in(text)}
    out: list[tuple[str, str]] = []
    for said, quoted, asked in _sentences(text):
        plain = re.findall(r"[a-z']+", SPAN.sub(" ", quoted).lower())
        if COMMAND_READING.conditions & set(plain):
            continue
        if asked and (plain[:1] or [""])[0] not in _ASKING:
            continue  # "did you run `npm publish`?" asks about it
        for m in SPAN.finditer(quoted):
            # a contrast turns to another clause ("you can run `X` now, but still not
            # prod", "don't run `Y`, but you can run `X`"): only a negation on the
            # command's side of it negates the command
            head = quoted[: m.end()]
            turns = list(_CONTRAST.finditer(quoted[: m.start()]))
            if turns:
                head = head[turns[-1].end() :]
            tail = quoted[m.end() :]
            contrast = _CONTRAST.search(tail)
            scope = head + (tail[: contrast.start()] if contrast else tail)
            if negated(SPAN.sub(" ", scope)):
                continue
            before = quoted[: m.start()]
            # the user acting themselves, in the command's own clause: "you can run `X`
            # now, I checked it" allows it, "I'll run `X` myself" does not
            start = max((b.end() for b in _PUNCTUATION.finditer(before)), default=0)
            stop = _PUNCTUATION.search(tail)
            own = before[start:] + " " + (tail[: stop.start()] if stop else tail)
            if _FIRST_PERSON & set(re.findall(r"[a-z']+", SPAN.sub(" ", own).lower())):
                continue
            clause = before[clause_start(before) :]
            crossed: set[str] = set()
            for word in reversed(re.findall(r"[a-z']+", clause.lower())):
                if word not in COMMAND_READING.bridge:
                    break
                crossed.add(word)
            span = m.group(1).strip()
            if crossed & _PERMIT_VERBS and span not in forbidden and parse_command(span):
                out.append((span, said))
    return out


def _argv(command: ForbiddenCommand) -> list[str | None]:
    """The smallest command line ``command`` matches (its program, words and flags)."""
    return [command.program, *command.words, *sorted(command.flags)]


def _permission(span: str) -> ForbiddenCommand | None:
    parsed = parse_command(span)
    if parsed is None:
        return None
    program, words, flags = parsed
    return ForbiddenCommand("user", USER_CITE, "", span, program, words, flags)


def lift(found: list[UserForbiddenCommand], span: str) -> list[UserForbiddenCommand]:
    """``found`` after the user allowed ``span``: a prohibition the permission covers is
    gone; one the permission narrows keeps the rest."""
    permitted = _permission(span)
    if permitted is None:
        return found
    out = []
    for held in found:
        if permitted.matches(_argv(held.command)):
            continue  # "`git push`" allowed: "`git push --force`" is lifted too
        if held.command.matches(_argv(permitted)):
            held = UserForbiddenCommand(held.command, held.time, (*held.allowed, permitted))
        out.append(held)
    return out


def _marked(session: Any, session_id: str, track: str, key: str) -> list[Any]:
    """The prompts and feedback of ``session_id`` (and the sessions it resumed) on
    ``track`` whose data has ``key``: one indexed read per session of the chain."""
    from charter.session.journal import resumed_chain
    from charter.session.service import session_key

    journal = session.journal
    chain = resumed_chain(journal, track, session_key(session_id))
    return [
        e
        for sid in chain
        for e in journal.events(
            session=sid, track=track, kinds=("prompt", "instruction"), having=key
        )
    ]


def user_forbidden_commands(
    session: object, session_id: str, track: str
) -> list[UserForbiddenCommand]:
    """What the user of ``session_id`` (and the sessions it resumed) forbade running on
    ``track`` and has not since allowed, oldest first. The prompts were read when they
    were captured (``forbids_commands`` and ``permits_commands`` in the event,
    :mod:`charter.session.capture`): this runs before every Bash call, so it reads only
    the rows so marked."""
    from charter.session.service import Session

    assert isinstance(session, Session)
    if not session_id:
        return []
    forbidding = _marked(session, session_id, track, "forbids_commands")
    if not forbidding:
        return []  # most sessions: one indexed read, nothing to lift
    found: list[UserForbiddenCommand] = []
    for e in sorted(
        forbidding + _marked(session, session_id, track, "permits_commands"), key=lambda e: e.seq
    ):
        for raw in e.data.get("forbids_commands") or []:
            if isinstance(raw, dict):
                try:
                    found.append(UserForbiddenCommand(ForbiddenCommand.from_dict(raw), e.time))
                except (KeyError, TypeError, ValueError):
                    continue  # a row of another version: not this reading
        for pair in e.data.get("permits_commands") or []:
            if isinstance(pair, list) and len(pair) == 2 and found:
                found = lift(found, str(pair[0]))
    return found
