"""Which shell commands run a test suite, and how they ended.

The agent's test runs are part of what it must know after compaction ("the suite failed
on X"). A command counts when one of its simple commands (split at ``|``, ``&&``, ``;`` …
outside quotes) runs tests. Each simple command is read the way its program reads it:

- the program by its base name (``bin/rails`` and ``./vendor/bin/phpunit`` are ``rails``
  and ``phpunit``; ``.exe``/``.cmd``/``.phar``/``.js`` dropped), after any ``VAR=value``;
- through wrappers and launchers to the command they run (``time``, ``env``, ``npx``,
  ``bundle exec``, ``uv run``, ``poetry run``, ``docker compose run SERVICE``, ``bash -c
  '…'``), and interpreters to the script or module (``python -m pytest``, ``php
  artisan``, ``ruby bin/rails``, ``node --test``);
- then: a test runner (``pytest``, ``rspec``, ``phpunit``), a tool whose sub-command runs
  tests (``go test``, ``rails test:system``, ``artisan test``, ``npm run test:unit``), or
  a build tool given a test goal (``make test``, ``./gradlew :app:test``, ``zig build
  test``, ``mvn clean verify``).

The names below are generic tool knowledge — the common test entry points of each
ecosystem — not project content, and deliberately few: a project's own script counts when
its name starts with ``test`` (``npm run test:e2e``, ``make tests``, ``rake spec``).
"""

from __future__ import annotations

import re
import shlex

#: Test runners: the program itself runs tests (``unittest``/``nose2`` as ``python -m``).
_RUNNERS = frozenset(
    {
        "pytest", "py.test", "tox", "nox", "nosetests", "nose2", "unittest",
        "jest", "vitest", "mocha", "karma", "ava", "playwright", "cypress",
        "rspec", "phpunit", "pest", "paratest",
        "ctest", "gotestsum", "behave", "ginkgo", "bats", "prove",
        "busted", "nf-test", "ct_run",
    }
)  # fmt: skip
#: Runners whose sub-command decides whether tests run (``playwright install`` does not).
_RUNNER_SUBCOMMANDS = {"playwright": {"test"}, "cypress": {"run"}, "nf-test": {"test"}}
#: Tools whose first sub-command runs tests when it is a test word (``go test``,
#: ``cargo nextest``, ``rails test:system``, ``artisan test``, ``npm test``).
_SUBCOMMAND_TOOLS = frozenset(
    {
        "go", "cargo", "dotnet", "swift", "mix", "deno", "bun", "flutter", "dart",
        "stack", "cabal", "lein", "bazel", "bazelisk", "ng", "nx", "turbo", "hatch",
        "npm", "pnpm", "yarn", "composer", "rails", "artisan", "manage.py",
        "django-admin", "django", "pio", "platformio", "gleam",
    }
)  # fmt: skip
#: Build tools given goals: a test goal among the first ones runs tests (``make lint
#: test``, ``zig build test``), as do the goals listed (``make check``, ``mvn verify``).
_GOAL_TOOLS: dict[str, frozenset[str]] = {
    "make": frozenset({"check"}),
    "gradle": frozenset({"check"}),
    "gradlew": frozenset({"check"}),
    "mvn": frozenset({"verify"}),
    "mvnw": frozenset({"verify"}),
    # OCaml's build system: ``dune test``, ``dune runtest``, ``dune build @runtest``
    "dune": frozenset({"runtest", "@runtest"}),
    # Erlang's build tool: ``rebar3 eunit``, ``rebar3 ct --suite x``, ``rebar3 do eunit, ct``
    "rebar3": frozenset({"eunit", "ct", "proper"}),
    **dict.fromkeys(("just", "task", "rake", "sbt", "zig", "xcodebuild"), frozenset()),
}
#: Tools whose goals are task paths: ``./gradlew :app:test``, ``nx run web:test``.
_TASK_PATHS = frozenset({"gradle", "gradlew", "nx"})
#: Launchers: after one of these sub-commands comes the command they run (``bundle exec
#: rspec``, ``uv run pytest``, ``docker compose run web bin/rails test``); "" means the
#: command follows the launcher's options directly (``time``, ``npx``), or, beside
#: sub-commands, may stand in their place (``yarn jest``).
_DIRECT = frozenset({""})
_LAUNCHERS: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        (
            "env", "sudo", "doas", "time", "timeout", "nice", "nohup", "exec", "command",
            "stdbuf", "xvfb-run", "dotenv", "nyc", "c8", "npx", "pnpx", "bunx", "uvx",
        ),
        _DIRECT,
    ),
    "npm": frozenset({"run", "run-script", "exec", "x"}),
    "pnpm": frozenset({"run", "exec", "dlx", ""}),
    "yarn": frozenset({"run", "exec", "dlx", ""}),
    "bun": frozenset({"run", "x"}),
    "composer": frozenset({"run", "run-script", "exec"}),
    "deno": frozenset({"task"}),
    **dict.fromkeys(("nx", "turbo", "lerna", "mise"), frozenset({"run"})),
    **dict.fromkeys(
        ("uv", "poetry", "pipenv", "pdm", "rye", "hatch", "pixi", "pipx", "conda", "mamba"),
        frozenset({"run"}),
    ),
    "bundle": frozenset({"exec"}),
    # the project's environment around a command: ``direnv exec . cabal test`` (the
    # folder is an operand, not the command), ``opam exec -- dune runtest``
    **dict.fromkeys(("direnv", "opam"), frozenset({"exec"})),
    **dict.fromkeys(("docker", "podman", "docker-compose"), frozenset({"run", "exec"})),
}  # fmt: skip
#: Launchers whose ``run`` also runs a project script by name (``npm run test:unit``,
#: ``pdm run test``, ``deno task test``).
_SCRIPT_RUNNERS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "composer", "deno", "nx", "turbo", "lerna", "mise",
     "pdm", "hatch", "pixi", "rye"}
)  # fmt: skip
#: Sub-commands that only choose where the real one runs, with the operands they take
#: (``docker compose run``, ``yarn workspace web test``).
_HOPS = {"compose": 0, "container": 0, "workspace": 1, "workspaces": 0, "foreach": 0}
#: Options that take a value before a sub-command (``pnpm --filter web test``, ``make -C
#: build test``, ``docker compose -f ci.yml run``).
_VALUE_OPTIONS = frozenset(
    {
        "-C", "--dir", "--cwd", "--prefix", "-F", "--filter", "-w", "--workspace", "-f",
        "--file", "-p", "--project", "--project-name", "--project-directory", "-pl",
        "--projects",
    }
)  # fmt: skip
#: Interpreters: (options taking a value, options whose value is code, the option naming
#: a module to run, a flag that runs the test runner built into it).
_INTERPRETERS: dict[str, tuple[frozenset[str], frozenset[str], str, str]] = {
    "python": (frozenset({"-W", "-X"}), frozenset({"-c"}), "-m", ""),
    "ruby": (frozenset({"-I", "-r", "-C", "-E"}), frozenset({"-e"}), "", ""),
    "php": (frozenset({"-d", "-c"}), frozenset({"-r"}), "", ""),
    "node": (
        frozenset({"-r", "--require", "--import", "--loader"}),
        frozenset({"-e", "--eval", "-p", "--print"}),
        "",
        "--test",
    ),
    # julia [options] test/runtests.jl | -e 'using Pkg; Pkg.test()'
    "julia": (
        frozenset({"-t", "--threads", "-p", "--procs", "-J", "--sysimage", "-L", "--load"}),
        frozenset({"-e", "--eval", "-E", "--print"}),
        "",
        "",
    ),
    # R's front ends: Rscript -e 'devtools::test()', R -e 'testthat::test_dir("tests")'
    "rscript": (frozenset(), frozenset({"-e"}), "", ""),
    "r": (frozenset(), frozenset({"-e"}), "", ""),
    # coverage run [options] -m pytest | script.py
    "coverage": (
        frozenset({"--rcfile", "--source", "--include", "--omit", "--data-file"}),
        frozenset(),
        "-m",
        "",
    ),
}
#: Code given on an interpreter's command line that runs the language's own test entry
#: point: Julia's ``julia -e 'using Pkg; Pkg.test()'``, R's ``devtools::test()``,
#: ``testthat::test_dir(…)`` and the package checks that run the tests
#: (``devtools::check()``, ``rcmdcheck::rcmdcheck()``).
_R_TEST_CODE = re.compile(
    r"\b(?:devtools::(?:test|check)|(?:testthat::)?test_(?:dir|file|local|check|package)"
    r"|(?:rcmdcheck::)?rcmdcheck|tinytest::(?:test_\w+|run_test_\w+))\s*\("
)
_TEST_CODE = {
    "julia": re.compile(r"\bPkg\.test\s*\("),
    "rscript": _R_TEST_CODE,
    "r": _R_TEST_CODE,
}
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_KNOWN = (
    _RUNNERS | _SUBCOMMAND_TOOLS | set(_GOAL_TOOLS) | set(_LAUNCHERS) | set(_INTERPRETERS)
) | _SHELLS
#: A project's test task or script by its name: ``test``, ``test:system``, ``tests``,
#: ``test-e2e``, ``testOnly`` (sbt), ``spec`` (rake), ``nextest`` (cargo).
_TEST_WORD = re.compile(r"test[\w:.-]*|specs?(?:[:.-][\w:.-]*)?|nextest", re.I)
#: A script that runs tests by its file name: ``test_x.py``, ``x_test.rb``, ``x_spec.rb``,
#: ``runtests.py``, ``script/test``, ``./test.sh``.
_TEST_SCRIPT = re.compile(
    r"(?:test_\w+|\w+_(?:test|spec)|run[-_]?tests?|tests?)(?:\.(?:py|rb|php|sh|bash|js|ts|jl))?",
    re.I,
)
_PROGRAM_SUFFIX = re.compile(r"\.(?:exe|cmd|bat|phar|js|mjs|cjs)$", re.I)
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n()]")
_NOT_RUN = re.compile(r"--no-run\b|--collect-only\b|--list\b|--version\b|--help\b")
#: Candidates a launcher's command is looked for among (service names, images and
#: option values come before it), and words read of one simple command.
_SCAN = 8
_MAX_WORDS = 64
_MAX_DEPTH = 3


def _words(segment: str) -> list[str]:
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    return words[:_MAX_WORDS]


def _base(word: str) -> str:
    return re.split(r"[\\/]", word)[-1]


def _program(word: str) -> str:
    """The program a word runs, as its tables name it: ``bin/rails`` -> ``rails``,
    ``vendor/bin/phpunit.phar`` -> ``phpunit``, ``python3.12`` -> ``python``."""
    name = _PROGRAM_SUFFIX.sub("", _base(word)).lower()
    if re.fullmatch(r"(?:python|pypy)[\d.]*", name):
        return "python"
    return name


def _test_script(word: str) -> bool:
    """A script run by its path whose name says it runs tests (``./test.sh``,
    ``script/test``); a bare ``test`` is the shell's builtin."""
    return bool(re.search(r"[\\/]", word)) and bool(_TEST_SCRIPT.fullmatch(_base(word)))


def _is_program(word: str) -> bool:
    """Whether a launcher's argument is the command it runs, not a service, image or
    option value: a program these tables know, or a test script by its path."""
    return _program(word) in _KNOWN or _test_script(word)


#: Task runners whose task names a monorepo prefixes with a package (``task
#: backend:test``, ``mise run api:test``, ``pnpm run web:test:e2e``): the test word may
#: come after such a namespace. Rake's and Rails' ``db:test:prepare`` are not among them.
_NAMESPACED = frozenset({"task", "mise", "npm", "pnpm", "yarn", "bun", "deno"})


def _is_test_word(word: str, program: str) -> bool:
    word = word.split()[0] if word.strip() else ""
    if program in _TASK_PATHS:
        word = word.rsplit(":", 1)[-1]
    if program in _NAMESPACED:
        parts = word.split(":")
        return any(_TEST_WORD.fullmatch(":".join(parts[i:])) for i in range(len(parts)))
    return bool(_TEST_WORD.fullmatch(word))


class _Command:
    """One simple command's words, readable from any position: a launcher's command is
    looked for past its options and arguments, and each position is read once."""

    def __init__(self, words: list[str], depth: int) -> None:
        self.words = words
        self.depth = depth
        self.memo: dict[int, bool] = {}

    def runs_tests(self, at: int = 0) -> bool:
        if at not in self.memo:
            self.memo[at] = False  # a position never reads itself again
            self.memo[at] = self._read(at)
        return self.memo[at]

    def _operands(self, start: int) -> list[int]:
        """Positions of the words after ``start`` that are not options (nor the values
        of options that take one), past any hop (``docker compose``)."""
        out: list[int] = []
        at = start
        while at < len(self.words):
            word = self.words[at]
            if word.startswith("-"):
                at += 2 if word in _VALUE_OPTIONS else 1
                continue
            out.append(at)
            at += 1
        first = 0
        while first < len(out) and self.words[out[first]].lower() in _HOPS:
            first += 1 + _HOPS[self.words[out[first]].lower()]
        return out[first:]

    def _read(self, at: int) -> bool:
        words = self.words
        while at < len(words) and _ASSIGNMENT.match(words[at]):
            at += 1  # FOO=bar cmd
        if at >= len(words):
            return False
        raw = words[at]
        name = _program(raw)
        if name in _RUNNERS:
            wanted = _RUNNER_SUBCOMMANDS.get(name)
            rest = self._operands(at + 1)
            return wanted is None or (bool(rest) and words[rest[0]] in wanted)
        if name in _SHELLS:
            return self._shell(at + 1)
        if name in _INTERPRETERS:
            return self._interpreted(name, at + 1)
        if _test_script(raw):
            return True
        operands = self._operands(at + 1)
        verb = words[operands[0]] if operands else ""
        if name in _SUBCOMMAND_TOOLS and _is_test_word(verb, name):
            return True
        goals = _GOAL_TOOLS.get(name)
        if goals is not None and any(
            _is_test_word(words[i], name) or words[i].lower().rstrip(",") in goals
            for i in operands[:4]
        ):
            return True
        return self._launched(name, at, operands)

    def _launched(self, name: str, at: int, operands: list[int]) -> bool:
        """Whether the command a launcher runs is a test run (or, for a script runner,
        the project script it names is a test script)."""
        verbs = _LAUNCHERS.get(name)
        if verbs is None:
            return False
        if verbs is _DIRECT:
            start = at + 1
        elif operands and self.words[operands[0]] in verbs:
            after = operands[1:]
            if name in _SCRIPT_RUNNERS and after and _is_test_word(self.words[after[0]], name):
                return True
            start = operands[0] + 1
        elif "" in verbs and operands:
            return self.runs_tests(operands[0])  # yarn jest: the verb is a program
        else:
            return False
        seen = 0
        for index in range(start, len(self.words)):
            word = self.words[index]
            if word.startswith("-"):
                continue
            if _is_program(word):
                return self.runs_tests(index)  # the command: it decides
            seen += 1
            if seen >= _SCAN:
                break
        return False

    def _shell(self, start: int) -> bool:
        """``bash -c '…'`` reads the string as a command; ``bash test.sh`` a script."""
        words = self.words
        for index in range(start, len(words)):
            word = words[index]
            if word == "-c" or (word.startswith("-") and not word.startswith("--") and "c" in word):
                if index + 1 < len(words) and self.depth < _MAX_DEPTH:
                    return is_test_command(words[index + 1], depth=self.depth + 1)
                return False
            if not word.startswith("-"):
                return bool(_TEST_SCRIPT.fullmatch(_base(word)))
        return False

    def _interpreted(self, name: str, start: int) -> bool:
        """An interpreter runs a module (``python -m pytest``), its built-in runner
        (``node --test``), a test file, or a script read like a program (``php artisan
        test``, ``ruby bin/rails test``, ``python manage.py test``)."""
        value_options, code_options, module_option, test_flag = _INTERPRETERS[name]
        words = self.words
        index = start
        if name == "coverage":
            if index >= len(words) or words[index] != "run":
                return False
            index += 1
        while index < len(words):
            word = words[index]
            if module_option and word == module_option:
                return index + 1 < len(words) and self.runs_tests(index + 1)
            if test_flag and word == test_flag:
                return True
            if name == "r" and word == "CMD":
                # R CMD check runs the package's tests (R CMD build, INSTALL do not)
                return index + 1 < len(words) and words[index + 1] == "check"
            if word in code_options:
                code = _TEST_CODE.get(name)
                return bool(code and index + 1 < len(words) and code.search(words[index + 1]))
            if word.startswith("-"):
                index += 2 if word in value_options else 1
                continue
            return bool(_TEST_SCRIPT.fullmatch(_base(word))) or self.runs_tests(index)
        return False


def _segments(command: str) -> list[str]:
    """The command's simple commands: split at ``|``, ``&&``, ``;`` … outside quotes (a
    ``|`` inside ``grep -E "a|b"`` is part of the pattern, not a pipe)."""
    out: list[str] = []
    start = i = 0
    quote = ""
    while i < len(command):
        char = command[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char == "\\":
            i += 1
        elif char in "'\"":
            quote = char
        else:
            match = _SEPARATORS.match(command, i)
            if match:
                out.append(command[start:i])
                start = i = match.end()
                continue
        i += 1
    out.append(command[start:])
    return [seg for seg in out if seg.strip()]


def is_test_command(command: str, *, depth: int = 0) -> bool:
    """Whether one of the command's simple commands runs a test suite (``depth``: how
    many ``bash -c`` strings it sits inside)."""
    if _NOT_RUN.search(command):
        return False
    return any(_Command(_words(seg), depth).runs_tests() for seg in _segments(command))


_FAILED = re.compile(
    r"\b\d+ (failed|failures?|errors?)\b|\bFAILED\b|\bFAIL\b|test result: FAILED|"
    r"AssertionError|panicked at|Tests?:\s+\d+ failed|\bERRORS?\b",
)
#: A count of none: "0 failed", and a tally that names the count after its label
#: (testthat's "[ FAIL 0 | WARN 0 | SKIP 0 | PASS 48 ]", "FAILED: 0", "ERRORS=0").
_ZERO_FAILED = re.compile(
    r"\b0 (failed|failures?|errors?)\b|\b(?:FAIL(?:ED|URES?)?|ERRORS?)\s*[:=]?\s*0\b(?![.,]\d)"
)


def normalise(command: str) -> str:
    return " ".join(command.split())


def outcome(output: str, *, failed: bool, finished: bool = True) -> str:
    """``fail`` on an error exit or failures in the output, ``pass`` otherwise, ``unknown``
    when it did not run to an end (backgrounded, interrupted, rejected)."""
    if not finished:
        return "unknown"
    if failed:
        return "fail"
    cleaned = _ZERO_FAILED.sub("", output)
    if _FAILED.search(cleaned):
        return "fail"
    return "pass" if output.strip() else "unknown"


def first_word(command: str) -> str:
    try:
        parts = shlex.split(command)
    except ValueError:
        parts = command.split()
    return parts[0] if parts else ""
