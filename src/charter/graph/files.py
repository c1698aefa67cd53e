"""Which files the graph reads: search's .gitignore and secret rules, plus graph excludes.

Secrets (``.env*``, keys, the configured deny globs) are refused by name before a byte is
read, with the same globs ``charter index`` uses (``charter.search.discover``), and so
are files ``.gitattributes`` marks generated or vendored (``charter.search.noise``; the
content rules run where the graph reads a file, in ``charter.graph.build``); ignored
and excluded directories are pruned without walking into them. The walk uses
``os.scandir`` and hands back each file's size and mtime, so a warm task-context call
costs one directory scan and no extra ``stat`` per file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec

from charter.config import Project
from charter.fileio import atomic_write_text
from charter.paths import NOT_UTF8_NAME, shown_name, utf8_name
from charter.search.discover import (
    Tracked,
    _gitignore,
    charter_own,
    deny_globs_for,
    glob_regex,
    own_outputs,
    read_ignore_file,
    tracked_files,
    word_globs_apply,
)
from charter.search.noise import noise_rules
from charter.secretscan.settings import is_env_template

_ALWAYS_SKIP = frozenset({".git", ".charter", ".hg", ".svn", "__pycache__", "node_modules"})


@dataclass
class Listing:
    """Files the graph may read (relative POSIX paths, sorted) and what it skipped."""

    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # path → (size, mtime_ns)
    cache: dict[str, Any] | None = None  # folder decisions to save, when they changed


def _any_glob(globs: Sequence[str], lower: bool = False) -> re.Pattern[str] | None:
    """One regex for a list of globs (``charter.search.discover.glob_regex`` semantics)."""
    parts = [glob_regex((g.lower() if lower else g).lstrip("/")).pattern for g in globs]
    return re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None


#: Files whose presence or content changes what a folder's entries decide for it and
#: everything under it: ignore rules, linguist attributes, a Go vendor tree's manifest.
_RULE_FILES = (".gitignore", ".gitattributes", "modules.txt")
#: A folder modified this close to the moment it was scanned may change again within its
#: timestamp's granularity (2 s on FAT) without its mtime moving: it is scanned again.
_RACY_NS = 2_000_000_000
#: 2: a documentation page named for what is done with secrets is read (word_globs_apply)
#: 3: a root `.gitattributes` catch-all (`* linguist-vendored`) marks nothing, so a
#: listing cached before it is read again
#: 4: Charter's own `charter.toml` is no project file; LaTeX sources are read as text
_LISTING_VERSION = 4


def _stat_key(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _listing_key(project: Project) -> str:
    """What every folder's decisions hang on besides its own rule files: the settings
    and the repository-wide ignore and attribute files."""
    git = project.root / ".git" / "info"
    blob = json.dumps(
        [
            _LISTING_VERSION,
            project.settings.graph.model_dump(),
            project.settings.search.index.model_dump(),
            sorted(own_outputs(project.settings.search)),
            _stat_key(git / "exclude"),
            _stat_key(git / "attributes"),
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _load_cache(path: Path, key: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("key") != key:
        return {}
    folders = data.get("folders")
    return folders if isinstance(folders, dict) else {}


def list_files(project: Project, cache: Path | None = None) -> Listing:
    """Walk the project root once; the result is sorted so builds are deterministic.

    With ``cache`` (a JSON file), each folder's decisions (which entries are files the
    graph reads, which are skipped and why, which subfolders are walked) are kept with
    the folder's mtime and a digest of the rule files above and in it; a folder whose
    mtime and rule files are unchanged is not listed again and its files are only
    ``stat``-ed: adding, removing or renaming an entry moves a folder's mtime, and a
    changed ``.gitignore`` or ``.gitattributes`` changes the digest of every folder
    under it. The result is the one a full walk gives."""
    root = project.root
    graph = project.settings.graph
    exclude = _any_glob(graph.exclude)
    deny = _any_glob(project.settings.search.index.deny, lower=True)
    # source files and documentation pages skip the word globs (``*secret*``): see
    # discover.word_globs_apply
    deny_code = _any_glob(deny_globs_for("x.py", project.settings.search.index.deny), lower=True)
    own = own_outputs(project.settings.search)
    noise = noise_rules(root, project.settings.search.index)
    ignore = _gitignore(root)
    use_root_ignore = bool(ignore.patterns)
    tracked = tracked_files(root)
    out = Listing()

    def secret(rel: str, name: str) -> bool:
        low = name.lower()
        if is_env_template(low):
            return False  # .env.example: read, its content scanned like any file's
        if low.startswith(".env"):
            return True
        pattern = deny if word_globs_apply(low) else deny_code
        return pattern is not None and bool(pattern.match(low) or pattern.match(rel.lower()))

    started = time.time_ns()
    key = _listing_key(project) if cache is not None else ""
    old = _load_cache(cache, key) if cache is not None else {}
    folders: dict[str, Any] = {}
    parsed_specs: dict[str, pathspec.PathSpec] = {}

    def spec_of(path: str) -> pathspec.PathSpec:
        if path not in parsed_specs:
            lines = read_ignore_file(Path(path))
            parsed_specs[path] = pathspec.PathSpec.from_lines("gitignore", lines)
        return parsed_specs[path]

    def reuse(directory: str, prefix: str, folder: dict[str, Any]) -> bool:
        for name, reason in folder["e"]:
            rel = prefix + name
            if reason is not None:
                out.skipped.append((rel, reason))
                continue
            if not utf8_name(rel):  # listed by a Charter that did not skip such names
                out.skipped.append((shown_name(rel), NOT_UTF8_NAME))
                continue
            try:
                stat = os.stat(os.path.join(directory, name))
            except OSError:
                continue
            out.files.append(rel)
            out.stats[rel] = (stat.st_size, stat.st_mtime_ns)
            if len(out.files) >= graph.max_files:
                out.skipped.append((rel, "graph.max_files reached"))
                return False
        return True

    # a folder's decisions also hang on which of its entries git tracks (never ignored):
    # `git add -f` of an ignored file changes no mtime
    held = _tracked_entries(tracked)

    def walk(directory: str, prefix: str, specs: list[tuple[str, str]], chain: str) -> bool:
        try:
            mtime = os.stat(directory).st_mtime_ns
        except OSError:
            return True
        prev = old.get(prefix)
        if prev is not None and prev["m"] == mtime and prev.get("t", "") == held.get(prefix, ""):
            rules = {name: _stat_key(Path(directory) / name) for name in prev["r"]}
            digest = _digest(chain, rules)
            if digest == prev["c"]:
                if prefix and ".gitignore" in rules:
                    specs = [*specs, (prefix, os.path.join(directory, ".gitignore"))]
                folders[prefix] = prev
                if not reuse(directory, prefix, prev):
                    return False
                return all(
                    walk(os.path.join(directory, name), f"{prefix}{name}/", specs, digest)
                    for name in prev["d"]
                )
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return True
        rules = {
            e.name: _stat_key(Path(e.path))
            for e in entries
            if e.name in _RULE_FILES and e.is_file()
        }
        digest = _digest(chain, rules)
        if prefix and ".gitignore" in rules:
            specs = [*specs, (prefix, os.path.join(directory, ".gitignore"))]
        folder: dict[str, Any] = {
            "m": mtime if mtime < started - _RACY_NS else None,
            "c": digest,
            "r": sorted(rules),
            "e": [],
            "d": [],
        }
        if prefix in held:
            folder["t"] = held[prefix]

        def matched(probe: str) -> bool:
            if use_root_ignore and ignore.match_file(probe):
                return True
            return any(spec_of(path).match_file(probe[len(where) :]) for where, path in specs)

        def ignored(probe: str) -> bool:
            if tracked.keeps(probe):
                return False  # git tracks it (or, a folder, files in it)
            if matched(probe):
                return True
            # the rest of an ignored folder walked only for the files git tracks in it
            return prefix in tracked.folders and any(
                matched(folder) for folder in _folders_of(prefix) if folder in tracked.folders
            )

        subdirs = []
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():
                continue
            if not utf8_name(entry.name):
                # a skipped row under its name escaped (the cache is JSON: no lone
                # surrogate in it), for a folder too: nothing in it can be named either
                shown = shown_name(entry.name) + ("/" if entry.is_dir() else "")
                folder["e"].append([shown, NOT_UTF8_NAME])
                continue
            if entry.is_dir():
                if entry.name in _ALWAYS_SKIP:
                    continue
                if (exclude is not None and exclude.match(rel + "/")) or ignored(rel + "/"):
                    continue
                subdirs.append((entry.path, rel + "/"))
                folder["d"].append(entry.name)
                continue
            if rel in own or charter_own(rel) or (exclude is not None and exclude.match(rel)):
                continue  # Charter's own config is no file a task needs
            reason: str | None = None
            if not entry.is_file():  # a FIFO would block the read; a device never ends
                reason = "not a regular file"
            elif secret(rel, entry.name):
                reason = "secret (deny list)"
            elif ignored(rel):
                continue
            else:
                reason = noise.path_reason(rel)
            folder["e"].append([entry.name, reason])
        folders[prefix] = folder
        if not reuse(directory, prefix, folder):
            return False
        return all(walk(path, rel_dir, specs, digest) for path, rel_dir in subdirs)

    complete = walk(str(root), "", [], "")
    out.files.sort()
    if cache is not None and complete and folders != old:
        out.cache = {"key": key, "folders": folders}
    return out


def _tracked_entries(tracked: Tracked) -> dict[str, str]:
    """Per folder ("" for the root, else ``a/b/``), a short digest of its entries git
    tracks: files, and subfolders that hold tracked files."""
    entries: dict[str, list[str]] = {}
    for path in [*tracked.files, *tracked.folders]:
        parent, _, name = path.rstrip("/").rpartition("/")
        entries.setdefault(f"{parent}/" if parent else "", []).append(
            name + ("/" if path.endswith("/") else "")
        )
    return {
        folder: hashlib.sha256(
            "\0".join(sorted(names)).encode("utf-8", "surrogateescape")
        ).hexdigest()[:12]
        for folder, names in entries.items()
    }


def _folders_of(prefix: str) -> list[str]:
    """``a/``, ``a/b/`` for the folder ``a/b/``."""
    parts = prefix.rstrip("/").split("/")
    return ["/".join(parts[:n]) + "/" for n in range(1, len(parts) + 1)]


def _digest(parent: str, rules: dict[str, list[int] | None]) -> str:
    """The rule files above a folder and in it, as one short digest (the parent's when
    the folder has none of its own)."""
    if not rules:
        return parent
    blob = json.dumps([parent, sorted(rules.items())], separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def save_listing(path: Path, listing: Listing) -> None:
    """Write the folder decisions ``list_files`` gathered, when they changed."""
    if listing.cache is not None and path.parent.is_dir():
        atomic_write_text(path, json.dumps(listing.cache, separators=(",", ":")))
        listing.cache = None
