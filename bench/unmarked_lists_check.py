"""Where would Charter split ordinary Markdown prose into one statement per line?

    python bench/unmarked_lists_check.py MIRROR_DIR [--per-repo 15] [--seed 1]

Rule files sometimes write one rule per line with neither list markers nor full stops
("Use pnpm" / "Never commit secrets"); Markdown joins such lines into one paragraph, and
the rules parser splits it back (``rules.blocks._unmarked_list``). The risk is the other
way round: hard-wrapped prose split at its line ends. This script reads Markdown files
that are not rule files (READMEs, docs, contributing guides) from bare git mirrors
(``MIRROR_DIR/<owner>+<name>/repo``, as the ``fetch`` tool leaves them), up to
``--per-repo`` files a repository chosen at random, and prints every paragraph of three or
more lines whose split the reading changes, for a person to judge, then a count on stderr.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

from markdown_it.tree import SyntaxTreeNode

from charter.rules import blocks


def _git(mirror: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "--git-dir", str(mirror), *args], capture_output=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        return ""
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else ""


def _paragraph_lines(node: SyntaxTreeNode) -> list[list[str]]:
    found: list[list[str]] = []
    for child in node.children:
        if child.type == "paragraph":
            inline = [c for c in child.children if c.type == "inline"]
            if len(inline) == 1:
                found.append(inline[0].content.split("\n"))
        elif child.children:
            found.extend(_paragraph_lines(child))
    return found


def _changed(lines: list[str]) -> bool:
    """Does the unmarked-list reading change how these lines are grouped?"""
    new = blocks._line_groups(lines)
    reading = blocks._unmarked_list
    blocks._unmarked_list = lambda _lines: False  # type: ignore[assignment]
    try:
        old = blocks._line_groups(lines)
    finally:
        blocks._unmarked_list = reading  # type: ignore[assignment]
    return new != old


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", type=Path)
    parser.add_argument("--per-repo", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    files = paragraphs = changed = 0
    for entry in sorted(args.mirrors.iterdir()):
        mirror = entry / "repo"
        names = _git(mirror, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
        markdown = [n for n in names if n.endswith(".md")]
        rng.shuffle(markdown)
        for name in markdown[: args.per_repo]:
            text = _git(mirror, "show", f"HEAD:{name}")
            if not text or len(text) > 200_000:
                continue
            files += 1
            for lines in _paragraph_lines(blocks._tree(text)):
                if len(lines) < 3:
                    continue
                paragraphs += 1
                if _changed(lines):
                    changed += 1
                    print(f"## {entry.name} {name}")
                    for line in lines[:8]:
                        print(f"   {line[:110]}")
    print(
        f"{files} files, {paragraphs} paragraphs of 3+ lines, {changed} split one per line",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
