"""bench/unmarked_lists_check.py over a real bare mirror: it reports the paragraphs the
one-statement-per-line reading splits, and leaves hard-wrapped prose out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import commit_all, write

REPO = Path(__file__).resolve().parents[1]


def test_reports_unmarked_lists_and_not_wrapped_prose(repo: Path, tmp_path: Path) -> None:
    write(
        repo,
        "docs/setup.md",
        "# Setup\n\nInstall Node 20 first\nRun pnpm install in the root\nStart the dev server\n\n"
        "The server is a single Elm application served by Vite through vite-plugin-elm\n"
        "Rails serves its API over JSON and everything below applies to the front end only\n"
        "Deploys copy the build into the public folder of the API server on each release\n"
        "Nothing else ships\n",
    )
    commit_all(repo)
    mirrors = tmp_path / "mirrors"
    (mirrors / "owner+name").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(repo), str(mirrors / "owner+name" / "repo")],
        check=True,
    )
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "unmarked_lists_check.py"), str(mirrors)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "## owner+name docs/setup.md" in done.stdout
    assert "Install Node 20 first" in done.stdout
    assert "vite-plugin-elm" not in done.stdout
    assert "1 files, 2 paragraphs of 3+ lines, 1 split one per line" in done.stderr
