"""Shapes seen in real rule files that the parser must show as the file says them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from charter.rules.build import rules_from_source
from charter.rules.model import Rule
from charter.rules.sources import load_source

MARKERS = [re.compile(r"must|never|always|critical", re.IGNORECASE)]


def _rules(tmp_path: Path, text: str, name: str = "CLAUDE.md") -> list[Rule]:
    path = tmp_path / name
    path.write_text(text)
    return rules_from_source(load_source(path, name, "claude"), MARKERS)


def _spans(rules: list[Rule]) -> list[tuple[str, int, int]]:
    """Each rule's text as shown and its cited lines, in file order."""
    return [(r.text, r.source.line_start, r.source.line_end) for r in rules]


def _sections(rules: list[Rule]) -> list[tuple[str, int, int, str]]:
    """Each rule's text, cited lines and the section it was read under, in file order."""
    return [(r.text, r.source.line_start, r.source.line_end, r.source.section) for r in rules]


def _assert_texts(rules: list[Rule], *expected: str) -> None:
    """Every expected text is one rule's whole text (the missing ones are named)."""
    texts = {r.text for r in rules}
    missing = [t for t in expected if t not in texts]
    assert not missing, (missing, sorted(texts))


def _by_text(rules: list[Rule], needle: str) -> Rule:
    matches = [r for r in rules if needle in r.text]
    assert matches, f"no rule containing {needle!r}: {[r.text for r in rules]}"
    return matches[0]


def test_bold_around_a_code_span_is_removed_like_any_bold(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Layout\n\n"
        "- **`/src`**: main source code\n"
        "- **`build.yml`** / **`deploy.yml`** - release workflows\n"
        "- **`StyleSheet.create` is unnecessary** with `makeStyles`\n"
        "- Mask secrets with `**********`, **never** log them\n",
    )
    texts = [r.text for r in rules]
    assert texts == [
        "`/src`: main source code",
        "`build.yml` / `deploy.yml` - release workflows",
        "`StyleSheet.create` is unnecessary with `makeStyles`",
        "Mask secrets with `**********`, never log them",
    ]


BOOST = """<laravel-boost-guidelines>
=== boost rules ===

## Searching Documentation (Critically Important)
- Use the `search-docs` tool before any other approach.

=== herd rules ===

## Laravel Herd
- The application is served by Laravel Herd.

=== pest/core rules ===

### Pest Tests
- Pest tests look like this:
<code-snippet name="Basic Pest Test" lang="php">
it('is true', function () {
    expect(true)->toBeTrue();
});
</code-snippet>
- Run the minimal number of tests.

## Code analysis
1. **MUST** search the codebase for similar patterns
2. **MUST** use the same validation patterns
</laravel-boost-guidelines>
"""


def test_laravel_boost_guidelines_read_as_the_agent_sees_them(tmp_path: Path) -> None:
    rules = _rules(tmp_path, BOOST)
    texts = [r.text for r in rules]
    # the "=== name rules ===" lines only separate the generated guideline files
    assert not [t for t in texts if "===" in t], texts
    herd = _by_text(rules, "served by Laravel Herd")
    assert herd.source.section == "Laravel Herd"
    # a <code-snippet> is a code block attached to the rule above it, not rule text
    pest = _by_text(rules, "Pest tests look like this")
    assert pest.text == "Pest tests look like this:"
    assert (pest.source.line_start, pest.source.line_end) == (15, 20)
    assert "code-snippet" not in " ".join(texts)
    minimal = _by_text(rules, "minimal number of tests")
    assert (minimal.source.line_start, minimal.source.line_end) == (21, 21)
    # the closing tag of the wrapper is not part of the last rule
    last = _by_text(rules, "same validation patterns")
    assert last.text == "MUST use the same validation patterns"
    assert (last.source.line_start, last.source.line_end) == (25, 25)


def _conflict(tmp_path: Path, text: str) -> bool:
    from charter.rules.retrieve import contradicts

    first, second = _rules(tmp_path, "# Rules\n\n" + text)
    return contradicts(first, second, 1.0)


def test_different_commands_are_not_contradictions(tmp_path: Path) -> None:
    # same words around the command, but the commands (flags) differ
    assert not _conflict(
        tmp_path,
        "- You must run `vendor/bin/pint --dirty` before finalizing changes.\n"
        "- Do not run `vendor/bin/pint --test`, simply run `vendor/bin/pint`.\n",
    )
    assert _conflict(
        tmp_path,
        "- You must run `vendor/bin/pint --dirty` before finalizing changes.\n"
        "- Do not run `vendor/bin/pint --dirty` before finalizing changes.\n",
    )


def test_a_prohibition_is_compared_by_what_it_prohibits(tmp_path: Path) -> None:
    # the second rule is a prohibition because of "Avoid", later in the rule; what it
    # prohibits is not what the first rule demands
    assert not _conflict(
        tmp_path,
        "- All code must pass linter checks (run `make lint` on the root).\n"
        "- All code must pass the format check (run `make fmt-check`). Avoid dirty"
        " commits that mix formatting with logic.\n",
    )
    assert _conflict(
        tmp_path,
        "- Always use f-strings in log calls.\n- Never use f-strings in log calls.\n",
    )


def test_brace_globs_in_scopes_match_each_alternative(tmp_path: Path) -> None:
    from charter.rules.retrieve import scope_matches

    rules_dir = tmp_path / ".cursor" / "rules"
    rules_dir.mkdir(parents=True)
    (rules_dir / "react.mdc").write_text(
        "---\nglobs: src/**/*.{ts,tsx}, docs/*.md\n---\n- Use function components.\n"
    )
    claude = tmp_path / ".claude" / "rules"
    claude.mkdir(parents=True)
    (claude / "api.md").write_text(
        '---\npaths:\n  - "api/{v1,v2}/**/*.{ts,js}"\n---\n- Validate every request body.\n'
    )
    cursor = load_source(rules_dir / "react.mdc", ".cursor/rules/react.mdc", "cursor")
    assert cursor.scopes == ["src/**/*.ts", "src/**/*.tsx", "docs/*.md"]
    paths = load_source(claude / "api.md", ".claude/rules/api.md", "claude-rules")
    assert scope_matches(paths.scopes, ["api/v2/users/create.js"])
    assert not scope_matches(paths.scopes, ["api/v3/users/create.js"])
    assert scope_matches(cursor.scopes, ["src/components/Profile.tsx"])


def test_an_inner_double_star_in_a_scope_stands_for_no_folder_too() -> None:
    """An `applyTo: "**/db/migration/**/*.sql"` file was not given for a Read of
    `src/main/resources/db/migration/V10__add_column.sql`: `fnmatch` wants a folder
    where a glob's `**` may stand for none."""
    from charter.rules.retrieve import scope_matches

    scopes = ["**/db/migration/**/*.sql"]
    assert scope_matches(scopes, ["src/main/resources/db/migration/V10__add_column.sql"])
    assert scope_matches(scopes, ["db/migration/V10__add_column.sql"])
    assert scope_matches(scopes, ["src/db/migration/old/V1__init.sql"])
    assert not scope_matches(scopes, ["src/db/migrations_old/V1__init.sql"])
    assert scope_matches(["src/**/test/**/*.kt"], ["src/test/AppTest.kt"])


def test_task_boxes_and_github_alert_markers_are_not_rule_text(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Checklist\n\n"
        "- [ ] Update the changelog for every user-visible change.\n"
        "- [x] Keep the README in sync.\n"
        "- [SEC-001] Never log tokens.\n\n"
        "> [!IMPORTANT]\n"
        "> Run `make check` before committing.\n\n"
        "> [!WARNING] Do not edit generated files by hand.\n",
    )
    texts = [r.text for r in rules]
    assert texts == [
        "Update the changelog for every user-visible change.",
        "Keep the README in sync.",
        "Never log tokens.",
        "Important: Run `make check` before committing.",
        "Warning: Do not edit generated files by hand.",
    ]
    assert rules[2].id == "SEC-001"
    assert (rules[3].source.line_start, rules[3].source.line_end) == (7, 8)


def test_an_alert_marker_escaped_by_a_formatter_is_not_rule_text(tmp_path: Path) -> None:
    # a Markdown formatter (mdformat) writes "> \\[!IMPORTANT]": before, the rule read
    # "\\[!IMPORTANT] You are not allowed …"
    rules = _rules(
        tmp_path,
        "# Guide\n\n"
        "> \\[!IMPORTANT]\n"
        "> You **are not** allowed to use `.gdignore` to silence errors. **Fix them\n"
        "> correctly** instead.\n",
    )
    assert [r.text for r in rules] == [
        "Important: You are not allowed to use `.gdignore` to silence errors. "
        "Fix them correctly instead."
    ]


def test_an_alert_of_any_type_is_shown_as_its_word(tmp_path: Path) -> None:
    # a callout type GitHub does not list ("> [!CRITICAL]", as files written for GitHub
    # and Obsidian alike use it, or Obsidian's folded "> [!danger]-"): before, the rule
    # read "[ Any new LDR effect MUST …" and "[!danger]- Never push …"
    rules = _rules(
        tmp_path,
        "# Engine\n\n"
        "> [!CRITICAL]\n"
        "> Any new LDR effect MUST override `runsAfterToneMapping()`.\n\n"
        "> [!danger]-\n"
        "> Never push to main.\n\n"
        "[!link] is how the wiki writes an embed, and stays as written.\n",
    )
    assert [r.text for r in rules] == [
        "Critical: Any new LDR effect MUST override `runsAfterToneMapping()`.",
        "Danger: Never push to main.",
        "[!link] is how the wiki writes an embed, and stays as written.",
    ]


def test_an_import_of_a_nested_claude_md_keeps_its_folder_scope(tmp_path: Path) -> None:
    from charter.rules.sources import resolve_imports

    (tmp_path / "frontend" / "docs").mkdir(parents=True)
    (tmp_path / "frontend" / "CLAUDE.md").write_text(
        "# Frontend\n\n- Use the design tokens for colours.\n\nSee @docs/more.md too.\n"
    )
    (tmp_path / "frontend" / "docs" / "more.md").write_text(
        "# More\n\n- Never import lodash whole.\n\n@deeper.md\n"
    )
    (tmp_path / "frontend" / "docs" / "deeper.md").write_text("- Lazy-load every route.\n")
    nested = load_source(tmp_path / "frontend" / "CLAUDE.md", "frontend/CLAUDE.md", "claude")
    imported = resolve_imports(nested, tmp_path, max_depth=5)
    assert [(s.rel, s.scopes) for s in imported] == [
        ("frontend/docs/more.md", ["frontend/**"]),
        ("frontend/docs/deeper.md", ["frontend/**"]),
    ]


def test_lines_opened_by_a_bullet_glyph_are_one_rule_each(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Style\n\n"
        "• Use tabs for indentation\n"
        "• Keep lines under 100 characters\n\n"
        "Do and Don't\n"
        "✅ Use named exports\n"
        "❌ Never commit console.log calls\n\n"
        "Wrapped prose stays one rule even when a line\n"
        "ends mid-sentence and the next goes on.\n",
    )
    assert [(r.text, r.source.line_start, r.source.line_end) for r in rules] == [
        ("• Use tabs for indentation", 3, 3),
        ("• Keep lines under 100 characters", 4, 4),
        ("✅ Use named exports", 7, 7),
        ("❌ Never commit console.log calls", 8, 8),
        (
            "Wrapped prose stays one rule even when a line ends mid-sentence and the next goes on.",
            10,
            11,
        ),
    ]
    assert rules[2].source.section == "Style > Do and Don't"
    assert [r.polarity for r in rules[2:4]] == ["", "never"]


INDENTED = """Core Principles
You are a senior front-end developer. You prioritize:

    Accuracy & Completeness: No TODOs, placeholders, or untested code.
    Readability & Accessibility: Semantic HTML, Tailwind-first styling.

Execution Process

    Requirement Analysis
        Confirm understanding of the problem. Flag ambiguities early.
    Implementation
        Write the smallest change that passes the tests.

Use the helper like this:

    const total = compute(items, tax);
    return total;
"""


def test_rules_indented_like_code_are_read_as_rules(tmp_path: Path) -> None:
    # text pasted with four-space indents is an indented code block to Markdown; its
    # rules were lost (or hidden in the span of the rule above)
    rules = _rules(tmp_path, INDENTED)
    got = _sections(rules)
    assert got == [
        ("You are a senior front-end developer. You prioritize:", 2, 2, "Core Principles"),
        (
            "Accuracy & Completeness: No TODOs, placeholders, or untested code.",
            4,
            4,
            "",
        ),
        (
            "Readability & Accessibility: Semantic HTML, Tailwind-first styling.",
            5,
            5,
            "",
        ),
        (
            "Confirm understanding of the problem. Flag ambiguities early.",
            10,
            10,
            "Execution Process > Requirement Analysis",
        ),
        (
            "Write the smallest change that passes the tests.",
            12,
            12,
            "Execution Process > Implementation",
        ),
        # real code stays code, attached to the rule above it
        ("Use the helper like this:", 14, 17, ""),
    ]


def test_a_second_front_matter_block_is_not_rule_text(tmp_path: Path) -> None:
    # Cursor's "new rule" writes an empty block; a rule pasted below it brings its own
    rules_dir = tmp_path / ".cursor" / "rules"
    rules_dir.mkdir(parents=True)
    path = rules_dir / "globs.mdc"
    path.write_text(
        "---\ndescription: \nglobs: \nalwaysApply: true\n---\n"
        "---\n"
        'description: "Fix missing globs entries in rule files"\n'
        "globs:\n"
        '  - "**/*.mdc"\n'
        "---\n\n"
        "## Purpose\n"
        "Every rule file must say which paths it applies to.\n"
    )
    src = load_source(path, ".cursor/rules/globs.mdc", "cursor")
    # Cursor applies the first block; the second one's description still helps retrieval
    assert (src.always, src.scopes) == (True, [])
    assert src.description == "Fix missing globs entries in rule files"
    rules = rules_from_source(src, MARKERS)
    assert [(r.text, r.source.line_start) for r in rules] == [
        ("Every rule file must say which paths it applies to.", 12)
    ]


EXAMPLES = """# Naming

- Use kebab-case for file names.

<example>
user-profile.tsx
</example>

<example type="invalid">
UserProfile.tsx

Use PascalCase for every file name here.
```ts
export default UserProfile;
```
</example>

- Keep one component per file.
<bad-example>
- Put all helpers in one utils.ts file
</bad-example>

<important>
- Never rename a file without updating its imports.
</important>
"""


def test_example_tags_illustrate_the_rule_above_and_are_not_rules(tmp_path: Path) -> None:
    # an invalid example shown as a rule tells the agent the opposite of the rule
    rules = _rules(tmp_path, EXAMPLES)
    assert _spans(rules) == [
        ("Use kebab-case for file names.", 3, 16),
        ("Keep one component per file.", 18, 21),
        ("Never rename a file without updating its imports.", 24, 24),
    ]


def test_a_commented_out_rule_stays_hidden_when_the_comment_holds_an_arrow(
    tmp_path: Path,
) -> None:
    rules = _rules(
        tmp_path,
        "# Rules\n\n"
        "- Rule A is always on.\n\n"
        "<!-- Disabled until v2 -> see issue 12\n"
        "- Use the old API client for every request.\n"
        "-->\n\n"
        "<div>Deploy only from the release branch after review.</div>\n",
    )
    assert [r.text for r in rules] == [
        "Rule A is always on.",
        "Deploy only from the release branch after review.",
    ]


def test_a_rule_file_wrapped_whole_in_a_markdown_fence_is_read_as_rules(
    tmp_path: Path,
) -> None:
    # pasted from a chat answer: the whole file is one ```markdown block
    rules = _rules(
        tmp_path,
        "```markdown\n# Project rules\n\n- Use pnpm, never npm or yarn.\n"
        "- Write tests with vitest.\n```\n",
    )
    assert [(r.text, r.source.line_start, r.source.section) for r in rules] == [
        ("Use pnpm, never npm or yarn.", 4, "Project rules"),
        ("Write tests with vitest.", 5, "Project rules"),
    ]
    # a fenced example of a rule file inside a file stays an example
    rules = _rules(
        tmp_path,
        "# Writing rule files\n\n- Give every rule file a title.\n"
        "```markdown\n# Title\n- Use pnpm.\n```\n",
    )
    assert [(r.text, r.source.line_end) for r in rules] == [("Give every rule file a title.", 7)]
    # fences inside the wrapper pair up as the author meant
    rules = _rules(
        tmp_path,
        "```md\n# Rules\n- Use pnpm.\n```ts\nconst x = 1;\n```\n- Use vitest for tests.\n```\n",
    )
    assert [(r.text, r.source.line_start, r.source.line_end) for r in rules] == [
        ("Use pnpm.", 3, 6),
        ("Use vitest for tests.", 7, 7),
    ]
    # two separate fences are not a wrapper
    text = "```markdown\n# A\n```\n\nUse pnpm for every install.\n\n```\nnpm i\n```\n"
    assert [r.text for r in _rules(tmp_path, text)] == ["Use pnpm for every install."]


def test_rules_of_different_folders_do_not_contradict(tmp_path: Path) -> None:
    from charter.rules.retrieve import contradicts

    def rule(folder: str, text: str) -> Rule:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        path = tmp_path / folder / "AGENTS.md"
        path.write_text(f"# AGENTS.md\n\n- {text}\n")
        return rules_from_source(load_source(path, f"{folder}/AGENTS.md", "agents"), MARKERS)[0]

    always = rule("frontend", "Always use semicolons at the end of statements.")
    never = rule("backend", "Never use semicolons at the end of statements.")
    assert (always.scopes, never.scopes) == (["frontend/**"], ["backend/**"])
    assert not contradicts(always, never, 1.0)
    # a folder inside the other's folder is the same files: still a contradiction
    nested = rule("frontend/app", "Never use semicolons at the end of statements.")
    assert contradicts(always, nested, 1.0)


def test_a_backslash_line_break_is_not_text(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# R\n\nUse tabs.\\\nKeep lines short.\n\n* Line one of item\\\n  continues here.\n",
    )
    assert [(r.text, r.source.line_start, r.source.section) for r in rules] == [
        ("Use tabs.", 3, "R"),
        ("Keep lines short.", 4, "R"),
        ("Line one of item continues here.", 6, "R"),
    ]


def test_a_shouted_line_between_equals_signs_stays_a_rule(tmp_path: Path) -> None:
    # only Laravel Boost's "=== name rules ===" joins are dividers
    rules = _rules(tmp_path, "# R\n\n=== NEVER commit the .env file ===\n")
    assert [r.text for r in rules] == ["=== NEVER commit the .env file ==="]


def test_a_title_case_line_over_a_list_is_its_section_not_a_rule(tmp_path: Path) -> None:
    # plain-text rule files (.cursorrules) write headings without '#'
    rules = _rules(
        tmp_path,
        "You are an expert in Python and FastAPI.\n\n"
        "Key Principles\n\n"
        "- Write concise, technical responses.\n"
        "- Prefer iteration over duplication.\n\n"
        "Error Handling and Validation\n"
        "- Handle errors at the beginning of functions.\n\n"
        "Follow these rules\n"
        "- Use early returns.\n",
        ".cursorrules",
    )
    got = [(r.text, r.source.line_start, r.source.section) for r in rules]
    assert got == [
        ("You are an expert in Python and FastAPI.", 1, ""),
        ("Write concise, technical responses.", 5, "Key Principles"),
        ("Prefer iteration over duplication.", 6, "Key Principles"),
        ("Handle errors at the beginning of functions.", 9, "Error Handling and Validation"),
        # an instruction is not Title Case: it stays a rule
        ("Follow these rules", 11, ""),
        ("Use early returns.", 12, ""),
    ]


def test_a_short_sentence_case_label_over_a_list_is_its_section_not_a_rule(
    tmp_path: Path,
) -> None:
    # generated instruction files title their parts in plain sentence case, each line
    # straight over its list: a label that instructs nothing is the list's section (alone
    # it asked nothing and spent the budget); one that instructs stays a rule
    rules = _rules(
        tmp_path,
        "## Instructions for this repo\n\n"
        "Local development\n"
        "- Serve the site with `hugo serve`.\n\n"
        "Key files to know\n"
        "- `config.toml`: menus and permalinks.\n\n"
        "Build and deploy\n"
        "- Build with `hugo`.\n\n"
        "Never commit these\n"
        "- Files under `docs/`.\n",
    )
    got = [(r.text, r.source.line_start, r.source.section) for r in rules]
    top = "Instructions for this repo"
    assert ("Serve the site with `hugo serve`.", 4, f"{top} > Local development") in got, got
    assert ("`config.toml`: menus and permalinks.", 7, f"{top} > Key files to know") in got, got
    assert all(text not in ("Local development", "Key files to know") for text, _, _ in got)
    assert ("Build and deploy", 9, top) in got, got
    assert any(text.startswith("Never commit these") for text, _, _ in got), got


def test_a_bare_fence_left_open_after_a_detached_example_loses_no_rules(tmp_path: Path) -> None:
    # an example's opening fence indented in its list item, its code not: the item (and
    # that block) ends at the code's first line, so the closing fence opens a block that
    # runs to the end of the file, and every rule after it was read as code
    rules = _rules(
        tmp_path,
        "Testing\n"
        "- Use individual `@test` calls.\n"
        "- Example:\n"
        "  ```julia\n"
        "@testitem begin\n"
        "    @test f(2) == 3\n"
        "end\n"
        "  ```\n\n"
        "Dependencies\n"
        "- Specify version constraints in the Project.toml file.\n"
        "- Use include() to split large modules.\n",
    )
    spans = {r.text: r.source.line_start for r in rules}
    assert spans.get("Specify version constraints in the Project.toml file.") == 11, spans
    assert spans.get("Use include() to split large modules.") == 12, spans
    # a fence naming its language and left open is code to the end, as CommonMark says
    open_code = _rules(tmp_path, "# Setup\n\n```bash\nnpm test\n- not a rule\n")
    assert not any("not a rule" in r.text and r.kind == "item" for r in open_code)


def test_a_label_after_a_line_that_goes_on_continues_its_sentence(tmp_path: Path) -> None:
    # "… disclosed through an" over "`Assisted-by:` commit message trailer." is one
    # sentence wrapped before a code span that ends in a colon: the line after it was
    # read as a "label: value" line and compiled alone, the sentence before it cut off
    rules = _rules(
        tmp_path,
        "# Commits\n\n"
        "We ask that AI tools be disclosed when a commit is mostly theirs. When making a\n"
        "commit this should be disclosed through an\n"
        "`Assisted-by:` commit message trailer.\n\n"
        "Stack:\n"
        "Backend: Node.js\n"
        "Frontend: React\n",
        ".cursorrules",
    )
    texts = [r.text for r in rules]
    assert any(
        t.endswith("disclosed through an `Assisted-by:` commit message trailer.") for t in texts
    ), texts
    assert not any(t.startswith("`Assisted-by:`") for t in texts), texts
    assert "Backend: Node.js" in texts and "Frontend: React" in texts, texts


def test_items_under_a_one_verb_heading_are_shown_after_it(tmp_path: Path) -> None:
    # "## Remove" over "Doc comments that paraphrase the function name": shown alone the
    # item reads as a thing to write; it is the heading's object. An item that instructs
    # by itself, and a heading that is no such verb, are left as they were
    rules = _rules(
        tmp_path,
        "# Comment Style\n\n"
        "## Remove\n\n"
        "- Section banners that label blocks of code\n"
        "- Doc comments that paraphrase the function name\n\n"
        "## Keep\n\n"
        "- Non-obvious design decisions and the reason behind them\n"
        "- Constraints with their cause\n"
        "- Always keep license headers\n\n"
        "## Layout\n\n"
        "- Handlers in the api folder\n",
        ".cursorrules",
    )
    texts = [r.text for r in rules]
    assert "Remove: Doc comments that paraphrase the function name" in texts, texts
    assert "Remove: Section banners that label blocks of code" in texts, texts
    assert "Keep: Non-obvious design decisions and the reason behind them" in texts, texts
    assert "Always keep license headers" in texts, texts
    assert "Handlers in the api folder" in texts, texts


def test_label_value_lines_and_hard_breaks_are_one_rule_each(tmp_path: Path) -> None:
    # "Backend: Node.js" is a statement, not a title over the lines under it; a line
    # ended with two spaces (a Markdown hard break) was ended on purpose
    rules = _rules(
        tmp_path,
        "# Stack\n\n"
        "Backend: Node.js with Express.js  \n"
        "Database: MongoDB with Mongoose ODM  \n"
        "Version Control: Git\n"
        "Deployment: Docker (optional)\n\n"
        "Users browse available pools  \n"
        "Submit up to 3 requests per pool  \n"
        "a hard break inside a wrapped\n"
        "sentence stays one rule.\n\n"
        "**Note:**  \n"
        "This lead-in stays with its note.\n",
        ".cursorrules",
    )
    got = _sections(rules)
    assert got == [
        ("Backend: Node.js with Express.js", 3, 3, "Stack"),
        ("Database: MongoDB with Mongoose ODM", 4, 4, "Stack"),
        ("Version Control: Git", 5, 5, "Stack"),
        ("Deployment: Docker (optional)", 6, 6, "Stack"),
        ("Users browse available pools", 8, 8, "Stack"),
        (
            "Submit up to 3 requests per pool a hard break inside a wrapped"
            " sentence stays one rule.",
            9,
            11,
            "Stack",
        ),
        ("Note: This lead-in stays with its note.", 13, 14, "Stack"),
    ]


TAGGED = """# Review

<common_commands>
## Checks

- Run `gh pr checks` before approving.
</common_commands>

<critical_rules>

- Never merge your own pull request.

- Never force-push a shared branch.
</critical_rules>

<general_guidelines_for_commenting>
Thank the author first and keep the review short.

Request changes instead of approving when something must change.
</general_guidelines_for_commenting>
"""


def test_a_tag_names_the_section_of_everything_inside_it(tmp_path: Path) -> None:
    # prompt-style files group rules in tags with blank lines inside and underscores in
    # the name (no HTML tag has one: Markdown read "<general_guidelines...>" as text)
    rules = _rules(tmp_path, TAGGED)
    got = [(r.text, r.source.line_start, r.source.section, r.constitution) for r in rules]
    assert got == [
        ("Run `gh pr checks` before approving.", 4, "Review > common_commands > Checks", False),
        ("Never merge your own pull request.", 11, "Review > critical_rules", True),
        ("Never force-push a shared branch.", 13, "Review > critical_rules", True),
        # the heading inside the tag ends with it
        (
            "Thank the author first and keep the review short.",
            17,
            "Review > general_guidelines_for_commenting",
            False,
        ),
        (
            "Request changes instead of approving when something must change.",
            19,
            "Review > general_guidelines_for_commenting",
            False,
        ),
    ]


def test_a_tag_named_in_words_is_a_section_not_part_of_a_rule(tmp_path: Path) -> None:
    # prompt templates name their sections in words ("<SIMULATION VALIDATION>"): the
    # closing tag under a list item was shown as the end of that rule, the next opening
    # tag with it ("... before committing changes. </INCREMENTAL ROLLOUTS>
    # <SIMULATION VALIDATION>"), and the section was lost
    rules = _rules(
        tmp_path,
        "# Implement\n\n2. Plan one change at a time\n<INCREMENTAL ROLLOUTS>\n"
        "- One logical feature at a time.\n"
        "- Ensure new code fits the structure before committing changes.\n"
        "</INCREMENTAL ROLLOUTS>\n<SIMULATION VALIDATION>\n"
        "- Do not propose a change unless the dry run passes.\n</SIMULATION VALIDATION>\n"
        "- If the dry run passes, do the actual implementation.\n",
        ".cursorrules",
    )
    got = _sections(rules)
    assert got == [
        ("Plan one change at a time", 3, 3, "Implement"),
        ("One logical feature at a time.", 5, 5, "Implement > INCREMENTAL ROLLOUTS"),
        (
            "Ensure new code fits the structure before committing changes.",
            6,
            6,
            "Implement > INCREMENTAL ROLLOUTS",
        ),
        (
            "Do not propose a change unless the dry run passes.",
            9,
            9,
            "Implement > SIMULATION VALIDATION",
        ),
        ("If the dry run passes, do the actual implementation.", 11, 11, "Implement"),
    ]


def test_a_shebang_is_not_a_comment_of_the_code(tmp_path: Path) -> None:
    # a script under a heading with no rule above it became the rule "!/usr/bin/env
    # bash", once per script (and lint called the copies duplicates)
    rules = _rules(
        tmp_path,
        "# Hooks\n\n## Validate\n\n```bash\n#!/usr/bin/env bash\ninput=$(cat)\n"
        'if [ -z "$input" ]; then exit 1; fi\n```\n\n'
        "## Test\n\nRun the tests:\n\n```bash\n#!/usr/bin/env bash\nnpm test\n```\n",
    )
    # (the lead-in and its one command are one rule)
    assert [(r.text, r.source.line_start) for r in rules] == [
        ("Run the tests: `npm test`", 11),
    ]


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        # each item alone is one word, too short to be a rule: the paths were lost and the
        # rule said "do not hand-edit" without saying what
        (
            "# Generated Files\n\n"
            "Do not hand-edit generated or build artifacts:\n\n"
            "- `generated/*`\n- `web/.next/*`\n- `*/dist/*`\n\n"
            "When adding a new tool:\n\n"
            "- Register it in the tool index.\n",
            "CLAUDE.md",
            [
                (
                    "Do not hand-edit generated or build artifacts: `generated/*`;"
                    " `web/.next/*`; `*/dist/*`",
                    3,
                    7,
                ),
                ("When adding a new tool:", 9, 9),
                ("Register it in the tool index.", 11, 11),
            ],
        ),
        # "`make fmt`" alone was a rule, shown to a task as if it said "run it"; what the
        # list says is the lead-in's: these need no permission (under a negated lead-in
        # each item is shown with it instead)
        (
            "# Agents\n\n## Permissions\n\n"
            "Run these commands without asking for permission:\n"
            "- `make test`\n- `make fmt`\n- `go test ...`\n\n"
            "Never run these:\n\n- `git push --force`\n- `make clean-all`\n",
            "AGENTS.md",
            [
                (
                    "Run these commands without asking for permission: `make test`;"
                    " `make fmt`; `go test ...`",
                    5,
                    8,
                ),
                ("Never run these:", 10, 10),
                ("Never run these: `git push --force`", 12, 12),
                ("Never run these: `make clean-all`", 13, 13),
            ],
        ),
    ],
)
def test_short_items_are_part_of_the_lead_in_above_them(
    tmp_path: Path, text: str, name: str, expected: list[tuple[str, int, int]]
) -> None:
    assert _spans(_rules(tmp_path, text, name)) == expected


def test_a_title_case_line_over_a_paragraph_or_a_heading_is_not_a_rule(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "Code Style and Structure\n\n"
        "Write concise, technical TypeScript code with accurate examples.\n\n"
        "Purpose and Functionality\n\n"
        "## Authentication\n\n"
        "Use the session helper for every protected page.\n",
        ".cursorrules",
    )
    got = [(r.text, r.source.line_start, r.source.section) for r in rules]
    assert got == [
        (
            "Write concise, technical TypeScript code with accurate examples.",
            3,
            "Code Style and Structure",
        ),
        ("Use the session helper for every protected page.", 7, "Authentication"),
    ]


def test_a_rule_wrapped_in_a_tag_on_its_line_is_shown_without_it(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Git\n\n<important>Do not return any text other than the commands.</important>\n\n"
        "<code>npm test</code> runs every suite before a push.\n",
    )
    assert [r.text for r in rules] == [
        "Do not return any text other than the commands.",
        "<code>npm test</code> runs every suite before a push.",
    ]


def test_chinese_and_japanese_rules_are_not_dropped_as_one_word(tmp_path: Path) -> None:
    # no spaces between words: "错误：始终检查并处理" (errors: always check and handle)
    # was one "word", too short to be a rule; Japanese lines ending in "。" were joined
    rules = _rules(
        tmp_path,
        "# 代码风格规范\n\n## Go\n- 错误：始终检查并处理\n- 文件：`snake_case.go`\n\n"
        "## 実装ステップ\n\n"
        "ツール群を提供するMCPサーバーです。\n"
        "タスクのCRUD操作を提供します。\n\n"
        "- 単体テストおよび統合テストを修正/追加する\n",
    )
    assert _spans(rules) == [
        ("错误：始终检查并处理", 4, 4),
        ("文件：`snake_case.go`", 5, 5),
        ("ツール群を提供するMCPサーバーです。", 9, 9),
        ("タスクのCRUD操作を提供します。", 10, 10),
        ("単体テストおよび統合テストを修正/追加する", 12, 12),
    ]


def test_a_list_item_lead_in_is_cited_with_its_items(tmp_path: Path) -> None:
    # sub-items longer than a few words that name or describe rather than instruct: the
    # lead-in with its items is the rule (cited from the lead-in's line), as a reader
    # labels it; sub-items that instruct stay rules of their own under the lead-in, the
    # first one cited from the lead-in's line (its text starts with the lead-in's words)
    rules = _rules(
        tmp_path,
        "# Translations\n\n"
        "1. **Copy the English file** as a starting point\n"
        "2. **Do NOT translate**:\n"
        "   - File paths and URLs\n"
        "   - Code blocks (unless comments need translation)\n"
        "   - Technical terms that are commonly used in English (e.g. plugin, SQL)\n"
        "3. **Before you open the pull request**:\n"
        "   - Run the link checker over every translated page\n"
        "   - Never machine-translate the legal pages without a review\n",
    )
    assert _spans(rules) == [
        ("Copy the English file as a starting point", 3, 3),
        (
            "Do NOT translate: File paths and URLs; Code blocks (unless comments need"
            " translation); Technical terms that are commonly used in English (e.g. plugin,"
            " SQL)",
            4,
            7,
        ),
        (
            "Before you open the pull request: Run the link checker over every translated page",
            8,
            9,
        ),
        (
            "Before you open the pull request: Never machine-translate the legal pages without"
            " a review",
            10,
            10,
        ),
    ]


def test_a_heading_over_its_code_example_is_the_rule(tmp_path: Path) -> None:
    # Cursor rules often state a practice as a heading and show it in code: the heading
    # was only a section name, and the rule was cited from the code's first line (or lost
    # when the code had no comment); a one- or two-word label ("Example") stays a section
    rules = _rules(
        tmp_path,
        "# Caching\n\n"
        "### Use `withCache()` for simple database queries\n"
        "```typescript\n"
        "// cached for 30 minutes\n"
        "export const get = (id: string) => withCache(() => load(id));\n"
        "```\n\n"
        "### Single Query Pattern\n\n"
        "```typescript\n"
        "return prisma.environment.findUniqueOrThrow({ where: { id } });\n"
        "```\n\n"
        "## Example\n"
        "```typescript\n"
        "// a plain label over code\n"
        "const x = 1;\n"
        "```\n",
    )
    assert _spans(rules) == [
        ("Use `withCache()` for simple database queries", 3, 7),
        ("Single Query Pattern", 9, 13),
        ("a plain label over code", 15, 19),
    ]
    assert "cached for 30 minutes" in rules[0].search_text


def test_a_numbered_or_chinese_label_over_code_is_no_rule_of_its_own(tmp_path: Path) -> None:
    # Trae's rule files (often Chinese, in numbered outlines) put a directory tree under
    # "### 11.1 目录结构" ("directory structure"): each Chinese character counted a word and
    # the outline number another, so the label became a rule saying nothing; a Chinese
    # heading that says what the code shows stays the rule, as an English one does
    rules = _rules(
        tmp_path,
        "# 项目规则\n\n"
        "## 11. 模块\n"
        "业务模块放在 `src/module` 下。\n\n"
        "### 11.1 目录结构\n"
        "```\n"
        "src/module/\n"
        "└── user/\n"
        "```\n\n"
        "### 项目结构\n"
        "```\n"
        "src/\n"
        "```\n\n"
        "### 9.2 Directory layout\n"
        "```\n"
        "src/\n"
        "```\n\n"
        "### 使用 `withCache()` 缓存简单查询\n"
        "```typescript\n"
        "export const get = (id: string) => withCache(() => load(id));\n"
        "```\n",
        name="project_rules.md",
    )
    assert _spans(rules) == [
        ("业务模块放在 `src/module` 下。", 3, 4),
        ("使用 `withCache()` 缓存简单查询", 22, 25),
    ]


def test_agent_skills_are_not_rule_files_and_nested_claude_folders_keep_their_scope(
    tmp_path: Path,
) -> None:
    """A folder with a SKILL.md is an agent skill the agent loads itself; its AGENTS.md is
    the skill's document. A nested ``.claude`` folder's files keep their folder's scope
    (only the root's ``.claude/CLAUDE.md`` is the root's)."""
    from charter.rules.sources import discover, folder_scope

    for rel, text in {
        "AGENTS.md": "- Run the tests.\n",
        ".agents/skills/react/SKILL.md": "---\nname: react\n---\nUse when writing React.\n",
        ".agents/skills/react/AGENTS.md": "- Version 1.0.0\n",
        ".agents/skills/react/rules/CLAUDE.md": "- Memoise selectors.\n",
        "web/AGENTS.md": "- Use the design tokens.\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = [p.relative_to(tmp_path).as_posix() for _, p in discover(tmp_path)]
    assert found == ["AGENTS.md", "web/AGENTS.md"]
    assert folder_scope(".claude/CLAUDE.md") == []
    assert folder_scope(".claude/skills/x/AGENTS.md") == [".claude/skills/x/**"]
    assert folder_scope("web/.claude/CLAUDE.md") == ["web/**"]


def test_a_gemini_md_in_the_gemini_settings_folder_is_its_parent_folders(
    tmp_path: Path,
) -> None:
    """Gemini CLI keeps its settings in ``.gemini/``, and projects put their
    ``GEMINI.md`` beside them: no code lives there, so scoped to ``.gemini/**`` the
    file's rules were filtered out of every task that named a file."""
    rels = (".gemini/GEMINI.md", "web/.gemini/GEMINI.md")
    scopes = _discovered_scopes(tmp_path, rels, "- Keep both implementations in sync.\n")
    assert scopes == {".gemini/GEMINI.md": [], "web/.gemini/GEMINI.md": ["web/**"]}


def test_an_agents_md_in_the_github_folder_is_the_repositorys(tmp_path: Path) -> None:
    """``.github/`` is the repository's settings folder (Copilot's repository-wide
    instructions live there) and holds no code: an ``AGENTS.md`` kept beside them names
    the project's paths ("Look first: `workflow/Snakefile`"), and scoped to
    ``.github/**`` its rules were filtered out of every task that named a file. A deeper
    folder of ``.github`` is a folder like any other."""
    rels = (".github/AGENTS.md", "web/.github/CLAUDE.md", ".github/workflows/AGENTS.md")
    scopes = _discovered_scopes(
        tmp_path, rels, "- Do not change `workflow/envs/*` without asking.\n"
    )
    assert scopes == {
        ".github/AGENTS.md": [],
        ".github/workflows/AGENTS.md": [".github/workflows/**"],
        "web/.github/CLAUDE.md": ["web/**"],
    }


def test_a_glob_of_every_file_is_no_scope(tmp_path: Path) -> None:
    for globs in ("*", "**", "**/*", '["*", "src/**"]'):
        path = tmp_path / "design.mdc"
        path.write_text(f"---\nalwaysApply: false\nglobs: {globs}\n---\n- Use tokens.\n")
        assert load_source(path, ".cursor/rules/design.mdc", "cursor").scopes == [], globs
    path.write_text("---\nglobs: src/**/*.ts\n---\n- Use tokens.\n")
    assert load_source(path, ".cursor/rules/design.mdc", "cursor").scopes == ["src/**/*.ts"]


def _assert_pinned(rules: list[Rule], pinned: list[str], retrieved: list[str]) -> None:
    """Each rule named by a piece of its text is in the constitution, or retrieved per task."""
    wrong = [t for t in pinned if not _by_text(rules, t).constitution]
    wrong += [t for t in retrieved if _by_text(rules, t).constitution]
    assert not wrong, f"pinned or retrieved wrongly: {wrong}"


def _with_default_markers(path: Path, kind: str, text: str) -> list[Rule]:
    """The rules of ``text`` written to ``path``, read with the shipped constitution markers."""
    from charter.rules.settings import DEFAULT_CONSTITUTION_MARKERS

    path.write_text(text, encoding="utf-8")
    markers = [re.compile(m, re.IGNORECASE | re.MULTILINE) for m in DEFAULT_CONSTITUTION_MARKERS]
    return rules_from_source(load_source(path, path.name, kind), markers)


def test_a_bold_line_heading_its_items_joins_the_constitution_with_them(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Server\n\n**CRITICAL: Never call `session.commit()`**\n"
        "- API: the session commits at the end of the request\n"
        "- Use `session.flush()` to see data before that\n\n"
        "**Endpoint layout**\n- Keep one router per module\n",
    )
    assert _by_text(rules, "Never call").constitution
    assert _by_text(rules, "flush()").constitution
    assert not any("Endpoint layout" in r.text for r in rules)  # a title: the section
    assert not _by_text(rules, "one router").constitution
    assert _by_text(rules, "one router").source.section == "Server > Endpoint layout"


def test_a_heading_marks_the_constitution_through_its_emoji_or_number(tmp_path: Path) -> None:
    """A personal CLAUDE.md opened with "## 🚨 CRITICAL RULES - READ FIRST" and its
    constitution was empty: the markers are read from the heading's first word, and the
    first word was an emoji. Decoration and outline numbers no longer hide the word; a
    decorated heading that marks nothing stays retrieved per task."""
    rules = _with_default_markers(
        tmp_path / "CLAUDE.md",
        "claude",
        "# Guide\n\n## 🚨 CRITICAL RULES - READ FIRST\n\n- NEVER delete the user's notes\n\n"
        "## 1. Safety\n\n- Back up a file before rewriting it\n\n"
        "### ❌ Never include:\n\n- `Co-Authored-By:` lines in commits\n\n"
        "## 🚀 Getting started\n\n- Run `make setup` once\n\n"
        "## 2FA login\n\n- Codes expire after 30 seconds\n",
    )
    _assert_pinned(
        rules,
        pinned=["delete the user's notes", "Back up a file", "Co-Authored-By"],
        retrieved=["make setup", "Codes expire"],
    )


def test_a_heading_marks_the_constitution_past_a_short_label(tmp_path: Path) -> None:
    """ "## *IMPORTANT*: Always read …" and a bold line "**Bug fixes — NEVER skip the
    failing test**:" over its steps marked nothing: the
    markers are read from a heading's first word, and the first word was a label. A label
    of up to four words set off by a colon or a dash is now read past; a label over a
    heading that marks nothing, and a sentence with a colon in it, still mark nothing."""
    rules = _with_default_markers(
        tmp_path / "AGENTS.md",
        "agents",
        "# Guide\n\n## *IMPORTANT*: Always respect the nested AGENTS.md of a folder\n\n"
        "- Read the folder's AGENTS.md before editing files in it\n\n"
        "## Workflow\n\n**Bug fixes — NEVER skip the failing test**:\n"
        "1. Reproduce the bug with a failing test\n2. Fix the code once the test fails\n\n"
        "**Release notes — see the wiki**:\n- Keep entries short\n\n"
        "## Important: files\n\n- `src/app.ts` holds the entry point\n\n"
        "## When the build breaks on CI: always a cache issue\n\n- Clear the cache\n",
    )
    _assert_pinned(
        rules,
        # the bold line is pinned with its steps: it says what they are for
        pinned=[
            "Read the folder's AGENTS.md",
            "NEVER skip the failing test",
            "Reproduce the bug",
            "Fix the code once",
        ],
        retrieved=["Keep entries short", "entry point", "Clear the cache"],
    )


def test_a_line_set_apart_in_bold_starts_a_rule_of_its_own(tmp_path: Path) -> None:
    """Lines of "**Label**: commands" one per line, then "**Tracing** (use first):" over a
    line of commands and "**Always run `make check` after parser changes.**": the
    last three were one rule, the invariant at the end of a line cut long before it. A
    line wholly in bold, and a bold label with an aside before its colon, now start a
    rule; bold on a word of hard-wrapped prose does not."""
    rules = _rules(
        tmp_path,
        "# Guide\n\n## Commands\n\n**Build**: `make build`, `./scripts/pack.sh`\n"
        "**Release**: `make dist` (local), `make dist-ci` (CI) — packs it with docs\n"
        "**Tracing** (use first — before println):\n"
        "`APP_LOG=debug app check file.x` | `APP_LOG=trace app run file.x`\n"
        "**Always run `make check` after parser changes.**\n\n"
        "## Notes\n\nWe keep the cache in\n**Redis** for speed and the queue in Postgres.\n",
    )
    _assert_texts(
        rules,
        "Build: `make build`, `./scripts/pack.sh`",
        "Release: `make dist` (local), `make dist-ci` (CI) — packs it with docs",
        "Tracing (use first — before println): `APP_LOG=debug app check file.x` | "
        "`APP_LOG=trace app run file.x`",
        "Always run `make check` after parser changes.",
        "We keep the cache in Redis for speed and the queue in Postgres.",
    )
    assert _spans(rules)[2][1:] == (7, 8)


def test_an_underscore_inside_a_heading_word_is_kept() -> None:
    """``## Running node_modules binaries`` was the section "Running nodemodules
    binaries": emphasis marks were stripped wherever they stood."""
    from charter.rules.blocks import split_blocks

    blocks, _ = split_blocks(
        "# Guide\n\n## Running node_modules binaries\n\n### _Emphasis_ and `snake_case`\n\n"
        "Never use `npx`.\n",
        0,
    )
    assert blocks[0].section == [
        "Guide",
        "Running node_modules binaries",
        "Emphasis and snake_case",
    ]


def test_a_question_over_a_list_is_shown_with_each_answer(tmp_path: Path) -> None:
    """A Django app's "When should authorization tests be written?" over "- When adding a
    new restricted field", …: each answer was a rule alone, a fragment that asks nothing,
    and ranked first for "add a filter to the GraphQL API"."""
    rules = _rules(
        tmp_path,
        "# GraphQL Authorization Tests\n\n"
        "When should authorization tests be written?\n"
        "- When adding a new restricted field\n"
        "- When adding a new restricted mutation or query\n\n"
        "When writing authorization tests do the ALL of the following:\n"
        "- Test against all client types\n",
    )
    assert _spans(rules) == [
        ("When should authorization tests be written? When adding a new restricted field", 3, 4),
        (
            "When should authorization tests be written? When adding a new restricted "
            "mutation or query",
            5,
            5,
        ),
        ("When writing authorization tests do the ALL of the following:", 7, 7),
        ("Test against all client types", 8, 8),
    ]


def test_a_brief_is_not_cut_inside_an_abbreviation_a_parenthesis_or_after_a_label() -> None:
    """Briefs of a Django app's rules: "Do not use Django signals (e.g. …", "Check last git
    tag to find what version we are branched from (e.g. …" and "Migration: …" (the path it
    labels cut away)."""
    from charter.rules.render import compact

    signals = (
        "Do not use Django signals (e.g. `post_save`, `pre_delete`, `@receiver`). Call the "
        "relevant logic explicitly from the code that triggers it instead."
    )
    assert compact(signals, 20) == "Do not use Django signals …"
    tag = (
        "Check last git tag to find what version we are branched from (e.g. 3.22 tag). "
        "Based on that, add description to new fields with ADDED_IN_{VERSION} clause"
    )
    assert compact(tag, 20) == "Check last git tag to find what version we are branched from …"
    path = "Migration: `saleor/giftcard/migrations/0023_mark_gift_cards_search_vector_as_dirty.py`"
    assert compact(path, 20) == path
    first = "Use `uv` for packages (e.g. `uv add x`, i.e. never pip)."
    assert compact(f"{first} Then lock them with the lock command of the tool.", 24) == (
        f"{first} …"
    )


def test_a_brief_keeps_the_link_its_label_or_preposition_points_at() -> None:
    """A table row of a CLAUDE.md index, "Where: [skill](path/SKILL.md) | Use for: …", was
    briefed "Where: …", and "helpers … can be found in [Dockerfile](…)" as "… found in
    …": the link, too long for the cut, was dropped and the line pointed at nothing."""
    from charter.rules.render import compact

    row = (
        "Where: [add-data-table](.tools/skills/add-data-table/SKILL.md) | Use for: Postgres "
        "`data.*` tables via `data-schema/` (spec, verify, load, publish) — not the "
        "static datasets of the map"
    )
    assert compact(row, 20) == "Where: [add-data-table](.tools/skills/add-data-table/SKILL.md) …"
    found = "Helpers are installed which can be found in [worker.Dockerfile](../worker.Dockerfile)"
    assert compact(found, 16) == found
    see = (
        "Agent orchestration (parent + workers): see [`.tools/rules/orchestrator.md`]"
        "(.tools/rules/orchestrator.md) (`@orchestrator`)."
    )
    assert compact(see, 20) == (
        "Agent orchestration (parent + workers): see [`.tools/rules/orchestrator.md`]"
        "(.tools/rules/orchestrator.md) …"
    )
    # a word that is no link, URL or code span is still cut away, as is a link the
    # doubled limit cannot hold
    assert (
        compact(
            "Check last git tag to find what version we are branched from (e.g. 3.22 tag). "
            "Based on that, add description to new fields with ADDED_IN_{VERSION} clause",
            20,
        )
        == "Check last git tag to find what version we are branched from …"
    )
    far = "Read the notes in " + "[x](" + "/".join(["segment"] * 30) + ") first."
    assert compact(far, 12) == "Read the notes in …"


def test_items_under_a_prohibition_are_shown_with_it(tmp_path: Path) -> None:
    # a heading that forbids over items that name things, a longer lead-in whose
    # prohibition opens it, and one that only mentions "cannot" in a reason
    rules = _rules(
        tmp_path,
        "# Git\n\n"
        "### ❌ Never include:\n"
        "- `Co-Authored-By: Claude <noreply@anthropic.com>`\n"
        "- Any assistant branding or attribution\n"
        "- Never a ticket number in the subject\n\n"
        "## Portability\n\n"
        "Do not use these commands -- they are not portable across all target platforms:\n\n"
        "- `jq` (parse JSON with built-in string manipulation)\n"
        "- `grep -Po` (Perl regex not available everywhere)\n\n"
        "## Audits\n\n"
        "These workflows upload a build artifact because step summaries cannot be read"
        " via the API:\n\n"
        "- `audit.yml` - Table of CI runs that errored\n",
    )
    _assert_texts(
        rules,
        "❌ Never include: `Co-Authored-By: Claude <noreply@anthropic.com>`",
        "❌ Never include: Any assistant branding or attribution",
        # an item that forbids by itself says what it means alone
        "Never a ticket number in the subject",
        "Do not use these commands -- they are not portable across all target platforms: "
        "`jq` (parse JSON with built-in string manipulation)",
        # a reason that says "cannot" forbids nothing: the item is shown as written
        "`audit.yml` - Table of CI runs that errored",
    )
    jq = _by_text(rules, "`jq`")
    assert (jq.source.line_start, jq.source.line_end) == (12, 12)


def test_titled_groups_under_a_forbidding_heading_are_forbidden(tmp_path: Path) -> None:
    # a bold title sorting what a "Do Not Edit" heading forbids, one group right under the
    # heading and one further down; a titled list under an ordinary heading is untouched
    from charter.rules.edits import forbidden_edits

    rules = _rules(
        tmp_path,
        "# Repo\n\n## Do Not Edit\n\n"
        "**Auto-generated files:**\n- `*.pb.go`\n- `internal/proto-gen/`\n\n"
        "**Vendored code:**\n- `third_party/`\n\n"
        "## Tests\n\n**Fixtures:**\n- `testdata/`\n",
    )
    texts = [r.text for r in rules]
    assert "Do Not Edit: `*.pb.go`" in texts
    assert "Do Not Edit: `third_party/`" in texts
    # the title is no rule alone; it is the items' section, cited with the first item
    assert not [t for t in texts if t.startswith("Auto-generated files")]
    first = _by_text(rules, "`*.pb.go`")
    assert (first.source.line_start, first.source.line_end) == (5, 6)
    assert "Auto-generated files" in first.search_text
    barred = sorted(e.path for e in forbidden_edits(rules))
    assert barred == ["*.pb.go", "internal/proto-gen/", "third_party/"]


def test_one_statement_per_line_without_markers_or_full_stops(tmp_path: Path) -> None:
    # rules written one per line with neither list markers nor full stops, in English and
    # in Chinese, against prose hard-wrapped at a width, prose that uses full stops, and a
    # line that breaks inside a link
    rules = _rules(
        tmp_path,
        "# Rules\n\n## Code\n\n"
        "Use pnpm for packages\nNever commit secrets to the repo\nRun the tests before pushing\n\n"
        "## 代码\n\n修改要小步快跑 避免一次性修改整个框架的代码\n优先在已实现的功能上修改\n"
        "不要使用表情符号\n\n"
        "## About\n\n"
        "The front end is a single Elm application served by Vite through vite-plugin-elm\n"
        "Rails serves its API over JSON and everything below applies to the front end only\n"
        "Deploys copy the build into the public folder of the API server on each release\n"
        "Nothing else ships\n\n"
        "## Funding\n\n"
        "Funded by [NLnet](https://nlnet.nl) and [NGI0\nDiscovery](https://nlnet.nl/d/) of the\n"
        "Next Generation Internet initiative\n",
    )
    spans = _spans(rules)
    assert ("Use pnpm for packages", 5, 5) in spans
    assert ("Never commit secrets to the repo", 6, 6) in spans
    assert ("不要使用表情符号", 13, 13) in spans
    assert ("优先在已实现的功能上修改", 12, 12) in spans
    # hard-wrapped prose (lines of one width) and a link broken across lines stay whole
    assert next(s for s in spans if s[0].startswith("The front end"))[1:] == (15, 20)
    assert next(s for s in spans if s[0].startswith("Funded by"))[1:] == (22, 26)


def test_chinese_and_japanese_prohibitions_and_obligations(tmp_path: Path) -> None:
    # Chinese and Japanese rules say "do not", "forbidden", "must" and "please" without
    # English words; a heading that forbids is read as one, as "Don't" is
    rules = _rules(
        tmp_path,
        "# 規約\n\n## 禁止事項\n\n- 複数ファイルの同時大幅変更\n- 任意の値の使用\n\n"
        "## 手順\n\n- 各ステップ後に必ずビルド・テスト実行\n"
        "- 作業ブランチは速やかに削除してください\n\n"
        "## 代码\n\n- 不要使用表情符号\n- 请始终使用中文与我交流\n- 项目采用 MIT 许可证\n",
    )
    by = {r.text: r for r in rules}
    assert by["禁止事項: 複数ファイルの同時大幅変更"].polarity == "never"
    assert by["各ステップ後に必ずビルド・テスト実行"].polarity == "must"
    assert by["作業ブランチは速やかに削除してください"].directive
    assert by["不要使用表情符号"].polarity == "never"
    assert by["请始终使用中文与我交流"].polarity == "must"
    # a statement of fact instructs nothing
    fact = by["项目采用 MIT 许可证"]
    assert (fact.polarity, fact.directive) == ("", False)


def test_a_full_width_colon_ends_a_lead_in(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# 規約\n\n以下は CI でエラーになるため絶対に行わない：\n\n"
        "- 型エラーがある状態でのコミット\n",
    )
    # the line introducing the list is each item's retrieval context, as with ":"
    assert "絶対に行わない" in _by_text(rules, "型エラー").search_text


def test_an_example_line_stays_with_the_rule_it_shows(tmp_path: Path) -> None:
    """A Kotlin framework's AGENTS.md: "… Nested directory paths do NOT translate to nested
    Gradle project names." then "Example: `ktor-client/ktor-client-curl` → …" on the next
    line. Lines that each end a sentence are one rule each, so the example was a rule
    alone, matching any task that names a module; it is shown with its rule now. A line
    that only starts with the word ("Examples live in `samples/`.") is a statement."""
    rules = _rules(
        tmp_path,
        "# Layout\n\n"
        "Nested directory paths do not translate to nested project names.\n"
        "Example: `client/client-curl` → `:client-curl`.\n"
        "Examples live in `samples/`.\n"
        "Keep one module per directory.\n",
    )
    assert _spans(rules) == [
        (
            "Nested directory paths do not translate to nested project names. "
            "Example: `client/client-curl` → `:client-curl`.",
            3,
            4,
        ),
        ("Examples live in `samples/`.", 5, 5),
        ("Keep one module per directory.", 6, 6),
    ]


def test_quoted_items_are_shown_with_the_line_that_introduces_them(tmp_path: Path) -> None:
    """A Go TUI's AGENTS.md: "If you catch yourself thinking any of these, stop and
    refactor first:" over three quoted thoughts. Each quotation was a rule alone, so the
    prompt hook handed over "I'll just add the new behavior alongside the old." as if it
    were advice. Items that are all quotations are shown after the line that introduces
    them; a list with one plain instruction among them is read as before."""
    rules = _rules(
        tmp_path,
        "# Guide\n\n"
        "If you catch yourself thinking any of these, stop and refactor first:\n\n"
        '- "This does a bit of wasted work, but it\'s harmless."\n'
        '- "I\'ll just add the new behavior alongside the old."\n\n'
        "When adding a command:\n\n"
        "- Register it in `commands.go`\n"
        '- "Quick" is not a name\n',
    )
    lead = "If you catch yourself thinking any of these, stop and refactor first:"
    quoted = _by_text(rules, "alongside the old")
    assert quoted.text == f'{lead} "I\'ll just add the new behavior alongside the old."'
    assert (quoted.source.line_start, quoted.source.line_end) == (6, 6)
    assert not any(r.text.startswith(('"This', '"I')) for r in rules)
    assert _by_text(rules, "Register it").text == "Register it in `commands.go`"


def test_a_one_path_entry_of_a_checklist_is_kept(tmp_path: Path) -> None:
    """An emulator's ``.claude/rules/docs-style.md``: "Update ALL of these together:" over
    four entries, one of them only a path (``website/docs/versions.json``). One-word
    lines are dropped as noise, so the checklist lost the file it most needed updating.
    An entry of a lead-in's list that has longer entries is kept; a list of lone words
    ("- React", "- Vite") is still no rule."""
    rules = _rules(
        tmp_path,
        "# Version bumps\n\n"
        "Update ALL of these together:\n"
        "- Rename `website/docs/<old>/` directories\n"
        "- `website/docs/versions.json`\n"
        "- `mkdocs.yml`: nav paths, redirect targets\n\n"
        "# Stack\n\n"
        "Built with:\n"
        "- React\n"
        "- Vite\n",
    )
    entry = _by_text(rules, "versions.json")
    assert (entry.text, entry.source.line_start) == ("`website/docs/versions.json`", 5)
    assert not any(r.text in ("React", "Vite") for r in rules)


def test_actions_under_an_ask_first_heading_are_shown_with_it(tmp_path: Path) -> None:
    """The three-tier boundaries (Always / Ask first / Never): an action named under
    "Ask first" reads alone as the task itself, so it is shown after the heading; an item
    that instructs by itself, and the items of a heading that names a topic, stay."""
    rules = _rules(
        tmp_path,
        "## Boundaries\n\n"
        "### ✅ Always\n\n"
        "- Run `make check` after changes\n\n"
        "### ⚠️ Ask First\n\n"
        "- Dropping columns or tables\n"
        "- Large data migrations\n"
        "- Changing primary keys\n"
        "- Always ask before renaming a queue\n\n"
        "## Architecture\n\n"
        "- Routing events by type\n"
        "- Sending to every channel\n",
    )
    _assert_texts(
        rules,
        "⚠️ Ask First: Dropping columns or tables",
        "⚠️ Ask First: Large data migrations",
        "⚠️ Ask First: Changing primary keys",
        "Always ask before renaming a queue",
        "Run `make check` after changes",
        "Routing events by type",
    )


def test_actions_under_a_lead_in_are_shown_with_it(tmp_path: Path) -> None:
    """ "Changes that need a suggestion:" over "Changing database access patterns": the
    item alone names the task, not what to do about it."""
    rules = _rules(
        tmp_path,
        "## Sync\n\n"
        "Changes that should trigger a suggestion:\n"
        "- Changing database access patterns\n"
        "- Upgrading or replacing frameworks (a version bump, switching libraries)\n\n"
        "When adding a new tool:\n"
        "- Register it in `tools.py`\n"
        "- Document it in the README\n",
    )
    texts = [r.text for r in rules]
    assert "Changes that should trigger a suggestion: Changing database access patterns" in texts
    assert (
        "Changes that should trigger a suggestion: Upgrading or replacing frameworks"
        " (a version bump, switching libraries)"
    ) in texts
    assert "Register it in `tools.py`" in texts


def test_mistakes_under_a_bold_title_are_shown_with_it(tmp_path: Path) -> None:
    """ "**Common Issues**:" over "Manually editing generated files": an item alone reads
    as what to do, the opposite of what the list means; an adverb or "not" before the
    verb, or "instead of" in the item, still names a mistake."""
    rules = _rules(
        tmp_path,
        "## Review\n\n"
        "**Common Issues**:\n"
        "- Custom query names instead of `SDKRequest`\n"
        "- Using `string` instead of region types\n"
        "- Manually editing generated files\n"
        "- Not validating region input\n\n"
        "**Testing**\n"
        "- Run `go test ./...` before pushing\n"
        "- Keep fixtures small\n",
    )
    _assert_texts(
        rules,
        "Common Issues: Custom query names instead of `SDKRequest`",
        "Common Issues: Using `string` instead of region types",
        "Common Issues: Manually editing generated files",
        "Common Issues: Not validating region input",
        "Run `go test ./...` before pushing",
        "Keep fixtures small",
    )


def test_answers_under_a_bold_title_that_asks_are_shown_with_it(tmp_path: Path) -> None:
    """ "**What is NOT a breaking change:**" over "Product license changes", "Compacting
    old unsupported release cycles": an item alone read as a rule (or said nothing, "Page
    deletions"), the same under the list of what *is* breaking; items that instruct, and
    items under a title that asks nothing, are unchanged."""
    rules = _rules(
        tmp_path,
        "## Breaking Changes\n\n"
        "**What counts as a breaking change:**\n"
        "1. Splitting or merging product pages\n"
        "2. Page deletions\n\n"
        "**What is NOT a breaking change:**\n"
        "1. Product license changes\n"
        "2. Compacting old unsupported release cycles\n"
        "3. Never bump the permalink without a redirect\n\n"
        "**Handling breaking changes (for maintainers):**\n"
        "1. Tag the PR with the `Breaking Change` label\n"
        "2. Wait at least 7 days before merging\n",
    )
    _assert_texts(
        rules,
        "What counts as a breaking change: Splitting or merging product pages",
        "What counts as a breaking change: Page deletions",
        "What is NOT a breaking change: Product license changes",
        "What is NOT a breaking change: Compacting old unsupported release cycles",
        "Never bump the permalink without a redirect",
        "Tag the PR with the `Breaking Change` label",
        "Wait at least 7 days before merging",
    )


def test_a_comment_that_introduces_a_command_loses_its_colon(tmp_path: Path) -> None:
    """ "# Run a single test class:" over a command was shown as "`./gradlew test …` (Run
    a single test class:)": in brackets after the command the colon points at nothing."""
    rules = _rules(
        tmp_path,
        "# Commands\n\n```bash\n./gradlew build   # Build + test + lint\n\n"
        '# Run a single test class:\n./gradlew test --tests "a.BSpek"\n```\n',
    )
    texts = [r.text for r in rules]
    assert '`./gradlew test --tests "a.BSpek"` (Run a single test class)' in texts, texts
    assert "`./gradlew build` (Build + test + lint)" in texts, texts


def test_a_command_shown_with_the_comment_above_it_cites_that_comment(tmp_path: Path) -> None:
    """ "# Run tests for a specific package" over ``go test ./pkg`` is shown in brackets
    after the command: the citation covers the comment's line too, and only where the
    comment is shown (a trailing comment replaces it, the next command has none)."""
    rules = _rules(
        tmp_path,
        "# Commands\n\n```bash\n# Run tests for a specific package\ngo test -v ./pkg\n\n"
        "# Coverage\nexport PKGS=a\ngo test -coverpkg=$PKGS\n\n"
        "# ignored above a trailing one\nmake lint  # Lint everything\n```\n",
    )
    spans = {r.text: (r.source.line_start, r.source.line_end) for r in rules}
    assert spans["`go test -v ./pkg` (Run tests for a specific package)"] == (4, 5), spans
    assert spans["`export PKGS=a` (Coverage)"] == (7, 8), spans
    assert spans["`go test -coverpkg=$PKGS`"] == (9, 9), spans
    assert spans["`make lint` (Lint everything)"] == (12, 12), spans


def test_a_label_without_its_colon_over_bare_commands_is_one_rule(tmp_path: Path) -> None:
    # a parent item that names its sub-items but has no colon, over commands that say
    # nothing alone: one rule, shown as a lead-in with its commands; items that are not
    # bare code spans are read after their label (it names where they are), and a parent
    # that is a sentence stays as it was
    rules = _rules(
        tmp_path,
        "# Test guide\n\n"
        "- Run tests commands (in `e2e` directory)\n"
        "  - `make e2e-smoke`\n"
        "  - `make e2e-full`\n"
        "- Fixtures (`test/fixtures/`)\n"
        "  - `users.json`: seeded accounts\n"
        "  - `orders.json`: sample orders\n"
        "- Run the linter before pushing.\n"
        "  - `make lint`\n"
        "  - `make lint-fix`\n",
    )
    _assert_texts(
        rules,
        "Run tests commands (in `e2e` directory): `make e2e-smoke`; `make e2e-full`",
        "Fixtures (`test/fixtures/`): `users.json`: seeded accounts",
        "Fixtures (`test/fixtures/`): `orders.json`: sample orders",
        "Run the linter before pushing.",
        "`make lint`",
    )
    assert _spans(rules)[0][1:] == (3, 5)
    assert not any(r.text == "`make e2e-smoke`" for r in rules)


def test_a_file_loaded_on_demand_is_not_pinned_by_its_headings(tmp_path: Path) -> None:
    """A Cursor rule with ``alwaysApply: false`` (loaded when the agent asks for it) titled
    "# Critical Audit Checklist" put every line of it, down to its grep commands, into the
    always-loaded constitution. The front matter says when the file applies; a marker
    heading pins rules only in a file that does not say it is on demand."""
    body = (
        "# Critical Audit Checklist\n\n- Check middleware on new routes.\n- Run the audit weekly.\n"
    )
    cases = {
        ("audit.mdc", "cursor"): (
            "---\ndescription: Audit steps\nalwaysApply: false\n---\n",
            False,
        ),
        ("plain.mdc", "cursor"): ("---\ndescription: Audit steps\n---\n", True),
        ("always.mdc", "cursor"): ("---\nalwaysApply: true\n---\n", True),
        ("manual.md", "kiro"): ("---\ninclusion: manual\n---\n", False),
        ("decide.md", "windsurf"): ("---\ntrigger: model_decision\n---\n", False),
        ("on.md", "windsurf"): ("---\ntrigger: always_on\n---\n", True),
        ("CLAUDE.md", "claude"): ("", True),
    }
    for (name, kind), (front, pinned) in cases.items():
        path = tmp_path / name
        path.write_text(front + body)
        rules = rules_from_source(load_source(path, name, kind), MARKERS)
        assert len(rules) == 2, (name, [r.text for r in rules])
        assert all(r.constitution is pinned for r in rules), (name, pinned)


def test_a_screen_drawn_outside_a_fence_is_no_rules(tmp_path: Path) -> None:
    """A wireframe drawn with box-drawing characters and no code fence became one "rule"
    per line ("│ SIDEBAR │ MAIN CONTENT │"), scores of them, each a repeat of the last in
    lint. The drawing illustrates the line above it, as a fenced one would; a line of prose
    with a box character in it is still a rule."""
    rules = _rules(
        tmp_path,
        "# Settings page\n\n"
        "## Layout\n\n"
        "The page has a sidebar and a form:\n"
        "┌──────────┬──────────────────┐\n"
        "│ SIDEBAR  │ MAIN CONTENT     │\n"
        "│ ○ Rules  │ [Save] [Cancel]  │\n"
        "│ ○ Test   │                  │\n"
        "└──────────┴──────────────────┘\n\n"
        "## Notes\n\n"
        "┌────────┐\n"
        "│ Banner │\n"
        "└────────┘\n\n"
        "Keep the sidebar order as drawn.\n"
        "Mark a tab with ├ when it has children.\n",
    )
    assert _spans(rules)[0] == ("The page has a sidebar and a form:", 3, 10), _spans(rules)
    assert not any("│" in r.text or "┌" in r.text for r in rules), _spans(rules)
    _assert_texts(
        rules, "Keep the sidebar order as drawn.", "Mark a tab with ├ when it has children."
    )


def test_a_bold_lead_in_over_bare_commands_is_read_as_the_plain_one(tmp_path: Path) -> None:
    # "**Unsafe commands (auto-run: false):**" over `git push`, `git reset`: read as the
    # title of its items, each was shown alone ("`git push`", which reads as "run it"),
    # and under "**Never run:**" each said the opposite of the file and was not denied;
    # now each reads as the same line without bold does. A bold title without a colon,
    # and a bold lead-in over items that instruct, are as before
    rules = _rules(
        tmp_path,
        "# Tools\n\n"
        "**Unsafe commands (auto-run: false):**\n\n"
        "- `git push`\n"
        "- `git reset`\n\n"
        "**Never run:**\n\n"
        "- `rm -rf build`\n"
        "- `git push --force`\n\n"
        "**Testing**\n\n"
        "- `make test`\n\n"
        "**Conventions:**\n\n"
        "- Use tabs for indentation\n",
    )
    _assert_texts(
        rules,
        "Unsafe commands (auto-run: false): `git push`; `git reset`",
        "Never run: `rm -rf build`",
        "Never run: `git push --force`",
        "`make test`",
        "Use tabs for indentation",
    )
    assert _spans(rules)[0][1:] == (3, 6)
    assert not any(r.text in ("`git push`", "`rm -rf build`") for r in rules)
    from charter.rules.stored import prohibitions_of

    commands = [c.command for c in prohibitions_of(rules).commands]
    assert "rm -rf build" in commands and "git push --force" in commands


def test_a_bold_title_that_only_names_its_list_is_its_section_not_a_rule(
    tmp_path: Path,
) -> None:
    # "**Key Files:**" over the files it names was a rule of its own, shown alone as
    # "Key Files:" in the constitution of an always-applied file and in a task's rules,
    # spending a small file's budget on a line that says nothing; it names the items'
    # section, as a bold name over sub-items does. A title that instructs stays a rule
    rules = _rules(
        tmp_path,
        "# Architecture\n\n"
        "**Key Characteristics:**\n"
        "- Event-driven; the worker can be terminated when idle\n"
        "- No DOM access\n\n"
        "**Always run before pushing:**\n"
        "- `npm run lint`\n"
        "- `npm run test`\n",
    )
    texts = [r.text for r in rules]
    assert not any(t.startswith("Key Characteristics") for t in texts), texts
    item = _by_text(rules, "No DOM access")
    assert item.source.section == "Architecture > Key Characteristics"
    # the title is cited with the first item, as a bold name over sub-items is
    first = _by_text(rules, "Event-driven")
    assert (first.source.line_start, first.source.line_end) == (3, 4)
    assert any("Always run before pushing" in t for t in texts), texts


def test_a_line_that_only_dates_the_file_is_no_rule(tmp_path: Path) -> None:
    # "**Last Updated:** 2025-10-22" or "Version: 1.4.0" on a line of its own says when the
    # file was written (it was a rule, and in an always-loaded file it was pinned); a
    # line under such a label that says something stays a rule
    rules = _rules(
        tmp_path,
        "# Agents\n\n"
        "**Purpose:** Context for coding agents.\n\n"
        "**Last Updated:** 2025-10-18\n\n"
        "## Rule Metadata\n\n"
        "**File:** `core.yaml`\n"
        "**Last Updated:** 2025-10-22\n"
        "**Version:** 1.4.0\n\n"
        "_Last reviewed: March 2025_\n\n"
        "- Version: bump it with `npm version` before a release\n"
        "- Never edit `dist/` by hand\n",
    )
    texts = [r.text for r in rules]
    assert not any(t.startswith(("Last Updated", "Version: 1", "Last reviewed")) for t in texts)
    _assert_texts(
        rules,
        "Purpose: Context for coding agents.",
        "File: `core.yaml`",
        "Version: bump it with `npm version` before a release",
        "Never edit `dist/` by hand",
    )


def test_a_comment_drawn_as_a_divider_is_only_its_label(tmp_path: Path) -> None:
    """A shell block split by drawn comment lines ("# ── Run locally ─────…", "# ===== Lint
    =====") names each group with the words between the rules: the drawn runs are a
    frame, and a command shown with them in brackets carried dozens of ``─`` tokens."""
    rules = _rules(
        tmp_path,
        "# Build\n\n"
        "```bash\n"
        "# ── Run locally ──────────────────────────────────────────\n"
        "cargo run --bin server -- --database-type sqlite\n"
        "# ===== Lint =====\n"
        "cargo clippy --workspace\n"
        "# ──────────────────────────────────────────────────────────\n"
        "cargo fmt --all    # --- apply formatting ---\n"
        "# Smoke test (expect 422, not 404)\n"
        "curl -s http://localhost:9998/kmip\n"
        "# --release builds are slow --\n"
        "cargo build --release\n"
        "```\n",
    )
    _assert_texts(
        rules,
        "`cargo run --bin server -- --database-type sqlite` (Run locally)",
        "`cargo clippy --workspace` (Lint)",
        "`cargo fmt --all` (apply formatting)",
        "`curl -s http://localhost:9998/kmip` (Smoke test (expect 422, not 404))",
        "`cargo build --release` (`--release` builds are slow)",  # an option is no frame
    )


def test_a_kiro_file_reference_is_shown_as_the_path_it_names(tmp_path: Path) -> None:
    """Kiro steering links a file with ``#[[file:path]]``: the agent is shown the path as
    code, as a rule names any file, not Kiro's markup around it. The markup written as
    code (a steering file explaining the syntax) stays as written."""
    rules = _rules(
        tmp_path,
        "# E2E\n\n"
        "- Reference: #[[file:frontend/playwright.config.ts]]\n"
        "- For complex derived state, see #[[file: angular-signal-patterns.md]] first.\n"
        "- Link a spec with `#[[file:api/openapi.yaml]]` in steering.\n",
        name="e2e.md",
    )
    _assert_texts(
        rules,
        "Reference: `frontend/playwright.config.ts`",
        "For complex derived state, see `angular-signal-patterns.md` first.",
        "Link a spec with `#[[file:api/openapi.yaml]]` in steering.",
    )


def test_a_quoted_argument_over_several_lines_is_one_command(tmp_path: Path) -> None:
    """A commit message written over several lines inside the shell block was split at
    each line: "`git commit -m "v2.0 Notes`" (its quote never closed) and the message's
    body lines ("`- 1a2b3c: fix the parser`") shown as commands to run. The lines up to
    the closing quote are one command, cited over all of them; a quote inside a comment
    ("# don't") or closed on its line opens nothing."""
    text = (
        "# Release\n\n"
        "Write the notes commit:\n\n"
        "```bash\n"
        "git add NOTES.md\n"
        'git commit -m "v2.0 Notes\n'
        "\n"
        "Includes:\n"
        "- 1a2b3c: fix the parser\n"
        '"\n'
        "git push origin main  # don't force\n"
        "echo 'a' && echo \"b\"\n"
        "```\n"
    )
    rules = _rules(tmp_path, text)
    spans = _spans(rules)
    assert ("`git add NOTES.md`", 6, 6) in spans
    commit = _by_text(rules, "git commit")
    assert (commit.source.line_start, commit.source.line_end) == (7, 11)
    assert "fix the parser" in commit.text and commit.text.endswith('"`')
    assert not any(r.text.startswith("`- 1a2b3c") or r.text == "`Includes:`" for r in rules)
    assert ("`git push origin main` (don't force)", 12, 12) in spans
    assert ("`echo 'a' && echo \"b\"`", 13, 13) in spans


def test_a_subshell_over_several_lines_is_one_command(tmp_path: Path) -> None:
    """Commands grouped in a subshell piped to one program, "(" alone on a line and
    ") | nc localhost 7777" closing it, were read a line at a time: "`(`", "`sleep 1`"
    and "`) | nc localhost 7777`" were rules of their own (and two "sleep 1" a duplicate
    for lint). The group is one command, cited from its comment to its close; a subshell
    on one line stays as it is, and one holding a construct is not joined."""
    text = (
        "# Console\n\n"
        "```bash\n"
        'echo "Core.getJson()" | nc -q 2 localhost 7777\n'
        "\n"
        "# Multiple commands in one session\n"
        "(\n"
        'echo "Core.createScene(MyScene, 1024.0)"\n'
        "# let the scene load\n"
        "sleep 1\n"
        'echo "Core.screenshot()"\n'
        "sleep 1\n"
        ") | nc localhost 7777\n"
        "\n"
        "(cd web && npm ci)\n"
        "```\n"
    )
    spans = _spans(_rules(tmp_path, text))
    assert spans == [
        ('`echo "Core.getJson()" | nc -q 2 localhost 7777`', 4, 4),
        (
            '`( echo "Core.createScene(MyScene, 1024.0)"; sleep 1; echo "Core.screenshot()"; '
            "sleep 1 ) | nc localhost 7777` (Multiple commands in one session)",
            6,
            13,
        ),
        ("`(cd web && npm ci)`", 15, 15),
    ]


def test_a_stray_quote_joins_no_lines(tmp_path: Path) -> None:
    text = "# Run\n\n```bash\necho it's done\nmake test\n```\n"
    rules = _rules(tmp_path, text)
    assert [r.text for r in rules] == ["`echo it's done`", "`make test`"]


def test_a_template_slot_left_unfilled_is_no_rule(tmp_path: Path) -> None:
    """A context file copied from a template keeps lines such as "[Describe the main user
    flow]" or "[目标用户]": the slots its author was to fill, shown to the agent as rules
    (one came first among the rules for every change). A line that is only such a slot is
    no rule; a label with a slot after it, a link and a one-word tag stay."""
    text = (
        "# Product\n\n"
        "## Users\n\n"
        "- [Describe the main user flow]\n"
        "- [目标用户群体]\n"
        "- Audience: [who reads the reports]\n"
        "- [Style guide](docs/style.md)\n"
        "- Keep the invoice totals in cents.\n"
    )
    texts = [r.text for r in _rules(tmp_path, text)]
    assert "[Describe the main user flow]" not in texts
    assert "[目标用户群体]" not in texts
    assert "Audience: [who reads the reports]" in texts
    assert "Keep the invoice totals in cents." in texts
    assert any("Style guide" in t for t in texts)


def test_a_sentence_reporting_an_absence_is_no_rule(tmp_path: Path) -> None:
    """Agents' `/init` writes "No Cursor rules found (`.cursor/rules/`)." and "No Copilot
    instructions found." into the files it generates: reports of what it looked for, no
    instruction, compiled as rules (and pinned). A sentence that only reports something
    absent (a verb of having looked, or a state dated to the writing) is no rule; one that
    goes on to instruct, or a prohibition written "No …", stays. On 22 public lines
    labelled before: 7 → 21 as labelled."""
    text = (
        "# Agent notes\n\n"
        "## Rules from other tools\n\n"
        "- No Cursor rules found (`.cursor/rules/` or `.cursorrules`).\n"
        "- No Copilot instructions found (`.github/copilot-instructions.md`).\n"
        "- No `.cursorrules` file was found.\n"
        "- No Cursor rules or Copilot instructions currently exist\n"
        "- There is no `.github/copilot-instructions.md` at time of writing.\n"
        "- No Cursor rules (`.cursorrules`) found. If added, integrate them here.\n"
        "- There is no `Makefile`; do not create one unless explicitly requested.\n"
        "- No `console.log` statements left in production code.\n"
        "- No emojis in commit messages.\n"
    )
    texts = [r.text for r in _rules(tmp_path, text)]
    assert texts == [
        "No Cursor rules (`.cursorrules`) found. If added, integrate them here.",
        "There is no `Makefile`; do not create one unless explicitly requested.",
        "No `console.log` statements left in production code.",
        "No emojis in commit messages.",
    ]


def test_a_shell_script_written_without_its_fence_is_read_as_one(tmp_path: Path) -> None:
    """A `CRUSH.md` lists its commands as a script would, outside any fence: "# Run all
    unit tests with coverage" over `env PYTHONPATH=src pytest …`. Markdown reads each
    comment as a heading, so the commands lost their purpose and "## Code Style" after
    them was filed under the last comment ("Lint & format > Code Style"). Two or more
    comments each over commands (one with an option, a path or a variable), between blank
    lines, are the fence they lost; a title over prose stays a heading. On 20 comment
    lines of three public files, labelled before: 0 → 20 read as their commands'."""
    text = (
        "# CRUSH Guidelines\n\n"
        "## Development Commands\n\n"
        "# Run all unit tests\n"
        "env PYTHONPATH=src pytest --cov ./tests/*_test.py\n\n"
        "# Run configuration parsing tests\n"
        "./qa/bin/functional parsing\n\n"
        "# Lint & format\n"
        "ruff . --fix\n\n"
        "## Code Style\n\n"
        "- Follow PEP8: 120-char max\n\n"
        "# Notes\n"
        "keep it short\n\n"
        "# More\n"
        "stay calm\n"
    )
    rules = _rules(tmp_path, text)
    assert [(r.text, r.source.line_start, r.source.line_end) for r in rules[:3]] == [
        (
            "`env PYTHONPATH=src pytest --cov ./tests/*_test.py` (Run all unit tests)",
            5,
            6,
        ),
        ("`./qa/bin/functional parsing` (Run configuration parsing tests)", 8, 9),
        ("`ruff . --fix` (Lint & format)", 11, 12),
    ]
    assert all(r.source.section == "CRUSH Guidelines > Development Commands" for r in rules[:3])
    assert _by_text(rules, "PEP8").source.section == "CRUSH Guidelines > Code Style"
    # headings over prose (no option, path or variable anywhere): still headings
    assert _by_text(rules, "keep it short").source.section == "Notes"


def test_a_bold_name_over_sub_items_is_their_section_not_a_rule(tmp_path: Path) -> None:
    # "- **Module system**" over its indented items names them, as "**Module system**"
    # over a list does: alone, "Module system" is no rule (it reached the agent among the
    # rules for every change); its items carry it as their section, and the first one is
    # cited from the name's line; an item of that shape in the same list with its items
    # left unindented ("- **Patterns**") names the items after it
    rules = _rules(
        tmp_path,
        "# Code Style\n\n"
        "- **Module system**\n"
        "  - Use CommonJS everywhere.\n"
        "  - Do not introduce ESM without explicit instructions.\n"
        "- **Patterns**\n"
        "- Prefer small, single-responsibility modules.\n"
        "- Keep side effects at the edges.\n"
        "- **Never push to main**\n"
        "  - Open a pull request instead.\n",
    )
    assert _spans(rules) == [
        ("Use CommonJS everywhere.", 3, 4),
        ("Do not introduce ESM without explicit instructions.", 5, 5),
        ("Prefer small, single-responsibility modules.", 6, 7),
        ("Keep side effects at the edges.", 8, 8),
        ("Never push to main", 9, 9),  # instructs: a rule of its own
        ("Open a pull request instead.", 10, 10),
    ]
    assert rules[0].source.section == "Code Style > Module system"
    assert rules[3].source.section == "Code Style > Patterns"
    assert rules[5].source.section == "Code Style"


def test_a_plain_label_over_sub_items_is_read_before_each(tmp_path: Path) -> None:
    """A research project's roles: "- Maintainer (PI)" over "Merges PRs." was a rule of
    its own, and its sub-items were shown alone, where they read as the agent's duties.
    A short label (no colon, instructing nothing) is read before each sub-item, as a
    lead-in is, and cited from its line; a bold name stays the items' section, and an
    item that instructs stays a rule."""
    rules = _rules(
        tmp_path,
        "# Policy\n\n## Roles\n\n"
        "- Maintainer (PI)\n  - Merges PRs.\n  - Approves policy waivers.\n"
        "- Codex agents (ephemeral)\n  - Open PRs and iterate until CI is green.\n"
        "- Keep diffs small\n  - One feature per PR.\n",
    )
    spans = _spans(rules)
    assert ("Maintainer (PI): Merges PRs.", 5, 6) in spans, spans
    assert ("Maintainer (PI): Approves policy waivers.", 7, 7) in spans, spans
    assert ("Codex agents (ephemeral): Open PRs and iterate until CI is green.", 8, 9) in spans
    assert not any(t in ("Maintainer (PI)", "Codex agents (ephemeral)") for t, _, _ in spans)
    _assert_texts(rules, "Keep diffs small", "One feature per PR.")


def test_a_label_naming_a_file_over_sub_items_is_read_before_each(tmp_path: Path) -> None:
    """A backend's entity steps: "1. Model (`models.py`)" over "Inherit from
    `IdentityAuditBase`." was a rule of its own, and its sub-items were shown alone, so
    "Inherit from …" did not say what inherits (the next step's sub-items say it of the
    service). A short label that names a file or symbol in a code span, with a word of its
    own outside it, is read before each sub-item like any plain label; a label of only a
    code span stays as it was."""
    rules = _rules(
        tmp_path,
        "# Backend\n\n## Required steps\n\n"
        "1. Model (`models.py`)\n   - Inherit from `AuditBase`.\n   - Use `Mapped[]`.\n"
        "2. Service (`services.py`)\n   - Inherit from `RepositoryService`.\n",
    )
    spans = _spans(rules)
    assert ("Model (`models.py`): Inherit from `AuditBase`.", 5, 6) in spans, spans
    assert ("Model (`models.py`): Use `Mapped[]`.", 7, 7) in spans, spans
    assert ("Service (`services.py`): Inherit from `RepositoryService`.", 8, 9) in spans, spans
    assert not any(
        t.startswith(("Model (`models.py`)", "Service")) and ":" not in t for t, _, _ in spans
    )


def test_a_lone_mark_is_no_word_of_a_lead_in(tmp_path: Path) -> None:
    """A Terraform module's "When a provider or resource has a v1 / _v1 variant:" over
    "Suggest code changes only; do NOT suggest any state migrations": the "/" made it
    eleven words, past a lead-in's ten, so the line was a rule alone and the sub-item
    lost its condition."""
    rules = _rules(
        tmp_path,
        "# Terraform\n\n## Upgrades\n\n"
        "- When a provider or resource has a v1 / _v1 variant:\n"
        "  - Suggest code changes only; do NOT suggest any state migrations.\n",
    )
    assert _spans(rules) == [
        (
            "When a provider or resource has a v1 / _v1 variant: Suggest code changes only; "
            "do NOT suggest any state migrations.",
            3,
            6,
        )
    ]


def test_a_fence_with_no_language_under_a_commands_heading_lists_its_commands(
    tmp_path: Path,
) -> None:
    """ "## Commands" over a fence written without ``bash`` ("make test-docker  # full
    suite in Docker") was read as an example with nothing above it to illustrate, so the
    section, the project's only list of commands, compiled to no rule at all. Its lines
    are commands, each shown with its comment; a file tree or code under another
    heading, or code under a commands heading, stays an example."""
    rules = _rules(
        tmp_path,
        "# Rules\n\n## Commands\n\n```\n"
        "make test-docker          # full suite in Docker (preferred)\n"
        'PYTEST_ADDOPTS="-k name" make test-local  # single test\n'
        "./gradlew build \\\n  --info\n```\n\n"
        "## Project Structure\n\n```\napp/            # Application source\n"
        "  config.py     # Settings\n```\n\n"
        "## Helper commands\n\n```\nimport helpers\nx = helpers.run()\n```\n",
    )
    assert _spans(rules) == [
        ("`make test-docker` (full suite in Docker (preferred))", 6, 6),
        ('`PYTEST_ADDOPTS="-k name" make test-local` (single test)', 7, 7),
        ("`./gradlew build --info`", 8, 9),
    ]


def test_a_comment_over_two_lines_is_one_note_cited_from_its_first_line(tmp_path: Path) -> None:
    """ "# Update baselines (overwrites the golden SVGs" then "# with the current output)"
    over a command: the second line carries on the first one's sentence, so the command
    is shown with both and cited from the first; a comment line of its own (a capital)
    still replaces the one above it."""
    rules = _rules(
        tmp_path,
        "# Commands\n\n```bash\n# Run all tests\nuv run pytest\n\n"
        "# Update baselines (overwrites the golden SVGs in tests/baselines/\n"
        "# with the current output; run after intentional visual changes)\n"
        "uv run pytest --update-baselines\n\n"
        "# Testing\n# Run the linter\nuv run ruff check .\n```\n",
    )
    spans = {r.text: (r.source.line_start, r.source.line_end) for r in rules}
    joined = (
        "`uv run pytest --update-baselines` (Update baselines (overwrites the golden SVGs "
        "in tests/baselines/ with the current output; run after intentional visual changes))"
    )
    assert spans[joined] == (7, 9), spans
    assert spans["`uv run pytest` (Run all tests)"] == (4, 5), spans
    assert spans["`uv run ruff check .` (Run the linter)"] == (12, 13), spans


def test_a_paragraph_after_code_in_a_step_introduces_the_code_after_it(tmp_path: Path) -> None:
    """A numbered step with "If you only touch the API, run:" over one fence and "If you
    only touch the UI, run:" over another: each paragraph is the lead-in of the code after
    it, so each command is shown with its own condition, cited over both, rather than the
    two lead-ins joined into one rule ("…, run: If you only touch the UI, run:") and the
    second command left with none (and reported as a duplicate of the same command in a
    later step)."""
    rules = _rules(
        tmp_path,
        "# Workflow\n\n"
        "1. Work on the current branch.\n"
        "2. If you only touch the API, run its tests:\n"
        "   ```bash\n   npm run test:api\n   ```\n"
        "   If you only touch the UI, run:\n"
        "   ```bash\n   npm run test:ui\n   ```\n"
        "3. Before committing, run every check:\n"
        "   ```bash\n   npm run test:api\n   npm run test:ui\n   ```\n",
    )
    spans = _spans(rules)
    assert ("If you only touch the API, run its tests: `npm run test:api`", 4, 7) in spans
    assert ("If you only touch the UI, run: `npm run test:ui`", 8, 11) in spans
    assert not [t for t, _, _ in spans if "API, run its tests: If" in t], spans
    assert ("`npm run test:ui`", 15, 15) in spans


def test_a_status_report_under_a_marker_heading_is_not_pinned(tmp_path: Path) -> None:
    """A long CLAUDE.md's "### 🚨 Critical Issues Requiring Immediate Attention" over
    sections such as "#### Security System (COMPLETED) - ✅ Issue #8" filled the
    constitution with progress lines ("✅ Docker sandbox: isolated execution done"), and
    171 of them overflowed it: "critical" and "security" were read as marker words. A
    heading that reports its topic's problems ("Critical Issues", "Security
    Vulnerabilities") or marks its section done (an upper-case COMPLETED, "(✅ 100% done)",
    struck through) marks nothing; a "## Security" heading still does."""
    rules = _with_default_markers(
        tmp_path / "CLAUDE.md",
        "claude",
        "# Guide\n\n## Status\n\n### 🚨 Critical Issues Requiring Immediate Attention\n\n"
        "#### Security System (COMPLETED) - ✅ Issue #8\n\n"
        "- ✅ Docker sandbox: isolated execution done\n\n"
        "#### Open gaps\n\n- Desktop app: smart model selection incomplete\n\n"
        "### Security & Stability (✅ 100% done - Issue #18)\n\n- ✅ RBAC middleware wired\n\n"
        "### ~~Security hardening~~\n\n- Audit logging to SQLite\n\n"
        "## Security\n\n- Never commit credentials\n\n"
        "## Security (always reviewed before merge)\n\n- Bind services to localhost\n",
    )
    _assert_pinned(
        rules,
        pinned=["Never commit credentials", "Bind services to localhost"],
        retrieved=["Docker sandbox", "smart model selection", "RBAC middleware", "Audit logging"],
    )


def test_the_line_saying_what_the_file_is_for_is_no_rule(tmp_path: Path) -> None:
    """ "This file provides guidance to Claude Code (claude.ai/code) when working with code
    in this repository." (what `/init` writes atop a CLAUDE.md) was a rule, and the prompt
    hook handed it over as a rule for every change. A one-sentence paragraph that only
    says what the file is for is its preamble; one that goes on to instruct stays."""
    rules = _rules(
        tmp_path,
        "# CLAUDE.md\n\n"
        "This file provides guidance to Claude Code (claude.ai/code) when working with code"
        " in this repository.\n\n## Rules\n\n"
        "This file gives guidance for the API only. Always run `make test` first.\n\n"
        "- Keep handlers thin\n",
    )
    texts = [r.text for r in rules]
    assert not [t for t in texts if t.startswith("This file provides")], texts
    assert "This file gives guidance for the API only. Always run `make test` first." in texts
    assert "Keep handlers thin" in texts


def test_a_verbless_subtitle_naming_the_agent_is_no_rule(tmp_path: Path) -> None:
    """ "Project-specific instructions for Claude Code." under the title was a rule of its
    own, retrieved for tasks and exported as one: the file's subtitle, saying what it
    holds and for which agent, as "This file provides guidance to …" says it with a
    verb. A line that instructs the agent, or names a file to follow, stays."""
    rules = _rules(
        tmp_path,
        "# CLAUDE.md\n\nProject-specific instructions for Claude Code.\n\n## Rules\n\n"
        "Guidelines for AI coding agents working in this repository.\n\n"
        "Follow the instructions for Claude Code in `docs/agents.md`.\n\n"
        "- Use pnpm for all agents\n",
    )
    texts = [r.text for r in rules]
    assert "Project-specific instructions for Claude Code." not in texts, texts
    assert not [t for t in texts if t.startswith("Guidelines for AI")], texts
    assert "Follow the instructions for Claude Code in `docs/agents.md`." in texts
    assert "Use pnpm for all agents" in texts


def test_a_bold_preamble_and_a_line_of_file_stamps_are_no_rules(tmp_path: Path) -> None:
    """A CLAUDE.md opened with "**THIS FILE CONTAINS MANDATORY INSTRUCTIONS FOR ALL AI
    ASSISTANTS**" and "> **Version:** 3.0 | **Target:** Solo embedded development |
    **Last Updated:** 2025-01-20": both were rules, the first pinned in the constitution.
    A preamble may qualify what the file holds in two words, and a line of short "Label:
    value" fields, one of them the file's version or date, is its stamp; a field that
    instructs, or a line without a stamp, keeps the line a rule."""
    rules = _rules(
        tmp_path,
        "# ⚠️ CRITICAL: MANDATORY WORKFLOW\n\n"
        "**THIS FILE CONTAINS MANDATORY INSTRUCTIONS FOR ALL AI ASSISTANTS**\n\n"
        "> **Version:** 3.0 | **Target:** Solo embedded development | "
        "**Last Updated:** 2025-01-20\n\n"
        "## Rules\n\n"
        "- ALWAYS create a baseline commit before any code changes\n"
        "- Version: 2 | Never push to main\n"
        "- Status: draft | Owner: platform team\n",
    )
    _assert_texts(
        rules,
        "ALWAYS create a baseline commit before any code changes",
        "Version: 2 | Never push to main",
        "Status: draft | Owner: platform team",
    )
    texts = [r.text for r in rules]
    assert not [t for t in texts if "THIS FILE" in t or "Last Updated" in t], texts


def test_an_item_forbidding_in_bold_instructs(tmp_path: Path) -> None:
    """ "- **Python tests**:" over "Copy `a.json` to `b.json` before running (do **not**
    commit this copy).", "Execute with `uv run pytest`": the bold "not" hid the
    prohibition, so no sub-item read as an instruction and the three were one rule, the
    prohibition cut from what PreToolUse shows before a `git commit`. Emphasis is no word:
    each sub-item is a rule read with the label."""
    rules = _rules(
        tmp_path,
        "# Repo\n\n## Running tests\n"
        "- **Python tests**:\n"
        "  - Copy `a/dev.json` to `a/x.json` before running (do **not** commit this copy).\n"
        "  - Execute with `uv run pytest -s ./pytest`.\n",
    )
    _assert_texts(
        rules,
        "Python tests: Copy `a/dev.json` to `a/x.json` before running (do not commit this copy).",
        "Python tests: Execute with `uv run pytest -s ./pytest`.",
    )
    assert len(rules) == 2, [r.text for r in rules]


def test_a_what_not_to_heading_is_read_before_its_items(tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        "# Tests\n\n### What to Test\n\n- All public API methods\n- Always cover error paths\n"
        "\n### What NOT to Test\n\n- Private methods directly\n- Never test generated code\n"
        "\n### Things not to do\n\n- Force pushes to main\n",
    )
    _assert_texts(
        rules,
        "What to Test: All public API methods",
        "Always cover error paths",
        "What NOT to Test: Private methods directly",
        "Never test generated code",
        "Things not to do: Force pushes to main",
    )
    assert _spans(rules)[2][1:] == (10, 10)


def test_a_when_to_heading_is_read_before_its_items(tmp_path: Path) -> None:
    # "After adding or modifying any UI component" alone names no act: it was retrieved
    # first for a UI task, saying nothing of what to do after it
    rules = _rules(
        tmp_path,
        "# UI\n\n#### When to Verify Dark Mode\n- After adding or modifying any UI component\n"
        "- When users report visibility issues\n- Always check both themes in the browser\n",
    )
    _assert_texts(
        rules,
        "When to Verify Dark Mode: After adding or modifying any UI component",
        "When to Verify Dark Mode: When users report visibility issues",
        "Always check both themes in the browser",
    )


def test_a_long_item_ending_in_a_colon_is_read_with_its_short_sub_items(
    tmp_path: Path,
) -> None:
    # "Positioning logic (e.g., `Tasks.Positioning`)" was a rule of its own, handed to
    # the agent alone for a feature prompt; the sentence above it says what it is for
    rules = _rules(
        tmp_path,
        "# Modules\n\n- **Use helper modules**: For complex domains (like task management), "
        "consider creating dedicated modules for specific sub-concerns:\n"
        "  - Positioning logic (e.g., `Tasks.Positioning`)\n"
        "  - Query builders (e.g., `Tasks.Queries`)\n"
        "- **Extract helper functions** when a function grows past ten branches\n",
    )
    _assert_texts(
        rules,
        "Use helper modules: For complex domains (like task management), consider creating "
        "dedicated modules for specific sub-concerns: Positioning logic (e.g., "
        "`Tasks.Positioning`); Query builders (e.g., `Tasks.Queries`)",
        "Extract helper functions when a function grows past ten branches",
    )
    assert len(rules) == 2, [r.text for r in rules]


def test_a_cut_never_leaves_a_code_span_open() -> None:
    from charter.rules.render import compact

    text = (
        "Use `thiserror` for error definitions; map to `(StatusCode, Json<ErrorBody>)` "
        "in `IntoResponse` for every handler error"
    )
    # the cut fell inside the second code span, then before its parenthesis: "map to `"
    for limit in (12, 16, 20):
        out = compact(text, limit)
        assert out == "Use `thiserror` for error definitions; map to …", (limit, out)


def test_a_markdown_example_of_a_rule_file_is_no_rule(tmp_path: Path) -> None:
    """A rule file about writing rule files shows one in a ```markdown fence: its front
    matter's "---" lines were read as ``--`` comments and its "# Rule Title" heading as a
    ``#`` comment, so the example became the rule "-; -; Rule Title". In a Markdown
    fence only ``<!-- … -->`` is a comment, and a comment of marks alone says nothing;
    a shell block's comments are still read."""
    rules = _rules(
        tmp_path,
        "# Writing Rule Files\n\nRule files are loaded at session start.\n\n## Format\n\n"
        '```markdown\n---\npaths: ["src/**/*.py"]  # Optional\n---\n\n# Rule Title\n\n'
        "- Actionable instruction\n```\n\n## Notes\n\n"
        "```md\n<!-- Keep every rule file under 500 lines -->\n# Title\n```\n\n"
        "## Lint\n\n```sql\n---\n-- Never select star in views\n```\n",
    )
    texts = [r.text for r in rules]
    assert not any("Rule Title" in t or t.startswith("-") for t in texts), texts
    assert "Keep every rule file under 500 lines" in texts, texts
    assert "Never select star in views" in texts, texts


def test_a_table_of_contents_is_navigation_not_rules(tmp_path: Path) -> None:
    """A 1,670-line pipeline guide opens with a numbered table of contents,
    "1. [Initial Assessment Protocol](#1-initial-assessment-protocol)" …: each entry
    was a rule of its own (15 of them), retrieved for tasks and exported as a Cursor rule
    file. An entry that is only links to the page's own headings is navigation; a rule
    that points at a section among its words is still a rule."""
    rules = _rules(
        tmp_path,
        "# Pipeline Guide\n\n## Table of Contents\n\n"
        "1. [Initial Assessment](#1-initial-assessment)\n"
        "2. [Error Handling](#2-error-handling)\n"
        "   - [Retry Strategy](#21-retry-strategy) · [Exit Codes](#22-exit-codes)\n"
        "3. [Testing](#3-testing)\n\n"
        "## 1. Initial Assessment\n\n"
        "- Check the DSL version before making changes.\n"
        "- Follow [Error Handling](#2-error-handling) when a process fails.\n"
        "- Read the [nf-core guidelines](https://nf-co.re/docs) first.\n",
    )
    assert [r.text for r in rules] == [
        "Check the DSL version before making changes.",
        "Follow [Error Handling](#2-error-handling) when a process fails.",
        "Read the [nf-core guidelines](https://nf-co.re/docs) first.",
    ]


def test_a_numbered_heading_over_its_paragraph_is_the_rule_it_explains(tmp_path: Path) -> None:
    # A test-writing guide numbers its rules as headings and explains each below: alone,
    # "Stripe requires integer tier values." said why, not what, and was cited from the
    # paragraph, not the heading that states the rule.
    rules = _rules(
        tmp_path,
        "## Test Writing Rules\n\n"
        "### 6. `includedUsage` Must Be a Multiple of `billingUnits`\n\n"
        "Stripe requires integer tier values, so a fraction is rejected.\n\n"
        "### 7. Fixtures\n\n"
        "Fixtures live under `tests/fixtures` and are loaded by name.\n\n"
        "### Timeouts Are Already Built In\n\n"
        "Both attach helpers sleep after the call; add no extra wait.\n\n"
        "### 2024 Release Plan Notes\n\n"
        "The release train leaves every second Tuesday from main.\n",
    )
    assert _spans(rules) == [
        (
            "`includedUsage` Must Be a Multiple of `billingUnits`: Stripe requires integer "
            "tier values, so a fraction is rejected.",
            3,
            5,
        ),
        # a numbered heading of one word names a section, as any short heading does
        ("Fixtures live under `tests/fixtures` and are loaded by name.", 7, 9),
        # a heading not numbered is the section path, not part of the rule
        ("Both attach helpers sleep after the call; add no extra wait.", 11, 13),
        # a year is no outline number
        ("The release train leaves every second Tuesday from main.", 15, 17),
    ]


def _discovered_scopes(root: Path, rels: tuple[str, ...], text: str) -> dict[str, list[str]]:
    """The scope each rule file written at ``rels`` (each holding ``text``) is read with."""
    from charter.rules.sources import discover

    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return {
        path.relative_to(root).as_posix(): list(
            load_source(path, path.relative_to(root).as_posix(), kind).scopes
        )
        for kind, path in discover(root)
    }


def test_the_command_of_a_step_whose_lead_in_heads_sub_items_is_a_rule(tmp_path: Path) -> None:
    """ "1. **Run build verification**:" over its shell block and then "- Build MUST
    succeed …": each sub-item was read with the lead-in and the block, the step's one
    command, was dropped, so `cd web && npm run build` never reached the agent while the
    next step's test command did. The command is a rule too, shown after the lead-in and
    cited from the step's line; a block of several commands gives each its own rule."""
    rules = _rules(
        tmp_path,
        "# Verification\n\n"
        "1. **Run build verification**:\n"
        "   ```bash\n   cd web && npm run build\n   ```\n"
        "   - Build MUST succeed with zero errors\n"
        "   - Fix all TypeScript compilation errors before proceeding\n\n"
        "2. **Check the schema**:\n"
        "   ```bash\n   npm run lint\n   npm run typecheck\n   ```\n"
        "   - Lint MUST report no errors\n"
        "   - Never disable a type check to pass\n",
    )
    assert _spans(rules) == [
        ("Run build verification: `cd web && npm run build`", 3, 6),
        ("Run build verification: Build MUST succeed with zero errors", 7, 7),
        (
            "Run build verification: Fix all TypeScript compilation errors before proceeding",
            8,
            8,
        ),
        ("`npm run lint`", 12, 12),
        ("`npm run typecheck`", 13, 13),
        ("Check the schema: Lint MUST report no errors", 10, 15),
        ("Check the schema: Never disable a type check to pass", 16, 16),
    ]


def test_each_line_of_a_short_fence_under_a_forbidding_heading_is_forbidden(
    tmp_path: Path,
) -> None:
    """ "## NEVER Use" over a fence of one-line entries (a Qt app's rule file listed
    `Theme::instance()  // Does NOT exist!`, …) gave no rule at all: the heading had two
    words, the fence no comment of its own line, and the lines never reached the agent."""
    text = (
        "# C++ Code Patterns\n\n## NEVER Use\n\n```cpp\n"
        "Theme::instance()            // Does NOT exist!\n"
        'QIcon("path/to/icon.svg")    // Use IconProvider\n'
        "```\n\n## Never use\n\n```text\nMD5\nrandom Tailwind colors\n```\n\n"
        "### Never use\n\n```text\nREAL = 98%\n```\n\n"
        "unless a benchmark supports such a claim and the UI explains it.\n"
    )
    rules = _rules(tmp_path, text)
    texts = [r.text for r in rules]
    assert 'NEVER Use: `QIcon("path/to/icon.svg")` (Use IconProvider)' in texts, texts
    assert "NEVER Use: `Theme::instance()` (Does NOT exist!)" in texts, texts
    # plain text is said in words: no code span, so no command to hold
    assert "Never use: MD5" in texts and "Never use: random Tailwind colors" in texts, texts
    assert _by_text(rules, "Tailwind").source.line_start == 14
    # a sentence going on after the fence ("unless …") makes it no outright prohibition
    assert not any("REAL = 98%" in t for t in texts), texts


def test_bad_and_good_examples_under_a_rule_belong_to_it(tmp_path: Path) -> None:
    """A Bevy game's AGENT.md: "**Temporal Purity**: Comments must describe *current
    state*, never *changes*." over "*Bad*: `// Added function …`" and "*Good*: `// …`".
    Each example was a rule of its own, retrieved alone ("*Bad*: `// Added function to
    calculate damage`"), saying nothing, or the opposite of the rule. Sub-items that are
    all examples are now read with the rule they illustrate, cited with it; a sub-item
    that instructs keeps the sub-items rules of their own."""
    rules = _rules(
        tmp_path,
        "# Rules\n\n"
        "- **Temporal Purity**: Comments describe the code as it is, never its history.\n"
        "    *   *Bad*: `// Added retry to the uploader`\n"
        "    *   *Good*: `// Retries the upload three times`\n"
        "- **Sizes**: Use responsive text sizes.\n"
        "  - Bad: `text-5xl` (overflows on phones)\n"
        "  - e.g. `text-xl md:text-5xl`\n"
        "- **Logging**: Log through the shared logger.\n"
        "  - Include the request id in every line a handler logs.\n"
        "  - Example: `log.info('saved', id)`\n",
    )
    assert _spans(rules)[:2] == [
        (
            "Temporal Purity: Comments describe the code as it is, never its history. "
            "Bad: `// Added retry to the uploader`; Good: `// Retries the upload three "
            "times`",
            3,
            5,
        ),
        (
            "Sizes: Use responsive text sizes. Bad: `text-5xl` (overflows on phones); "
            "e.g. `text-xl md:text-5xl`",
            6,
            8,
        ),
    ]
    assert not [r for r in rules if r.text.startswith(("*Bad*", "*Good*", "Bad:", "Good:"))]
    assert _by_text(rules, "request id").text == (
        "Include the request id in every line a handler logs."
    )
    assert _by_text(rules, "shared logger").text == "Logging: Log through the shared logger."


def test_a_heading_rated_in_its_closing_bracket_is_always_loaded(tmp_path: Path) -> None:
    """A Prisma backend's "## 🔐 Prisma Rules (CRITICAL)" and a Bevy game's "## 2. The Law
    (Invariants & Constraints)" were not read as constitution headings: the marker words
    stood in a bracket at the end, and the markers look at a heading's start, so each
    file compiled with an empty constitution. The closing bracket is read as a heading of
    its own, unless the heading reports work ("Issue #1: … (CRITICAL)", "Known Issues
    (critical)") or marks a field as required ("`DATABASE_URL` (required)")."""
    from charter.rules.build import is_constitution_section
    from charter.rules.settings import DEFAULT_CONSTITUTION_MARKERS

    markers = [re.compile(m, re.IGNORECASE | re.MULTILINE) for m in DEFAULT_CONSTITUTION_MARKERS]

    def pinned(heading: str) -> bool:
        return is_constitution_section(["Guide", heading], markers)

    for heading in (
        "🔐 Database Rules (CRITICAL)",
        "2. The Law (Invariants & Constraints)",
        "Diagnostics (non-negotiable)",
        "Swagger / OpenAPI (mandatory)",
    ):
        assert pinned(heading), heading
    for heading in (
        "Issue #1: Override Not Applied (CRITICAL)",
        "Step 2: Fix EACCES on the data volume (CRITICAL)",
        "Known Issues (critical)",
        "`DATABASE_URL` (required)",
        "Submitter (MANDATORY)",
        "Installation (optional)",
    ):
        assert not pinned(heading), heading
    rules = _rules(
        tmp_path,
        "# Agent guide\n\n## 🔐 Database Rules (CRITICAL)\n\n"
        "1. **Do NOT use `prisma db push`** in this project.\n\n"
        "## Style\n\n- Prefer small modules.\n",
    )
    assert [r.constitution for r in rules] == [True, False]


def test_a_chinese_heading_of_safety_or_prohibition_marks_the_constitution(
    tmp_path: Path,
) -> None:
    # Trae's rule files are often Chinese: "### 9.4 禁止行为" (prohibited acts) and "## 安全规范"
    # (security rules) pinned nothing, and the compile reported an empty constitution,
    # where "## Never" and "## Security" pin their rules; "强制" alone ("强制类型转换", a
    # type cast) and a heading that only names its topic stay retrieved per task
    rules = _with_default_markers(
        tmp_path / "project_rules.md",
        "trae",
        "# 项目规则\n\n"
        "## 9. 模块组织\n"
        "所有业务模块放在 `src/module` 下。\n\n"
        "### 9.4 禁止行为\n"
        "- ❌ 禁止在 `src/utils` 中创建业务模块\n\n"
        "## 安全规范\n"
        "- 密码使用 bcrypt 加密\n\n"
        "## 强制规则与约定\n"
        "- 分支命名使用 `feat/<scope>`\n\n"
        "## 命名规范\n"
        "- 组件命名采用 PascalCase\n\n"
        "### 强制类型转换\n"
        "- 转换前先检查取值范围\n",
    )
    _assert_pinned(
        rules,
        pinned=["src/utils", "bcrypt", "feat/<scope>"],
        retrieved=["src/module", "取值范围", "PascalCase"],
    )


def test_a_list_items_label_over_its_one_command_is_one_rule(tmp_path: Path) -> None:
    # Warp's generated WARP.md lists each command as an item naming it over a fence
    # ("- Install dependencies" over `pnpm install`, the fence's info "bash path=null
    # start=null"): the label alone said nothing, the command alone not what it is for;
    # an item over two commands, or one that is a sentence, is read as before
    rules = _rules(
        tmp_path,
        "# WARP.md\n\n## Common commands\n\n"
        "- Install dependencies\n"
        "  ```bash path=null start=null\n  pnpm install\n  ```\n"
        "- Start the API (port 4000)\n"
        "  ```bash path=null start=null\n  pnpm --filter api dev\n  ```\n"
        "- Start everything\n"
        "  ```bash\n  make dev\n  # or\n  pnpm dev\n  ```\n"
        "- The seed script resets the local database.\n"
        "  ```bash\n  pnpm db:seed\n  ```\n",
        name="WARP.md",
    )
    assert _spans(rules) == [
        ("Install dependencies: `pnpm install`", 5, 8),
        ("Start the API (port 4000): `pnpm --filter api dev`", 9, 12),
        ("Start everything", 13, 18),
        ("`make dev`", 15, 15),
        ("`pnpm dev` (or)", 16, 17),
        ("The seed script resets the local database.", 19, 22),
        ("`pnpm db:seed`", 21, 21),
    ]


@pytest.mark.parametrize(
    ("paragraph", "a_rule"),
    [
        # home-assistant/iOS AGENTS.md, over its "Non-Negotiable Conventions"
        ("These apply to every change, even if you don't load the matching skill:", False),
        ("These apply to every change, in every phase, without exception.", False),
        ("These apply to every change in this repo, not just new features:", False),
        ("These rules apply to every change in this repository, regardless of\n"
         "language or subproject.", False),
        ("These rules apply to every phase.", False),
        # a restriction, or a rule said after it, keeps the paragraph
        ("These apply to every change that shows a number.", True),
        ("The following rules apply to all official experiments:", True),
        ("These apply to every change in this repo. When a hard rule and a principle "
         "conflict, the hard rule wins.", True),
        ("These rules apply to every diagram you generate. Violating them is a failure.", True),
        ("These apply to the CUDA sources in `csrc/` and the pybind11 module in "
         "`csrc/bindings/`.", True),
    ],
)  # fmt: skip
def test_a_paragraph_that_only_says_the_rules_apply_everywhere_is_no_rule(
    paragraph: str, a_rule: bool
) -> None:
    """Round 82: Home Assistant's iOS app pinned "These apply to every change, even if you
    don't load the matching skill:" in its constitution, ahead of the conventions it
    points at, and two of them overflowed the cap. 15 labelled public paragraphs: 9 -> 15."""
    from charter.rules.blocks import split_blocks

    doc = f"# Rules\n\n## Conventions\n\n{paragraph}\n\n- Use tabs.\n- Run `make test`.\n"
    blocks, _ = split_blocks(doc)
    assert any("apply" in b.text for b in blocks) is a_rule
    assert [b.text for b in blocks if "apply" not in b.text] == ["Use tabs.", "Run `make test`."]


def test_each_annotated_entry_of_a_drawn_file_tree_is_a_rule(tmp_path: Path) -> None:
    # A repository-structure fence says what each folder holds: as one block of comments
    # no line of it was cited, and "which folder holds the Helm charts" reached none.
    rules = _rules(
        tmp_path,
        "# Guide\n\n"
        "## Repository Structure\n\n"
        "```\n"
        "src/                    # Main C++ source code\n"
        "├── server/             # Core server implementation\n"
        "├── facade/             # Network and command handling\n"
        "tests/\n"
        "  fixtures/             # Package smoke tests\n"
        "contrib/                # Docker configs, Helm charts, utility scripts\n"
        "```\n\n"
        "## Build\n\n"
        "```bash\n"
        "make build   # build it\n"
        "make test    # run the tests\n"
        "```\n",
    )
    entries = [(r.text, r.source.line_start, r.source.line_end) for r in rules if r.kind == "entry"]
    assert entries == [
        ("`src/`: Main C++ source code", 6, 6),
        ("`src/server/`: Core server implementation", 7, 7),
        ("`src/facade/`: Network and command handling", 8, 8),
        # a folder with nothing said of it gives its path to the entries under it
        ("`tests/fixtures/`: Package smoke tests", 10, 10),
        ("`contrib/`: Docker configs, Helm charts, utility scripts", 11, 11),
    ]
    # commands with comments stay commands, not a tree
    assert [r.text for r in rules if r.kind == "command"] == [
        "`make build` (build it)",
        "`make test` (run the tests)",
    ]


def test_a_rule_alone_under_its_heading_is_cited_from_the_heading(tmp_path: Path) -> None:
    # zgbc's AGENTS.md (public): "## Security & Configuration Tips" over one paragraph;
    # the heading is that rule's title, so the citation starts at it. A section of two
    # rules keeps each rule's own lines: its heading names the group, not one rule.
    rules = _rules(
        tmp_path,
        "# Guide\n\n"
        "## Testing\n\n"
        "Run the focused suite with `zig build test` before opening a PR.\n\n"
        "## Security & Configuration Tips\n\n"
        "Do not check in commercial ROMs, user saves, or secrets; describe how to obtain"
        " required files instead.\n\n"
        "## Style\n\n"
        "- Use four-space indentation.\n"
        "- Keep braces on the same line.\n",
    )
    assert [s[1:] for s in _spans(rules)] == [(3, 5), (7, 9), (13, 13), (14, 14)]
