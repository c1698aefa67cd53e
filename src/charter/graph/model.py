"""Typed nodes and edges with prefixed ids (``src:``, ``sym:``, ``rule:``, ``rt:`` …).

Ids carry their type so a reader of the snapshot (or an agent) knows what a node is
without a lookup, and sorting by id groups a type together: the snapshot sorts nodes
and edges before hashing so the same tree always gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Node types and their id prefixes.
PREFIX = {
    "source": "src",
    "symbol": "sym",
    "rule": "rule",
    "decision": "dec",
    "document": "doc",
    "section": "doc",
    "finding": "find",
    "route": "rt",
    "component": "cmp",
    "token": "tkn",
    "bridge": "bridge",
    "record": "sot",
}

#: Node types that make up the contract (what ``contract_hash`` covers).
CONTRACT_TYPES = frozenset({"rule", "decision", "route", "component", "token", "bridge"})


def node_id(kind: str, key: str) -> str:
    """``prefix:key`` for a node of ``kind``."""
    return f"{PREFIX[kind]}:{key}"


@dataclass
class Node:
    """One thing in the project the agent may need: a file, a symbol, a rule, a route."""

    id: str
    type: str
    name: str
    path: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    attrs: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "type": self.type, "name": self.name}
        if self.path is not None:
            out["path"] = self.path
        if self.line_start is not None:
            out["line_start"] = self.line_start
            out["line_end"] = self.line_end
        if self.attrs:
            out["attrs"] = {k: self.attrs[k] for k in sorted(self.attrs)}
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        return cls(
            id=data["id"],
            type=data["type"],
            name=data.get("name", ""),
            path=data.get("path"),
            line_start=data.get("line_start"),
            line_end=data.get("line_end"),
            attrs=dict(data.get("attrs", {})),
        )


@dataclass(frozen=True, order=True)
class Edge:
    """A typed relation: imports, defines, references, calls, tests, governs, cites …"""

    source: str
    target: str
    relation: str

    def as_dict(self) -> dict[str, str]:
        return {"source": self.source, "target": self.target, "relation": self.relation}
