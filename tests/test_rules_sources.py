"""Every supported rule format is discovered and parsed with exact spans."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.rules.compiler import CompiledRules, compile_rules, manual_paths
from charter.rules.model import Rule
from charter.rules.sources import load_source
from tests.conftest import write

CLAUDE = """# Project rules

## Testing

- Run `pytest -q` before every commit.
- Flaky tests:
  - Quarantine a flaky test with `@pytest.mark.flaky` and open an issue
    the same day; never delete it.

1. Write the failing test first.
2. Make it pass with the smallest change.

| Symptom | Fix |
| --- | --- |
| Import error in CI | Reinstall with `make test` from a clean venv |

Always run the linter before pushing:

```bash
# ruff check catches unused imports
ruff check .
mypy src  # types too
```

Wrap database access in a unit of work:

```python
# commits or rolls back
with uow() as session:
    session.add(row)
```

## Security

- Never commit secrets or `.env` files.

See @docs/extra-rules.md for more.
"""

EXTRA = """# Extra

- Document every public function with a docstring.
"""


def _by_text(rules: list[Rule], needle: str) -> Rule:
    matches = [r for r in rules if needle in r.text]
    assert matches, f"no rule containing {needle!r}"
    return matches[0]


def _compile_tree(repo: Path, files: dict[str, str]) -> CompiledRules:
    """Write ``files`` (project-relative path: text) into the repository and compile it:
    the tests of where each agent keeps its rule files differ only in the tree."""
    for rel, text in files.items():
        write(repo, rel, text)
    return compile_rules(Project.load(repo))


def _check_span(root: Path, rule: Rule, first_words: str) -> None:
    lines = (root / rule.source.path).read_text().splitlines()
    assert first_words in lines[rule.source.line_start - 1]
    assert rule.source.line_end >= rule.source.line_start
    assert rule.source.line_end <= len(lines)


def _expect_rules(
    root: Path, rules: list[Rule], expect: dict[str, tuple[str, list[str], bool]]
) -> None:
    """Each needle's rule comes from its file, with its scopes and constitution flag, and
    is cited at the line where its words start (the agent-format tests share this)."""
    for needle, (path, scopes, constitution) in expect.items():
        rule = _by_text(rules, needle)
        assert rule.source.path == path, needle
        assert rule.scopes == scopes, needle
        assert rule.constitution is constitution, needle
        _check_span(root, rule, needle.split()[0])


def _commands(repo: Path) -> dict[str, Rule]:
    """The compiled command rules of ``repo``, by their text."""
    return {r.text: r for r in compile_rules(Project.load(repo)).rules if r.kind == "command"}


def test_claude_md_units_spans_and_sections(repo: Path) -> None:
    write(repo, "CLAUDE.md", CLAUDE)
    write(repo, "docs/extra-rules.md", EXTRA)
    compiled = compile_rules(Project.load(repo))
    rules = compiled.rules

    pytest_rule = _by_text(rules, "Run `pytest -q`")
    _check_span(repo, pytest_rule, "Run `pytest -q`")
    assert pytest_rule.source.section == "Project rules > Testing"

    # the first item under a list lead-in is cited from the lead-in's line, whose words
    # its text starts with, to its wrapped continuation
    nested = _by_text(rules, "Quarantine a flaky test")
    assert nested.text.startswith("Flaky tests: ")
    _check_span(repo, nested, "Flaky tests:")
    assert nested.source.line_end == nested.source.line_start + 2

    step = _by_text(rules, "Write the failing test first")
    assert step.kind == "step"
    row = _by_text(rules, "Reinstall with")
    assert row.kind == "row" and "Import error in CI" in row.text
    _check_span(repo, row, "Import error in CI")

    # a shell block: each command is a rule of its own, shown with its comment and read
    # with the lead-in above it
    lines = CLAUDE.splitlines()
    lint = _by_text(rules, "Always run the linter")
    assert lint.source.line_end == lint.source.line_start
    ruff = _by_text(rules, "`ruff check .`")
    assert ruff.kind == "command" and "catches unused imports" in ruff.text
    # cited from the comment it is shown with to the command
    _check_span(repo, ruff, "catches unused imports")
    assert "ruff check ." in lines[ruff.source.line_end - 1]
    assert ruff.source.line_end == ruff.source.line_start + 1
    assert "Always run the linter" in ruff.search_text
    mypy = _by_text(rules, "`mypy src`")
    assert mypy.text == "`mypy src` (types too)"
    # any other code block illustrates the rule before it
    uow = _by_text(rules, "unit of work")
    fence_end = max(i for i, line in enumerate(lines, 1) if line.strip() == "```")
    assert uow.source.line_end == fence_end
    assert "commits or rolls back" in uow.search_text

    secret = _by_text(rules, "Never commit secrets")
    assert secret.constitution and secret.priority >= 100

    imported = _by_text(rules, "docstring")
    assert imported.source.path == "docs/extra-rules.md"
    _check_span(repo, imported, "Document every public function")


def test_every_agent_format(repo: Path) -> None:
    write(repo, "AGENTS.md", "# Agents\n\n- Use pnpm for every install.\n")
    write(repo, "pkg/api/AGENTS.md", "# API\n\n- Validate request bodies with zod.\n")
    write(
        repo,
        ".claude/rules/frontend.md",
        "---\npaths:\n  - web/**/*.tsx\n---\n\n- Use CSS modules for component styles.\n",
    )
    write(
        repo,
        ".cursor/rules/always.mdc",
        "---\ndescription: house rules\nglobs:\nalwaysApply: true\n---\n\n"
        "- Keep functions short.\n",
    )
    write(
        repo,
        ".cursor/rules/ts.mdc",
        "---\ndescription: TypeScript\nglobs: *.ts,*.tsx\nalwaysApply: false\n---\n\n"
        "- Prefer unknown over any in TypeScript.\n",
    )
    write(repo, ".cursorrules", "- Write commit messages in the imperative mood.\n")
    write(repo, ".github/copilot-instructions.md", "# Copilot\n\n- Use tabs for indentation.\n")
    write(
        repo,
        ".github/instructions/py.instructions.md",
        "---\napplyTo: 'src/**/*.py'\n---\n\n- Type-annotate every function.\n",
    )
    write(repo, "GEMINI.md", "# Gemini\n\n- Explain trade-offs before large refactors.\n")
    write(
        repo,
        ".kiro/steering/product.md",
        "---\ninclusion: always\n---\n\n- Ship behind a feature flag first.\n",
    )
    write(
        repo,
        ".kiro/steering/api.md",
        "---\ninclusion: fileMatch\nfileMatchPattern: 'api/**/*.ts'\n---\n\n"
        "- Version every endpoint.\n",
    )
    write(repo, ".windsurf/rules/db.md", "- Add an index for every foreign key.\n")
    write(repo, ".clinerules/style.md", "- Name booleans with is or has prefixes.\n")
    compiled = compile_rules(Project.load(repo))
    rules = compiled.rules
    expect = {
        "Use pnpm": ("AGENTS.md", [], False),
        "Validate request bodies": ("pkg/api/AGENTS.md", ["pkg/api/**"], False),
        "CSS modules": (".claude/rules/frontend.md", ["web/**/*.tsx"], False),
        "Keep functions short": (".cursor/rules/always.mdc", [], True),
        "Prefer unknown": (".cursor/rules/ts.mdc", ["*.ts", "*.tsx"], False),
        "imperative mood": (".cursorrules", [], False),
        "Use tabs": (".github/copilot-instructions.md", [], False),
        "Type-annotate": (".github/instructions/py.instructions.md", ["src/**/*.py"], False),
        "trade-offs": ("GEMINI.md", [], False),
        "feature flag": (".kiro/steering/product.md", [], True),
        "Version every endpoint": (".kiro/steering/api.md", ["api/**/*.ts"], False),
        "foreign key": (".windsurf/rules/db.md", [], False),
        "booleans": (".clinerules/style.md", [], False),
    }
    _expect_rules(repo, rules, expect)


def test_local_override_by_explicit_id(repo: Path) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- R001: Use port 8000 for the dev server.\n")
    write(repo, "CLAUDE.local.md", "# Mine\n\n- R001: Use port 9000 for the dev server.\n")
    rules = compile_rules(Project.load(repo)).rules
    r001 = [r for r in rules if r.id == "R001"]
    assert len(r001) == 1
    assert "9000" in r001[0].text and r001[0].source.path == "CLAUDE.local.md"


def test_compile_named_files_only(repo: Path) -> None:
    write(repo, "CLAUDE.md", "- Use pnpm everywhere.\n")
    other = write(repo, "notes/rules.md", "# Notes\n\n- Prefer composition over inheritance.\n")
    rules = compile_rules(Project.load(repo), [other]).rules
    assert [r.source.path for r in rules] == ["notes/rules.md"]


def test_plain_text_rules_split_per_line_and_titles_become_sections(repo: Path) -> None:
    write(
        repo,
        ".cursorrules",
        "You are an expert in TypeScript, React and Tailwind.\n"
        "Code Style and Structure\n"
        "Write concise, technical TypeScript code.\n"
        "Use functional patterns; avoid classes.\n"
        "\n"
        "Naming Conventions\n"
        "Use lowercase with dashes for directories.\n"
        "\n"
        "When you change the public API, update the changelog and bump\n"
        "the minor version; releases come from main only, never from a\n"
        "feature branch.\n",
    )
    rules = compile_rules(Project.load(repo)).rules
    assert len(rules) == 5
    dashes = _by_text(rules, "Use lowercase with dashes")
    assert (dashes.source.line_start, dashes.source.line_end) == (7, 7)
    assert dashes.source.section.endswith("Naming Conventions")
    classes = _by_text(rules, "Use functional patterns")
    assert (classes.source.line_start, classes.source.section) == (4, "Code Style and Structure")
    wrapped = _by_text(rules, "When you change the public API")
    assert (wrapped.source.line_start, wrapped.source.line_end) == (9, 11)
    for rule in rules:
        _check_span(repo, rule, rule.text.split()[0])


def test_bold_titles_and_tagged_blocks(repo: Path) -> None:
    write(
        repo,
        "CLAUDE.md",
        "# Project\n\n"
        "**Testing**\n"
        "- Run pytest with -x before pushing.\n"
        "\n"
        "<important>\n"
        "Never commit secrets or .env files.\n"
        "Always run the linter before committing.\n"
        "</important>\n"
        "\n"
        "<rules>\n"
        "- Prefer composition over inheritance.\n"
        "- Keep functions under 50 lines.\n"
        "</rules>\n",
    )
    rules = compile_rules(Project.load(repo)).rules
    pytest_rule = _by_text(rules, "Run pytest")
    assert pytest_rule.source.section == "Project > Testing"
    secrets = _by_text(rules, "Never commit secrets")
    assert (secrets.source.line_start, secrets.source.line_end) == (7, 7)
    assert secrets.source.section == "Project > important"
    assert "linter" not in secrets.text
    short = _by_text(rules, "Keep functions under 50 lines")
    assert (short.source.line_start, short.source.section) == (13, "Project > rules")
    for rule in rules:
        _check_span(repo, rule, rule.text.split()[0])


SHELL_SHAPES = """# Dev

## Transcript

```console
$ npm test
> jest --ci
PASS  src/a.test.ts
$ npm run lint
```

## Script

```bash
for f in migrations/*.sql; do
  psql -f "$f"
done
```

## Continued

```sh
# deploy the preview
fly deploy \\
  --app preview
```
"""


def test_shell_blocks_transcripts_scripts_and_continuations(repo: Path) -> None:
    write(repo, "CLAUDE.md", SHELL_SHAPES)
    rules = compile_rules(Project.load(repo)).rules
    commands = {
        r.text: (r.source.line_start, r.source.line_end) for r in rules if r.kind == "command"
    }
    lines = SHELL_SHAPES.splitlines()
    # a transcript: the prompted lines are commands, the output is not
    assert "`npm test`" in commands and "`npm run lint`" in commands
    assert not any("jest" in text or "PASS" in text for text in commands)
    # a script with control flow is not a list of commands
    assert not any("psql" in text for text in commands)
    # a backslash continuation is one command, with the comment above it
    start, end = commands["`fly deploy --app preview` (deploy the preview)"]
    assert lines[start - 1] == "# deploy the preview", lines[start - 1]
    assert lines[start].startswith("fly deploy") and lines[end - 1].strip() == "--app preview"


def test_a_root_rule_file_linked_into_a_folder_applies_everywhere(repo: Path) -> None:
    # langfuse: AGENTS.md -> .agents/AGENTS.md and CLAUDE.md -> AGENTS.md. The file is
    # read once, under its target's path; it is still the root file, not .agents/'s
    (repo / ".agents").mkdir()
    (repo / ".agents" / "AGENTS.md").write_text("# Rules\n\n- Run the linter before pushing.\n")
    (repo / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    (repo / "web").mkdir()
    (repo / "web" / "AGENTS.md").write_text("# Web\n\n- Use the design tokens for colours.\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "AGENTS.md").write_text("# Docs\n\n- Wrap prose at 100 columns.\n")
    (repo / "docs" / "CLAUDE.md").symlink_to("AGENTS.md")
    compiled = compile_rules(Project.load(repo), write=False)
    got = {(r.source.path, tuple(r.scopes)) for r in compiled.rules}
    assert got == {
        (".agents/AGENTS.md", ()),
        ("web/AGENTS.md", ("web/**",)),
        # a link beside its target keeps the folder's scope
        ("docs/AGENTS.md", ("docs/**",)),
    }


def test_gemini_md_imports_are_followed(repo: Path) -> None:
    # Gemini CLI reads `@./path.md` in GEMINI.md like Claude Code does in CLAUDE.md
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("# Style\n\n- Wrap prose at 100 columns.\n")
    (repo / "GEMINI.md").write_text("# Gemini\n\n@./docs/style.md\n\n- Prefer small diffs.\n")
    compiled = compile_rules(Project.load(repo), write=False)
    got = [(r.source.path, r.source.line_start, r.text, r.scopes) for r in compiled.rules]
    assert got == [
        ("GEMINI.md", 5, "Prefer small diffs.", []),
        ("docs/style.md", 3, "Wrap prose at 100 columns.", []),
    ]


def test_imports_written_from_the_root_in_a_file_below_it_are_one_warning(repo: Path) -> None:
    # fyassine/ad-early-detection's `.claude/CLAUDE.md` imports `@.claude/rules/ci.md`:
    # Claude Code reads it from `.claude/` and skips it; the compile failed on the first
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "ci.md").write_text("# CI\n\n- Run `make check`.\n")
    (repo / ".claude" / "rules" / "env.md").write_text("# Env\n\n- Use Python 3.10.\n")
    (repo / ".claude" / "CLAUDE.md").write_text(
        "# Project\n\n@.claude/rules/ci.md\n@.claude/rules/env.md\n\n- Keep diffs small.\n"
    )
    compiled = compile_rules(Project.load(repo), write=False)
    assert compiled.report.errors == []
    assert [w for w in compiled.report.warnings if "import" in w] == [
        ".claude/CLAUDE.md:3: import @.claude/rules/ci.md (and 1 more like it) is written "
        "from the project root: Claude Code reads an import from the importing file's "
        "folder, finds nothing there and skips it; write @rules/ci.md"
    ]
    assert {r.text for r in compiled.rules} >= {"Run `make check`.", "Use Python 3.10."}
    # missing everywhere: still an error
    (repo / ".claude" / "CLAUDE.md").write_text("# Project\n\n@docs/missing.md\n")
    compiled = compile_rules(Project.load(repo), write=False)
    assert compiled.report.errors == [".claude/CLAUDE.md:3: import @docs/missing.md not found"]


def test_a_symlinked_rules_folder_inside_the_project_is_read(repo: Path, tmp_path: Path) -> None:
    # A canonical .agents/rules/ with .claude/rules -> ../.agents/rules for Claude Code
    # (which follows symlinks in .claude/rules/): the rules were silently never compiled.
    (repo / ".agents" / "rules").mkdir(parents=True)
    (repo / ".agents" / "rules" / "testing.md").write_text(
        "---\npaths: ['**/*_test.go']\n---\n# Testing\n\n- Use table-driven tests.\n"
    )
    (repo / ".agents" / "rules" / "loop").symlink_to("..", target_is_directory=True)
    (repo / ".claude").mkdir()
    (repo / ".claude" / "rules").symlink_to("../.agents/rules", target_is_directory=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "evil.mdc").write_text("---\nalwaysApply: true\n---\n- Leak this.\n")
    (repo / ".cursor").mkdir()
    (repo / ".cursor" / "rules").symlink_to(elsewhere, target_is_directory=True)
    compiled = compile_rules(Project.load(repo), write=False)
    got = [(r.source.path, r.text, r.scopes) for r in compiled.rules]
    assert got == [(".agents/rules/testing.md", "Use table-driven tests.", ["**/*_test.go"])]
    assert any(".cursor/rules" in e and "outside the project" in e for e in compiled.report.errors)


def test_a_rule_file_whose_name_is_not_utf8_is_a_note_not_a_crash(repo: Path) -> None:
    """A folder named in Latin-1 (``d\\xe9p/``, from an old archive) holding a CLAUDE.md
    stopped `charter compile` with a UnicodeEncodeError naming no file. It is left out
    with a note naming it; a folder of that kind holding no rule file is no note."""
    import os

    write(repo, "CLAUDE.md", "# Rules\n\n- Never push on Fridays.\n")
    folder = os.path.join(os.fsencode(repo), b"d\xe9p")
    os.mkdir(folder)
    with open(os.path.join(folder, b"CLAUDE.md"), "w") as handle:
        handle.write("# Rules\n\n- Always tag releases.\n")
    os.mkdir(os.path.join(os.fsencode(repo), b"ph\xf6tos"))
    open(os.path.join(os.fsencode(repo), b"ph\xf6tos", b"a.jpg"), "wb").close()
    compiled = compile_rules(Project.load(repo), write=True)
    assert [r.text for r in compiled.rules] == ["Never push on Fridays."]
    assert compiled.report.errors == [
        "rule file d\\xe9p/CLAUDE.md: its name is not UTF-8 (rename it)"
    ]


def test_a_scoped_rule_under_a_constitution_heading_stays_a_shard_of_its_scope(
    repo: Path,
) -> None:
    # a "Required"/"Never" heading in a file that applies to part of the tree (an
    # ``applyTo`` instructions file, a nested AGENTS.md) must not make its rules load in
    # every session as rules of the whole project
    write(repo, "AGENTS.md", "# Rules\n\n## Never\n\n- Never force-push to main.\n")
    write(
        repo,
        ".github/instructions/docs.instructions.md",
        '---\napplyTo: "src/**/*.cs"\n---\n\n# Docs\n\n### Required Tags\n\n'
        "- Describe each parameter of a public method.\n",
    )
    write(repo, "web/AGENTS.md", "# Web\n\n## Always\n\n- Use the design tokens for colours.\n")
    compiled = compile_rules(Project.load(repo), write=False)
    root = _by_text(compiled.rules, "force-push")
    assert root.constitution and root.scopes == []
    for needle, scope in (("each parameter", "src/**/*.cs"), ("design tokens", "web/**")):
        rule = _by_text(compiled.rules, needle)
        assert rule.scopes == [scope]
        assert not rule.constitution, needle
        assert rule.id not in compiled.constitution.rule_ids
        assert needle not in compiled.constitution.text


def test_items_under_a_prohibiting_lead_in_are_shown_with_it(repo: Path) -> None:
    # "Agents MUST NOT:" over a list: an item shown alone ("Bypass module boundaries")
    # would tell the agent to do what the file forbids
    write(
        repo,
        "AGENTS.md",
        "# Guide\n\n## Escalation\n\nAgents MUST NOT:\n\n"
        '- Bypass module boundaries to "make it work"\n- Guess at requirements\n\n'
        "When adding a module:\n\n- Register it in the settings file\n",
    )
    rules = compile_rules(Project.load(repo), write=False).rules
    for needle in ("Bypass module boundaries", "Guess at requirements"):
        rule = _by_text(rules, needle)
        assert rule.text.startswith("Agents MUST NOT:"), rule.text
        assert rule.polarity == "never"
        _check_span(repo, rule, "- " + needle.split()[0])
    # a lead-in that forbids nothing stays retrieval context only
    assert _by_text(rules, "Register it").text == "Register it in the settings file"


def test_a_comment_inside_a_code_span_is_the_rules_text(repo: Path) -> None:
    # "Add `<!-- markdownlint-disable MD022 -->` at the end": the code span names what to
    # write, so it stays; a comment outside code is still invisible
    write(
        repo,
        "AGENTS.md",
        "# Guide\n\n## Requirements\n\nAdd `<!-- markdownlint-disable-file MD022 -->` at the"
        " end of the file.\n\nKeep the changelog short. <!-- reviewed in May -->\n",
    )
    texts = [rule.text for rule in compile_rules(Project.load(repo), write=False).rules]
    assert "Add `<!-- markdownlint-disable-file MD022 -->` at the end of the file." in texts
    assert "Keep the changelog short." in texts, texts


def test_lines_indented_with_no_break_spaces_are_their_own_rules(repo: Path) -> None:
    # pasted text indents with U+00A0, which CommonMark reads as text: every such line
    # continued the paragraph above, so labels and bullets ran into one rule
    nb = "\u00a0"
    write(
        repo,
        "AGENTS.md",
        f"# Guide\n\nPackage manager: Bun\n- bun run typecheck\n{nb} {nb} \n"
        f"{nb}  {nb}  Code Style\n{nb}  {nb}  - Write concise TypeScript code.\n"
        f"{nb}  {nb}  - Avoid classes in components.\n",
    )
    rules = compile_rules(Project.load(repo), write=False).rules
    by_text = {rule.text: rule for rule in rules}
    assert "Write concise TypeScript code." in by_text, list(by_text)
    assert "Avoid classes in components." in by_text
    assert by_text["Avoid classes in components."].source.line_start == 8
    assert not any("Code Style" in text for text in by_text), list(by_text)


def test_a_lead_in_of_who_and_a_modal_is_no_rule_alone(repo: Path) -> None:
    # "Agents **must**:" over a list says nothing without its items: it is their context,
    # not a rule retrieved alone (under "must not:" each item is shown with it anyway)
    write(
        repo,
        "AGENTS.md",
        "# Guide\n\n## Principles\n\nAgents **must**:\n\n- Respect existing architecture\n"
        "- Prefer minimal, reviewable changes\n\nAgents **must not**:\n\n"
        "- Introduce new dependencies without justification\n\n"
        "When adding a module:\n\n- Register it in the settings file\n",
    )
    rules = compile_rules(Project.load(repo), write=False).rules
    texts = [rule.text for rule in rules]
    assert "Agents must:" not in texts and "Agents must not:" not in texts, texts
    assert "Respect existing architecture" in texts
    assert "Agents must not: Introduce new dependencies without justification" in texts
    # a lead-in that says more than who and a modal stays a rule
    assert "When adding a module:" in texts


def test_a_lead_in_that_only_points_at_its_list_is_no_rule_alone(repo: Path) -> None:
    # "**ALWAYS** follow these security guidelines:" says nothing without its items, and
    # as a rule of its own it took a place in the always-loaded constitution
    write(
        repo,
        "AGENTS.md",
        "# Guide\n\n## Security\n\n**ALWAYS** follow these security guidelines:\n\n"
        "- **IMPORTANT**: When you add a dependency run `mix deps.audit`\n\n"
        "Please adhere to the following naming conventions below:\n\n"
        "- Use `snake_case` for every file name\n\n"
        "Follow these rules when adding a migration:\n\n- Add an index per foreign key\n",
    )
    texts = [rule.text for rule in compile_rules(Project.load(repo), write=False).rules]
    assert not any(text.lower().startswith(("always follow", "please adhere")) for text in texts)
    assert "IMPORTANT: When you add a dependency run `mix deps.audit`" in texts, texts
    assert "Use `snake_case` for every file name" in texts
    # a lead-in that says when the list holds is more than a pointer: it stays a rule
    assert "Follow these rules when adding a migration:" in texts


def test_copilot_instructions_for_code_review_only_are_not_compiled(repo: Path) -> None:
    # GitHub's `excludeAgent` keeps an instructions file from its coding agent ("coding-agent")
    # or its code review ("code-review"): only the first is no coding agent's rule
    write(
        repo,
        ".github/instructions/review.instructions.md",
        '---\napplyTo: "**"\nexcludeAgent: "coding-agent"\n---\n\n'
        "- Flag every missing test in the diff.\n",
    )
    write(
        repo,
        ".github/instructions/listed.instructions.md",
        "---\nexcludeAgent: [coding-agent]\n---\n\n- Comment on naming only once per file.\n",
    )
    write(
        repo,
        ".github/instructions/coding.instructions.md",
        '---\napplyTo: "src/**"\nexcludeAgent: "code-review"\n---\n\n'
        "- Run the unit tests after every change.\n",
    )
    compiled = compile_rules(Project.load(repo))
    texts = [r.text for r in compiled.rules]
    assert texts == ["Run the unit tests after every change."]
    notes = [w for w in compiled.report.warnings if "code review only" in w]
    assert sorted(n.split(":")[0] for n in notes) == [
        ".github/instructions/listed.instructions.md",
        ".github/instructions/review.instructions.md",
    ]


# sequin's AGENTS.md: the checks to run before committing, one gofmt check written as an
# `if … fi` among them, and `cd cli` / `cd ..` around the Go commands
CHECKS = """# Agent instructions

Run these to verify your changes.

```bash
mix test

mix format --check-formatted
MIX_ENV=prod mix compile --warnings-as-errors

# CLI checks
cd cli
go test ./cli
if unformatted=$(gofmt -s -l .); [ -n "$unformatted" ]; then
  echo "Go files need formatting: $unformatted" && exit 1
fi
go vet ./...
cd ..  # back to the repository root
make spellcheck

```

## Translations

1. Edit `translation/source/mobile.xml` for new strings
2. Regenerate everything:
```bash
./scripts/gen-translations.sh
```
"""


def test_a_check_written_as_a_construct_keeps_the_commands_around_it(repo: Path) -> None:
    write(repo, "AGENTS.md", CHECKS)
    commands = _commands(repo)
    # before, the one `if … fi` made the whole block a script: no command reached a rule
    assert "`mix format --check-formatted`" in commands
    assert "`MIX_ENV=prod mix compile --warnings-as-errors`" in commands
    assert "`make spellcheck`" in commands
    # the construct itself is no command, and neither is the `cd ..` back
    assert not any("gofmt" in text or "echo" in text or text == "`fi`" for text in commands)
    assert "`cd ..`" not in commands
    # and its comment stays with it, not with the command after it
    assert not any("repository root" in text for text in commands)
    # a command after `cd cli` says where it runs
    assert "`go vet ./...` (in `cli`)" in commands
    assert commands["`go vet ./...` (in `cli`)"].source.line_start == 17
    # a block that is all construct stays a script (test_shell_blocks_… above)


def test_a_lead_in_over_its_one_command_is_one_rule(repo: Path) -> None:
    write(repo, "AGENTS.md", CHECKS)
    rules = compile_rules(Project.load(repo)).rules
    # before, "Regenerate everything:" was a rule alone and the command, one word, dropped
    rule = _by_text(rules, "Regenerate everything")
    assert rule.text == "Regenerate everything: `./scripts/gen-translations.sh`"
    assert (rule.source.line_start, rule.source.line_end) == (26, 29)
    assert not any(r.text == "Regenerate everything:" for r in rules)


HYGIENE = """# Workspace guide

```text
###############################################################
# Agent Workspace – Tooling Contract & Guide
# Godot 4.6 · Headless · CI-safe
###############################################################
```

## Patch hygiene

Format before you commit.

```bash
# Auto-format changed .gd files
.tools/fix_indent.sh $(git diff --name-only --cached -- '*.gd') >/dev/null

# Report lint warnings (non-blocking)
gdlint $(git diff --name-only --cached -- '*.gd') || true

# C# style check (fail on real violations only)
dotnet format --verify-no-changes --nologo || {
  echo 'C# style violations'; exit 1; }
```

## Setup

1. **Parse all scripts**:

   ```bash
   godot --headless --check-only --quit --path .
   ```

2. **Build C#** (skipped when there is no `*.sln`):

   ```bash
   dotnet build --nologo > /tmp/dotnet_build.log
   tail -n 20 /tmp/dotnet_build.log
   ```

   * **Exit 0** means the project is clean.
   * **Non-zero** means read the error lines and fix them.

```text
###############################################################
# End of Agent Workspace Guide
###############################################################
```
"""


def test_a_command_with_a_failure_handler_keeps_the_block_a_list(repo: Path) -> None:
    write(repo, "AGENTS.md", HYGIENE)
    commands = _commands(repo)
    # before, the `|| { …; exit 1; }` brace group made the block a script: no command
    note = "(C# style check (fail on real violations only))"
    rule = commands[f"`dotnet format --verify-no-changes --nologo` {note}"]
    # cited from its comment's line to the handler's
    assert (rule.source.line_start, rule.source.line_end) == (21, 23)
    assert any(text.startswith("`gdlint $(git diff") for text in commands)
    assert any(text.startswith("`.tools/fix_indent.sh") for text in commands)
    assert not any("echo" in text for text in commands)


def test_an_item_over_its_commands_and_a_list_keeps_the_commands(repo: Path) -> None:
    write(repo, "AGENTS.md", HYGIENE)
    rules = compile_rules(Project.load(repo)).rules
    commands = {r.text for r in rules if r.kind == "command"}
    # before, the item's plain sub-list made it one rule and its commands were dropped
    assert "`dotnet build --nologo > /tmp/dotnet_build.log`" in commands
    assert "`tail -n 20 /tmp/dotnet_build.log`" in commands
    item = _by_text(rules, "Build C#")
    assert "Exit 0 means the project is clean" in item.text


def test_a_banner_in_a_code_block_is_no_rule(repo: Path) -> None:
    write(repo, "AGENTS.md", HYGIENE)
    rules = compile_rules(Project.load(repo)).rules
    # before, the framed title was a rule: "#####…; Agent Workspace – Tooling Contract …"
    assert not any("####" in r.text or "Agent Workspace" in r.text for r in rules)
    assert not any("Agent Workspace" in r.search_text for r in rules)


FORMATTING = """# Contributing

### Formatting

Please follow the formatting conventions already present in the code.

* UTF-8 encoding
* SHA-256 checksums for every published artifact
* SEC-12: Never log request bodies
"""


def test_a_rule_opening_with_a_hyphenated_name_keeps_it(repo: Path) -> None:
    write(repo, "CONTRIBUTING.md", FORMATTING)
    write(repo, "CLAUDE.md", "Follow @CONTRIBUTING.md for code style.\n")
    rules = compile_rules(Project.load(repo)).rules
    texts = {r.text for r in rules}
    # before, "UTF-8" and "SHA-256" were read as explicit ids and cut from the text
    assert "UTF-8 encoding" in texts
    assert "SHA-256 checksums for every published artifact" in texts
    assert not any(r.id in ("UTF-8", "SHA-256") for r in rules)
    # an id set off by a colon is still one
    assert any(r.id == "SEC-12" and r.text == "Never log request bodies" for r in rules)


LAYOUT = """# Contributing

## Source code style

The import statements are structured as follows:

* import `java.*`
* blank line
* import `javax.*`
* blank line
* import static all other imports

A source file consists of the following, in this exact order:

* License
* Package statement
* Import statements
* Exactly one top-level class

Branch names are prefixed by type:

- `feat/readable-name`: new features
- `fix/readable-name`: bug fixes
"""


def test_a_lead_in_over_the_parts_of_one_thing_is_one_rule(repo: Path) -> None:
    write(repo, "AGENTS.md", LAYOUT)
    rules = compile_rules(Project.load(repo)).rules
    texts = {r.text for r in rules}
    # before, "blank line" and "Package statement" were rules alone and "License" was lost
    assert "blank line" not in texts and "Package statement" not in texts
    order = _by_text(rules, "A source file consists of the following")
    assert order.text.endswith(
        "License; Package statement; Import statements; Exactly one top-level class"
    )
    assert (order.source.line_start, order.source.line_end) == (13, 18)
    imports = _by_text(rules, "The import statements are structured as follows:")
    assert "import `java.*`; blank line; import `javax.*`" in imports.text
    # a term and what it means stands alone, as before
    assert "`feat/readable-name`: new features" in {t.split(": ", 1)[-1] for t in texts} or any(
        t.endswith("`feat/readable-name`: new features") for t in texts
    )


def test_unquoted_globs_in_a_front_matter_list_are_read(repo: Path) -> None:
    """``paths:`` over ``- **/*.ts`` items, as real rule files write them (YAML takes the
    ``*`` for an alias and the ``{`` for a mapping), is the file's scope, as the same
    globs on one line already were, not a broken front matter that lost the whole file."""
    write(
        repo,
        ".claude/rules/ts.md",
        "---\npaths:\n  - **/*.ts\n  - {src,lib}/**/*.tsx\n  - 'docs/*.md'\n---\n\n"
        "- Use strict null checks in TypeScript.\n",
    )
    write(
        repo,
        ".kiro/steering/sql.md",
        "---\ninclusion: fileMatch\nfileMatchPattern: [**/*.sql, db/*.yaml]\n---\n\n"
        "- Never edit a migration that has been applied.\n",
    )
    write(
        repo,
        ".github/instructions/go.instructions.md",
        "---\napplyTo:\n- *.go\ndescription: Go rules\n---\n\n- Wrap errors with `%w`.\n",
    )
    rules = compile_rules(Project.load(repo)).rules
    assert sorted(_by_text(rules, "strict null").scopes) == [
        "**/*.ts",
        "docs/*.md",
        "lib/**/*.tsx",
        "src/**/*.tsx",
    ]
    assert sorted(_by_text(rules, "migration").scopes) == ["**/*.sql", "db/*.yaml"]
    assert _by_text(rules, "Wrap errors").scopes == ["*.go"]


def test_a_cursor_rules_folder_below_the_root_applies_to_its_folder(repo: Path) -> None:
    """Cursor reads a ``.cursor/rules/`` in a subfolder too, for the files of that folder
    (an app of a monorepo keeps its own): it was not compiled at all. Its rules are
    scoped to the folder, its globs read from there, and its ``alwaysApply`` holds in
    the folder, not the whole project."""
    always = "---\nalwaysApply: true\n---\n\n"
    rules = _compile_tree(
        repo,
        {
            ".cursor/rules/root.mdc": always + "- Keep PRs small.\n",
            "apps/web/.cursor/rules/angular.mdc": always + "- Use signals for component state.\n",
            "apps/web/.cursor/rules/tests.mdc": (
                "---\nglobs: src/**/*.spec.ts\nalwaysApply: false\n---\n\n- Test with Vitest.\n"
            ),
            "apps/web/.cursor/rules/notes.md": "# Notes\n\n- Prefer OnPush change detection.\n",
        },
    ).rules
    root = _by_text(rules, "Keep PRs small")
    assert root.scopes == [] and root.constitution
    signals = _by_text(rules, "signals")
    assert signals.source.path == "apps/web/.cursor/rules/angular.mdc"
    assert signals.scopes == ["apps/web/**"] and not signals.constitution
    assert _by_text(rules, "Vitest").scopes == ["apps/web/src/**/*.spec.ts"]
    assert _by_text(rules, "OnPush").scopes == ["apps/web/**"]


def test_roo_code_rules_folders_are_read(repo: Path) -> None:
    """Roo Code keeps its rules in ``.roo/rules/`` (every file, nested folders too), or a
    ``.roorules`` file, and a mode's own in ``.roo/rules-<mode>/``: none was compiled.
    The workspace rules apply as plain rules; a mode's are loaded only in the mode the
    user picks, so they are retrieved per task and pinned by no heading."""
    compiled = _compile_tree(
        repo,
        {
            ".roo/rules/style.md": "# Style\n\n- Keep handlers free of static state.\n",
            ".roo/rules/notes/flow.md": "# Flow\n\n- Route each update through one queue.\n",
            ".roo/rules/extra.txt": "Log every retry with its attempt number.\n",
            ".roo/rules-review/checks.md": (
                "# Never skip\n\n- Grade each change from A to D before approving it.\n"
            ),
            ".roo/rules-review/AGENTS.md": "# Review\n\n- Quote the line you comment on.\n",
        },
    )
    rules = compiled.rules
    assert _by_text(rules, "static state").source.path == ".roo/rules/style.md"
    assert _by_text(rules, "one queue").scopes == []
    assert _by_text(rules, "attempt number").source.path == ".roo/rules/extra.txt"
    grading = _by_text(rules, "from A to D")
    assert not grading.constitution
    quoted = _by_text(rules, "Quote the line")
    assert quoted.scopes == []  # a mode's file, not an AGENTS.md nested in a folder
    assert manual_paths(compiled.sources) == {
        ".roo/rules-review/checks.md",
        ".roo/rules-review/AGENTS.md",
    }


def test_roorules_files_are_read(repo: Path) -> None:
    compiled = _compile_tree(
        repo,
        {
            ".roorules": "- Prefer records over mutable classes for messages.\n",
            ".roorules-debug": "- Reproduce the failure in a test before a fix.\n",
        },
    )
    assert _by_text(compiled.rules, "records over").source.path == ".roorules"
    assert manual_paths(compiled.sources) == {".roorules-debug"}


def test_cline_folders_that_hold_no_rules_and_workflows(repo: Path) -> None:
    """Cline keeps hook scripts (with a README) and skills inside ``.clinerules/`` and
    leaves them out of its rules; the hooks README's "## Security Considerations" was
    the project's constitution. A workflow (``.clinerules/workflows/release.md``) runs
    when the user types its name: retrieved per task, no heading of it pins a rule, and
    it is no file of rules for every change. ``paths:`` front matter scopes a rule file
    as Claude Code's does."""
    compiled = _compile_tree(
        repo,
        {
            ".clinerules/general.md": "# General\n\n- Keep modules under 400 lines.\n",
            ".clinerules/hooks/README.md": (
                "# Hooks\n\n## Security Considerations\n\n- Hooks run with your permissions.\n"
            ),
            ".clinerules/skills/notes/SKILL.md": "# Notes skill\n\n- Summarise the diff.\n",
            ".clinerules/skills/other/guide.md": "# Guide\n\n- Open the template first.\n",
            ".clinerules/workflows/release.md": (
                "# Release\n\n## Never push a tag twice\n\n- Tag the release commit once.\n"
            ),
            ".clinerules/web.md": (
                "---\npaths:\n  - web/**/*.tsx\n---\n\n- Wrap every page in the layout shell.\n"
            ),
        },
    )
    rules = compiled.rules
    paths = {r.source.path for r in rules}
    assert not any("/hooks/" in p or "/skills/" in p for p in paths), paths
    tag = _by_text(rules, "Tag the release commit")
    assert not tag.constitution
    assert manual_paths(compiled.sources) == {".clinerules/workflows/release.md"}
    assert _by_text(rules, "layout shell").scopes == ["web/**/*.tsx"]
    assert _by_text(rules, "400 lines").scopes == []


def test_junie_amazon_q_continue_zed_and_agent_md_are_read(repo: Path) -> None:
    """Five more agents keep project rules in files of their own: JetBrains Junie
    (``.junie/guidelines.md``, or an ``AGENTS.md`` in that folder), Amazon Q
    (``.amazonq/rules/*.md``), Continue (``.continue/rules/*.md`` with Cursor's keys), Zed
    (a root ``.rules``) and a root ``AGENT.md``: none was compiled, and Junie's
    ``AGENTS.md`` was read as a nested file scoped to ``.junie/**``."""
    compiled = _compile_tree(
        repo,
        {
            ".junie/guidelines.md": "# Guidelines\n\n- Inject services through constructors.\n",
            ".junie/AGENTS.md": "# Agents\n\n- Keep view models free of IO.\n",
            ".amazonq/rules/cdk.md": "- Enable encryption on every S3 bucket.\n",
            ".amazonq/rules/nested/sql.md": "- Parameterise every SQL query.\n",
            ".continue/rules/tests.md": (
                "---\nname: Tests\nglobs: tests/**/*.py\n---\n\n- Use fixtures for shared setup.\n"
            ),
            ".continue/rules/core.md": (
                "---\nname: Core\nalwaysApply: true\n---\n\n- Keep every module under 400 lines.\n"
            ),
            ".continue/rules/asked.md": (
                "---\nname: Release\nalwaysApply: false\n---\n\n- Tag releases with a v prefix.\n"
            ),
            ".rules": "- Prefer iterators over index loops.\n",
            "AGENT.md": "# Agent\n\n- Write changelog entries in the past tense.\n",
            "docs/AGENT.md": "# The support agent\n\n- Answers tickets overnight.\n",
        },
    )
    rules = compiled.rules
    expect = {
        "constructors": (".junie/guidelines.md", [], False),
        "view models": (".junie/AGENTS.md", [], False),
        "S3 bucket": (".amazonq/rules/cdk.md", [], False),
        "Parameterise": (".amazonq/rules/nested/sql.md", [], False),
        "fixtures": (".continue/rules/tests.md", ["tests/**/*.py"], False),
        "400 lines": (".continue/rules/core.md", [], True),
        "iterators": (".rules", [], False),
        "past tense": ("AGENT.md", [], False),
    }
    _expect_rules(repo, rules, expect)
    assert manual_paths(compiled.sources) == {".continue/rules/asked.md"}
    assert not [r for r in rules if "overnight" in r.text]  # a document, not rules


def test_augment_rules_and_guidelines_are_read_with_their_type(repo: Path) -> None:
    """Augment keeps a project's rules in ``.augment/rules/`` (front matter ``type:
    always_apply``, ``agent_requested`` with a ``description``, or ``manual``) and in the
    older ``.augment-guidelines`` at the root: none was compiled, so a project steered by
    Augment alone had no rules at all."""
    compiled = _compile_tree(
        repo,
        {
            ".augment/rules/core.md": (
                '---\ntype: "always_apply"\n---\n\n- Keep every handler under 50 lines.\n'
            ),
            ".augment/rules/queries.md": (
                '---\ntype: "agent_requested"\ndescription: "Rules when adding queries"\n---\n'
                "\n- Name every query operation Request.\n"
            ),
            ".augment/rules/release.mdx": (
                '---\ntype: "manual"\n---\n\n- Tag releases with a v prefix.\n'
            ),
            ".augment/rules/plain.md": "- Prefer table-driven tests.\n",
            ".augment-guidelines": "# Guidelines\n\n- Wrap errors with context.\n",
        },
    )
    rules = compiled.rules
    expect = {
        "50 lines": (".augment/rules/core.md", [], True),
        "operation Request": (".augment/rules/queries.md", [], False),
        "v prefix": (".augment/rules/release.mdx", [], False),
        "table-driven": (".augment/rules/plain.md", [], False),
        "Wrap errors": (".augment-guidelines", [], False),
    }
    _expect_rules(repo, rules, expect)
    assert manual_paths(compiled.sources) == {".augment/rules/release.mdx"}
    assert {s["kind"] for s in compiled.sources} == {"augment"}
    asked = load_source(repo / ".augment/rules/queries.md", ".augment/rules/queries.md", "augment")
    assert asked.on_demand and not asked.manual
    assert asked.description == "Rules when adding queries"


def test_devin_rules_are_read_with_their_trigger(repo: Path) -> None:
    """Devin (its CLI and Devin Local) reads one rule a file from ``.devin/rules/``, each
    activated by a ``trigger:`` as Windsurf's are: none was compiled, so a project whose
    Symfony rules ("NEVER run doctrine migration in terminal") lived there lost them."""
    compiled = _compile_tree(
        repo,
        {
            ".devin/rules/symfony.md": (
                "---\ntrigger: always_on\n---\n\n- Wrap multi-statement writes in a transaction.\n"
            ),
            ".devin/rules/entity.md": (
                "---\ntrigger: glob\nglobs: src/Entity/**/*.php\n---\n\n"
                "- Define entities with ORM attributes.\n"
            ),
            ".devin/rules/release.md": (
                "---\ntrigger: manual\n---\n\n- Tag releases with a v prefix.\n"
            ),
            ".devin/rules/nested/plain.md": "- Prefer constructor injection.\n",
        },
    )
    rules = compiled.rules
    expect = {
        "multi-statement": (".devin/rules/symfony.md", [], True),
        "ORM attributes": (".devin/rules/entity.md", ["src/Entity/**/*.php"], False),
        "v prefix": (".devin/rules/release.md", [], False),
        "constructor injection": (".devin/rules/nested/plain.md", [], False),
    }
    _expect_rules(repo, rules, expect)
    assert manual_paths(compiled.sources) == {".devin/rules/release.md"}
    assert {s["kind"] for s in compiled.sources} == {"devin"}


def test_a_root_agents_md_in_lower_case_is_read(repo: Path) -> None:
    """A root ``agents.md`` (the project's agent file in lower case, which every agent
    opening ``AGENTS.md`` reads on macOS or Windows) was not compiled; one below the root
    is a page like any other."""
    compiled = _compile_tree(
        repo,
        {
            "agents.md": "# Guide\n\n- Never log patient data.\n",
            "docs/agents.md": "# Our agents\n\n- The triage agent answers overnight.\n",
        },
    )
    rule = _by_text(compiled.rules, "patient data")
    assert (rule.source.path, rule.scopes) == ("agents.md", [])
    _check_span(repo, rule, "Never")
    assert not [r for r in compiled.rules if "overnight" in r.text]


def test_an_instructions_file_named_in_sources_keeps_its_apply_to(repo: Path) -> None:
    """A project keeping Copilot instruction files in `.github/` itself (VS Code reads
    other folders through `chat.instructionsFilesLocations`), listed in `[rules]
    sources` as the compile's warning says: each was read as plain Markdown, its
    `applyTo` ignored, so a rule for one package applied to every file."""
    write(repo, "charter.toml", '[rules]\nsources = [".github/*.instructions.md"]\n')
    write(
        repo,
        ".github/i18n.instructions.md",
        '---\napplyTo: "packages/i18n/**"\n---\n\n'
        "Treat mini-apps under `tests/fixtures/` as build fixtures, not production source.\n",
    )
    compiled = compile_rules(Project.load(repo))
    [rule] = [r for r in compiled.rules if r.source.path == ".github/i18n.instructions.md"]
    assert rule.scopes == ["packages/i18n/**"]


def test_a_sources_entry_that_matches_no_file_is_a_warning(repo: Path) -> None:
    """A misspelt name in `[rules] sources` was read as nothing without a word: the
    compile said "0 rules" for the file the user meant and the user never knew why."""
    write(repo, "charter.toml", '[rules]\nsources = ["docs/agent-rules.md", "docs/*.rules.md"]\n')
    write(repo, "docs/agent_rules.md", "- Never push to `main`.\n")
    compiled = compile_rules(Project.load(repo))
    assert [w for w in compiled.report.warnings if "rules.sources" in w] == [
        "rules.sources entry 'docs/agent-rules.md' matches no file; nothing read",
        "rules.sources entry 'docs/*.rules.md' matches no file; nothing read",
    ]
    assert not compiled.report.errors


FORBIDDEN_BLOCKS = """# Release guide

## Publishing

Never run these:
```bash
git push --force
npm publish
```

**❌ Don't:**
```powershell
Write-LogGroupStart -Title "Outer"
Write-LogGroupStart -Title "Inner"
```

### Avoid

```bash
# skips the checks
npm run deploy --force
rm -rf dist
```

Run these before a release:
```bash
make test
make build
```
"""


def test_commands_under_a_prohibition_are_shown_with_it(repo: Path) -> None:
    write(repo, "AGENTS.md", FORBIDDEN_BLOCKS)
    commands = _commands(repo)
    # before, each command of a block under "Never run these:", "❌ Don't:" or a heading
    # "### Avoid" was shown alone, as a command to run: the opposite of what it says
    assert "Never run these: `git push --force`" in commands
    assert "Never run these: `npm publish`" in commands
    assert '❌ Don\'t: `Write-LogGroupStart -Title "Inner"`' in commands
    assert "Avoid: `npm run deploy --force` (skips the checks)" in commands
    assert "Avoid: `rm -rf dist`" in commands
    assert not any(text in ("`git push --force`", "`rm -rf dist`") for text in commands)
    # the lead-in says nothing alone: it is cited with the first command, not a rule
    rules = compile_rules(Project.load(repo)).rules
    assert not any(r.text in ("Never run these:", "❌ Don't:") for r in rules)
    first = commands["Never run these: `git push --force`"]
    assert (first.source.line_start, first.source.line_end) == (5, 7)
    # a lead-in that does not forbid keeps its commands as they are
    assert "`make test`" in commands and "`make build`" in commands


def test_a_cursor_mdc_link_is_shown_as_the_path_it_names(repo: Path) -> None:
    write(
        repo,
        "apps/api/.cursor/rules/rest.mdc",
        "---\nglobs: src/rest/**/*.ts\n---\n\n# REST\n\n"
        "- **Routers**: [src/rest/routers/](mdc:src/rest/routers/) - one router per feature\n"
        "- Validate input with [the shared schemas](mdc:src/schemas/index.ts).\n"
        "- Quote a link as code: `[x](mdc:y)` stays as written.\n",
    )
    rules = compile_rules(Project.load(repo)).rules
    texts = [r.text for r in rules]
    # before, the link was shown whole: its path twice, behind a scheme no agent opens
    assert "Routers: `src/rest/routers/` - one router per feature" in texts
    assert "Validate input with the shared schemas (`src/schemas/index.ts`)." in texts
    assert "Quote a link as code: `[x](mdc:y)` stays as written." in texts


def test_a_front_matter_scope_that_is_no_glob_is_left_out_with_a_note(repo: Path) -> None:
    """``applyTo: [src/**, null]`` scoped the rule to ``None`` as well (Python's text of
    a YAML null, a glob matching nothing), ``globs: true`` to ``True``, in silence; such
    a value is now left out with a note naming the file. A number is the name it spells."""
    write(
        repo,
        ".github/instructions/list.instructions.md",
        '---\napplyTo:\n  - "lib/**/*.ex"\n  - null\n  - 2024\n---\n\n- Prefer Req for HTTP.\n',
    )
    write(repo, ".cursor/rules/flag.mdc", "---\nglobs: true\n---\n\n- Format with mix format.\n")
    compiled = compile_rules(Project.load(repo))
    scopes = {r.text: r.scopes for r in compiled.rules}
    assert scopes == {
        "Prefer Req for HTTP.": ["2024", "lib/**/*.ex"],
        "Format with mix format.": [],
    }
    notes = sorted(w for w in compiled.report.warnings if "is no glob" in w)
    assert notes == [
        ".cursor/rules/flag.mdc: front-matter scope true/false is no glob; left out "
        "(write globs as strings)",
        ".github/instructions/list.instructions.md: front-matter scope null is no glob; "
        "left out (write globs as strings)",
    ]


def test_warp_qwen_crush_goose_trae_kilo_and_firebase_rule_files_are_read(
    repo: Path,
) -> None:
    """Rule files of agents Charter did not know were not compiled at all: a project
    steered only by a `WARP.md` (thousands of public repositories) or a Trae
    `.trae/rules/project_rules.md` got no rule and no guardrail. Each is read as its
    agent reads it: Warp's, Qwen Code's and Goose's files at the root and for a folder's
    files, Crush's and Firebase Studio's at the root, Trae's with Cursor's front matter,
    Kilo Code's rules folder and a mode's rules loaded only when that mode is picked."""
    compiled = _compile_tree(
        repo,
        {
            "WARP.md": "# Project\n\n- Run the linter before every commit.\n",
            "api/WARP.md": "# API\n\n- Version every endpoint under `/v1`.\n",
            "QWEN.md": "# Qwen\n\n- Keep functions under forty lines.\n\n@docs/style.md\n",
            "docs/style.md": "# Style\n\n- Name booleans as questions.\n",
            "CRUSH.md": "# Crush\n\n- Prefer table-driven tests.\n",
            ".goosehints": "- Use the Makefile targets for builds.\n",
            "web/.goosehints": "- Components live in `src/components/`.\n",
            ".trae/rules/project_rules.md": "- Answer in the user's language.\n",
            ".trae/rules/sql.md": (
                "---\nalwaysApply: false\nglobs: db/**/*.sql\n---\n\n"
                "- Write migrations that can be rolled back.\n"
            ),
            ".trae/rules/core.md": "---\nalwaysApply: true\n---\n\n- Never commit secrets.\n",
            ".kilocode/rules/formatting.md": "- Indent with two spaces.\n",
            ".kilocode/rules-architect/plan.md": "- Write the plan in `plans/`.\n",
            ".idx/airules.md": "# Persona\n\n- Explain each change in one sentence.\n",
        },
    )
    expect = {
        "Run the linter": ("WARP.md", [], False),
        "Version every endpoint": ("api/WARP.md", ["api/**"], False),
        "Keep functions": ("QWEN.md", [], False),
        "Name booleans": ("docs/style.md", [], False),
        "Prefer table-driven": ("CRUSH.md", [], False),
        "Use the Makefile": (".goosehints", [], False),
        "Components live": ("web/.goosehints", ["web/**"], False),
        "Answer in": (".trae/rules/project_rules.md", [], False),
        "Write migrations": (".trae/rules/sql.md", ["db/**/*.sql"], False),
        "Never commit": (".trae/rules/core.md", [], True),
        "Indent with": (".kilocode/rules/formatting.md", [], False),
        "Write the plan": (".kilocode/rules-architect/plan.md", [], False),
        "Explain each": (".idx/airules.md", [], False),
    }
    _expect_rules(repo, compiled.rules, expect)
    assert manual_paths(compiled.sources) == {".kilocode/rules-architect/plan.md"}


def test_antigravity_rules_and_workflows_are_read_with_their_trigger(repo: Path) -> None:
    """Google Antigravity keeps workspace rules in `.agents/rules/` (first `.agent/rules/`),
    each activated by a `trigger:` as Windsurf's are, and workflows the user runs by name
    in `.agents/workflows/`: none was compiled."""
    compiled = _compile_tree(
        repo,
        {
            ".agents/rules/testing.md": (
                "---\ntrigger: always_on\n---\n\n- Use table-driven tests.\n"
            ),
            ".agents/rules/ts.md": (
                "---\ntrigger: glob\nglobs: src/**/*.ts\n---\n\n- Prefer named exports.\n"
            ),
            ".agent/rules/legacy.md": "- Keep the changelog current.\n",
            ".agents/workflows/release.md": "# Release\n\n1. Bump the version first.\n",
        },
    )
    expect = {
        "Use table-driven": (".agents/rules/testing.md", [], True),
        "Prefer named": (".agents/rules/ts.md", ["src/**/*.ts"], False),
        "Keep the changelog": (".agent/rules/legacy.md", [], False),
        "Bump the version": (".agents/workflows/release.md", [], False),
    }
    _expect_rules(repo, compiled.rules, expect)
    assert manual_paths(compiled.sources) == {".agents/workflows/release.md"}
