"""The MCP server end to end: the SDK's own stdio client talks to `charter mcp`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from charter.config import Project
from charter.embed.registry import get_embedder
from charter.search.indexer import Indexer
from tests.conftest import demo_search_copy, mcp_server_params, tool_payload


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = demo_search_copy(tmp_path_factory.mktemp("mcp") / "proj", None)
    (root / "CLAUDE.md").write_text(
        "# Project rules\n\n## Security\n\n- Never commit secrets or .env files.\n\n"
        "## Style\n\n- Use type hints on every public function.\n"
    )
    (root / "charter.toml").write_text("")
    Indexer(Project.load(root), get_embedder("minilm")).run()
    return root


async def _session(root: Path) -> dict[str, Any]:
    from mcp import Client

    params = mcp_server_params(root)
    out: dict[str, Any] = {}
    async with Client(params) as client:
        tools = await client.list_tools()
        out["tools"] = {t.name: t for t in tools.tools}
        out["search"] = await client.call_tool(
            "search",
            {"query": "engagement fee for Acme Logistics", "mode": "execution", "k_out": 3},
        )
        out["bad_mode"] = await client.call_tool("search", {"query": "x", "mode": "dream"})
        out["bad_k"] = await client.call_tool("search", {"query": "x", "k_out": 0})
        out["missing"] = await client.call_tool("search", {})
        out["facts"] = await client.call_tool(
            "verify_facts", {"text": "DEL-101 is due 2025-11-15 for ENG-001."}
        )
        out["constitution"] = await client.call_tool("get_constitution", {})
        out["rules"] = await client.call_tool(
            "rules_for_task", {"task": "add a settings page", "files": ["app/settings.py"]}
        )
        out["still_alive"] = await client.call_tool("verify_facts", {"text": "ENG-002"})
    return out


@pytest.fixture(scope="module")
def session(root: Path) -> dict[str, Any]:
    return anyio.run(_session, root)


def test_tools_are_listed_with_typed_schemas(session: dict[str, Any]) -> None:
    tools = session["tools"]
    assert {"search", "verify_facts", "get_constitution", "rules_for_task"} <= set(tools)
    schema = tools["search"].input_schema
    assert schema["required"] == ["query"]
    assert set(schema["properties"]) == {"query", "mode", "k_out"}
    assert (
        "rules_for_task" in tools and "task" in tools["rules_for_task"].input_schema["properties"]
    )


def test_search_round_trip_returns_citations(session: dict[str, Any]) -> None:
    result = session["search"]
    assert not result.is_error
    data = tool_payload(result)
    assert data["mode"] == "execution" and 1 <= len(data["results"]) <= 3
    assert any(r["citation"].startswith("sot/engagements.csv#row=1") for r in data["results"])


def test_bad_arguments_are_mcp_errors_not_crashes(session: dict[str, Any]) -> None:
    for key in ("bad_mode", "bad_k", "missing"):
        assert session[key].is_error, key
    assert not session["still_alive"].is_error  # the server survived them


def test_bad_arguments_are_one_line_naming_the_argument(session: dict[str, Any]) -> None:
    """docs/mcp.md promises a one-line message; pydantic's own text is a block with a
    'For further information visit' link per error."""
    expected = {"bad_mode": "mode", "bad_k": "k_out", "missing": "query"}
    for key, argument in expected.items():
        (text,) = [c.text for c in session[key].content]
        assert "\n" not in text and "errors.pydantic.dev" not in text, text
        assert text.startswith("Error executing tool search: ") and f"{argument}: " in text


def test_verify_facts_round_trip(session: dict[str, Any]) -> None:
    data = tool_payload(session["facts"])
    date = next(f for f in data["facts"] if f["text"] == "2025-11-15")
    assert date["status"] == "mismatch" and date["canonical"] == "2025-11-19"
    assert date["address"] == "sot/deliverables.csv#row=1"


def test_rules_tools_answer(session: dict[str, Any]) -> None:
    for key in ("constitution", "rules"):
        result = session[key]
        text = result.content[0].text if result.content else ""
        assert not result.is_error, text
        assert isinstance(tool_payload(result), dict)


async def _oversized(root: Path) -> dict[str, Any]:
    from mcp import Client

    huge = "Session timeout is not passed to the adapter. " * 6000  # ~280k characters
    out: dict[str, Any] = {}
    async with Client(mcp_server_params(root)) as client:
        out["task"] = await client.call_tool("prepare_task_context", {"task": huge})
        out["node"] = await client.call_tool("graph_node", {"node_id": huge})
        out["decision"] = await client.call_tool("record_decision", {"decision": huge})
        out["reason"] = await client.call_tool(
            "record_decision", {"decision": "Keep urllib3", "reason": huge}
        )
        out["risk"] = await client.call_tool("record_risk", {"risk": huge})
        out["mitigation"] = await client.call_tool(
            "record_risk", {"risk": "Timeouts regress", "mitigation": huge}
        )
        steps = [{"content": f"step {i}", "status": "pending"} for i in range(5000)]
        out["plan"] = await client.call_tool("update_plan", {"steps": steps})
        out["still_alive"] = await client.call_tool("tracks", {})
    return out


def test_free_text_arguments_are_bounded_like_the_other_tools(repo: Path) -> None:
    """search, verify_facts, check_drift and rules_for_task cap their text; the graph and
    session tools took any size, wrote it to DECISIONS.md or RISKS.md, and echoed a task
    of megabytes back into the agent's context."""
    (repo / "app.py").write_text("def send(timeout=None):\n    return timeout\n")
    out = anyio.run(_oversized, repo)
    for key in ("task", "node", "decision", "reason", "risk", "mitigation", "plan"):
        assert out[key].is_error, key
        assert "at most" in out[key].content[0].text, key
    assert not out["still_alive"].is_error
    tracks = repo / "docs" / "tracks"
    written = [p.read_text() for p in tracks.rglob("*.md")] if tracks.exists() else []
    assert not any("not passed to the adapter" in text for text in written)


async def _bad_limit(root: Path) -> Any:
    from mcp import Client

    async with Client(mcp_server_params(root)) as client:
        return await client.call_tool("prepare_task_context", {"task": "fix send", "limit": 0})


def test_a_bad_limit_is_named_as_the_argument_the_agent_gave(repo: Path) -> None:
    """A limit of 0 came back as "--limit must be at least 1": a CLI option the agent
    never passed. The argument is validated as the tool's own, by its name."""
    (repo / "app.py").write_text("def send(timeout=None):\n    return timeout\n")
    result = anyio.run(_bad_limit, repo)
    text = result.content[0].text
    assert result.is_error and "limit" in text and "--limit" not in text, text


def test_a_missing_project_stops_the_server_at_once(tmp_path: Path) -> None:
    """'charter mcp --project /typo' started, said nothing, and failed every tool call
    later; a registered server with a wrong path should say so when it starts."""
    import subprocess

    from tests.conftest import CHARTER_BIN

    proc = subprocess.run(
        [str(CHARTER_BIN), "mcp", "--project", str(tmp_path / "typo")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("charter: error:") and "typo" in line


def test_charter_project_names_the_project_when_no_flag_does(root: Path, tmp_path: Path) -> None:
    """docs/mcp.md: --project, else $CHARTER_PROJECT, else the cwd. `charter mcp` passed
    its default "." on, which overwrote $CHARTER_PROJECT with the cwd: a server started
    elsewhere served (and compiled rules in) that directory instead."""
    import os

    from mcp import Client, StdioServerParameters

    from tests.conftest import CHARTER_BIN

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def constitution() -> Any:
        params = StdioServerParameters(
            command=str(CHARTER_BIN),
            args=["mcp"],
            cwd=str(elsewhere),
            env={**os.environ, "CHARTER_PROJECT": str(root)},
        )
        async with Client(params) as client:
            return tool_payload(await client.call_tool("get_constitution", {}))

    payload = anyio.run(constitution)
    assert "Never commit secrets" in json.dumps(payload)
    assert list(elsewhere.iterdir()) == []  # nothing compiled or written there


async def _rules_for(root: Path, task: str) -> Any:
    from mcp import Client

    async with Client(mcp_server_params(root)) as client:
        return await client.call_tool("rules_for_task", {"task": task})


def test_rules_for_task_fits_what_an_agent_reads(repo: Path) -> None:
    """A monorepo's rule files give the task dozens of long rules: the tool answered with
    every rule's full metadata (domains, intents, reasons…) beside the rendered rules,
    ~90k characters on a real project, over the 50,000 characters Claude Code shows an
    MCP result inline. The answer is the rendered rules plus each rule's id, score and
    citation."""
    topics = ["retries", "timeouts", "rate limits", "backoff", "circuit breakers", "errors"]
    lines = ["# Resilience rules", ""]
    for i in range(150):
        topic = topics[i % len(topics)]
        lines.append(
            f"- Rule {i}: when a provider call fails with {topic}, retry with exponential "
            f"backoff and jitter, cap attempts at {3 + i % 5}, log the attempt number and the "
            f"provider response id, surface a typed error after the last attempt, and never "
            f"retry non-idempotent requests such as payment capture number {i}."
        )
    (repo / "AGENTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = anyio.run(_rules_for, repo, "add retry with exponential backoff on rate limits")
    text = result.content[0].text if result.content else ""
    assert not result.is_error, text
    payload = tool_payload(result)
    assert len(text) < 50_000, len(text)
    assert payload["policy_text"]
    assert payload["rules"] and {"id", "score", "source"} <= set(payload["rules"][0])
    assert all(r["source"].startswith("AGENTS.md:L") for r in payload["rules"])


def test_a_server_started_outside_any_project_writes_nothing(tmp_path: Path) -> None:
    """A user-level server launched from a directory in no project (no charter.toml,
    [tool.charter] or .git: $HOME, /tmp) compiled rules and wrote .charter/ there; each
    call now says why it cannot answer, and nothing is written."""
    from mcp import Client, StdioServerParameters

    from tests.conftest import CHARTER_BIN

    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    (nowhere / "CLAUDE.md").write_text("# Rules\n\n- Never commit secrets.\n")

    async def call() -> Any:
        params = StdioServerParameters(
            command=str(CHARTER_BIN),
            args=["mcp"],
            cwd=str(nowhere),
            env={k: v for k, v in os.environ.items() if k != "CHARTER_PROJECT"},
        )
        async with Client(params) as client:
            return await client.call_tool("get_constitution", {})

    result = anyio.run(call)
    assert result.is_error
    text = result.content[0].text
    assert "in no project" in text and "\n" not in text.strip()
    assert sorted(p.name for p in nowhere.iterdir()) == ["CLAUDE.md"]


def test_a_call_holding_half_a_surrogate_pair_is_answered(root: Path) -> None:
    """``"\\ud83d"`` (half a surrogate pair, as a cut emoji leaves it) is valid JSON, but
    the SDK's strict parser refused the message and dropped it without a reply: the
    client waited for ever on that call. Each half is now read as U+FFFD and the call
    is answered. Raw JSON-RPC lines, since the SDK's client cannot send one."""
    import select
    import subprocess
    import time

    from tests.conftest import CHARTER_BIN

    proc = subprocess.Popen(
        [str(CHARTER_BIN), "mcp", "--project", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()

    def reply(deadline: float) -> dict[str, Any]:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], max(deadline - time.monotonic(), 0))
        assert ready, "no reply"
        return json.loads(proc.stdout.readline())

    try:
        deadline = time.monotonic() + 90
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
        send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
        reply(deadline)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
            '"verify_facts", "arguments": {"text": "DEL-101 is due 2025-11-15 \\ud83d"}}}'
        )
        answer = reply(deadline)
        assert answer["id"] == 1 and not answer["result"]["isError"]
        assert "2025-11-15" in answer["result"]["content"][0]["text"]
    finally:
        proc.kill()
        proc.wait(timeout=30)
