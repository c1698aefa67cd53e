"""``charter export``: native shapes, citations, determinism, and the round trip
(export, compile the export in a fresh repository, get the same rules back)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from charter.config import Project
from charter.rules.compiler import load_or_compile
from charter.rules.export import FORMATS
from charter.rules.sources import split_front_matter

Run = Callable[..., subprocess.CompletedProcess[str]]
DEMO = Path(__file__).resolve().parent.parent / "examples" / "demo-project"
TOML = "[hooks]\nwarm_worker = false\n"


def _git_project(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "charter.toml").write_text(TOML, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export") / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".charter", "__pycache__"))
    return _git_project(root)


def _signature(project: Path) -> list[tuple[Any, ...]]:
    """What must survive a round trip: id, text, constitution, scopes, risk."""
    compiled = load_or_compile(Project.load(project))
    return sorted((r.id, r.text, r.constitution, tuple(r.scopes), r.risk) for r in compiled.rules)


def _rules_project(tmp_path: Path, name: str, text: str) -> Path:
    """A git project under ``tmp_path/src`` holding one rule file."""
    root = _git_project(tmp_path / "src")
    (root / name).write_text(text, encoding="utf-8")
    return root


def _exported_back(fmt: str, root: Path, tmp_path: Path, run_charter: Run) -> Path:
    """Export ``root`` as ``fmt`` and copy the files into a fresh project to compile."""
    out = tmp_path / "out"
    res = run_charter("export", fmt, "--out", str(out), cwd=root)
    assert res.returncode == 0, res.stderr
    fresh = _git_project(tmp_path / "fresh")
    shutil.copytree(out, fresh, dirs_exist_ok=True)
    return fresh


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_gives_the_same_rules(
    demo: Path, fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    out = tmp_path / "out"
    res = run_charter("export", fmt, "--out", str(out), "--json", cwd=demo)
    assert res.returncode == 0, res.stderr
    listed = json.loads(res.stdout)["files"]
    assert listed and all((out / f).is_file() for f in listed)
    again = tmp_path / "again"
    run_charter("export", fmt, "--out", str(again), cwd=demo)
    assert _tree_hash(out) == _tree_hash(again), "the same rules give byte-identical files"
    fresh = _git_project(tmp_path / "fresh")
    shutil.copytree(out, fresh, dirs_exist_ok=True)
    original = _signature(demo)
    assert _signature(fresh) == original
    # every exported rule line carries its citation back to the original source
    lines = [
        line
        for f in listed
        for line in (out / f).read_text(encoding="utf-8").splitlines()
        # a lead-in's items are nested under it; a YAML list in front matter is not a rule
        if line.startswith("- ") or (line.startswith("  - ") and "<!--" in line)
    ]
    assert len(lines) == len(original)
    assert all(line.rstrip().endswith("-->") and ":L" in line for line in lines)


def _meta(path: Path) -> dict[str, Any]:
    meta, _, _ = split_front_matter(path.read_text(encoding="utf-8"), path.name)
    return meta


def test_native_shapes(demo: Path, tmp_path: Path, run_charter: Run) -> None:
    for fmt in FORMATS:
        res = run_charter("export", fmt, "--out", str(tmp_path / fmt), cwd=demo)
        assert res.returncode == 0, res.stderr
    cursor = sorted((tmp_path / "cursor" / ".cursor" / "rules").glob("*.mdc"))
    metas = {p.name: _meta(p) for p in cursor}
    assert metas["charter-constitution.mdc"]["alwaysApply"] is True
    scoped = [m for m in metas.values() if m.get("globs")]
    assert scoped and all(m["alwaysApply"] is False for m in scoped)
    assert all(m.get("description") for m in metas.values())
    claude = sorted((tmp_path / "claude-rules" / ".claude" / "rules").glob("*.md"))
    paths = [_meta(p).get("paths") for p in claude]
    assert any(isinstance(p, list) and p for p in paths)
    assert _meta(tmp_path / "claude-rules/.claude/rules/charter-constitution.md") == {}
    nested = sorted(
        p.relative_to(tmp_path / "agents-md").as_posix()
        for p in (tmp_path / "agents-md").rglob("AGENTS.md")
    )
    assert nested[0] == "AGENTS.md" and len(nested) > 1
    copilot = sorted((tmp_path / "copilot" / ".github" / "instructions").glob("*.instructions.md"))
    apply_to = [_meta(p).get("applyTo") for p in copilot]
    assert "**" in apply_to and any(a and a != "**" for a in apply_to)
    # front matter is valid YAML for the agents that read it strictly
    for path in [*cursor[:1], *copilot]:
        yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])


def test_export_bad_input(demo: Path, tmp_path: Path, run_charter: Run) -> None:
    res = run_charter("export", "windsurf", cwd=demo)
    assert (
        res.returncode != 0
        and res.stderr.startswith("charter: error:")
        and "windsurf" in res.stderr
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = run_charter("export", "cursor", "--out", str(blocker), cwd=demo)
    assert res.returncode != 0 and "charter: error:" in res.stderr and str(blocker) in res.stderr
    assert "Traceback" not in res.stderr


def test_html_comments_are_not_rule_text(tmp_path: Path) -> None:
    root = _git_project(tmp_path / "p")
    (root / "CLAUDE.md").write_text(
        "# Rules\n\n## Style\n\n- Use pathlib for paths. <!-- why: portable -->\n"
        "<!-- a note for maintainers, not a rule -->\n",
        encoding="utf-8",
    )
    texts = [r.text for r in load_or_compile(Project.load(root)).rules]
    assert texts == ["Use pathlib for paths."]


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_again_removes_the_files_of_rules_that_are_gone(
    fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    """Exporting over an earlier export must not leave a removed section's (or scope's)
    file behind: the agent would keep loading rules the sources no longer have. Files
    the user wrote (no generated note) stay."""
    root = _git_project(tmp_path / "p")
    rules = (
        "# Rules\n\n## Tests\n\n- Run pytest before every commit.\n\n"
        "## Release\n\n- Never push tags by hand.\n"
    )
    (root / "CLAUDE.md").write_text(rules, encoding="utf-8")
    scoped = '---\npaths:\n  - "api/**"\n---\n# API\n\n- Version every endpoint.\n'
    (root / ".claude/rules").mkdir(parents=True)
    (root / ".claude/rules/api.md").write_text(scoped, encoding="utf-8")
    out = tmp_path / "out"
    assert run_charter("export", fmt, "--out", str(out), cwd=root).returncode == 0
    mine = {
        "cursor": ".cursor/rules/charter-mine.mdc",
        "claude-rules": ".claude/rules/charter-mine.md",
        "agents-md": "lib/AGENTS.md",
        "copilot": ".github/instructions/charter-mine.instructions.md",
    }[fmt]
    (out / mine).parent.mkdir(parents=True, exist_ok=True)
    (out / mine).write_text("# Mine\n\n- Keep this file.\n", encoding="utf-8")
    (root / "CLAUDE.md").write_text(rules.split("## Release")[0], encoding="utf-8")
    (root / ".claude/rules/api.md").unlink()
    fresh = tmp_path / "fresh"
    assert run_charter("export", fmt, "--out", str(fresh), cwd=root).returncode == 0
    res = run_charter("export", fmt, "--out", str(out), cwd=root)
    assert res.returncode == 0, res.stderr
    (out / mine).unlink()  # the user's file was kept; compare the rest with a fresh export
    assert _tree_hash(out) == _tree_hash(fresh)
    text = "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert "push tags" not in text and "Version every endpoint" not in text


def test_export_never_overwrites_a_file_it_did_not_write(tmp_path: Path, run_charter: Run) -> None:
    """``--out .`` with agents-md lands on the project's own AGENTS.md (often one of the
    sources): it is reported and kept, and nothing else is written."""
    root = _git_project(tmp_path / "p")
    own = "# Agents\n\n- Keep pull requests small.\n"
    (root / "AGENTS.md").write_text(own, encoding="utf-8")
    (root / "CLAUDE.md").write_text("# Rules\n\n- Run pytest before every commit.\n")
    res = run_charter("export", "agents-md", "--out", ".", cwd=root)
    assert res.returncode == 2 and "AGENTS.md" in res.stderr and "Traceback" not in res.stderr
    assert (root / "AGENTS.md").read_text(encoding="utf-8") == own
    out = tmp_path / "out"
    assert run_charter("export", "agents-md", "--out", str(out), cwd=root).returncode == 0
    again = run_charter("export", "agents-md", "--out", str(out), cwd=root)
    assert again.returncode == 0, again.stderr  # its own earlier export is overwritten


def test_export_reports_what_it_wrote_left_and_removed(tmp_path: Path, run_charter: Run) -> None:
    """A re-export that changes nothing rewrites nothing and says so; a removed section's
    file is reported as removed."""
    root = _git_project(tmp_path / "p")
    rules = "# Rules\n\n## Tests\n\n- Run pytest before every commit.\n\n"
    release = "## Release\n\n- Never push tags by hand.\n"
    (root / "CLAUDE.md").write_text(rules + release, encoding="utf-8")
    out = tmp_path / "out"
    first = run_charter("export", "cursor", "--out", str(out), "--json", cwd=root)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["written"] == report["files"] and report["files"]
    assert report["unchanged"] == [] and report["removed"] == []
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    again = json.loads(
        run_charter("export", "cursor", "--out", str(out), "--json", cwd=root).stdout
    )
    assert again["written"] == [] and again["unchanged"] == report["files"]
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    (root / "CLAUDE.md").write_text(rules, encoding="utf-8")
    human = run_charter("export", "cursor", "--out", str(out), cwd=root)
    assert human.returncode == 0, human.stderr
    gone = set(report["files"]) - {p.relative_to(out).as_posix() for p in out.rglob("*.mdc")}
    assert gone and all(f"removed {out / g}" in " ".join(human.stdout.split()) for g in gone)
    assert "files unchanged" in human.stdout


def test_agents_md_round_trip_keeps_globs_that_prefix_each_other(
    tmp_path: Path, run_charter: Run
) -> None:
    # `scope:**/*.ts scope:**/*.tsx` in the root AGENTS.md: removing the first tag from
    # the text also cut "scope:**/*.ts" out of the second, leaving an "x" in every rule
    root = _git_project(tmp_path / "src")
    (root / ".cursor" / "rules").mkdir(parents=True)
    (root / ".cursor" / "rules" / "next.mdc").write_text(
        "---\nglobs: **/*.ts, **/*.tsx\n---\n- Use appropriate caching strategies.\n",
        encoding="utf-8",
    )
    fresh = _exported_back("agents-md", root, tmp_path, run_charter)
    assert _signature(fresh) == _signature(root)
    assert [r[1] for r in _signature(fresh)] == ["Use appropriate caching strategies."]


def test_agents_md_round_trip_keeps_a_scope_on_a_folder_of_rule_files(
    tmp_path: Path, run_charter: Run
) -> None:
    # a Claude rule about writing Claude rules (`paths: [".claude/rules/**"]`) went to
    # `.claude/rules/AGENTS.md`, which compiles back as a Claude rule for every path
    root = _git_project(tmp_path / "src")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "writing.md").write_text(
        '---\npaths: [".claude/rules/**"]\n---\n- Keep each rule file on one concern.\n',
        encoding="utf-8",
    )
    (root / ".claude" / "rules" / "api.md").write_text(
        '---\npaths: ["api/**"]\n---\n- Validate every request body.\n', encoding="utf-8"
    )
    out = tmp_path / "out"
    assert run_charter("export", "agents-md", "--out", str(out), cwd=root).returncode == 0
    assert (out / "api" / "AGENTS.md").is_file()
    assert not (out / ".claude").exists()
    fresh = _exported_back("agents-md", root, tmp_path, run_charter)
    assert _signature(fresh) == _signature(root)
    assert {r[3] for r in _signature(fresh)} == {(".claude/rules/**",), ("api/**",)}


@pytest.mark.parametrize("fmt", ["cursor", "claude-rules", "copilot"])
def test_sections_whose_names_slug_alike_get_a_file_each(
    fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    # "Проект" and "Архитектура" both slug to "rules": the second file overwrote the
    # first and its rules were missing from the export
    root = _rules_project(
        tmp_path,
        "CLAUDE.md",
        "# Заметки\n\n## Проект\n\n- Витрина только для просмотра данных.\n\n"
        "## Архитектура\n\n- Данные грузятся одним запросом при старте.\n",
    )
    fresh = _exported_back(fmt, root, tmp_path, run_charter)
    texts = sorted(r[1] for r in _signature(fresh))
    assert texts == sorted(r[1] for r in _signature(root))
    assert len(texts) == 2


def test_a_section_name_with_accents_is_slugged_by_its_letters() -> None:
    # "## 🧪 Qualité de code" was exported as charter-qualit-de-code.mdc: the accented
    # letter was dropped with the emoji
    from charter.rules.export import _slug

    assert _slug("🧪 Qualité de code") == "qualite-de-code"
    assert _slug("Sécurité & Données") == "securite-donnees"
    assert _slug("Проект") == "rules"


#: One AGENTS.md stating a line in several sections (a lead-in repeated per list, a rule
#: in the constitution and again in a workflow section): the repeats get ids from their
#: file and section, so the export, which files sections apart, must carry them.
REPEATS = """# Agent guide

## Critical rules

- Modify only files directly related to the requested change.
- Never commit secrets or credentials to the repository.

## Bug fixes

Before you open the pull request:

- Reproduce the bug with a failing test first.
- Modify only files directly related to the requested change.

## Refactoring

Before you open the pull request:

- Keep behaviour unchanged and the public API stable.
- Run the whole test suite before and after.
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_a_text_stated_in_several_sections(
    fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    # the repeats' ids depended on the section they came from: exported without them,
    # a repeat filed in another file was dropped as restated (cursor, claude-rules,
    # copilot), or came back under another id, the constitution copy swapped (agents-md)
    root = _rules_project(tmp_path, "AGENTS.md", REPEATS)
    fresh = _exported_back(fmt, root, tmp_path, run_charter)
    original = _signature(root)
    assert sum(1 for r in original if r[1] == "Before you open the pull request:") == 2
    assert _signature(fresh) == original


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_a_checklist_under_its_lead_in(
    fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    # an emulator's docs rule: "Update ALL of these together:" over entries, one only a
    # path. Exported side by side with its lead-in (whose cite comment hid its colon),
    # the path came back as a one-word line and was dropped
    root = _rules_project(
        tmp_path,
        "AGENTS.md",
        "# Guide\n\n## Version bumps\n\nUpdate ALL of these together:\n"
        "- Rename `website/docs/<old>/` directories\n- `website/docs/versions.json`\n"
        "- `mkdocs.yml`: nav paths, redirect targets\n",
    )
    fresh = _exported_back(fmt, root, tmp_path, run_charter)
    original = _signature(root)
    assert any(r[1] == "`website/docs/versions.json`" for r in original)
    assert _signature(fresh) == original


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_the_risk_of_items_under_a_cited_lead_in(
    fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    # a Rails app's checklist under "When generating code:" in a rule file named for
    # security: exported, the lead-in's citation comment (".../security.md:L5") was read
    # as its words, made the items security rules and their risk high, not medium
    root = _git_project(tmp_path / "src")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude/rules/security.md").write_text(
        "# Checklist\n\n## Summary\n\nWhen generating code:\n1. Keep each method short\n"
        "2. Name classes after what they do\n",
        encoding="utf-8",
    )
    fresh = _exported_back(fmt, root, tmp_path, run_charter)
    original = _signature(root)
    assert {r[4] for r in original if r[1].startswith(("Keep", "Name"))} == {"medium"}
    assert _signature(fresh) == original


def test_sections_keep_the_order_the_source_gave_them(tmp_path: Path, run_charter: Run) -> None:
    # exported alphabetically, "Testing" came before "Setup" although the authors put the
    # setup first; a reader of the export meets the sections as they were written
    root = _rules_project(
        tmp_path,
        "AGENTS.md",
        "# Guide\n\n## Setup\n\n- Always run `make bootstrap` before anything else.\n\n"
        "## Testing\n\n- Never skip the integration tests before a release.\n\n"
        "## Architecture\n\n- Keep handlers thin and put logic in services.\n",
    )
    out = tmp_path / "out"
    res = run_charter("export", "agents-md", "--out", str(out), cwd=root)
    assert res.returncode == 0, res.stderr
    text = (out / "AGENTS.md").read_text(encoding="utf-8")
    places = [text.index(f"## {name}") for name in ("Setup", "Testing", "Architecture")]
    assert places == sorted(places), text


def test_copies_across_files_are_still_compiled_once(tmp_path: Path) -> None:
    # the export's ids keep its repeats apart; a line copied from AGENTS.md into
    # CLAUDE.md (no ids) is still one rule
    root = _git_project(tmp_path / "src")
    rule = "- Modify only files directly related to the requested change.\n"
    (root / "AGENTS.md").write_text("# Guide\n\n## Changes\n\n" + rule, encoding="utf-8")
    (root / "CLAUDE.md").write_text("# Notes\n\n## Edits\n\n" + rule, encoding="utf-8")
    assert len(_signature(root)) == 1


#: A section whose subsections say different things of their items: one forbids them, one
#: only names them. Filed under the top heading alone, the export lost the subsections.
SUBSECTIONS = """# Script guidelines

## Variables to avoid

### Reserved names (never assign)

- `$matches` - holds the last regex results.
- `$input` - the pipeline's input enumerator.

### Context variables

- `$Error` - the list of errors so far.

## Formatting

- Indent with four spaces.
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_the_headings_below_a_section(
    fmt: str, tmp_path: Path, run_charter: Run
) -> None:
    # a shell language's variable guide: flattened under "## Variables to avoid", the
    # items of "### Context variables" came back as prohibitions ("Variables to avoid:
    # `$Error` - …") and those of the forbidding subsection lost its words
    root = _rules_project(tmp_path, "AGENTS.md", SUBSECTIONS)
    original = _signature(root)
    assert any(r[1].startswith("Reserved names (never assign): `$matches`") for r in original)
    assert any(r[1] == "`$Error` - the list of errors so far." for r in original)
    fresh = _exported_back(fmt, root, tmp_path, run_charter)
    assert _signature(fresh) == original
