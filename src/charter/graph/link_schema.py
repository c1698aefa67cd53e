"""Type uses of Protocol Buffers files → ``references`` edges.

A proto type is named through its package and the messages nesting it (``State`` inside
``acme.v1.Job`` is ``acme.v1.Job.State``), not as a code file's names are. So these uses are
not matched through the per-file name tables code uses, but against one table per schema
language of the names its files define, keyed by qualified name.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from charter.graph.model import Edge, node_id

SCHEMA_LANGS = ("proto",)


def schema_tables(records: dict[str, dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Per schema language, each qualified name → the files defining it, in path order."""
    tables: dict[str, dict[str, list[str]]] = {lang: defaultdict(list) for lang in SCHEMA_LANGS}
    for rel, rec in sorted(records.items()):
        lang = rec.get("language")
        if lang in tables:
            for sym in rec.get("symbols", []):
                tables[lang][sym["qualname"]].append(rel)
    return tables


def _proto_candidates(scope: str, name: str) -> list[str]:
    """The qualified names a type written in ``scope`` may be, innermost first, as protoc
    looks them up (``.a.B`` is fully qualified)."""
    if name.startswith("."):
        return [name[1:]]
    parts = scope.split(".") if scope else []
    return [".".join([*parts[:k], name]) for k in range(len(parts), -1, -1)]


def _shared(a: str, b: str) -> int:
    """How many leading folders two paths share."""
    count = 0
    for mine, theirs in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if mine != theirs:
            break
        count += 1
    return count


def _pick(rel: str, files: list[str], imported: list[str]) -> str | None:
    """Of the files defining a name, the one a use in ``rel`` means: one it imports, else
    the one sharing most folders with it (the first in path order among equals)."""
    for path in imported:
        if path in files:
            return path
    return max(files, key=lambda path: _shared(rel, path)) if files else None


def schema_edges(
    rel: str,
    rec: dict[str, Any],
    imported: list[str],
    tables: dict[str, dict[str, list[str]]],
) -> list[Edge]:
    """``references`` edges from a schema file to the symbols its type uses name, each
    resolved innermost scope first; a name the file defines itself links nowhere."""
    table = tables.get(rec.get("language", ""))
    if table is None:
        return []
    src = node_id("source", rel)
    edges: list[Edge] = []
    seen: set[str] = set()
    for scope, name in rec.get("type_refs", []):
        qualname = next((q for q in _proto_candidates(scope, name) if q in table), "")
        files = table.get(qualname, []) if qualname else []
        if rel in files:
            continue
        target = _pick(rel, [f for f in files if f != rel], imported)
        if target is None:
            continue
        sid = node_id("symbol", f"{target}#{qualname}")
        if sid not in seen:
            seen.add(sid)
            edges.append(Edge(src, sid, "references"))
    return edges
