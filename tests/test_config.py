"""Configuration: defaults round-trip through charter.toml; errors name the key."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from charter.config import Project, Settings, parse_settings, render_default_config
from charter.errors import CharterError
from tests.conftest import CHARTER, write


def test_default_config_round_trips() -> None:
    parsed = parse_settings(tomllib.loads(render_default_config()))
    assert parsed == Settings()


def test_init_pins_no_default(repo: Path, run_charter) -> None:
    """``charter init`` shows every key with its default, commented out: a default written
    as a setting stays at that version's value after an upgrade retunes it (a new user's
    project kept an old list of indexed extensions). The file loads as the defaults, and
    it is the reference's text with each key line commented."""
    (repo / "charter.toml").unlink(missing_ok=True)
    done = run_charter("init", cwd=repo)
    assert done.returncode == 0, done.stderr
    written = (repo / "charter.toml").read_text(encoding="utf-8")
    assert Project.load(repo).settings == Settings()
    plain = render_default_config().splitlines()
    lines = written.splitlines()
    assert len(lines) == len(plain) + 1  # a two-line heading
    keys = 0
    for mine, ref in zip(lines[2:], plain[1:], strict=True):
        if ref.startswith(("#", "[")) or not ref:
            assert mine == ref
        else:
            assert mine == f"# {ref}"
            keys += 1
    assert keys > 100
    assert not [line for line in lines if line and not line.startswith(("#", "["))]


def test_pyproject_tool_section_is_read(repo: Path) -> None:
    write(repo, "pyproject.toml", "[project]\nname='x'\n\n[tool.charter.rules]\ntop_n = 9\n")
    assert Project.load(repo).settings.rules.top_n == 9


def test_bad_config_names_the_key(repo: Path) -> None:
    write(repo, "charter.toml", "[rules]\nmax_constitution_lines = 'many'\n")
    with pytest.raises(CharterError, match=r"rules\.max_constitution_lines"):
        Project.load(repo)
    write(repo, "charter.toml", "[rules]\nno_such_key = 1\n")
    with pytest.raises(CharterError, match="no_such_key"):
        Project.load(repo)


def test_configuration_doc_lists_every_default() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    assert render_default_config() in doc, "regenerate docs/configuration.md (charter init)"


def test_every_key_says_what_it_means() -> None:
    """charter init and docs/configuration.md show each key under a comment saying what it
    does; a key without one (hooks.worker_idle_seconds, the index's extension lists) was a
    bare name and a number."""
    lines = render_default_config().splitlines()
    bare = [
        line.split(" = ")[0]
        for i, line in enumerate(lines)
        if " = " in line and not line.startswith("#") and not lines[i - 1].startswith("# ")
    ]
    assert bare == []


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("charter.toml", "[rules]\ntop_m = 3\n", "charter.toml: rules.top_m: unknown key"),
        (
            "pyproject.toml",
            "[project]\nname = 'x'\n\n[tool.charter.search.modes.planning]\nk_inn = 3\n",
            "pyproject.toml: tool.charter.search.modes.planning.k_inn: unknown key",
        ),
        (
            "pyproject.toml",
            "[project]\nname = 'x'\n\n[tool]\ncharter = 3\n",
            "pyproject.toml: tool.charter: must be a table",
        ),
    ],
)
def test_unknown_or_misplaced_keys_are_one_line_naming_file_and_key(
    repo: Path, run_charter, name: str, text: str, where: str
) -> None:
    """An unknown key is reported with the path the user wrote: under [tool.charter] that
    path starts with tool.charter (it used to be given without it); a `charter = 3` that
    is no table was ignored in silence, so none of the user's settings applied."""
    write(repo, name, text)
    proc = run_charter("lint", cwd=repo)
    assert proc.returncode == 2, proc.stdout
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith("charter: error: ") and where in line


def test_a_charter_toml_with_a_byte_order_mark_is_read(repo: Path, run_charter) -> None:
    """A charter.toml saved with a UTF-8 byte-order mark (as Windows editors do) was
    "Invalid statement (at line 1, column 1)", pointing at nothing the user could see;
    it is read. One in UTF-16 is one line saying it is not UTF-8."""
    (repo / "charter.toml").write_bytes(b"\xef\xbb\xbf[rules]\ntop_n = 9\n")
    assert Project.load(repo).settings.rules.top_n == 9
    (repo / "charter.toml").write_bytes("[rules]\ntop_n = 9\n".encode("utf-16"))
    proc = run_charter("lint", cwd=repo)
    assert proc.returncode == 2, proc.stdout
    line = proc.stderr.strip()
    assert "\n" not in line and "charter.toml: not UTF-8" in line and "save it as UTF-8" in line


def _seed_rows() -> list[tuple[str, str]]:
    """(key, default) of each row of docs/configuration.md's seed table that names a key."""
    doc = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    section = doc.split("## The seeds' defaults", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and cells[2].startswith("`"):
            rows.append((cells[2].strip("`"), cells[3].replace("\\|", "|")))
    return rows


#: Every setting a seed names a default for (seed 000 rules, 001 graph, 002 session,
#: 003 decisions/drift, 004 search); each must be a row of the table.
SEED_KEYS = {
    "rules.constitution_markers",
    "rules.max_constitution_lines",
    "rules.constitution_priority_boost",
    "rules.intent_boost",
    "rules.risk_boost_high",
    "rules.risk_boost_critical",
    "rules.top_n",
    "embed.provider",
    "graph.source_artifact_limit",
    "session.core_files",
    "session.tracks_dir",
    "session.active_track_file",
    "session.sessions_dir",
    "session.checkpoints_dir",
    "session.guardrails.allowed_tools",
    "session.guardrails.planning_scopes",
    "session.core_writes",
    "decisions.default_priority",
    "drift.on_stop",
    *(
        f"search.modes.{m}.{k}"
        for m in ("planning", "execution", "review")
        for k in ("k_in", "k_out")
    ),
    "search.modes.planning.chunk_expansion",
    "search.modes.execution.exact_lookups",
    "search.modes.review.time_window_days",
    "search.modes.review.include_deleted",
    "search.modes.review.order_by_recency",
    "search.modes.review.citation_chaining",
    "search.rerank.provider",
    "search.actions_log",
    "search.stale_days",
}


def test_the_seed_table_names_real_keys_with_their_real_defaults() -> None:
    rows = _seed_rows()
    missing = SEED_KEYS - {key for key, _ in rows}
    assert not missing, f"docs/configuration.md seed table lacks {sorted(missing)}"
    settings: object = Settings()
    for key, default in rows:
        value = settings
        for part in key.split("."):
            value = value[part] if isinstance(value, dict) else getattr(value, part)
        if default.startswith("`"):
            stated = tomllib.loads(f"v = {default.strip('`')}")["v"]
            assert stated == value, f"{key}: docs say {stated!r}, the default is {value!r}"


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (
            "charter.toml",
            '[search]\ndefault_mode = "nonexistent"\n',
            "charter.toml: search.default_mode: unknown mode 'nonexistent' "
            "(known: execution, planning, review)",
        ),
        (
            "pyproject.toml",
            "[project]\nname = 'x'\n\n[tool.charter.search]\ndefault_mode = 'nonexistent'\n"
            "\n[tool.charter.search.modes.triage]\nk_out = 3\n",
            "pyproject.toml: tool.charter.search.default_mode: unknown mode 'nonexistent' "
            "(known: execution, planning, review, triage)",
        ),
    ],
)
def test_an_unknown_default_mode_is_a_config_error(
    repo: Path, run_charter, name: str, text: str, where: str
) -> None:
    """It used to load: `charter doctor` said ok, `charter mode` printed it, and every
    search without --mode then failed. Now loading refuses it in one line naming the file
    and key, and doctor's config check fails with that line."""
    write(repo, name, text)
    for command in (["search", "anything"], ["mode"]):
        proc = run_charter(*command, cwd=repo)
        assert proc.returncode == 2, proc.stdout
        line = proc.stderr.strip()
        assert "\n" not in line and line.startswith("charter: error: ") and where in line
    doctor = run_charter("doctor", "--check", "config", "--json", cwd=repo)
    assert doctor.returncode == 1
    (config,) = json.loads(doctor.stdout)["checks"]
    assert config["status"] == "fail" and where in config["summary"]


def test_modes_of_your_own_add_to_the_built_in_ones(repo: Path) -> None:
    """A [search.modes.x] table replaced the whole table of modes, and one named like a
    built-in mode lost every built-in default it did not repeat (review's time window)."""
    write(
        repo,
        "charter.toml",
        '[search]\ndefault_mode = "triage"\n\n[search.modes.triage]\nk_out = 3\n\n'
        "[search.modes.review]\nk_in = 5\n",
    )
    modes = Project.load(repo).settings.search.modes
    assert set(modes) == {"planning", "execution", "review", "triage"}
    assert modes["triage"].k_out == 3 and modes["triage"].time_window_days == 0
    review = modes["review"]
    assert (review.k_in, review.k_out, review.time_window_days) == (5, 10, 30)
    assert review.include_deleted and review.order_by_recency
    assert modes["planning"] == Settings().search.modes["planning"]


@pytest.mark.parametrize("shape", ["folder", "fifo", "dangling link"])
def test_a_config_that_is_no_regular_file_is_one_error_not_the_defaults(
    repo: Path, shape: str
) -> None:
    """A ``charter.toml`` that is a folder, a FIFO or a dangling link was passed over in
    silence and every command ran on the defaults; now it is one error naming it."""
    path = repo / "charter.toml"
    if shape == "folder":
        path.mkdir()
    elif shape == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(repo / "gone.toml")
    with pytest.raises(CharterError, match=r"charter\.toml: not a regular file"):
        Project.load(repo)
    proc = subprocess.run(
        [*CHARTER, "doctor", "--json", "--check", "config"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    (config,) = json.loads(proc.stdout)["checks"]
    assert config["status"] == "fail" and "not a regular file" in config["summary"]
    assert config["fix"].startswith("repair charter.toml;"), config["fix"]
