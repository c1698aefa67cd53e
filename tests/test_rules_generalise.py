"""Issue 13's retrieval changes on small real inputs: a list's lead-in as retrieval
context, bold-labelled directives, the constitution's share of a small file's budget, the
hard token cap, and the leave-one-file-out harness run as a real subprocess."""

from __future__ import annotations

import json
import re
from pathlib import Path

from charter.config import Project
from charter.embed.registry import rules_embedder_for
from charter.rules.annotate import is_directive
from charter.rules.blocks import split_blocks
from charter.rules.compiler import compile_rules
from charter.rules.retrieve import Retriever
from charter.tokens import count_tokens
from tests.bench_support import bench_process, run_bench
from tests.conftest import write

ROOT = Path(__file__).resolve().parent.parent

TOOLS = """# Agent

## Tools

When adding a new tool:

1. Create `<name>.go` with the implementation
2. Register the tool in `cmd/root.go`

- Keep handlers small.
"""


def test_a_lead_in_paragraph_is_context_for_its_list_not_part_of_the_items() -> None:
    blocks, _ = split_blocks(TOOLS)
    by_line = {b.line_start: b for b in blocks}
    lead, step = by_line[5], by_line[7]
    assert lead.text == "When adding a new tool:" and lead.line_end == 5
    assert step.kind == "step" and step.text.startswith("Create `<name>.go`")
    assert step.context == "When adding a new tool:"
    assert (step.line_start, step.line_end) == (7, 7)
    # a list that merely follows (after another block) does not inherit it
    assert by_line[10].context == ""


def test_lead_in_reaches_search_text_but_not_the_injected_text(repo: Path) -> None:
    write(repo, "CLAUDE.md", TOOLS)
    compiled = compile_rules(Project.load(repo), write=False)
    step = next(r for r in compiled.rules if r.source.line_start == 8)
    assert "When adding a new tool" in step.search_text
    assert "When adding" not in step.text
    assert step.source.cite() == "CLAUDE.md:L8-L8"


def test_a_bold_label_before_an_imperative_is_a_directive() -> None:
    assert is_directive("**Files**: Use `.tf` for Terraform, organize by `main.tf`")
    assert is_directive("- **Variables**: Define in `variables.tf` with descriptions")
    assert not is_directive("`observe` — Tracing, metrics, structured logging")
    assert not is_directive("**Organization** → tenant isolation boundary")


SMALL = """# Service

## Critical Constraints

- Never log secrets or tokens, even at debug level.
- No backwards compatibility shims or feature flags.
- All public APIs require doc comments with examples.
- Every error must carry context; never discard one.

## Storage

- Reads go through the repository layer, never the raw client.
- Wrap multi-key writes in one transaction.
- Use the builder for structs with more than three optional fields.
- Gate expensive tests behind the `test-full` feature.
- Add tracing spans around storage calls with the operation name.
- Keep migrations reversible and numbered.
"""


def test_small_file_constitution_leaves_room_and_budget_is_a_hard_cap(repo: Path) -> None:
    write(repo, "AGENTS.md", SMALL)
    # no floors: the shares alone decide, as they do for files past a few hundred tokens
    write(
        repo,
        "charter.toml",
        "[rules]\nbudget_fraction = 0.8\nconstitution_min_tokens = 0\n"
        "budget_min_shard_tokens = 0\n",
    )
    project = Project.load(repo)
    compiled = compile_rules(project, write=False)
    settings = project.settings.rules
    retriever = Retriever(compiled, settings, rules_embedder_for(project.settings))
    budget = retriever.default_budget()
    whole = count_tokens(SMALL)
    assert budget == int(whole * settings.budget_fraction)
    cap = max(settings.constitution_min_tokens, int(settings.constitution_budget_share * budget))
    assert 0 < retriever.constitution_tokens <= cap
    tasks = (
        "Add OpenTelemetry spans around storage reads",
        "Rename a config key but keep the old one working",
        "Write property tests for the parser",
        "Log the request when a write fails",
    )
    # many budgets, so some fill lands at the edge: headers ("Always:", "For this task:")
    # are part of what is injected and must fit too
    for fraction in [f / 100 for f in range(40, 100, 3)]:
        tight = Retriever(
            compiled, settings.model_copy(update={"budget_fraction": fraction}), retriever.embedder
        )
        budget = tight.default_budget()
        for task in tasks:
            result = tight.retrieve(task)
            assert result.tokens <= budget, (fraction, task, result.tokens, budget)
            header = ""
            for line in result.policy_text.splitlines():
                if line.startswith("In ") and line.endswith(":"):
                    header = line
                elif line.startswith("- "):  # every rule cited: its file's header, its lines
                    assert header and re.search(r"\(L\d+(-L\d+)?\)$", line), line


def _dataset(root: Path) -> Path:
    data = root / "data"
    write(data, "a/CLAUDE.md", TOOLS)
    write(data, "b/AGENTS.md", SMALL)
    rows = [
        {
            "id": "a-1",
            "file": "a/CLAUDE.md",
            "task": "Add a grep tool",
            "relevant": [{"line": 7, "text": "1. Create `<name>.go` with the implementation"}],
        },
        {
            "id": "b-1",
            "file": "b/AGENTS.md",
            "task": "Add tracing to storage reads",
            "relevant": [
                {
                    "line": 15,
                    "text": "- Add tracing spans around storage calls with the operation name.",
                }
            ],
        },
        {
            "id": "b-2",
            "file": "b/AGENTS.md",
            "task": "Write the user rows in one go",
            "relevant": [{"line": 12, "text": "- Wrap multi-key writes in one transaction."}],
        },
    ]
    (data / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return data


def test_leave_one_file_out_harness_reports_a_fold_per_file(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    stdout = run_bench(
        "rules_cv.py", "--data", str(data), "--grid", "rules.intent_boost=0.0,0.05", "--json"
    )
    report = json.loads(stdout)
    assert [f["file"] for f in report["folds"]] == ["data/a/CLAUDE.md", "data/b/AGENTS.md"]
    assert report["points"] == 2 and len(report["grid"]) == 2
    for fold in report["folds"]:
        assert 0.0 <= fold["held_out"] <= 1.0
        assert fold["chosen"] in ({"rules.intent_boost": 0.0}, {"rules.intent_boost": 0.05})
    # the held-out mean is the mean of the folds, not a figure chosen in-sample
    mean = sum(f["held_out"] for f in report["folds"]) / 2
    assert abs(report["held_out_mean"] - round(mean, 4)) < 1e-9


def test_harness_bad_input_is_one_error_line(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    for args in (
        ["--data", str(tmp_path / "missing")],
        ["--data", str(data), "--grid", "rules.no_such_key=1"],
        ["--data", str(data), "--grid", "rules.intent_boost=oops"],
    ):
        proc = bench_process("rules_cv.py", *args)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("rules_cv:")]
        assert proc.returncode == 1 and len(errors) == 1, proc.stderr
        assert "Traceback" not in proc.stderr
