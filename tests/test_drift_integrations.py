"""Drift wiring: the CLI gate, the Stop/SessionStart hooks through a subprocess with real
Claude Code JSON, and the MCP tools through the SDK's client."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from charter.config import Project
from charter.decisions import service
from charter.decisions.hooks import handle_stop, pinned_invariants_text
from tests.conftest import mcp_server_params, run_hook, tool_payload
from tests.decisions_support import decisions, no_worker

Run = Callable[..., subprocess.CompletedProcess[str]]
BAD = "Done. We could also consider a native mobile application for field staff later."
GOOD = "Done. The web dashboard now loads 30% faster thanks to the PostgreSQL index."


@pytest.fixture
def project(repo: Path) -> Project:
    no_worker(repo)
    proj = Project.load(repo)
    service.record(proj, decisions(), "merge")
    return proj


# -- CLI -------------------------------------------------------------------------------


def test_drift_check_gate_and_json(project: Project, run_charter: Run) -> None:
    res = run_charter("drift", "check", "-", "--json", "--no-semantic", cwd=project.root, stdin=BAD)
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    assert out["verdict"] == "fail"
    (finding,) = out["findings"]
    assert set(finding) >= {
        "rule",
        "constraint_id",
        "evidence",
        "start",
        "end",
        "severity",
        "message",
        "repair",
    }
    assert BAD[finding["start"] : finding["end"]] == finding["evidence"]
    good = project.root / "good.md"
    good.write_text(GOOD)
    res = run_charter("drift", "check", str(good), "--kind", "chat", cwd=project.root)
    assert res.returncode == 0 and "PASS" in res.stdout


def test_drift_check_reads_like_a_linter(project: Project, run_charter: Run) -> None:
    """A finding names the file, line and column of the words that break a decision,
    quotes them, and restates the decision; it used to be a table of character offsets
    folded into 80 columns."""
    plan = project.root / "docs" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("# Plan\n\nShip the web dashboard.\n  " + BAD + "\n")
    res = run_charter(
        "drift", "check", "docs/plan.md", "--no-semantic", cwd=project.root, env={"COLUMNS": "80"}
    )
    assert res.returncode == 1, res.stderr
    found = json.loads(
        run_charter(
            "drift", "check", "docs/plan.md", "--no-semantic", "--json", cwd=project.root
        ).stdout
    )["findings"][0]
    text = plan.read_text()
    line = text.count("\n", 0, found["start"]) + 1
    column = found["start"] - text.rfind("\n", 0, found["start"])
    assert line == 4 and column > 1
    lines = res.stdout.splitlines()
    assert lines[0].startswith("Drift check: FAIL, 1 finding in docs/plan.md")
    head = next(x for x in lines if x.startswith(f"docs/plan.md:{line}:{column} "))
    assert found["rule"] in head and found["constraint_id"] in head
    quoted = " ".join(line for line in lines if line.startswith("  │"))
    assert " ".join(found["evidence"].split()) in " ".join(quoted.replace("│", "").split())
    assert f"{found['start']}-{found['end']}" not in res.stdout
    assert any(x.startswith("  repair: ") for x in lines)


def test_drift_check_with_constraints_file_and_batch(repo: Path, run_charter: Run) -> None:
    constraints = repo / "c.json"
    constraints.write_text(decisions().canonical_text())
    batch = repo / "cases.jsonl"
    batch.write_text(
        json.dumps({"id": "a", "text": BAD, "artifact_kind": "chat"})
        + "\n\n"
        + json.dumps({"id": "b", "text": GOOD})
        + "\n"
        + json.dumps({"text": GOOD})
        + "\n"
    )
    res = run_charter(
        "drift",
        "check",
        "--batch",
        str(batch),
        "--constraints",
        str(constraints),
        "--no-semantic",
        cwd=repo,
    )
    assert res.returncode == 1, res.stderr
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert [(x.get("id"), x["verdict"]) for x in lines] == [
        ("a", "fail"),
        ("b", "pass"),
        (None, "pass"),
    ]


def test_drift_check_bad_inputs(repo: Path, run_charter: Run) -> None:
    (repo / "bin.dat").write_bytes(b"\x00\x01\x02")
    res = run_charter("drift", "check", "bin.dat", "--constraints", "nope.json", cwd=repo)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    res = run_charter("drift", "check", "-", "--kind", "poem", cwd=repo, stdin="x")
    assert res.returncode == 2 and "--kind" in res.stderr


def test_eval_drift_on_extra_split(run_charter: Run, tmp_path: Path) -> None:
    data = Path(__file__).parent / "data" / "drift_extra"
    res = run_charter(
        "eval",
        "drift",
        "--data",
        str(data),
        "--json",
        "--predictions",
        str(tmp_path / "p.jsonl"),
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    m = json.loads(res.stdout)
    assert m["n"] == 47 and m["precision"] >= 0.85 and m["f1"] >= 0.75
    assert m["non_binding_or_unknown_citation_rate"] == 0.0
    assert set(m["per_rule_detection_recall"]) == {
        "QA-PGC-001",
        "QA-PGC-002",
        "QA-PGC-003",
        "QA-PGC-004",
    }
    preds = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert len(preds) == 47 and {p["verdict"] for p in preds} == {"pass", "fail"}
    # the blocking tier counts only findings at or above the confidence: a subset
    block = m["blocking"]
    sure = {
        p["id"]
        for p in preds
        if any(v["confidence"] >= block["block_confidence"] for v in p["violations"])
    }
    assert block["tp"] + block["fp"] == len(sure) > 0
    assert block["tp"] <= m["tp"] and block["fp"] <= m["fp"]
    assert 0.0 < min(v["confidence"] for p in preds for v in p["violations"]) < 1.0


def test_scorer_matches_reference_anchors() -> None:
    from charter.eval.drift import load_split, score

    split = load_split(Path(__file__).parent / "data" / "drift_extra")
    oracle = [
        {
            "id": c["id"],
            "verdict": c["expected"],
            "violations": [
                {"constraint_id": v["constraint_id"], "rule": v["rule"]} for v in c["violations"]
            ],
        }
        for c in split.cases
    ]
    m = score(split, oracle)
    assert (m["f1"], m["exact_attribution_accuracy"], m["false_alarm_rate_on_pass"]) == (
        1.0,
        1.0,
        0.0,
    )
    all_fail = [{"id": c["id"], "verdict": "fail", "violations": []} for c in split.cases]
    m = score(split, all_fail)
    assert m["recall"] == 1.0 and m["exact_attribution_accuracy"] == 0.0
    assert m["false_alarms_on_pass_by_tag"]["negation"]["false_alarms"] > 0


# -- hooks -------------------------------------------------------------------------------


def _hook(root: Path, event: str, run_charter: Run, **extra: Any) -> dict[str, Any] | None:
    res = run_hook(run_charter, root, event, env={"CLAUDE_PROJECT_DIR": str(root)}, **extra)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout) if res.stdout.strip() else None


def test_stop_hook_subprocess_block_warn_off(project: Project, run_charter: Run) -> None:
    root = project.root
    assert (
        _hook(root, "Stop", run_charter, stop_hook_active=False, last_assistant_message=GOOD)
        is None
    )
    warn = _hook(root, "Stop", run_charter, stop_hook_active=False, last_assistant_message=BAD)
    assert warn is not None and "decision" not in warn
    assert "QA-PGC-004" in warn["systemMessage"] and "TARGET_PLATFORM" in warn["systemMessage"]
    no_worker(root, '[drift]\non_stop = "block"\n')
    block = _hook(root, "Stop", run_charter, stop_hook_active=False, last_assistant_message=BAD)
    assert block is not None and block["decision"] == "block"
    assert "native mobile application" in block["reason"]
    again = _hook(root, "Stop", run_charter, stop_hook_active=True, last_assistant_message=BAD)
    assert again is not None and "decision" not in again  # never blocks twice: no loop
    no_worker(root, '[drift]\non_stop = "off"\n')
    assert _hook(root, "Stop", run_charter, last_assistant_message=BAD) is None


def test_stop_warning_speaks_to_the_user_and_the_block_to_the_agent(
    project: Project, run_charter: Run
) -> None:
    """Claude Code shows a Stop hook's systemMessage to the user, never to the model: the
    warning says what the reply said, which decision it conflicts with, where that is
    recorded and what the user can do; a block's reason, which the model reads, keeps
    telling the agent to correct itself."""
    root = project.root
    warn = _hook(root, "Stop", run_charter, stop_hook_active=False, last_assistant_message=BAD)
    assert warn is not None and set(warn) == {"systemMessage"}
    message = warn["systemMessage"]
    assert message.startswith("Charter drift check: Claude's last reply conflicts with decisions")
    assert "bound in .charter/decisions/pgc_clarifications.json" in message
    assert "TARGET_PLATFORM: Target platform: Web browser only" in message
    assert '"We could also consider a native mobile application for field staff later"' in message
    assert 'Claude has not been told (drift.on_stop = "warn")' in message
    assert "`charter decisions renegotiate TARGET_PLATFORM`" in message
    assert "Correct it" not in message and "your last message" not in message
    no_worker(root, '[drift]\non_stop = "block"\nblock_confidence = 0.0\n')
    block = _hook(root, "Stop", run_charter, stop_hook_active=False, last_assistant_message=BAD)
    assert block is not None and block["decision"] == "block"
    assert block["reason"].startswith("Charter drift check: your last message conflicts")
    assert "Correct it; do not reopen them." in block["reason"]
    again = _hook(root, "Stop", run_charter, stop_hook_active=True, last_assistant_message=BAD)
    assert again is not None and set(again) == {"systemMessage"}
    assert "already sent back once this turn" in again["systemMessage"]
    assert "Correct it" not in again["systemMessage"]


def test_stop_blocks_only_on_findings_the_model_is_sure_of(project: Project) -> None:
    """Precision first: under ``block_confidence`` a finding reaches the user, not the agent."""
    from charter.decisions.service import checker_for, load_decisions

    root = project.root
    no_worker(root, '[drift]\non_stop = "block"\nstop_semantic = "off"\n')
    checker = checker_for(Project.load(root), load_decisions(project), semantic=False)
    result = checker.check(BAD, "chat")
    sure = max(f.confidence for f in result.findings)
    cand = max(c.probability for c in checker.candidates(BAD))
    assert sure == cand and 0.0 < sure < 1.0  # the calibrated probability, not a flag

    def stop_with(threshold: float) -> dict[str, Any] | None:
        no_worker(
            root,
            f'[drift]\non_stop = "block"\nstop_semantic = "off"\nblock_confidence = {threshold}\n',
        )
        return handle_stop(Project.load(root), {"last_assistant_message": BAD})

    blocked = stop_with(round(sure - 0.001, 4))
    assert blocked is not None and blocked["decision"] == "block"
    noted = stop_with(min(1.0, round(sure + 0.001, 4)))
    assert noted is not None and "decision" not in noted
    assert (
        "possible conflict" in noted["systemMessage"] and f"({sure:.2f})" in noted["systemMessage"]
    )
    assert "native mobile application" in noted["systemMessage"]
    assert handle_stop(Project.load(root), {"last_assistant_message": GOOD}) is None


def test_stop_does_not_send_the_agent_back_for_what_the_user_just_asked(
    project: Project, tmp_path: Path
) -> None:
    """The user changed their mind in the conversation ("let's move to MongoDB after
    all") and the agent did it: blocking told the agent to undo what it was asked. The
    user is told to record the change instead; a question or someone else's turn still
    leaves the decision standing."""
    root = project.root
    no_worker(root, '[drift]\non_stop = "block"\nstop_semantic = "off"\nblock_confidence = 0.0\n')
    reply = "Moved the orders store to MongoDB as you asked."

    def stop_after(prompt: str) -> dict[str, Any] | None:
        transcript = tmp_path / "t.jsonl"
        lines = [
            {"type": "user", "message": {"role": "user", "content": prompt}},
            {"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
            {"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "orders.sql"}]}},
        ]  # fmt: skip
        transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
        payload = {"last_assistant_message": reply, "transcript_path": str(transcript)}
        return handle_stop(Project.load(root), payload)

    asked = stop_after("Ops changed their plans: let's move the orders store to MongoDB after all.")
    assert asked is not None and "decision" not in asked, asked
    message = asked["systemMessage"]
    assert "follows your request" in message and "renegotiate DATABASE" in message
    question = stop_after("Should we move the orders store to MongoDB?")
    assert question is not None and question.get("decision") == "block", question
    other = stop_after("Please speed up the orders page.")
    assert other is not None and other.get("decision") == "block", other


def test_session_start_pins_invariants(project: Project, run_charter: Run) -> None:
    out = _hook(project.root, "SessionStart", run_charter, source="compact")
    assert out is not None
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "[DATABASE] Database: PostgreSQL only. Excluded: MongoDB." in context
    assert pinned_invariants_text(project).count("\n") == 3  # four bound constraints


def test_handle_stop_direct_edge_cases(project: Project, repo: Path) -> None:
    assert handle_stop(project, {"hook_event_name": "Stop"}) is None
    assert handle_stop(project, {"last_assistant_message": 42}) is None
    store = service.store_for(project)
    store.path.write_text(store.path.read_text().replace("postgres", "mongodb"))
    tampered = handle_stop(project, {"last_assistant_message": BAD})
    assert tampered is not None and "outside renegotiation" in tampered["systemMessage"]
    empty = Project.load(repo.parent)  # a directory without decisions
    assert handle_stop(empty, {"last_assistant_message": BAD}) is None


# -- MCP -------------------------------------------------------------------------------


async def _mcp_calls(root: Path) -> dict[str, Any]:
    from mcp import Client

    params = mcp_server_params(root)
    out: dict[str, Any] = {}
    async with Client(params) as client:
        tools = await client.list_tools()
        out["tools"] = {t.name for t in tools.tools}
        out["list"] = await client.call_tool("list_constraints", {"binding_only": True})
        out["bad"] = await client.call_tool("check_drift", {"text": BAD, "kind": "chat"})
        out["good"] = await client.call_tool("check_drift", {"text": GOOD})
        out["kind"] = await client.call_tool("check_drift", {"text": GOOD, "kind": "poem"})
        out["render"] = await client.call_tool(
            "render_template", {"template": "X $$PGC_INVARIANTS Y"}
        )
    return out


def test_mcp_tools_over_stdio(project: Project) -> None:
    out = anyio.run(_mcp_calls, project.root)
    assert {"list_constraints", "check_drift", "render_template"} <= out["tools"]
    listed = tool_payload(out["list"])
    assert [e["id"] for e in listed["pgc_clarifications"]] == [
        "TARGET_PLATFORM",
        "DATABASE",
        "OFFLINE_MODE",
        "AUDIT_LOG",
    ]
    bad = tool_payload(out["bad"])
    assert bad["verdict"] == "fail" and bad["findings"][0]["rule"] == "QA-PGC-004"
    assert tool_payload(out["good"])["verdict"] == "pass"
    assert out["kind"].is_error
    assert "[DATABASE]" in tool_payload(out["render"])["text"]


def test_mcp_tools_in_memory_report_tamper(project: Project) -> None:
    from mcp import Client

    from charter.integrations.mcp_server import build_server

    server = build_server(project_getter=lambda: project)
    store = service.store_for(project)
    store.path.write_text(store.path.read_text().replace("postgres", "mongodb"))

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool("list_constraints", {})

    result = anyio.run(call)
    assert result.is_error and "outside renegotiation" in result.content[0].text


def test_stop_falls_back_to_the_transcript(project: Project, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": BAD}]},
        },
        "not json",
    ]
    transcript.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    )
    out = handle_stop(project, {"transcript_path": str(transcript)})
    assert out is not None and "TARGET_PLATFORM" in out["systemMessage"]
    assert handle_stop(project, {"transcript_path": str(tmp_path / "missing.jsonl")}) is None


def test_stop_reads_every_text_block_of_the_last_reply(project: Project, run_charter: Run) -> None:
    """Claude Code writes one transcript line per content block: a reply whose conflicting
    sentence is in its first text block, before a tool call and a closing block of the
    same message, is still checked whole. Only the last line used to be read, so the
    hook (from a version without ``last_assistant_message``) let it through."""
    root = project.root
    transcript = root / "session.jsonl"

    def line(role: str, content: Any, message_id: str | None = None) -> str:
        message: dict[str, Any] = {"role": role, "content": content}
        if message_id:
            message.update(id=message_id, type="message", model="claude-sonnet-4-5")
        return json.dumps({"type": role, "sessionId": "s1", "cwd": str(root), "message": message})

    text = lambda t: [{"type": "text", "text": t}]  # noqa: E731
    tool = [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]
    lines = [
        line("user", "Plan the field staff features."),
        line("assistant", text("Let me check the code first."), "msg_1"),
        line("assistant", tool, "msg_1"),
        line("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "src"}]),
        line("assistant", text(BAD), "msg_2"),
        line("assistant", tool, "msg_2"),
        line("assistant", text("All tests pass."), "msg_2"),
    ]
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _hook(root, "Stop", run_charter, transcript_path=str(transcript))
    assert out is not None and "TARGET_PLATFORM" in out["systemMessage"]
    # the earlier message of the turn (before the tool result) is not part of the reply
    transcript.write_text(
        "\n".join([*lines[:4], line("assistant", text("All tests pass."), "msg_2")]) + "\n",
        encoding="utf-8",
    )
    assert _hook(root, "Stop", run_charter, transcript_path=str(transcript)) is None


def test_config_aliases_extend_the_vocabulary(project: Project) -> None:
    text = "Field staff will get a Flutter client for their phones."
    assert service.check_drift(project, text, semantic=False).verdict == "pass"
    no_worker(project.root, '[decisions.aliases]\nmobile = ["Flutter"]\n')
    reloaded = Project.load(project.root)
    result = service.check_drift(reloaded, text, semantic=False)
    assert {(f.rule, f.constraint_id) for f in result.findings} == {
        ("QA-PGC-001", "TARGET_PLATFORM")
    }
    statement = service.project_invariants(reloaded)[0].as_dict()
    assert statement["aliases"] == {"mobile": ["Flutter"]}


def test_drift_check_records_findings_the_graph_and_capsule_see(
    project: Project, run_charter
) -> None:
    plan = project.root / "docs" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("# Plan\n\n" + BAD + "\n")
    proc = run_charter("drift", "check", str(plan), cwd=project.root)
    assert proc.returncode == 1, proc.stderr
    capsule = run_charter("capsule", "--json", cwd=project.root)
    assert capsule.returncode == 0, capsule.stderr
    data = json.loads(capsule.stdout)
    findings = (
        data["open_findings"] if "open_findings" in data else data["capsule"]["open_findings"]
    )
    assert any(f.get("path") == "docs/plan.md" or "docs/plan.md" in json.dumps(f) for f in findings)
    assert any(f.get("severity") == "blocking" and "QA-PGC-00" in json.dumps(f) for f in findings)


def test_a_file_checked_again_closes_its_drift_findings_and_stdin_records_none(
    project: Project, run_charter
) -> None:
    """A finding about a plan stayed open after the plan was fixed (no check ever closed
    one), and a sentence tried on stdin became a blocking finding of every capsule."""

    def open_findings() -> list[dict[str, Any]]:
        done = run_charter("capsule", "--json", cwd=project.root)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["open_findings"]

    args = ("drift", "check", "--no-semantic")
    proc = run_charter(*args, "-", cwd=project.root, stdin=BAD)
    assert proc.returncode == 1, proc.stderr
    assert open_findings() == []
    plan = project.root / "docs" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("# Plan\n\n" + BAD + "\n")
    assert run_charter(*args, str(plan), cwd=project.root).returncode == 1
    assert [f.get("path") for f in open_findings()] == ["docs/plan.md"]
    plan.write_text("# Plan\n\n" + GOOD + "\n")
    assert run_charter(*args, str(plan), cwd=project.root).returncode == 0
    assert open_findings() == []
