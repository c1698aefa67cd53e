"""Which files the index may read: .gitignore, exclude globs, secrets, kinds and zones.

Secrets are refused by name before a byte is read (``.env*``, keys, configured deny globs)
and reported back, so ``charter index`` can say what it skipped and why.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from charter.fileio import UTF16_32_BOMS
from charter.filetypes import MORE_LANGUAGES, TYPESET
from charter.notebooks import SUFFIX as NOTEBOOK_SUFFIX
from charter.paths import CONFIG_FILE, NOT_UTF8_NAME, STATE_DIR, shown_name, utf8_name
from charter.search.noise import noise_rules
from charter.search.settings import IndexSettings, SearchSettings

if TYPE_CHECKING:
    import pathspec


@lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """An anchored regex for a POSIX path glob: ``**`` spans directories, ``*`` does not.

    ``docs/**`` matches everything under docs; ``**/x/**`` matches x at any depth;
    ``*.md`` matches Markdown files at the root only.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("^" + "".join(out) + "$")


def matches_any(path: str, globs: Iterable[str]) -> bool:
    return any(glob_regex(g.lstrip("/")).match(path) for g in globs)


#: Suffixes of source files in a programming language (not data or configuration).
_SOURCE_SUFFIXES = frozenset(
    [
        ".py",
        ".pyi",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".scala",
        ".swift",
        ".cs",
        ".fs",
        ".vb",
        ".php",
        ".rb",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cxx",
        ".hpp",
        ".hh",
        ".hxx",
        ".m",
        ".mm",
        ".dart",
        ".lua",
        ".ex",
        ".exs",
        ".erl",
        ".hrl",
        ".hs",
        ".ml",
        ".mli",
        ".clj",
        ".cljs",
        ".cljc",
        ".jl",
        ".r",
        ".zig",
        ".nim",
        ".elm",
        ".gleam",
        ".gd",
        ".groovy",
        ".vue",
        ".svelte",
        ".razor",
        ".sol",
        ".pas",
        ".dpr",
        ".lpr",
        ".v",
        ".sv",
        ".vhd",
        ".vhdl",
        *MORE_LANGUAGES,
    ]
)
#: A glob that asks only for a word somewhere in the path: ``*secret*``, ``*credential*``.
_WORD_GLOB = re.compile(r"^\*[\w-]+\*$")


def is_source_file(name: str) -> bool:
    """A file of program source, by its suffix (``SecretListCommand.cs``, ``store.go``)."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in _SOURCE_SUFFIXES


#: Pages of documentation: prose written for readers, not data.
_DOC_PAGE_SUFFIXES = frozenset([".md", ".mdx", ".markdown", ".rst", ".adoc", ".asciidoc", *TYPESET])


def word_globs_apply(name: str) -> bool:
    """Whether the word globs of the deny list (``*secret*``) apply to a file ``name``.

    A word glob guesses at data files that hold credentials (``secrets.yaml``,
    ``credentials.json``). A source file so named handles secrets rather than holding
    them (a ``SecretListCommand.cs``, a ``migration_credentials.go``), and a page of
    documentation named for what is done with them (a standard's
    ``managing-secrets.md``, ``secret-scanning.md``, ``credential-rotation.rst``,
    ``how-we-store-secrets.md``) is about them: both are read, their content scanned
    and redacted like every file's. A page named for the secrets themselves
    (``secrets.md``, ``aws_credentials.md``) may hold them, and stays refused.
    """
    if is_source_file(name):
        return False
    dot = name.rfind(".")
    if dot <= 0 or name[dot:].lower() not in _DOC_PAGE_SUFFIXES:
        return True
    words = [w for w in re.split(r"[^a-z0-9]+", name[:dot].lower()) if w]
    activity = any(w.endswith(("ing", "ment", "tion")) for w in words)
    return not (activity or len(words) >= 3)


def deny_globs_for(name: str, deny: Sequence[str]) -> list[str]:
    """The deny globs that apply to a file named ``name``: all of them, less the word
    globs (``*secret*``, ``*credential*``) where :func:`word_globs_apply` says they do not.
    """
    if word_globs_apply(name):
        return list(deny)
    return [g for g in deny if not _WORD_GLOB.match(g)]


def is_secret(rel_path: str, deny: Sequence[str]) -> bool:
    """True for files that must never be indexed (matched on the file name or the path)."""
    from charter.secretscan.settings import is_env_template

    name = rel_path.rsplit("/", 1)[-1].lower()
    if is_env_template(name):
        return False  # .env.example: read, and its content scanned like any file's
    if name.startswith(".env"):
        return True
    return any(
        glob_regex(g.lower()).match(name) or glob_regex(g.lower()).match(rel_path.lower())
        for g in deny_globs_for(name, deny)
    )


def own_outputs(settings: SearchSettings) -> frozenset[str]:
    """Files Charter itself writes inside the project, outside ``.charter/``: the action
    log and its lock. Never project content: every search appends to the log, so reading
    it back would change the index and the graph on each read."""
    log = settings.actions_log.replace("\\", "/").removeprefix("./")
    return frozenset({log, log + ".lock"})


def charter_own(rel_path: str) -> bool:
    """Charter's own configuration (the root ``charter.toml``) and state (``.charter/``):
    never project content, whatever ``exclude`` says. Indexed, a fresh ``charter init``
    was the one file inside review mode's 30-day window of an older repository, so every
    review search answered with the config file instead of saying nothing had changed."""
    return rel_path == CONFIG_FILE or rel_path.startswith(STATE_DIR + "/")


#: Markdown and its dialects, chunked by heading: ``.mdc`` (Cursor rules) and ``.mdx``
#: (Markdown with JSX and ``import`` lines, the pages of most documentation sites; the
#: JSX blocks stay text, the headings are Markdown's).
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdc", ".mdx")

#: Images (SVG too), fonts, media, archives, binaries and model weights: never reported
#: as an unindexed type, since a repository's assets would bury the source files a user
#: may want to add.
_BINARY_GROUPS = (
    ".png .jpg .jpeg .gif .bmp .ico .icns .webp .avif .tif .tiff .psd .heic .xcf .svg",
    ".woff .woff2 .ttf .otf .eot",  # fonts
    ".mp3 .mp4 .m4a .wav .ogg .oga .flac .aac .mov .avi .mkv .webm .wmv",  # media
    ".zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .whl .egg .deb .rpm .dmg .iso",
    ".exe .dll .so .dylib .a .o .obj .lib .class .pyc .pyo .pyd .wasm .bin .dat .pdb",
    ".db .sqlite .sqlite3 .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods .odp",
    ".onnx .pt .pth .ckpt .safetensors .npy .npz .pkl .pickle .parquet .h5 .tflite",
)
BINARY_SUFFIXES = frozenset(suffix for group in _BINARY_GROUPS for suffix in group.split())


#: Folders that hold architecture decision records, whatever the tooling calls them
#: (adr-tools' ``doc/adr``, MADR's ``docs/decisions``, ``docs/adrs``, ...).
ADR_DIRS = frozenset(
    {
        "adr",
        "adrs",
        "decisions",
        "decision-records",
        "architecture-decisions",
        "architecture-decision-records",
    }
)
_ADR_NAME = re.compile(r"^adr[-_ ]?\d+", re.IGNORECASE)


def is_adr_path(rel_path: str) -> bool:
    """An ADR by where it lives: in a decision-record folder, or named ``ADR-0001...``."""
    parts = rel_path.replace("\\", "/").split("/")
    return any(part.lower() in ADR_DIRS for part in parts[:-1]) or bool(_ADR_NAME.match(parts[-1]))


def file_kind(rel_path: str, settings: SearchSettings) -> str | None:
    """markdown | adr | text | code | python | csv | yaml | json, or None (not indexed).

    Translation catalogs (by folder or locale name) are text unless a ``sot_paths`` glob
    names them."""
    idx = settings.index
    suffix = Path(rel_path).suffix.lower()
    is_sot = matches_any(rel_path, idx.sot_paths)
    if suffix in MARKDOWN_SUFFIXES:
        return "adr" if is_adr_path(rel_path) else "markdown"
    if suffix in idx.text_extensions:
        return "text"
    from charter.secretscan.settings import is_env_template

    if is_env_template(rel_path.rsplit("/", 1)[-1]):
        return "text"  # .env.example: the variables a project needs
    if suffix == ".csv" and (is_sot or suffix in idx.sot_extensions):
        return "csv"
    from charter.secretscan.scanner import is_translation_catalog

    if suffix in (".yaml", ".yml", ".json") and not is_sot and is_translation_catalog(rel_path):
        # a translation catalog holds a UI's strings, not records to look up: a record per
        # key was most of a Rails app's index (4,787 of 6,845 chunks, each one embedded),
        # while its text in a few chunks finds a string as well
        return "text"
    if suffix in (".yaml", ".yml") and suffix in idx.sot_extensions:
        return "yaml"
    if suffix == ".json" and suffix in idx.sot_extensions:
        return "json"
    if suffix == ".py" and suffix in idx.code_extensions:
        return "python"
    if suffix == NOTEBOOK_SUFFIX and suffix in idx.code_extensions:
        return "notebook"
    if suffix in idx.code_extensions:
        return "code"
    return None


def zone_for(rel_path: str, settings: SearchSettings, declared: str | None = None) -> str:
    """A file's zone: its own declaration wins, then the first matching path rule."""
    if declared:
        return declared.strip().lower()
    for glob, zone in settings.zones.items():
        if matches_any(rel_path, [glob]):
            return zone
    return settings.default_zone


@dataclass
class Discovery:
    """Files to index and files skipped, with reasons."""

    files: list[tuple[Path, str]] = field(default_factory=list)  # (absolute, relative)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative, reason)
    #: files of a type no extension list names, per suffix (binaries not counted)
    unindexed: dict[str, int] = field(default_factory=dict)


def _gitignore(root: Path) -> pathspec.PathSpec:
    import pathspec  # only walks need it: a search imports this module for matches_any

    lines: list[str] = []
    for ignore in [root / ".gitignore", root / ".git" / "info" / "exclude"]:
        if ignore.is_file():
            lines.extend(read_ignore_file(ignore))
    return pathspec.PathSpec.from_lines("gitignore", lines)


#: A .gitignore is kilobytes; millions of patterns take minutes and gigabytes to compile.
MAX_IGNORE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Tracked:
    """The files git tracks, and their folders.

    Git never ignores a file it tracks, whatever an ignore rule says: a project whose
    ``.gitignore`` hides every dot-file but a few (``.*`` then ``!.github``) still commits
    ``.pre-commit-config.yaml`` and ``.claude/skills/*/SKILL.md``, and a root ``**/*.txt``
    with a nested ``!CMakeLists.txt`` still commits that file; read by the ignore rules
    alone they were "gitignored", out of search and the graph."""

    files: frozenset[str] = frozenset()
    folders: frozenset[str] = frozenset()  # each with a trailing "/"

    def keeps(self, rel: str) -> bool:
        """Whether ``rel`` (a file, or a folder ending in "/") is tracked or holds one."""
        return rel in self.folders if rel.endswith("/") else rel in self.files


def tracked_files(root: Path) -> Tracked:
    """``git ls-files`` under ``root`` (one call: a few milliseconds for thousands of
    files); outside git or without git, nothing."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return Tracked()
    if done.returncode != 0:
        return Tracked()
    names = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    files = frozenset(f for f in names if f)
    folders: set[str] = set()
    for name in files:
        at = name.rfind("/")
        while at > 0:
            folder = name[: at + 1]
            if folder in folders:
                break
            folders.add(folder)
            at = name.rfind("/", 0, at)
    return Tracked(files, frozenset(folders))


def read_ignore_file(path: Path) -> list[str]:
    """The lines of a ``.gitignore``, or a one-line :class:`CharterError` naming it: a walk
    that went on without it could read what it hides (a secret, a huge build tree)."""
    from charter.errors import CharterError

    try:
        size = path.stat().st_size
        if size > MAX_IGNORE_BYTES:
            raise CharterError(f"{path} too large ({size} bytes > {MAX_IGNORE_BYTES})")
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise CharterError(f"cannot read {path}: {exc.strerror}") from None


def _walk(start: Path, prune: Callable[[Path], bool]) -> Iterator[Path]:
    if start.is_file():
        yield start
        return
    for dirpath, dirnames, filenames in os.walk(start):
        base = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames if d not in (".git", ".charter") and not prune(base / d)
        )
        for name in sorted(filenames):
            yield base / name


def discover(root: Path, targets: Sequence[Path], settings: SearchSettings) -> Discovery:
    """Walk ``targets`` under ``root`` and sort files into indexable and skipped."""
    idx: IndexSettings = settings.index
    ignore = _gitignore(root)
    tracked = tracked_files(root)
    nested: dict[Path, pathspec.PathSpec] = {}
    out = Discovery()
    seen: set[str] = set()
    root_resolved = root.resolve()
    own = own_outputs(settings)
    noise = noise_rules(root, idx)
    texts: set[str] = set()  # unindexed types with a file that starts as text
    local_dirs: dict[Path, bool] = {}

    def prune(directory: Path) -> bool:
        """Skip excluded and ignored directories without walking into them."""
        if not utf8_name(directory.name):
            out.skipped.append((shown_name(_shown(directory, root)) + "/", NOT_UTF8_NAME))
            return True
        try:
            rel_dir = directory.resolve().relative_to(root_resolved).as_posix() + "/"
        except ValueError:
            return False
        if matches_any(rel_dir, idx.exclude):
            return True
        if tracked.keeps(rel_dir):
            return False  # ignored, but holds files git tracks: walked for those
        if ignore.match_file(rel_dir) or _nested_ignored(root, rel_dir.rstrip("/"), nested):
            out.skipped.append((rel_dir, "gitignored"))
            return True
        return False

    for target in targets:
        for path in _walk(target, prune):
            if not utf8_name(path.name):
                out.skipped.append((shown_name(_shown(path, root)), NOT_UTF8_NAME))
                continue
            try:
                rel = path.resolve().relative_to(root_resolved).as_posix()
            except ValueError:
                # the link's own place in the project, as every other row is named: the
                # absolute path was this machine's (`/home/me/src/app/docs/leak.md`)
                out.skipped.append((_shown(path, root), "outside the project"))
                continue
            except (RuntimeError, OSError):  # a -> b -> a: Python 3.11 raises RuntimeError
                out.skipped.append((_shown(path, root), "symlink loop"))
                continue
            if rel in seen:
                continue
            seen.add(rel)
            if rel in own or charter_own(rel) or matches_any(rel, idx.exclude):
                continue
            if is_secret(rel, idx.deny):
                out.skipped.append((rel, "secret (deny list)"))
                continue
            if not tracked.keeps(rel) and (
                ignore.match_file(rel)
                or _nested_ignored(root, rel, nested)
                or _under_ignored(rel, tracked, ignore)
            ):
                if not _charter_local(root, rel, local_dirs):
                    out.skipped.append((rel, "gitignored"))
                continue
            if file_kind(rel, settings) is None:
                suffix = Path(rel).suffix.lower()
                if noise.named_lockfile(rel):
                    # `Gemfile.lock` was a "*.lock" row saying to add ".lock" to index
                    # it; indexed, it would be skipped as the lockfile it is
                    out.skipped.append((rel, "lockfile"))
                elif suffix and suffix not in BINARY_SUFFIXES:
                    out.unindexed[suffix] = out.unindexed.get(suffix, 0) + 1
                    if suffix not in texts and starts_as_text(path):
                        texts.add(suffix)
                continue
            reason = noise.path_reason(rel)
            if reason is not None:
                out.skipped.append((rel, reason))
                continue
            try:
                info = path.stat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):  # a FIFO would block the read; a device never ends
                out.skipped.append((rel, "not a regular file"))
                continue
            size = info.st_size
            cap = idx.max_notebook_bytes if path.suffix.lower() == NOTEBOOK_SUFFIX else 0
            if size > max(idx.max_file_bytes, cap):
                out.skipped.append((rel, f"too large ({size} bytes > search.index.max_file_bytes)"))
                continue
            out.files.append((path, rel))
    # a type whose every file is binary (a Windows `.res`, a `.blend`) is no file to add
    # to an extension list: indexed, each would be skipped as binary
    out.unindexed = {suffix: n for suffix, n in out.unindexed.items() if suffix in texts}
    out.skipped.extend(unindexed_notes(out.unindexed))
    return out


def _shown(path: Path, root: Path) -> str:
    """``path`` as the project names it (relative to ``root``, links not followed)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def starts_as_text(path: Path) -> bool:
    """Whether ``path`` begins as text: no NUL byte in its first 8 KB, or a UTF-16/32
    byte-order mark (whose NUL bytes are text). Unreadable files are not text."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
    except OSError:
        return False
    return b"\x00" not in head or any(head.startswith(bom) for bom, _ in UTF16_32_BOMS)


def unindexed_notes(counts: dict[str, int]) -> list[tuple[str, str]]:
    """One *skipped* row per file type no extension list names, most files first: the
    779 ``.zig`` files of a Zig repository were left out without a word. One row per
    type, not per file, so the table stays readable; the fix is one setting."""
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [
        (
            f"*{suffix}",
            f"{count} file{'' if count == 1 else 's'} of a type search does not index: add "
            f'"{suffix}" to search.index.code_extensions (or text_extensions) to index them',
        )
        for suffix, count in rows
    ]


def _under_ignored(rel: str, tracked: Tracked, ignore: pathspec.PathSpec) -> bool:
    """Whether ``rel`` sits in an ignored folder that was walked only for the files git
    tracks in it (``.claude/`` for ``.claude/skills/``): its other files stay ignored."""
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth]) + "/"
        if not tracked.keeps(folder):
            return False
        if ignore.match_file(folder):
            return True
    return False


def _charter_local(root: Path, rel: str, cache: dict[Path, bool]) -> bool:
    """Whether ``rel`` sits in a folder of per-machine files Charter made (the retrieval
    log's, the guardrail audit log's, the session files'): its ignore file is the one
    Charter wrote, so the folder is Charter's, as ``.charter/`` is, and listing its files
    as skipped would only show the user Charter's own state."""
    from charter.state_ignore import IGNORE_FILE, LOCAL_CONTENT

    parts = rel.split("/")
    for depth in range(1, len(parts)):
        directory = root.joinpath(*parts[:depth])
        if directory not in cache:
            ignore_file = directory / IGNORE_FILE
            try:
                cache[directory] = (
                    ignore_file.is_file()
                    and ignore_file.stat().st_size == len(LOCAL_CONTENT.encode("utf-8"))
                    and ignore_file.read_text(encoding="utf-8") == LOCAL_CONTENT
                )
            except (OSError, UnicodeDecodeError):
                cache[directory] = False
        if cache[directory]:
            return True
    return False


def _nested_ignored(root: Path, rel: str, cache: dict[Path, pathspec.PathSpec]) -> bool:
    """Apply .gitignore files in sub-directories to the part of the path below them."""
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        directory = root.joinpath(*parts[:depth])
        if directory not in cache:
            ignore_file = directory / ".gitignore"
            lines = read_ignore_file(ignore_file) if ignore_file.is_file() else []
            import pathspec

            cache[directory] = pathspec.PathSpec.from_lines("gitignore", lines)
        if cache[directory].match_file("/".join(parts[depth:])):
            return True
    return False
