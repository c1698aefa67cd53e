"""Which shell commands run a test suite, and how they ended.

The agent's test runs are part of what it must know after compaction ("the suite failed
on X"). The runner names below are the common test entry points of each ecosystem —
generic tool knowledge, not project content. A command counts when one of its simple
commands (split at ``|``, ``&&``, ``;`` … outside quotes) runs one of them.
"""

from __future__ import annotations

import re
import shlex

#: Programs that run tests when they are the command itself.
_RUNNERS = {
    "pytest",
    "py.test",
    "tox",
    "nox",
    "nosetests",
    "jest",
    "vitest",
    "mocha",
    "karma",
    "playwright",
    "cypress",
    "rspec",
    "phpunit",
    "ctest",
    "behave",
    "ginkgo",
    "bats",
}
#: Programs whose ``test`` sub-command runs tests (``go test``, ``npm run test:unit`` …).
_TEST_SUBCOMMAND = {
    "go",
    "cargo",
    "mix",
    "dotnet",
    "swift",
    "deno",
    "flutter",
    "dart",
    "zig",
    "bazel",
    "sbt",
    "lein",
    "stack",
    "cabal",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "mvn",
    "gradle",
    "gradlew",
    "mvnw",
    "rake",
    "composer",
    "poetry",
    "hatch",
    "make",
    "just",
    "task",
}
#: Wrappers that run the next word as the command.
_WRAPPERS = {
    "npx",
    "bunx",
    "uv",
    "uvx",
    "poetry",
    "pipenv",
    "pdm",
    "hatch",
    "rye",
    "timeout",
    "time",
    "sudo",
    "env",
    "nice",
    "exec",
    "xvfb-run",
    "dotenv",
    "run",
}
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n()]")
#: Runners whose sub-command decides whether tests run (``playwright install`` does not).
_RUNNER_SUBCOMMANDS = {"playwright": {"test"}, "cypress": {"run"}}
_NOT_RUN = re.compile(r"--no-run\b|--collect-only\b|--list\b|--version\b|--help\b")


def _words(segment: str) -> list[str]:
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    while words and ("=" in words[0] and not words[0].startswith("-")):
        words = words[1:]  # FOO=bar cmd
    return words


def _runs_tests(words: list[str]) -> bool:
    for index, word in enumerate(words[:6]):
        name = word.rsplit("/", 1)[-1].lower()
        if name.endswith(".exe"):
            name = name[:-4]
        if name in _RUNNERS:
            wanted = _RUNNER_SUBCOMMANDS.get(name)
            if wanted is None:
                return True
            rest = [w for w in words[index + 1 :] if not w.startswith("-")]
            return bool(rest) and rest[0] in wanted
        if re.fullmatch(r"python[\d.]*", name):
            rest = words[index + 1 : index + 3]
            if rest[:1] == ["-m"] and len(rest) > 1:
                return rest[1] in {"pytest", "unittest", "nose", "tox", "nox"}
            return bool(rest) and bool(
                re.match(r"(.*/)?test_\w*\.py$|(.*/)?\w*_test\.py$", rest[0])
            )
        if name in _TEST_SUBCOMMAND:
            rest = [w for w in words[index + 1 : index + 4] if not w.startswith("-")]
            if any(re.fullmatch(r"test[\w:.-]*|check|nextest|spec", w) for w in rest[:2]):
                return True
            if name in {"npm", "pnpm", "yarn", "bun"} and rest[:1] == ["run"]:
                return len(rest) > 1 and rest[1].startswith("test")
        if name in _WRAPPERS or re.fullmatch(r"\d+[smh]?", name) or word.startswith("-"):
            continue
        return False
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


def is_test_command(command: str) -> bool:
    """Whether one of the command's pipeline segments runs a test suite."""
    if _NOT_RUN.search(command):
        return False
    return any(_runs_tests(_words(seg)) for seg in _segments(command))


_FAILED = re.compile(
    r"\b\d+ (failed|failures?|errors?)\b|\bFAILED\b|\bFAIL\b|test result: FAILED|"
    r"AssertionError|panicked at|Tests?:\s+\d+ failed|\bERRORS?\b",
)
_ZERO_FAILED = re.compile(r"\b0 (failed|failures?|errors?)\b")


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
