"""Fact verification against CSV and YAML source of truth, staleness, CLI and log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from charter.config import Project
from charter.search.actions import read_actions
from charter.search.facts import check_facts, stale_sot, verify_text
from charter.search.patterns import find_facts

CHARTER = Path(sys.executable).with_name("charter")


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    root = tmp_path / "p"
    (root / "sot").mkdir(parents=True)
    (root / "charter.toml").write_text("")
    (root / "sot" / "engagements.csv").write_text(
        "engagement_id,client,fee_usd,start_date\n"
        "ENG-001,Acme Logistics,52500,2025-10-01\n"
        "ENG-002,Borealis Health,38000,2025-11-03\n"
    )
    (root / "sot" / "context.yaml").write_text(
        "deliverables:\n"
        "  - id: DEL-7\n    title: Usage pipeline\n    due: 2025-11-19\n"
        "  - id: DEL-8\n    title: Invoice pack\n    due: 2025-12-01\n"
    )
    return Project.load(root)


def _by_text(report, text: str):  # type: ignore[no-untyped-def]
    return next(f for f in report.facts if f.text == text)


def test_csv_mismatch_reports_canonical_value_and_address(project: Project) -> None:
    report = verify_text(project, "The ENG-001 engagement fee is $50,000 per the memo.")
    fee = _by_text(report, "$50,000")
    assert fee.status == "mismatch"
    assert fee.canonical == "52500"
    assert fee.address == "sot/engagements.csv#row=1" and fee.field == "fee_usd"
    assert _by_text(report, "ENG-001").status == "verified"


def test_csv_match_is_verified_in_any_format(project: Project) -> None:
    report = verify_text(project, "Acme Logistics pays USD 52.5k, starting Oct 1, 2025.")
    assert _by_text(report, "USD 52.5k").status == "verified"
    assert _by_text(report, "Oct 1, 2025").status == "verified"


def test_yaml_date_mismatch(project: Project) -> None:
    text = "# Plan\n\nDEL-7 (usage pipeline) is due 2025-11-15.\nDEL-8 is due 2025-12-01.\n"
    report = verify_text(project, text)
    wrong = _by_text(report, "2025-11-15")
    assert wrong.status == "mismatch" and wrong.canonical == "2025-11-19"
    assert wrong.address == "sot/context.yaml#/deliverables/0" and wrong.line == 3
    assert _by_text(report, "2025-12-01").status == "verified"


def test_unknown_id_and_unrelated_number_are_not_found(project: Project) -> None:
    report = verify_text(project, "DEL-999 needs 17 reviewers.")
    assert _by_text(report, "DEL-999").status == "not_found"
    assert _by_text(report, "17").status == "not_found"


def test_fact_recognisers_normalise() -> None:
    facts = {f.text: f.value for f in find_facts("Due 15 Nov 2025, fee $1.2M, 99.9% SLA")}
    assert facts == {"15 Nov 2025": "2025-11-15", "$1.2M": "1200000", "99.9%": "99.9%"}


def test_a_dotted_version_is_not_cut_into_a_number() -> None:
    """'Requests 2.32.4' was checked as the number 2.32: a fact the text never states."""
    texts = {f.text for f in find_facts("Requests 2.32.4 shipped on 2025-06-10; fee 2.5.")}
    assert texts == {"2025-06-10", "2.5"}


def test_a_table_keyed_by_a_version_names_its_records(project: Project) -> None:
    """A release table's key is a version, neither an id nor a name column: a sentence
    naming the version is about that row, so a wrong date there is a mismatch."""
    (project.root / "sot" / "releases.csv").write_text(
        "version,released\n2.31.0,2023-05-22\n2.32.4,2025-06-09\n"
    )
    report = verify_text(project, "Release 2.32.4 shipped on 2025-07-01.")
    wrong = _by_text(report, "2025-07-01")
    assert wrong.status == "mismatch" and wrong.canonical == "2025-06-09"
    assert wrong.address == "sot/releases.csv#row=2"
    right = _by_text(verify_text(project, "2.31.0 came out on 2023-05-22."), "2023-05-22")
    assert right.status == "verified"


def test_the_file_a_sentence_names_picks_among_records_with_the_same_key(
    project: Project,
) -> None:
    """One file per product, each keyed by version: "Python 3.7 eol was 2023-06-28" tied
    the "3.7" of every product, and another product's 2023-06-28 verified it."""
    releases = project.root / "sot" / "releases"
    releases.mkdir()
    (releases / "python.json").write_text(
        '{"releases": {"3.7": {"name": "3.7", "releaseDate": "2018-06-27",'
        ' "eol": "2023-06-27"}, "3.9": {"name": "3.9", "eol": "2025-10-31"}}}'
    )
    (releases / "alpine-linux.json").write_text(
        '{"releases": {"3.7": {"name": "3.7", "releaseDate": "2017-11-30",'
        ' "eol": "2019-11-01"}, "3.9": {"name": "3.9", "eol": "2025-10-31"}}}'
    )
    (releases / "other-pim.json").write_text(
        '{"versions": {"6.0.88": {"name": "6.0.88", "date": "2023-06-28"}}}'
    )
    wrong = _by_text(verify_text(project, "Python 3.7 eol was 2023-06-28."), "2023-06-28")
    assert wrong.status == "mismatch" and wrong.canonical == "2023-06-27"
    assert wrong.address == "sot/releases/python.json#/releases/3.7"
    alpine = _by_text(verify_text(project, "Alpine Linux 3.7 eol: 2019-11-02."), "2019-11-02")
    assert alpine.status == "mismatch" and alpine.canonical == "2019-11-01"
    right = _by_text(verify_text(project, "Python 3.9 eol is 2025-10-31."), "2025-10-31")
    assert right.status == "verified"
    assert right.address == "sot/releases/python.json#/releases/3.9"


def test_a_table_keyed_by_dates_or_numbers_ties_no_sentence_to_a_row(project: Project) -> None:
    """A date or an amount as a row's key would make every sentence stating that value
    "about" the row: such keys never name a record."""
    (project.root / "sot" / "rates.csv").write_text("effective,rate\n2025-01-01,4.5\n")
    report = verify_text(project, "From 2025-01-01 the plan costs 19 per seat.")
    assert _by_text(report, "19").status == "not_found"


def test_a_value_found_in_another_record_does_not_verify_the_named_one(
    project: Project,
) -> None:
    """A SoT of papers, years and scores holds most small numbers somewhere: "<paper> was
    published in 2020" was verified by another row's 2020 though the paper's row says
    2019, and "<paper id> has a confidence of 0.5" by another row's 0.5."""
    (project.root / "sot" / "papers.csv").write_text(
        "paper_id,title,year,domain,confidence,suppression_score\n"
        "c81f0bbb04c7a1ba,EditNTS: A Neural Programmer-Interpreter Model,2019,NLP,0.2,0.0\n"
        "9320c1d4c6252e0f,MelGAN: Generative Adversarial Networks,2019,CV,0.0,0.0\n"
        "d3402e1b9d01b3d6,A Geometric Perspective on Representations,2020,RL,0.5,0.0\n"
    )
    text = (
        "MelGAN: Generative Adversarial Networks was published in 2020.\n"
        "The paper 9320c1d4c6252e0f has a confidence of 0.5.\n"
        "EditNTS: A Neural Programmer-Interpreter Model appeared in 2019.\n"
        "We kept 2020 as the cut-off year.\n"
    )
    report = verify_text(project, text)
    year = _by_text(report, "2020")
    assert year.status == "mismatch" and year.canonical == "2019" and year.field == "year"
    assert year.address == "sot/papers.csv#row=2"
    score = _by_text(report, "0.5")
    assert score.status == "mismatch" and score.canonical == "0.0"
    assert score.field == "confidence" and score.address == "sot/papers.csv#row=2"
    assert _by_text(report, "2019").status == "verified"
    # a sentence that names no record is still verified by any record holding the value
    assert [f.status for f in report.facts if f.text == "2020"] == ["mismatch", "verified"]


def test_check_is_logged(project: Project) -> None:
    check_facts(project, "ENG-002 fee is $38,000.", source="memo.md")
    rows = read_actions(project.root / "logs" / "context_actions.csv")
    assert rows[-1]["action"] == "facts.check"
    assert json.loads(rows[-1]["detail"]) == {"mismatch": 0, "not_found": 0, "verified": 2}


def test_malformed_sot_file_is_reported_not_fatal(project: Project) -> None:
    (project.root / "sot" / "bad.csv").write_text("a,b\n1\n")
    report = verify_text(project, "ENG-002 fee is $38,000.")
    assert report.counts()["verified"] == 2
    assert report.errors and report.errors[0]["path"] == "sot/bad.csv"


def test_stale_sot_files(project: Project) -> None:
    old = time.time() - 45 * 86400
    os.utime(project.root / "sot" / "context.yaml", (old, old))
    stale = stale_sot(project)
    assert [s["path"] for s in stale] == ["sot/context.yaml"]
    assert stale[0]["age_days"] >= 44


def test_cli_check_stdin_json_and_exit_code(project: Project) -> None:
    done = subprocess.run(
        [str(CHARTER), "facts", "check", "-", "--json", "--project", str(project.root)],
        input="Acme Logistics (ENG-001) signed for $50,000.",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1  # a mismatch fails the check, like a linter
    data = json.loads(done.stdout)
    assert data["counts"]["mismatch"] == 1
    stale = subprocess.run(
        [str(CHARTER), "facts", "stale", "--json", "--project", str(project.root)],
        capture_output=True,
        text=True,
    )
    assert stale.returncode == 0 and json.loads(stale.stdout)["stale_days"] == 30
    missing = subprocess.run(
        [str(CHARTER), "facts", "check", "nope.md", "--project", str(project.root)],
        capture_output=True,
        text=True,
    )
    assert missing.returncode != 0 and "not found" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_stale_sot_in_git_reads_only_the_sot_files_history(project: Project) -> None:
    # committed SoT: its age is its commit time; git is asked about the SoT files only,
    # and a search warns about the indexed ones without walking the tree
    root = project.root
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2020-01-01T00:00:00",
        "GIT_COMMITTER_DATE": "2020-01-01T00:00:00",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "sot")
    from charter.search import gitinfo

    only = gitinfo.commit_times(root, ["sot/context.yaml"])
    assert only == {"sot/context.yaml": gitinfo.commit_times(root)["sot/context.yaml"]}
    assert stale_sot(project, candidates=["docs/readme.md"]) == []
    from charter.embed.registry import get_embedder
    from charter.search.engine import SearchEngine
    from charter.search.indexer import Indexer

    Indexer(project, get_embedder("minilm")).run()
    # a SoT file added after the index is not among the ones search answers from
    (root / "sot" / "later.csv").write_text("id,fee\nX-1,10\n")
    git("add", ".")
    git("commit", "-q", "-m", "later")
    engine = SearchEngine(project)
    try:
        warned = engine.search("engagement fee", mode="execution", log=False).warnings
    finally:
        engine.close()
    stale_warnings = sorted(w.split()[4] for w in warned if w.startswith("stale source"))
    assert stale_warnings == ["sot/context.yaml", "sot/engagements.csv"]
    assert {s["path"] for s in stale_sot(project)} >= {"sot/later.csv", "sot/context.yaml"}
