"""Hybrid search on the demo project with the real embedding model: modes, zones, exact
lookups, expansion, citation chaining, the JSON shape, sho.json and the action log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from charter.config import Project
from charter.embed.registry import get_embedder
from charter.search.actions import read_actions
from charter.search.engine import SearchEngine
from charter.search.indexer import Indexer
from tests.conftest import demo_search_copy

CHARTER = Path(sys.executable).with_name("charter")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = demo_search_copy(
        tmp_path_factory.mktemp("demo") / "proj", '[search]\ndefault_mode = "execution"\n'
    )
    project = Project.load(root)
    Indexer(project, get_embedder("minilm")).run()
    return project


@pytest.fixture(scope="module")
def engine(project: Project) -> SearchEngine:
    eng = SearchEngine(project)
    yield eng
    eng.close()


def test_semantic_query_finds_the_right_section(engine: SearchEngine) -> None:
    response = engine.search("why did ingestion miss its deadline", mode="review", log=False)
    cites = [r.citation for r in response.results]
    assert any(c.startswith("docs/retros/sprint-03.md#") for c in cites[:5]), cites
    for result in response.results:
        assert result.scores["fused"] is not None or result.chained_from


def test_execution_scope_excludes_decisions_and_planning_includes_them(
    engine: SearchEngine,
) -> None:
    execution = engine.search("which database is the system of record", mode="execution", log=False)
    planning = engine.search("which database is the system of record", mode="planning", log=False)
    assert all(not r.path.startswith("decisions/") for r in execution.results)
    assert planning.results[0].path == "decisions/ADR-0001-use-postgres.md"
    assert len(planning.results) <= 8 and len(execution.results) <= 6


def test_exact_lookup_puts_the_id_first(engine: SearchEngine) -> None:
    response = engine.search("DEL-103 owner", mode="execution", log=False)
    top = response.results[0]
    assert top.exact and "DEL-103" in top.text
    assert top.citation == "sot/deliverables.csv#row=3"


def test_restricted_zone_only_when_asked(engine: SearchEngine) -> None:
    query = "tenant admin saw another tenant's invoice totals security incident"
    default = engine.search(query, mode="review", k_out=20, log=False)
    assert all(r.zone != "restricted" for r in default.results)
    asked = engine.search(query, mode="review", zones=["restricted"], log=False)
    assert any(r.path == "docs/security-incident-2025-09.md" for r in asked.results)
    assert "restricted" not in asked.scope.excluded_zones


def test_a_query_nothing_matches_is_not_padded(project: Project, engine: SearchEngine) -> None:
    """Dense retrieval fills every slot whatever the query, so a query nothing answers came
    back as k_out chunks of whatever was in scope. A chunk sharing no term with the query
    and below the mode's cosine floor is not served; the answer says why it is empty."""
    response = engine.search("zebra saxophone volcano", mode="planning", log=False)
    assert response.results == []
    (warning,) = response.warnings
    assert "search.modes.planning.min_similarity" in warning
    settings = project.settings.model_copy(deep=True)
    settings.search.modes["planning"].min_similarity = 0.0
    unfloored = SearchEngine(Project(root=project.root, settings=settings), reranker="none")
    try:  # the floor is what emptied it: turned off, the slots fill with no-matches
        padded = unfloored.search("zebra saxophone volcano", mode="planning", log=False)
    finally:
        unfloored.close()
    assert len(padded.results) == 8


def test_a_lexical_match_is_served_whatever_its_cosine(engine: SearchEngine) -> None:
    """The floor judges only chunks that share no term with the query: a word match stays
    even when the dense model finds it distant, and no served chunk fails both tests."""
    floor = engine.settings.modes["review"].min_similarity
    results = engine.search("how do I roll back a deploy", mode="review", log=False).results
    assert any((r.scores["bm25"] or 0) > 0 and (r.scores["dense"] or 0) < floor for r in results)
    assert all(
        (r.scores["bm25"] or 0) > 0 or (r.scores["dense"] or 0) >= floor or r.exact
        for r in results
        if not r.chained_from
    )


def test_planning_expands_with_parent_and_siblings(engine: SearchEngine) -> None:
    response = engine.search("pricing tiers for the product", mode="planning", log=False)
    tiers = next(r for r in response.results if r.section.endswith("Pricing tiers"))
    relations = {c["relation"] for c in tiers.context}
    assert {"previous", "next"} <= relations or "parent" in relations
    assert all(c["citation"].startswith("docs/product-overview.md#L") for c in tiers.context)


def test_review_follows_adr_citations(engine: SearchEngine) -> None:
    response = engine.search(
        "append-only usage events replaced per-event counters",
        mode="review",
        k_out=1,
        log=False,
    )
    assert response.results[0].path == "decisions/ADR-0004-append-only-usage-events.md"
    chained = [r for r in response.results if r.chained_from]
    assert any(r.path == "decisions/ADR-0002-multi-tenant-schema.md" for r in chained)


def _cli(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHARTER), *args, "--project", str(project.root)], capture_output=True, text=True
    )


def test_cli_json_shape_and_action_log(project: Project) -> None:
    log = project.root / "logs" / "context_actions.csv"
    before = len(read_actions(log))
    done = _cli(
        project,
        "search",
        "engagement fee for Acme",
        "--mode",
        "execution",
        "--k-out",
        "3",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) >= {"query", "mode", "results", "scope"}
    assert data["mode"] == "execution" and data["scope"]["k_out"] == 3
    assert 1 <= len(data["results"]) <= 3
    for result in data["results"]:
        assert set(result) >= {
            "citation",
            "path",
            "line_start",
            "line_end",
            "section",
            "text",
            "score",
            "scores",
        }
        assert set(result["scores"]) == {"bm25", "dense", "fused", "rerank"}
    assert any(r["path"] == "sot/engagements.csv" for r in data["results"])
    rows = read_actions(log)
    assert len(rows) == before + 1
    assert rows[-1]["mode"] == "execution"
    assert json.loads(rows[-1]["results"]) == [r["citation"] for r in data["results"]]


def test_cli_reads_mode_from_sho_and_rejects_bad_mode(project: Project) -> None:
    assert _cli(project, "mode", "review").returncode == 0
    sho = json.loads((project.root / ".charter" / "sho.json").read_text())
    assert sho["mode"] == "review"
    done = _cli(project, "search", "sprint 3", "--json", "--no-rerank")
    assert json.loads(done.stdout)["mode"] == "review"
    bad = _cli(project, "search", "x", "--mode", "brainstorm")
    assert bad.returncode != 0 and "unknown mode 'brainstorm'" in bad.stderr
    assert "Traceback" not in bad.stderr
    # a mode recorded earlier and since removed from the config falls back to the default
    state = project.root / ".charter" / "sho.json"
    state.write_text(json.dumps({**sho, "mode": "triage"}))
    done = _cli(project, "search", "sprint 3", "--json", "--no-rerank")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mode"] == "execution"
    assert json.loads(_cli(project, "mode", "--json").stdout)["mode"] == "execution"
    _cli(project, "mode", "execution")


def _backlog(root: Path, tickets: int) -> Project:
    """A sprint page listing its tickets, one file per ticket titled by its ID."""
    (root / "docs" / "backlog" / "tickets").mkdir(parents=True)
    (root / "charter.toml").write_text("")
    listing = ["# Sprint 03 - Async import", "", "## Tickets"]
    for n in range(1, tickets + 1):
        slug = f"SP3-{n:03d}-part-{n}"
        listing.append(f"- [SP3-{n:03d} - Import part {n}](tickets/{slug}.md)")
        (root / "docs" / "backlog" / "tickets" / f"{slug}.md").write_text(
            f"# SP3-{n:03d} - Import part {n}\n\n## Context\nPart {n} of the import.\n\n"
            f"## Scope\n- Build stage {n} of the OCR pipeline.\n\n## Status\n- done\n"
        )
    listing += ["", "## Plan", "- SP3-004 lands after SP3-003.", ""]
    (root / "docs" / "backlog" / "sprint-03.md").write_text("\n".join(listing))
    project = Project.load(root)
    Indexer(project, get_embedder("minilm")).run()
    return project


def test_an_id_that_titles_a_document_finds_that_document_first(tmp_path: Path) -> None:
    # "# SP3-004 - …" is a heading with no body of its own, so no chunk's text held the
    # ID: exact lookup found the pages that mention it, never the ticket itself
    project = _backlog(tmp_path, 6)
    engine = SearchEngine(project)
    try:
        results = engine.search("what does ticket SP3-004 cover", mode="execution", log=False)
    finally:
        engine.close()
    top = results.results[0]
    assert top.path == "docs/backlog/tickets/SP3-004-part-4.md" and top.exact, [
        r.citation for r in results.results
    ]
    # one chunk of it is the exact match, not each of its sections
    assert [r.path for r in results.results if r.exact].count(top.path) == 1
    assert any(r.path == "docs/backlog/sprint-03.md" and r.exact for r in results.results)


def test_review_chains_at_most_k_out_documents_the_ones_named_first(tmp_path: Path) -> None:
    # a sprint page cites each of its tickets: every result from it chained all of them
    # (ten results came back with fifty-six chained documents)
    project = _backlog(tmp_path, 12)
    engine = SearchEngine(project)
    try:
        response = engine.search("Sprint 03 tickets list", mode="review", k_out=2, log=False)
        named = engine.search("Sprint 03 ticket list SP3-009", mode="review", k_out=2, log=False)
    finally:
        engine.close()
    assert any(r.path == "docs/backlog/sprint-03.md" for r in response.results)
    chained = [r for r in response.results if r.chained_from]
    assert 1 <= len(chained) <= 2, [r.citation for r in response.results]
    # the ticket the query names is chained before the others
    chained = [r for r in named.results if r.chained_from]
    assert chained[0].path == "docs/backlog/tickets/SP3-009-part-9.md", [
        r.citation for r in named.results
    ]


def test_a_packages_doc_folder_is_in_the_default_scopes(tmp_path: Path) -> None:
    """A gem monorepo keeps its guides in ``runtime/doc/``: execution and planning searched
    ``docs/**`` at the top only, so "how do I register a custom function" found the root
    README's table of links and never the guide it links to."""
    root = tmp_path / "proj"
    (root / "runtime" / "doc").mkdir(parents=True)
    (root / "tools" / "docs").mkdir(parents=True)
    (root / "README.md").write_text(
        "# Gem\n\n## Documentation\n\n| Purpose | Document |\n|---|---|\n"
        "| Custom functions | [custom-functions.md](runtime/doc/custom-functions.md) |\n"
    )
    (root / "runtime" / "doc" / "custom-functions.md").write_text(
        "# Custom Functions Guide\n\n## Registering Functions\n\nPass a hash of callables "
        "as `functions:` when you create the bundle; each key is the name a message "
        "calls, such as SHOUT.\n"
    )
    (root / "tools" / "docs" / "cli.md").write_text(
        "# CLI\n\n## lint\n\nChecks message files for syntax errors; `--quiet` prints only "
        "the failures.\n"
    )
    project = Project.load(root)
    Indexer(project, get_embedder("minilm")).run()
    engine = SearchEngine(project)
    try:
        for mode in ("execution", "planning"):
            found = engine.search("how do I register a custom function", mode=mode, log=False)
            assert found.results[0].path == "runtime/doc/custom-functions.md", mode
            question = "which options does the lint command accept"
            found = engine.search(question, mode=mode, log=False)
            assert found.results[0].path == "tools/docs/cli.md", mode
    finally:
        engine.close()
