"""Per-file (rules) and per-scenario (drift) tables of ``charter eval``: each row agrees
with the per-task rows it summarises, and the worst one is the row the tables call worst."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from tests.conftest import write

SERVICE = """# Service rules

## Errors

- Wrap every returned error with context about the operation that failed.
- Never discard an error value with the blank identifier.

## Database

- Every schema change ships as a reversible migration with an index review.
- Never run raw SQL built by string concatenation; use bound parameters.

## Logging

- Log with the structured logger; never print to stdout in request handlers.
"""

APP = """# App rules

## UI

- Every user-visible string goes through the translation helper.
- Buttons need an accessible label when they only show an icon.

## Releases

- Bump the build number before every store upload.

## Always

- Run the UI tests before every commit.
"""

QUIET = """# Quiet rules

- Keep functions short.
"""


def _gold(text: str, needle: str) -> dict[str, object]:
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return {"line": n, "text": line}
    raise AssertionError(needle)


def _bench(root: Path) -> Path:
    data = root / "bench"
    write(data, "svc/CLAUDE.md", SERVICE)
    write(data, "app/AGENTS.md", APP)
    write(data, "quiet/CLAUDE.md", QUIET)
    tasks = [
        ("svc-01", "svc/CLAUDE.md", "add a users.email column", [_gold(SERVICE, "migration")]),
        (
            "svc-02",
            "svc/CLAUDE.md",
            "the handler swallows the error from Save",
            [
                _gold(SERVICE, "Wrap every"),
                _gold(SERVICE, "blank identifier"),
            ],
        ),
        ("svc-03", "svc/CLAUDE.md", "rename a local variable", []),
        (
            "app-01",
            "app/AGENTS.md",
            "add a settings screen with a Save button",
            [
                _gold(APP, "translation helper"),
            ],
        ),
        (
            "app-02",
            "app/AGENTS.md",
            "ship version 2.1 to the stores",
            [
                _gold(APP, "build number"),
            ],
        ),
        ("quiet-01", "quiet/CLAUDE.md", "fix a typo in the README", []),
    ]
    write(
        data,
        "tasks.jsonl",
        "".join(
            json.dumps({"id": i, "file": f, "task": t, "relevant": g}) + "\n"
            for i, f, t, g in tasks
        ),
    )
    return data


def test_eval_rules_per_file_table_and_worst(repo: Path, run_charter) -> None:
    data = _bench(repo)
    proc = run_charter("eval", "rules", "--data", str(data), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = {r["file"]: r for r in out["per_file"]}
    assert set(rows) == {"svc/CLAUDE.md", "app/AGENTS.md", "quiet/CLAUDE.md"}
    for name, row in rows.items():
        prefix = name.split("/")[0] + "-"
        mine = [t for t in out["tasks"] if t["id"].startswith(prefix)]
        assert row["tasks"] == len(mine)
        scored = [t["recall"] for t in mine if t["recall"] is not None]
        expected = round(statistics.fmean(scored), 4) if scored else None
        assert row["recall"] == expected
        assert row["token_ratio"] == out["files"][name]["token_ratio"]
        if mine:  # the per-task cap is reported, not only the mean
            assert row["token_ratio_max"] == round(max(t["ratio"] for t in mine), 4)
    assert rows["quiet/CLAUDE.md"]["recall"] is None
    scored_rows = [r for r in out["per_file"] if r["recall"] is not None]
    lowest = min(r["recall"] for r in scored_rows)
    assert out["worst_file"] in {r["file"] for r in scored_rows if r["recall"] == lowest}

    human = run_charter("eval", "rules", "--data", str(data), cwd=repo)
    assert human.returncode == 0, human.stderr
    assert "(worst)" in human.stdout and "quiet/CLAUDE.md" in human.stdout


def test_eval_rules_reports_how_much_of_the_always_rules_the_core_holds(
    repo: Path, run_charter
) -> None:
    data = _bench(repo)
    # svc's always-rule sits under no always-loaded heading; app's "Always" section is
    # its constitution, and its release rule is an always-rule retrieved per task
    for rel, text, needles in (
        ("svc/always.json", SERVICE, ["structured logger"]),
        ("app/always.json", APP, ["UI tests before", "build number"]),
    ):
        gold = [_gold(text, n) for n in needles]
        write(data, rel, json.dumps({"file": rel.split("/")[0], "always": gold}))
    proc = run_charter("eval", "rules", "--data", str(data), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = {r["file"]: r for r in out["per_file"]}
    assert rows["svc/CLAUDE.md"]["always_coverage"] == 0.0
    assert rows["app/AGENTS.md"]["always_coverage"] == 0.5
    assert rows["quiet/CLAUDE.md"]["always_coverage"] is None  # no always.json
    assert out["overall"]["always_coverage"] == 0.25
    human = run_charter("eval", "rules", "--data", str(data), cwd=repo)
    assert human.returncode == 0, human.stderr
    assert "always" in human.stdout and "0.500" in human.stdout
    # what the moments hand over besides (the first source file, a commit): never less
    for name in ("svc/CLAUDE.md", "app/AGENTS.md"):
        assert rows[name]["moment_coverage"] >= rows[name]["always_coverage"], name
    # a file of every-line rules under no always heading: the core holds none of them,
    # the first source file brings them
    style = "# Style\n\n- Indent with tabs, never spaces.\n- Name variables in snake_case.\n"
    style += "\n## Invoices\n\n- Credit notes reference the invoice they correct.\n"
    write(data, "style/CLAUDE.md", style)
    gold = [_gold(style, "tabs"), _gold(style, "snake_case")]
    write(data, "style/always.json", json.dumps({"file": "style", "always": gold}))
    with (data / "tasks.jsonl").open("a") as tasks:
        task = {"id": "style-01", "file": "style/CLAUDE.md", "task": "add a credit note"}
        tasks.write(json.dumps(task | {"relevant": [_gold(style, "Credit")]}) + "\n")
    out = json.loads(run_charter("eval", "rules", "--data", str(data), "--json", cwd=repo).stdout)
    row = out["files"]["style/CLAUDE.md"]
    assert row["always_coverage"] == 0.0 and row["moment_coverage"] == 1.0
    assert 0 < row["moment_tokens"] <= 300
    # with the moments off they hand over nothing
    (repo / "charter.toml").write_text(
        "[rules]\ncode_rules_max_tokens = 0\nstep_rules_max_tokens = 0\n"
    )
    off = json.loads(run_charter("eval", "rules", "--data", str(data), "--json", cwd=repo).stdout)
    assert off["overall"]["moment_coverage"] == off["overall"]["always_coverage"]
    assert off["files"]["style/CLAUDE.md"]["moment_coverage"] == 0.0
    assert all(f["moment_tokens"] == 0 for f in off["files"].values())


def test_eval_drift_per_scenario_table_and_worst(run_charter, tmp_path: Path) -> None:
    data = Path(__file__).parent / "data" / "drift_extra"
    proc = run_charter("eval", "drift", "--data", str(data), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)
    rows = m["per_scenario"]
    cases = [json.loads(x) for x in (data / "cases.jsonl").read_text().splitlines() if x.strip()]
    scenarios = {c["scenario"] for c in cases}
    assert {r["scenario"] for r in rows} == scenarios
    for key in ("tp", "fp", "fn", "tn"):
        assert sum(r[key] for r in rows) == m[key]
    for r in rows:
        assert r["cases"] == sum(c["scenario"] == r["scenario"] for c in cases)
    f1s = [1.0 if r["f1"] is None else r["f1"] for r in rows]
    worst = next(r for r in rows if r["scenario"] == m["worst_scenario"])
    assert (1.0 if worst["f1"] is None else worst["f1"]) == min(f1s)

    human = run_charter("eval", "drift", "--data", str(data), cwd=tmp_path)
    assert human.returncode == 0, human.stderr
    assert f"worst: {m['worst_scenario']}" in human.stdout
