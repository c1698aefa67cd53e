"""The graph end to end on real files in a real git repo: snapshot, capsule, task context."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from charter.config import Project
from charter.graph import api, tools
from charter.graph.build import build_graph, read_snapshot
from charter.graph.findings import record_findings
from charter.graph.ppr import personalized_pagerank, transition
from charter.graph.text import surface_forms
from charter.search.text import stem
from tests.conftest import write


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_project(root: Path) -> Path:
    write(root, ".gitignore", "ignored/\n")
    write(root, "ignored/secret_plan.py", "def hidden():\n    pass\n")
    write(root, ".env", "TOKEN=abc\n")
    write(root, "billing/__init__.py", "")
    write(
        root,
        "billing/invoices.py",
        "from billing.tax import vat_rate\n\n\nclass InvoiceTotals:\n"
        "    def compute_total(self, lines):\n        return sum(lines) * vat_rate()\n",
    )
    write(root, "billing/tax.py", "def vat_rate():\n    return 1.2\n")
    write(root, "billing/export.py", "import csv\n\n\ndef export_csv(rows):\n    return rows\n")
    write(
        root,
        "tests/test_invoices.py",
        "from billing.invoices import InvoiceTotals\n\n\ndef test_total():\n"
        "    assert InvoiceTotals().compute_total([1]) == 1.2\n",
    )
    write(root, "docs/billing.md", "# Billing\n\n## Totals\nTotals live in billing/invoices.py.\n")
    write(root, "web/app/page.tsx", "export default function Home() { return <main/>; }\n")
    write(root, "web/app/globals.css", ":root {\n  --brand: #123456;\n}\n")
    return root


def test_snapshot_is_deterministic_and_incremental(repo: Path) -> None:
    make_project(repo)
    project = Project.load(repo)
    graph = build_graph(project)
    snap = repo / ".charter/graph/snapshot.json"
    first = sha(snap)
    data = read_snapshot(snap)
    ids = [n["id"] for n in data["nodes"]]
    assert ids == sorted(ids)
    assert data["snapshot_id"] == "graph:" + data["source_hash"].split(":")[1][:12]
    assert "src:ignored/secret_plan.py" not in ids and "src:.env" not in ids
    assert {"path": ".env", "reason": "secret (deny list)"} in graph.report["skipped"]
    sym = next(
        n for n in data["nodes"] if n["id"] == "sym:billing/invoices.py#InvoiceTotals.compute_total"
    )
    assert (sym["line_start"], sym["line_end"]) == (5, 6)
    edges = {(e["source"], e["target"], e["relation"]) for e in data["edges"]}
    assert ("src:billing/invoices.py", "src:billing/tax.py", "imports") in edges
    assert ("src:billing/invoices.py", "sym:billing/tax.py#vat_rate", "calls") in edges
    assert ("src:tests/test_invoices.py", "src:billing/invoices.py", "tests") in edges
    assert ("doc:docs/billing.md#totals", "src:billing/invoices.py", "cites") in edges
    # same tree, rebuilt: same bytes, nothing re-parsed
    again = build_graph(Project.load(repo))
    assert sha(snap) == first and again.report["parsed"] == 0
    # one file changed: only it is re-parsed, and the snapshot id moves
    write(repo, "billing/tax.py", "def vat_rate():\n    return 1.25\n")
    os.utime(repo / "billing/tax.py", ns=(1, 1))
    changed = build_graph(Project.load(repo))
    assert changed.report["parsed"] == 1
    assert changed.snapshot_id != graph.snapshot_id


def test_the_stored_snapshot_writes_each_id_once(repo: Path) -> None:
    """Schema 2: a node a line, a source's or symbol's id left out (its type, path and
    name give it), edges as indices into the node list; read back, the same graph."""
    make_project(repo)
    graph = build_graph(Project.load(repo))
    text = (repo / ".charter/graph/snapshot.json").read_text()
    raw = json.loads(text)
    assert raw["schema_version"] == "2"
    assert all("id" not in n for n in raw["nodes"] if n["type"] in ("source", "symbol"))
    assert any("id" in n for n in raw["nodes"])  # documents, tokens, routes keep theirs
    assert all(isinstance(s, int) and isinstance(t, int) for s, t, _ in raw["edges"])
    assert text.count("\n") == len(raw["nodes"]) + len(raw["edges"]) + 3
    full = read_snapshot(repo / ".charter/graph/snapshot.json")
    assert [n["id"] for n in full["nodes"]] == list(graph.nodes)
    assert [(e["source"], e["target"], e["relation"]) for e in full["edges"]] == [
        (e.source, e.target, e.relation) for e in graph.edges
    ]
    assert full["nodes"] == graph.full_snapshot()["nodes"]


def test_a_long_task_is_not_echoed_back_whole(repo: Path) -> None:
    """An agent sent a 199,000-character spec through ``prepare_task_context``: the answer
    repeated all of it, 50k tokens of its context for nothing."""
    make_project(repo)
    long = "compute the invoice total with vat " * 5000
    out = api.task_context(Project.load(repo), long)
    assert len(out["task"]) < 600 and out["task"].startswith("compute the invoice total")
    assert f"{len(long):,} characters" in out["task"] and len(json.dumps(out)) < 20_000
    short = api.task_context(Project.load(repo), "compute the invoice total")
    assert short["task"] == "compute the invoice total"


def test_a_warm_call_reads_the_snapshot_not_the_file_cache(repo: Path) -> None:
    """An unchanged tree is answered from the snapshot ``built.json`` names; the per-file
    records (every file's terms) are read only when asked for, and a file cache written
    for another snapshot is not taken for this one's."""
    make_project(repo)
    first = build_graph(Project.load(repo))
    task = "compute the invoice total with vat"
    before = api.task_context(Project.load(repo), task)
    cache = repo / ".charter/graph/files.json"
    real = json.loads(cache.read_text())
    cache.write_text(json.dumps({**real, "files": {}}))  # same snapshot, no records
    warm = build_graph(Project.load(repo))
    assert warm.snapshot_id == first.snapshot_id and warm.report["parsed"] == 0
    assert warm.report["files"] == first.report["files"]
    assert warm.records == {}  # read now, from the cache the snapshot was written with
    assert api.task_context(Project.load(repo), task) == before  # no record needed
    cache.write_text(json.dumps({**real, "snapshot_sha256": "0" * 64, "files": {}}))
    other = build_graph(Project.load(repo))
    assert sorted(other.records) == sorted(first.records)  # the current files', re-read
    cache.write_text(json.dumps(real))
    write(repo, "billing/tax.py", "def vat_rate():\n    return 1.25\n")
    os.utime(repo / "billing/tax.py", ns=(1, 1))
    changed = build_graph(Project.load(repo))
    assert changed.report["parsed"] == 1 and changed.snapshot_id != first.snapshot_id


def test_a_fresh_clone_rebuilds_the_committed_capsule_byte_for_byte(
    tmp_path: Path, run_charter: Callable[..., Any]
) -> None:
    """The capsule is committed, ``snapshot.json`` is not: a clone of an unchanged tree
    (elsewhere on disk) must rebuild the same capsule bytes, not stamp its own time."""
    import subprocess
    import time

    git = ["git", "-c", "user.email=qa@example.com", "-c", "user.name=qa"]
    one = tmp_path / "one" / "repo"
    one.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(one)], check=True)
    make_project(one)
    assert run_charter("graph", "build", cwd=one).returncode == 0
    capsule = ".charter/graph/contract-capsule.json"
    committed = (one / capsule).read_bytes()
    subprocess.run([*git, "add", "-A"], cwd=one, check=True)
    subprocess.run([*git, "commit", "-qm", "tree and capsule"], cwd=one, check=True)
    assert (
        subprocess.run(
            ["git", "ls-files", capsule], cwd=one, capture_output=True, text=True
        ).stdout.strip()
        == capsule
    ), "the capsule is meant to be committed"
    # the clone builds in a later second than the first build did
    stamp = json.loads(committed)["created_at"]
    while time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()) == stamp:
        time.sleep(0.05)
    two = tmp_path / "other place" / "projé"
    subprocess.run(["git", "clone", "-q", str(one), str(two)], check=True)
    assert not (two / ".charter/graph/snapshot.json").exists()
    assert run_charter("graph", "build", cwd=two).returncode == 0
    assert (two / capsule).read_bytes() == committed
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=two, capture_output=True, text=True, check=True
    )
    assert status.stdout == ""


def test_bad_input_stays_file_level_and_is_reported(repo: Path) -> None:
    make_project(repo)
    (repo / "blob.py").write_bytes(b"\x00\x01\x02binary")
    write(repo, "broken.py", "def ok():\n    return 1\n\ndef broken(:\n")
    write(repo, "charter.toml", "[graph]\nmax_file_bytes = 2048\n")
    write(repo, "huge.py", "x = 1\n" * 1000)
    # a screenshot over the size cap is a binary file, counted with the others, not a
    # "too large" note of its own
    (repo / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)) * 16)
    graph = build_graph(Project.load(repo))
    notes = {n["path"]: n["note"] for n in graph.report["notes"]}
    assert notes["blob.py"].startswith("binary")
    assert notes["huge.py"].startswith("too large")
    assert notes["shot.png"].startswith("binary")
    assert "syntax errors" in notes["broken.py"]
    assert "src:huge.py" in graph.nodes and "src:blob.py" in graph.nodes
    assert "sym:broken.py#ok" in graph.nodes


def test_capsule_hashes_findings_and_routes(repo: Path) -> None:
    make_project(repo)
    project = Project.load(repo)
    first = api.capsule(project)
    path = repo / ".charter/graph/contract-capsule.json"
    digest = sha(path)
    assert first["contract_hash"].startswith("sha256:") and len(first["contract_hash"]) == 71
    assert (
        first["cache_key"]
        == first["contract_cache_key"]
        == f"charter-contract:{first['contract_hash']}"
    )
    assert first["summary"]["routes"] == 1 and first["summary"]["tokens"] == 1
    assert first["token_budget"]["within"]
    assert sha(path) == digest  # unchanged snapshot → byte-identical capsule
    api.capsule(Project.load(repo))
    assert sha(path) == digest
    record_findings(
        project,
        [
            {
                "title": "uses float money",
                "path": "billing/invoices.py",
                "severity": "blocking",
                "source": "drift",
            }
        ],
    )
    with_finding = api.capsule(Project.load(repo))
    assert with_finding["summary"]["open_findings"] == 1
    assert with_finding["contract_hash"] == first["contract_hash"]
    # a comment edit leaves the contract alone
    write(repo, "billing/tax.py", "# rates\ndef vat_rate():\n    return 1.2\n")
    assert api.capsule(Project.load(repo))["contract_hash"] == first["contract_hash"]
    write(
        repo, "web/app/invoices/page.tsx", "export default function Invoices() { return null; }\n"
    )
    with_route = api.capsule(Project.load(repo))
    assert with_route["summary"]["routes"] == 2
    assert with_route["contract_hash"] != first["contract_hash"]


def test_capsule_truncates_source_artifacts(repo: Path) -> None:
    write(repo, "charter.toml", "[graph]\nsource_artifact_limit = 3\n")
    for i in range(5):
        write(repo, f"m{i}.py", f"X{i} = {i}\n")
    capsule = api.capsule(Project.load(repo))
    assert capsule["source_artifacts_truncated"] is True
    # Charter's own charter.toml is no source artifact of the project
    assert capsule["source_artifacts"] == ["m0.py", "m1.py", "m2.py"]
    assert capsule["summary"]["source_artifacts"] == 5


def test_ppr_matches_hand_computation() -> None:
    d = 0.82
    two = personalized_pagerank(transition(2, [(0, 1, 1.0)]), {0: 1.0}, d)
    assert np.allclose(two, [1 / (1 + d), d / (1 + d)], atol=1e-8)
    # path a - b - c, restart at a: x_b = d/(1+d), x_a = (1-d) + d²/(2(1+d)), x_c = d x_b / 2
    three = personalized_pagerank(transition(3, [(0, 1, 1.0), (1, 2, 1.0)]), {0: 1.0}, d)
    xb = d / (1 + d)
    assert np.allclose(three, [(1 - d) + d * d / (2 * (1 + d)), xb, d * xb / 2], atol=1e-8)
    assert abs(three.sum() - 1) < 1e-9


def test_task_context_ranks_and_is_deterministic(repo: Path) -> None:
    make_project(repo)
    project = Project.load(repo)
    task = 'compute_total is wrong:\nFile "/site/billing/invoices.py", line 6, in compute_total'
    first = api.task_context(project, task, limit=8)
    assert set(first) == {
        "task",
        "snapshot_id",
        "cache_key",
        "keywords",
        "nodes",
        "edges",
        "truncated",
    }
    top = first["nodes"][0]
    assert top["path"] == "billing/invoices.py"
    assert any("stack trace" in r for r in top["reasons"])
    assert "compute_total" in first["keywords"]
    sym = next(n for n in first["nodes"] if n["type"] == "symbol")
    assert sym["id"] == "sym:billing/invoices.py#InvoiceTotals.compute_total"
    assert "compute_total" in sym["matched_terms"]
    scores = [n["score"] for n in first["nodes"]]
    assert scores == sorted(scores, reverse=True)
    again = api.task_context(Project.load(repo), task, limit=8)
    blob = lambda r: hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()  # noqa: E731
    assert blob(first) == blob(again)
    assert first["cache_key"] == api.capsule(project)["cache_key"]
    # depth 0: nothing comes in by PageRank alone, every node was seeded by the task
    seeds_only = api.task_context(project, task, limit=50, depth=0)
    assert seeds_only["nodes"] and all(n["scores"]["seed"] > 0 for n in seeds_only["nodes"])
    wide = api.task_context(project, task, limit=50, depth=3)
    assert len(wide["nodes"]) > len(seeds_only["nodes"])


def test_task_context_cli_cold_and_errors(repo: Path, run_charter: Callable[..., Any]) -> None:
    make_project(repo)
    done = run_charter("task-context", "export rows as csv", "--json", "--limit", "3", cwd=repo)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["nodes"][0]["path"] == "billing/export.py"
    assert result["truncated"] is True
    assert (repo / ".charter/graph/snapshot.json").is_file()
    bad = run_charter("task-context", "  ", cwd=repo)
    assert bad.returncode != 0 and bad.stderr.startswith("charter: error:")
    assert "Traceback" not in bad.stderr
    negative = run_charter("task-context", "export invoices", "--depth", "-1", cwd=repo)
    assert negative.returncode == 2 and "--depth" in negative.stderr
    built = run_charter("graph", "build", "--json", cwd=repo)
    assert json.loads(built.stdout)["parsed"] == 0
    capsule = run_charter("capsule", "--json", cwd=repo)
    assert json.loads(capsule.stdout)["snapshot_id"] == result["snapshot_id"]


def test_graph_build_summarizes_binary_notes(repo: Path, run_charter: Callable[..., Any]) -> None:
    """ghostty's fuzz corpus (3,700 binary files) made ``charter graph build`` print
    11,000 lines: binary files are one count, other notes are listed up to a bound,
    and ``--json`` still lists every note."""
    make_project(repo)
    for i in range(40):
        (repo / "corpus").mkdir(exist_ok=True)
        (repo / "corpus" / f"case-{i:02d}").write_bytes(b"\x00\x01 fuzz")
    for i in range(30):
        write(repo, f"broken/mod_{i:02d}.py", "def broken(:\n")
    done = run_charter("graph", "build", cwd=repo, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) < 20, done.stdout
    assert "corpus/case-00" not in done.stdout
    assert "40 binary files" in done.stdout
    assert "broken/mod_00.py: syntax errors" in done.stdout
    assert "20 more notes" in done.stdout
    report = json.loads(run_charter("graph", "build", "--json", cwd=repo).stdout)
    assert len(report["notes"]) == 70


def test_task_context_table_shows_whole_paths(repo: Path, run_charter: Callable[..., Any]) -> None:
    """A path cut to ``billing/reconcil…`` cannot be opened: the table folds it instead."""
    make_project(repo)
    deep = "billing/reconciliation/statements/monthly_statement_export.py"
    write(repo, deep, "def export_monthly_statement(rows):\n    return rows\n")
    done = run_charter(
        "task-context", "export the monthly statement", cwd=repo, env={"COLUMNS": "80"}
    )
    assert done.returncode == 0, done.stderr
    cells = "".join(
        line.split("│")[2].strip() for line in done.stdout.splitlines() if line.count("│") > 3
    )
    assert deep in cells
    assert "…" not in cells


def test_tools_follow_ups(repo: Path) -> None:
    make_project(repo)
    project = Project.load(repo)
    state = tools.get_project_state(project)
    assert state["graph"] == "built" and state["cache_key"].startswith("charter-contract:")
    assert tools.get_project_state(project)["graph"] == "current"
    impact = tools.impact_of(project, "billing/tax.py")
    assert impact["imported_by"] == ["src:billing/invoices.py"]
    assert "src:billing/invoices.py" in impact["callers"]
    node = tools.get_node(project, "src:billing/tax.py")
    assert node["attrs"]["language"] == "python"
    near = tools.neighbors(project, "src:billing/invoices.py", relation="tests")
    assert near["edges"] == [
        {
            "source": "src:tests/test_invoices.py",
            "target": "src:billing/invoices.py",
            "relation": "tests",
        }
    ]
    from charter.errors import CharterError

    with pytest.raises(CharterError):
        tools.get_node(project, "src:nope.py")
    with pytest.raises(CharterError):
        tools.impact_of(project, "nope.py")
    # a misspelt relation is named, with the graph's relations; not an empty list
    with pytest.raises(CharterError, match=r"'test'.*imports.*tests"):
        tools.graph_node(project, "billing/invoices.py", "edges", relation="test")


def test_nodes_found_by_the_names_people_type(repo: Path) -> None:
    """A terminal user knows ``vat_rate`` or ``billing/tax.py``, not ``sym:…#vat_rate``:
    a name only one node carries stands for it, several equal names are listed, not
    guessed, and a symbol's impact is its file's."""
    make_project(repo)
    write(repo, "billing/legacy.py", "def vat_rate():\n    return 1.0\n")
    project = Project.load(repo)
    assert tools.get_node(project, "InvoiceTotals")["id"] == "sym:billing/invoices.py#InvoiceTotals"
    assert tools.get_node(project, "./billing/tax.py")["id"] == "src:billing/tax.py"
    from charter.errors import CharterError

    with pytest.raises(CharterError, match=r"'vat_rate' names 2 nodes: .*legacy.*tax"):
        tools.get_node(project, "vat_rate")
    impact = tools.impact_of(project, "InvoiceTotals")
    assert impact["path"] == "billing/invoices.py"
    assert impact["tests"] == ["src:tests/test_invoices.py"]
    found = tools.find_nodes(project, "vat_rate")
    assert [n["id"] for n in found["nodes"]] == [
        "sym:billing/legacy.py#vat_rate",
        "sym:billing/tax.py#vat_rate",
    ]
    only = tools.find_nodes(project, "invoice", kind="symbol", limit=1)
    assert only["truncated"] and only["total"] > 1 and only["nodes"][0]["type"] == "symbol"
    with pytest.raises(CharterError, match="types:"):
        tools.find_nodes(project, "x", kind="nope")


def test_graph_queries_from_the_terminal(repo: Path, run_charter: Callable[..., Any]) -> None:
    make_project(repo)
    status = run_charter("graph", "status", "--json", cwd=repo)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["graph"] == "built"
    found = run_charter("graph", "find", "compute", cwd=repo, env={"COLUMNS": "200"})
    assert "sym:billing/invoices.py#InvoiceTotals.compute_total" in found.stdout
    shown = run_charter("graph", "show", "billing/tax.py", cwd=repo, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "← imports (1)" in lines
    assert lines[lines.index("← imports (1)") + 1].strip() == "src:billing/invoices.py"
    impact = run_charter("graph", "impact", "billing/tax.py", "--json", cwd=repo)
    assert json.loads(impact.stdout)["imported_by"] == ["src:billing/invoices.py"]
    table = run_charter("graph", "impact", "vat_rate", cwd=repo, env={"COLUMNS": "200"})
    assert "Impact of a change to billing/tax.py" in table.stdout
    missing = run_charter("graph", "show", "nope.py", cwd=repo)
    assert missing.returncode == 1
    assert missing.stderr.strip().startswith("charter: no graph node 'nope.py'")
    assert "Traceback" not in missing.stderr
    nothing = run_charter("graph", "find", "zzzz", cwd=repo)
    assert nothing.returncode == 1 and "zzzz" in nothing.stdout


def test_front_end_nodes_and_style_bridge(repo: Path) -> None:
    write(repo, "web/app/globals.css", ":root {\n  --brand: #123456;\n}\n")
    write(
        repo,
        "web/app/(shop)/cart/page.tsx",
        "import { Price } from '../../../src/Price';\n"
        "export default function CartPage() { return <Price />; }\n",
    )
    write(
        repo,
        "web/src/Price.tsx",
        "export function Price() {\n  return <b style={{ color: 'var(--brand)' }} />;\n}\n",
    )
    write(
        repo,
        "web/src/routes.tsx",
        'export const App = () => (\n  <Routes>\n    <Route path="/legacy" element={<X />} />\n'
        "  </Routes>\n);\n",
    )
    graph = build_graph(Project.load(repo))
    assert graph.nodes["rt:/cart"].path == "web/app/(shop)/cart/page.tsx"
    assert graph.nodes["rt:/legacy"].line_start == 3
    assert graph.nodes["tkn:--brand"].attrs["value"] == "#123456"
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert ("rt:/cart", "cmp:CartPage", "renders") in edges
    assert ("src:web/app/(shop)/cart/page.tsx", "src:web/src/Price.tsx", "imports") in edges
    assert ("cmp:Price", "bridge:Price->--brand", "styled_by") in edges
    assert ("bridge:Price->--brand", "tkn:--brand", "uses") in edges
    capsule = api.capsule(Project.load(repo))
    assert capsule["style_bridge"] == [
        {"component": "cmp:Price", "path": "web/src/Price.tsx", "tokens": ["tkn:--brand"]}
    ]


def test_sot_records_are_nodes_with_their_addresses(repo: Path) -> None:
    write(repo, "sot/fees.csv", "id,client,fee\nENG-001,Acme,1200\nENG-002,Globex,900\n")
    write(repo, "sot/broken.json", '{"a": ')
    write(repo, "data/other.csv", "id,x\n1,2\n")  # not under search.index.sot_paths
    graph = build_graph(Project.load(repo))
    records = {n.id: n for n in graph.nodes.values() if n.type == "record"}
    assert set(records) == {"sot:sot/fees.csv#row=1", "sot:sot/fees.csv#row=2"}
    assert records["sot:sot/fees.csv#row=1"].path == "sot/fees.csv"
    assert any(
        e.source == "src:sot/fees.csv" and e.target in records and e.relation == "defines"
        for e in graph.edges
    )
    notes = {n["path"]: n["note"] for n in graph.report["notes"]}
    assert "records not read" in notes["sot/broken.json"]
    context = api.task_context(Project.load(repo), "fee of ENG-002 for Globex", graph=graph)
    assert context["nodes"][0]["path"] == "sot/fees.csv"


def test_lint_findings_reach_the_graph(repo: Path, run_charter: Callable[..., Any]) -> None:
    write(
        repo, "CLAUDE.md", "# Rules\n\n- Use tabs for indentation.\n- Use tabs for indentation.\n"
    )
    proc = run_charter("lint", "--json", cwd=repo)
    assert "duplicate" in proc.stdout
    graph = build_graph(Project.load(repo))
    found = [n for n in graph.nodes.values() if n.type == "finding"]
    assert any(n.path == "CLAUDE.md" and "duplicate" in n.name for n in found)


def test_hybrid_search_hits_seed_task_context_when_an_index_exists(repo: Path) -> None:
    from charter.embed.registry import get_embedder
    from charter.search.indexer import Indexer

    write(repo, "charter.toml", '[embed]\nprovider = "hash"\n')
    write(repo, "docs/refunds.md", "# Refunds\n\nA chargeback reverses the customer's payment.\n")
    write(repo, "app/ledger.py", "def post(entry):\n    return entry\n")
    project = Project.load(repo)
    before = api.task_context(project, "what happens on a chargeback")
    assert all("hybrid search hit" not in " ".join(n["reasons"]) for n in before["nodes"])
    Indexer(project, get_embedder("hash")).run()
    after = api.task_context(Project.load(repo), "what happens on a chargeback")
    hit = next(
        n for n in after["nodes"] if n["path"] == "docs/refunds.md" and n["type"] == "source"
    )
    assert "hybrid search hit" in hit["reasons"] and hit["scores"]["search"] == 1.0


def test_sources_of_other_languages_are_found_by_their_words(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Languages without a parser (R, OCaml, a Makefile) are still read as text, so a
    task's words reach them; a graph built by an older extractor is rebuilt."""
    from charter.graph import build as graph_build
    from charter.graph import extract

    write(repo, "README.md", "# Tools\n\nA small polyglot project.\n")
    write(repo, "R/stream.R", "parse_delta <- function(chunk) {\n  chunk$delta$content\n}\n")
    write(repo, "src/lexer.ml", "let tokenize_quoted_atom s = String.split_on_char ' ' s\n")
    write(repo, "Makefile", "release:\n\tcargo build --release\n")
    project = Project.load(repo)
    paths = lambda r: [n.get("path") for n in r["nodes"]]  # noqa: E731
    assert paths(api.task_context(project, "parse_delta fails on an empty chunk"))[0] == (
        "R/stream.R"
    )
    assert "src/lexer.ml" in paths(api.task_context(project, "tokenize_quoted_atom splits"))[:2]
    assert "Makefile" in paths(api.task_context(project, "the release target of make"))[:3]
    # an older Charter: R not read as text, an older cache version
    (repo / ".charter" / "graph").rename(repo / "graph-new")
    suffixes = tuple(x for x in extract._TEXT_SUFFIXES if x != ".r")
    with monkeypatch.context() as old:
        old.setattr(extract, "_TEXT_SUFFIXES", suffixes)
        old.setattr(graph_build, "CACHE_VERSION", graph_build.CACHE_VERSION - 1)
        stale = api.task_context(Project.load(repo), "parse_delta on a chunk")
        assert "R/stream.R" not in paths(stale)[:1]
    assert paths(api.task_context(Project.load(repo), "parse_delta on a chunk"))[0] == "R/stream.R"


def test_paths_and_frames_of_text_read_languages_seed_task_context(repo: Path) -> None:
    """A Go panic naming ``pkg/models/tasks.go:812``, a Zig trace and a ``.cljs`` path
    point at those files as a ``.py`` path does; vikunja's own panic text did not."""
    from charter.graph.query import parse_task

    write(repo, "README.md", "# Tasks\n\nTasks and projects.\n")
    write(repo, "pkg/models/tasks.go", "package models\n\nfunc getRawTasks() {}\n")
    for i in range(6):  # files with more of the task's words
        write(repo, f"pkg/models/task_{i}.go", "package models\n// tasks projects panic runtime\n")
    write(repo, "src/terminal/Screen.zig", "pub fn scroll() void {}\n")
    write(repo, "frontend/src/app/main/data/transforms.cljs", "(defn apply [s] s)\n")
    query = parse_task(
        "panic: runtime error\n\t/home/ci/vikunja/pkg/models/tasks.go:812 +0x1d\n"
        "src/terminal/Screen.zig:40:13: 0x10 in scroll\n"
        "see frontend/src/app/main/data/transforms.cljs"
    )
    assert ("home/ci/vikunja/pkg/models/tasks.go", 812, "") in query.frames
    assert "frontend/src/app/main/data/transforms.cljs" in query.paths
    assert ("src/terminal/Screen.zig", 40, "") in query.frames
    project = Project.load(repo)
    task = "panic: runtime error in tasks projects\n\t/home/ci/pkg/models/tasks.go:812 +0x1d"
    top = api.task_context(project, task)["nodes"][0]
    assert top["path"] == "pkg/models/tasks.go"
    assert "in the stack trace (line 812)" in top["reasons"]


def test_a_clojure_namespace_in_the_task_names_its_file(repo: Path) -> None:
    """A ClojureScript error names namespaces (``app.main.data.workspace.transforms``),
    which live in ``app/main/data/workspace/transforms.cljs`` (``-`` as ``_``): penpot's
    trace ranked ``clipboard.js`` first and not the namespace's file."""
    write(repo, "README.md", "# Editor\n")
    write(repo, "frontend/src/app/main/data/workspace/transforms.cljs", "(ns x)\n")
    write(repo, "frontend/src/app/main/ui/workspace/transforms.cljs", "(ns selrect)\n")
    write(repo, "common/src/app/common/transforms.cljc", "(ns reading selrect)\n")
    write(repo, "common/src/app/common/geom/shape_tree.cljc", "(ns y)\n")
    write(repo, "frontend/src/app/main/transforms.cljs", "(ns z)\n")
    for i in range(30):  # files with more of the task's words
        write(
            repo,
            f"frontend/src/app/main/data/workspace/shape_{i}.cljs",
            "(ns selrect) ; reading undefined properties of a tree in the workspace data\n",
        )
    project = Project.load(repo)
    task = (
        "TypeError: Cannot read properties of undefined (reading 'selrect') at "
        "app.main.data.workspace.transforms via app.common.geom.shape-tree"
    )
    top = [n["path"] for n in api.task_context(project, task)["nodes"][:2]]
    assert set(top) == {
        "frontend/src/app/main/data/workspace/transforms.cljs",
        "common/src/app/common/geom/shape_tree.cljc",
    }, top


def test_a_third_party_import_never_resolves_to_a_module_inside_a_package(repo: Path) -> None:
    """``import pandas`` is the installed pandas, not ``asv_bench/benchmarks/pandas.py``
    (a module inside a package is only importable by its full dotted name); xarray had
    86 files "importing" that benchmark. A top-level script's sibling and a ``src/``
    layout package still resolve."""
    write(repo, "pkg/__init__.py", "")
    write(repo, "pkg/core.py", "import pandas as pd\nfrom types import SimpleNamespace\n")
    write(repo, "pkg/bench/__init__.py", "")
    write(repo, "pkg/bench/pandas.py", "def frame():\n    pass\n")
    write(repo, "pkg/types.py", "Alias = int\n")
    write(repo, "pkg/api.py", "from pkg.types import Alias\nimport pkg.bench.pandas\n")
    write(repo, "scripts/helpers.py", "def run():\n    pass\n")
    write(repo, "scripts/release.py", "import helpers\n")
    write(repo, "src/lib/__init__.py", "")
    write(repo, "src/lib/io.py", "from lib import util\n")
    write(repo, "src/lib/util.py", "X = 1\n")
    graph = build_graph(Project.load(repo))
    imports = {(e.source, e.target) for e in graph.edges if e.relation == "imports"}
    assert not {t for s, t in imports if s == "src:pkg/core.py"}
    assert ("src:pkg/api.py", "src:pkg/types.py") in imports
    assert ("src:pkg/api.py", "src:pkg/bench/pandas.py") in imports
    assert ("src:scripts/release.py", "src:scripts/helpers.py") in imports
    assert ("src:src/lib/io.py", "src:src/lib/util.py") in imports


def test_clojurescript_and_other_common_sources_are_read_as_text(repo: Path) -> None:
    """ClojureScript (``.cljs``, ``.cljc``, ``.edn``), C++ (``.cxx``, ``.hh``), Arduino
    (``.ino``) and Zig build manifests (``.zon``) are sources too: a penpot-like
    frontend written in ``.cljs`` was a set of word-less file nodes."""
    write(repo, "README.md", "# Editor\n\nA design tool.\n")
    write(repo, "frontend/src/app/main/snap.cljs", "(defn snap-to-pixel-grid [shape] shape)\n")
    write(repo, "common/src/app/common/geom.cljc", "(defn rotate-selrect [rect] rect)\n")
    write(repo, "deps.edn", '{:deps {funcool/promesa {:mvn/version "11.0"}}}\n')
    write(repo, "src/radio.ino", "void setupLoraTransceiver() {}\n")
    write(repo, "src/mesh.hh", "class MeshRouterQueue {};\n")
    write(repo, "build.zig.zon", ".{ .name = .freetypebuild }\n")
    project = Project.load(repo)
    paths = lambda r: [n.get("path") for n in r["nodes"]]  # noqa: E731
    for task, path in [
        ("snap-to-pixel-grid is off by one", "frontend/src/app/main/snap.cljs"),
        ("rotate-selrect loses the height", "common/src/app/common/geom.cljc"),
        ("upgrade promesa", "deps.edn"),
        ("setupLoraTransceiver hangs", "src/radio.ino"),
        ("MeshRouterQueue overflows", "src/mesh.hh"),
        ("freetypebuild dependency", "build.zig.zon"),
    ]:
        assert paths(api.task_context(project, task))[0] == path, task


def test_a_package_in_the_project_never_shadows_charters_imports(repo: Path) -> None:
    """``python -m charter`` in a checkout that holds an old copy of one of Charter's own
    dependencies (``requests/`` at the root of the requests repository) uses the
    installed one: the project directory is not on sys.path."""
    import subprocess
    import sys

    for shadow in ("requests", "typer"):
        write(repo, f"{shadow}/__init__.py", "raise ImportError('the project copy')\n")
    # a credential-shaped line, so the secret scanner loads its detectors
    write(repo, "app/settings.py", 'API_PASSWORD = "Zq9vLr2Kx8TwPm4B"\n\ndef load():\n    pass\n')
    done = subprocess.run(
        [sys.executable, "-m", "charter", "task-context", "load the settings", "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "app/settings.py" in [n.get("path") for n in json.loads(done.stdout)["nodes"]]


def test_surface_forms_show_the_task_words_behind_stems() -> None:
    forms = surface_forms("Show overdue invoices in the StatusBadge, see get_user_name")
    assert forms[stem("invoices")] == "invoices"
    assert forms[stem("overdue")] == "overdue"
    assert forms[stem("badge")] == "badge"  # camelCase part of StatusBadge
    assert forms["statusbadge"] == "StatusBadge"  # the whole identifier, as written
    assert forms["get_user_name"] == "get_user_name"
    assert "the" not in forms and stem("the") not in forms


def _packages(
    repo: Path, count: int, symbols: Callable[[int], int], *, name: str = "api", width: int = 2
) -> None:
    """``count`` Python packages ``pkgNN/`` whose ``api.py`` defines ``symbols(n)`` public
    functions each: a project of many packages for the capsule's budget."""
    for p in range(count):
        body = "".join(f"def {name}_{p}_{i}(x):\n    return x\n\n\n" for i in range(symbols(p)))
        write(repo, f"pkg{p:0{width}}/__init__.py", "")
        write(repo, f"pkg{p:0{width}}/api.py", body)


def test_capsule_fits_its_token_budget_and_keeps_the_authority(repo: Path) -> None:
    """Over ``graph.capsule_token_budget`` the pointers the graph can give again are cut
    (public symbols first), never the constitution; full counts stay in ``summary``."""
    write(repo, "charter.toml", "[graph]\ncapsule_token_budget = 700\n")
    write(repo, "CLAUDE.md", "# Rules\n\n## Always\n\n- Never commit secrets.\n")
    _packages(repo, 6, lambda p: 40, name="handler", width=1)
    project = Project.load(repo)
    from charter.rules.compiler import load_or_compile

    load_or_compile(project)
    whole = build_graph(project)
    first = api.capsule(project, whole)
    assert first["token_budget"]["within"] is True, (first["token_budget"], first["truncated"])
    assert first["token_budget"]["tokens"] <= 700
    assert "module_map.public_symbols" in first["truncated"]
    assert "Never commit secrets" in first["constitution"]["text"]
    assert first["summary"]["source_artifacts"] == 13  # CLAUDE.md, 12 modules (not charter.toml)
    shown = sum(len(p["public_symbols"]) for p in first["module_map"])
    assert 0 < shown < 240 or "module_map" in first["truncated"]
    # deterministic: the same snapshot gives the same bytes
    path = repo / ".charter" / "graph" / "contract-capsule.json"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    api.capsule(project, whole)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    # a budget it fits is left alone
    write(repo, "charter.toml", "[graph]\ncapsule_token_budget = 100000\n")
    roomy = api.capsule(Project.load(repo), whole)
    assert roomy["truncated"] == []
    assert sum(len(p["public_symbols"]) for p in roomy["module_map"]) == 240


def test_a_cut_capsule_counts_the_names_of_its_cut_lists_against_its_budget() -> None:
    """A Go service's capsule was cut to fit 8,000 tokens, then the names of the lists cut
    (``truncated``, ``source_artifacts_truncated``) were written into it and it stood at
    8,008, "over budget". The names are counted while it is cut."""
    from charter.graph.capsule import fit_to_budget

    def count(capsule: dict[str, Any]) -> int:
        return len(json.dumps(capsule, sort_keys=True))

    capsule: dict[str, Any] = {
        "constitution": {"text": "Never commit secrets."},
        "module_map": [
            {"package": f"pkg{p}", "public_symbols": [f"sym:pkg{p}/a.go#F{i}" for i in range(8)]}
            for p in range(12)
        ],
        "local_rules": [{"scope": "docs/**", "rules": [f"rule {i}" for i in range(6)]}],
        "source_artifacts": [f"pkg{p}/file{i}.go" for p in range(12) for i in range(4)],
        "routes": [f"/route/{i}" for i in range(30)],
        "components": [f"Component{i}" for i in range(30)],
        "tokens": [f"--token-{i}" for i in range(30)],
        "style_bridge": [f"Component{i} -> --token-{i}" for i in range(30)],
        "truncated": [],
    }
    whole = count(capsule)
    over = []
    for budget in range(whole // 3, whole, 7):
        out = fit_to_budget(capsule, budget, count)
        if count(out) > budget:
            over.append((budget, count(out), out["truncated"]))
    assert not over, over[:3]


def test_a_capsule_over_many_packages_keeps_public_symbols_before_file_handles(
    repo: Path,
) -> None:
    """A 4,000-file Rust workspace (195 packages): over the budget, the public symbols were
    halved first, to none (even one per package was too many), while 100 file handles
    from `.aristo/` on were kept. Handles go first now, and the room left gives one
    symbol each to the packages with the most distinct public names."""
    write(repo, "charter.toml", "[graph]\ncapsule_token_budget = 2000\n")
    _packages(repo, 40, lambda p: p % 5 + 1)  # 1 to 5 distinct public names
    project = Project.load(repo)
    capsule = api.capsule(project, build_graph(project))
    assert capsule["token_budget"]["within"] is True, capsule["token_budget"]
    assert len(capsule["source_artifacts"]) == 10
    shown = {p["package"]: p["public_symbols"] for p in capsule["module_map"]}
    assert 0 < sum(len(v) for v in shown.values()) < 40
    # one each, to the packages with the most distinct names (not the one-name ones)
    given = [name for name, symbols in shown.items() if symbols]
    assert all(len(shown[name]) == 1 and int(name[3:]) % 5 >= 1 for name in given), given


def test_a_capsule_whose_packages_were_cut_still_shows_public_symbols(repo: Path) -> None:
    """A Go CLI of 304 packages: even with no symbols the module map was over the budget,
    so it was halved to 152 packages at 56 % of the budget, and the room left was not
    given back: not one public symbol. It goes to the packages kept, one symbol each."""
    write(repo, "charter.toml", "[graph]\ncapsule_token_budget = 900\n")
    _packages(repo, 60, lambda p: 3)
    project = Project.load(repo)
    capsule = api.capsule(project, build_graph(project))
    assert capsule["token_budget"]["within"] is True, capsule["token_budget"]
    assert "module_map" in capsule["truncated"]
    shown = [s for p in capsule["module_map"] for s in p["public_symbols"]]
    assert shown and all(len(p["public_symbols"]) <= 1 for p in capsule["module_map"])


def test_a_name_every_file_carries_is_not_a_pointer(repo: Path) -> None:
    """Issues name their project ("Acme version 3.1"), and a project's main class often
    bears its name: a plain-word mention's seed is weighed by how many files carry the
    word, while a rare name keeps its full seed."""
    from charter.graph.context import _symbol_seeds
    from charter.graph.index import FileIndex
    from charter.graph.query import parse_task

    write(repo, "acme/__init__.py", "import acme.app\n")
    write(repo, "acme/app.py", "import acme\n\n\nclass Acme:\n    pass\n")
    write(repo, "acme/loader.py", "import acme\n\n\nclass DocumentLoader:\n    pass\n")
    for name in ("render", "store", "cli"):
        write(repo, f"acme/{name}.py", f"import acme\n\n\ndef {name}_all():\n    return acme\n")
    graph = build_graph(Project.load(repo))
    index = FileIndex(graph.records)
    query = parse_task("The DocumentLoader returns empty text\n\nEnvironment: Acme version 3.1")
    plain, _ = _symbol_seeds(graph, query)
    weighed, _ = _symbol_seeds(graph, query, index, 1.0)
    acme = next(k for k in plain if k.endswith("Acme"))
    loader = next(k for k in plain if k.endswith("DocumentLoader"))
    assert plain[acme] == 0.5 and weighed.get(acme, 0.0) < 0.1  # in every file: no pointer
    assert weighed[loader] == plain[loader] > 0  # a rare name keeps its seed


def test_a_plain_word_written_as_a_call_or_in_code_is_a_name(repo: Path) -> None:
    """``refine(expr)`` and `` `trigsimp` `` point at the functions of those names, though
    the words read as English; ``print(`` (the language's own) names nothing."""
    from charter.graph.context import _symbol_seeds
    from charter.graph.query import parse_task

    write(repo, "algebra/refine.py", "def refine(expr):\n    return expr\n")
    write(repo, "algebra/trig.py", "def trigsimp(expr):\n    return expr\n")
    write(repo, "algebra/out.py", "def print(value):\n    return value\n")
    graph = build_graph(Project.load(repo))
    prose = parse_task("The result does not refine or trigsimp anything when we print it.")
    coded = parse_task("`trigsimp` is skipped, and refine(x, Q.positive(x)) then print(y) fails.")
    assert not _symbol_seeds(graph, prose)[0]
    seeded = {graph.nodes[k].name.rsplit(".", 1)[-1] for k in _symbol_seeds(graph, coded)[0]}
    assert {"refine", "trigsimp"} <= seeded and "print" not in seeded


def test_hubs_and_example_code_yield_to_the_file_a_task_is_about(repo: Path) -> None:
    """Every module imports the hub and the docs folder holds a copy of the task's words;
    with the centrality and example weights off, either can outrank the file the task is
    about, with them on the file that defines what the task names comes first."""
    from dataclasses import replace

    from charter.graph.context import Weights, rank
    from charter.graph.extract import is_example_path

    assert is_example_path("doc/usage/example_google.py") and not is_example_path("pkg/docs.py")
    write(repo, "pkg/__init__.py", "")
    write(repo, "pkg/app.py", "class Application:\n    def setup(self, option):\n        pass\n")
    for name in ("parser", "writer", "reader", "loader", "builder"):
        write(
            repo,
            f"pkg/{name}.py",
            f"from pkg.app import Application\n\n\ndef {name}():\n    return Application()\n",
        )
    write(
        repo,
        "pkg/napoleon.py",
        "from pkg.app import Application\n\n\n"
        "def parse_google_section(option):\n    return Application()\n",
    )
    write(
        repo,
        "doc/example_google.py",
        "def example_google_section(option):\n    '''google section option example'''\n",
    )
    graph = build_graph(Project.load(repo))
    task = "The google section option is ignored by the application setup"

    def seeds(weights: Weights) -> dict[str, float]:
        ranked, _ = rank(graph, task, weights=weights)
        return {
            graph.nodes[n].path: p.get("seed", 0.0)
            for n, _, p, *_ in ranked
            if graph.nodes[n].type == "source"
        }

    on = seeds(Weights())
    off = seeds(replace(Weights(), hub=0.0, example_factor=1.0))
    example, hub, subject = "doc/example_google.py", "pkg/app.py", "pkg/napoleon.py"
    assert on[example] / on[subject] < off[example] / off[subject]
    assert on[hub] / on[subject] < off[hub] / off[subject]


def test_graph_build_of_an_empty_repository_says_so(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    done = run_charter("graph", "build", cwd=repo, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert ": no files (0 parsed" in done.stdout and ":  (" not in done.stdout


def test_task_context_notes_a_file_that_is_not_the_projects(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    (repo / "app.py").write_text("def export_invoices():\n    return []\n")
    done = run_charter(
        "task-context", "export invoices", "--file", "app.py", "--file", "nope/x.py",
        "--file", "../../etc/passwd", "--json", cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "--file nope/x.py: not a file of the project" in done.stderr
    assert "--file ../../etc/passwd: not a file of the project" in done.stderr
    assert "--file app.py" not in done.stderr
    assert any(n["id"] == "src:app.py" for n in json.loads(done.stdout)["nodes"])


def test_a_file_the_task_names_keeps_its_words_when_a_common_word_fills_the_pool(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """ "fix stdio": more files than the BM25 pool holds have both words; `stdio.py`,
    which has only the one that names it, must still rank by its words too."""
    pkg = repo / "pkg"
    pkg.mkdir()
    (pkg / "stdio.py").write_text(
        '"""The stdio transport."""\n\ndef stdio_server():\n    return "stdio"\n'
    )
    for n in range(100):  # more than the BM25 pool (90) holds
        (pkg / f"mod{n:03d}.py").write_text(
            f'"""Module {n}: fix the stdio buffering, fix stdio retry, fix stdio."""\n'
            f"def handler_{n}():\n    return {n}\n"
        )
    done = run_charter("task-context", "fix stdio", "--json", "--limit", "150", cwd=repo)
    assert done.returncode == 0, done.stderr
    nodes = {n["id"]: n for n in json.loads(done.stdout)["nodes"]}
    assert "src:pkg/stdio.py" in nodes
    assert nodes["src:pkg/stdio.py"]["scores"].get("bm25", 0) > 0


def test_gradle_source_sets_and_dotnet_test_projects_are_tests(repo: Path) -> None:
    # Kotlin Multiplatform / Gradle test source sets (src/commonTest, src/androidUnitTest)
    # and .NET test projects (Foo.Tests/) hold tests as surely as a tests/ folder does:
    # a task about the code ranks the code above them
    body = "class FolderSync {\n  fun syncFolders(account: Account) { /* folder sync */ }\n}\n"
    write(repo, "mail/sync/src/main/kotlin/mail/FolderSync.kt", body)
    for rel in (
        "mail/sync/src/commonTest/kotlin/mail/FolderSyncCheck.kt",
        "mail/sync/src/androidUnitTest/kotlin/mail/FolderSyncAndroid.kt",
    ):
        write(
            repo,
            rel,
            "class Check {\n  fun folderSync() { FolderSync().syncFolders(account) }\n}\n",
        )
    write(
        repo, "src/Mail.Sync/FolderSync.cs", "public class FolderSync { void SyncFolders() {} }\n"
    )
    write(
        repo,
        "src/Mail.Sync.UnitTests/SyncChecks.cs",
        "public class SyncChecks { void Folders() { new FolderSync().SyncFolders(); } }\n",
    )
    write(repo, "src/Mail.Sync/FolderSyncTests.cs", "public class FolderSyncTests { }\n")
    project = Project.load(repo)
    build_graph(project)
    nodes = {n["id"]: n for n in read_snapshot(repo / ".charter/graph/snapshot.json")["nodes"]}
    tests = {
        "mail/sync/src/commonTest/kotlin/mail/FolderSyncCheck.kt",
        "mail/sync/src/androidUnitTest/kotlin/mail/FolderSyncAndroid.kt",
        "src/Mail.Sync.UnitTests/SyncChecks.cs",
        "src/Mail.Sync/FolderSyncTests.cs",
    }
    for rel in tests:
        assert nodes[f"src:{rel}"]["attrs"].get("test"), rel
    for rel in ("mail/sync/src/main/kotlin/mail/FolderSync.kt", "src/Mail.Sync/FolderSync.cs"):
        assert not nodes[f"src:{rel}"]["attrs"].get("test"), rel
    ranked = [
        n["path"]
        for n in api.task_context(project, "folder sync fails for an account", limit=10)["nodes"]
        if n["type"] == "source"
    ]
    assert ranked.index("mail/sync/src/main/kotlin/mail/FolderSync.kt") < min(
        ranked.index(rel) for rel in tests if rel.endswith(".kt")
    )


def test_dotnet_templates_and_build_files_are_read_as_text(repo: Path) -> None:
    # a Blazor component (.razor) and MSBuild files (.props, .csproj) are where a .NET
    # change often lands: a task's words must find them, as Gradle and Make files are found
    write(
        repo,
        "src/Dashboard/Components/ResourceNameDisplay.razor",
        '<span class="resource-name">@FormatResourceName(Resource.DisplayName)</span>\n',
    )
    write(
        repo,
        "Directory.Packages.props",
        '<Project>\n  <ItemGroup>\n    <PackageVersion Include="Grpc.AspNetCore" '
        'Version="2.67.0" />\n  </ItemGroup>\n</Project>\n',
    )
    write(repo, "src/Dashboard/Dashboard.csproj", '<Project Sdk="Microsoft.NET.Sdk.Web" />\n')
    write(repo, "src/Dashboard/Program.cs", "var builder = WebApplication.CreateBuilder(args);\n")
    project = Project.load(repo)
    build_graph(project)
    nodes = {n["id"]: n for n in read_snapshot(repo / ".charter/graph/snapshot.json")["nodes"]}
    for rel in (
        "src/Dashboard/Components/ResourceNameDisplay.razor",
        "Directory.Packages.props",
        "src/Dashboard/Dashboard.csproj",
    ):
        assert nodes[f"src:{rel}"]["attrs"]["language"] == "text", rel

    def top(task: str) -> str:
        return api.task_context(project, task, limit=3)["nodes"][0]["path"]

    assert top("bump the Grpc.AspNetCore package version") == "Directory.Packages.props"
    assert top("resource name display is wrong") == (
        "src/Dashboard/Components/ResourceNameDisplay.razor"
    )


def test_build_and_dependency_files_without_a_text_suffix_are_read_as_text(repo: Path) -> None:
    # a dependency bump lands in go.mod, a container change in Dockerfile.dev, a Nix pin in
    # flake.nix: their words were never read (no suffix the graph knew), so "bump X" ranked
    # every document that mentions X and never the manifest; lockfiles stay unread
    write(
        repo,
        "go.mod",
        "module example.org/streamctl\n\ngo 1.25\n\nrequire (\n"
        "\tgithub.com/gorilla/websocket v1.5.3\n\tgolang.org/x/term v0.30.0\n)\n",
    )
    write(repo, "go.sum", "github.com/gorilla/websocket v1.5.3 h1:abc=\n")
    write(
        repo,
        "internal/ws/client.go",
        'package ws\n\nimport "github.com/gorilla/websocket"\n\n'
        "func Dial(url string) (*websocket.Conn, error) {\n"
        "\tc, _, err := websocket.DefaultDialer.Dial(url, nil)\n\treturn c, err\n}\n",
    )
    write(
        repo,
        "cmd/streamctl/main.go",
        'package main\n\nimport "example.org/streamctl/internal/ws"\n\n'
        'func main() { ws.Dial("ws://localhost:4455") }\n',
    )
    write(
        repo,
        "docs/ARCHITECTURE.md",
        "# Architecture\n\nThe client talks to the server over a websocket "
        "(github.com/gorilla/websocket).\nSee the websocket section of the roadmap.\n",
    )
    write(repo, "deploy/Dockerfile.dev", "FROM golang:1.25-alpine\nRUN apk add --no-cache git\n")
    write(repo, "flake.nix", '{\n  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";\n}\n')
    project = Project.load(repo)
    build_graph(project)
    nodes = {n["id"]: n for n in read_snapshot(repo / ".charter/graph/snapshot.json")["nodes"]}
    for rel in ("go.mod", "deploy/Dockerfile.dev", "flake.nix"):
        assert nodes[f"src:{rel}"]["attrs"]["language"] == "text", rel
    assert nodes.get("src:go.sum", {}).get("attrs", {}).get("language", "other") == "other"
    # read as text, go.mod still names the module its imports resolve through
    imports = {
        (e["source"], e["target"])
        for e in read_snapshot(repo / ".charter/graph/snapshot.json")["edges"]
        if e["relation"] == "imports"
    }
    assert ("src:cmd/streamctl/main.go", "src:internal/ws/client.go") in imports

    def ranked(task: str) -> list[str]:
        found = api.task_context(project, task, limit=5)["nodes"]
        return [n["path"] for n in found if n["type"] == "source"]

    assert "go.mod" in ranked("bump github.com/gorilla/websocket to v1.5.4")[:2]
    assert ranked("use alpine 3.21 in the dev Dockerfile")[0] == "deploy/Dockerfile.dev"
    assert ranked("update nixpkgs to nixos-25.05")[0] == "flake.nix"


def test_a_folders_own_test_file_tests_that_folder_not_every_file_named_like_it(
    tmp_path: Path,
) -> None:
    """``lexer/tests/mod.rs`` tests the lexer module (``lexer/mod.rs``), not every
    ``mod.rs`` of the crate; a package's ``tests/__init__.py`` and a folder's
    ``__tests__/index.test.js`` likewise."""
    for folder in ("lexer", "parser"):
        write(tmp_path, f"src/{folder}/mod.rs", "pub fn run() {}\n")
        write(tmp_path, f"src/{folder}/tests/mod.rs", "#[test]\nfn t() {}\n")
    write(tmp_path, "src/tests/common/mod.rs", "pub fn setup() {}\n")
    write(tmp_path, "billing/__init__.py", "")
    write(tmp_path, "billing/tests/__init__.py", "")
    write(tmp_path, "shop/__init__.py", "")
    write(tmp_path, "web/cart/index.js", "export const cart = 1;\n")
    write(tmp_path, "web/menu/index.js", "export const menu = 1;\n")
    write(tmp_path, "web/cart/__tests__/index.test.js", "test('cart', () => {});\n")
    build_graph(Project.load(tmp_path))
    data = read_snapshot(tmp_path / ".charter/graph/snapshot.json")
    tests = {(e["source"], e["target"]) for e in data["edges"] if e["relation"] == "tests"}
    assert tests == {
        ("src:src/lexer/tests/mod.rs", "src:src/lexer/mod.rs"),
        ("src:src/parser/tests/mod.rs", "src:src/parser/mod.rs"),
        ("src:billing/tests/__init__.py", "src:billing/__init__.py"),
        ("src:web/cart/__tests__/index.test.js", "src:web/cart/index.js"),
    }


def test_a_scopes_local_rules_are_listed_in_the_order_their_file_gives_them() -> None:
    """A capsule cut to its budget keeps the first rules of each scope: those were the
    rules whose id hash sorted first (a compiler's ``u8`` type-table row before its
    invariant checks), now the first the rule file states."""
    from charter.graph.capsule import build_capsule

    def rule(rid: str, line: int, text: str) -> dict[str, Any]:
        attrs = {"text": text, "risk": "medium", "scopes": ["compiler/**"]}
        return {"id": f"rule:{rid}", "type": "rule", "name": rid, "path": "compiler/AGENTS.md",
                "line_start": line, "line_end": line, "attrs": attrs}  # fmt: skip

    snapshot = {
        "snapshot_id": "graph:0",
        "created_at": "2026-01-01T00:00:00.000Z",
        "source_hash": "sha256:0",
        "nodes": [
            rule("r-0a", 40, "`U8` - 8-bit unsigned integer"),
            rule("r-ff", 3, "Never use debug_assert! for invariants"),
            rule("r-5c", 12, "Run cargo clippy before committing"),
        ],
        "edges": [],
    }
    capsule = build_capsule(snapshot, None, [])
    assert [r.split()[0] for r in capsule["local_rules"][0]["rules"]] == ["r-ff", "r-5c", "r-0a"]
    assert build_capsule(snapshot, None, []) == capsule


def test_a_path_tail_names_its_file_and_a_lone_method_name_its_method(repo: Path) -> None:
    """An agent in ``web/`` asks for ``web/app/page.tsx`` as ``app/page.tsx``, and for a
    method by its own name: the file's symbols matched the tail too ("names 2 nodes …
    give one id"), and the one method was refused ("names 1 nodes")."""
    make_project(repo)
    project = Project.load(repo)
    assert tools.get_node(project, "app/page.tsx")["id"] == "src:web/app/page.tsx"
    assert tools.get_node(project, "compute_total")["id"] == (
        "sym:billing/invoices.py#InvoiceTotals.compute_total"
    )
    from charter.errors import CharterError

    write(repo, "legacy/app/page.tsx", "export default function Old() { return null; }\n")
    with pytest.raises(CharterError, match=r"'app/page.tsx' names \d+ nodes: .*legacy"):
        tools.get_node(Project.load(repo), "app/page.tsx")


def test_the_capsule_is_written_from_rules_brought_up_to_date(repo: Path) -> None:
    """The capsule is committed and cached by its key, and its rules come from the
    compiled rules: a fresh clone's ``charter graph status`` rewrote the committed
    capsule without them (another key), and an edited rule file was not in it until
    ``charter compile``."""
    write(repo, "CLAUDE.md", "# Rules\n\n## Always\n\n- Never commit secrets.\n")
    write(repo, "web/AGENTS.md", "# Web\n\n- Use the design tokens for colours.\n")
    write(repo, "web/app.ts", "export const app = 1;\n")
    project = Project.load(repo)
    state = tools.get_project_state(project)
    path = repo / ".charter" / "graph" / "contract-capsule.json"
    first = path.read_bytes()
    capsule = json.loads(first)
    assert "Never commit secrets" in capsule["constitution"]["text"]
    assert any("design tokens" in r for g in capsule["local_rules"] for r in g["rules"])
    assert capsule["cache_key"] == state["cache_key"]
    from charter.rules.compiler import compile_rules

    compile_rules(project)  # what a teammate who compiled first commits: the same bytes
    assert tools.get_contract_capsule(project)["cache_key"] == state["cache_key"]
    assert path.read_bytes() == first
    write(
        repo,
        "web/AGENTS.md",
        "# Web\n\n- Use the design tokens for colours.\n- Keep pages small.\n",
    )
    rules = [r for g in tools.get_contract_capsule(project)["local_rules"] for r in g["rules"]]
    assert any("Keep pages small" in r for r in rules), rules
