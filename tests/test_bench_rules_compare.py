"""``bench/rules_compare.py`` judges a retrieval change on two fixed halves of the files:
run on two real ``charter eval rules`` reports, its figures must be the reports' own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from charter.config import Settings
from charter.eval.rules_bench import evaluate_rules
from tests.bench_support import run_bench

FILES = {
    "alpha/CLAUDE.md": "# Rules\n\n## Tests\n\n- Run pytest before you push.\n"
    "- Mock the network in unit tests.\n\n## Style\n\n- Format with ruff.\n"
    "- Keep functions short.\n",
    "beta/AGENTS.md": "# Agents\n\n## Database\n\n- Every migration is reversible.\n"
    "- Never edit a migration that has shipped.\n\n## Release\n\n- Tag releases vX.Y.Z.\n"
    "- Write the changelog entry first.\n",
}
TASKS = [
    ("alpha/CLAUDE.md", "Add a unit test for the HTTP client", 6),
    ("alpha/CLAUDE.md", "Tidy the formatting of utils.py", 9),
    ("beta/AGENTS.md", "Add a column to the users table", 5),
    ("beta/AGENTS.md", "Cut the 2.1 release", 10),
]


def _report(tmp: Path, name: str, settings: Settings) -> Path:
    data = tmp / "data"
    for rel, text in FILES.items():
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / rel).write_text(text, encoding="utf-8")
    lines = [
        json.dumps({"id": f"t{i}", "file": f, "task": t, "relevant": [{"line": ln, "text": ""}]})
        for i, (f, t, ln) in enumerate(TASKS)
    ]
    (data / "tasks.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp / f"{name}.json"
    out.write_text(json.dumps(evaluate_rules(data, settings)), encoding="utf-8")
    return out


def test_halves_and_moved_tasks_are_the_reports_own(tmp_path: Path) -> None:
    before = _report(tmp_path, "before", Settings())
    narrow = Settings()
    narrow.rules.selection = "top_n"
    narrow.rules.top_n = 1
    after = _report(tmp_path, "after", narrow)
    result = json.loads(run_bench("rules_compare.py", str(before), str(after), "--json"))
    a, b = (json.loads(p.read_text()) for p in (before, after))
    fa = {r["file"]: r["recall"] for r in a["per_file"]}
    fb = {r["file"]: r["recall"] for r in b["per_file"]}
    for half in result["halves"]:
        files = [f for f in fa if int(hashlib.sha1(f.encode()).hexdigest(), 16) % 2 == half["half"]]
        assert half["files"] == len(files)
        if files:
            assert half["recall_before"] == round(sum(fa[f] for f in files) / len(files), 4)
            assert half["recall_after"] == round(sum(fb[f] for f in files) / len(files), 4)
    ta = {t["id"]: t["recall"] for t in a["tasks"]}
    tb = {t["id"]: t["recall"] for t in b["tasks"]}
    assert result["tasks_changed"] == sum(ta[k] != tb[k] for k in ta)
    assert result["tasks_up"] == sum(tb[k] > ta[k] for k in ta)
    assert result["overall_before"] == a["overall"]["recall"]
    # the narrower selection must move something, or the comparison was not exercised
    assert result["tasks_changed"] >= 1
