"""Compare two ``charter eval rules --json`` reports file by file and task by task.

    python bench/rules_compare.py BEFORE.json AFTER.json

A change to retrieval is judged on data it was not shaped on: the files are split into
two fixed halves by the sha1 of their names (no one chooses which file lands where), and
each half's mean recall and count of files under 0.80 is printed before and after, with
the tasks whose recall moved. A change kept should not lower either half.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any


def half_of(name: str) -> int:
    return int(hashlib.sha1(name.encode()).hexdigest(), 16) % 2


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    fa = {r["file"]: r["recall"] for r in before["per_file"]}
    fb = {r["file"]: r["recall"] for r in after["per_file"]}
    halves = []
    for half in (0, 1):
        files = [f for f in fa if f in fb and half_of(f) == half]
        n = len(files) or 1
        halves.append(
            {
                "half": half,
                "files": len(files),
                "recall_before": round(sum(fa[f] for f in files) / n, 4),
                "recall_after": round(sum(fb[f] for f in files) / n, 4),
                "below_080_before": sum(fa[f] < 0.8 for f in files),
                "below_080_after": sum(fb[f] < 0.8 for f in files),
            }
        )
    ta = {t["id"]: t["recall"] or 0.0 for t in before["tasks"]}
    tb = {t["id"]: t["recall"] or 0.0 for t in after["tasks"]}
    moved = sorted(k for k in ta if k in tb and ta[k] != tb[k])
    return {
        "overall_before": before["overall"]["recall"],
        "overall_after": after["overall"]["recall"],
        "halves": halves,
        "tasks_changed": len(moved),
        "tasks_up": sum(tb[k] > ta[k] for k in moved),
        "changed": [{"id": k, "before": ta[k], "after": tb[k]} for k in moved],
        "files_moved": sorted(f for f in fa if f in fb and fa[f] != fb[f]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = parser.parse_args(argv)
    result = compare(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
        return 0
    for h in result["halves"]:
        print(
            f"half {h['half']} ({h['files']} files): recall {h['recall_before']:.4f} -> "
            f"{h['recall_after']:.4f}, files < 0.80 {h['below_080_before']} -> "
            f"{h['below_080_after']}"
        )
    print(f"overall {result['overall_before']} -> {result['overall_after']}")
    print(f"tasks changed {result['tasks_changed']}, up {result['tasks_up']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
