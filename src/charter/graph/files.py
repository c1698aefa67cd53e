"""Which files the graph reads: search's .gitignore and secret rules, plus graph excludes.

Secrets (``.env*``, keys, the configured deny globs) are refused by name before a byte is
read, exactly as ``charter index`` does (``charter.search.discover``); ignored and
excluded directories are pruned without walking into them, so a cold build on a large
repository only touches what it will keep.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from charter.config import Project
from charter.search.discover import _gitignore, _nested_ignored, is_secret, matches_any

_ALWAYS_SKIP = frozenset({".git", ".charter", ".hg", ".svn", "__pycache__", "node_modules"})


@dataclass
class Listing:
    """Files the graph may read (relative POSIX paths, sorted) and what it skipped."""

    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def list_files(project: Project) -> Listing:
    """Walk the project root once; the result is sorted so builds are deterministic."""
    root = project.root
    graph = project.settings.graph
    deny = project.settings.search.index.deny
    ignore = _gitignore(root)
    nested: dict[Path, pathspec.PathSpec] = {}
    out = Listing()
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        rel_base = base.relative_to(root).as_posix()
        prefix = "" if rel_base == "." else rel_base + "/"
        keep = []
        for d in sorted(dirnames):
            rel_dir = prefix + d
            if d in _ALWAYS_SKIP or (base / d).is_symlink():
                continue
            if matches_any(rel_dir + "/", graph.exclude) or ignore.match_file(rel_dir + "/"):
                continue
            if _nested_ignored(root, rel_dir, nested):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            rel = prefix + name
            if (base / name).is_symlink():
                continue
            if matches_any(rel, graph.exclude):
                continue
            if is_secret(rel, deny):
                out.skipped.append((rel, "secret (deny list)"))
                continue
            if ignore.match_file(rel) or _nested_ignored(root, rel, nested):
                continue
            out.files.append(rel)
            if len(out.files) >= graph.max_files:
                out.skipped.append((rel, "graph.max_files reached"))
                out.files.sort()
                return out
    out.files.sort()
    return out
