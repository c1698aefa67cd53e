"""False alarms of the drift checker on a real repository's own history.

A repository that records its decisions as ADRs and then keeps working mostly follows
them: its later commit messages are real text written under those decisions. This script
imports the accepted ADRs the way a user would (``charter decisions import --adr``, in a
throwaway project holding only the ADR folder), checks the newest commit messages with
``charter drift check --batch``, and reports how many are flagged. Every flag is a
*candidate* false alarm (a commit may really reverse a decision, which is rare); the
rate is an upper bound on what the Stop hook would interrupt an agent for on text like
this, with the decisions users actually import. No labels are needed, so any repository
with ADRs is held-out data until its flags have been read.

    python bench/drift_real_text.py --mirror /work/.mirror/OWNER+NAME/repo [--mirror ...]
        [--adr-dir docs/adr] [--commits 300] [--show 5] [--tree] [--json]

``--mirror`` is a (bare) git directory, e.g. one the ``fetch`` tool brought; the ADR folder
is found by name (``adr``, ``adrs``, ``decisions``, ``decision-records``,
``architecture-decisions``) unless ``--adr-dir`` names it. Merge commits and bots' commits
are skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ADR_DIR = re.compile(
    r"(?:^|/)(?:adr|adrs|decisions|decision-records|architecture-decisions)/", re.I
)
CHARTER = [sys.executable, "-m", "charter"]


def git(mirror: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args],
        check=True,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
    ).stdout


def adr_files(mirror: Path, adr_dir: str | None) -> list[str]:
    names = git(mirror, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    if adr_dir:
        prefix = adr_dir.rstrip("/") + "/"
        return [n for n in names if n.startswith(prefix) and n.lower().endswith(".md")]
    hits = [n for n in names if ADR_DIR.search(n) and n.lower().endswith(".md")]
    # the folder holding most ADRs (a repository may also have a stray "decisions/" page)
    folders = Counter(n.rsplit("/", 1)[0] for n in hits)
    if not folders:
        return []
    best = folders.most_common(1)[0][0]
    return [n for n in hits if n.rsplit("/", 1)[0] == best]


def commit_messages(mirror: Path, n: int) -> list[tuple[str, str]]:
    """The newest ``n`` commit messages people wrote: a bot's (``dependabot[bot]``,
    ``renovate[bot]``) version bumps are no text an agent writes."""
    out = git(mirror, "log", "--no-merges", "--format=%H%x00%an%x00%B%x1e", "HEAD")
    msgs = []
    for record in out.split("\x1e"):
        record = record.strip("\n")
        if record.count("\x00") < 2:
            continue
        sha, author, body = record.split("\x00", 2)
        body = body.strip()
        if "[bot]" in author or len(body.split()) < 3:
            continue
        msgs.append((sha[:12], body))
        if len(msgs) == n:
            break
    return msgs


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, encoding="utf-8")


def measure(
    mirror: Path, adr_dir: str | None, commits: int, show: int, block: float, tree: bool = False
) -> dict[str, object]:
    files = adr_files(mirror, adr_dir)
    name = mirror.parent.name if mirror.name in {"repo", ".git"} else mirror.name
    result: dict[str, object] = {"repository": name, "adr_files": len(files)}
    if not files:
        result["error"] = "no ADR folder found"
        return result
    with tempfile.TemporaryDirectory() as tmp:
        # the project folder is named as a clone of the repository would be: Charter
        # reads the project's own name from it
        root = Path(tmp) / (name.split("+", 1)[-1] or "project")
        if tree:
            # a clone whose index holds the whole tree (nothing checked out but the ADRs):
            # Charter reads what the project's tracked files name, as in a user's clone
            subprocess.run(
                ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(root)],
                check=True,
            )
            subprocess.run(["git", "-C", str(root), "read-tree", "HEAD"], check=True)
        else:
            root.mkdir()
        for f in files:
            target = root / f
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(
                subprocess.run(
                    ["git", "--git-dir", str(mirror), "show", f"HEAD:{f}"],
                    check=True,
                    capture_output=True,
                ).stdout
            )
        run([*CHARTER, "init", "-C", str(root)], root)
        folder = files[0].rsplit("/", 1)[0]
        imp = run([*CHARTER, "decisions", "import", "--adr", folder, "--json"], root)
        try:
            stored = json.loads(imp.stdout)
        except json.JSONDecodeError:
            result["error"] = f"import failed: {imp.stderr.strip()[:200]}"
            return result
        outcomes = Counter(a.get("outcome", "?") for a in stored.get("adrs", []))
        result["import"] = dict(sorted(outcomes.items()))
        if not (outcomes.get("accepted") or outcomes.get("bound")):
            result["error"] = f"no ADR could be bound ({dict(outcomes)})"
            return result
        msgs = commit_messages(mirror, commits)
        batch = root / "batch.jsonl"
        batch.write_text(
            "".join(
                json.dumps({"id": sha, "text": body, "artifact_kind": "review"}) + "\n"
                for sha, body in msgs
            ),
            encoding="utf-8",
        )
        chk = run([*CHARTER, "drift", "check", "--batch", str(batch), "--json"], root)
        rows = [json.loads(line) for line in chk.stdout.splitlines() if line.strip()]
        if not rows and chk.returncode not in (0, 1):
            result["error"] = f"check failed: {chk.stderr.strip()[:200]}"
            return result
    flagged = [r for r in rows if r.get("verdict") == "fail"]
    blocking = [
        r
        for r in flagged
        if any(float(f.get("confidence", 0)) >= block for f in r.get("findings", []))
    ]
    by_constraint: Counter[str] = Counter()
    for r in flagged:
        for f in r.get("findings", r.get("violations", [])):
            by_constraint[f.get("constraint_id", "?")] += 1
    result.update(
        {
            "commits": len(rows),
            "flagged": len(flagged),
            "flag_rate": round(len(flagged) / max(1, len(rows)), 4),
            "blocking": len(blocking),
            "by_constraint": dict(by_constraint.most_common(8)),
            "examples": [
                {
                    "id": r.get("id"),
                    "findings": [
                        (f.get("constraint_id"), f.get("rule"), f.get("evidence"))
                        for f in r.get("findings", r.get("violations", []))
                    ][:2],
                }
                for r in flagged[:show]
            ],
        }
    )
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, action="append", required=True)
    ap.add_argument("--adr-dir", default=None)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument(
        "--block-confidence",
        type=float,
        default=0.8,
        help="a finding this confident would stop the agent (drift.block_confidence)",
    )
    ap.add_argument(
        "--tree",
        action="store_true",
        help="make the project a clone whose index holds the repository's whole tree (what "
        "a user's clone gives Charter to read); without it the project holds only the ADRs",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = [
        measure(m, args.adr_dir, args.commits, args.show, args.block_confidence, args.tree)
        for m in args.mirror
    ]
    total = sum(int(r.get("commits", 0)) for r in results)  # type: ignore[call-overload]
    flagged = sum(int(r.get("flagged", 0)) for r in results)  # type: ignore[call-overload]
    blocking = sum(int(r.get("blocking", 0)) for r in results)  # type: ignore[call-overload]
    summary = {
        "repositories": results,
        "commits": total,
        "flagged": flagged,
        "flag_rate": round(flagged / max(1, total), 4),
        "blocking": blocking,
        "block_rate": round(blocking / max(1, total), 4),
    }
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    for r in results:
        if "error" in r:
            print(f"{r['repository']}: {r['error']}")
            continue
        print(
            f"{r['repository']}: {r['adr_files']} ADR files, import {r.get('import')}, "
            f"{r['flagged']}/{r['commits']} commits flagged ({r['flag_rate']:.1%}), "
            f"{r['blocking']} at blocking confidence; "
            f"by constraint {r['by_constraint']}"
        )
        for ex in r["examples"]:  # type: ignore[attr-defined]
            print(f"    {ex['id']}: {ex['findings']}")
    print(
        f"all: {flagged}/{total} commits flagged ({summary['flag_rate']:.1%}), "
        f"{blocking} at blocking confidence ({summary['block_rate']:.1%})"
    )


if __name__ == "__main__":
    main()
