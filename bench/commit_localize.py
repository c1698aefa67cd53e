"""Commit localization on a real repository: does ``charter task-context`` find what a
commit changed, given only its message, at the commit's parent?

For the N most recent non-merge commits that change at least one non-test file of the
chosen language, the clone is checked out at the commit's parent, the task is the
commit's subject (plus its body when short), and a hit is any file the commit changed
among the files of the top ``--limit`` nodes; the rank of the first such file gives MRR.

    .venv/bin/python bench/commit_localize.py /tmp/clone --commits 25 [--suffix .go | .c,.h]

The clone is yours: it is checked out commit by commit (detached) and gets a
``.charter/`` folder, whose graph state is removed first (a cache another version of
Charter wrote would otherwise be reused); the branch it was on is checked out again at
the end.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from charter.graph.extract import is_test_path

_TRAILERS = ("signed-off-by:", "co-authored-by:", "reviewed-by:", "change-id:")
#: A coding agent's signature line in a commit body ("🤖 Generated with [Claude Code](…)"):
#: no words of the task, and "claude", "code" ranked whatever files hold them
_SIGNATURE = re.compile(r"^\W*generated (?:with|by) \[", re.IGNORECASE)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def commits(repo: Path, suffixes: tuple[str, ...], count: int, ref: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    specs = [f"*{suffix}" for suffix in suffixes]
    for sha in _git(repo, "rev-list", "--no-merges", ref, "--", *specs).split():
        files = [
            f
            for f in _git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", sha).split("\n")
            if f
        ]
        if not any(f.endswith(suffixes) and not is_test_path(f) for f in files):
            continue
        subject, _, body = _git(repo, "log", "-1", "--format=%s%n%b", sha).partition("\n")
        lines = [
            ln
            for ln in body.strip().splitlines()
            if not ln.lower().startswith(_TRAILERS) and not _SIGNATURE.match(ln)
        ]
        body = "\n".join(lines).strip()
        task = f"{subject}\n{body}" if body and len(body) <= 400 else subject
        out.append({"sha": sha, "task": task.strip(), "files": files})
        if len(out) == count:
            break
    return out


def _first(paths: list[str], changed: set[str]) -> int | None:
    """The rank of the first of ``paths`` the commit changed (None: none in the list)."""
    return next((i + 1 for i, p in enumerate(paths) if p in changed), None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path, help="a git clone you own (it is checked out)")
    ap.add_argument("--commits", type=int, default=25)
    ap.add_argument(
        "--suffix",
        default=".go",
        help="language of the commits chosen; several comma-separated (.c,.h)",
    )
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--charter", default=str(Path(sys.executable).parent / "charter"))
    ap.add_argument("--json", action="store_true", help="per-commit rows as JSON")
    ap.add_argument(
        "--suffix-hits",
        action="store_true",
        help="count only the non-test --suffix files a commit changed as hits (not the "
        "changelog, README or tests it also touched)",
    )
    args = ap.parse_args()
    suffixes = tuple(s.strip() for s in args.suffix.split(",") if s.strip())
    repo = args.repo.resolve()
    start_ref = _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    if start_ref == "HEAD":
        start_ref = _git(repo, "rev-parse", "HEAD").strip()
    head = _git(repo, "rev-parse", args.ref).strip()
    # A graph cache left by another Charter (a run before a change) holds records that
    # version's extractors wrote, reused for every unchanged file if the cache version
    # was not bumped: each run starts from no graph state.
    shutil.rmtree(repo / ".charter" / "graph", ignore_errors=True)
    rows = []
    seconds = 0.0
    try:
        for item in commits(repo, suffixes, args.commits, head):
            _git(repo, "checkout", "-q", "--detach", f"{item['sha']}^")
            started = time.perf_counter()
            # ``--`` before the task: a message may start with "-" (a bullet list)
            command = [args.charter, "task-context", "--json", "--limit", str(args.limit)]
            proc = subprocess.run(
                [*command, "-C", str(repo), "--", str(item["task"])],
                check=True,
                capture_output=True,
                text=True,
            )
            seconds += time.perf_counter() - started
            result = json.loads(proc.stdout)
            paths: list[str] = []
            for node in result.get("nodes", []):
                path = node.get("path")
                if node.get("type") in ("source", "symbol") and path and path not in paths:
                    paths.append(path)
            every = {str(f) for f in item["files"]}  # type: ignore[attr-defined]
            code = {f for f in every if f.endswith(suffixes) and not is_test_path(f)}
            rank = _first(paths, code if args.suffix_hits else every)
            rows.append(
                {
                    "sha": str(item["sha"])[:10],
                    "rank": rank,
                    "rank_code": _first(paths, code),
                    "task": item["task"],
                }
            )
    finally:
        _git(repo, "checkout", "-q", start_ref)
    n = len(rows)
    hits = sum(1 for r in rows if r["rank"] is not None)
    mrr = sum(1 / r["rank"] for r in rows if r["rank"]) / n if n else 0.0
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            first = str(r["task"]).splitlines()[0][:70]
            print(f"{r['sha']}  rank={r['rank'] or '-':>2}  {first}")
    summary = {"repo": repo.name, "n": n, f"hits@{args.limit}": hits, "mrr": round(mrr, 3)}
    code_hits = sum(1 for r in rows if r["rank_code"] is not None)
    code_mrr = sum(1 / r["rank_code"] for r in rows if r["rank_code"]) / n if n else 0.0
    summary["code"] = {f"hits@{args.limit}": code_hits, "mrr": round(code_mrr, 3)}
    summary["seconds_per_task"] = round(seconds / n, 2) if n else 0.0
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
