"""The seam between capabilities and front doors (charter.plugins)."""

from __future__ import annotations

import ast
import json
import types
from pathlib import Path
from typing import Any

import anyio

from charter import plugins
from charter.config import Project
from charter.integrations.claude_code.handlers import HookState, dispatch
from charter.integrations.mcp_server import build_server
from tests.conftest import mcp_server_params, tool_payload

SRC = Path(__file__).resolve().parents[1] / "src" / "charter"
DOORS = ("charter.integrations", "charter.cli")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_capability_imports_a_front_door() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).parts
        if rel[0] in {"integrations", "cli"} or rel == ("__main__.py",):
            continue
        for module in _imports(path):
            if module.startswith(DOORS):
                offenders.append(f"{path.relative_to(SRC)} imports {module}")
    assert offenders == []


def test_every_capability_offers_its_tools_and_handlers() -> None:
    names = {t.name for t in plugins.tool_set(lambda: None).tools}
    assert {"search", "verify_facts", "get_constitution", "rules_for_task"} <= names
    assert {"list_constraints", "check_drift", "get_session_state", "record_decision"} <= names
    hooks = plugins.hook_set()
    assert [order for order, _ in sorted(hooks.pinned, key=lambda i: i[0])] == [10, 20]
    assert "pre-tool-use" in hooks.fail_closed and "stop" in hooks.decide
    assert {"post-tool-use", "post-tool-use-failure", "pre-compact", "session-end"} <= set(
        hooks.capture
    )


def _extra_plugin() -> types.ModuleType:
    """A third-party plugin: one MCP tool, one prompt-context handler."""
    module = types.ModuleType("charter_test_extra")

    @plugins.hookimpl
    def charter_mcp_tools(tools: plugins.ToolSet) -> None:
        @tools.tool(name="echo_root", description="The project root.")
        def echo_root(suffix: str = "") -> dict[str, Any]:
            return {"root": str(tools.project().root) + suffix}

    @plugins.hookimpl
    def charter_hook_handlers(hooks: plugins.HookSet) -> None:
        @hooks.on_context("user-prompt-submit")
        def shout(state: Any, payload: dict[str, Any], notes: list[str]) -> str:
            notes.append("extra plugin ran")
            return "EXTRA: " + str(payload.get("prompt", "")).upper()

    module.charter_mcp_tools = charter_mcp_tools  # type: ignore[attr-defined]
    module.charter_hook_handlers = charter_hook_handlers  # type: ignore[attr-defined]
    return module


def test_a_third_party_plugin_reaches_mcp_and_hooks(repo: Path) -> None:
    from mcp import Client

    (repo / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    project = Project.load(repo)
    extra = _extra_plugin()
    manager = plugins.manager()
    manager.register(extra, "charter_test_extra")
    plugins.hook_set.cache_clear()
    try:
        server = build_server(project_getter=lambda: project)

        async def call() -> Any:
            async with Client(server) as client:
                return await client.call_tool("echo_root", {"suffix": "/x"})

        assert tool_payload(anyio.run(call)) == {"root": f"{repo}/x"}
        reply = dispatch(HookState(repo), "user-prompt-submit", {"prompt": "add a test"})
        context = reply["output"]["hookSpecificOutput"]["additionalContext"]
        assert "EXTRA: ADD A TEST" in context and "extra plugin ran" in reply["notes"]
        json.dumps(reply)  # the dispatcher's answer is plain JSON
    finally:
        manager.unregister(extra)
        plugins.hook_set.cache_clear()


def test_all_mcp_tool_definitions_fit_the_budget_and_only_tools_are_advertised(
    repo: Path,
) -> None:
    """Every definition is sent to the model on every request (issue 11: <= 1,500 tokens)."""
    from mcp import Client

    from charter.tokens import count_tokens

    project = Project.load(repo)
    server = build_server(project_getter=lambda: project)

    async def listing() -> Any:
        async with Client(server) as client:
            return client.server_capabilities, (await client.list_tools()).tools

    capabilities, tools = anyio.run(listing)
    assert capabilities.resources is None and capabilities.prompts is None
    cost = sum(
        count_tokens(
            json.dumps(
                {
                    # named as Claude Code sends it to the model
                    "name": f"mcp__charter__{t.name}",
                    "description": t.description,
                    "input_schema": t.input_schema,
                }
            )
        )
        for t in tools
    )
    assert len(tools) >= 13 and cost <= 1500, cost
    schemas = json.dumps([t.input_schema for t in tools])
    assert '"title"' not in schemas and "maxLength" not in schemas


def test_graph_tools_answer_through_the_sdk_client(repo: Path) -> None:
    from mcp import Client

    (repo / "app").mkdir()
    (repo / "app" / "billing.py").write_text(
        "def invoice_total(lines):\n    return sum(line.amount for line in lines)\n"
    )
    (repo / "app" / "views.py").write_text(
        "from app.billing import invoice_total\n\n\ndef show(lines):\n"
        "    return invoice_total(lines)\n"
    )

    async def calls() -> dict[str, Any]:
        async with Client(mcp_server_params(repo)) as client:  # stdio, as agents run it
            return {
                "context": await client.call_tool(
                    "prepare_task_context", {"task": "invoice_total returns the wrong sum"}
                ),
                "impact": await client.call_tool(
                    "graph_node", {"node_id": "app/billing.py", "view": "impact"}
                ),
                "edges": await client.call_tool(
                    "graph_node", {"node_id": "src:app/views.py", "view": "edges"}
                ),
                "missing": await client.call_tool("graph_node", {"node_id": "src:nope.py"}),
            }

    out = anyio.run(calls)
    context = tool_payload(out["context"])
    assert context["nodes"][0]["path"] == "app/billing.py"
    impact = tool_payload(out["impact"])
    assert "src:app/views.py" in json.dumps(impact)
    edges = tool_payload(out["edges"])
    assert edges["node"]["id"] == "src:app/views.py"
    assert any(e["target"] == "src:app/billing.py" for e in edges["edges"])
    assert out["missing"].is_error


def test_prompt_hook_names_top_files_only_when_configured(repo: Path) -> None:
    from charter.graph.api import build

    (repo / "app").mkdir()
    (repo / "app" / "billing.py").write_text("def invoice_total(lines):\n    return 0\n")
    payload = {"prompt": "invoice_total is wrong", "session_id": "s"}
    (repo / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
    build(Project.load(repo))
    off = dispatch(HookState(repo), "user-prompt-submit", payload)
    assert "Files likely involved" not in json.dumps(off)
    (repo / "charter.toml").write_text("[hooks]\nwarm_worker = false\n[graph]\nprompt_files = 3\n")
    on = dispatch(HookState(repo), "user-prompt-submit", payload)
    context = on["output"]["hookSpecificOutput"]["additionalContext"]
    assert "# Files likely involved" in context and "- app/billing.py" in context
