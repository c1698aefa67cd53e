"""The graph capability's public face: build, capsule, task context, node queries.

Front doors (CLI, MCP tools, hooks) call only these functions. Everything is computed
from ``.charter/graph/snapshot.json`` and the per-file cache; a missing graph is built
on first use (cold), an existing one is brought up to date incrementally.
"""

from __future__ import annotations

import json
from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.fileio import atomic_write_text, canonical_json
from charter.graph.build import Graph, build_graph, graph_dir, write_lock
from charter.graph.capsule import build_capsule, fit_to_budget
from charter.graph.context import Weights, rank
from charter.graph.index import index_for
from charter.tokens import count_tokens

__all__ = ["build", "capsule", "load_graph", "task_context"]

#: Part of the file-index cache key: bump when what goes into the index changes.
INDEX_VERSION = ":2"  # 2: Chinese and Japanese character pairs


def refresh_rules(project: Project) -> None:
    """Compile the rules first when they never were or a rule file changed since.

    The capsule is committed and cached by its key, and its constitution and local rules
    come from the compiled rules (a graph build never compiles them, so it never loads an
    embedding model): in a fresh clone, ``charter graph status`` rewrote the committed
    capsule without its rules, under another key, and after an edit to a rule file
    ``charter capsule`` still served the old rules. The capsule's own front doors call
    this; a task context reads whatever is compiled.
    """
    from charter.rules.compiler import load_or_compile
    from charter.rules.freshness import is_stale
    from charter.rules.sources import discover
    from charter.rules.stored import STATE_FILE

    try:
        if not is_stale(project):
            return
        if not (project.state_dir / STATE_FILE).exists() and not discover(
            project.root, project.settings.rules.exclude
        ):
            return  # no rule file and nothing compiled: nothing to bring up to date
        load_or_compile(project)
    except CharterError:
        return  # a rule file that does not compile: the capsule shows what is compiled


def build(project: Project) -> Graph:
    """Build or update the snapshot (only changed files re-parsed) and the capsule."""
    refresh_rules(project)
    graph = build_graph(project)
    capsule(project, graph)
    return graph


def load_graph(project: Project) -> Graph:
    """The current graph, built or brought up to date as needed."""
    return build_graph(project)


def _constitution(project: Project) -> dict[str, Any] | None:
    from charter.rules.compiler import load

    compiled = load(project)
    if compiled is None:
        return None
    return {"hash": compiled.constitution.hash, "text": compiled.constitution.text}


def _invariants(project: Project) -> list[dict[str, Any]]:
    from charter.decisions.service import project_invariants, store_for

    try:
        if not store_for(project).exists():
            return []
        return [
            {"id": inv.id, "statement": inv.statement, "kind": str(inv.kind)}
            for inv in project_invariants(project)
        ]
    except CharterError:
        return []


def capsule(project: Project, graph: Graph | None = None, *, write: bool = True) -> dict[str, Any]:
    """The contract capsule for the current snapshot (written next to it)."""
    graph = graph or load_graph(project)
    settings = project.settings.graph
    result = build_capsule(
        graph.full_snapshot(),
        _constitution(project),
        _invariants(project),
        limit=settings.source_artifact_limit,
        token_budget=settings.capsule_token_budget,
    )
    budget = settings.capsule_token_budget
    # a few tokens held back for the size this report is about to write into it
    result = fit_to_budget(result, budget - 16, lambda c: count_tokens(canonical_json(c)))
    tokens = count_tokens(canonical_json(result))
    result["token_budget"] = {
        "limit": settings.capsule_token_budget,
        "tokens": tokens,
        "within": tokens <= settings.capsule_token_budget,
    }
    if write:
        path = graph_dir(project) / "contract-capsule.json"
        final = canonical_json(result)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != final:
            with write_lock(project):
                atomic_write_text(path, final)
    return result


def _cache_key(project: Project, graph: Graph) -> str:
    path = graph_dir(project) / "contract-capsule.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("snapshot_id") == graph.snapshot_id:
            return str(data["cache_key"])
    except (OSError, ValueError, KeyError):
        pass
    return str(capsule(project, graph)["cache_key"])


#: Symbols shown per file, and their share of the result: files come first for an agent
#: deciding what to open, a symbol is a pointer into a file already listed.
SYMBOLS_PER_FILE = 2
SYMBOL_SHARE = 0.25


def _select(ranked: list[Any], graph: Graph, limit: int) -> list[Any]:
    """The best ``limit`` nodes with symbols capped per file and overall."""
    chosen: list[Any] = []
    per_file: dict[str, int] = {}
    symbols = 0
    cap = max(1, int(limit * SYMBOL_SHARE))
    for row in ranked:
        node = graph.nodes[row[0]]
        if node.type == "symbol":
            key = node.path or ""
            if per_file.get(key, 0) >= SYMBOLS_PER_FILE or symbols >= cap:
                continue
            per_file[key] = per_file.get(key, 0) + 1
            symbols += 1
        chosen.append(row)
        if len(chosen) >= limit:
            break
    return chosen


def _search_hits(project: Project, task: str) -> dict[str, float]:
    """Per file, its best hybrid-search hit for the task as a score (1 = first), when the
    project has a search index: the same BM25 + dense core search and rules use. No index,
    no hits (task context never builds one: embedding a repository does not fit a cold
    call)."""
    from charter.search.store import DB_NAME

    if project.settings.graph.search_weight <= 0 or not (project.state_dir / DB_NAME).exists():
        return {}
    from charter.search.engine import SearchEngine

    try:
        engine = SearchEngine(project)
        try:
            response = engine.search(task[:2000], mode="execution", k_out=20)
        finally:
            engine.close()
    except (CharterError, OSError, ValueError):
        return {}
    ordered: list[str] = []
    for result in response.results:  # best first; fused scores are not on a 0..1 scale
        if result.path not in ordered:
            ordered.append(result.path)
    return {path: 1.0 - rank / len(ordered) for rank, path in enumerate(ordered)}


#: The most of a task's text the answer repeats: a caller may send a whole issue or spec
#: (the MCP tool takes 200,000 characters) and already has it.
_ECHO_CHARS = 500


def _echo(task: str) -> str:
    """The task as the answer repeats it: whole when short, else its start and a count."""
    if len(task) <= _ECHO_CHARS:
        return task
    return f"{task[:_ECHO_CHARS].rstrip()}… ({len(task):,} characters)"


def task_context(
    project: Project,
    task: str,
    files: list[str] | None = None,
    *,
    limit: int | None = None,
    depth: int | None = None,
    graph: Graph | None = None,
    weights: Weights | None = None,
) -> dict[str, Any]:
    """Ranked nodes for a task with scores, matched terms and reasons (best first)."""
    if not task.strip():
        raise CharterError("task-context needs a task text")
    settings = project.settings.graph
    limit = settings.default_limit if limit is None else limit
    depth = settings.default_depth if depth is None else depth
    if limit < 1:
        raise CharterError("--limit must be at least 1")
    if depth < 0:
        raise CharterError("--depth must be 0 (seeds only) or more")
    graph = graph or load_graph(project)
    rel_files = [project.rel(project.root / f) for f in files or []]
    index = index_for(lambda: graph.records, graph_dir(project), graph.snapshot_id + INDEX_VERSION)
    ranked, query = rank(
        graph,
        task,
        rel_files,
        weights=weights or Weights.from_settings(settings),
        index=index,
        depth=depth,
        search_hits=_search_hits(project, task),
    )
    chosen = _select(ranked, graph, limit)
    ids = {r[0] for r in chosen}
    nodes = []
    for nid, score, parts, matched, reasons in chosen:
        node = graph.nodes[nid]
        nodes.append(
            {
                "id": nid,
                "type": node.type,
                "name": node.name,
                "path": node.path,
                "line_start": node.line_start,
                "line_end": node.line_end,
                "score": round(score, 6),
                "scores": parts,
                "matched_terms": matched,
                "reasons": reasons,
            }
        )
    edges = [e.as_dict() for e in graph.edges_among(ids)]
    return {
        "task": _echo(task),
        "snapshot_id": graph.snapshot_id,
        "cache_key": _cache_key(project, graph),
        "keywords": query.keywords,
        "nodes": nodes,
        "edges": edges,
        "truncated": len(ranked) > len(chosen),
    }
