"""Files a rule forbids the agent to edit: read from the rule's words, matched against
what a file tool writes, denied by the PreToolUse guardrails with the rule cited."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.rules.api import compile_project
from charter.rules.edits import ForbiddenEdit, edits_in, parse_path
from charter.rules.model import Rule, Source
from tests.conftest import compiled_repo, guard, guard_decision, guard_subprocess, write


def _rule(text: str, path: str = "AGENTS.md") -> Rule:
    return Rule(id="r-1", text=text, source=Source(path, 3, 3, ""))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("`dist/` is generated output. Do not edit `dist/` directly.", ["dist/"]),
        ("Never edit `db/schema.rb` by hand.", ["db/schema.rb"]),
        ("Never hand-edit anything under `vendor/` or `third_party/`.",
         ["vendor/", "third_party/"]),
        ("Do not edit files under `src/gen/`; they are rewritten by `make gen`.", ["src/gen/"]),
        ("`package-lock.json` must not be edited manually.", ["package-lock.json"]),
        ("Don't edit `CHANGELOG.md` — it is assembled at release time.", ["CHANGELOG.md"]),
        ("ALWAYS edit `src/index.ts` - NEVER edit `/lib/index.js`", ["/lib/index.js"]),
        # the sentence opens with the paths, then forbids editing them without naming them
        ("`*/mocks/mocks.go` — regenerate with `make mocks`, never edit manually",
         ["*/mocks/mocks.go"]),
        ("`gen/` or `out/` - generated, never modify them by hand.", ["gen/", "out/"]),
        ("`dist/`: build output, do not edit.", ["dist/"]),
        # an adverb of manner between the negation and the verb (lichess-org/mobile)
        ("**CRITICAL**: Never manually edit `lib/l10n/app_*.arb` files - they are "
         "generated.", ["lib/l10n/app_*.arb"]),
        ("Do not directly modify `dist/`.", ["dist/"]),
        ("Never manually edit `src/` to make tests pass.", []),
        # a colon after the verb introduces what it forbids: a "Do not edit" heading or
        # lead-in over a list, each item shown with it
        ("Do Not Edit: `*.pb.go`", ["*.pb.go"]),
        ("**Never modify**: `vendor/`, `third_party/`", ["vendor/", "third_party/"]),
        ("Never edit generated files: `dist/` is built by CI.", []),
        # the act's object names the kind of what the list after the colon holds (a
        # Tauri app's "Never edit generated files: `**/tauri.ts`, …" forbade nothing)
        ("Never edit generated files: `**/tauri.ts`, `src-tauri/gen/**`, migration SQL "
         "under `db/migrations/`. These are regenerated.", ["**/tauri.ts", "src-tauri/gen/**"]),
        ("Do not modify the auto-generated protobuf files: `*.pb.go`, `gen/`",
         ["*.pb.go", "gen/"]),
        ("Never edit files unless asked: `a.ts`", []),
        ("Notes: `dist/` is generated.", []),
        ("`src/` — do not edit without approval", []),
        ("`docs/` — edit freely, never delete", []),
        # leave to edit part of it, anywhere in the rule: the guardrail cannot tell which
        ("Do not edit: `api/rest/` — endpoint pages are generated; the `index.mdx` files "
         "are hand-authored and may be edited", []),
        # someone else, a purpose, a condition, no verb of editing, not a path
        ("Normal users never edit `.env`; the UI writes it.", []),
        ("Release PRs must not modify `CHANGELOG.md`.", []),
        ("Never edit `src/` to make tests pass.", []),
        ("Do not edit `.github/` unless the user asks.", []),
        ("Avoid the `.package` argument to `mock()`.", []),
        ("Never edit `https://example.com/a.json`.", []),
        ("Never edit `utils`.", []),
    ],
)  # fmt: skip
def test_only_a_plain_prohibition_of_editing_a_path_is_read(
    text: str, forbidden: list[str]
) -> None:
    assert [e.path for e in edits_in(_rule(text))] == forbidden


def test_paths_are_read_from_the_project_root_or_the_rules_folder() -> None:
    assert parse_path("./dist/") == "dist/"
    assert parse_path("/lib/index.js") == "lib/index.js"
    assert parse_path("**") is None and parse_path("../x.md") is None
    (nested,) = edits_in(_rule("Never edit `src/generated/` by hand.", "web/AGENTS.md"))
    assert nested.base == "web"
    assert nested.matches("web/src/generated/api.ts")
    assert nested.matches("src/generated/api.ts")
    assert not nested.matches("web/src/app.ts")


def test_folders_files_and_globs_match() -> None:
    def edit(pattern: str) -> ForbiddenEdit:
        return ForbiddenEdit("r", "A.md:L1-L1", "rule", pattern, pattern, "")

    assert edit("dist/").matches("dist/app.js") and not edit("dist/").matches("distx/a")
    assert edit("db/schema.rb").matches("db/schema.rb")
    assert not edit("db/schema.rb").matches("db/schema.rb.bak")
    assert edit("out").matches("out/x.txt") and edit("out").matches("out")
    assert edit("*/api/*.cs").matches("src/api/Hosting.cs")
    assert edit("src/**").matches("src/a/b.py") and not edit("src/**").matches("srcx/a")
    assert edit("**/*.pb.go").matches("a/b/c.pb.go") and edit("**/*.pb.go").matches("c.pb.go")
    # an inner "/**/" stands for no folder too
    assert edit("**/migrations/**/*.sql").matches("db/migrations/V1__init.sql")
    assert not edit("**/migrations/**/*.sql").matches("db/other/V1__init.sql")


RULES = """# Working here

- `dist/` is generated output. Do not edit `dist/` directly; run `make build`.
- Never edit `db/schema.rb` by hand.
- `*/mocks/mocks.go` — regenerate with `make mocks`, never edit manually
"""


def _project(tmp_path: Path, config: str = "") -> Path:
    web = "# Web\n\n- Never edit `src/generated/` by hand.\n"
    return compiled_repo(tmp_path, {"CLAUDE.md": RULES, "web/AGENTS.md": web}, config)


_call = guard
_decision = guard_decision


def test_the_guardrail_denies_hand_edits_citing_the_rule(tmp_path: Path) -> None:
    root = _project(tmp_path)
    out = _call(root, "Write", {"file_path": str(root / "dist/app.js"), "content": "x"})
    assert _decision(out) == "deny"
    assert out is not None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert "`dist/app.js`" in reason and "CLAUDE.md:L3-L3" in reason
    assert "ask the user" in reason
    edit = {"file_path": "db/schema.rb", "old_string": "a", "new_string": "b"}
    assert _decision(_call(root, "Edit", edit)) == "deny"
    generated = {"file_path": str(root / "web/src/generated/api.ts"), "content": "x"}
    assert _decision(_call(root, "Write", generated)) == "deny"
    patch = "*** Begin Patch\n*** Update File: dist/app.js\n@@\n-a\n+b\n*** End Patch\n"
    assert _decision(_call(root, "apply_patch", {"command": patch})) == "deny"
    # the build that owns the output still writes it; other files are the agent's
    assert _decision(_call(root, "Bash", {"command": "make build > dist/app.js"})) == "allow"
    ok = {"file_path": str(root / "web/src/app.ts"), "content": "x"}
    assert _decision(_call(root, "Write", ok)) == "allow"
    mocks = {"file_path": str(root / "internal/store/mocks/mocks.go"), "content": "x"}
    assert _decision(_call(root, "Write", mocks)) == "deny"
    assert _decision(_call(root, "Read", {"file_path": str(root / "dist/app.js")})) == "allow"


def test_ask_off_and_protected_paths(tmp_path: Path) -> None:
    root = _project(tmp_path, "[session.guardrails]\nrule_edits = 'ask'\n")
    target = {"file_path": str(root / "dist/app.js"), "content": "x"}
    assert _decision(_call(root, "Write", target)) == "ask"
    write(root, "charter.toml", "[session.guardrails]\nrule_edits = 'off'\n")
    assert _decision(_call(root, "Write", target)) == "allow"
    write(root, "charter.toml", "")
    out = _call(root, "Write", {"file_path": str(root / ".git/config"), "content": "x"})
    assert out is not None and ".git" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_hook_subprocess_and_compile_report(tmp_path: Path, run_charter: Any) -> None:
    root = _project(tmp_path)
    edit = {"file_path": "dist/index.html", "old_string": "a", "new_string": "b"}
    assert guard_subprocess(run_charter, root, "Edit", edit) == "deny"
    proc = run_charter("compile", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    listed = {(e["path"], e["rule"]) for e in json.loads(proc.stdout)["forbidden_edits"]}
    assert listed == {
        ("dist/", "CLAUDE.md:L3-L3"),
        ("db/schema.rb", "CLAUDE.md:L4-L4"),
        ("*/mocks/mocks.go", "CLAUDE.md:L5-L5"),
        ("src/generated/", "web/AGENTS.md:L3-L3"),
    }


def test_a_rule_outranks_the_write_scope_but_not_protected_paths(tmp_path: Path) -> None:
    """Outside an executing track's scope, the scope's hint (widen SPEC.md's scope) would
    only lead to the rule's denial: the rule is the reason given. Protected paths still
    come first."""
    from tests.test_session_guardrails import make_project

    root = make_project(tmp_path, "executing")
    write(root, "CLAUDE.md", RULES)
    compile_project(Project.load(root))
    out = _call(root, "Write", {"file_path": str(root / "dist/app.js"), "content": "x"})
    assert _decision(out) == "deny"
    assert out is not None
    assert "forbids editing `dist/app.js`" in out["hookSpecificOutput"]["permissionDecisionReason"]
    other = _call(root, "Write", {"file_path": str(root / "lib/x.py"), "content": "x"})
    assert other is not None
    assert "outside the write scope" in other["hookSpecificOutput"]["permissionDecisionReason"]


def test_prohibitions_survive_their_json_round_trip() -> None:
    """What the compile commits in rules.prohibited.json is what the hook reads back."""
    from charter.rules.commands import commands_in

    rule = _rule("Never run `rm -rf` or `git push --force`; never edit `dist/` by hand.")
    items = [*commands_in(rule), *edits_in(rule)]
    assert len(items) == 3
    for item in items:
        again = type(item).from_dict(json.loads(json.dumps(item.to_dict())))
        assert again == item and hash(again) == hash(item)


def test_an_item_that_gives_leave_to_edit_part_of_a_folder_forbids_none_of_it(
    tmp_path: Path,
) -> None:
    docs = (
        "# Docs\n\n## Auto-generated content — do not edit\n\n"
        "- `v3/examples/` — generated from the top-level `examples/` files\n"
        "- `v3/api/rest/` — endpoint pages are generated; the `index.mdx` files at "
        "`rest/` are hand-authored and may be edited\n"
    )
    root = compiled_repo(tmp_path, {"CLAUDE.md": "# P\n\n- Be brief.\n", "docs/AGENTS.md": docs})
    generated = {"file_path": str(root / "docs/v3/examples/etl.mdx"), "content": "x"}
    assert _decision(_call(root, "Write", generated)) == "deny"
    index = {"file_path": str(root / "docs/v3/api/rest/index.mdx"), "content": "x"}
    assert _decision(_call(root, "Write", index)) == "allow"


def test_a_heading_that_forbids_reads_with_the_paragraph_under_it(tmp_path: Path) -> None:
    # the heading is the prohibition and the paragraph only says why: alone the rule
    # read "They are generated from the API schema …" and forbade nothing
    write(
        tmp_path,
        "CLAUDE.md",
        "# Project\n\n## Don't edit files under `docs/`\n\n"
        "They are generated from the API schema by `make docs`; change the schema instead.\n"
        "\n## Never block a worker thread\n\n"
        "No `time.sleep()` in request handlers.\n\n## Style\n\nTabs are used for indentation.\n"
        "\n## Don't touch production\n\nNever run migrations against production.\n",
    )
    project = Project.load(tmp_path)
    compiled = compile_project(project)
    texts = {r.text: (r.source.line_start, r.source.line_end) for r in compiled.rules}
    shown = (
        "Don't edit files under `docs/`: They are generated from the API schema by "
        "`make docs`; change the schema instead."
    )
    assert texts[shown] == (3, 5)  # cited from the heading's line
    assert texts["Never block a worker thread: No `time.sleep()` in request handlers."] == (7, 9)
    # a neutral heading adds nothing; a paragraph that forbids by itself stays as it is
    assert texts["Tabs are used for indentation."] == (13, 13)
    assert texts["Never run migrations against production."] == (17, 17)
    edit = {"file_path": str(tmp_path / "docs/api.md"), "old_string": "a", "new_string": "b"}
    out = _call(tmp_path, "Edit", edit)
    assert _decision(out) == "deny"
    assert (
        out is not None
        and "CLAUDE.md:L3-L5" in out["hookSpecificOutput"]["permissionDecisionReason"]
    )
    ok = {"file_path": str(tmp_path / "src/app.py"), "content": "x"}
    assert _decision(_call(tmp_path, "Write", ok)) == "allow"
