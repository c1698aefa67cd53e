"""The contract capsule: the project's stable authority, small and byte-stable (seed 001).

``contract_hash`` is SHA-256 over the contract nodes and the edges among them only
(rules, bound decisions, routes, components, tokens, style bridge, public symbols and
entry points in the module map), never findings, evidence, file bodies or source
artifacts, so a new finding or a comment edit leaves ``cache_key`` alone while a new
route or public symbol changes it. The seed's FNV-1a 32 is replaced by SHA-256 (FNV is
not collision resistant) in the same ``algorithm:hex`` form.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from charter.graph.model import CONTRACT_TYPES

SCHEMA_VERSION = "3.0.0-draft"
_ENTRY_NAMES = (
    "__main__.py",
    "main.py",
    "cli.py",
    "app.py",
    "index.ts",
    "index.js",
    "main.ts",
    "main.go",
    "main.rs",
    "lib.rs",
    "index.php",
    "main.c",
    "main.cc",
    "main.cpp",
    "main.swift",
)
#: Foundry's scripts (``script/Deploy.s.sol``, run by ``forge script``): entry points,
#: whose contracts are no part of the project's API
_SCRIPT_SUFFIXES = (".s.sol",)


def _module_map(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """Packages with entry points and public top-level symbols (classes, functions), in
    every language the graph reads structure from (Ruby's ``Account::Syncer``, PHP's
    ``App\\Models\\Account`` and Elixir's ``Shop.Cart`` are top-level names; a method's
    ``.`` is not)."""
    from charter.filetypes import TEMPLATES
    from charter.graph.parsers import STRUCTURED
    from charter.notebooks import SUFFIX as NOTEBOOK_SUFFIX

    packages: dict[str, dict[str, Any]] = {}
    for node in snapshot["nodes"]:
        path = node.get("path") or ""
        if path.endswith((NOTEBOOK_SUFFIX, *TEMPLATES)):
            # a notebook's definitions are its working state, a component's script its
            # own wiring: neither is the project's API
            continue
        if node["type"] == "source":
            if node.get("attrs", {}).get("test") or node["attrs"].get("language") not in (
                STRUCTURED
            ):
                continue
            package = path.rsplit("/", 1)[0] if "/" in path else "."
            entry = packages.setdefault(
                package, {"package": package, "entry_points": [], "public_symbols": []}
            )
            if (
                path.rsplit("/", 1)[-1] in _ENTRY_NAMES
                or path.endswith(_SCRIPT_SUFFIXES)
                or node["attrs"].get("entry")  # a Swift file's ``@main``
            ):
                entry["entry_points"].append(path)
        elif node["type"] == "symbol":
            attrs = node.get("attrs", {})
            if (
                not attrs.get("exported")
                or path.endswith(_SCRIPT_SUFFIXES)
                or ("." in node["name"] and not _elixir_module(path, attrs))
                or attrs.get("kind")
                in (
                    "const",
                    "macro",
                )
            ):
                continue
            package = path.rsplit("/", 1)[0] if "/" in path else "."
            if package in packages:
                packages[package]["public_symbols"].append(f"{path}#{node['name']}")
    return [packages[k] for k in sorted(packages)]


def _elixir_module(path: str, attrs: dict[str, Any]) -> bool:
    """An Elixir module or protocol: a top-level name, though dotted (``Shop.Cart``)."""
    from charter.graph.parsers import language_of

    return attrs.get("kind") in ("module", "interface") and language_of(path) == "elixir"


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _component_path(by_type: dict[str, list[dict[str, Any]]], component_id: str) -> str:
    for node in by_type.get("component", []):
        if node["id"] == component_id:
            return str(node.get("path", ""))
    return ""


def _item(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: node[k] for k in ("id", "name", "path", "line_start", "line_end") if k in node
    }
    out.update(node.get("attrs", {}))
    return out


def contract_hash(snapshot: dict[str, Any], module_map: list[dict[str, Any]]) -> str:
    """``sha256:hex`` over contract nodes, the edges among them and the module map."""
    contract = [
        {k: v for k, v in n.items() if k not in ("line_start", "line_end")}
        for n in snapshot["nodes"]
        if n["type"] in CONTRACT_TYPES
    ]
    ids = {n["id"] for n in contract}
    edges = [e for e in snapshot["edges"] if e["source"] in ids and e["target"] in ids]
    payload = json.dumps(
        {"nodes": contract, "edges": edges, "module_map": module_map},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def build_capsule(
    snapshot: dict[str, Any],
    constitution: dict[str, Any] | None,
    invariants: list[dict[str, Any]],
    *,
    limit: int = 200,
    token_budget: int = 8000,
) -> dict[str, Any]:
    """The capsule dict for a snapshot (deterministic: same snapshot → same dict)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for node in snapshot["nodes"]:
        by_type.setdefault(node["type"], []).append(node)
    module_map = _module_map(snapshot)
    chash = contract_hash(snapshot, module_map)
    if constitution:
        payload = json.dumps([constitution.get("hash"), invariants], sort_keys=True)
        chash = "sha256:" + hashlib.sha256((chash + payload).encode("utf-8")).hexdigest()
    sources = sorted(n["path"] for n in by_type.get("source", []))
    findings = [
        _item(n)
        for n in by_type.get("finding", [])
        if n.get("attrs", {}).get("status", "open") == "open"
        and n.get("attrs", {}).get("severity") == "blocking"
    ]
    # local rules: the ones scoped to part of the tree (the rest are the constitution or
    # shards retrieved per task), grouped by scope as one-line handles; the id finds the
    # whole rule (``get_node``). In the order the rule files give them, so a capsule cut
    # to its budget keeps each file's first rules, not those whose id hash sorts first
    placed: dict[tuple[str, ...], list[tuple[str, int, str]]] = {}
    for n in by_type.get("rule", []):
        attrs = n.get("attrs", {})
        if attrs.get("scopes") and not attrs.get("constitution"):
            path, line = n.get("path", ""), n.get("line_start", "")
            handle = f"{n['name']} {path}:{line} " + _short(attrs.get("text", ""), 80)
            placed.setdefault(tuple(attrs["scopes"]), []).append(
                (path, line if isinstance(line, int) else 0, handle)
            )
    grouped = {k: [h for *_, h in sorted(v)] for k, v in placed.items()}
    local_rules = [{"scopes": list(k), "rules": grouped[k]} for k in sorted(grouped)]
    n_local = sum(len(v) for v in grouped.values())
    bridges: dict[str, list[str]] = {}
    for n in by_type.get("bridge", []):
        attrs = n.get("attrs", {})
        bridges.setdefault(attrs.get("component", ""), []).append(attrs.get("token", ""))
    style_bridge = [
        {"component": k, "path": _component_path(by_type, k), "tokens": sorted(v)}
        for k, v in sorted(bridges.items())
    ]
    capsule: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "snapshot_id": snapshot["snapshot_id"],
        "project_id": snapshot.get("project_id", "proj:default"),
        "created_at": snapshot["created_at"],
        "source_hash": snapshot["source_hash"],
        "contract_hash": chash,
        "cache_key": f"charter-contract:{chash}",
        "contract_cache_key": f"charter-contract:{chash}",
        "summary": {},
        "source_artifact_limit": limit,
        "source_artifacts_truncated": len(sources) > limit,
        "constitution": {
            "hash": (constitution or {}).get("hash"),
            "text": (constitution or {}).get("text", ""),
        },
        "invariants": invariants,
        "module_map": module_map,
        "routes": [_item(n) for n in by_type.get("route", [])],
        "components": [_item(n) for n in by_type.get("component", [])],
        "tokens": [_item(n) for n in by_type.get("token", [])],
        "local_rules": local_rules,
        "decisions": [_item(n) for n in by_type.get("decision", [])],
        "style_bridge": style_bridge,
        "source_artifacts": sources[:limit],
        "open_findings": findings,
    }
    capsule["summary"] = {
        "routes": len(capsule["routes"]),
        "components": len(capsule["components"]),
        "tokens": len(capsule["tokens"]),
        "local_rules": n_local,
        "style_bridge": len(by_type.get("bridge", [])),
        "source_artifacts": len(sources),
        "open_findings": len(findings),
    }
    capsule["truncated"] = []
    capsule["token_budget"] = {"limit": token_budget, "tokens": 0, "within": True}
    return capsule


#: What gives way, in order, when the capsule is over its token budget: pointers an agent
#: can ask the graph for again (``graph_node``, ``task_context``), never the authority
#: (constitution, bound invariants, decisions, blocking findings, hashes).
_FRONT_END = ("routes", "components", "tokens", "style_bridge")


def _refill_symbols(
    out: dict[str, Any],
    capsule: dict[str, Any],
    budget: int,
    count: Callable[[dict[str, Any]], int],
) -> None:
    """Room left after halving the symbols per package goes to one more symbol each for
    the packages with the most distinct public names (then by name; a folder of Django
    migrations, each defining ``Migration``, has one): with 200 packages even one symbol
    each can be over the budget, which left a large workspace's capsule with none. The
    most packages that fit are found by bisection (a handful of counts)."""
    full = {p["package"]: p["public_symbols"] for p in capsule["module_map"]}
    shown = {p["package"]: list(p["public_symbols"]) for p in out["module_map"]}
    distinct = {
        name: len({symbol.rsplit("#", 1)[-1] for symbol in symbols})
        for name, symbols in full.items()
    }
    order = sorted(
        (name for name, kept in shown.items() if len(full.get(name, [])) > len(kept)),
        key=lambda name: (-distinct[name], name),
    )

    def give(k: int) -> None:
        more = set(order[:k])
        for package in out["module_map"]:
            name = package["package"]
            kept = shown[name]
            package["public_symbols"] = full[name][: len(kept) + 1] if name in more else kept

    low, high = 0, len(order)
    while low < high:
        mid = (low + high + 1) // 2
        give(mid)
        if count(out) <= budget:
            low = mid
        else:
            high = mid - 1
    give(low)


def fit_to_budget(
    capsule: dict[str, Any], budget: int, count: Callable[[dict[str, Any]], int]
) -> dict[str, Any]:
    """``capsule`` cut to ``budget`` tokens (``count`` measures one), deterministically.

    Each step halves one kind of list and keeps its first items in the capsule's own
    order: public symbols per package, then source artifacts, then the front-end
    vocabulary (routes, components, tokens, style bridge), then local rules per scope,
    then the packages of the module map. ``summary`` keeps the full counts and
    ``truncated`` names every list that was cut, so an agent knows to ask the graph for
    the rest. A capsule whose authority alone is over budget is returned cut as far as
    it goes, and says so (``token_budget.within`` is false).
    """
    out = json.loads(json.dumps(capsule))
    cut: set[str] = set()
    if count(out) <= budget:
        return out

    def mark(name: str) -> None:
        # the names of the cut lists are part of the capsule, so every count after a cut
        # includes them: written only at the end, they took a capsule cut to fit back over
        # its budget (8,008 tokens of 8,000)
        cut.add(name)
        out["truncated"] = sorted(cut)
        if name == "source_artifacts":
            out["source_artifacts_truncated"] = True

    def each(groups: list[dict[str, Any]], key: str, cap: int) -> bool:
        changed = False
        for group in groups:
            if len(group[key]) > cap:
                group[key] = group[key][:cap]
                changed = True
        return changed

    def symbols(cap: int) -> bool:
        return each(out["module_map"], "public_symbols", cap)

    def local(cap: int) -> bool:
        return each(out["local_rules"], "rules", cap)

    def head(key: str, cap: int) -> bool:
        if len(out[key]) > cap:
            out[key] = out[key][:cap]
            return True
        return False

    most_symbols = max((len(p["public_symbols"]) for p in out["module_map"]), default=0)
    most_rules = max((len(g["rules"]) for g in out["local_rules"]), default=0)
    steps: list[tuple[str, Callable[[int], bool], int, int]] = [
        # the file handles first: any listing gives them again, while the public symbols
        # are the contract (a 4,000-file workspace kept 100 paths, from `.aristo/` on, and
        # not one symbol)
        (
            "source_artifacts",
            lambda c: head("source_artifacts", c),
            len(out["source_artifacts"]),
            10,
        ),
        ("module_map.public_symbols", symbols, most_symbols, 0),
        *((key, lambda c, k=key: head(k, c), len(out[key]), 0) for key in _FRONT_END),
        ("local_rules", local, most_rules, 1),
        ("module_map", lambda c: head("module_map", c), len(out["module_map"]), 0),
    ]
    for name, shrink, size, floor in steps:
        cap = size
        while cap > floor and count(out) > budget:
            cap = max(floor, cap // 2)
            if shrink(cap):
                mark(name)
        if count(out) <= budget:
            break
    if "module_map.public_symbols" in cut:
        # also when packages were cut: halving them can leave much of the budget unused
        # (304 packages over it, 152 of them at 56 %), and that room is for the contract
        _refill_symbols(out, capsule, budget, count)
    out["truncated"] = sorted(cut)
    return out
