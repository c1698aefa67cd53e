"""Rule files that send the agent to Markdown files Charter does not compile: `compile`
warns for a pointer file, `doctor` lists what every rule file names, and listing the files
in ``rules.sources`` compiles their rules and silences both."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.rules.api import compile_project
from charter.rules.pointers import named_markdown
from tests.conftest import write

POINTER = """# Agent instructions

Read the `./context` directory, and specially:

- `./context/00-agents.md`
- [code quality](context/09-code-quality.md)

Then follow the instructions in these files.
"""


def _bare_repo(tmp_path: Path, config: str = "") -> Path:
    """A git repository holding only a ``charter.toml`` (no warm worker, then ``config``)."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "charter.toml", "[hooks]\nwarm_worker = false\n" + config)
    return root


def _repo(tmp_path: Path, config: str = "") -> Path:
    root = _bare_repo(tmp_path, config)
    write(root, "AGENTS.md", POINTER)
    write(root, "context/00-agents.md", "# Agents\n\n- Never commit to `main` directly.\n")
    write(root, "context/09-code-quality.md", "# Quality\n\n- Avoid `.forEach()`.\n")
    write(root, "context/notes.md", "# Notes\n")
    return root


def test_a_pointer_file_names_what_the_agent_is_sent_to(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    compiled = compile_project(Project.load(root))
    warnings = [w for w in compiled.report.warnings if "sends the agent to" in w]
    assert len(warnings) == 1
    assert warnings[0].startswith("AGENTS.md: sends the agent to ")
    # the files named one by one stand for their folder; the link counts as a name
    assert "context/00-agents.md, context/09-code-quality.md, which" in warnings[0]
    assert "context/," not in warnings[0] and "[rules] sources" in warnings[0]


def test_listing_the_files_compiles_their_rules_and_ends_the_warning(tmp_path: Path) -> None:
    root = _repo(tmp_path, '[rules]\nsources = ["context/00-agents.md", "context/09-*.md"]\n')
    compiled = compile_project(Project.load(root))
    assert not [w for w in compiled.report.warnings if "sends the agent to" in w]
    texts = [r.text for r in compiled.rules]
    assert any("Never commit to `main`" in t for t in texts)


def test_doctor_lists_what_rule_files_name(tmp_path: Path, run_charter: Any) -> None:
    root = _repo(tmp_path)
    assert run_charter("compile", cwd=root).returncode == 0
    proc = run_charter("doctor", "--json", "--check", "rule references", cwd=root)
    found = json.loads(proc.stdout)["checks"][0]
    assert found["status"] == "warn", found
    assert found["detail"]["pointer_files"] == {
        "AGENTS.md": ["context/00-agents.md", "context/09-code-quality.md"]
    }
    assert "[rules] sources" in found["fix"]


def test_doctor_before_a_compile_says_how_to_get_the_references(
    tmp_path: Path, run_charter: Any
) -> None:
    # "no compiled rules yet" with no fix, also after an upgrade of Charter left the
    # rules of an older one on disk, while the check beside it names `charter compile`
    root = _repo(tmp_path)
    proc = run_charter("doctor", "--json", "--check", "rule references", cwd=root)
    found = json.loads(proc.stdout)["checks"][0]
    assert found["status"] == "info", found
    assert "older Charter" in found["summary"], found
    assert "`charter compile`" in (found.get("fix") or ""), found


def test_urls_anchors_missing_and_outside_paths_are_no_references(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root, "docs/guide.md", "# Guide\n")
    write(root, "docs/sub/AGENTS.md", "x")
    write(tmp_path, "outside.md", "# Outside\n")
    text = (
        "See https://example.com/docs/guide.md, [anchor](#setup), `missing/file.md`, "
        "`../../outside.md`, `~/notes.md`, `src/*.md` and docs/guide.md#usage.\n"
    )
    assert named_markdown(root, "docs/sub/AGENTS.md", text, {"docs/sub/AGENTS.md"}) == [
        "docs/guide.md"
    ]
    # relative to the rule file's folder first, then to the root; compiled files are left out
    assert named_markdown(root, "docs/AGENTS.md", "Read `guide.md`.", set()) == ["docs/guide.md"]
    assert named_markdown(root, "AGENTS.md", "Read `docs/guide.md`.", {"docs/guide.md"}) == []


def test_a_rule_file_with_rules_of_its_own_is_no_pointer(tmp_path: Path) -> None:
    root = _bare_repo(tmp_path)
    rules = "".join(f"- Rule {i}: keep module {i} small.\n" for i in range(8))
    write(root, "CLAUDE.md", f"# Rules\n\n{rules}- Architecture notes are in `docs/arch.md`.\n")
    write(root, "docs/arch.md", "# Architecture\n")
    compiled = compile_project(Project.load(root))
    assert not [w for w in compiled.report.warnings if "sends the agent to" in w]


def test_a_file_of_copied_rules_is_no_pointer(tmp_path: Path) -> None:
    # CLAUDE.md states the same rules as AGENTS.md and names a document: its rules are
    # compiled once, under AGENTS.md, but it points nowhere
    root = _bare_repo(tmp_path)
    rules = "".join(f"- Keep handler number {n} free of blocking calls.\n" for n in range(8))
    write(root, "AGENTS.md", "# Rules\n\n" + rules)
    write(root, "CLAUDE.md", "# Rules\n\nSee `docs/guide.md` for more.\n\n" + rules)
    write(root, "docs/guide.md", "# Guide\n")
    compiled = compile_project(Project.load(root))
    assert not [w for w in compiled.report.warnings if "sends the agent to" in w]


@pytest.mark.parametrize(
    ("files", "text"),
    [
        # a skill and a folder of prompt files: the agent loads both itself when they
        # apply, yet doctor asked to list them in [rules] sources
        (
            {
                ".agents/skills/litestar/SKILL.md": "---\nname: litestar\n---\n# Skill\n",
                ".github/prompts/pr.prompt.md": "# PR\n",
            },
            "- Use `.agents/skills/litestar/SKILL.md` for routes.\n"
            "- Prompt commands live in [`.github/prompts/`](.github/prompts/).\n",
        ),
        # code folders holding a README or a `SKILLS.md` beside their sources, and a
        # file a skill loads with it: no place of rules to compile
        (
            {
                "Components/SKILLS.md": "# Components\n",
                "Components/Pages/Home.razor": "<h1/>\n",
                "Components/Shared/Nav.razor": "<nav/>\n",
                "DdlParser/README.md": "# Parser\n",
                "DdlParser/Parser.cs": "class P {}\n",
                "DdlParser/Program.cs": "class Q {}\n",
                ".claude/skills/ui/SKILL.md": "---\nname: ui\n---\n",
                ".claude/skills/ui/references/quick-ref.md": "# Quick\n",
            },
            "- `Components/`, `DdlParser/`: the UI and the parser.\n"
            "- Consult `.claude/skills/ui/references/quick-ref.md` for the API.\n",
        ),
    ],
)
def test_what_the_agent_loads_itself_or_code_folders_are_no_references(
    tmp_path: Path, files: dict[str, str], text: str
) -> None:
    root = tmp_path / "p"
    for rel, body in {**files, "docs/guide.md": "# Guide\n", "docs/style.md": "# S\n"}.items():
        write(root, rel, body)
    # a folder of documents and a document still are
    text += "- Read `docs/` first, and `docs/guide.md`.\n"
    assert named_markdown(root, "AGENTS.md", text, set()) == ["docs/guide.md"]


def test_a_rule_that_only_points_at_a_compiled_rule_file_is_no_rule(tmp_path: Path) -> None:
    """A one-line ``CLAUDE.md`` "See `AGENTS.md` for the shared project instructions."
    beside the ``AGENTS.md`` Charter compiles was a rule of its own (retrieved for tasks),
    sending the agent to read whole the file whose rules it is given one by one. A rule
    that says more, names the file as a thing to act on, or points at a file Charter does
    not compile stays; so does the pointer when its target is not compiled."""
    root = _bare_repo(tmp_path)
    write(
        root,
        "AGENTS.md",
        "# Agents\n\n- Always run `npm test` before committing.\n"
        "- Use pnpm, not npm install, to add dependencies.\n",
    )
    write(
        root,
        "CLAUDE.md",
        "See `AGENTS.md` for the shared project instructions.\n\n"
        "Project instructions are also in [AGENTS.md](AGENTS.md).\n\n"
        "Never edit `AGENTS.md` by hand; propose changes in a pull request.\n\n"
        "Read `docs/setup.md` before the first build.\n",
    )
    write(root, "docs/setup.md", "# Setup\n\nInstall Node 22.\n")
    texts = [r.text for r in compile_project(Project.load(root)).rules]
    assert not any(t.startswith(("See `AGENTS.md`", "Project instructions")) for t in texts)
    assert any(t.startswith("Never edit `AGENTS.md`") for t in texts)
    assert any(t.startswith("Read `docs/setup.md`") for t in texts)
    assert any("npm test" in t for t in texts)
    # compiled alone, CLAUDE.md's pointer is the only thing it says: it stays a rule
    alone = compile_project(Project.load(root), [root / "CLAUDE.md"])
    assert any(r.text.startswith("See `AGENTS.md`") for r in alone.rules)


def test_a_scope_in_front_matter_or_a_glob_is_no_reference(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root, "packages/api/README.md", "# API\n")
    write(root, "packages/web/README.md", "# Web\n")
    rule = ".github/instructions/api.instructions.md"
    text = (
        '---\napplyTo: "packages/api/**/*.spec.ts,packages/api/integration/**"\n---\n\n'
        "# Testing\n\nSpecs live beside the code under packages/web/**/*.spec.ts.\n"
    )
    assert named_markdown(root, rule, text, {rule}) == []
    # the same folder named in the body still counts
    assert named_markdown(root, rule, text + "\nRead packages/api/ first.\n", {rule}) == [
        "packages/api/"
    ]


def test_a_run_of_labelled_imports_of_compiled_rule_files_is_no_rule(tmp_path: Path) -> None:
    """A ``CLAUDE.md`` listing its rule files as ``@path`` imports, each with a label
    ("@.claude/rules/dsp.md ← WDF implementation rules, API reference"), compiled the run
    of paths and labels as one rule, retrieved for any task about the labels' words,
    though Claude Code reads each imported file in its place and Charter compiles their
    rules one by one. An import with a sentence of its own after it, one of a file that is
    not there, and a mention of someone (``@reviewer``) stay rules."""
    root = _bare_repo(tmp_path)
    write(root, ".claude/rules/dsp.md", "# DSP\n\n- Use `DiodePairT` for symmetric clippers.\n")
    write(root, ".claude/rules/ui.md", "# UI\n\n- Knobs snap to the detent on double click.\n")
    write(
        root,
        "CLAUDE.md",
        "# Project memory\n\n## Rule files (read before touching any code)\n\n"
        "@.claude/rules/dsp.md      ← WDF implementation rules, API reference, diode values\n"
        "@.claude/rules/ui.md       ← layout, controls, colour scheme\n\n"
        "- @.claude/rules/ui.md\n\n"
        "@.claude/rules/dsp.md — and whatever it says, never change a component value "
        "without checking the schematic first.\n\n"
        "@docs/missing.md ← circuit notes\n\n"
        "Ask @reviewer before merging.\n",
    )
    texts = [r.text for r in compile_project(Project.load(root)).rules]
    assert not any(t.startswith("@.claude/rules/") and "←" in t for t in texts), texts
    assert ".claude/rules/ui.md" not in texts
    assert any("never change a component value" in t for t in texts)
    assert any(t.startswith("@docs/missing.md") for t in texts)
    assert any("@reviewer" in t for t in texts)
    assert any("DiodePairT" in t for t in texts) and any("detent" in t for t in texts)


def test_a_file_left_out_in_rules_exclude_is_named_by_neither_compile_nor_doctor(
    tmp_path: Path, run_charter: Any
) -> None:
    # the user chose not to compile `context/`: the pointer warning and doctor's list
    # kept naming its files and told them to list what they had just excluded
    root = _repo(tmp_path, '[rules]\nexclude = ["context/*"]\n')
    compiled = compile_project(Project.load(root))
    assert not [w for w in compiled.report.warnings if "sends the agent to" in w]
    assert run_charter("compile", cwd=root).returncode == 0
    proc = run_charter("doctor", "--json", "--check", "rule references", cwd=root)
    found = json.loads(proc.stdout)["checks"][0]
    assert found["status"] == "ok", found
    # one file excluded by name: the other is still named
    assert named_markdown(root, "AGENTS.md", POINTER, set(), ["context/00-*"]) == [
        "context/09-code-quality.md"
    ]


def test_a_reference_after_many_code_spans_is_still_named(tmp_path: Path) -> None:
    """A 15-kB AGENTS.md names a hundred commands and identifiers in code spans before
    "always read [agent_docs/index.md](agent_docs/index.md)": the bound on references
    read counted every span, and the file it sends the agent to was never named."""
    root = tmp_path / "p"
    write(root, "agent_docs/index.md", "# Guides\n")
    write(root, "docs/Team Guide.md", "# Team\n")
    spans = " ".join(f"`make target-{n}`, `Name{n}`" for n in range(80))
    text = (
        f"Run {spans}.\n\nAlways read [the guide](agent_docs/index.md) and `docs/Team Guide.md`.\n"
    )
    assert named_markdown(root, "AGENTS.md", text, set()) == [
        "agent_docs/index.md",
        "docs/Team Guide.md",
    ]


def test_an_index_entry_linking_a_compiled_rule_file_is_no_rule(tmp_path: Path) -> None:
    """ "[Configs](.claude/rules/configs.md) — how configs are loaded" in an index file
    only names a rule file compiled here and what it holds: no rule. An entry whose
    summary says an act, or whose file is not compiled, stays a rule."""
    root = _bare_repo(tmp_path)
    write(root, ".claude/rules/configs.md", "# Configs\n\n- Load configs with `load_config()`.\n")
    write(root, "docs/notes.md", "# Notes\n\nSome notes.\n")
    write(
        root,
        "CLAUDE.md",
        "# Index\n\n"
        "- [Configs](.claude/rules/configs.md) — how configs are loaded\n"
        "- **[Configs again](.claude/rules/configs.md)**: loading and validation\n"
        "- [Configs](.claude/rules/configs.md) — never read env vars directly\n"
        "- [Notes](docs/notes.md) — design notes\n",
    )
    texts = [r.text for r in compile_project(Project.load(root)).rules]
    assert not any("how configs are loaded" in t for t in texts), texts
    assert not any("loading and validation" in t for t in texts), texts
    assert any("never read env vars directly" in t for t in texts)
    assert any("design notes" in t for t in texts)
    assert any("load_config" in t for t in texts)
