"""What Charter writes into a repository is the same on every machine.

Two clones of one project, at different absolute paths (one with a space and a
non-ASCII letter), run the same commands under a different time zone, locale, umask,
``PYTHONHASHSEED`` and ``HOME``, with the files of one clone recreated in reverse order
and old modification times. Every file git would commit afterwards (the capsule, the
rule exports, the session scaffold and track files, the agent settings, the bound
decisions) must hash the same in both, and none may name a path of this machine.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import copy_demo, merge_demo_seed

CHARTER = Path(sys.executable).with_name("charter")
GIT = ["git", "-c", "user.email=qa@example.com", "-c", "user.name=qa"]
#: The commands whose output lands in the repository (in the order a team runs them).
COMMANDS: list[list[str]] = [
    ["compile"],
    ["export", "claude-rules", "--out", ".claude/rules"],
    ["export", "copilot", "--out", ".github/instructions"],
    ["graph", "build"],
    ["capsule", "--json"],
    ["session", "init"],
    ["track", "new", "billing-fix"],
    ["session", "note", "decision", "Store money as integer cents"],
    ["install", "claude-code"],
    ["install", "cursor"],
]


def _locale() -> str:
    """A locale unlike C: Turkish (dotted/dotless i) where the machine has it."""
    listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False)
    names = {n.lower().replace("-", "") for n in listed.stdout.split()}
    return "tr_TR.UTF-8" if "tr_tr.utf8" in names else "C.UTF-8"


def _origin(base: Path) -> Path:
    """The project with its bound decisions committed, as a team shares it."""
    origin = copy_demo(base / "origin")
    (origin / ".gitignore").write_text(".claude/settings.local.json\n", encoding="utf-8")
    merge_demo_seed(origin)
    subprocess.run([*GIT, "add", "-A"], cwd=origin, check=True)
    subprocess.run([*GIT, "commit", "-qm", "project"], cwd=origin, check=True)
    return origin


def _shuffle(root: Path) -> None:
    """Recreate every checked-out file in reverse order with an old, odd mtime."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for n, rel in enumerate(sorted((f for f in files if f), reverse=True)):
        path = root / rel
        data = path.read_bytes()
        path.unlink()
        path.write_bytes(data)
        os.utime(path, ns=(1_000_000_000_000_000_000 + n * 7_919, 1_000_000_000 + n * 104_729))


def _run_all(root: Path, home: Path, env: dict[str, str], umask: str) -> None:
    home.mkdir(parents=True)
    full = {
        "PATH": f"{CHARTER.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(home),
        **env,
    }
    for args in COMMANDS:
        done = subprocess.run(
            ["sh", "-c", f'umask {umask} && exec "$0" "$@"', str(CHARTER), *args],
            cwd=root,
            env=full,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, (args, done.stderr)


def _committable(root: Path) -> dict[str, str]:
    """SHA-256 of every file ``git add -A`` would take, by path."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    return {
        rel: hashlib.sha256((root / rel).read_bytes()).hexdigest()
        for rel in sorted(f for f in listed if f)
        if (root / rel).is_file()
    }


def test_two_clones_on_different_machines_write_the_same_bytes(tmp_path: Path) -> None:
    origin = _origin(tmp_path)
    one = tmp_path / "one" / "repo"
    two = tmp_path / "qa portable" / "projé"
    for target in (one, two):
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(origin), str(target)], check=True)
    _shuffle(two)
    _run_all(one, tmp_path / "home-one", {"TZ": "UTC", "LC_ALL": "C", "PYTHONHASHSEED": "0"}, "022")
    _run_all(
        two,
        tmp_path / "home two",
        {"TZ": "XST-13:45", "LC_ALL": _locale(), "LANG": _locale(), "PYTHONHASHSEED": "4242"},
        "077",
    )
    first, second = _committable(one), _committable(two)
    written = set(first) - set(_committable(origin))
    # the commands did write into the repository: capsule, exports, scaffold, settings
    assert {
        ".charter/graph/contract-capsule.json",
        ".claude/settings.json",
        ".mcp.json",
        ".cursor/mcp.json",
        "docs/tracks/billing-fix/DECISIONS.md",
    } <= written
    assert any(p.startswith(".claude/rules/") for p in written)
    assert any(p.startswith(".github/instructions/") for p in written)
    assert sorted(set(first) ^ set(second)) == []
    assert sorted(p for p in first if first[p] != second[p]) == []
    machine = [str(tmp_path), str(tmp_path.resolve()), str(CHARTER.parent), "home two"]
    for root in (one, two):
        for rel in written:
            text = (root / rel).read_bytes().decode("utf-8", errors="replace")
            assert not [m for m in machine if m in text], rel
