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
from charter.search.discover import _gitignore, is_secret, matches_any

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
    # .gitignore files below the root, each applied to the paths under its directory
    nested: dict[str, list[tuple[str, pathspec.PathSpec]]] = {"": []}
    out = Listing()
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        rel_base = base.relative_to(root).as_posix()
        prefix = "" if rel_base == "." else rel_base + "/"
        specs = nested.get(prefix.rstrip("/"), [])
        if prefix and ".gitignore" in filenames:
            text = (base / ".gitignore").read_text(encoding="utf-8", errors="replace")
            specs = [*specs, (prefix, pathspec.PathSpec.from_lines("gitignore", text.splitlines()))]

        def ignored(
            rel: str, is_dir: bool, specs: list[tuple[str, pathspec.PathSpec]] = specs
        ) -> bool:
            probe = rel + "/" if is_dir else rel
            if ignore.match_file(probe):
                return True
            return any(spec.match_file(probe[len(where) :]) for where, spec in specs)

        keep = []
        for d in sorted(dirnames):
            rel_dir = prefix + d
            if d in _ALWAYS_SKIP or (base / d).is_symlink():
                continue
            if matches_any(rel_dir + "/", graph.exclude) or ignored(rel_dir, True):
                continue
            keep.append(d)
            nested[rel_dir] = specs
        dirnames[:] = keep
        for name in sorted(filenames):
            rel = prefix + name
            if matches_any(rel, graph.exclude):
                continue
            if is_secret(rel, deny):
                out.skipped.append((rel, "secret (deny list)"))
                continue
            if ignored(rel, False) or (base / name).is_symlink():
                continue
            out.files.append(rel)
            if len(out.files) >= graph.max_files:
                out.skipped.append((rel, "graph.max_files reached"))
                out.files.sort()
                return out
    out.files.sort()
    return out
