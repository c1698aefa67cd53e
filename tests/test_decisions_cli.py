"""The decisions CLI end to end in a subprocess: add, answer, list, renegotiate, render."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.decisions_support import decisions, write_inputs

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def merged(repo: Path, run_charter: Run) -> Path:
    q, a = write_inputs(repo)
    res = run_charter("decisions", "merge", "--questions", str(q), "--answers", str(a), cwd=repo)
    assert res.returncode == 0, res.stderr
    return repo


def test_list_json_and_binding_filter(merged: Path, run_charter: Run) -> None:
    res = run_charter("decisions", "list", "--json", cwd=merged)
    assert json.loads(res.stdout) == decisions().to_canonical()
    res = run_charter("decisions", "list", "--json", "--binding", cwd=merged)
    ids = [e["id"] for e in json.loads(res.stdout)["pgc_clarifications"]]
    assert ids == ["TARGET_PLATFORM", "DATABASE", "OFFLINE_MODE", "AUDIT_LOG"]


def test_invariants_statements(merged: Path, run_charter: Run) -> None:
    res = run_charter("decisions", "invariants", "--json", cwd=merged)
    items = {i["id"]: i for i in json.loads(res.stdout)["invariants"]}
    assert items["TARGET_PLATFORM"]["statement"] == (
        "Target platform: Web browser only. Excluded: Native mobile application."
    )
    assert items["OFFLINE_MODE"]["kind"] == "exclusion"
    assert "THEME" not in items and "BILLING" not in items


def test_add_and_answer(merged: Path, run_charter: Run) -> None:
    res = run_charter(
        "decisions",
        "add",
        "--id",
        "REGION",
        "--text",
        "Which hosting region?",
        "--choice",
        "eu=EU (Frankfurt)",
        "--choice",
        "us=US East",
        "--json",
        cwd=merged,
    )
    assert res.returncode == 0, res.stderr
    added = json.loads(res.stdout)
    assert added["binding"] is False and added["binding_reason"] == "unresolved"
    res = run_charter("decisions", "answer", "REGION", "eu", "--json", cwd=merged)
    answered = json.loads(res.stdout)
    assert answered["user_answer_label"] == "EU (Frankfurt)" and answered["binding"] is True
    res = run_charter("decisions", "answer", "REGION", "us", cwd=merged)
    assert res.returncode == 2 and "renegotiate REGION" in res.stderr
    res = run_charter("decisions", "add", "--id", "REGION", "--text", "again", cwd=merged)
    assert res.returncode == 2 and "already exists" in res.stderr


def test_renegotiate_requires_explicit_answer_reason_and_confirmation(
    merged: Path, run_charter: Run
) -> None:
    base = ["decisions", "renegotiate", "DATABASE"]
    res = run_charter(*base, cwd=merged, stdin="")
    assert res.returncode == 2 and "--answer" in res.stderr
    assert '"id": "DATABASE"' in res.stdout  # shown verbatim before anything else
    res = run_charter(*base, "--answer", "mongodb", cwd=merged, stdin="")
    assert res.returncode == 2 and "--reason" in res.stderr
    res = run_charter(*base, "--answer", "mongodb", "--reason", "scale", cwd=merged, stdin="")
    assert res.returncode == 2 and "--yes" in res.stderr
    res = run_charter(
        *base, "--answer", "mongodb", "--reason", "scale", "--yes", "--json", cwd=merged
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["old"]["user_answer"] == "postgres" and out["new"]["user_answer"] == "mongodb"
    assert out["history"]["reason"] == "scale"
    hist = json.loads(run_charter("decisions", "history", "--json", cwd=merged).stdout)
    assert [h["op"] for h in hist["history"]] == ["merge", "renegotiate"]


def test_render_injects_canonical_json_verbatim(merged: Path, run_charter: Run) -> None:
    tpl = merged / "prompt.md"
    tpl.write_text("Decisions:\n$$PGC_CLARIFICATIONS\nRules:\n$$PGC_INVARIANTS\nEnd $$\n")
    res = run_charter("render", str(tpl), cwd=merged)
    assert res.returncode == 0, res.stderr
    stored = (merged / ".charter/decisions/pgc_clarifications.json").read_text()
    assert stored.rstrip("\n") in res.stdout
    assert "- [DATABASE] Database: PostgreSQL only. Excluded: MongoDB." in res.stdout
    assert res.stdout.endswith("End $$\n") and "$$PGC" not in res.stdout


def test_render_refuses_a_template_that_would_explode(merged: Path, run_charter: Run) -> None:
    """Each token expands to the whole decisions file: 24,000 of them (480 KB, under the
    MCP tool's 500,000-character cap) made 24 MB here, and gigabytes with a larger file."""
    tpl = merged / "bomb.md"
    tpl.write_text("$$PGC_CLARIFICATIONS" * 24_000)
    res = run_charter("render", str(tpl), cwd=merged)
    assert res.returncode == 2 and res.stdout == ""
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("charter: error:") and "too large" in line


def test_bad_input_is_one_line(repo: Path, run_charter: Run) -> None:
    (repo / "q.json").write_text("{not json")
    res = run_charter(
        "decisions", "merge", "--questions", "q.json", "--answers", "q.json", cwd=repo
    )
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "q.json" in res.stderr
    res = run_charter("decisions", "import", "missing.yaml", cwd=repo)
    assert res.returncode == 2 and "not found" in res.stderr
    assert not (repo / ".charter/decisions/pgc_clarifications.json").exists()


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Is a hosted / SaaS version in scope?", "a hosted / SaaS version"),
        ("Will the product include a marketplace?", "a marketplace"),
        ("Is a mobile app in scope for v1?", "a mobile app"),
        ("Does the app need offline mode?", "offline mode"),
    ],
)
def test_exclusion_subject_of_a_question(question: str, subject: str) -> None:
    from charter.decisions.invariants import subject_of

    assert subject_of(question) == subject


@pytest.mark.parametrize(
    ("cid", "question", "topic"),
    [
        ("CI_RUNNERS", "Which runners do the CI jobs use?", "CI runners"),
        ("MCP_TRANSPORT", "Which transport does the MCP server use?", "MCP transport"),
        ("ADR-0004-mapping-dsl", "Use a DSL for mappings", "Mapping DSL"),
        ("TARGET_PLATFORM", "What platform should the app target?", "Target platform"),
    ],
)
def test_topic_keeps_an_acronym_the_question_capitalises(
    cid: str, question: str, topic: str
) -> None:
    from charter.decisions.invariants import topic_of
    from charter.decisions.models import parse_clarifications

    entry = {"id": cid, "text": question, "priority": "must", "answer_type": "free_text"}
    (parsed,) = parse_clarifications({"pgc_clarifications": [entry]}, "test").pgc_clarifications
    assert topic_of(parsed) == topic


def test_importing_an_adr_is_refused_and_an_mdx_form_is_read(repo: Path, run_charter: Run) -> None:
    """An ADR (MADR prose) is not an intake form: importing it used to store an unanswered
    question named after its title, which no command can remove. It is refused with one
    line and nothing is written; a form saved as .mdx is read as Markdown, not YAML."""
    adr = repo / "docs" / "adrs" / "0004-message-broker.md"
    adr.parent.mkdir(parents=True)
    adr.write_text(
        "# 0004 - Message broker\n\n* Status: Accepted\n* Date: 2026-01-16\n\n"
        "## Considered Options\n\n1. RabbitMQ\n2. Kafka\n\n## Decision Outcome\n\n"
        'Chosen option: 1, "RabbitMQ", because operations already run it.\n',
        encoding="utf-8",
    )
    res = run_charter("decisions", "import", str(adr), cwd=repo)
    assert res.returncode == 2
    assert "not a Markdown intake form" in res.stderr and len(res.stderr.splitlines()) == 1
    assert not (repo / ".charter" / "decisions" / "pgc_clarifications.json").exists()

    form = repo / "decisions.mdx"
    form.write_text(
        "---\ntitle: Decisions\n---\n\n## BROKER: Which message broker carries events? (must)\n"
        "- [x] rabbitmq: RabbitMQ\n- [ ] kafka: Kafka\n",
        encoding="utf-8",
    )
    res = run_charter("decisions", "import", str(form), "--json", cwd=repo)
    assert res.returncode == 0, res.stderr
    res = run_charter("decisions", "list", "--json", "--binding", cwd=repo)
    (entry,) = json.loads(res.stdout)["pgc_clarifications"]
    assert (entry["id"], entry["user_answer_label"]) == ("BROKER", "RabbitMQ")


def test_doctor_reports_the_decisions(repo: Path, run_charter: Run) -> None:
    """`charter doctor` says whether decisions are recorded, bound and verified, and what
    to do when they were edited outside Charter (before, it had no line about them)."""

    def doctor() -> tuple[int, dict]:
        res = run_charter("doctor", "--check", "decisions", "--json", cwd=repo)
        (row,) = json.loads(res.stdout)["checks"]
        return res.returncode, row

    code, row = doctor()
    assert row["status"] == "info" and "decisions import" in row["fix"]
    form = repo / "intake.md"
    form.write_text(
        "## BROKER: Which message broker carries events? (must)\n"
        "- [x] rabbitmq: RabbitMQ\n- [ ] kafka: Kafka\n\n"
        "## REGION: Which region hosts the data? (must)\n- [ ] eu: EU\n- [ ] us: US\n",
        encoding="utf-8",
    )
    assert run_charter("decisions", "import", str(form), cwd=repo).returncode == 0
    code, row = doctor()
    assert (code, row["status"]) == (0, "info")
    assert row["detail"]["bound"] == ["BROKER"] and row["detail"]["unanswered"] == ["REGION"]
    assert "decisions answer" in row["fix"]
    store = repo / ".charter" / "decisions" / "pgc_clarifications.json"
    store.write_text(store.read_text().replace("RabbitMQ", "Kafka"), encoding="utf-8")
    code, row = doctor()
    assert (code, row["status"]) == (1, "fail") and "decisions restore" in row["fix"]


def test_importing_a_folder_of_adrs_without_adr_says_how(repo: Path, run_charter: Run) -> None:
    """`charter decisions import docs/adr` said only "decisions input is a directory, not
    a file": the user had to find `--adr` in the help (users' pass sixty-one)."""
    (repo / "docs" / "adr").mkdir(parents=True)
    res = run_charter("decisions", "import", "docs/adr", cwd=repo)
    assert res.returncode == 2
    assert "charter decisions import --adr docs/adr" in res.stderr
    assert len(res.stderr.splitlines()) == 1


def test_a_confidence_just_under_the_block_threshold_is_not_shown_as_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ "confidence 0.80 (under drift.block_confidence 0.8 …)" contradicted itself: a
    confidence under the threshold is cut to two places, not rounded up to it."""
    from charter.cli.decisions_cmds import print_findings
    from charter.decisions.drift.result import DriftResult, Finding

    text = "We will rewrite the save step in TypeScript.\n"
    found = Finding(
        rule="QA-PGC-001",
        constraint_id="JS_DIALECT",
        evidence=text.strip(),
        start=0,
        end=len(text) - 1,
        severity="error",
        message="contradicted",
        repair="Rewrite this.",
        confidence=0.7996,
    )
    print_findings(DriftResult([found]), text, "plan.md", 0.8)
    out = " ".join(capsys.readouterr().out.split())
    assert "confidence 0.79 (under drift.block_confidence 0.8" in out
    sure = Finding(**{**found.__dict__, "confidence": 0.8349})
    print_findings(DriftResult([sure]), text, "plan.md", 0.8)
    out = " ".join(capsys.readouterr().out.split())
    assert "confidence 0.83" in out and "under" not in out
