"""Materialise a commit from a bare mirror into a fresh work tree, skipping missing blobs.

``git archive`` and ``git checkout`` stop at the first blob a partial mirror lacks; this
writes the commit's tree blob by blob through one ``git cat-file --batch`` process and
skips what is missing, so a checkout of a mirror with absent large data files still
gives every source file. The new repository borrows the mirror's objects (alternates),
has history up to the commit and no later refs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from charter.errors import CharterError


def _git(args: list[str], cwd: Path) -> bytes:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise CharterError(f"git {args[0]} failed in {cwd}: {message[-1] if message else '?'}")
    return done.stdout


def checkout(mirror: Path, commit: str, target: Path) -> int:
    """Write ``commit``'s tree from ``mirror`` (a bare git dir) into ``target``; files written."""
    objects = mirror / "objects"
    if not objects.is_dir():
        raise CharterError(f"not a git mirror (no objects/): {mirror}")
    target.mkdir(parents=True, exist_ok=True)
    _git(["init", "--quiet", str(target)], target)
    (target / ".git" / "objects" / "info" / "alternates").write_text(
        str(objects.resolve()) + "\n", encoding="utf-8"
    )
    _git(["update-ref", "refs/heads/main", commit], target)
    _git(["symbolic-ref", "HEAD", "refs/heads/main"], target)
    listing = _git(["ls-tree", "-r", "-z", commit], target).split(b"\0")
    entries: list[tuple[str, str, str]] = []
    for raw in listing:
        if not raw:
            continue
        meta, _, raw_name = raw.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        if kind == "blob":
            entries.append((mode, sha, raw_name.decode("utf-8", "surrogateescape")))
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=target,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    written = 0
    try:
        for mode, sha, name in entries:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] == b"missing":
                continue
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)
            path = target / name
            if mode == "120000":
                continue  # symlinks: never followed, not needed for ranking
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            if mode == "100755":
                os.chmod(path, 0o755)
            written += 1
    finally:
        proc.stdin.close()
        proc.wait()
    return written
