"""Many concurrent MCP calls in one session, through the SDK's own stdio client, while
another process re-indexes the project: every call must answer without an error."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from charter.config import Project
from charter.decisions import service
from charter.embed.registry import get_embedder
from charter.search.indexer import Indexer
from tests.conftest import mcp_server_params, tool_payload
from tests.decisions_support import decisions

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo-project"
CALLS = 216
CONCURRENCY = 8

#: (tool, arguments) cycled over the calls: search in every mode, rules and decisions.
MIX: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "engagement fee for Acme Logistics", "mode": "execution", "k_out": 3}),
    ("search", {"query": "how do we price tiered events", "mode": "planning"}),
    ("search", {"query": "security incident in September", "mode": "review", "k_out": 5}),
    ("rules_for_task", {"task": "add a settings page", "files": ["backend/app/main.py"]}),
    ("list_constraints", {"binding_only": True}),
    ("check_drift", {"text": "We will ship a native mobile application.", "kind": "chat"}),
    ("verify_facts", {"text": "DEL-101 is due 2025-11-15 for ENG-001."}),
    ("get_constitution", {}),
    ("render_template", {"template": "Decisions: $$PGC_INVARIANTS"}),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcpconc") / "proj"
    for part in ("docs", "decisions", "sot", "backend"):
        shutil.copytree(DEMO / part, root / part)
    shutil.copy(DEMO / "CLAUDE.md", root / "CLAUDE.md")
    (root / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    project = Project.load(root)
    Indexer(project, get_embedder("minilm")).run()
    service.record(project, decisions(), "merge")
    return root


def _reindex(root: Path, rounds: int) -> list[subprocess.CompletedProcess[str]]:
    """Change a doc and run ``charter index`` in another process, ``rounds`` times."""
    out = []
    doc = root / "docs" / "runbook.md"
    original = doc.read_text()
    for n in range(rounds):
        doc.write_text(original + f"\n\n## Note {n}\n\nRe-index round {n} while serving.\n")
        out.append(
            subprocess.run(
                [sys.executable, "-m", "charter", "index"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=600,
            )
        )
    return out


async def _hammer(root: Path) -> dict[str, Any]:
    from mcp import Client

    results: list[tuple[str, Any]] = []
    reindex: list[subprocess.CompletedProcess[str]] = []
    async with Client(mcp_server_params(root)) as client:
        # one call first, so the concurrent burst does not all wait on the model load
        results.append(("search", await client.call_tool(*MIX[0])))
        done = anyio.Event()
        counter = iter(range(10**6))

        async def worker() -> None:
            # keep calling until both enough calls were made and the re-index finished,
            # so the calls overlap every re-index round
            while True:
                n = next(counter)
                if n >= CALLS and done.is_set():
                    return
                name, args = MIX[n % len(MIX)]
                results.append((name, await client.call_tool(name, args)))

        async def index_meanwhile() -> None:
            reindex.extend(await anyio.to_thread.run_sync(_reindex, root, 3))
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(index_meanwhile)
            for _ in range(CONCURRENCY):
                tg.start_soon(worker)
        # still healthy afterwards, and it sees the new index
        after = await client.call_tool("search", {"query": "Re-index round 2 while serving"})
    return {"results": results, "reindex": reindex, "after": after}


def test_concurrent_mcp_calls_during_reindex_have_no_errors(root: Path) -> None:
    out = anyio.run(_hammer, root)
    for proc in out["reindex"]:
        assert proc.returncode == 0, proc.stderr
    results = out["results"]
    assert len(results) > CALLS
    errors = [(name, r.content[0].text if r.content else "") for name, r in results if r.is_error]
    assert errors == []
    names = {name for name, _ in results}
    assert names == {name for name, _ in MIX}
    for name, result in results:
        payload = tool_payload(result)
        if name == "search":
            assert payload["results"], payload
    after = tool_payload(out["after"])
    assert any("Re-index round 2" in r["text"] for r in after["results"])
