"""One file → one cacheable record: hash, language, symbols, imports, terms, notes.

The record is all the builder needs from a file, so an incremental build re-reads only
files whose size or mtime changed and whose SHA-256 then differs. Bad input never stops
a build: a binary file, a file over ``graph.max_file_bytes`` or source tree-sitter cannot
parse stays a file-level node and carries a note that the build reports.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.errors import CharterError
from charter.filetypes import (
    BUILD_AND_INTERFACES,
    SHADERS,
    SOURCES_READ_AS_TEXT,
    TEMPLATES,
    TYPESET,
    TYPESET_SUPPORT,
)
from charter.graph import (
    docs,
    extract_c,
    extract_csharp,
    extract_dart,
    extract_elixir,
    extract_go,
    extract_hcl,
    extract_js,
    extract_jvm,
    extract_lua,
    extract_php,
    extract_proto,
    extract_python,
    extract_ruby,
    extract_rust,
    extract_scala,
    extract_sfc,
    extract_shell,
    extract_solidity,
    extract_swift,
    extract_zig,
    frontend,
)
from charter.graph.parsers import language_of
from charter.graph.text import term_counts
from charter.notebooks import SUFFIX as NOTEBOOK_SUFFIX
from charter.notebooks import read_notebook

_TEXT_SUFFIXES = (
    ".md",
    ".markdown",
    ".mdc",
    ".rst",
    ".txt",
    *TYPESET,
    *TYPESET_SUPPORT,
    ".css",
    ".scss",
    ".less",
    ".sass",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".cfg",
    ".config",
    ".ini",
    ".sql",
    ".rb",
    ".ino",
    *BUILD_AND_INTERFACES,
    # patches a project carries for its dependencies (Electron's Chromium patches)
    ".patch",
    ".diff",
    *SHADERS,
    ".php",
    ".mdx",
    ".csv",
    # other languages' sources, read as text (no symbols): a task's words still find them
    *SOURCES_READ_AS_TEXT,
    # and their notebooks and data files
    ".rmd",
    ".qmd",
    ".edn",
    ".zon",
    ".gradle",
    ".kts",
    ".graphql",
    ".ps1",
    ".cmake",
    ".xml",
    # .NET: component and page templates, MSBuild project and build files, Bicep
    ".razor",
    ".cshtml",
    ".xaml",
    ".csproj",
    ".fsproj",
    ".props",
    ".targets",
    ".bicep",
    # build and dependency files named by their tool: a gem's or pod's spec, Nix, Cabal,
    # Bazel and Starlark, Make includes, a Visual Studio solution, autotools inputs
    ".gemspec",
    ".podspec",
    ".nix",
    ".cabal",
    ".bazel",
    ".bzl",
    ".mk",
    ".sln",
    ".ac",
    ".am",
)
#: Build, dependency and container files named without a text suffix, read as text: a
#: task that bumps a dependency ("bump modernc.org/sqlite to v1.49") lands in ``go.mod``,
#: and its words must find it. Lockfiles (``go.sum``, ``Pipfile.lock``) stay unread:
#: hashes and pinned transitive versions are noise to every task.
_TEXT_NAMES = frozenset(
    [
        "makefile",
        "gnumakefile",
        "dockerfile",
        "containerfile",
        "gemfile",
        "rakefile",
        "justfile",
        "dune",
        "dune-project",
        "go.mod",
        "go.work",
        "pipfile",
        "podfile",
        "brewfile",
        "vagrantfile",
        "procfile",
        "jenkinsfile",
        "earthfile",
        "tiltfile",
        "caddyfile",
        "snakefile",
        "build",
        "buck",
        "workspace",
        "meson.build",
        "makefile.in",
        "description",
        "rust-toolchain",
        ".python-version",
        ".node-version",
        ".nvmrc",
        ".tool-versions",
    ]
)
#: ``Dockerfile.dev``, ``api.dockerfile``: a container file by its name's first or last part.
_CONTAINER_NAMES = ("dockerfile", "containerfile")
_GO_MODULE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
_PUBSPEC_NAME = re.compile(r"^name:\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_CARGO_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*$")
_CARGO_NAME = re.compile(r"""^\s*name\s*=\s*["']([A-Za-z0-9_-]+)["']""")
_MAX_TERMS_BYTES = 400_000  # terms of larger text files are cut here (bounded memory)


#: Folders of tests: pytest/unittest, jest's ``__tests__``, RSpec and busted ``spec``,
#: Flutter's ``integration_test``
TEST_DIRS = frozenset(
    ["tests", "test", "testing", "__tests__", "spec", "specs", "integration_test"]
)
#: Languages whose test classes are named ``FooTest`` / ``FooTests`` (JUnit, xUnit, XCTest).
CLASS_NAMED_TESTS = frozenset(
    [".java", ".kt", ".cs", ".swift", ".scala", ".groovy", ".fs", ".vb", ".php"]
)
#: A Gradle or Kotlin Multiplatform test source set under ``src/``: ``commonTest``,
#: ``androidUnitTest``, ``jvmTest``, ``testFixtures``, ``testDebug``.
_TEST_SOURCE_SET = re.compile(r"[a-z][A-Za-z0-9]*Test|test[A-Z][A-Za-z0-9]*")
#: A .NET test project folder: ``Foo.Tests``, ``Foo.UnitTests``, ``Foo.IntegrationTest``.
_DOTNET_TEST_PROJECT = re.compile(r".+\.[a-z]*tests?", re.IGNORECASE)
CLASS_TEST_STEM = re.compile(r".*[a-z0-9]Tests?")


def is_test_path(path: str) -> bool:
    """Tests by the usual conventions: pytest, jest/vitest, ``__tests__`` folders, Go's
    ``_test.go``, RSpec's and busted's ``_spec`` files, Foundry's ``.t.sol``, Flutter's
    ``integration_test/``, Gradle and Kotlin Multiplatform test source sets
    (``src/commonTest/``), .NET test projects (``Foo.Tests/``) and JVM/.NET/PHPUnit test
    classes (``FooTest.kt``, ``FooTest.php``)."""
    cased = path.split("/")
    parts = path.lower().split("/")
    name = parts[-1]
    if any(p in TEST_DIRS for p in parts[:-1]):
        return True
    for i, part in enumerate(cased[:-1]):
        if i and parts[i - 1] == "src" and _TEST_SOURCE_SET.fullmatch(part):
            return True
        if _DOTNET_TEST_PROJECT.fullmatch(part):
            return True
    stem = name.split(".", 1)[0]
    suffix = name[name.rfind(".") :] if "." in name else ""
    return (
        name.startswith("test_")
        or stem.endswith(("_test", "_spec"))  # Go, Dart; RSpec, busted (Lua), Jasmine
        or stem in ("test", "tests")  # a Django app's ``tests.py``, Rust's ``tests.rs``
        or name == "conftest.py"
        or any(_is_test_marker(part) for part in name.split(".")[1:-1])
        or name.endswith(".t.sol")  # Foundry's tests (its scripts are ``.s.sol``)
        or (
            suffix in CLASS_NAMED_TESTS
            and bool(CLASS_TEST_STEM.fullmatch(cased[-1].split(".", 1)[0]))
        )
    )


def _cargo_crate(text: str) -> str:
    """The name a Cargo package's library is used by (``[lib] name``, else the package's
    name, ``-`` read as ``_``), or "" for a workspace manifest."""
    names: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        header = _CARGO_SECTION.match(line)
        if header:
            section = header.group(1).strip()
            continue
        name = _CARGO_NAME.match(line)
        if name and section in ("package", "lib"):
            names.setdefault(section, name.group(1))
    return (names.get("lib") or names.get("package", "")).replace("-", "_")


def _is_test_marker(part: str) -> bool:
    """A dotted name segment that marks a test runner's file: ``.test.``/``.spec.`` and
    the compounds test runners are configured with: ``.e2e-spec.`` (NestJS), ``.test-d.``
    (vitest type tests), ``.int_test.``, ``.clienttest.``/``.servertest.``/``.unittests.``
    (an environment glued to "test"; at least four letters before it, so ``latest``,
    ``contest`` or ``protest`` are not tests)."""
    part = part.lower()
    words = part.replace("_", "-").split("-")
    if part in ("test", "tests", "spec", "specs") or (
        len(words) > 1
        and (words[-1] in ("test", "tests", "spec", "specs") or words[0] in ("test", "spec"))
    ):
        return True
    glued = part.removesuffix("s")
    return part.isalpha() and glued.endswith("test") and len(glued) >= 8


#: the name segment of a component's stories (Storybook's ``Button.stories.tsx``, also
#: ``.story.``): they show a component in use, like example code
_STORY_MARKERS = frozenset(["stories", "story"])

#: folders whose code shows how to use the project rather than being it (documentation
#: builds, example scripts): generic layout words, like the test folders above
_EXAMPLE_DIRS = frozenset(["doc", "docs", "example", "examples"])


def is_example_path(path: str) -> bool:
    """Code under a documentation or examples folder (``doc/usage/example_google.py``,
    a DocC catalog's tutorial code: ``Sources/App/App.docc/Tutorials/step-01.swift``), and
    a component's Storybook stories."""
    parts = path.lower().split("/")
    if any(seg in _STORY_MARKERS for seg in parts[-1].split(".")[1:-1]):
        return True
    return any(part in _EXAMPLE_DIRS or part.endswith(".docc") for part in parts[:-1])


def _psr4(rel: str, text: str) -> list[list[str]]:
    """composer.json's PSR-4 autoload map (``autoload`` and ``autoload-dev``) as
    ``[namespace prefix, folder]`` pairs, folders relative to the project root."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return []
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    out: set[tuple[str, str]] = set()
    for section in ("autoload", "autoload-dev"):
        autoload = data.get(section) if isinstance(data, dict) else None
        psr4 = autoload.get("psr-4") if isinstance(autoload, dict) else None
        for prefix, dirs in psr4.items() if isinstance(psr4, dict) else ():
            for d in [dirs] if isinstance(dirs, str) else dirs if isinstance(dirs, list) else []:
                if isinstance(prefix, str) and isinstance(d, str):
                    path = posixpath.normpath(posixpath.join(folder, d)) if d or folder else "."
                    out.add((prefix.strip("\\"), "" if path == "." else path.strip("/")))
    return [list(pair) for pair in sorted(out)]


#: One extractor per language with structure (``parsers.STRUCTURED``): the source's
#: bytes, the language ``language_of`` gave and the lower-cased path → symbols, imports,
#: calls and references. A language is added here and in ``parsers``, nowhere else.
_EXTRACTORS: dict[str, Callable[[bytes, str, str], dict[str, Any]]] = {
    "python": lambda data, _lang, _path: extract_python.extract(data),
    "javascript": lambda data, lang, _path: extract_js.extract(data, lang),
    "typescript": lambda data, lang, _path: extract_js.extract(data, lang),
    "tsx": lambda data, lang, _path: extract_js.extract(data, lang),
    "go": lambda data, _lang, _path: extract_go.extract(data),
    "rust": lambda data, _lang, _path: extract_rust.extract(data),
    "java": lambda data, lang, _path: extract_jvm.extract(data, lang),
    "kotlin": lambda data, lang, _path: extract_jvm.extract(data, lang),
    "ruby": lambda data, _lang, _path: extract_ruby.extract(data),
    "php": lambda data, _lang, _path: extract_php.extract(data),
    "zig": lambda data, _lang, _path: extract_zig.extract(data),
    "c": lambda data, lang, path: extract_c.extract(data, lang, header=path.endswith(".h")),
    "cpp": lambda data, lang, path: extract_c.extract(data, lang, header=path.endswith(".h")),
    "objc": lambda data, lang, path: extract_c.extract(data, lang, header=path.endswith(".h")),
    "csharp": lambda data, _lang, _path: extract_csharp.extract(data),
    "swift": lambda data, _lang, _path: extract_swift.extract(data),
    "elixir": lambda data, _lang, _path: extract_elixir.extract(data),
    "scala": lambda data, _lang, _path: extract_scala.extract(data),
    "lua": lambda data, _lang, path: extract_lua.extract(data, path),
    "dart": lambda data, _lang, _path: extract_dart.extract(data),
    "hcl": lambda data, _lang, path: extract_hcl.extract(data, path),
    "solidity": lambda data, _lang, _path: extract_solidity.extract(data),
    "proto": lambda data, _lang, _path: extract_proto.extract(data),
    "shell": lambda data, _lang, _path: extract_shell.extract(data),
}


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _notebook(
    record: dict[str, Any], text: str, rel: str, scrub: Callable[[str, str, str], str] | None
) -> dict[str, Any]:
    """A notebook's record: the words of its cells (never its outputs) and, when its
    kernel is Python, the symbols and imports of its code cells at the file's lines."""
    try:
        notebook = read_notebook(text, rel)
    except CharterError:
        record["note"] = "not a valid notebook: file level only"
        return record
    if notebook.language == "python":
        record["language"] = "python"
        try:
            record.update(extract_python.extract(notebook.aligned_code().encode("utf-8")))
        except (ValueError, RecursionError) as exc:
            record["note"] = f"not parsed ({type(exc).__name__}): file level only"
        record.pop("parse_errors", None)  # cells that are not Python were left out
    words = notebook.text()
    if scrub is not None:  # each cell as what it is: code, or prose
        words = "\n\n".join(
            scrub(cell.source, rel, "code" if cell.kind == "code" else "prose")
            for cell in notebook.cells
            if cell.source.strip()
        )
    record["tf"] = term_counts(words[:_MAX_TERMS_BYTES])
    return record


def _text_name(name: str) -> bool:
    """A build, dependency or container file named without a text suffix."""
    if name in _TEXT_NAMES:
        return True
    parts = name.split(".")
    return len(parts) > 1 and (parts[0] in _CONTAINER_NAMES or parts[-1] in _CONTAINER_NAMES)


def extract_file(
    root: Path,
    rel: str,
    max_bytes: int,
    scrub: Callable[[str, str, str], str] | None = None,
    max_notebook_bytes: int = 20_000_000,
) -> dict[str, Any]:
    """The record of ``rel`` (relative to ``root``); never raises for bad content.

    ``scrub(text, path, kind)`` redacts secrets before any word of the file is stored:
    the record keeps the file's terms, and a key pasted into a config file or a source
    file must not become one of them. A notebook may be larger than ``max_bytes`` up to
    ``max_notebook_bytes``: its outputs are most of its bytes and are never read."""
    path = root / rel
    stat = path.stat()
    record: dict[str, Any] = {
        "path": rel,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "test": is_test_path(rel),
    }
    language = language_of(rel)
    lower = rel.lower()
    if language is None:
        if lower.endswith((".md", ".markdown", ".mdc", ".mdx")):
            language = "markdown"
        elif lower.endswith(TEMPLATES):
            # a page's template is the app's view code, not documentation: words only (no
            # parser), weighed as a source file is
            language = "template"
        elif lower.endswith(_TEXT_SUFFIXES) or _text_name(lower.rsplit("/", 1)[-1]):
            language = "text"
    notebook = lower.endswith(NOTEBOOK_SUFFIX)
    if notebook:
        language = "text"  # until its kernel says Python
        max_bytes = max(max_bytes, max_notebook_bytes)
    record["language"] = language or "other"
    if stat.st_size > max_bytes:
        record["sha256"] = _hash_file(path)
        with path.open("rb") as handle:
            head = handle.read(8192)
        if b"\x00" in head:  # a large image or archive is a binary file like a small one
            record["note"] = "binary: file level only"
            record["language"] = "binary"
        else:
            record["note"] = (
                f"too large ({stat.st_size} bytes > graph.max_file_bytes): file level only"
            )
        return record
    data = path.read_bytes()
    record["sha256"] = hashlib.sha256(data).hexdigest()
    if b"\x00" in data[:8192]:
        record["note"] = "binary: file level only"
        record["language"] = "binary"
        return record
    if lower.rsplit("/", 1)[-1] == "go.mod":
        module = _GO_MODULE.search(data.decode("utf-8", errors="replace"))
        if module:  # imports of this module's packages resolve to its folders
            record["go_module"] = module.group(1).strip('"')
    if language is None:
        return record
    if language == "objc" and not extract_c.is_objc(data):
        language = record["language"] = "text"  # a MATLAB ``.m`` file: its words only
    text = data.decode("utf-8", errors="replace")
    if notebook:
        return _notebook(record, text, rel, scrub)
    if lower.rsplit("/", 1)[-1] == "pubspec.yaml":
        package = _PUBSPEC_NAME.search(text)
        if package:  # ``package:<name>/…`` imports of Dart files resolve to its ``lib/``
            record["dart_package"] = package.group(1)
    if lower.rsplit("/", 1)[-1] == "cargo.toml":
        crate = _cargo_crate(text)
        if crate:  # ``use <crate>::…`` of Rust files resolve to its ``src/``
            record["rust_crate"] = crate
    if lower.rsplit("/", 1)[-1] == "composer.json":
        psr4 = _psr4(rel, text)
        if psr4:  # ``use`` statements of PHP files resolve to files through it
            record["psr4"] = psr4
    # a Foundry project's remappings: how its Solidity imports name files
    record.update(extract_solidity.project_settings(rel, text))
    if scrub is not None:  # symbols come from the bytes (names and lines only)
        text = scrub(text, rel, "prose" if language in ("markdown", "text") else "code")
    try:
        if language == "markdown":
            record.update(docs.extract(text))
        elif language in _EXTRACTORS:
            record.update(_EXTRACTORS[language](data, language, lower))
        elif language == "template" and lower.endswith(extract_sfc.SUFFIXES):
            # a component's <script> blocks: what it imports, defines and calls
            record.update(extract_sfc.extract(data.decode("utf-8", errors="replace"), lower))
    except (ValueError, RecursionError) as exc:  # a grammar refusing input: keep the file
        record["note"] = f"not parsed ({type(exc).__name__}): file level only"
    if record.pop("parse_errors", False):
        record["note"] = "syntax errors: symbols kept where the parser recovered"
    facts = frontend.frontend_facts(rel, text, language if language != "markdown" else None)
    if facts:
        record["frontend"] = facts
    record["tf"] = term_counts(text[:_MAX_TERMS_BYTES])
    return record
