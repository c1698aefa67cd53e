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
            if any(fnmatch.fnmatch(f, v) for v in zero_dir_variants(p)):
                return True
            if p.endswith("/**") and f.startswith(p[:-2]):
                return True
    return False


def zero_dir_variants(pattern: str) -> list[str]:
    """``pattern`` and each form of it with a leading ``**/`` or an inner ``/**/`` standing
    for no folder at all, as a glob's ``**`` does (``**/db/migration/**/*.sql`` covers
    ``db/migration/V1__init.sql``; :mod:`fnmatch` alone wants a folder there)."""
    out = [pattern]
    for i, p in enumerate(out):
        if i >= 16:
            break
        if p.startswith("**/"):
            out.append(p[3:])
        at = p.find("/**/")
        while at >= 0:
            out.append(p[:at] + p[at + 3 :])
            at = p.find("/**/", at + 1)
    return list(dict.fromkeys(out))
