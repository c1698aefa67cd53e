"""Stable ids, deterministic compiled state, vector reuse, annotations."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.embed.registry import rules_embedder_for
from charter.rules.annotate import parse_annotations
from charter.rules.compiler import compile_rules, is_stale
from charter.rules.retrieve import Retriever
from charter.tokens import count_tokens
from tests.conftest import write

RULES = """# Rules

## Style

- Use snake_case for Python functions.
- Keep modules under 400 lines.

## Testing

- Mock external HTTP calls in unit tests.
- SEC-007: Never log request bodies (critical) @security
"""


def _pinned(root: Path) -> list[str]:
    """The texts of the rules a compile of ``root`` pins in the constitution."""
    compiled = compile_rules(Project.load(root))
    return [r.text for r in compiled.rules if r.id in compiled.constitution.rule_ids]


def _ids(root: Path) -> dict[str, str]:
    return {r.text: r.id for r in compile_rules(Project.load(root)).rules}


def test_ids_stable_under_unrelated_edits(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    before = _ids(repo)
    edited = RULES.replace("# Rules\n", "# Rules\n\nIntro paragraph added later by a teammate.\n")
    edited = edited.replace("- Keep modules under 400 lines.", "- Keep modules under 300 lines.")
    write(repo, "CLAUDE.md", edited)
    after = _ids(repo)
    for text, rid in before.items():
        if "400 lines" in text:
            assert rid not in after.values()
        else:
            assert after[text] == rid
    assert before["Never log request bodies"] == "SEC-007"


def test_compile_output_is_deterministic(repo: Path, tmp_path: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "AGENTS.md", "# Agents\n\n- Always use pnpm.\n")
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    digests = []
    for root in (repo, repo, copy):
        compile_rules(Project.load(root))
        digests.append(hashlib.sha256((root / ".charter/rules.json").read_bytes()).hexdigest())
    assert len(set(digests)) == 1


def test_recompile_reuses_vectors(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    first = compile_rules(Project.load(repo))
    assert first.report.embedded == len(first.rules)
    write(repo, "CLAUDE.md", RULES + "- Prefer dataclasses over dicts for records.\n")
    second = compile_rules(Project.load(repo))
    assert second.report.embedded == 1
    assert second.report.reused == len(second.rules) - 1


def test_annotations_on_word_boundaries() -> None:
    ann = parse_annotations("We follow the plan; decide later, then cd into src.")
    assert ann.risk == "" and ann.tool_classes == [] and ann.domains == []
    ann = parse_annotations(
        "R042: Run migrations (high) @database [bash] #deployment scope:db/**/*.sql priority:80"
    )
    assert ann.explicit_id == "R042"
    assert ann.risk == "high"
    assert ann.domains == ["database"]
    assert ann.tool_classes == ["bash"]
    assert ann.intents == ["deployment"]
    assert ann.scopes == ["db/**/*.sql"]
    assert ann.priority == 80
    assert ann.clean_text == "Run migrations"
    assert parse_annotations("Import `@n8n/di` and email ops@example.com").domains == []
    assert parse_annotations("[SEC-001] Rotate keys yearly").explicit_id == "SEC-001"
    assert parse_annotations("RULE-001: Rotate keys yearly").explicit_id == "RULE-001"


def test_a_word_marked_with_at_inside_the_sentence_is_no_domain_tag() -> None:
    # a domain tag follows the rule with the other tags; "@mentioned" or "@docs" inside
    # the sentence is the rule's own word, and removing it left "Can be : Yes"
    ann = parse_annotations("Can be @mentioned: Yes (hybrid loading)")
    assert ann.domains == [] and ann.clean_text == "Can be @mentioned: Yes (hybrid loading)"
    ann = parse_annotations("Reference the API with @docs before writing a client.")
    assert ann.domains == [] and "@docs before" in ann.clean_text
    ann = parse_annotations("Never log tokens. @security @privacy (critical)")
    assert ann.domains == ["privacy", "security"] and ann.clean_text == "Never log tokens."
    ann = parse_annotations("Ask @security before you rotate keys @ops [bash]")
    assert ann.domains == ["ops"] and ann.clean_text == "Ask @security before you rotate keys"


@pytest.mark.parametrize(
    ("text", "domains"),
    [
        ("Prefer small functions.", []),
        ("Fix the login page.", []),
        ("Keep one logical change per commit.", ["git"]),
        ("Open a PR for every change.", ["git"]),
        ("Add a log line when the job fails.", ["errors", "logging"]),
        ("The UI must stay usable by keyboard.", ["frontend"]),
        ("Use uint32 ids.", []),
        ("CI runs the whole test suite.", ["deployment", "testing"]),
        ("Be specific about what changed.", []),
        ("Credit the author in the header.", []),
        ("It is important to restart the worker.", []),
        ("Wrap FastAPI handlers in one router.", ["api"]),
        ("Authenticate every request; write specs for it.", ["api", "security", "testing"]),
    ],
)
def test_a_domain_word_written_whole_is_matched_whole(text: str, domains: list[str]) -> None:
    # the lexicon's "pr ", "log ", "ui " and "ci " are words, not prefixes of "prefer",
    # "login", "uint" or "city": each stem written with a trailing space ends at a word
    # end; "spec", "auth", "import", "rest" and "fast" are words too, or stems of their
    # own words only ("authent"), not of "specific", "author", "important", "restart"
    from charter.rules.annotate import infer_domains

    assert infer_domains(text, "") == domains


def test_constitution_cap_reports_overflow(repo: Path) -> None:
    body = "# Rules\n\n## Security\n\n" + "".join(
        f"- Never expose internal key number {i} in logs.\n" for i in range(70)
    )
    write(repo, "CLAUDE.md", body)
    write(repo, "charter.toml", "[rules]\nmax_constitution_tokens = 100000\n")
    compiled = compile_rules(Project.load(repo))
    c = compiled.constitution
    assert c.truncated and len(c.rule_ids) == 59 and len(c.overflow_ids) == 11
    assert len(c.text.splitlines()) == 60  # 59 rules under one file header
    assert any("overflow" in w for w in compiled.report.warnings)
    assert len(c.hash) == 16


def test_constitution_token_cap_keeps_overflow_retrievable(repo: Path) -> None:
    body = "# Critical rules\n\n" + "".join(
        f"- Never change the exported schema of table number {i} without a migration.\n"
        for i in range(40)
    )
    write(repo, "CLAUDE.md", body)
    project = Project.load(repo)
    compiled = compile_rules(project)
    c = compiled.constitution
    assert c.truncated and c.overflow_ids
    assert count_tokens(c.text) <= 300  # automatic cap for a small rule set
    assert len(c.rule_ids) + len(c.overflow_ids) == 40
    retriever = Retriever(compiled, project.settings.rules, rules_embedder_for(project.settings))
    result = retriever.retrieve("change the exported schema of table number 37")
    assert any(s.rule.id in c.overflow_ids for s in result.shards)


def test_an_overflowing_constitution_keeps_the_rules_that_apply_everywhere_first(
    repo: Path,
) -> None:
    """Two always-applied Cursor files whose rules overflow the cap: the one that names
    the files it is about (its globs) gave up its place to the one that applies
    everywhere, whatever their file names' order, and stays retrievable where it matters."""
    meta = (
        "---\ndescription: how to write rule files\nglobs: .cursor/rules/*.mdc\n"
        "alwaysApply: true\n---\n\n"
    )
    write(
        repo,
        ".cursor/rules/a_meta.mdc",
        meta + "".join(f"- Rule files state guideline number {i}.\n" for i in range(40)),
    )
    write(
        repo,
        ".cursor/rules/b_general.mdc",
        "---\ndescription: house rules\nglobs: *\nalwaysApply: true\n---\n\n"
        + "".join(f"- Use the house helper number {i} for requests.\n" for i in range(30)),
    )
    write(repo, "charter.toml", "[rules]\nmax_constitution_tokens = 100000\n")
    compiled = compile_rules(Project.load(repo))
    c = compiled.constitution
    by_id = {r.id: r for r in compiled.rules}
    kept = [by_id[i].source.path for i in c.rule_ids]
    assert kept[:30] == [".cursor/rules/b_general.mdc"] * 30
    assert {by_id[i].source.path for i in c.overflow_ids} == {".cursor/rules/a_meta.mdc"}


def test_state_from_another_charter_version_is_stale(repo: Path) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Always pin dependency versions.\n")
    project = Project.load(repo)
    compile_rules(project)
    assert not is_stale(project)
    meta_path = project.state_dir / "rules.meta.json"
    meta = json.loads(meta_path.read_text())
    meta["charter"] = "0.0.1"
    meta_path.write_text(json.dumps(meta))
    assert is_stale(project)


AGENTS_COPY = """# Agent rules

## Always

- Never commit secrets or `.env` files.

## Database

- Every schema change needs a reversible Alembic migration.
- Add an index for each foreign key column.
"""


def test_a_rule_copied_into_several_files_is_compiled_once(repo: Path, run_charter) -> None:
    write(repo, "AGENTS.md", AGENTS_COPY)
    # the same file kept for Claude Code, with one line of its own and a casing change
    write(
        repo,
        "CLAUDE.md",
        AGENTS_COPY.replace("Add an index", "add an index") + "- Use f-strings in logs.\n",
    )
    # a nested file applies only under its directory: the same words there are kept
    write(repo, "backend/AGENTS.md", "# Backend\n\n- Add an index for each foreign key column.\n")
    compiled = compile_rules(Project.load(repo))
    texts = [r.text.lower() for r in compiled.rules]
    assert texts.count("never commit secrets or `.env` files.") == 1
    assert texts.count("every schema change needs a reversible alembic migration.") == 1
    assert texts.count("add an index for each foreign key column.") == 2  # root + backend/
    assert "use f-strings in logs." in texts
    constitution = compiled.constitution.text
    assert constitution.count("Never commit secrets") == 1
    copies = {(kept.path, copy.path) for kept, copy in compiled.report.restated}
    assert copies == {("AGENTS.md", "CLAUDE.md")} and len(compiled.report.restated) == 3
    # the copies stay visible: compile --json lists them, lint warns at each copy
    out = json.loads(run_charter("compile", "--json", cwd=repo).stdout)
    assert {(r["rule"], r["copy"]) for r in out["restated"]} >= {
        ("AGENTS.md:L3-L5", "CLAUDE.md:L3-L5")
    }
    issues = json.loads(run_charter("lint", "--json", cwd=repo).stdout)["issues"]
    # (the first is cited from its "## Always" heading: the one rule of its section)
    assert {i["location"] for i in issues if i["kind"] == "duplicate"} >= {
        "CLAUDE.md:3",
        "CLAUDE.md:9",
        "CLAUDE.md:10",
    }


def test_a_rule_is_cited_in_its_source_not_in_a_generated_copy(repo: Path) -> None:
    # a script copies AGENTS.md into the files other agents read, each opening with a
    # note not to edit it: the folded copy was the first in discovery order, so every
    # rule was cited in the Amazon Q file the team never edits
    note = "<!-- AUTO-GENERATED from AGENTS.md — do not edit directly, run: make sync -->\n\n"
    write(repo, "AGENTS.md", AGENTS_COPY)
    write(repo, ".amazonq/rules/project.md", note + AGENTS_COPY)
    write(repo, "CLAUDE.md", note + AGENTS_COPY)
    compiled = compile_rules(Project.load(repo))
    assert {r.source.path for r in compiled.rules} == {"AGENTS.md"}
    assert {kept.path for kept, _ in compiled.report.restated} == {"AGENTS.md"}
    # a plain comment atop a file makes no copy of it: the first file keeps its rules
    write(repo, ".amazonq/rules/project.md", "<!-- house rules -->\n\n" + AGENTS_COPY)
    compiled = compile_rules(Project.load(repo))
    assert {r.source.path for r in compiled.rules} == {".amazonq/rules/project.md"}


def test_a_copy_in_a_nested_folder_of_a_copy_is_compiled_once(repo: Path) -> None:
    # "Inherits root `AGENTS.md`" opening the AGENTS.md of `db/`, `db/src/` and `lib/`: for a
    # file under `db/src/` both db copies apply, and the path hook handed the same line
    # over twice; the inner copy folds into the outer one, a sibling folder's copy stays
    line = "- Inherits root `AGENTS.md`; local rules add/override.\n"
    write(repo, "AGENTS.md", "# Rules\n\n- Use CommonJS everywhere.\n")
    write(repo, "db/AGENTS.md", "# db\n\n" + line + "- SQLite is the only engine.\n")
    write(repo, "db/src/AGENTS.md", "# src\n\n" + line + "- Export the adapter from `index.js`.\n")
    write(repo, "db/src/adapters/AGENTS.md", "# adapters\n\n" + line)
    write(repo, "lib/AGENTS.md", "# lib\n\n" + line)
    compiled = compile_rules(Project.load(repo))
    copies = sorted(
        (r.source.path, r.scopes) for r in compiled.rules if r.text.startswith("Inherits")
    )
    assert copies == [("db/AGENTS.md", ["db/**"]), ("lib/AGENTS.md", ["lib/**"])]
    folded = {(kept.path, copy.path) for kept, copy in compiled.report.restated}
    assert folded == {
        ("db/AGENTS.md", "db/src/AGENTS.md"),
        ("db/AGENTS.md", "db/src/adapters/AGENTS.md"),
    }
    assert len(compiled.rules) == 5


def test_bold_label_ending_in_scope_is_no_scope_tag(repo: Path) -> None:
    # "scope:" closing a bold label is prose: the rule keeps its words and applies everywhere
    write(
        repo,
        "AGENTS.md",
        "# Rules\n\n## Pull Requests\n\n"
        "- **Stay inside the issue's scope:** Implement only what the issue describes.\n",
    )
    (rule,) = compile_rules(Project.load(repo)).rules
    assert rule.scopes == []
    assert rule.text == "Stay inside the issue's scope: Implement only what the issue describes."
    assert parse_annotations("Lint SQL. scope:db/**/*.sql").scopes == ["db/**/*.sql"]


def test_a_core_mandates_section_is_the_constitution(repo: Path) -> None:
    """ "## 4. Core Mandates" (the heading Gemini CLI's system prompt gives its rules, and
    GEMINI.md files copy) over "Do **NOT** merge Pull Requests unless explicitly
    instructed": no default marker matched, so the constitution was empty and every
    mandate only retrieved per task. "Mandates" is a marker; "Mandated reporting" and a
    section about mandates' history are no rules' heading."""
    write(
        repo,
        "GEMINI.md",
        "# Project Context\n\n## 3. Workflows\n\n- Use `make build-<tool>` from the root.\n\n"
        "## 4. Core Mandates\n\n### Pull Request Protocol\n\n"
        "- **Rule:** Do **NOT** merge Pull Requests unless explicitly instructed by the user.\n\n"
        "## Mandated reporting\n\n- Reports go to the compliance team.\n",
    )
    pinned = _pinned(repo)
    assert pinned == ["Rule: Do NOT merge Pull Requests unless explicitly instructed by the user."]


def test_a_files_matching_heading_scopes_the_sections_under_it(repo: Path) -> None:
    """APM compiles path-scoped instructions into `AGENTS.md` as "## Files matching
    `**/*.nix`" over "## Nix", each `applyTo` a heading: the headings were read as titles,
    so "DO NOT add flake inputs" applied to every file and its `.claude/rules/nix.md` copy
    (scoped `**/*.nix`) was kept twice. A stretch runs to the next such heading or a
    thematic break (APM's footer is about the file); a nested file's globs are read from
    the root as APM writes them, a `**/` glob from the file's folder."""
    write(
        repo,
        "AGENTS.md",
        "# AGENTS.md\n\n## Files matching `**`\n\n## Git\n\n- Use conventional commits.\n\n"
        "## Files matching `**/*.nix`\n\n## Nix\n\n- DO NOT add flake inputs to `flake.nix`.\n\n"
        "## Files matching `{web/src,server/src}/**`\n\n## Streaming\n\n"
        "- Server handlers yield snapshot-then-deltas.\n\n---\n"
        "*This file was generated by APM CLI. Do not edit manually.*\n",
    )
    write(
        repo,
        ".claude/rules/nix.md",
        '---\npaths:\n  - "**/*.nix"\n---\n\n# Nix\n\n- DO NOT add flake inputs to `flake.nix`.\n',
    )
    write(
        repo,
        "web/AGENTS.md",
        "# AGENTS.md\n\n## Files matching `web/src/**`\n\n## UI\n\n- Use Corvu dialogs.\n\n"
        "## Files matching `**/*.test.ts`\n\n## Tests\n\n- Mock the websocket.\n",
    )
    compiled = compile_rules(Project.load(repo))
    scopes = {r.text: r.scopes for r in compiled.rules}
    assert scopes["Use conventional commits."] == []
    assert scopes["DO NOT add flake inputs to `flake.nix`."] == ["**/*.nix"]
    assert [r.source.path for r in compiled.rules if "flake" in r.text] == [".claude/rules/nix.md"]
    assert scopes["Server handlers yield snapshot-then-deltas."] == ["server/src/**", "web/src/**"]
    assert scopes["*This file was generated by APM CLI. Do not edit manually.*"] == []
    assert scopes["Use Corvu dialogs."] == ["web/src/**"]
    assert scopes["Mock the websocket."] == ["web/**/*.test.ts"]


def test_a_required_tools_heading_lists_prerequisites_not_the_constitution(repo: Path) -> None:
    """ "### Required Tools" over "**Node.js** (specified in .nvmrc)", "**pnpm**" made a
    large monorepo's whole constitution three tool names: the "Required" marker read a
    list of prerequisites as rules for every turn. "## Required" and "Required checks"
    still mark rules."""
    write(
        repo,
        "AGENTS.md",
        "# Stack\n\n## Development Environment\n\n### Required Tools\n\n"
        "- **Node.js** (specified in .nvmrc)\n- **pnpm** (see the `packageManager` field)\n\n"
        "### Required Environment Variables\n\n- `CI=1` enables CI mode.\n\n"
        "## Required checks\n\n- Run `pnpm test` before every push.\n",
    )
    pinned = _pinned(repo)
    assert "Run `pnpm test` before every push." in pinned
    assert not any("Node.js" in t or "pnpm (see" in t or "CI=1" in t for t in pinned)


def test_a_required_parameters_heading_is_a_reference_not_the_constitution(repo: Path) -> None:
    """Tool guides always applied as rule files document each tool's "### Required
    Parameters:" ("`path`: The file path to read", "`operations`: JSON array of insertion
    operations"): the "Required" marker pinned those parameter descriptions in every
    session's constitution. The inputs an interface takes are a reference; the "## Always
    validate" rules beside them stay pinned."""
    write(
        repo,
        "AGENTS.md",
        "# Insert Content Guidelines\n\n## insert_content\n\n### Required Parameters:\n"
        "- `path`: The file path to modify\n- `operations`: JSON array of insertion operations"
        "\n\n### Required fields\n\n- `start_line`: where the content goes\n\n"
        "## Always validate the operations before running them\n\n"
        "- Check that every operation has a start line.\n",
    )
    pinned = _pinned(repo)
    assert "Check that every operation has a start line." in pinned
    assert not any("`path`" in t or "`operations`" in t or "start_line" in t for t in pinned)


def test_copies_of_a_rule_file_count_once_in_the_budget(repo: Path) -> None:
    # the same rules kept for three agents: the budget is a share of one text, not three
    text = "# Rules\n\n" + "".join(
        f"- Rule {n}: keep the module number {n} free of network calls.\n" for n in range(40)
    )
    write(repo, "AGENTS.md", text)
    compiled = compile_rules(Project.load(repo))
    alone = compiled.source_tokens
    write(repo, "CLAUDE.md", text)
    write(repo, ".cursorrules", text + "- Use f-strings in logs.\n")
    compiled = compile_rules(Project.load(repo))
    # two of the three files are folded whole into the one compiled first
    shares = sorted(s.get("folded", 0.0) for s in compiled.sources)
    assert shares == [0.0, 1.0, 1.0]
    assert alone <= compiled.source_tokens < 1.2 * alone


def test_a_compile_reads_what_the_rules_forbid_once_and_stores_what_it_read(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading every rule's prohibitions is a tenth of a large compile: it is done once,
    while the model embeds, and what is stored is what a fresh reading finds."""
    import charter.rules.commands as commands
    from charter.rules.stored import load_prohibitions, prohibitions_of

    write(repo, "CLAUDE.md", RULES + "- Never run `make deploy`.\n- Do not edit `vendor/`.\n")
    calls: list[int] = []
    real = commands.forbidden_commands

    def counted(rules: list[Any]) -> list[Any]:
        calls.append(len(rules))
        return real(rules)

    monkeypatch.setattr(commands, "forbidden_commands", counted)
    project = Project.load(repo)
    compiled = compile_rules(project)
    assert compiled.prohibitions() is compiled.prohibitions()
    assert len(calls) == 1
    stored = load_prohibitions(project)
    assert stored is not None
    fresh = prohibitions_of(compiled.rules)
    assert stored.to_json() == fresh.to_json()
    assert [c.command for c in fresh.commands] == ["make deploy"]
    assert [e.path for e in fresh.edits] == ["vendor/"]
    # the lines the prompt hook shows were counted before the vectors came: the same
    # as counted from the finished compile
    from charter.rules.retrieve import shown_lines

    assert compiled.shown == shown_lines(compiled, project.settings.rules)
