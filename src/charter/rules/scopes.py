"""Whether a rule's path scopes (a nested AGENTS.md's directory, a Cursor rule's globs,
a ``paths:`` list) cover the files in play. Kept free of numpy so a file tool's hook can
ask without loading the retriever."""

from __future__ import annotations

import fnmatch


def scope_matches(scopes: list[str], files: list[str]) -> bool:
    for f in files:
        f = f.lstrip("./")
        for pattern in scopes:
            p = pattern.lstrip("./")
            if fnmatch.fnmatch(f, p) or (p.startswith("**/") and fnmatch.fnmatch(f, p[3:])):
                return True
            if p.endswith("/**") and f.startswith(p[:-2]):
                return True
    return False
