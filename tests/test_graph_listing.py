"""The graph's file listing with its folder cache: the same files, skips and stats as a
full walk after every kind of change, without listing the folders that did not change."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from charter.config import Project
from charter.graph import files
from charter.graph.files import Listing, list_files, save_listing
from tests.conftest import write


def _age(root: Path) -> None:
    """What changed in the last minute as if changed a minute ago (out of the racy window);
    the rest keeps its mtime."""
    now = time.time()
    for path in [root, *root.rglob("*")]:
        if path.lstat().st_mtime > now - 50:
            os.utime(path, (now - 60, now - 60), follow_symlinks=False)


def _same(a: Listing, b: Listing) -> None:
    assert (a.files, a.skipped, a.stats) == (b.files, b.skipped, b.stats)


def _tree(root: Path) -> None:
    write(root, ".gitignore", "stash/\n*.log\n")
    write(root, ".gitattributes", "gen/** linguist-generated\n")
    write(root, "app/main.py", "def main():\n    pass\n")
    write(root, "app/util.py", "X = 1\n")
    write(root, "app/.gitignore", "scratch.py\n")
    write(root, "app/scratch.py", "tmp = 1\n")
    write(root, "app/deep/mod.py", "Y = 2\n")
    write(root, "gen/out.py", "Z = 3\n")
    write(root, "stash/skip.py", "W = 4\n")
    write(root, "notes.log", "log\n")
    write(root, ".env", "TOKEN=abc\n")
    write(root, "README.md", "# hi\n")
    (root / ".charter").mkdir()


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders listed (``os.scandir``) by the graph's walk."""
    seen: list[str] = []
    real = os.scandir

    def counting(path: str) -> object:
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(files.os, "scandir", counting)
    return seen


def _listed(project: Project, cache: Path) -> Listing:
    listing = list_files(project, cache)
    save_listing(cache, listing)
    return listing


def test_unchanged_folders_are_not_listed_again_and_the_result_is_a_full_walks(
    tmp_path: Path, scans: list[str]
) -> None:
    _tree(tmp_path)
    _age(tmp_path)
    project = Project.load(tmp_path)
    cache = tmp_path / ".charter" / "listing.json"
    first = _listed(project, cache)
    assert cache.is_file() and scans
    assert "app/scratch.py" not in first.files and "stash/skip.py" not in first.files
    assert ("gen/out.py", "generated (.gitattributes)") in first.skipped
    scans.clear()
    second = _listed(project, cache)
    assert scans == []  # nothing changed: no folder listed, only stat-ed
    _same(second, list_files(project))
    scans.clear()
    (tmp_path / "app" / "util.py").write_text("X = 2  # longer\n")  # a content edit
    third = _listed(project, cache)
    assert scans == []
    assert third.stats["app/util.py"][0] == len("X = 2  # longer\n")
    _same(third, list_files(project))


def test_every_kind_of_change_gives_what_a_full_walk_gives(tmp_path: Path) -> None:
    _tree(tmp_path)
    _age(tmp_path)
    project = Project.load(tmp_path)
    cache = tmp_path / ".charter" / "listing.json"
    _listed(project, cache)

    def check() -> None:
        _age(tmp_path)
        _same(_listed(project, cache), list_files(project))

    write(tmp_path, "app/deep/new.py", "N = 1\n")  # a new file in a nested folder
    check()
    assert "app/deep/new.py" in list_files(project, cache).files
    # a nested .gitignore edited in place: its folder's mtime does not move
    (tmp_path / "app" / ".gitignore").write_text("scratch.py\nutil.py\n")
    check()
    assert "app/util.py" not in list_files(project, cache).files
    (tmp_path / ".gitignore").write_text("*.log\n")  # the root's: stash/ comes back
    check()
    assert "stash/skip.py" in list_files(project, cache).files
    write(tmp_path, "app/deep/.gitignore", "mod.py\n")  # a new rule file below
    check()
    assert "app/deep/mod.py" not in list_files(project, cache).files
    (tmp_path / ".gitattributes").write_text("app/** linguist-generated\n")
    check()
    assert "gen/out.py" in list_files(project, cache).files
    for path in sorted((tmp_path / "app" / "deep").iterdir()):  # a folder removed
        path.unlink()
    (tmp_path / "app" / "deep").rmdir()
    check()
    (tmp_path / "gen").rename(tmp_path / "moved")  # and one renamed
    check()
    assert "moved/out.py" in list_files(project, cache).files


def test_a_folder_changed_within_the_racy_window_is_listed_again(
    tmp_path: Path, scans: list[str]
) -> None:
    # a folder whose mtime is as new as the scan may change again inside its timestamp's
    # granularity without its mtime moving: it is never trusted from the cache
    _tree(tmp_path)
    _age(tmp_path)
    write(tmp_path, "app/fresh.py", "F = 1\n")  # app/ modified just now
    project = Project.load(tmp_path)
    cache = tmp_path / ".charter" / "listing.json"
    _listed(project, cache)
    folders = json.loads(cache.read_text())["folders"]
    assert folders["app/"]["m"] is None and folders["app/deep/"]["m"] is not None
    scans.clear()
    _listed(project, cache)
    assert scans == [str(tmp_path / "app")]


def test_other_settings_ignore_the_cache(tmp_path: Path, scans: list[str]) -> None:
    _tree(tmp_path)
    _age(tmp_path)
    cache = tmp_path / ".charter" / "listing.json"
    _listed(Project.load(tmp_path), cache)
    write(tmp_path, "charter.toml", '[graph]\nexclude = ["app/deep/**"]\n')
    _age(tmp_path)
    project = Project.load(tmp_path)
    scans.clear()
    listing = _listed(project, cache)
    assert scans  # walked again under the new settings
    assert "app/deep/mod.py" not in listing.files
    _same(listing, list_files(project))


def test_files_git_tracks_are_read_though_an_ignore_rule_matches_them(
    repo: Path, run_charter
) -> None:
    """A Django app's .gitignore hides every dot-file but a few (``.*``, ``.claude`` then
    ``!.github``) and still commits ``.pre-commit-config.yaml`` and its agent skills under
    ``.claude/skills/``; a Rust workspace ignores ``**/*.txt`` and re-includes a binding's
    ``CMakeLists.txt`` in a nested .gitignore. Git never ignores a tracked file, and
    neither do search and the graph; the folder's untracked files stay ignored."""
    write(repo, ".gitignore", ".*\n!.gitignore\n.claude\n**/*.txt\n")
    write(repo, "android/.gitignore", "!CMakeLists.txt\n")
    write(repo, "android/CMakeLists.txt", "cmake_minimum_required(VERSION 3.9)\n")
    write(repo, "android/notes.txt", "scratch\n")
    write(repo, ".pre-commit-config.yaml", "repos:\n  - repo: local\n")
    write(repo, ".claude/skills/migrate/SKILL.md", "# Migrations\n\nSquash before merge.\n")
    write(repo, ".claude/settings.local.json", '{"permissions": {}}\n')
    write(repo, ".cache/data.md", "# cached\n")
    write(repo, "app/main.py", "def main():\n    pass\n")
    import subprocess

    subprocess.run(["git", "-C", str(repo), "add", "-f", "--", ".pre-commit-config.yaml",
                    ".claude/skills/migrate/SKILL.md", "app/main.py", "android/CMakeLists.txt"],
                   check=True)  # fmt: skip
    listing = list_files(Project.load(repo))
    assert "android/CMakeLists.txt" in listing.files
    assert "android/notes.txt" not in listing.files
    assert ".pre-commit-config.yaml" in listing.files
    assert ".claude/skills/migrate/SKILL.md" in listing.files
    assert ".claude/settings.local.json" not in listing.files
    assert ".cache/data.md" not in listing.files
    cached = repo / ".charter" / "graph" / "listing.json"
    cached.parent.mkdir(parents=True)
    save_listing(cached, list_files(Project.load(repo), cached))
    _same(list_files(Project.load(repo), cached), listing)
    # `git add -f` of an ignored file moves no mtime: the cached listing still sees it
    _age(repo)
    save_listing(cached, list_files(Project.load(repo), cached))
    subprocess.run(["git", "-C", str(repo), "add", "-f", ".cache/data.md"], check=True)
    again = list_files(Project.load(repo), cached)
    assert ".cache/data.md" in again.files
    _same(again, list_files(Project.load(repo)))
    index = run_charter("index", "--json", cwd=repo)
    assert index.returncode == 0, index.stderr
    skipped = {row["path"]: row["reason"] for row in json.loads(index.stdout)["skipped"]}
    assert ".claude/skills/migrate/SKILL.md" not in skipped
    assert skipped.get(".claude/settings.local.json") == "gitignored"
    found = run_charter("search", "squash before merge", "--mode", "review", "--json", cwd=repo)
    assert ".claude/skills/migrate/SKILL.md" in found.stdout


def test_a_name_that_is_not_utf8_is_a_skipped_row_not_a_crash(tmp_path: Path) -> None:
    """A file or folder named in Latin-1 (``caf\\xe9.md``) stopped `charter graph build`
    with a UnicodeEncodeError naming no file: it is a skipped row, shown with the byte
    escaped, and a cached listing gives the same."""
    root = tmp_path / "p"
    write(root, "app/main.py", "def main():\n    pass\n")
    base = os.fsencode(root)
    open(os.path.join(base, b"app", b"caf\xe9.py"), "w").close()
    os.mkdir(os.path.join(base, b"d\xe9p"))
    open(os.path.join(base, b"d\xe9p", b"x.py"), "w").close()
    _age(root)
    project = Project.load(root)
    cache = tmp_path / "listing.json"
    first = list_files(project, cache)
    assert first.files == ["app/main.py"]
    assert sorted(first.skipped) == [
        ("app/caf\\xe9.py", "its name is not UTF-8 (rename it)"),
        ("d\\xe9p/", "its name is not UTF-8 (rename it)"),
    ]
    save_listing(cache, first)
    json.loads(cache.read_text(encoding="utf-8"))
    _same(list_files(project, cache), first)
