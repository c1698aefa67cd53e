"""The rules CLI end to end: JSON contracts, batch mode, lint, bad input."""

from __future__ import annotations

import json
from pathlib import Path

from charter.rules.settings import RulesSettings
from tests.conftest import write

RULES = """# Rules

## Security

- Never commit secrets or `.env` files.

## Logging

- Always use f-strings in log calls.
- Never use f-strings in log calls.

## Database

- Every schema change needs a reversible Alembic migration.
"""

RULE_KEYS = {
    "id",
    "text",
    "source",
    "priority",
    "risk",
    "domains",
    "intents",
    "tool_classes",
    "scopes",
    "constitution",
}


def _column_text(table: str, column: int) -> str:
    """The words of one column of a Rich table, its wrapped lines joined."""
    cells = (
        cell.strip()
        for line in table.splitlines()
        if line.startswith("│")
        for cell in line.split("│")[column : column + 1]
    )
    return " ".join(" ".join(cells).split())


def test_context_json_contract_without_prior_compile(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    proc = run_charter("context", "add a column to the users table", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {
        "task",
        "intent",
        "constitution",
        "shards",
        "dropped",
        "policy_text",
        "tokens",
        "gated",
        "cut",
    }
    assert set(out["intent"]) == {"name", "confidence"}
    assert set(out["constitution"]) == {"hash", "rules", "truncated"}
    assert set(out["constitution"]["rules"][0]) == RULE_KEYS
    assert set(out["constitution"]["rules"][0]["source"]) == {
        "path",
        "line_start",
        "line_end",
        "section",
    }
    assert all(set(s) == {"rule", "score", "reasons"} for s in out["shards"])
    assert out["policy_text"].startswith("Always:\nIn CLAUDE.md:\n- ")
    assert isinstance(out["tokens"], int) and out["tokens"] > 0


def test_context_batch_echoes_ids(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    batch = write(
        repo,
        "tasks.jsonl",
        '{"id": "a", "task": "add a migration"}\n\n{"task": "rotate secrets", "files": ["x.py"]}\n',
    )
    proc = run_charter("context", "--batch", str(batch), "--json", "--top", "2", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line.get("id") for line in lines] == ["a", None]
    assert all(len(line["shards"]) <= 2 for line in lines)


def test_lint_reports_contradiction_with_location(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    proc = run_charter("lint", "--json", cwd=repo)
    assert proc.returncode == 1
    issues = json.loads(proc.stdout)["issues"]
    kinds = {i["kind"] for i in issues}
    assert "contradiction" in kinds
    contradiction = next(i for i in issues if i["kind"] == "contradiction")
    assert contradiction["location"] == "CLAUDE.md:9"


def test_forbidding_an_omission_does_not_contradict_the_obligation(repo: Path, run_charter) -> None:
    # "don't skip any of the three approaches" demands what "always show three
    # approaches" demands; a real prohibition of the same action is still reported
    write(
        repo,
        "CLAUDE.md",
        "# Docs\n\n## Configuration\n\n"
        "- Always show three configuration approaches in the README examples.\n"
        "- Don't skip any of the three configuration approaches in the README examples.\n"
        "- Never forget to document the connection string in the README examples.\n\n"
        "## Style\n\n- Always use tabs for indentation in YAML files.\n"
        "- Never use tabs for indentation in YAML files.\n",
    )
    proc = run_charter("lint", "--json", cwd=repo)
    issues = [i for i in json.loads(proc.stdout)["issues"] if i["kind"] == "contradiction"]
    assert [i["location"] for i in issues] == ["CLAUDE.md:11"]


def test_bad_inputs_give_one_line_errors(repo: Path, run_charter) -> None:
    binary = repo / "CLAUDE.md"
    binary.write_bytes(b"\x00\x01\x02binary\x00")
    proc = run_charter("compile", cwd=repo)
    assert proc.returncode != 0
    assert "binary" in proc.stderr and "Traceback" not in proc.stderr

    write(repo, "CLAUDE.md", "# Rules\n\n- Use pnpm.\n\nSee @docs/missing.md\n")
    proc = run_charter("compile", cwd=repo)
    assert proc.returncode != 0
    assert "CLAUDE.md:5" in proc.stderr and "missing.md" in proc.stderr

    write(repo, "CLAUDE.md", "# Rules\n\n- Use pnpm.\n")
    write(repo, ".cursor/rules/bad.mdc", "---\ndescription: [unclosed\n---\n- Rule text here.\n")
    proc = run_charter("compile", cwd=repo)
    assert proc.returncode != 0
    assert ".cursor/rules/bad.mdc" in proc.stderr and "front matter" in proc.stderr
    assert "Traceback" not in proc.stderr
    # the good file still compiled
    state = json.loads((repo / ".charter/rules.json").read_text())
    assert any("pnpm" in r["text"] for r in state["rules"])

    proc = run_charter("compile", "nope/missing.md", cwd=repo)
    assert proc.returncode != 0 and "not found" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1

    proc = run_charter("context", "--batch", str(write(repo, "b.jsonl", "{oops\n")), cwd=repo)
    assert proc.returncode != 0 and "b.jsonl:1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_init_writes_every_default(repo: Path, run_charter) -> None:
    proc = run_charter("init", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    text = (repo / "charter.toml").read_text()
    assert "max_constitution_lines = 60" in text
    assert f"intent_boost = {RulesSettings().intent_boost}" in text
    again = run_charter("init", cwd=repo)
    assert again.returncode != 0 and "exists" in again.stderr


def test_context_risk_and_tool_filters(repo: Path, run_charter) -> None:
    write(
        repo,
        "CLAUDE.md",
        "# Rules\n\n## Ops\n\n"
        "- Never run `rm -rf` outside the build directory (critical) [bash]\n"
        "- Prefer small, focused pull requests (low)\n"
        "- Keep edits minimal when fixing typos [edit]\n",
    )
    proc = run_charter("context", "clean up files", "--risk", "critical", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    shards = json.loads(proc.stdout)["shards"]
    assert shards and all(s["rule"]["risk"] == "critical" for s in shards)
    proc = run_charter("context", "clean up files", "--tool", "edit", "--json", cwd=repo)
    tools = [s["rule"]["tool_classes"] for s in json.loads(proc.stdout)["shards"]]
    assert ["bash"] not in tools and ["edit"] in tools
    bad = run_charter("context", "x", "--risk", "extreme", cwd=repo)
    assert bad.returncode != 0 and "--risk must be one of" in bad.stderr


def test_context_picks_up_a_rule_file_added_after_compile(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    assert run_charter("compile", cwd=repo).returncode == 0
    write(repo, ".github/copilot-instructions.md", "- Never hardcode hex colours in CSS.\n")
    proc = run_charter("context", "restyle the button colours", "--json", "--top", "20", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    paths = {s["rule"]["source"]["path"] for s in json.loads(proc.stdout)["shards"]}
    assert ".github/copilot-instructions.md" in paths


def test_recompile_after_edit_keeps_the_files_named_to_compile(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", RULES)
    named = write(repo, "docs/team-rules.md", "- Always pin dependency versions.\n")
    assert run_charter("compile", str(named), cwd=repo).returncode == 0
    write(repo, "docs/team-rules.md", "- Always pin dependency versions exactly.\n")
    proc = run_charter("context", "bump a dependency", "--json", "--top", "20", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    paths = {s["rule"]["source"]["path"] for s in json.loads(proc.stdout)["shards"]}
    assert paths == {"docs/team-rules.md"}


def test_compile_says_why_the_constitution_is_empty(repo: Path, run_charter) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n## Logging\n\n- Use structured log calls.\n")
    done = run_charter("compile", cwd=repo, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "Constitution: empty" in done.stdout and "constitution_markers" in done.stdout
    write(repo, "CLAUDE.md", RULES)
    done = run_charter("compile", cwd=repo, env={"COLUMNS": "200"})
    assert "Constitution: empty" not in done.stdout
    assert "Never commit secrets" in done.stdout


def test_init_in_a_subdirectory_writes_at_the_project_root(repo: Path, run_charter) -> None:
    """Every command run in src/ works on the project around it; `charter init` there
    wrote src/charter.toml, which made src/ a second project with its own .charter/."""
    (repo / "src").mkdir()
    proc = run_charter("init", cwd=repo / "src")
    assert proc.returncode == 0, proc.stderr
    assert (repo / "charter.toml").is_file()
    assert not (repo / "src" / "charter.toml").exists()
    # a directory named explicitly is still taken as given (a package of a monorepo)
    assert run_charter("init", "src", cwd=repo).returncode == 0
    assert (repo / "src" / "charter.toml").is_file()


def test_init_does_not_shadow_tool_charter_in_pyproject(repo: Path, run_charter) -> None:
    """charter.toml is read instead of [tool.charter]: an init next to a pyproject that
    configures Charter silently replaced the user's settings with the defaults."""
    write(repo, "pyproject.toml", "[project]\nname = 'x'\n\n[tool.charter.rules]\ntop_n = 9\n")
    proc = run_charter("init", cwd=repo)
    assert proc.returncode == 2 and not (repo / "charter.toml").exists()
    line = proc.stderr.strip()
    assert "\n" not in line and "[tool.charter]" in line and "--force" in line
    assert run_charter("init", "--force", cwd=repo).returncode == 0
    assert (repo / "charter.toml").is_file()


def test_context_tool_is_a_known_class_any_case(repo: Path, run_charter) -> None:
    """`--tool Bash` (Claude Code's tool name) matched no rule's lower-case [bash] class,
    so the [bash] rule was dropped as if for another tool; a typo did the same in silence."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Never run `rm -rf` outside the build dir [bash]\n")
    proc = run_charter("context", "clean up files", "--tool", "Bash", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    tools = [s["rule"]["tool_classes"] for s in json.loads(proc.stdout)["shards"]]
    assert ["bash"] in tools
    bad = run_charter("context", "x", "--tool", "bsah", cwd=repo)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().startswith("charter: error: --tool must be one of bash, shell")


def test_lint_does_not_call_a_lead_in_under_another_heading_a_duplicate(
    repo: Path, run_charter
) -> None:
    write(
        repo,
        "CLAUDE.md",
        "# Alerts\n\n## NOTE\n\n**When to use:**\n- Background context for the reader\n\n"
        "## TIP\n\n**When to use:**\n- Optional best practices\n\n"
        "## Style\n\n- Keep alerts short.\n- Keep alerts short.\n",
    )
    proc = run_charter("lint", "--json", cwd=repo)
    issues = json.loads(proc.stdout)["issues"]
    # the real repeat is still reported; the lead-ins introduce different items
    assert [(i["kind"], i["location"]) for i in issues] == [("duplicate", "CLAUDE.md:16")]


def test_lint_does_not_call_a_label_over_other_code_a_duplicate(repo: Path, run_charter) -> None:
    # a pipeline guide's "Common Mistakes": "❌ **Mistake N**" then "✅ **Fix:**" over its
    # own YAML, three times in one section; each "Fix:" was a duplicate of the first
    fence = "```yaml\ncondition: {}\n```\n"
    write(
        repo,
        "AGENTS.md",
        "# Pipelines\n\n## Common mistakes\n\n"
        + "".join(
            f"❌ **Mistake {n}: quoting**\n{fence.format(bad)}\n✅ **Fix:**\n{fence.format(good)}\n"
            for n, bad, good in ((1, "a", "b"), (2, "c", "d"))
        )
        + "## Style\n\n- Keep conditions short.\n- Keep conditions short.\n",
    )
    proc = run_charter("lint", "--json", cwd=repo)
    issues = json.loads(proc.stdout)["issues"]
    # the real repeat is still reported
    assert [(i["kind"], i["location"]) for i in issues] == [("duplicate", "AGENTS.md:28")]


def test_lint_does_not_call_the_same_words_in_files_for_other_folders_duplicates(
    repo: Path, run_charter
) -> None:
    # one README template per kind of package, each scoped to its own READMEs: the shared
    # lines never apply together, so they are no duplicates; a repeat in one file still is
    template = "# README\n\n- Start with a one-sentence description of the package.\n"
    for kind, glob in (("hosting", "src/Hosting*/README.md"), ("client", "src/Client*/README.md")):
        write(
            repo,
            f".github/instructions/{kind}-readme.instructions.md",
            f'---\napplyTo: "{glob}"\n---\n\n{template}',
        )
    write(repo, "CLAUDE.md", "# Style\n\n- Keep functions short.\n- Keep functions short.\n")
    proc = run_charter("lint", "--json", cwd=repo)
    issues = json.loads(proc.stdout)["issues"]
    assert [(i["kind"], i["location"]) for i in issues] == [("duplicate", "CLAUDE.md:4")]


def test_context_table_shows_the_rule_beside_a_long_source_path(repo: Path, run_charter) -> None:
    # A monorepo's nested AGENTS.md has a long path: in an 80-column terminal the source
    # column took the whole width and every rule's text was cut to "…" or nothing.
    nested = "packages/server_sdk/providers/payments/AGENTS.md"
    write(repo, nested, "# Payments\n\n- Retry idempotent calls with exponential backoff.\n")
    touched = "packages/server_sdk/providers/payments/x.py"
    proc = run_charter(
        "context", "add retry with backoff", "--file", touched, cwd=repo, env={"COLUMNS": "80"}
    )
    assert proc.returncode == 0, proc.stderr
    words = _column_text(proc.stdout, 3)
    assert "Retry idempotent calls with exponential backoff." in words
    assert "AGENTS.md" in proc.stdout


def test_compile_refuses_a_named_file_outside_the_project(
    repo: Path, tmp_path: Path, run_charter
) -> None:
    write(repo, "CLAUDE.md", RULES)
    assert run_charter("compile", cwd=repo).returncode == 0
    before = (repo / ".charter/rules.json").read_bytes()
    outside = write(tmp_path / "elsewhere", "rules.md", "- Never run `make clean`.\n")
    for named in (str(outside), "../elsewhere/rules.md"):
        proc = run_charter("compile", named, cwd=repo)
        assert proc.returncode == 2, proc.stderr
        assert "outside the project" in proc.stderr and "refused" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert (repo / ".charter/rules.json").read_bytes() == before
    # a named file inside, given from a sub-directory, is read from there and said so
    write(repo, "docs/team.md", "- Always pin dependency versions.\n")
    proc = run_charter("compile", "team.md", cwd=repo / "docs", env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    assert "Only the named file(s) are compiled" in proc.stdout


def test_a_stray_latin1_byte_is_a_warning_not_a_lost_file(repo: Path, run_charter) -> None:
    (repo / "CLAUDE.md").write_bytes(
        b"# Rules\n\n- Use pnpm for every install.\n- Caf\xe9 names stay in French.\n"
    )
    proc = run_charter("compile", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["rules"] == 2
    assert any(w.startswith("CLAUDE.md:4: not valid UTF-8") for w in summary["warnings"])
    state = json.loads((repo / ".charter/rules.json").read_text())
    assert any("Caf\ufffd names" in r["text"] for r in state["rules"])


def test_lint_names_an_unreadable_file_as_its_location(repo: Path, run_charter) -> None:
    (repo / "CLAUDE.md").write_bytes(b"\x00\x01binary\x00")
    proc = run_charter("lint", "--json", cwd=repo)
    issues = [i for i in json.loads(proc.stdout)["issues"] if i["kind"] == "unparseable"]
    assert issues and issues[0]["location"].endswith("CLAUDE.md")
    assert "binary" in issues[0]["message"]


def test_an_unreadable_rule_file_is_named_by_its_project_path(repo: Path, run_charter) -> None:
    # a binary or oversized rule file was named by its absolute path, this machine's, in
    # `compile --json` errors and as `lint`'s location; every other note names the
    # file from the project's root
    (repo / "docs").mkdir()
    (repo / "docs" / "CLAUDE.md").write_bytes(b"\x00\x01binary\x00")
    proc = run_charter("compile", "--json", cwd=repo)
    assert proc.returncode == 1
    errors = json.loads(proc.stdout)["errors"]
    assert "rule file is binary, not text: docs/CLAUDE.md" in errors
    assert str(repo) not in proc.stdout + proc.stderr
    proc = run_charter("lint", "--json", cwd=repo)
    issues = [i for i in json.loads(proc.stdout)["issues"] if i["kind"] == "unparseable"]
    assert [i["location"] for i in issues] == ["docs/CLAUDE.md"]


def test_compile_without_rule_files_says_where_it_looked(repo: Path, run_charter) -> None:
    done = run_charter("compile", cwd=repo, env={"COLUMNS": "300"})
    assert done.returncode == 0, done.stderr
    assert "No rule files found" in done.stdout and "**/AGENTS.md" in done.stdout
    assert "Constitution: empty" not in done.stdout


def test_rules_lists_what_was_read_with_when_each_applies(repo: Path, run_charter) -> None:
    """`charter rules` shows every compiled rule with its citation, and says which are
    always loaded, which are scoped, and which are retrieved per task; the filters narrow
    it to a file or folder, to words, or to the constitution."""
    write(repo, "CLAUDE.md", RULES)
    write(
        repo,
        ".cursor/rules/ui.mdc",
        "---\nglobs: app/**\nalwaysApply: false\n---\n\n- Prefer the shared Card component.\n",
    )
    proc = run_charter("rules", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["files"] == 2 and out["total"] == len(out["rules"])
    by_text = {r["text"]: r for r in out["rules"]}
    assert by_text["Never commit secrets or `.env` files."]["constitution"] is True
    card = by_text["Prefer the shared Card component."]
    assert card["scopes"] == ["app/**"] and card["source"]["path"] == ".cursor/rules/ui.mdc"
    assert set(card) == RULE_KEYS

    only_cursor = json.loads(run_charter("rules", "-s", ".cursor", "--json", cwd=repo).stdout)
    assert [r["text"] for r in only_cursor["rules"]] == ["Prefer the shared Card component."]
    found = json.loads(run_charter("rules", "--grep", "ALEMBIC", "--json", cwd=repo).stdout)
    assert [r["source"]["line_start"] for r in found["rules"]] == [12]
    core = json.loads(run_charter("rules", "--constitution", "--json", cwd=repo).stdout)
    assert core["rules"] and all(r["constitution"] for r in core["rules"])
    assert len(core["rules"]) < out["total"]

    table = run_charter("rules", cwd=repo)
    assert table.returncode == 0, table.stderr
    assert "always" in table.stdout and "app/**" in table.stdout and "by task" in table.stdout
    assert "CLAUDE.md:L3-L5" in table.stdout


def test_rules_source_is_read_as_a_path_of_the_project(repo: Path, run_charter) -> None:
    """`charter rules -s ./CLAUDE.md` (as a shell completes it) and `-s GEMINI.md` (a
    symlink to `CLAUDE.md`, read once under its target's name) listed no rule: the file
    named is the one the rules cite."""
    write(repo, "CLAUDE.md", "# Rules\n\n- Retry idempotent calls with backoff.\n")
    (repo / "GEMINI.md").symlink_to("CLAUDE.md")
    write(repo, ".cursor/rules/ui.mdc", "---\nalwaysApply: true\n---\n\n- Use the Card.\n")
    for named in ("./CLAUDE.md", "GEMINI.md", str(repo / "CLAUDE.md")):
        out = json.loads(run_charter("rules", "-s", named, "--json", cwd=repo).stdout)
        assert [r["text"] for r in out["rules"]] == ["Retry idempotent calls with backoff."]
    out = json.loads(run_charter("rules", "-s", "./.cursor/rules/", "--json", cwd=repo).stdout)
    assert [r["text"] for r in out["rules"]] == ["Use the Card."]


def test_context_table_cites_rules_as_every_other_output_does(repo: Path, run_charter) -> None:
    # The JSON, the hooks and the constitution cite `path:L3-L3`; the context table wrote
    # `path:3-3`, so a reader pasting a citation from one into another found no match.
    write(repo, "CLAUDE.md", "# Rules\n\n- Retry idempotent calls with exponential backoff.\n")
    proc = run_charter("context", "add retry with backoff", cwd=repo, env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    assert "CLAUDE.md:L3-L3" in proc.stdout
    assert "CLAUDE.md:3-3" not in proc.stdout


def test_a_rule_file_saved_as_utf16_with_a_bom_is_read(repo: Path, run_charter) -> None:
    # Windows editors and PowerShell's `>` save text as UTF-16 with a byte-order mark;
    # its NUL bytes made the file "binary, not text" and none of its rules was compiled
    text = "# Rules\n\n- Never run `npm publish`.\n- Do not edit `dist/` by hand.\n"
    (repo / "AGENTS.md").write_bytes(text.encode("utf-16"))  # little-endian, with a BOM
    (repo / "GEMINI.md").write_bytes(b"\xfe\xff" + "- Use pnpm.\n".encode("utf-16-be"))
    proc = run_charter("compile", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["errors"] == [] and summary["rules"] == 3
    assert [c["command"] for c in summary["forbidden_commands"]] == ["npm publish"]
    state = json.loads((repo / ".charter/rules.json").read_text())
    assert {r["source"]["path"] + ":" + str(r["source"]["line_start"]) for r in state["rules"]} >= {
        "AGENTS.md:3",
        "AGENTS.md:4",
    }
    # NULs in what it decodes to are still a binary file
    (repo / "GEMINI.md").write_bytes(b"\xff\xfe\x00\x00" + "\x00\x01x".encode("utf-32-le"))
    errors = json.loads(run_charter("compile", "--json", cwd=repo).stdout)["errors"]
    assert errors == ["rule file is binary, not text: GEMINI.md"]


def test_rules_table_shows_the_rule_beside_a_long_list_of_globs(repo: Path, run_charter) -> None:
    # a nested Cursor rule scoped to three long globs: its "applies" cell could not wrap,
    # took the whole 80-column width, and the rule and source columns shrank to nothing
    write(
        repo,
        "apps/api/.cursor/rules/auth.mdc",
        "---\nglobs: src/rest/middleware/**/*.ts,src/trpc/middleware/**/*.ts,"
        "src/utils/auth.ts\n---\n\n- Verify the session token before reading the body.\n",
    )
    proc = run_charter("rules", cwd=repo, env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    words = _column_text(proc.stdout, 3)
    assert "Verify the session token before reading the body." in words
    assert "auth.mdc" in proc.stdout


def test_quoted_text_keeps_its_colon_words(repo: Path, run_charter) -> None:
    # Rich read `:x:` in a quoted `user:x:1000` line (and `:rocket:`) as emoji codes, so
    # `charter rules` and `charter context` showed `user❌1000`: not the rule's text.
    write(repo, "CLAUDE.md", "# Rules\n\n- Keep `u:x:1` lines.\n")
    for args in (("rules",), ("context", "keep the lines")):
        proc = run_charter(*args, cwd=repo)
        assert proc.returncode == 0, proc.stderr
        assert "Keep `u:x:1` lines." in proc.stdout and "\u274c" not in proc.stdout
