"""MCP tool bodies of the graph capability: plain functions over a project.

Each takes the project first and returns a JSON-able dict; user errors raise
CharterError. The MCP server registers them on the plugin seam (charter.plugins).
"""

from __future__ import annotations

from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.graph import api
from charter.graph.build import graph_dir


def get_project_state(project: Project) -> dict[str, Any]:
    """Graph status: snapshot id, capsule cache key, counts, and which files are stale."""
    import json

    snapshot_path = graph_dir(project) / "snapshot.json"
    old_id = None
    if snapshot_path.is_file():
        try:
            old_id = json.loads(snapshot_path.read_text(encoding="utf-8")).get("snapshot_id")
        except ValueError:
            old_id = None
    api.refresh_rules(project)
    graph = api.load_graph(project)
    capsule = api.capsule(project, graph)
    report = graph.report
    return {
        "graph": "built"
        if old_id is None
        else ("current" if old_id == graph.snapshot_id else "updated"),
        "snapshot_id": graph.snapshot_id,
        "previous_snapshot_id": old_id,
        "source_hash": graph.snapshot["source_hash"],
        "cache_key": capsule["cache_key"],
        "counts": graph.snapshot["counts"],
        "reparsed_files": report["parsed"],
        "notes": report["notes"][:20],
        "open_findings": capsule["summary"]["open_findings"],
    }


def get_contract_capsule(project: Project) -> dict[str, Any]:
    """The contract capsule (stable; cache it by ``cache_key``)."""
    api.refresh_rules(project)
    return api.capsule(project)


def prepare_task_context(
    project: Project, task: str, files: list[str] | None = None, limit: int = 20
) -> dict[str, Any]:
    """Ranked files, symbols, rules, decisions and docs for a task, with reasons."""
    return api.task_context(project, task, files, limit=limit)


def _node(graph: api.Graph, node_id: str) -> dict[str, Any]:
    node = graph.nodes.get(node_id)
    if node is None:
        raise CharterError(f"no graph node {node_id!r} (ids look like src:path, sym:path#Name)")
    return node.as_dict()


def _matches(graph: api.Graph, text: str, kind: str | None) -> list[tuple[int, str]]:
    """(rank, id) of the nodes whose name, path or id holds ``text``: 0 the name exactly,
    1 the name ignoring case, 2 the end of the path or id, 3 anywhere in name or path."""
    want = text.strip().removeprefix("./")
    low = want.lower()
    found: list[tuple[int, str]] = []
    if not low:
        return found
    for node in graph.nodes.values():
        if kind is not None and node.type != kind:
            continue
        name = node.name or ""
        path = node.path or ""
        if name == want:
            found.append((0, node.id))
        elif name.lower() == low:
            found.append((1, node.id))
        elif path.lower().endswith(low) or node.id.lower().endswith(low):
            found.append((2, node.id))
        elif low in name.lower() or low in path.lower():
            found.append((3, node.id))
    return sorted(found)


def find_nodes(
    project: Project, text: str, kind: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """Nodes a person names without knowing their ids (a symbol's name, part of a path),
    best match first: how a terminal user finds the node to ask about."""
    graph = api.load_graph(project)
    if kind is not None and kind not in {n.type for n in graph.nodes.values()}:
        types = ", ".join(sorted({n.type for n in graph.nodes.values()}))
        raise CharterError(f"no {kind!r} nodes in this graph (types: {types})")
    found = _matches(graph, text, kind)
    return {
        "query": text,
        "nodes": [graph.nodes[node_id].as_dict() for _, node_id in found[:limit]],
        "total": len(found),
        "truncated": len(found) > limit,
    }


def resolve_node(graph: api.Graph, ref: str) -> str:
    """The id a reference stands for: an id, a file path or its tail, or a name that only
    one node carries (a symbol, a component; a method by its own name). Several equal
    names are listed, not guessed."""
    ref = ref.strip()
    if ref in graph.nodes:
        return ref
    as_path = f"src:{ref.removeprefix('./')}"
    if as_path in graph.nodes:
        return as_path
    found = _matches(graph, ref, None)
    best = [node_id for rank, node_id in found if rank == found[0][0]] if found else []
    if found and found[0][0] <= 2 and len(best) == 1:
        return best[0]  # one name, or one path or id ending so (a method's ``analyze``)
    if found and found[0][0] == 2:
        # the tail of a file's path (``semantic/mod.rs`` from a subfolder) names the file,
        # not also the symbols and sections in it
        files = [i for i in best if graph.nodes[i].type == "source"]
        if len(files) == 1 and all(graph.nodes[i].path == graph.nodes[files[0]].path for i in best):
            return files[0]
    if found and found[0][0] <= 2:
        shown = ", ".join(best[:8]) + (" …" if len(best) > 8 else "")
        raise CharterError(f"{ref!r} names {len(best)} nodes: {shown}; give one id")
    raise CharterError(f"no graph node {ref!r} (ids look like src:path, sym:path#Name)")


def get_node(project: Project, node_id: str) -> dict[str, Any]:
    """One node by id (``src:…``, ``sym:…``, ``rule:…``, ``rt:…``), path or unique name."""
    graph = api.load_graph(project)
    return _node(graph, resolve_node(graph, node_id))


def neighbors(
    project: Project, node_id: str, relation: str | None = None, limit: int = 50
) -> dict[str, Any]:
    """Edges into and out of a node, optionally of one relation."""
    graph = api.load_graph(project)
    node_id = resolve_node(graph, node_id)
    node = _node(graph, node_id)
    if relation is not None:
        known = sorted({e.relation for e in graph.edges})
        if relation not in known:
            raise CharterError(
                f"no {relation!r} edges in this graph (relations: {', '.join(known)})"
            )
    out = [
        e.as_dict()
        for e in graph.edges
        if node_id in (e.source, e.target) and (relation is None or e.relation == relation)
    ]
    return {"node": node, "edges": out[:limit], "truncated": len(out) > limit}


def graph_node(
    project: Project, node_id: str, view: str = "node", relation: str | None = None
) -> dict[str, Any]:
    """The one MCP follow-up on a node: ``node``, its ``edges`` or the ``impact`` of a
    change (a plain path or a name only one node carries stands for its node). One tool
    instead of three keeps the definitions every request carries short."""
    if view == "impact":
        return impact_of(project, node_id)
    if view == "edges":
        return neighbors(project, node_id, relation=relation)
    if view != "node":
        raise CharterError(f"unknown view {view!r} (node, edges, impact)")
    return get_node(project, node_id)


def impact_of(project: Project, path: str) -> dict[str, Any]:
    """What a change to ``path`` touches: importers, tests, governing rules, citing docs.
    A node of another kind (a symbol, a component) stands for the file that holds it."""
    graph = api.load_graph(project)
    try:
        found = graph.nodes[resolve_node(graph, path)]
    except CharterError as exc:
        raise CharterError(f"{path}: not a file in the graph ({exc})") from None
    rel = found.path if found.type != "source" and found.path else found.id.removeprefix("src:")
    target = f"src:{rel}"
    if target not in graph.nodes:
        raise CharterError(f"{path}: not a file in the graph")
    symbols = {e.target for e in graph.edges if e.source == target and e.relation == "defines"}
    about = {target} | symbols
    groups: dict[str, set[str]] = {
        "imported_by": set(),
        "tests": set(),
        "rules": set(),
        "documents": set(),
        "callers": set(),
        "findings": set(),
    }
    for e in graph.edges:
        if e.target not in about:
            continue
        if e.relation == "imports":
            groups["imported_by"].add(e.source)
        elif e.relation == "tests":
            groups["tests"].add(e.source)
        elif e.relation == "governs":
            groups["rules"].add(e.source)
        elif e.relation == "cites":
            groups["documents"].add(e.source)
        elif e.relation in ("calls", "references"):
            groups["callers"].add(e.source)
        elif e.relation == "about":
            groups["findings"].add(e.source)
    rules = {n.id for n in graph.nodes.values() if n.type == "rule" and not n.attrs.get("scopes")}
    return {
        "path": rel,
        "symbols": sorted(symbols),
        **{k: sorted(v) for k, v in groups.items()},
        "decisions": sorted(n.id for n in graph.nodes.values() if n.type == "decision"),
        "unscoped_rules": len(rules),
    }
