"""Session state: schema round trips, tracks, capture through real hook processes,
deterministic compaction, crash safety of DECISIONS.md, recovery after a compact
SessionStart, the CLI and the MCP tools."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from charter.config import Project
from charter.errors import CharterError
from charter.session.compaction import blocks_from_text, compact
from charter.session.schema import (
    Decision,
    PlanStep,
    Risk,
    SchemaError,
    parse_decisions,
    parse_plan,
    parse_risks,
    render_decisions,
    render_plan,
    render_risks,
)
from charter.session.service import Session
from tests.conftest import mcp_server_params, run_hook, tool_payload

NO_WORKER = "[hooks]\nwarm_worker = false\n"


# -- schema ---------------------------------------------------------------------------------


def test_schema_round_trips() -> None:
    decisions = [
        Decision.make(
            "Use textual (not curses) for the TUI",
            "user asked",
            "client/",
            "user",
            "2026-03-02T19:55:17Z",
        ),
        Decision.make("尽量用 pnpm", "", "", "feedback", ""),
        Decision.make("Keep   the  API\nstable", "  multiple\tspaces ", "global", "assistant", "t"),
    ]
    assert parse_decisions(render_decisions("main", decisions)) == decisions
    steps = [
        PlanStep("P1", "Create server foundation (config, db)", "completed", "pytest -q"),
        PlanStep("P2", "Client: api.py — wizard: step [2]", "in_progress"),
        PlanStep("T10", "ünïcode step", "pending"),
        PlanStep("P4", "dropped idea", "cancelled", "n/a"),
    ]
    assert parse_plan(render_plan("main", steps)) == steps
    risks = [
        Risk.make("Migration may lock the table", "high", "open", "run at night", "user", "t1"),
        Risk.make("Flaky e2e test", "low", "mitigated"),
    ]
    assert parse_risks(render_risks("main", risks)) == risks


@pytest.mark.parametrize(
    ("kind", "text", "line"),
    [
        ("plan", "# Plan\n\n- [ ] P1: a\n- [?] P2: b\n", 4),
        ("plan", "# Plan\n\n- [ ] P1: a\nsome prose after the steps\n", 4),
        ("plan", "- [ ] P1: a\n- [x] P1: again\n", 2),
        ("decisions", "# D\n\n## D-1\n- Decision: x\n- Impact: y\n", 5),
        ("risks", "# R\n\n## R-1 [severe] open\n- Risk: x\n- Mitigation:\n- Source:\n- Time:\n", 3),
        ("risks", "# R\n\n## R-1 [low] open\n- Risk: x\n- Source: y\n", 5),
    ],
)
def test_schema_errors_name_file_and_line(kind: str, text: str, line: int) -> None:
    parse = {"plan": parse_plan, "decisions": parse_decisions, "risks": parse_risks}[kind]
    with pytest.raises(SchemaError, match=rf"^F.md:{line}:"):
        parse(text, "F.md")


# -- tracks ---------------------------------------------------------------------------------


def test_first_event_creates_a_track_named_after_the_branch(repo: Path) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "checkout", "-q", "-b", "feature/Login_Fix"], check=True
    )
    session = Session(Project.load(repo))
    track, created = session.track()
    assert (track, created) == ("feature-login_fix", True)
    assert (repo / "docs/tracks/ACTIVE_TRACK").read_text() == "feature-login_fix\n"
    assert session.track() == ("feature-login_fix", False)
    session.tracks.new("billing")
    assert session.tracks.active() == "billing"
    session.tracks.switch("feature-login_fix")
    assert session.tracks.list() == ["billing", "feature-login_fix"]
    with pytest.raises(CharterError, match="no track nope"):
        session.tracks.switch("nope")
    with pytest.raises(CharterError, match="not a track id"):
        session.tracks.new("../escape")
    session.close()


# -- capture through real hook processes ------------------------------------------------------


def _hook(
    run_charter: Any, root: Path, event: str, **payload: Any
) -> subprocess.CompletedProcess[str]:
    body = {"session_id": "s-1", "cwd": str(root), "hook_event_name": event, **payload}
    proc = run_charter("hook", event, cwd=root, stdin=json.dumps(body))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def _bash(
    run_charter: Any, root: Path, command: str, output: str = "", **payload: Any
) -> subprocess.CompletedProcess[str]:
    """A Bash call that finished with ``output``, as PostToolUse reports it."""
    return _hook(
        run_charter,
        root,
        "post-tool-use",
        tool_name="Bash",
        tool_input={"command": command},
        tool_response={"stdout": output, "stderr": "", "interrupted": False},
        **payload,
    )


def _transcript(root: Path, entries: list[dict[str, Any]]) -> str:
    path = root / "transcript.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(entry) + "\n")
    return str(path)


def _assistant(stamp: str, *content: dict[str, Any]) -> dict[str, Any]:
    """One assistant line of a Claude Code transcript."""
    return {
        "type": "assistant",
        "timestamp": stamp,
        "message": {"role": "assistant", "content": list(content)},
    }


def _play_session(root: Path, run_charter: Any) -> str:
    """A short session: prompt, plan, an edit, a failing then passing test, a rejection."""
    (root / "charter.toml").write_text(NO_WORKER)
    transcript = _transcript(
        root,
        [
            {
                "type": "user",
                "timestamp": "2026-01-01T10:00:00Z",
                "message": {"role": "user", "content": "go"},
            },
            {
                "type": "assistant",
                "timestamp": "2026-01-01T10:00:05Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": "Decision: Store sessions in SQLite\n"
                            "Reason: one file, transactions",
                        },
                        {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {}},
                    ],
                },
            },
        ],
    )
    common = {"transcript_path": transcript}
    _hook(
        run_charter,
        root,
        "user-prompt-submit",
        prompt="Add login. Use argon2, never bcrypt.",
        **common,
    )
    todos = [
        {"content": "Write the login form", "status": "completed", "activeForm": "x"},
        {"content": "Hash passwords", "status": "in_progress", "activeForm": "y"},
    ]
    _hook(
        run_charter,
        root,
        "post-tool-use",
        tool_name="TodoWrite",
        tool_input={"todos": todos},
        tool_response={},
        **common,
    )
    (root / "app.py").write_text("print('hi')\n")
    _hook(
        run_charter,
        root,
        "post-tool-use",
        tool_name="Write",
        tool_use_id="toolu_1",
        tool_input={"file_path": str(root / "app.py"), "content": "print('hi')\n"},
        tool_response={"type": "create"},
        **common,
    )
    _hook(
        run_charter,
        root,
        "post-tool-use-failure",
        tool_name="Bash",
        tool_input={"command": "python -m pytest -q tests"},
        error="Exit code 1\n1 failed, 3 passed",
        **common,
    )
    _bash(run_charter, root, "python -m pytest -q  tests", "4 passed in 0.1s", **common)
    _hook(
        run_charter,
        root,
        "post-tool-use-failure",
        tool_name="Edit",
        tool_input={"file_path": str(root / "README.md")},
        error="The user doesn't want to proceed with this tool use. The tool use was rejected. "
        "The user provided the following reason for the rejection:  keep the README in English",
        **common,
    )
    _hook(run_charter, root, "pre-compact", trigger="auto", **common)
    return transcript


def test_capture_compaction_and_recovery_through_hooks(repo: Path, run_charter: Any) -> None:
    transcript = _play_session(repo, run_charter)
    track = (repo / "docs/tracks/ACTIVE_TRACK").read_text().strip()
    plan = (repo / f"docs/tracks/{track}/PLAN.md").read_text()
    assert "- [x] P1: Write the login form" in plan and "- [~] P2: Hash passwords" in plan
    decisions = parse_decisions((repo / f"docs/tracks/{track}/DECISIONS.md").read_text())
    assert [d.decision for d in decisions] == ["Store sessions in SQLite"]
    assert (
        decisions[0].reason == "one file, transactions"
        and decisions[0].time == "2026-01-01T10:00:05Z"
    )
    latest = json.loads((repo / f"artifacts/checkpoints/{track}/latest.json").read_text())
    assert latest["track"] == track and latest["session_id"] == "s-1"
    assert latest["task"]["PLAN.md"]["sha256"] == hashlib.sha256(plan.encode()).hexdigest()
    log = (repo / "artifacts/sessions/s-1/work_log.md").read_text()
    assert "2026-01-01T10:00:05Z Write app.py → ok" in log

    start = _hook(run_charter, repo, "session-start", source="compact", transcript_path=transcript)
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    proc = run_charter("session", "recover", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout)
    assert state["text"] == context
    assert state["plan"][:2] == [
        {"content": "Write the login form", "status": "completed", "id": "P1"},
        {"content": "Hash passwords", "status": "in_progress", "id": "P2"},
    ]
    assert state["edited_files"] == ["app.py"]
    assert state["test_runs"] == [{"command": "python -m pytest -q tests", "outcome": "pass"}]
    said = [i["text"] for i in state["user_instructions"]]
    assert said == ["keep the README in English", "Add login. Use argon2, never bcrypt."]
    for needle in ("Hash passwords", "never bcrypt", "keep the README in English", "app.py"):
        assert needle in context
    assert len(context) < 10_000


def test_compaction_is_deterministic_and_idempotent(tmp_path: Path, run_charter: Any) -> None:
    digests = []
    for name in ("a", "b"):
        root = tmp_path / name / "proj"
        root.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        _play_session(root, run_charter)
        files = sorted(p for p in (root / "docs").rglob("*") if p.is_file())
        files += [root / "artifacts/checkpoints/main/latest.json"]
        digests.append(
            {
                p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in files
            }
        )
        before = (root / "artifacts/checkpoints/main/latest.json").read_bytes()
        _hook(
            run_charter,
            root,
            "pre-compact",
            trigger="manual",
            transcript_path=str(root / "transcript.jsonl"),
        )
        assert (root / "artifacts/checkpoints/main/latest.json").read_bytes() == before
        assert len(list((root / "artifacts/checkpoints/main/history").iterdir())) == 1
    assert digests[0] == digests[1]


def test_schema_violation_refuses_compaction_and_writes_nothing(repo: Path) -> None:
    session = Session(Project.load(repo))
    session.update_plan([{"content": "one", "status": "pending"}])
    track = session.track()[0]
    risks = repo / f"docs/tracks/{track}/RISKS.md"
    risks.write_text(
        "# Risks\n\n## R-1 [urgent] open\n- Risk: x\n- Mitigation:\n- Source:\n- Time:\n"
    )
    session.journal.add(
        "s",
        track,
        "plan",
        {"source": "todo", "steps": [{"id": "P1", "content": "two", "status": "pending"}]},
    )
    plan_before = (repo / f"docs/tracks/{track}/PLAN.md").read_bytes()
    with pytest.raises(SchemaError, match=r"RISKS.md:3: severity 'urgent'"):
        compact(session, "s")
    assert (repo / f"docs/tracks/{track}/PLAN.md").read_bytes() == plan_before
    assert not (repo / f"artifacts/checkpoints/{track}/latest.json").exists()
    assert risks.read_text().startswith("# Risks\n\n## R-1 [urgent]")  # never rewritten
    session.close()


def test_a_repeated_decision_reports_the_entry_on_file(repo: Path) -> None:
    """A decision's id comes from its text, so recording it again with another reason
    appends nothing (append-only); the answer must say what DECISIONS.md holds, not the
    reason that was dropped."""
    session = Session(Project.load(repo))
    first = session.record_decision("Keep urllib3", reason="bound", impact="src/")
    again = session.record_decision("Keep urllib3", reason="other", impact="")
    assert again.id == first.id
    assert (again.reason, again.impact) == ("bound", "src/")
    (stored,) = session.task_tier(session.track()[0]).decisions
    assert stored.reason == "bound"
    session.close()


_KILL_DURING_APPEND = """
import os, signal, sys
from pathlib import Path
import charter.fileio as fileio
from charter.config import Project
from charter.session.service import Session

real = os.replace
def dying_replace(src, dst):
    if str(dst).endswith("DECISIONS.md"):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst)
os.replace = dying_replace
Session(Project.load(sys.argv[1])).record_decision("Second decision", reason="r")
"""


def test_decisions_stay_append_only_when_killed_mid_write(repo: Path) -> None:
    session = Session(Project.load(repo))
    session.record_decision("First decision", reason="because")
    track = session.track()[0]
    path = repo / f"docs/tracks/{track}/DECISIONS.md"
    before = path.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", _KILL_DURING_APPEND, str(repo)], capture_output=True, timeout=120
    )
    assert proc.returncode == -9
    assert path.read_bytes() == before  # the previous state, intact
    assert [d.decision for d in parse_decisions(before.decode())] == ["First decision"]
    session.record_decision("Second decision", reason="r")
    session.record_decision("Second decision", reason="r")  # no repeat
    after = path.read_bytes()
    assert after.startswith(before)  # append-only: the old bytes are a prefix
    assert [d.decision for d in parse_decisions(after.decode())] == [
        "First decision",
        "Second decision",
    ]
    session.close()


def test_task_tools_rebuild_the_plan(repo: Path) -> None:
    session = Session(Project.load(repo))
    cap = session.capture("s")

    def call(tool: str, tool_input: dict[str, Any], response: Any) -> None:
        cap.tool(
            {"tool_name": tool, "tool_input": tool_input, "tool_response": response}, failed=False
        )

    call("TaskCreate", {"subject": "second"}, {"task": {"id": "2", "subject": "second"}})
    call("TaskCreate", {"subject": "first"}, {"task": {"id": "1", "subject": "first"}})
    call("TaskCreate", {"subject": "tenth"}, {"task": {"id": "10", "subject": "tenth"}})
    call("TaskUpdate", {"taskId": "1", "status": "completed"}, {"success": True})
    call("TaskUpdate", {"taskId": "2", "status": "deleted"}, {"success": True})
    call("TaskUpdate", {"taskId": "99", "status": "completed"}, "Task not found")
    from charter.session.recovery import recover

    state = recover(session)
    assert [(p["content"], p["status"]) for p in state.plan] == [
        ("first", "completed"),
        ("tenth", "pending"),
    ]
    call("TaskList", {}, {"tasks": [{"id": "3", "subject": "only", "status": "in_progress"}]})
    assert [(p["content"], p["status"]) for p in recover(session).plan] == [("only", "in_progress")]
    session.close()


def test_assistant_blocks() -> None:
    decisions, risks = blocks_from_text(
        "Plan below.\n\n**Decision:** Use Redis for the cache\nReason: latency\n\n"
        "- Risk: cache stampede on deploy\n  Severity: high\n"
    )
    assert decisions == [{"decision": "Use Redis for the cache", "reason": "latency"}]
    assert risks == [{"risk": "cache stampede on deploy", "severity": "high"}]


def test_fields_of_blocks_written_on_one_line_are_each_read() -> None:
    """ "Decision: Use Redis for the cache; risk: stampede on deploy" was stored as one
    decision holding the risk in its text. A field named after ";" or a sentence's end on
    a block's line is read as if it began a line of its own."""
    decisions, risks = blocks_from_text(
        "Decision: Use Redis for the cache; risk: stampede on deploy\n\n"
        "**Decision:** Keep the v1 API. Reason: two clients still call it.\n\n"
        "Decision: Retry twice; the third attempt is manual\n"
    )
    assert decisions == [
        {"decision": "Use Redis for the cache"},
        {"decision": "Keep the v1 API", "reason": "two clients still call it."},
        {"decision": "Retry twice; the third attempt is manual"},
    ]
    assert risks == [{"risk": "stampede on deploy"}]


def test_a_risk_tagged_with_its_severity_as_recovery_lists_it() -> None:
    """ "Risk: [high] Users relying on Millisecond results will see a different type" (the
    way recovery lists open risks, so the way an agent writes one back) was restored as
    "[medium] [high] Users relying …": the tag stayed in the text and the severity fell
    to medium. A severity in brackets before the risk is its severity; another tag stays."""
    _, risks = blocks_from_text(
        "Risk: [high] Users relying on Millisecond results will see a different type\n"
        "Mitigation: note it in the changelog\n\nRisk: (critical) Data loss on resume\n\n"
        "Risk: [WIP] The parser is half done\n"
    )
    assert risks == [
        {
            "risk": "Users relying on Millisecond results will see a different type",
            "severity": "high",
            "mitigation": "note it in the changelog",
        },
        {"risk": "Data loss on resume", "severity": "critical"},
        {"risk": "[WIP] The parser is half done"},
    ]


def test_a_risk_block_that_names_its_status_changes_it(repo: Path, run_charter: Any) -> None:
    """The agent wrote "Risk: Late responses leak into the next call" with a mitigation,
    and after fixing it the same risk with "Status: mitigated"; the status line was not
    read, so after compaction recovery still listed the risk as open (and critical). A
    ``Status:`` line of a risk block names its status (one of open, mitigated, accepted,
    closed, before any remark); the mitigation written earlier stays; a decision's
    "Status: accepted" is no part of the decision."""
    decisions, risks = blocks_from_text(
        "Decision: Use gproc for routing\nStatus: accepted\n\n"
        "Risk: Late responses leak\nStatus: Mitigated (unknown IDs dropped)\n"
    )
    assert decisions == [{"decision": "Use gproc for routing"}]
    assert risks == [{"risk": "Late responses leak", "status": "Mitigated (unknown IDs dropped)"}]
    (repo / "charter.toml").write_text(NO_WORKER)
    first = "Risk: [critical] Late responses leak into the next call\nMitigation: drop unknown IDs"
    transcript = _transcript(
        repo, [_assistant("2026-01-01T10:00:00Z", {"type": "text", "text": first})]
    )
    _hook(run_charter, repo, "pre-compact", trigger="auto", transcript_path=transcript)
    later = "Fixed.\n\nRisk: Late responses leak into the next call\nStatus: mitigated"
    _transcript(repo, [_assistant("2026-01-01T10:05:00Z", {"type": "text", "text": later})])
    _hook(run_charter, repo, "pre-compact", trigger="auto", transcript_path=transcript)
    risks_md = next((repo / "docs/tracks").glob("*/RISKS.md")).read_text()
    assert "[critical] mitigated" in risks_md and "- Mitigation: drop unknown IDs" in risks_md
    proc = run_charter("session", "recover", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout)
    assert [(r["status"], r["mitigation"]) for r in state["risks"]] == [
        ("mitigated", "drop unknown IDs")
    ]
    assert "Open risks" not in state["text"]


def test_a_transcript_line_holding_half_an_emoji_is_still_captured(
    repo: Path, run_charter: Any
) -> None:
    """A transcript line with ``"\\ud83d"`` (half a surrogate pair: an emoji cut) decodes
    to a lone surrogate, which no UTF-8 text holds: the whole capture at PreCompact was
    "skipped: UnicodeEncodeError", and the session's decision was lost. Each half is read
    as U+FFFD and the decision is written."""
    (repo / "charter.toml").write_text(NO_WORKER)
    path = repo / "transcript.jsonl"
    line = json.dumps(
        _assistant(
            "2026-01-01T10:00:00Z", {"type": "text", "text": "Decision: Pin bcftools to 1.18 X"}
        )
    ).replace(" X", " \\ud83d")
    path.write_text(line + "\n", encoding="utf-8")
    proc = _hook(run_charter, repo, "pre-compact", trigger="auto", transcript_path=str(path))
    assert "skipped" not in proc.stderr, proc.stderr
    (decisions_md,) = (repo / "docs/tracks").glob("*/DECISIONS.md")
    assert "Pin bcftools to 1.18 \ufffd" in decisions_md.read_text(encoding="utf-8")


# -- CLI and MCP ----------------------------------------------------------------------------


def test_cli_init_notes_and_tracks(repo: Path, run_charter: Any) -> None:
    (repo / "docs/context").mkdir(parents=True)
    (repo / "docs/context/GUARDRAILS.md").write_text("mine\n")
    (repo / "charter.toml").write_text('[session]\ncheckpoints_dir = "state/ckpt"\n')
    proc = run_charter("session", "init", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    actions = {f["path"]: f["action"] for f in json.loads(proc.stdout)["files"]}
    assert actions["docs/context/GUARDRAILS.md"] == "kept"
    assert (repo / "docs/context/GUARDRAILS.md").read_text() == "mine\n"
    assert (
        "state/ckpt/<track-id>/latest.json" in (repo / "docs/context/ARTIFACT_PATHS.md").read_text()
    )
    assert (
        run_charter(
            "session", "note", "decision", "Ship weekly", "--reason", "cadence", cwd=repo
        ).returncode
        == 0
    )
    assert (
        run_charter(
            "session", "note", "risk", "Vendor lock-in", "--severity", "high", cwd=repo
        ).returncode
        == 0
    )
    bad = run_charter("session", "note", "risk", "x", "--severity", "apocalyptic", cwd=repo)
    assert (
        bad.returncode != 0
        and bad.stderr.startswith("charter: error:")
        and "Traceback" not in bad.stderr
    )
    assert run_charter("track", "new", "billing", cwd=repo).returncode == 0
    again = run_charter("track", "new", "billing", cwd=repo)  # no files yet, still exists
    assert again.returncode != 0 and "already exists" in again.stderr
    listed = json.loads(run_charter("track", "list", "--json", cwd=repo).stdout)
    assert listed["active"] == "billing" and "billing" in listed["tracks"]
    state = json.loads(run_charter("session", "state", "--json", cwd=repo).stdout)
    assert state["track"] == "billing" and state["decisions"] == []


async def _mcp(root: Path) -> dict[str, Any]:
    from mcp import Client

    out: dict[str, Any] = {}
    async with Client(mcp_server_params(root)) as client:
        out["decision"] = await client.call_tool(
            "record_decision", {"decision": "Use UTC everywhere", "reason": "logs"}
        )
        out["risk"] = await client.call_tool(
            "record_risk", {"risk": "Clock skew", "severity": "high"}
        )
        out["plan"] = await client.call_tool(
            "update_plan", {"steps": [{"content": "Audit timestamps", "status": "in_progress"}]}
        )
        out["bad"] = await client.call_tool(
            "update_plan", {"steps": [{"content": "", "status": "pending"}]}
        )
        out["bad_status"] = await client.call_tool(
            "update_plan", {"steps": [{"content": "Ship it", "status": "done"}]}
        )
        out["create_nothing"] = await client.call_tool("tracks", {"create": True})
        out["switch"] = await client.call_tool("tracks", {"switch": "tz", "create": True})
        out["tracks"] = await client.call_tool("tracks", {})
        out["state"] = await client.call_tool("get_session_state", {})
    return out


def test_mcp_session_tools(repo: Path) -> None:
    (repo / "charter.toml").write_text("")
    out = anyio.run(_mcp, repo)
    assert tool_payload(out["decision"])["decision"] == "Use UTC everywhere"
    assert tool_payload(out["risk"])["severity"] == "high"
    assert tool_payload(out["plan"])["plan"][0]["status"] == "in_progress"
    assert out["bad"].is_error
    # a wrong status names the right ones; create without a name is not a silent no-op
    bad_status = out["bad_status"].content[0].text
    assert out["bad_status"].is_error and "pending, in_progress, completed" in bad_status
    assert out["create_nothing"].is_error and "switch" in out["create_nothing"].content[0].text
    assert tool_payload(out["tracks"])["active"] == "tz"
    state = tool_payload(out["state"])
    assert state["track"] == "tz" and state["plan"] == []
    first = (repo / "docs/tracks").iterdir()
    assert any((p / "DECISIONS.md").exists() for p in first if p.is_dir())


def test_compact_names_a_transcript_it_cannot_read(repo: Path, run_charter) -> None:
    """A hook's transcript may be gone (it fails open); a path the user typed must not be
    ignored in silence: 'wrote nothing new' would look like there was nothing to read."""
    (repo / "docs").mkdir()
    for given, message in (("nope.jsonl", "transcript not found"), ("docs", "not a file")):
        proc = run_charter("session", "compact", "--transcript", given, cwd=repo)
        assert proc.returncode == 2, proc.stdout
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith("charter: error:") and message in line and given in line
    (repo / "t.jsonl").write_text("")
    assert run_charter("session", "compact", "--transcript", "t.jsonl", cwd=repo).returncode == 0


def test_one_bad_core_file_is_a_note_not_the_loss_of_the_whole_state(
    repo: Path, run_charter
) -> None:
    """CLAUDE.md over the session read cap (or unreadable, or not UTF-8) made recovery —
    and so SessionStart after a compaction — give back nothing: no plan, no decisions."""
    noted = run_charter("session", "note", "decision", "Keep the CLI small", cwd=repo)
    assert noted.returncode == 0
    (repo / "CLAUDE.md").write_text("# Rules\n\n" + "- Always run the tests.\n" * 120_000)
    (repo / "docs" / "context").mkdir(parents=True)
    (repo / "docs" / "context" / "ROLES.md").write_bytes(b"# Roles\n\ncaf\xe9\n")
    proc = run_charter("session", "recover", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [d["decision"] for d in data["decisions"]] == ["Keep the CLI small"]
    assert "Keep the CLI small" in data["text"]
    notes = " ".join(data["notes"])
    assert "CLAUDE.md" in notes and "too large" in notes
    assert "docs/context/ROLES.md" in notes and "UTF-8" in notes
    hook = run_hook(run_charter, repo, "SessionStart", source="compact")
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Keep the CLI small" in context


AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GH_TOKEN = "ghp_1234567890abcdefghijABCDEFGHIJ123456"


def test_secrets_are_redacted_before_the_session_stores_them(repo: Path, run_charter) -> None:
    """README: 'secrets are detected by content and redacted before anything is stored or
    served'. A token in a noted decision went verbatim into DECISIONS.md (a committed
    file); a key in a prompt went into .charter/session.db and back out of recovery."""
    assert (
        run_charter(
            "session", "note", "decision", f"CI pushes with {GH_TOKEN}", cwd=repo
        ).returncode
        == 0
    )
    assert (
        run_charter(
            "session",
            "note",
            "risk",
            f"Key {AWS_KEY} leaked",
            "--mitigation",
            f"rotate {AWS_KEY}",
            cwd=repo,
        ).returncode
        == 0
    )
    prompt = f"Always deploy with the key {AWS_KEY}, never ask for another one."
    assert run_hook(run_charter, repo, "UserPromptSubmit", prompt=prompt).returncode == 0
    assert (
        run_hook(
            run_charter,
            repo,
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            tool_response={
                "stdout": f"FAILED test_ci.py - token {GH_TOKEN}\n1 failed",
                "stderr": "",
            },
        ).returncode
        == 0
    )
    recovered = run_charter("session", "recover", "--session", "test-session", "--json", cwd=repo)
    assert recovered.returncode == 0, recovered.stderr
    stored = [p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert any(p.name == "session.db" for p in stored)
    for path in stored:
        data = path.read_bytes()
        assert AWS_KEY.encode() not in data and GH_TOKEN.encode() not in data, path
    for text in (recovered.stdout, run_charter("session", "state", "--json", cwd=repo).stdout):
        assert AWS_KEY not in text and GH_TOKEN not in text
    decisions = next(repo.rglob("DECISIONS.md")).read_text()
    assert "CI pushes with [REDACTED:github-token]" in decisions

    # served: a secret a person typed into a core file never comes back out
    core = repo / "docs" / "context" / "CONTEXT_CORE.md"
    core.parent.mkdir(parents=True, exist_ok=True)
    core.write_text(f"# Core\n\nThe deploy key is {AWS_KEY}.\n")
    served = run_charter("session", "recover", "--json", cwd=repo)
    assert served.returncode == 0 and AWS_KEY not in served.stdout
    assert "The deploy key is [REDACTED:aws-access-key]" in json.loads(served.stdout)["text"]


def test_a_password_assigned_mid_sentence_in_a_prompt_is_redacted(
    repo: Path, run_charter: Any
) -> None:
    """A user pasted ``SMTP_PASSWORD=<value> and …`` into a sentence: the keyword rule's
    unquoted value ran to the end of the line, held spaces and was judged no secret, so
    the password went into the journal and back out of recovery verbatim."""
    password = "Q" + hashlib.sha256(b"smtp").hexdigest()[:12] + "!x"
    prompt = (
        f"btw the staging login is SMTP_PASSWORD={password} and the sender is ops, "
        "use it for the email tests"
    )
    assert run_hook(run_charter, repo, "UserPromptSubmit", prompt=prompt).returncode == 0
    recovered = run_charter("session", "recover", "--session", "test-session", "--json", cwd=repo)
    assert recovered.returncode == 0, recovered.stderr
    for path in (p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts):
        assert password.encode() not in path.read_bytes(), path
    text = json.loads(recovered.stdout)["text"]
    assert password not in text
    assert "SMTP_PASSWORD=[REDACTED:secret-keyword] and the sender is ops" in text


def test_recovery_after_a_track_switch_shows_only_that_tracks_work(
    repo: Path, run_charter: Any
) -> None:
    """One Claude Code session worked on track alpha, then on a new track beta, then the
    user switched back to alpha: alpha's recovery served beta's prompt, edited file, test
    run and test output (the session's events were read whatever their track)."""

    def work(track_prompt: str, name: str, outcome: str) -> None:
        assert run_hook(run_charter, repo, "UserPromptSubmit", prompt=track_prompt).returncode == 0
        path = repo / f"{name}.py"
        path.write_text(f"{name} = 1\n")
        post = run_hook(
            run_charter,
            repo,
            "PostToolUse",
            tool_name="Write",
            tool_use_id=f"toolu_{name}",
            tool_input={"file_path": str(path), "content": f"{name} = 1\n"},
            tool_response={"type": "create"},
        )
        assert post.returncode == 0, post.stderr
        ran = run_hook(
            run_charter,
            repo,
            "PostToolUse",
            tool_name="Bash",
            tool_use_id=f"toolu_{name}_test",
            tool_input={"command": f"pytest -q tests/test_{name}.py"},
            tool_response={"stdout": f"test_{name}.py .\n1 {outcome} in 0.1s", "stderr": ""},
        )
        assert ran.returncode == 0, ran.stderr

    assert run_charter("track", "new", "alpha", cwd=repo).returncode == 0
    work("Keep the alpha module free of network calls.", "alpha_mod", "passed")
    assert run_charter("track", "new", "beta", cwd=repo).returncode == 0
    work("For beta use the sqlite store, not postgres.", "beta_mod", "passed")
    assert run_charter("track", "switch", "alpha", cwd=repo).returncode == 0

    out = run_charter("session", "recover", "--session", "test-session", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["track"] == "alpha"
    assert state["edited_files"] == ["alpha_mod.py"]
    assert [t["command"] for t in state["test_runs"]] == ["pytest -q tests/test_alpha_mod.py"]
    assert [i["text"] for i in state["user_instructions"]] == [
        "Keep the alpha module free of network calls."
    ]
    assert "beta" not in state["text"]

    assert run_charter("track", "switch", "beta", cwd=repo).returncode == 0
    beta = json.loads(
        run_charter("session", "recover", "--session", "test-session", "--json", cwd=repo).stdout
    )
    assert beta["edited_files"] == ["beta_mod.py"]
    assert "test_beta_mod.py" in beta["text"] and "alpha" not in beta["text"]


def test_a_resumed_session_keeps_the_instructions_of_the_session_it_resumed(
    repo: Path, run_charter: Any
) -> None:
    """Claude Code's --resume may give the conversation a new session id (2.0.x copies the
    earlier conversation into the new transcript). SessionStart(resume) served the earlier
    session's state, but once the new id had a prompt of its own, the next compaction
    gave back only the new id's: the user's instructions from before the resume, still in
    the conversation, were gone. A new conversation (startup) does not inherit them."""
    from tests.session_replay_support import Transcript

    def session(sid: str, prompt: str, name: str, source: str) -> str:
        transcript = Transcript(sid, str(repo), "2.0.36")
        transcript.prompt(prompt)
        transcript.tool(f"msg_{name}", f"toolu_{name}", "Write", {"file_path": str(repo / name)})
        transcript.result(f"toolu_{name}", "File created", {"type": "create"})
        path = repo.parent / f"{sid}.jsonl"
        transcript.write(path)
        common = {"session_id": sid, "transcript_path": str(path)}
        _hook(run_charter, repo, "session-start", source=source, **common)
        _hook(run_charter, repo, "user-prompt-submit", prompt=prompt, **common)
        (repo / name).write_text("x = 1\n")
        _hook(
            run_charter,
            repo,
            "post-tool-use",
            tool_name="Write",
            tool_use_id=f"toolu_{name}",
            tool_input={"file_path": str(repo / name), "content": "x = 1\n"},
            tool_response={"type": "create"},
            **common,
        )
        _hook(run_charter, repo, "pre-compact", trigger="auto", **common)
        start = _hook(run_charter, repo, "session-start", source="compact", **common)
        return str(json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"])

    first = "Never edit the generated client under web/gen, regenerate it instead."
    session("day-1", first, "a.py", "startup")
    resumed = session("day-2", "Now add the CSV export.", "b.py", "resume")
    assert first in resumed and "Now add the CSV export." in resumed
    assert "- a.py" in resumed and "- b.py" in resumed

    fresh = session("day-3", "Write the release notes.", "c.py", "startup")
    assert "Write the release notes." in fresh
    assert first not in fresh and "CSV export" not in fresh


def test_a_long_plan_leaves_room_for_the_step_in_progress_and_the_instructions(
    repo: Path, run_charter: Any
) -> None:
    """A 240-step plan, half of it done: the recovered text listed the completed steps
    from the top until the budget ran out, so the step in progress, the steps after it and
    the user's instructions were all cut off."""
    said = "Never use the pydantic.v1 compatibility imports anywhere."
    assert run_hook(run_charter, repo, "UserPromptSubmit", prompt=said).returncode == 0
    todos = [
        {
            "content": f"Migrate module {i} of the backend to the new settings API, then its tests",
            "status": "completed" if i < 120 else "in_progress" if i == 120 else "pending",
            "activeForm": f"Migrating module {i}",
        }
        for i in range(240)
    ]
    post = run_hook(
        run_charter,
        repo,
        "PostToolUse",
        tool_name="TodoWrite",
        tool_use_id="toolu_plan",
        tool_input={"todos": todos},
        tool_response={"oldTodos": [], "newTodos": todos},
    )
    assert post.returncode == 0, post.stderr
    assert run_hook(run_charter, repo, "PreCompact", trigger="auto").returncode == 0
    start = run_hook(run_charter, repo, "SessionStart", source="compact")
    assert start.returncode == 0, start.stderr
    text = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- [~] P121: Migrate module 120 of the backend" in text
    assert "- [ ] P122: Migrate module 121 of the backend" in text
    assert "(120 completed steps not shown)" in text
    assert said in text
    assert len(text) < 10_000
    recovered = json.loads(run_charter("session", "recover", "--json", cwd=repo).stdout)
    assert len(recovered["plan"]) == 240  # the structured plan stays whole


def test_only_commands_that_run_tests_are_test_runs(repo: Path, run_charter: Any) -> None:
    """A `|` inside a quoted grep pattern is not a pipe, and installing a test tool's
    browsers is not running the tests: neither shows up as a test run after compaction."""
    (repo / "charter.toml").write_text(NO_WORKER)
    commands = {
        'pip list 2>/dev/null | grep -iE "httpx|playwright|pyyaml"': "playwright 1.0",
        "npx playwright install chromium": "Downloading Chromium",
        "grep -rn 'jest|vitest' package.json": "package.json:3: jest",
        "npx playwright test --reporter=line": "3 passed",
        "pytest -q 2>&1 | tail -3": "2 passed",
    }
    for command, output in commands.items():
        _bash(run_charter, repo, command, output)
    proc = run_charter("session", "recover", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["test_runs"] == [
        {"command": "npx playwright test --reporter=line", "outcome": "pass"},
        {"command": "pytest -q 2>&1 | tail -3", "outcome": "pass"},
    ]


def test_a_rails_test_run_survives_compaction(repo: Path, run_charter: Any) -> None:
    """The project's CLAUDE.md says `bin/rails test`; the agent runs it (and a system
    test run through `bundle exec`). After PreCompact and a compact SessionStart the runs
    are recovered, and test_output.txt holds the last one's output."""
    (repo / "charter.toml").write_text(NO_WORKER)
    (repo / "CLAUDE.md").write_text("# Rules\n\n- Run the tests with `bin/rails test`.\n")
    minitest = "Finished in 1.2s\n12 runs, 30 assertions, 1 failures, 0 errors, 0 skips\n"
    _bash(run_charter, repo, "bin/rails test test/models/user_test.rb", minitest)
    system = "Finished in 9.8s\n4 runs, 9 assertions, 0 failures, 0 errors, 0 skips\n"
    _bash(run_charter, repo, "bundle exec rails test:system", system)
    output = repo / "artifacts/sessions/s-1/test_output.txt"
    assert output.read_text() == f"$ bundle exec rails test:system\n[pass]\n{system}\n"
    _hook(run_charter, repo, "pre-compact", trigger="auto")
    start = _hook(run_charter, repo, "session-start", source="compact")
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "bin/rails test test/models/user_test.rb" in context
    proc = run_charter("session", "recover", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["test_runs"] == [
        {"command": "bin/rails test test/models/user_test.rb", "outcome": "fail"},
        {"command": "bundle exec rails test:system", "outcome": "pass"},
    ]


@pytest.mark.parametrize(
    "command",
    [
        "bin/rails test",
        "rails test test/models/x_test.rb",
        "bin/rails test:system",
        "RAILS_ENV=test bin/rails test",
        "bundle exec rspec spec/models",
        "bundle exec rake test",
        "rake spec",
        "ruby -Itest test/models/user_test.rb",
        "php artisan test --parallel",
        "./vendor/bin/pest",
        "php vendor/bin/phpunit --filter UserTest",
        "composer test",
        "docker compose exec -T app php artisan test",
        "docker compose run --rm -e RAILS_ENV=test web bin/rails test",
        "python3.12 -m pytest -q",
        "python manage.py test",
        "coverage run -m pytest",
        "uv run --with pytest-cov pytest",
        "poetry run python -m unittest",
        "pnpm --filter web test",
        "yarn workspace web test",
        "yarn jest",
        "npx jest --ci",
        "node --test",
        "deno task test",
        "go test ./...",
        "gotestsum -- ./...",
        "cargo nextest run",
        "mix test",
        "dotnet test",
        "./gradlew :app:testDebugUnitTest",
        "mvn -q clean verify",
        "ctest --output-on-failure",
        "zig build test",
        "swift test",
        "make -C build check",
        "script/test",
        "bash -lc 'cd api && npm test'",
        "timeout 600 go test ./...",
        "pio test -e native -f test_register_map",
        "platformio test",
        "julia --project -e 'using Pkg; Pkg.test()'",
        "julia -t 4 --project=. test/runtests.jl",
        "dune runtest",
        "dune test",
        "dune build @runtest",
        "opam exec -- dune runtest",
        "direnv exec . cabal test",
        "nf-test test tests/modules/phenotype.nf.test",
        "nf-test test --profile docker",
        "busted spec/parser_spec.lua",
    ],
)
def test_test_runs_are_recognised_through_wrappers_and_ecosystems(command: str) -> None:
    from charter.session.testruns import is_test_command

    assert is_test_command(command)


def test_a_tally_of_zero_failures_is_a_pass() -> None:
    # testthat ends every run with "[ FAIL 0 | WARN 0 | SKIP 0 | PASS 48 ]": the bare
    # "FAIL" in it made every passing run a failure after compaction
    from charter.session.testruns import outcome

    assert outcome("[ FAIL 0 | WARN 0 | SKIP 0 | PASS 48 ]", failed=False) == "pass"
    assert outcome("FAILED: 0, PASSED: 3", failed=False) == "pass"
    assert outcome("[ FAIL 1 | WARN 0 | SKIP 0 | PASS 12 ]", failed=False) == "fail"
    assert outcome("--- FAIL: TestX (0.00s)\nFAIL\tpkg\t0.012s", failed=False) == "fail"


def test_r_package_test_runs_are_recognised() -> None:
    # an R package runs its tests through Rscript or R with code, or R CMD check: none
    # counted, so the suite's failures were gone after compaction
    from charter.session.testruns import is_test_command

    for command in (
        "Rscript -e 'devtools::test()'",
        "Rscript --vanilla -e 'devtools::test(filter = \"gsea\")'",
        "Rscript -e 'testthat::test_dir(\"tests/testthat\")'",
        "R -e 'devtools::check()'",
        "R CMD check pkg_0.1.0.tar.gz",
        "Rscript -e 'rcmdcheck::rcmdcheck(args = \"--no-manual\")'",
    ):
        assert is_test_command(command), command
    for command in (
        "Rscript -e 'devtools::document()'",
        "Rscript -e 't.test(x, y)'",
        "Rscript -e 'install.packages(\"testthat\")'",
        "R CMD build .",
        "R CMD INSTALL .",
    ):
        assert not is_test_command(command), command


@pytest.mark.parametrize(
    "command",
    [
        "bin/rails db:migrate",
        "bundle exec rails db:migrate",
        "rake db:test:prepare",
        "php artisan migrate",
        "bundle install",
        "npm install test-utils",
        "pnpm add -D vitest",
        "npm run build",
        "cargo check",
        "go vet ./...",
        "make lint",
        "docker compose up -d",
        "docker compose run web npm install jest",
        "python -c 'import pytest'",
        "test -f Gemfile && echo ruby",
        "git commit -m test",
        "uv sync",
        "pio run -e esp32dev -t upload",
        "julia --project -e 'using Pkg; Pkg.build()'",
        "julia --project scripts/bench.jl",
        "dune build",
        "dune exec bin/main.exe",
        "opam install dune",
        "direnv exec . cabal build",
        "nf-test list",
        "nf-test generate process modules/local/phenotype.nf",
        "nextflow run main.nf -profile docker",
    ],
)
def test_commands_that_do_not_run_tests_are_not_test_runs(command: str) -> None:
    from charter.session.testruns import is_test_command

    assert not is_test_command(command)


def test_erlang_and_gleam_test_runs_are_recognised() -> None:
    """An Erlang project runs its suites with ``rebar3 eunit`` / ``rebar3 ct`` (often in a
    container) and Common Test's ``ct_run``; Gleam with ``gleam test``. None counted, so
    after compaction the test runs listed were the session's older ``make test`` and the
    failing suite was gone. ``rebar3 compile`` and ``gleam build`` stay no test runs."""
    from charter.session.testruns import is_test_command

    for command in (
        "rebar3 eunit",
        "rebar3 ct --suite erlmcp_transport_tcp_SUITE",
        "rebar3 do compile, eunit",
        "rebar3 proper -m prop_codec",
        "docker compose run --rm erlmcp-ct rebar3 ct",
        "ct_run -dir test -logdir logs",
        "gleam test",
    ):
        assert is_test_command(command), command
    for command in (
        "rebar3 compile",
        "rebar3 do compile, dialyzer",
        "rebar3 shell",
        "docker compose run --rm erlmcp-build rebar3 compile",
        "gleam build",
        "gleam add gleeunit",
    ):
        assert not is_test_command(command), command


def test_a_test_task_in_a_package_namespace_is_a_test_run() -> None:
    """A monorepo's Taskfile names its tasks by package: ``task backend:test``, ``task
    frontend:test:unit:run``, ``mise run api:test``, ``pnpm run web:test``. They were not
    recorded for the session (only ``task test`` was); a task runner's namespace before
    the test word is read past, while rake's and rails' ``db:test:prepare`` and a
    namespace's other tasks stay no test runs."""
    from charter.session.testruns import is_test_command

    for command in (
        "task backend:test",
        "task frontend:test:unit:run",
        "task -d . ios:test",
        "mise run api:test",
        "pnpm run web:test:e2e",
        "npm run backend:test -- -k users",
    ):
        assert is_test_command(command), command
    for command in (
        "task backend:lint",
        "task frontend:build",
        "mise run api:dev",
        "rake db:test:prepare",
        "bin/rails db:test:prepare",
    ):
        assert not is_test_command(command), command


def test_a_risk_named_by_its_id_is_that_risk(repo: Path) -> None:
    """`record_risk` (MCP) and `charter session note risk` with a risk's id, as RISKS.md
    and the session state list it, added a new risk whose text was the id; the id names
    the known risk, which is updated. An id no risk has is a risk's text as before."""
    (repo / "charter.toml").write_text(NO_WORKER)
    session = Session(Project.load(repo))
    first = session.record_risk("Card charged twice on retry", severity="high")
    update = session.record_risk(
        f" {first.id} ", status="mitigated", mitigation="an idempotency key"
    )
    assert (update.id, update.risk) == (first.id, "Card charged twice on retry")
    assert (update.severity, update.status) == ("high", "mitigated")
    track, _ = session.track()
    risks = parse_risks(session.track_path(track, "RISKS.md").read_text())
    assert [(r.id, r.status, r.mitigation) for r in risks] == [
        (first.id, "mitigated", "an idempotency key")
    ]
    assert session.record_risk("R-00000000").risk == "R-00000000"


def test_a_risk_update_changes_only_what_it_names(repo: Path, run_charter: Any) -> None:
    """Marking a high risk mitigated keeps it high; an assistant restating a mitigated
    risk without a severity or status neither downgrades nor reopens it."""
    (repo / "charter.toml").write_text(NO_WORKER)

    def note(*args: str) -> dict[str, Any]:
        proc = run_charter("session", "note", "risk", *args, "--json", cwd=repo)
        assert proc.returncode == 0, proc.stderr
        return dict(json.loads(proc.stdout))

    first = note("Card charged twice on retry", "--severity", "critical")
    assert (first["severity"], first["status"]) == ("critical", "open")
    update = note("Card charged twice on retry", "--status", "mitigated", "--mitigation", "key")
    assert (update["severity"], update["status"]) == ("critical", "mitigated")
    assert note("Fresh risk")["severity"] == "medium"
    transcript = _transcript(
        repo,
        [
            _assistant(
                "2026-01-01T10:00:05Z",
                {"type": "text", "text": "Risk: Card charged twice on retry"},
            )
        ],
    )
    _hook(run_charter, repo, "pre-compact", trigger="auto", transcript_path=transcript)
    track = (repo / "docs/tracks/ACTIVE_TRACK").read_text().strip()
    risks = parse_risks((repo / f"docs/tracks/{track}/RISKS.md").read_text())
    card = next(r for r in risks if r.risk == "Card charged twice on retry")
    assert (card.severity, card.status, card.mitigation) == ("critical", "mitigated", "key")


def test_recover_prints_the_agents_text_unwrapped_and_its_notes(
    repo: Path, run_charter: Any
) -> None:
    """`charter session recover` shows exactly the text the agent is given (no line
    breaks added at the terminal width) and the notes `--json` carries (a hand-edited
    PLAN.md, an interrupted compaction), on stderr."""
    _play_session(repo, run_charter)
    track = (repo / "docs/tracks/ACTIVE_TRACK").read_text().strip()
    plan = repo / f"docs/tracks/{track}/PLAN.md"
    plan.write_text(plan.read_text() + "- [ ] P9: " + "a long hand-added step " * 8 + "\n")
    as_json = run_charter("session", "recover", "--json", cwd=repo, env={"COLUMNS": "80"})
    state = json.loads(as_json.stdout)
    assert any("PLAN.md changed since checkpoint" in n for n in state["notes"])
    plain = run_charter("session", "recover", cwd=repo, env={"COLUMNS": "80"})
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == state["text"]
    assert "PLAN.md changed since checkpoint" in plain.stderr


def test_track_show_reads_as_text(repo: Path, run_charter: Any) -> None:
    (repo / "charter.toml").write_text(NO_WORKER)
    assert run_charter("track", "new", "billing", cwd=repo).returncode == 0
    assert run_charter("session", "note", "decision", "Use cents", cwd=repo).returncode == 0
    proc = run_charter("track", "show", cwd=repo, env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    assert "files: DECISIONS.md (missing: SPEC.md, PLAN.md, RISKS.md)" in proc.stdout
    assert "{" not in proc.stdout and "True" not in proc.stdout


def test_a_compaction_from_the_cli_does_not_hide_the_agents_session(
    repo: Path, run_charter: Any
) -> None:
    """`charter session note` and `charter session compact` run outside any Claude Code
    session: afterwards recovery still serves the agent's session (its instructions,
    files and test runs), not the command line's empty one."""
    _play_session(repo, run_charter)
    assert run_charter("session", "note", "decision", "Use UTC", cwd=repo).returncode == 0
    assert run_charter("session", "compact", cwd=repo).returncode == 0
    state = json.loads(run_charter("session", "recover", "--json", cwd=repo).stdout)
    assert state["session_id"] == "s-1"
    assert [i["text"] for i in state["user_instructions"]][-1].startswith("Add login.")
    assert state["edited_files"] == ["app.py"] and state["test_runs"]
    assert "Use UTC" in state["text"] and "never bcrypt" in state["text"]


def test_work_log_carries_no_piece_of_the_project_path(repo: Path, run_charter: Any) -> None:
    """A long command is cut to 200 characters for the work log; a cut through the
    project's absolute path used to leave a machine-specific prefix in a shared file."""
    (repo / "charter.toml").write_text(NO_WORKER)
    root = repo.as_posix()
    lead = "find . -name '*.go' | grep -v generated | head -15 && head -60 "
    for pad in range(0, len(root), 7):  # the cut lands at every place inside the path
        command = lead + "x" * (200 - len(lead) - pad) + f" {root}/main.go"
        _bash(run_charter, repo, command, tool_use_id=f"t-{pad}")
    log = (repo / "artifacts/sessions/s-1/work_log.md").read_text()
    assert log.count("Bash ") == len(range(0, len(root), 7))
    assert root.split("/")[1] not in log.replace("/main.go", "")


def test_work_log_lines_leave_out_a_missing_time_or_target(repo: Path, run_charter: Any) -> None:
    """A TodoWrite has no target, and its tool_use may not be in the transcript yet when
    PostToolUse fires: its line reads `- TodoWrite → ok`, not `- - TodoWrite  → ok`; a
    call the transcript has carries its time."""
    (repo / "charter.toml").write_text(NO_WORKER)
    transcript = _transcript(
        repo,
        [_assistant("2026-01-01T10:00:05Z", {"type": "tool_use", "id": "toolu_r", "name": "Read"})],
    )
    todos = [{"content": "Write the form", "status": "pending", "activeForm": "Writing"}]
    _hook(
        run_charter,
        repo,
        "post-tool-use",
        tool_name="TodoWrite",
        tool_use_id="toolu_t",
        tool_input={"todos": todos},
        tool_response={},
        transcript_path=transcript,
    )
    _hook(
        run_charter,
        repo,
        "post-tool-use",
        tool_name="Read",
        tool_use_id="toolu_r",
        tool_input={"file_path": str(repo / "notes.txt")},
        tool_response={},
        transcript_path=transcript,
    )
    log = (repo / "artifacts/sessions/s-1/work_log.md").read_text().splitlines()
    assert log == [
        "# Work log (rolling window)",
        "- TodoWrite → ok",
        "- 2026-01-01T10:00:05Z Read notes.txt → ok",
    ]


def test_a_task_is_logged_by_its_subject_not_its_description(tmp_path: Path) -> None:
    """`TaskCreate` carries a short subject and a long description: the work log line
    named the task by its description's first 120 characters; the subject is its title.
    A subagent's `Task` call, with no subject, is still named by its description."""
    from charter.session.capture import _target

    task = {"subject": "Add the rename route", "description": "Add PATCH /items/:id/name " * 9}
    assert _target("TaskCreate", task, tmp_path) == "Add the rename route"
    agent = {"description": "Find the callers", "prompt": "Search the repository for …"}
    assert _target("Task", agent, tmp_path) == "Find the callers"


def test_compaction_counts_the_conversation_in_words_and_a_path_is_one_word() -> None:
    from charter.session.compaction import conversation_words

    prompt = {"type": "user", "message": {"role": "user", "content": "use argon2 never bcrypt"}}
    tool = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "not counted at all here"},
                {"type": "text", "text": "Reading it now."},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a/b"}},
            ],
        },
    }
    long_path = json.loads(json.dumps(tool).replace("/a/b", "/" + "x/" * 40 + "y"))
    summary = {"type": "user", "isCompactSummary": True, "message": {"content": "a b c"}}
    assert conversation_words(prompt) == 4
    assert conversation_words(tool) == conversation_words(long_path) == 3 + 2
    assert conversation_words(summary) == 0


def test_a_short_session_gets_a_short_state_back(repo: Path, run_charter: Any) -> None:
    """Recovery fills recover_budget_tokens only when the compacted conversation is long
    enough: at most recover_max_share of it, never under recover_min_tokens."""
    (repo / "charter.toml").write_text(NO_WORKER)
    said = [f"keep the {w} module free of global state and never log tokens" for w in "abcdefgh"]
    entries = []
    for n, text in enumerate(said * 4):
        entries.append({"type": "user", "message": {"role": "user", "content": text}})
        _hook(run_charter, repo, "user-prompt-submit", prompt=f"{text} #{n}")
    transcript = _transcript(repo, entries)
    _hook(run_charter, repo, "pre-compact", trigger="manual", transcript_path=transcript)
    track = (repo / "docs/tracks/ACTIVE_TRACK").read_text().strip()
    latest = json.loads((repo / f"artifacts/checkpoints/{track}/latest.json").read_text())
    words = latest["transcript"]["words"]
    assert words == sum(len(e["message"]["content"].split()) for e in entries)
    short = json.loads(run_charter("session", "recover", "--json", cwd=repo).stdout)
    # the same journal with a long conversation behind it: the whole budget
    long_entries = [{"type": "user", "message": {"role": "user", "content": "word " * 50000}}]
    _transcript(repo, long_entries)
    _hook(run_charter, repo, "pre-compact", trigger="manual", transcript_path=transcript)
    long = json.loads(run_charter("session", "recover", "--json", cwd=repo).stdout)
    assert short["tokens"] <= 400 + 60 < long["tokens"]
    assert len(long["user_instructions"]) > len(short["user_instructions"]) >= 1


def test_recover_refuses_a_source_claude_code_never_sends(repo: Path, run_charter: Any) -> None:
    """`--source startpu` rendered the state as if for some source and exited 0: one line
    naming the four sources, exit 2, nothing on stdout."""
    proc = run_charter("session", "recover", "--source", "startpu", cwd=repo)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (
        "charter: error: unknown --source 'startpu' (one of: startup, resume, clear, compact)"
    )
    assert run_charter("session", "recover", "--source", "resume", cwd=repo).returncode == 0


def test_reading_the_session_state_creates_no_track(repo: Path, run_charter: Any) -> None:
    """`charter session recover` and the MCP tool read: in a fresh clone they must not
    leave `docs/tracks/` behind (the first hook event creates the track)."""
    (repo / "charter.toml").write_text(NO_WORKER)
    proc = run_charter("session", "recover", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    named = json.loads(proc.stdout)["track"]  # the branch's: main or master
    assert named and "created track" not in proc.stderr
    assert not (repo / "docs").exists()

    from charter.session.recovery import recover
    from charter.session.service import Session

    s = Session(Project.load(repo))
    try:
        assert recover(s, create=False).track == named
    finally:
        s.close()
    assert not (repo / "docs").exists()
    _hook(run_charter, repo, "session-start", source="startup")
    assert (repo / "docs" / "tracks" / "ACTIVE_TRACK").read_text().strip() == named


def test_a_second_precompact_after_claude_codes_own_compaction_lines_writes_nothing(
    repo: Path, run_charter: Any
) -> None:
    """Claude Code appends its compaction lines to the transcript after PreCompact; a
    second PreCompact then reads further but finds nothing new, and must write nothing."""
    transcript = _play_session(repo, run_charter)
    checkpoints = [p for p in repo.rglob("latest.json") if "checkpoints" in p.parts]
    (latest,) = checkpoints
    before = latest.read_bytes()
    history = sorted(p.name for p in (latest.parent / "history").iterdir())
    _transcript(
        repo,
        [
            {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
             "timestamp": "2026-01-01T10:09:00Z"},
            {"type": "user", "isCompactSummary": True, "timestamp": "2026-01-01T10:09:01Z",
             "message": {"role": "user", "content": "This session is being continued …"}},
        ],
    )  # fmt: skip
    again = _hook(run_charter, repo, "pre-compact", trigger="auto", transcript_path=transcript)
    assert "nothing new" in again.stderr
    assert latest.read_bytes() == before
    assert sorted(p.name for p in (latest.parent / "history").iterdir()) == history


def test_a_test_outputs_tail_keeps_its_last_lines_when_short_of_room() -> None:
    """The end of a test run says how it went; its first line alone (the command) does not."""
    from charter.session.recovery import _Budget

    lines = ["$ npm test --prefix web", *[f"  ok {n} renders row {n}" for n in range(8)]]
    lines.append("Tests: 1 failed, 8 passed")
    budget = _Budget(40)
    budget.add_list("## Last test output (tail)", lines, more="lines", last=True)
    (text,) = budget.parts
    shown = text.splitlines()
    assert shown[0] == "## Last test output (tail)" and shown[-1] == "Tests: 1 failed, 8 passed"
    assert shown[1].startswith("(+") and shown[1].endswith(" earlier lines)")
    left = int(shown[1][2:].split()[0])
    assert left + len(shown) - 2 == len(lines)
    first = _Budget(40)
    first.add_list("## Plan", lines, more="lines")  # the default keeps the first ones
    assert first.parts[0].splitlines()[1] == lines[0]


def test_a_plan_step_whose_text_is_not_a_string_is_skipped(repo: Path, run_charter) -> None:
    """A TodoWrite step whose `content` was an object was written into PLAN.md as
    Python's repr of it (`{'x': 1}`), a TaskCreate subject the same. Such a step is
    skipped; a task keeps its id with no text."""
    todos = [
        {"content": {"x": 1}, "status": "pending"},
        {"content": ["a", "b"], "status": "pending"},
        {"content": "write the testbench", "status": "in_progress"},
        "not a step",
        None,
    ]
    _hook(
        run_charter,
        repo,
        "post-tool-use",
        tool_name="TodoWrite",
        tool_input={"todos": todos},
        tool_response={},
    )
    _hook(run_charter, repo, "pre-compact", trigger="manual")
    plan = next((repo / "docs" / "tracks").glob("*/PLAN.md")).read_text()
    assert "write the testbench" in plan
    assert "{'x'" not in plan and "['a'" not in plan
    session = Session(Project.load(repo))
    cap = session.capture("s")
    cap.tool(
        {
            "tool_name": "TaskCreate",
            "tool_input": {"subject": {"x": 1}},
            "tool_response": {"task": {"id": "1", "subject": ["y"]}},
        },
        failed=False,
    )
    from charter.session.recovery import recover

    assert [p["content"] for p in recover(session).plan] == [""]
    session.close()


def test_a_tool_argument_that_is_not_a_string_is_not_logged_as_its_repr(
    repo: Path, run_charter
) -> None:
    """An Edit whose `file_path` was an object was logged as `Edit {'p': 1}` and listed
    among the files edited; a Bash `command` given as a list as `Bash ['pytest']`. An
    argument that is not a string names nothing."""
    _hook(
        run_charter,
        repo,
        "post-tool-use",
        tool_name="Edit",
        tool_input={"file_path": {"p": 1}, "old_string": "a", "new_string": "b"},
        tool_response={},
    )
    _bash(run_charter, repo, ["pytest", "-q"], "1 passed")  # type: ignore[arg-type]
    logs = list((repo / "artifacts" / "sessions").glob("*/work_log.md"))
    text = "".join(log.read_text() for log in logs)
    assert "- Edit" in text and "- Bash" in text
    assert "{'p'" not in text and "['pytest'" not in text
    session = Session(Project.load(repo))
    from charter.session.recovery import recover

    assert not [path for path in recover(session).edited_files if "{" in path]
    session.close()


def test_a_prompt_that_is_not_a_string_is_not_stored_as_its_repr(repo: Path) -> None:
    """A UserPromptSubmit whose `prompt` was an object was journaled as Python's repr of
    it, a user instruction SessionStart `compact` could restore."""
    session = Session(Project.load(repo))
    cap = session.capture("s")
    cap.prompt({"prompt": {"x": ["never edit the bitstream"]}})
    cap.prompt({"prompt": ["keep DEPTH at 16"]})
    cap.prompt({"prompt": "  use the skid buffer  "})
    from charter.session.recovery import recover

    said = " ".join(str(i) for i in recover(session).user_instructions)
    assert "use the skid buffer" in said
    assert "{'x'" not in said and "['keep" not in said
    session.close()
