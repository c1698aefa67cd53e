"""Rules, bound decisions and findings as graph nodes, read from Charter's own state.

Rules come from the compiled rules (``charter compile``; not compiled here, so a build
never loads an embedding model; the capsule's front doors compile them first,
:func:`charter.graph.api.refresh_rules`): each is a ``rule:`` node at its source span with
``governs`` edges to the files its scope globs match. Bound decisions are ``dec:`` nodes.
Findings (``find:``) come from ``.charter/graph/findings.jsonl``, which drift checks, lint
and gates append to (:func:`charter.graph.findings.record_findings`); each is anchored to
the file it is about.
"""

from __future__ import annotations

from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.graph.findings import load_findings
from charter.graph.model import Edge, Node, node_id
from charter.search.discover import matches_any


def _rules(project: Project, records: dict[str, dict[str, Any]]) -> tuple[list[Node], list[Edge]]:
    from charter.rules.compiler import load

    compiled = load(project)
    if compiled is None:
        return [], []
    nodes, edges = [], []
    for rule in compiled.rules:
        rid = node_id("rule", rule.id)
        attrs: dict[str, Any] = {"text": rule.text, "risk": rule.risk}
        if rule.scopes:
            attrs["scopes"] = list(rule.scopes)
        if rule.constitution:
            attrs["constitution"] = True
        nodes.append(
            Node(
                rid,
                "rule",
                rule.id,
                rule.source.path,
                rule.source.line_start,
                rule.source.line_end,
                attrs,
            )
        )
        if rule.source.path in records:
            edges.append(Edge(node_id("source", rule.source.path), rid, "defines"))
        if rule.scopes:
            for path in records:
                if matches_any(path, rule.scopes):
                    edges.append(Edge(rid, node_id("source", path), "governs"))
    return nodes, edges


def _decisions(project: Project) -> list[Node]:
    from charter.decisions.service import load_decisions, store_for

    if not store_for(project).exists():
        return []
    decisions = load_decisions(project)
    out = []
    for entry in decisions.pgc_clarifications:
        if not entry.binding:
            continue
        label = entry.user_answer_label
        answer = ", ".join(label) if isinstance(label, list) else str(label or entry.user_answer)
        out.append(
            Node(
                node_id("decision", entry.id),
                "decision",
                entry.id,
                attrs={"question": entry.text, "answer": answer, "priority": str(entry.priority)},
            )
        )
    return out


def collect(
    project: Project, records: dict[str, dict[str, Any]]
) -> tuple[list[Node], list[Edge], list[dict[str, str]]]:
    """Rule, decision and finding nodes with their edges, and notes on what was missing."""
    notes: list[dict[str, str]] = []
    nodes: list[Node] = []
    edges: list[Edge] = []
    rule_nodes, rule_edges = _rules(project, records)
    nodes += rule_nodes
    edges += rule_edges
    try:
        nodes += _decisions(project)
    except CharterError as exc:
        notes.append({"path": ".charter/decisions", "note": f"decisions not read: {exc}"})
    for finding in load_findings(project):
        fid = node_id("finding", finding["id"])
        nodes.append(
            Node(
                fid,
                "finding",
                finding.get("title", finding["id"]),
                finding.get("path"),
                finding.get("line_start"),
                finding.get("line_end") if finding.get("line_start") else None,
                {k: finding[k] for k in ("severity", "source", "status", "rule") if k in finding},
            )
        )
        if finding.get("path") in records:
            edges.append(Edge(fid, node_id("source", finding["path"]), "about"))
    return nodes, edges, notes
