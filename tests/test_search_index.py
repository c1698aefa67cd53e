"""Indexing: incremental re-embedding, secrets and .gitignore, malformed files, deletions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.embed.registry import get_embedder
from charter.search.indexer import Indexer
from charter.search.store import SearchStore
from tests.conftest import demo_search_copy
from tests.search_support import open_engine

CHARTER = Path(sys.executable).with_name("charter")


def _copy_demo(tmp_path: Path) -> Path:
    return demo_search_copy(tmp_path / "proj", '[search]\ndefault_mode = "execution"\n')


def _index(root: Path, provider: str = "minilm"):
    project = Project.load(root)
    return Indexer(project, get_embedder(provider)).run()


def _git(root: Path, **env: str) -> Callable[..., None]:
    """``git -C root ARGS`` as a fixed test author (plus ``env``, e.g. commit dates)."""
    full = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        **env,
    }

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, env=full, capture_output=True)

    return git


def _committed(root: Path, **env: str) -> Callable[..., None]:
    """A git repository at ``root`` holding everything in it as one commit; returns its
    ``git`` for more."""
    git = _git(root, **env)
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "initial")
    return git


def test_only_the_changed_file_is_re_embedded(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    first = _index(root)
    assert first.chunks_embedded > 20 and not first.errors
    assert "sot/engagements.csv" in first.indexed

    # touching without changing content re-embeds nothing
    os.utime(root / "docs" / "runbook.md", (time.time() + 5, time.time() + 5))
    touched = _index(root)
    assert touched.indexed == [] and touched.chunks_embedded == 0
    assert touched.unchanged == len(first.indexed)

    runbook = root / "docs" / "runbook.md"
    runbook.write_text(runbook.read_text() + "\n## Paging\n\nPage the on-call engineer.\n")
    second = _index(root)
    assert second.indexed == ["docs/runbook.md"]
    assert second.embedded_paths == ["docs/runbook.md"]
    assert second.chunks_embedded == 1  # the new section only; old sections keep vectors
    assert second.chunks_reused >= 3
    with SearchStore.for_state_dir(root / ".charter") as store:
        texts = [r["text"] for r in store.chunks_of("docs/runbook.md")]
    assert any("Page the on-call engineer." in t for t in texts)


def test_a_chunking_change_re_reads_unchanged_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an index built before a chunker change kept the old chunks of every file nobody
    # edited (a decision log kept as one table stayed one chunk after the upgrade)
    from charter.search import indexer

    root = _copy_demo(tmp_path)
    first = _index(root)
    monkeypatch.setattr(indexer, "PARSE_VERSION", indexer.PARSE_VERSION + 1)
    again = _index(root)
    assert again.unchanged == 0 and sorted(again.indexed) == sorted(first.indexed)
    assert again.chunks_embedded == 0  # same texts: every vector is reused
    assert _index(root).unchanged == len(first.indexed)


def test_execution_mode_searches_the_declared_sot_wherever_it_lives(tmp_path: Path) -> None:
    # a data project declared `_data/release-data/releases/**` its SoT: fact checks read
    # it and execution searches warned when it was stale, but never answered from it
    # (execution's search_paths name only `sot/**`)
    root = demo_search_copy(
        tmp_path / "proj",
        '[search.index]\nsot_paths = ["sot/**", "data/releases/**"]\n',
    )
    (root / "data" / "releases").mkdir(parents=True)
    (root / "data" / "releases" / "zephyrdb.json").write_text(
        '{"releases": {"7.4": {"name": "7.4", "releaseDate": "2021-03-02",'
        ' "eol": "2026-03-31", "codename": "quillfeather"}}}\n'
    )
    _index(root, "hash")
    with open_engine(root) as engine:
        execution = engine.search("zephyrdb quillfeather eol", mode="execution")
        planning = engine.search("zephyrdb quillfeather eol", mode="planning")
    assert execution.scope.sot_paths == ["sot/**", "data/releases/**"]
    assert [r.path for r in execution.results][:1] == ["data/releases/zephyrdb.json"]
    assert all(not r.path.startswith("data/") for r in planning.results)


def test_a_hidden_context_folder_is_the_projects_context(tmp_path: Path) -> None:
    """A compiler repository keeps its specification, issues and task notes for agents in
    ``.context/``: indexed, but outside every mode but review (``context/**`` does not
    match the hidden folder), so planning and execution answered from the README."""
    root = tmp_path / "proj"
    issue = root / ".context" / "issues" / "analyzer-keeps-state.md"
    issue.parent.mkdir(parents=True)
    issue.write_text(
        "# The analyzer keeps symbols across runs\n\nA second `analyze` call on the same "
        "analyzer reports a duplicate function `main`.\n"
    )
    (root / "README.md").write_text("# Compiler\n\nA small compiler with an analyzer.\n")
    _index(root, "hash")
    with open_engine(root) as engine:
        for mode in ("planning", "execution"):
            found = engine.search("analyzer duplicate function main", mode=mode)
            assert [r.path for r in found.results][:1] == [
                ".context/issues/analyzer-keeps-state.md"
            ]


def _search_json(root: Path, query: str, mode: str) -> dict[str, Any]:
    """``charter search QUERY --mode MODE --json`` in ``root``, as a fresh process."""
    res = subprocess.run(
        [str(CHARTER), "search", query, "--mode", mode, "--json"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def test_secrets_and_gitignored_files_are_skipped_and_reported(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    (root / ".env").write_text("API_KEY=sk-live-123\n")
    (root / ".env.production").write_text("DB_PASSWORD=hunter2\n")
    (root / "docs" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    (root / "docs" / "aws_credentials.md").write_text("# creds\n\naws_secret=abc\n")
    (root / ".gitignore").write_text("scratch/\n")
    (root / "scratch").mkdir()
    (root / "scratch" / "notes.md").write_text("# Scratch\n\nignored text\n")
    report = _index(root, "hash")
    skipped = dict(report.skipped)
    assert skipped[".env"].startswith("secret")
    assert skipped[".env.production"].startswith("secret")
    assert skipped["docs/aws_credentials.md"].startswith("secret")
    assert skipped["scratch/"] == "gitignored"  # ignored folders are not even walked
    assert "docs/server.pem" in skipped or "docs/server.pem" not in report.indexed
    with SearchStore.for_state_dir(root / ".charter") as store:
        all_text = " ".join(r[0] for r in store.conn.execute("SELECT text FROM chunks"))
    assert "sk-live-123" not in all_text and "hunter2" not in all_text
    assert "aws_secret" not in all_text and "ignored text" not in all_text


def test_an_env_template_is_indexed_with_its_secrets_redacted(tmp_path: Path) -> None:
    """``.env.example`` lists the variables a project needs; rule files ask agents to keep
    it current. It is read like any file (a live value in it is still redacted), while
    ``.env`` and ``.env.local`` stay refused by name."""
    root = _copy_demo(tmp_path)
    (root / ".env.example").write_text(
        "STRIPE_WEBHOOK_TOLERANCE=300\nDB_PASSWORD=Zx9kqT4vLm2w8Rp\n"
    )
    (root / ".env.local").write_text("DB_PASSWORD=Zx9kqT4vLm2w8Rp\n")
    report = _index(root, "hash")
    skipped = dict(report.skipped)
    assert ".env.example" in report.indexed and ".env.example" not in skipped
    assert skipped[".env.local"].startswith("secret")
    with SearchStore.for_state_dir(root / ".charter") as store:
        text = " ".join(r["text"] for r in store.chunks_of(".env.example"))
    assert "STRIPE_WEBHOOK_TOLERANCE" in text and "Zx9kqT4vLm2w8Rp" not in text


def test_malformed_csv_and_yaml_are_reported_and_the_rest_indexed(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    (root / "sot" / "broken.csv").write_text("id,fee\nX-1,10,extra\n")
    (root / "sot" / "broken.yaml").write_text("a: [1, 2\nb: 3\n")
    report = _index(root, "hash")
    errors = dict(report.errors)
    assert "line 2: expected 2 fields, got 3" in errors["sot/broken.csv"]
    assert errors["sot/broken.yaml"].startswith("malformed YAML sot/broken.yaml: line")
    assert "sot/engagements.csv" in report.indexed and "docs/runbook.md" in report.indexed

    done = subprocess.run(
        [str(CHARTER), "index", "--project", str(root)], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "malformed CSV sot/broken.csv: line 2" in done.stderr
    assert "Traceback" not in done.stderr


def test_templated_yaml_is_indexed_as_text_without_a_warning(tmp_path: Path) -> None:
    """Rails fixtures and ``database.yml`` are ERB, Helm charts Go templates: YAML only
    once rendered. They were left out of the index, each with a "malformed YAML" warning;
    now their text is searchable and nothing is reported. A malformed YAML file without
    template tags is still reported."""
    root = _copy_demo(tmp_path)
    (root / "config").mkdir()
    (root / "config" / "blobs.yml").write_text(
        'square_blob: <%= ActiveStorage::FixtureSet.blob filename: "square.png" %>\n'
    )
    (root / "config" / "deployment.yaml").write_text(
        "spec:\n  replicas: {{ .Values.replicaCount }}\n  {{- if .Values.probe }}\n"
        "  probe: true\n  {{- end }}\n"
    )
    (root / "sot" / "broken.yaml").write_text("a: [1, 2\nb: 3\n")
    # a test's deliberately broken manifest was reported on every index run
    fixture = root / "spec" / "fixtures" / "bad-manifest" / "manifest.json"
    fixture.parent.mkdir(parents=True)
    fixture.write_text('{"name": "bad", "version": \n')
    # a Go package's `fixture/` (singular) holds its test's broken config too
    singular = root / "query" / "internal" / "fixture" / "ui-config-malformed.json"
    singular.parent.mkdir(parents=True)
    singular.write_text('{"a" 1}\n')
    report = _index(root, "hash")
    errors = dict(report.errors)
    assert set(errors) == {"sot/broken.yaml"}, errors
    assert {"config/blobs.yml", "config/deployment.yaml"} <= set(report.indexed)
    assert "spec/fixtures/bad-manifest/manifest.json" in report.indexed
    assert "query/internal/fixture/ui-config-malformed.json" in report.indexed
    with SearchStore.for_state_dir(root / ".charter") as store:
        text = " ".join(r["text"] for r in store.chunks_of("config/blobs.yml"))
    assert "FixtureSet.blob" in text


def test_translation_catalogs_are_indexed_as_text_not_a_record_per_key(
    tmp_path: Path,
) -> None:
    """A Rails app's locale files were 4,787 of its 6,845 chunks, one record (and one
    embedding) per key. A catalog is now a few chunks of text, and its strings are still
    found; a catalog the project names as source-of-truth data stays records."""
    root = _copy_demo(tmp_path)
    views = "".join(
        f"    view_{i}:\n      title: Title {i}\n      submit: Save {i}\n" for i in range(60)
    )
    body = "en:\n  accounts:\n" + views + "  mfa:\n    code_label: Verification Code\n"
    (root / "config" / "locales").mkdir(parents=True)
    (root / "config" / "locales" / "en.yml").write_text(body)
    (root / "sot" / "locales").mkdir(parents=True)
    (root / "sot" / "locales" / "en.yml").write_text(body)
    _index(root, "hash")
    with SearchStore.for_state_dir(root / ".charter") as store:
        catalog = store.chunks_of("config/locales/en.yml")
        named = store.chunks_of("sot/locales/en.yml")
    assert 1 <= len(catalog) <= 5, len(catalog)
    assert "Verification Code" in " ".join(r["text"] for r in catalog)
    assert len(named) > 60  # sot/** is source-of-truth data: a record per mapping


def test_deleted_file_stays_findable_only_in_review(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    _index(root)
    (root / "docs" / "runbook.md").unlink()
    report = _index(root)
    assert report.deleted == ["docs/runbook.md"]
    with open_engine(root) as engine:
        execution = engine.search("how do I roll back a deploy", mode="execution", log=False)
        review = engine.search("how do I roll back a deploy", mode="review", log=False)
    assert all(r.path != "docs/runbook.md" for r in execution.results)
    hits = [r for r in review.results if r.path == "docs/runbook.md"]
    assert hits and hits[0].status == "deleted" and "[deleted" in hits[0].citation


def test_bad_path_is_one_line_error(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    done = subprocess.run(
        [str(CHARTER), "index", str(root / "nope"), "--project", str(root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and "path not found" in done.stderr


def test_a_path_outside_the_project_is_refused_not_walked(tmp_path: Path) -> None:
    """`charter index /etc` walked all of /etc only to list each file as 'outside the
    project' (1,044 rows, exit 0); `charter index /` would walk the whole disk."""
    root = _copy_demo(tmp_path)
    outside = tmp_path / "elsewhere"
    for n in range(50):
        (outside / f"d{n}").mkdir(parents=True)
        (outside / f"d{n}" / "note.md").write_text("# Note\n")
    for target in (outside, root / ".."):
        done = subprocess.run(
            [str(CHARTER), "index", str(target), "--project", str(root)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2, done.stdout
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("charter: error:") and "outside the project" in line
        assert done.stdout == ""


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_files_deleted_in_git_history_are_searchable_in_review(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    legacy = root / "docs" / "legacy-billing.md"
    legacy.write_text(
        "# Legacy billing engine\n\n## Nightly batch\n\nThe old engine rated usage in a "
        "nightly cron batch written in Perl, which took six hours for large tenants.\n"
    )
    git = _committed(root)
    git("rm", "-q", "docs/legacy-billing.md")
    git("commit", "-q", "-m", "remove legacy doc")
    report = _index(root)  # the file never existed in this index: it comes from history
    assert report.history == ["docs/legacy-billing.md"]
    with open_engine(root) as engine:
        review = engine.search("nightly Perl batch job", mode="review", log=False)
        execution = engine.search("nightly Perl batch job", mode="execution", log=False)
    found = [r for r in review.results if r.path == "docs/legacy-billing.md"]
    assert found, [r.citation for r in review.results]
    assert found[0].status == "deleted"
    assert found[0].citation.startswith(
        "docs/legacy-billing.md#L3-L5 (Legacy billing engine > Nightly batch) [deleted in "
    )
    assert all(r.path != "docs/legacy-billing.md" for r in execution.results)


def test_review_time_window_drops_old_files_but_keeps_adrs(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    old = time.time() - 90 * 86400
    os.utime(root / "docs" / "runbook.md", (old, old))
    os.utime(root / "decisions" / "ADR-0001-use-postgres.md", (old, old))
    _index(root, "hash")
    with open_engine(root) as engine:
        paths = {
            r.path
            for query in ("roll back a deploy runbook", "PostgreSQL system of record")
            for r in engine.search(query, mode="review", k_out=30, log=False).results
        }
        planning = {
            r.path for r in engine.search("roll back a deploy", mode="planning", log=False).results
        }
    assert "docs/runbook.md" not in paths  # older than the 30-day window
    assert "decisions/ADR-0001-use-postgres.md" in paths  # ADRs are exempt
    assert "docs/runbook.md" in planning  # planning has no time window


def test_code_files_are_symbol_chunks_with_citations(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    (root / "docs" / "billing.py").write_text(
        '"""Billing helpers."""\n\n\ndef prorate(amount, days, period_days):\n'
        '    """Prorate an amount over a partial billing period."""\n'
        "    return amount * days / period_days\n"
    )
    report = _index(root, "hash")
    assert "docs/billing.py" in report.indexed
    with open_engine(root) as engine:
        response = engine.search("prorate partial billing period", mode="execution", log=False)
    top = response.results[0]
    assert top.citation == "docs/billing.py#L4-L6 (def prorate)"
    assert top.kind == "code"


def test_sources_of_common_languages_are_indexed_by_default(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    (root / "app").mkdir()
    (root / "app" / "Invoices.kt").write_text(
        "fun prorateLateFee(amount: Long, days: Int): Long {\n    return amount * days / 30\n}\n"
    )
    (root / "app" / "fees.R").write_text(
        "waive_weekend_surcharge <- function(total) {\n  total * 0.9\n}\n"
    )
    report = _index(root, "hash")
    assert {"app/Invoices.kt", "app/fees.R"} <= set(report.indexed)
    with open_engine(root) as engine:
        hits = engine.search("waive_weekend_surcharge", mode="review", log=False).results
    assert "app/fees.R" in [h.path for h in hits[:3]]


def test_review_that_the_time_window_empties_says_so(tmp_path: Path) -> None:
    """A repository whose last commit is older than the review window gets no result in
    review mode; an empty list with no word of why reads as a broken index."""
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text("# Guide\n\nSet a timeout on every session.\n")
    (root / "charter.toml").write_text("")
    old = time.time() - 90 * 86400
    for path in (root / "docs" / "guide.md", root / "charter.toml"):
        os.utime(path, (old, old))
    subprocess.run([str(CHARTER), "index"], cwd=root, check=True, capture_output=True)

    def search(mode: str) -> dict[str, Any]:
        return _search_json(root, "session timeout", mode)

    review = search("review")
    assert review["results"] == []
    (warning,) = review["warnings"]
    assert "30 days" in warning and "search.modes.review.time_window_days" in warning
    planning = search("planning")
    assert planning["results"] and planning["warnings"] == []


def test_a_fresh_charter_init_does_not_answer_review_searches(tmp_path: Path) -> None:
    """An older repository, then ``charter init``: the new charter.toml was the only file
    in review's 30-day window, so a review search returned ten chunks of it (several
    scored below zero) and no word about the window. Now the config is not indexed and
    the window's emptiness is said."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "transfers.py").write_text(
        "def auto_match_transfers(ledger, statements):\n"
        '    """Pair each outgoing transfer with the incoming one of the same amount."""\n'
        "    return [(a, b) for a in ledger for b in statements if a.amount == b.amount]\n"
    )
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n\nTransfers are reconciled nightly.\n")
    stamp = "2020-01-02T03:04:05+00:00"
    _committed(root, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    for command in (["init"], ["index"]):
        subprocess.run([str(CHARTER), *command], cwd=root, check=True, capture_output=True)
    assert (root / "charter.toml").is_file()
    review = _search_json(root, "auto_match_transfers", "review")
    assert review["results"] == []
    (warning,) = review["warnings"]
    assert "30 days" in warning and "search.modes.review.time_window_days" in warning


def test_git_times_and_history_of_non_ascii_and_quoted_paths(tmp_path: Path) -> None:
    """git quotes such paths ("\\303\\251t\\303\\251.md"); read unquoted, each keeps its
    commit time (not the checkout's mtime, inside any time window) and is not 'deleted'."""
    from charter.search import gitinfo

    root = tmp_path / "proj"
    names = ["docs/été/苗条.md", 'docs/say "hi".md', "docs/tab\there.md", "docs/plain.md"]
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("# Note\n\nText.\n")
    (root / "docs" / "gone é.md").write_text("# Gone\n")
    stamp = "2020-01-02T03:04:05+00:00"
    git = _committed(root, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    git("rm", "-q", "docs/gone é.md")
    git("commit", "-q", "-m", "remove")
    times = gitinfo.commit_times(root)
    assert {name: times.get(name) for name in names} == {name: 1577934245 for name in names}
    assert [d.path for d in gitinfo.deleted_files(root)] == ["docs/gone é.md"]


def test_a_crash_while_embedding_keeps_the_documents_already_embedded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents are committed a slice at a time: a kill ten minutes into embedding a large
    repository keeps what was embedded, and the next run embeds only the rest."""
    from charter.search import indexer as indexer_mod

    root = _copy_demo(tmp_path)
    project = Project.load(root)
    real = get_embedder("hash")

    class Dies:
        name, dim, calls = real.name, real.dim, 0

        def embed(self, texts: Any) -> Any:
            Dies.calls += 1
            if Dies.calls == 3:
                raise KeyboardInterrupt  # a kill mid-run
            return real.embed(texts)

    monkeypatch.setattr(indexer_mod, "STORE_EVERY", 4)
    with pytest.raises(KeyboardInterrupt):
        Indexer(project, Dies()).run()  # type: ignore[arg-type]
    with SearchStore.for_state_dir(root / ".charter") as store:
        kept = store.stats()["chunks"]
    assert kept >= 4
    again = Indexer(project, real).run()
    full = _index(_copy_demo(tmp_path / "fresh"), "hash")
    assert 0 < again.chunks_embedded <= full.chunks_embedded - kept
    assert again.totals == full.totals


def test_a_symlink_loop_is_skipped_not_fatal(tmp_path: Path) -> None:
    """`a -> b -> a` (and a link to itself) cannot be resolved: one skipped line each,
    the rest of the project is still indexed."""
    root = _copy_demo(tmp_path)
    (root / "docs" / "loop1.md").symlink_to("loop2.md")
    (root / "docs" / "loop2.md").symlink_to("loop1.md")
    (root / "docs" / "self").symlink_to("self")
    report = _index(root, "hash")
    assert "docs/runbook.md" in report.indexed
    skipped = dict(report.skipped)
    assert {k: skipped.get(k) for k in ("docs/loop1.md", "docs/loop2.md", "docs/self")} == {
        "docs/loop1.md": "symlink loop",
        "docs/loop2.md": "symlink loop",
        "docs/self": "symlink loop",
    }


def test_a_link_out_of_the_project_is_named_by_its_place_in_it(tmp_path: Path) -> None:
    """A link leading outside was the one skipped row named by its absolute path (this
    machine's ``/home/me/src/app/docs/leak.md``); every other row is relative to the
    root, and now so is this one."""
    root = _copy_demo(tmp_path)
    (tmp_path / "elsewhere.md").write_text("# Elsewhere\n\nNot the project's.\n")
    (root / "docs" / "leak.md").symlink_to(tmp_path / "elsewhere.md")
    report = _index(root, "hash")
    assert dict(report.skipped)["docs/leak.md"] == "outside the project"
    assert not [path for path, _ in report.skipped if str(tmp_path) in path]


def test_a_file_whose_name_is_not_utf8_is_skipped_not_fatal(tmp_path: Path) -> None:
    """One file named in Latin-1 (``caf\\xe9.md``) stopped `charter index` with a
    UnicodeEncodeError naming no file, and nothing was indexed; it is a skipped row (the
    byte shown escaped) and the rest is indexed."""
    root = _copy_demo(tmp_path)
    with open(os.path.join(os.fsencode(root / "docs"), b"caf\xe9.md"), "w") as handle:
        handle.write("# Notes\n\nAbout the deploy window.\n")
    os.mkdir(os.path.join(os.fsencode(root), b"d\xe9p"))
    report = _index(root, "hash")
    assert "docs/runbook.md" in report.indexed
    skipped = dict(report.skipped)
    assert skipped["docs/caf\\xe9.md"] == "its name is not UTF-8 (rename it)"
    assert skipped["d\\xe9p/"] == "its name is not UTF-8 (rename it)"
    json.dumps(report.as_dict()).encode("utf-8")


def test_two_index_runs_at_once_embed_each_chunk_once(tmp_path: Path) -> None:
    """A second ``charter index`` started while one runs waits for it and then finds
    nothing left to embed: the work is done once, not twice in parallel."""
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for i in range(120):
        body = "\n\n".join(
            f"## Part {j}\n\nService {i} handles request kind {j} with retry budget {i * j}."
            for j in range(4)
        )
        (root / "docs" / f"service-{i:03}.md").write_text(f"# Service {i}\n\n{body}\n")
    cmd = [sys.executable, "-m", "charter", "index", "--json"]
    runs = [
        subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    reports = []
    for proc in runs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        reports.append(json.loads(out))
    embedded = sorted(r["chunks_embedded"] for r in reports)
    assert embedded[0] == 0 and embedded[1] > 0
    again = json.loads(subprocess.run(cmd, cwd=root, capture_output=True, text=True).stdout)
    assert again["chunks_embedded"] == 0 and again["unchanged"] == 120


def test_charter_config_and_state_are_never_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """charter.toml and .charter/ are Charter's, not the project's: not indexed even with
    ``exclude`` emptied or .charter/ named as the path, and an index that holds them (an
    older Charter's) drops them on the next run."""
    from charter.search import discover

    root = _copy_demo(tmp_path)
    (root / "charter.toml").write_text("[search.index]\nexclude = []\n")
    capsule = root / ".charter" / "graph" / "contract-capsule.json"  # not git-ignored
    capsule.parent.mkdir(parents=True)
    capsule.write_text('{"nodes": [{"id": "n1", "kind": "file"}]}\n')
    project = Project.load(root)
    embedder = get_embedder("hash")
    with monkeypatch.context() as patch:  # what an older Charter did
        patch.setattr(discover, "charter_own", lambda rel: False)
        before = Indexer(project, embedder).run()
    assert "charter.toml" in before.indexed
    Indexer(project, embedder).run()
    assert Indexer(project, embedder).run([root / ".charter" / "graph"]).indexed == []
    with SearchStore.for_state_dir(root / ".charter") as store:
        paths = set(store.docs())
    assert "charter.toml" not in paths and "docs/runbook.md" in paths
    assert not [p for p in paths if p.startswith(".charter/")]


MDX_PAGE = """---
title: Webhooks
---
import { Callout } from "../components/callout";

# Webhooks

<Callout type="warning">
  Retries stop after 72 hours.
</Callout>

## Verifying signatures

Compute an HMAC of the raw body with the endpoint secret and compare it in constant time.
"""


def test_mdx_and_asciidoc_docs_are_indexed(tmp_path: Path) -> None:
    """A documentation site's .mdx pages were not indexed at all: they are Markdown (with
    JSX and import lines) and are chunked by heading; AsciiDoc is prose by paragraph."""
    root = _copy_demo(tmp_path)
    (root / "docs" / "webhooks.mdx").write_text(MDX_PAGE)
    (root / "docs" / "upgrade.adoc").write_text(
        "= Upgrade guide\n\nStop the scheduler before running the schema migration.\n"
    )
    report = _index(root)
    assert {"docs/webhooks.mdx", "docs/upgrade.adoc"} <= set(report.indexed)
    assert not [s for s in report.skipped if s[0].startswith(("*.mdx", "*.adoc"))]
    with open_engine(root) as engine:
        hit = engine.search("verify webhook signature HMAC", mode="planning", log=False)
        prose = engine.search("stop the scheduler before migrating", mode="planning", log=False)
    top = hit.results[0]
    assert top.citation == "docs/webhooks.mdx#L12-L14 (Webhooks > Verifying signatures)"
    assert top.kind == "markdown"
    assert prose.results[0].path == "docs/upgrade.adoc"


def test_unindexed_file_types_are_reported_one_row_per_extension(tmp_path: Path) -> None:
    """Files of a type no extension list names were dropped without a note (all of a
    repository's sources, for a language missing from the list). Each such type is one
    *skipped* row with its count and the setting that indexes it; images are not listed;
    Zig, among the languages added, is indexed as code."""
    root = _copy_demo(tmp_path)
    for i in range(3):
        (root / "sas").mkdir(exist_ok=True)
        (root / "sas" / f"step{i}.sas").write_text(f"data step{i}; set raw.claims; run;\n")
    (root / "docs" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "src").mkdir()
    (root / "src" / "ring.zig").write_text(
        "pub fn ringBufferPush(buf: *Ring, item: u8) void {\n    buf.push(item);\n}\n"
    )
    report = _index(root, "hash")
    assert "src/ring.zig" in report.indexed
    assert report.unindexed == {".sas": 3}
    skipped = dict(report.skipped)
    assert skipped["*.sas"].startswith("3 files of a type search does not index")
    assert 'add ".sas" to search.index.code_extensions' in skipped["*.sas"]
    assert not [path for path in skipped if path.endswith(".png")]
    (root / "charter.toml").write_text('[search.index]\ncode_extensions = [".sas"]\n')
    again = _index(root, "hash")
    assert {f"sas/step{i}.sas" for i in range(3)} <= set(again.indexed)
    assert ".sas" not in again.unindexed


def test_an_extension_written_without_its_dot_or_in_capitals_still_indexes_its_files(
    tmp_path: Path,
) -> None:
    """``code_extensions = ["adb", ".ADS"]`` matched no file, without a word, while the
    skipped table went on saying to add ".adb": an entry is now the lower-case suffix
    with one dot, and one no suffix can equal is refused, naming the key."""
    root = _copy_demo(tmp_path)
    (root / "ada").mkdir()
    (root / "ada" / "alu.adb").write_text("package body Alu is\nend Alu;\n")
    (root / "ada" / "alu.ads").write_text("package Alu is\nend Alu;\n")
    (root / "charter.toml").write_text('[search.index]\ncode_extensions = ["adb", ".ADS"]\n')
    report = _index(root, "hash")
    assert {"ada/alu.adb", "ada/alu.ads"} <= set(report.indexed)
    assert report.unindexed == {}
    (root / "charter.toml").write_text('[search.index]\ncode_extensions = [".tar.gz"]\n')
    out = subprocess.run(
        [str(CHARTER), "index", "-C", str(root)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "search.index.code_extensions: '.tar.gz' is not a file extension" in out.stderr


def test_object_pascal_sources_are_indexed_as_code(tmp_path: Path) -> None:
    # a Delphi VCL app's every unit and program (`.pas`, `.dpr`) was a "type search does
    # not index" row: its source could not be searched until the user listed them
    root = _copy_demo(tmp_path)
    (root / "app").mkdir()
    (root / "app" / "MainForm.pas").write_text(
        "unit MainForm;\r\n\r\ninterface\r\n\r\nprocedure PaintBoxPaint(Sender: TObject);"
        "\r\n\r\nimplementation\r\nend.\r\n"
    )
    (root / "app" / "Galaxy.dpr").write_text("program Galaxy;\r\nuses MainForm;\r\nend.\r\n")
    report = _index(root, "hash")
    assert {"app/MainForm.pas", "app/Galaxy.dpr"} <= set(report.indexed)
    assert not {".pas", ".dpr"} & set(report.unindexed)


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_a_malformed_file_deleted_in_git_history_warns_about_nothing(tmp_path: Path) -> None:
    """A malformed JSON file deleted in an old commit was named in a warning on every
    `charter index`, no-op runs included: each run read it from history, failed to parse
    it and stored nothing. It is indexed once, as text (review mode finds what it said),
    and the work tree it is not in draws no warning."""
    root = _copy_demo(tmp_path)
    (root / "docs" / "tmp.2208.json").write_text('{"note": "quarterly rollover",\n "b": \n')
    git = _committed(root)
    git("rm", "-q", "docs/tmp.2208.json")
    git("commit", "-q", "-m", "remove scratch file")
    first = subprocess.run([str(CHARTER), "index"], cwd=root, capture_output=True, text=True)
    assert first.returncode == 0 and "tmp.2208.json" not in first.stderr, first.stderr
    assert "1 from git history" in " ".join(first.stdout.split())
    again = subprocess.run(
        [str(CHARTER), "index", "--json"], cwd=root, capture_output=True, text=True
    )
    second = json.loads(again.stdout)
    assert second["history"] == [] and second["indexed"] == [] and second["errors"] == []
    with open_engine(root) as engine:
        review = engine.search("quarterly rollover", mode="review", log=False).results
    found = [r for r in review if r.path == "docs/tmp.2208.json"]
    assert found and found[0].status == "deleted" and found[0].kind == "text"


def test_a_deleted_file_over_the_size_cap_is_not_read_from_history(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    (root / "charter.toml").write_text("[search.index]\nmax_file_bytes = 4096\n")
    (root / "docs" / "dump.md").write_text("# Dump\n\n" + "zebra rollover ledger\n" * 400)
    (root / "docs" / "small.md").write_text("# Small\n\nThe penguin migration plan.\n")
    git = _committed(root)
    git("rm", "-q", "docs/dump.md", "docs/small.md")
    git("commit", "-q", "-m", "remove both")
    done = subprocess.run(
        [str(CHARTER), "index", "--json"], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["history"] == ["docs/small.md"]


def test_source_files_named_for_secrets_are_read_and_data_files_are_not(tmp_path: Path) -> None:
    # `*secret*` and `*credential*` guess at files that hold credentials; code that handles
    # them (a CLI's `SecretListCommand.cs`, a Go `migration_credentials.go`) and pages that
    # document them (`managing-secrets.md`) are read by search and the graph, with their
    # content scanned like every file's
    from charter.graph.files import list_files

    root = _copy_demo(tmp_path)
    code = {
        "src/Cli/Commands/SecretListCommand.cs": "class SecretListCommand { void Run() {} }\n",
        "pkg/routes/migration_credentials.go": (
            'package routes\n\nconst password = "Tr0ub4dor&3horse-long"\n'
        ),
        # a page of documentation about them (a docs site's standard) is read too
        "docs/standards/managing-secrets.md": "# Managing secrets\n\nRotate them yearly.\n",
        "docs/credential-rotation.rst": "Rotating credentials\n====================\n",
    }
    data = {
        "config/secrets.yaml": "db: {password: hunter2}\n",
        "deploy/credentials.json": '{"token": "abc"}\n',
        "docs/server.pem": "-----BEGIN PRIVATE KEY-----\n",
        "notes/secrets.md": "db: hunter2\n",  # named for the word alone: may list them
        "notes/.secrets.md": "db: hunter2\n",
        "notes/prod-credentials.md": "db: hunter2\n",  # whose credentials: may hold them
    }
    for rel, text in {**code, **data}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    report = _index(root, "hash")
    skipped = dict(report.skipped)
    for rel in code:
        assert rel in report.indexed and rel not in skipped
    for rel in data:
        assert skipped.get(rel, "").startswith("secret"), rel
    with SearchStore.for_state_dir(root / ".charter") as store:
        all_text = " ".join(r[0] for r in store.conn.execute("SELECT text FROM chunks"))
    assert "SecretListCommand" in all_text and "Tr0ub4dor" not in all_text
    listing = list_files(Project.load(root))
    for rel in code:
        assert rel in listing.files
    for rel in data:
        assert rel not in listing.files


def test_dotnet_component_templates_are_indexed_as_code(tmp_path: Path) -> None:
    root = _copy_demo(tmp_path)
    (root / "Components").mkdir()
    (root / "Components" / "ResourceName.razor").write_text(
        '<span class="resource-name">@FormatResourceName(Resource.DisplayName)</span>\n'
    )
    (root / "Pages").mkdir()
    (root / "Pages" / "Index.cshtml").write_text("@page\n<h1>Welcome to the shop</h1>\n")
    report = _index(root, "hash")
    assert {"Components/ResourceName.razor", "Pages/Index.cshtml"} <= set(report.indexed)
    assert not any(path in ("*.razor", "*.cshtml") for path, _ in report.skipped)


def test_review_mode_keeps_old_adrs_in_any_adr_folder(tmp_path: Path) -> None:
    """Review mode's 30-day window leaves out old documents but never an ADR: one kept in
    ``docs/adrs/`` (not only ``decisions/``) still answers, and is indexed as an ADR, even
    with the ``time_window_exempt`` globs that ``charter init`` wrote."""
    root = tmp_path / "proj"
    adrs = root / "docs" / "adrs"
    adrs.mkdir(parents=True)
    (adrs / "0004-message-broker.md").write_text(
        "# 0004 - Message broker\n\n* Status: Accepted\n\n## Decision Outcome\n\n"
        "Chosen option: RabbitMQ, because operations already run it; Kafka needs a cluster.\n"
    )
    (root / "docs" / "guide.md").write_text(
        "# Guide\n\nThe message broker carries order events between services.\n"
    )
    stamp = "2020-01-02T03:04:05+00:00"
    _committed(root, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    for command in (["init"], ["index"]):
        subprocess.run([str(CHARTER), *command], cwd=root, check=True, capture_output=True)
    found = _search_json(root, "which message broker was chosen", "review")
    paths = [r["path"] for r in found["results"]]
    assert paths and set(paths) == {"docs/adrs/0004-message-broker.md"}
    with SearchStore.for_state_dir(Project.load(root).state_dir, readonly=True) as store:
        assert store.docs()["docs/adrs/0004-message-broker.md"].kind == "adr"


def test_planning_mode_finds_adrs_in_a_nested_decisions_folder(tmp_path: Path) -> None:
    """Planning mode includes ADRs (seed 004) wherever the repository keeps them: a
    ``design/decisions/`` ADR is outside the ``decisions/**`` glob, so the ADR that
    answers a design question used to be out of planning's scope. (A ``doc/`` folder is
    in both modes' globs at any depth: a ``doc/architecture/decisions/`` ADR is in
    execution's scope as a ``docs/adr/`` one always was.)"""
    root = tmp_path / "proj"
    adr = root / "design" / "decisions" / "0003-money-in-cents.md"
    adr.parent.mkdir(parents=True)
    adr.write_text(
        "# ADR-0003: Money is stored in integer cents\n\n## Decision\n\n"
        "Amounts are stored as integer cents with their currency, never as floats.\n"
    )
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n\nHow to run the server locally.\n")
    _committed(root)
    for command in (["init"], ["index"]):
        subprocess.run([str(CHARTER), *command], cwd=root, check=True, capture_output=True)

    def search(mode: str) -> dict[str, Any]:
        return _search_json(root, "how are money amounts stored", mode)

    planning = search("planning")
    assert planning["scope"]["adrs"] is True
    assert [r["path"] for r in planning["results"]][:1] == [adr.relative_to(root).as_posix()]
    # execution keeps to canonical facts (seed 004): its scope is what its globs say
    execution = search("execution")
    assert adr.relative_to(root).as_posix() not in {r["path"] for r in execution["results"]}


def test_hardware_description_sources_are_indexed_as_code(tmp_path: Path) -> None:
    # an FPGA repository's RTL (`.v`, `.sv`, `.svh`, and VHDL's `.vhd`) was a "type
    # search does not index" row: the design itself could not be searched
    root = _copy_demo(tmp_path)
    (root / "rtl").mkdir()
    (root / "rtl" / "fifo.sv").write_text(
        "module fifo #(parameter int DEPTH = 16) (\n    input  logic clk_i,\n"
        "    output logic full_o\n);\nendmodule\n"
    )
    (root / "rtl" / "defs.svh").write_text("`ifndef DEFS_SVH\n`define DEFS_SVH\n`endif\n")
    (root / "rtl" / "uart.v").write_text("module uart(input clk);\nendmodule\n")
    (root / "rtl" / "top.vhd").write_text("entity top is\nend entity top;\n")
    report = _index(root, "hash")
    assert {"rtl/fifo.sv", "rtl/defs.svh", "rtl/uart.v", "rtl/top.vhd"} <= set(report.indexed)
    assert not {".sv", ".svh", ".v", ".vhd"} & set(report.unindexed)
