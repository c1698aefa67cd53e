"""Whether a rule's path scopes (a nested AGENTS.md's directory, a Cursor rule's globs,
a ``paths:`` list) cover the files in play. Kept free of numpy so a file tool's hook can
ask without loading the retriever."""

from __future__ import annotations

import fnmatch
import re


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


#: Characters that make a glob match more than one name.
_WILDCARD = re.compile(r"[*?\[{]")


def specificity(scopes: list[str], files: list[str]) -> tuple[int, int]:
    """How narrowly the most specific of ``scopes`` that covers one of ``files`` names
    them: the length of its literal folder prefix (``web/e2e/**`` beyond ``web/*``), then
    its literal characters (``**/*.component.ts`` beyond ``**/*.ts``); (-1, -1) when none
    covers them. A file under several scoped rule files gets the narrowest one's rules
    first: they are about that place, the broad ones about a whole tree or a kind of file."""
    best = (-1, -1)
    for pattern in scopes:
        if not scope_matches([pattern], files):
            continue
        p = pattern.lstrip("./")
        wild = _WILDCARD.search(p)
        prefix = p[: wild.start()] if wild else p
        best = max(best, (len(prefix), len(_WILDCARD.sub("", p))))
    return best


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
