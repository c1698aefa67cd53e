"""The PLAN/SPEC evaluator and the seed's four gates, on real projects in tmp dirs."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from charter.config import Project
from charter.decisions import service as decisions_service
from charter.session import gates as gates_module
from charter.session.evaluator import evaluate
from charter.session.gates import run_gates
from charter.session.schema import PlanStep, render_plan
from charter.session.service import Session
from tests.conftest import write
from tests.decisions_support import decisions

LEXICAL = "[hooks]\nwarm_worker = false\n\n[drift]\nsemantic = false\n"
SPEC = """# Spec: feat

## Goal
Let users export their reports as CSV from the web app.

## Scope
- `src/export/`
- `tests/test_export.py`

## Acceptance criteria
- Exported CSV opens in a spreadsheet with one row per report.
- pytest tests/test_export.py passes.
"""
GOOD_PLAN = [
    PlanStep("P1", "Write the CSV writer in src/export/csv.py", "pending", "pytest -q"),
    PlanStep("P2", "Add tests for empty reports", "pending"),  # names a check
]


def make(tmp_path: Path, spec: str = SPEC, plan: list[PlanStep] | None = None) -> Session:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "charter.toml", LEXICAL)
    write(root, "docs/tracks/ACTIVE_TRACK", "feat\n")
    write(root, "docs/tracks/feat/SPEC.md", spec)
    write(root, "docs/tracks/feat/PLAN.md", render_plan("feat", plan or GOOD_PLAN))
    return Session(Project.load(root))


def rules(session: Session) -> list[tuple[str, int, str]]:
    result = evaluate(session, "feat")
    assert result.passed == (not result.findings)
    return [(Path(f.file).name, f.line, f.rule) for f in result.findings]


def test_a_complete_plan_passes(tmp_path: Path) -> None:
    session = make(tmp_path)
    result = evaluate(session, "feat")
    assert result.passed, result.findings
    assert result.steps == 2 and result.scope == ["src/export/", "tests/test_export.py"]
    assert result.to_dict()["passed"] is True


def test_unverifiable_steps_and_open_markers_are_found_with_lines(tmp_path: Path) -> None:
    plan = [
        PlanStep("P1", "Write the writer", "pending", "pytest -q"),
        PlanStep("P2", "Refactor the exporter module", "pending"),
        PlanStep("P3", "Pick the delimiter TBD", "pending", "pytest -q"),
        PlanStep("P4", "Drop the old path", "cancelled"),
    ]
    session = make(tmp_path, SPEC.replace("one row per report", "??? rows"), plan)
    found = rules(session)
    plan_text = session.track_path("feat", "PLAN.md").read_text().splitlines()
    p2 = next(i for i, line in enumerate(plan_text, 1) if "P2:" in line)
    p3 = next(i for i, line in enumerate(plan_text, 1) if "P3:" in line)
    assert ("SPEC.md", 11, "open-marker") in found
    assert ("PLAN.md", p2, "step-unverifiable") in found
    assert ("PLAN.md", p3, "open-marker") in found
    assert not any(rule == "step-unverifiable" and line != p2 for _, line, rule in found)


def test_spec_sections_and_missing_files(tmp_path: Path) -> None:
    session = make(tmp_path, "# Spec\n\n## Goal\nShip it.\n")
    found = {rule for _, _, rule in rules(session)}
    assert {"spec-scope", "spec-acceptance"} <= found
    session.track_path("feat", "PLAN.md").unlink()
    assert "plan-missing" in {rule for _, _, rule in rules(session)}


def test_schema_violation_reports_file_and_line(tmp_path: Path) -> None:
    session = make(tmp_path)
    path = session.track_path("feat", "PLAN.md")
    path.write_text(path.read_text() + "- [?] P9: odd mark\n")
    lines = path.read_text().splitlines()
    [(name, line, rule)] = rules(session)
    assert (name, rule) == ("PLAN.md", "plan-schema") and lines[line - 1].startswith("- [?]")


def test_drift_against_bound_decisions_fails_the_plan(tmp_path: Path) -> None:
    session = make(tmp_path)
    decisions_service.record(session.project, decisions(), "merge")
    assert evaluate(session, "feat").passed  # nothing in the plan contradicts them
    plan = [*GOOD_PLAN, PlanStep("P3", "Store the exports in MongoDB", "pending", "pytest -q")]
    session.track_path("feat", "PLAN.md").write_text(render_plan("feat", plan))
    drift = [f for f in evaluate(session, "feat").findings if f.rule == "drift"]
    assert drift and drift[0].file.endswith("PLAN.md") and "MongoDB" in drift[0].message
    lines = session.track_path("feat", "PLAN.md").read_text().splitlines()
    assert "MongoDB" in lines[drift[0].line - 1]


# -- gates ----------------------------------------------------------------------------------


def _snapshot(root: Path) -> dict[str, str]:
    """Every file's hash (SQLite's shared-memory index changes on any read: not content)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git/" not in p.as_posix() and not p.name.endswith("-shm")
    }


def _with_history(session: Session) -> Session:
    session.record_decision("Exports are CSV only", reason="users asked", session="s1")
    session.record_risk("Large reports may time out", severity="high", session="s1")
    session.update_plan(
        [
            {
                "id": "P1",
                "content": "Write the CSV writer",
                "status": "completed",
                "verification": "pytest -q",
            },
            {"id": "P2", "content": "Add tests for empty reports", "status": "in_progress"},
        ],
        session="s1",
    )
    return session


def test_all_four_gates_pass_without_changing_the_project(tmp_path: Path) -> None:
    session = _with_history(make(tmp_path))
    before = _snapshot(session.root)
    result = run_gates(session)
    assert [g.name for g in result] == [
        "compaction determinism",
        "recovery replay",
        "guardrail enforcement",
        "evaluator",
    ]
    assert all(g.passed for g in result), [g.to_dict() for g in result]
    assert _snapshot(session.root) == before


def test_evaluator_and_guardrail_gates_fail(tmp_path: Path) -> None:
    session = _with_history(make(tmp_path))
    session.track_path("feat", "PLAN.md").write_text(
        render_plan("feat", [PlanStep("P1", "Refactor the module", "pending")])
    )
    write(session.root, "charter.toml", LEXICAL + "\n[session.guardrails]\nenabled = false\n")
    session = Session(Project.load(session.root))
    result = {g.name: g for g in run_gates(session)}
    assert not result["evaluator"].passed and "P1" in result["evaluator"].detail
    assert not result["guardrail enforcement"].passed
    assert "not denied" in result["guardrail enforcement"].detail


def test_determinism_and_recovery_gates_fail_when_outputs_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _with_history(make(tmp_path))
    from charter.session import compaction, recovery

    real_compact = compaction.compact
    runs = iter(range(100))

    def unstable(s: Session, *args: object, **kwargs: object) -> compaction.CompactResult:
        out = real_compact(s, *args, **kwargs)  # type: ignore[arg-type]
        stamp = s.track_path("feat", "RISKS.md")
        stamp.write_text(stamp.read_text() + f"<!-- run {next(runs)} -->\n")
        return out

    monkeypatch.setattr(compaction, "compact", unstable)
    real_recover = recovery.recover

    def lossy(s: Session, *args: object, **kwargs: object) -> recovery.Recovered:
        out = real_recover(s, *args, **kwargs)  # type: ignore[arg-type]
        out.plan = out.plan[:-1]
        return out

    monkeypatch.setattr(recovery, "recover", lossy)
    result = {g.name: g for g in gates_module.run_gates(session)}
    assert not result["compaction determinism"].passed
    assert "RISKS.md" in result["compaction determinism"].detail
    assert not result["recovery replay"].passed
    assert "differs from PLAN.md" in result["recovery replay"].detail
    assert json.dumps([g.to_dict() for g in result.values()])


def test_the_evaluate_command_lists_every_finding(tmp_path: Path, run_charter) -> None:
    """A person fixing the plan sees every finding with its file:line, not only the
    first one and a count."""
    plan = [
        PlanStep("P1", "Write the CSV writer TODO", "pending"),
        PlanStep("P2", "Wire the button", "pending"),
    ]
    session = make(tmp_path, spec=SPEC.replace("## Goal", "## Aim"), plan=plan)
    session.close()
    root = session.root
    again = Session(Project.load(root))
    expected = [str(f) for f in evaluate(again, "feat").findings]
    again.close()
    assert len(expected) >= 3
    proc = run_charter("session", "evaluate", cwd=root, env={"COLUMNS": "300"})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    for finding in expected:
        assert finding in lines
    assert "more findings" not in proc.stdout


def test_evaluate_names_a_track_that_does_not_exist(tmp_path: Path, run_charter) -> None:
    """`--track feet` (for feat) printed 'SPEC.md does not exist' findings and exit 1, as
    if the plan had failed; `track show feet` already said 'no track'. Now it is one
    usage-error line naming the tracks there are, exit 2."""
    session = make(tmp_path, spec=SPEC, plan=[PlanStep("P1", "Wire the button", "pending")])
    session.close()
    proc = run_charter("session", "evaluate", "--track", "feet", cwd=session.root)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    assert proc.stderr.strip() == "charter: error: no track feet (tracks: feat)"
    assert not (session.root / "docs/tracks/feet").exists()


def test_a_plan_saved_during_the_evaluation_is_not_cached_under_the_old_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict cache keys on the files' bytes before the evaluation reads them again:
    a PLAN.md rewritten in between must leave no verdict under the first key, or the new
    plan's verdict is served when the old bytes come back."""
    from charter.session import evaluator as evaluator_module
    from charter.session import guardrails

    session = make(tmp_path)
    project = session.project
    plan = project.root / "docs/tracks/feat/PLAN.md"
    old_bytes = plan.read_bytes()
    guardrails._VERDICTS.clear()
    real = evaluator_module.evaluate

    def rewritten_meanwhile(sess: Session, track: str) -> evaluator_module.Evaluation:
        failing = [PlanStep("P1", "Pick the delimiter TBD", "pending", "pytest -q")]
        plan.write_text(render_plan("feat", failing), encoding="utf-8")
        return real(sess, track)

    monkeypatch.setattr(evaluator_module, "evaluate", rewritten_meanwhile)
    first = guardrails.evaluation_verdict(project, "feat")
    monkeypatch.setattr(evaluator_module, "evaluate", real)
    assert first[0] is False  # the plan it read is the rewritten, failing one
    plan.write_bytes(old_bytes)  # the old plan comes back
    guardrails._VERDICTS.clear()
    again = guardrails.evaluation_verdict(project, "feat")
    assert again[0] is True, again  # evaluated afresh, not the cached failing verdict
