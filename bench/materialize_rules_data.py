"""Rebuild the held-out rules benchmark's rule files from the repositories they came from.

    .venv/bin/python bench/materialize_rules_data.py --mirrors MIRRORS --out DIR
    .venv/bin/charter eval rules --data DIR --json

``bench/data/rules`` holds only what Charter's engineers wrote: the tasks, the gold
labels, ``always.json`` and each file's provenance (``source.json``: repository, path,
commit, sha256). The rule files themselves belong to their repositories and are not
committed here; this script reads each one from a bare mirror of its repository
(``MIRRORS/<owner>+<name>/repo``, as the ``fetch`` tool lays them out), checks its
sha256, copies the labels beside it, and checks that every gold label quotes its line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "rules"


def git_show(mirrors: Path, repo: str, commit: str, path: str) -> tuple[bytes | None, str]:
    """A file's bytes at ``commit`` from the bare mirror of ``repo`` (``owner/name``), or
    None and git's error: benchmark files are read, never committed."""
    owner, name = repo.split("/")
    git_dir = mirrors / f"{owner}+{name}" / "repo"
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        return None, proc.stderr.decode(errors="replace").strip()
    return proc.stdout, ""


def materialize(mirrors: Path, out: Path) -> list[str]:
    problems: list[str] = []
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "tasks.jsonl", out / "tasks.jsonl")
    for source in sorted(DATA.glob("*/source.json")):
        meta = json.loads(source.read_text(encoding="utf-8"))
        raw, error = git_show(mirrors, meta["repo"], meta["commit"], meta["path"])
        if raw is None:
            problems.append(f"{meta['repo']}: {error}")
            continue
        if hashlib.sha256(raw).hexdigest() != meta["sha256"]:
            problems.append(f"{meta['repo']}:{meta['path']}: sha256 differs from source.json")
            continue
        target = out / meta["saved_as"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)
        for extra in ("source.json", "always.json"):
            shutil.copy(source.parent / extra, target.parent / extra)
    problems += check_labels(out)
    return problems


def check_labels(root: Path) -> list[str]:
    """Every gold line (and its alternatives) must quote its file's line exactly."""
    problems = []
    for raw in (root / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
        task = json.loads(raw)
        path = root / task["file"]
        if not path.exists():
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        for gold in task["relevant"]:
            for item in [gold, *gold.get("alt", [])]:
                line = item["line"]
                if not (1 <= line <= len(lines) and lines[line - 1] == item["text"]):
                    problems.append(f"{task['id']}: {task['file']}:{line} does not quote its line")
    return problems


def arguments(description: str = "") -> argparse.ArgumentParser:
    """The command line every materialize script shares: where the mirrors are, where to
    write."""
    parser = argparse.ArgumentParser(description=description or None)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    return parser


def finish(out: Path, problems: list[str], verified: str) -> None:
    """Report what a materialize run found and exit: 1 with a line per problem, else 0."""
    for problem in problems:
        print(f"materialize: {problem}", file=sys.stderr)
    print(f"wrote {out} ({'with problems' if problems else verified})")
    raise SystemExit(1 if problems else 0)


def main() -> None:
    args = arguments().parse_args()
    finish(args.out, materialize(args.mirrors, args.out), "all files verified")


if __name__ == "__main__":
    main()
