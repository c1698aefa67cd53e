"""The ``.gitignore`` Charter writes into its own state directory.

``.charter/`` mixes two kinds of files. Most are caches and per-machine state: the
search index, compiled rules and their vectors, the graph snapshot, session journals,
lock files, the backup of settings an install replaced. Committing them would bloat the
repository and leak one machine's state into everyone's checkout. Two are the team's:
the bound decisions with their verified history (what the user settled, which every
agent must see), and the contract capsule. So, like pytest's and ruff's caches, the
directory ignores itself, except for those.

The file is written once, when Charter first uses the directory, and never overwritten:
a team that wants a different split edits it.
"""

from __future__ import annotations

from pathlib import Path

IGNORE_FILE = ".gitignore"

CONTENT = """\
# Written by Charter once; edit freely, it is never overwritten.
# Caches, indexes and per-session state stay on this machine. The bound decisions
# (decisions/) and the contract capsule (graph/contract-capsule.json) are meant to be
# committed, so the whole team and every agent share them.
*
!.gitignore
!decisions/
!decisions/pgc_clarifications.json
!decisions/history.jsonl
!decisions/snapshots/
!decisions/snapshots/*.json
!graph/
!graph/contract-capsule.json
"""


def ensure_ignore_file(state_dir: Path) -> None:
    """Create ``state_dir`` and its ignore file when missing. Best effort: a read-only
    checkout still works, it only goes without the file."""
    from charter.fileio import atomic_write_text

    target = state_dir / IGNORE_FILE
    try:
        if target.exists() or target.is_symlink():
            return
        state_dir.mkdir(exist_ok=True)
        atomic_write_text(target, CONTENT)
    except OSError:
        return
