"""Files that are machine-written or not the project's own: skipped by search and graph.

A lockfile, a minified bundle, a recorded HTTP cassette, generated code or vendored code
costs minutes of embedding on a first ``charter index`` (a ``pnpm-lock.yaml`` alone was a
quarter of SvelteKit's chunks) and then crowds search results and task context with text
nobody wrote or should edit. Each file is judged by what it is, not by a list of names:

- ``generated``: ``.gitattributes`` marks it ``linguist-generated``, or its first lines
  carry a generated-code header (``@generated``; "generated ... do not edit", the Go
  convention and what most code generators write);
- ``vendored``: ``.gitattributes`` marks it ``linguist-vendored``, or it lies in a Go
  ``vendor/`` tree (one with a ``vendor/modules.txt``, which ``go mod vendor`` writes) or
  in a Python virtual environment (a folder with the ``pyvenv.cfg`` every one has at its
  root, PEP 405, whatever it is named: a committed ``server/venv311/`` is thousands of
  installed packages' files);
- ``lockfile``: a top-level ``lockfileVersion`` (npm, pnpm), or one of the few lockfile
  names whose format carries no marker (:data:`MARKERLESS_LOCKFILES`);
- ``minified``: most of a non-prose file's bytes sit on lines of 1,000+ characters;
- ``recorded-http``: a YAML/JSON file whose records pair a ``request`` with a
  ``response`` and carry a method and a URL (VCR, vcrpy, R vcr, HAR, Polly).

Each rule is an entry of ``search.index.skip_noise``; removing it turns the rule off. The
search index reports each skipped file with its reason, as it does secret files, and the
graph (:mod:`charter.graph.files`) makes the same decision with the same function. Files
under ``search.index.sot_paths`` are never judged: the user declared them source of truth.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from charter.filetypes import TYPESET
from charter.notebooks import SUFFIX as NOTEBOOK_SUFFIX

if TYPE_CHECKING:
    import pathspec

    from charter.search.settings import IndexSettings

#: The rules, in the order they are tried (the first that holds names the reason).
NOISE_RULES = ("generated", "vendored", "lockfile", "minified", "recorded-http")

#: Lockfiles whose content has no marker of its own (the others say ``@generated`` or
#: ``lockfileVersion``). Only ``packages.lock.json`` has an extension indexed by default;
#: the rest matter once a user adds ``.lock``/``.sum`` to the indexed extensions.
MARKERLESS_LOCKFILES = frozenset(
    {
        "packages.lock.json",  # NuGet
        "gemfile.lock",  # Bundler
        "uv.lock",  # uv
        "pipfile.lock",  # Pipenv (JSON with a _meta hash, no marker)
        "composer.lock",  # Composer
        "mix.lock",  # Elixir
        "pubspec.lock",  # Dart
        "podfile.lock",  # CocoaPods
        "go.sum",  # Go module checksums
    }
)

#: Characters of a file the header and line-length rules look at: both show early.
HEAD_CHARS = 65_536
#: Characters of a YAML/JSON file searched for a recorded exchange: one request body can
#: run to hundreds of kilobytes before its ``response`` key.
DATA_CHARS = 1 << 20
#: Prose kinds: a paragraph per line is normal writing there, not minification.
_PROSE_SUFFIXES = frozenset(
    {".md", ".markdown", ".mdc", ".mdx", ".txt", ".rst", ".adoc", ".asciidoc", *TYPESET}
)
_DATA_SUFFIXES = frozenset({".yaml", ".yml", ".json", ".har"})
_LONG_LINES_OK = _PROSE_SUFFIXES | {NOTEBOOK_SUFFIX}
_MIN_NAME = re.compile(r"[.-]min\.(?:js|mjs|cjs|css)$")

_GENERATED = re.compile(
    r"@generated\b|\b(?:auto-?)?generated\b.{0,120}\b(?:do not|don't|must not) (?:edit|modify)"
    r"|\b(?:do not|don't) (?:edit|modify)\b.{0,120}\b(?:auto-?)?generated\b",
    re.IGNORECASE,
)
#: A header is a comment: a generator's own source writes the header inside a string.
_COMMENT_LEADERS = ("//", "#", "/*", "*", "<!--", "--", ";", "%", '"""')
#: ``request:`` / ``"request": {`` keys and the fields a recorded exchange carries.
_YAML_KEY = re.compile(r"^(\s*)(?:-\s+)?(request|response)\s*:\s*$", re.MULTILINE)
_JSON_KEY = re.compile(r'"(request|response)"\s*:\s*\{')
_METHOD = re.compile(r"""(?:^|[{,])\s*(?:-\s+)?["']?method["']?\s*:""", re.M | re.I)
_URL = re.compile(r"""(?:^|[{,])\s*(?:-\s+)?["']?(?:uri|url)["']?\s*:""", re.M | re.I)
#: Lines this long are machine-written (a bundle, a one-line JSON document).
LONG_LINE = 1000


def content_reason(rel: str, text: str, rules: Collection[str]) -> str | None:
    """Why ``text`` (a file's content, or its first :data:`HEAD_CHARS`) is noise, or None."""
    head = text[:HEAD_CHARS]
    if "\x00" in head:  # binary: none of these rules reads it
        return None
    name = rel.rsplit("/", 1)[-1].lower()
    suffix = Path(name).suffix
    if "generated" in rules and _generated_header(head):
        return "generated (header)"
    if "lockfile" in rules and (name in MARKERLESS_LOCKFILES or _lockfile(head)):
        return "lockfile"
    if "recorded-http" in rules and suffix in _DATA_SUFFIXES and _recorded_http(text, suffix):
        return "recorded HTTP interactions"
    # a notebook's long lines are its outputs (a plot as base64), never indexed
    if "minified" in rules and suffix not in _LONG_LINES_OK and _minified(head):
        return "minified (long lines)"
    # ``.min.js`` / ``.min.css`` is the name bundlers and CDNs give a built copy, which a
    # project keeps beside its own code (``static/vendor/``) even when it is laid out on
    # short lines: it is not the project's code whatever its lines
    if "minified" in rules and _MIN_NAME.search(name):
        return "minified (.min. name)"
    return None


def _generated_header(head: str) -> bool:
    """The comment lines among the first ten, read as one text (a header may wrap)."""
    lines = (line.strip() for line in head.split("\n", 10)[:10])
    comments = " ".join(line for line in lines if line.startswith(_COMMENT_LEADERS))
    return bool(comments) and _GENERATED.search(comments) is not None


def _lockfile(head: str) -> bool:
    """npm's and pnpm's lockfiles open with ``lockfileVersion`` (pnpm: first key; npm:
    after ``name`` and ``version``)."""
    start = head.lstrip("\ufeff \t\r\n")
    if start.startswith("lockfileVersion:"):
        return True
    return start.startswith("{") and '"lockfileVersion"' in start[:1024]


def _minified(head: str) -> bool:
    if len(head) < 1024:
        return False
    long_bytes = sum(len(line) for line in head.split("\n") if len(line) >= LONG_LINE)
    return long_bytes * 2 >= len(head)


def _recorded_http(text: str, suffix: str) -> bool:
    """A request and a response as sibling keys, and a method and a URL. (The syntax is
    the file's own: a YAML cassette's bodies quote JSON that has ``"response": {`` too.)"""
    head = text[:DATA_CHARS]
    if "request" not in head or "response" not in head:
        return False
    if suffix in (".json", ".har"):
        keys = {m.group(1) for m in _JSON_KEY.finditer(head)}
        paired = keys == {"request", "response"}
    else:
        indents: dict[str, set[str]] = {"request": set(), "response": set()}
        for match in _YAML_KEY.finditer(head):
            indents[match.group(2)].add(match.group(1))
        paired = bool(indents["request"] & indents["response"]) or bool(
            # "- request:" puts request two columns left of its sibling "response:"
            {i + "  " for i in indents["request"]} & indents["response"]
        )
    return paired and bool(_METHOD.search(head)) and bool(_URL.search(head))


@dataclass
class _Attributes:
    """The ``linguist-*`` patterns of one ``.gitattributes``: (pattern, attribute, set?)."""

    rules: list[tuple[pathspec.PathSpec, str, bool]] = field(default_factory=list)


# Patterns that match every file. Set in the root `.gitattributes`, `linguist-vendored`
# or `-generated` says nothing about the files: it is GitHub's way to hide languages from
# a repository's language bar (`* linguist-vendored`, then `*.ex linguist-vendored=false`
# to show one), and read as a verdict it would drop the whole project from the index and
# the graph. In a folder's own `.gitattributes` (`third_party/.gitattributes`) the same
# line does mark that folder, and is kept.
_EVERY_FILE = frozenset({"*", "**", "**/*", "/**", "/**/*"})


def _parse_attributes(path: Path, *, root: bool = False) -> _Attributes:
    import pathspec

    from charter.search.discover import read_ignore_file

    out = _Attributes()
    for raw in read_ignore_file(path):
        line = raw.strip()
        if not line or line.startswith(("#", '"', "[")):
            continue
        pattern, *attrs = line.split()
        if pattern.endswith("/"):  # git applies no attributes to directory patterns
            continue
        for attr in attrs:
            unset = attr.startswith(("-", "!"))
            key, _, value = attr.lstrip("-!").partition("=")
            if key in ("linguist-generated", "linguist-vendored"):
                on = not unset and value.lower() not in ("false", "0")
                if on and root and pattern in _EVERY_FILE:
                    continue
                spec = pathspec.PathSpec.from_lines("gitignore", [pattern])
                out.rules.append((spec, key, on))
    return out


class NoiseRules:
    """The project's noise decision: ``.gitattributes`` (read once per directory), the
    Go vendor tree test, and the content rules, limited to the enabled ``rules``."""

    def __init__(self, root: Path, rules: Collection[str], sot_paths: Collection[str]) -> None:
        self.root = root
        self.rules = frozenset(rules)
        self.sot_paths = list(sot_paths)
        self._attributes: dict[str, _Attributes] = {}
        self._vendor: dict[str, bool] = {}
        self._venv: dict[str, bool] = {}

    def _attrs_of(self, directory: str) -> _Attributes:
        if directory not in self._attributes:
            path = self.root / directory / ".gitattributes"
            self._attributes[directory] = (
                _parse_attributes(path, root=not directory) if path.is_file() else _Attributes()
            )
        return self._attributes[directory]

    def _linguist(self, rel: str) -> set[str]:
        """The ``linguist-generated``/``-vendored`` attributes set on ``rel`` (last wins,
        deeper ``.gitattributes`` after shallower, ``.git/info/attributes`` last)."""
        state: dict[str, bool] = {}
        parts = rel.split("/")
        for depth in range(len(parts)):
            directory = "/".join(parts[:depth])
            below = "/".join(parts[depth:])
            for spec, key, on in self._attrs_of(directory).rules:
                if spec.match_file(below):
                    state[key] = on
        info = self._attributes.get("\0info")
        if info is None:
            path = self.root / ".git" / "info" / "attributes"
            info = _parse_attributes(path, root=True) if path.is_file() else _Attributes()
            self._attributes["\0info"] = info
        for spec, key, on in info.rules:
            if spec.match_file(rel):
                state[key] = on
        return {key for key, on in state.items() if on}

    def _go_vendored(self, rel: str) -> bool:
        parts = rel.split("/")
        for depth, part in enumerate(parts[:-1]):
            if part != "vendor":
                continue
            directory = "/".join(parts[: depth + 1])
            if directory not in self._vendor:
                self._vendor[directory] = (self.root / directory / "modules.txt").is_file()
            if self._vendor[directory]:
                return True
        return False

    def _in_virtualenv(self, rel: str) -> bool:
        """Whether a folder above ``rel`` is a Python virtual environment (it holds a
        ``pyvenv.cfg``); each folder is looked at once."""
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            directory = "/".join(parts[:depth])
            if directory not in self._venv:
                self._venv[directory] = (self.root / directory / "pyvenv.cfg").is_file()
            if self._venv[directory]:
                return True
        return False

    def _exempt(self, rel: str) -> bool:
        from charter.search.discover import matches_any

        return matches_any(rel, self.sot_paths)

    def named_lockfile(self, rel: str) -> bool:
        """A lockfile by its name alone (``Gemfile.lock``, ``go.sum``), under the rule."""
        name = rel.rsplit("/", 1)[-1].lower()
        return "lockfile" in self.rules and not self._exempt(rel) and name in MARKERLESS_LOCKFILES

    def path_reason(self, rel: str) -> str | None:
        """Why ``rel`` is noise by where it is (``.gitattributes``, a Go vendor tree, a
        Python virtual environment)."""
        if not self.rules or self._exempt(rel):
            return None
        attrs = self._linguist(rel) if {"generated", "vendored"} & self.rules else set()
        if "generated" in self.rules and "linguist-generated" in attrs:
            return "generated (.gitattributes)"
        if "vendored" in self.rules and "linguist-vendored" in attrs:
            return "vendored (.gitattributes)"
        if "vendored" in self.rules and self._go_vendored(rel):
            return "vendored (Go vendor/)"
        if "vendored" in self.rules and self._in_virtualenv(rel):
            return "vendored (Python virtualenv)"
        return None

    def text_reason(self, rel: str, text: str) -> str | None:
        """Why ``rel`` is noise by its content (header, lockfile, long lines, cassette)."""
        if not self.rules or self._exempt(rel):
            return None
        return content_reason(rel, text, self.rules)


def noise_rules(root: Path, index: IndexSettings) -> NoiseRules:
    """The noise decision for a project's ``[search.index]`` settings."""
    return NoiseRules(root, index.skip_noise, index.sot_paths)


def read_head(path: Path) -> str:
    """As much of ``path`` as the rules look at, as text (more of a YAML/JSON file)."""
    limit = DATA_CHARS if path.suffix.lower() in _DATA_SUFFIXES else HEAD_CHARS
    with open(path, "rb") as handle:
        return handle.read(limit).decode("utf-8", errors="replace")
