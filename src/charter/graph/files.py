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

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from charter.config import Project
from charter.search.discover import (
    _gitignore,
    deny_globs_for,
    glob_regex,
    is_source_file,
    own_outputs,
    read_ignore_file,
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


def _any_glob(globs: Sequence[str], lower: bool = False) -> re.Pattern[str] | None:
    """One regex for a list of globs (``charter.search.discover.glob_regex`` semantics)."""
    parts = [glob_regex((g.lower() if lower else g).lstrip("/")).pattern for g in globs]
    return re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None


def list_files(project: Project) -> Listing:
    """Walk the project root once; the result is sorted so builds are deterministic."""
    root = project.root
    graph = project.settings.graph
    exclude = _any_glob(graph.exclude)
    deny = _any_glob(project.settings.search.index.deny, lower=True)
    # source files skip the word globs (``*secret*``): see discover.deny_globs_for
    deny_code = _any_glob(deny_globs_for("x.py", project.settings.search.index.deny), lower=True)
    own = own_outputs(project.settings.search)
    noise = noise_rules(root, project.settings.search.index)
    ignore = _gitignore(root)
    use_root_ignore = bool(ignore.patterns)
    out = Listing()

    def secret(rel: str, name: str) -> bool:
        low = name.lower()
        if is_env_template(low):
            return False  # .env.example: read, its content scanned like any file's
        if low.startswith(".env"):
            return True
        pattern = deny_code if is_source_file(low) else deny
        return pattern is not None and bool(pattern.match(low) or pattern.match(rel.lower()))

    def walk(directory: str, prefix: str, specs: list[tuple[str, pathspec.PathSpec]]) -> bool:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return True
        if prefix and any(e.name == ".gitignore" and e.is_file() for e in entries):
            lines = read_ignore_file(Path(directory) / ".gitignore")
            specs = [*specs, (prefix, pathspec.PathSpec.from_lines("gitignore", lines))]

        def ignored(probe: str) -> bool:
            if use_root_ignore and ignore.match_file(probe):
                return True
            return any(spec.match_file(probe[len(where) :]) for where, spec in specs)

        subdirs = []
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name in _ALWAYS_SKIP:
                    continue
                if (exclude is not None and exclude.match(rel + "/")) or ignored(rel + "/"):
                    continue
                subdirs.append((entry.path, rel + "/"))
                continue
            if rel in own or (exclude is not None and exclude.match(rel)):
                continue
            if not entry.is_file():  # a FIFO would block the read; a device never ends
                out.skipped.append((rel, "not a regular file"))
                continue
            if secret(rel, entry.name):
                out.skipped.append((rel, "secret (deny list)"))
                continue
            if ignored(rel):
                continue
            reason = noise.path_reason(rel)
            if reason is not None:
                out.skipped.append((rel, reason))
                continue
            try:
                stat = entry.stat()
            except OSError:
                continue
            out.files.append(rel)
            out.stats[rel] = (stat.st_size, stat.st_mtime_ns)
            if len(out.files) >= graph.max_files:
                out.skipped.append((rel, "graph.max_files reached"))
                return False
        return all(walk(path, rel_dir, specs) for path, rel_dir in subdirs)

    walk(str(root), "", [])
    out.files.sort()
    return out
