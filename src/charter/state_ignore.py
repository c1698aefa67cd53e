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


#: The ignore file of a directory of per-machine files Charter creates outside
#: ``.charter/`` (the seed's ``artifacts/sessions/``, the guardrail audit log's folder).
LOCAL_CONTENT = """\
# Written by Charter when it created this folder; edit freely, it is never overwritten.
# Per-machine files (one session's work log, test output and diff; the guardrail audit
# log): they stay on this machine, like .charter/'s caches.
*
"""


def ensure_local_dir(root: Path, directory: Path) -> None:
    """Create ``directory`` (inside ``root``) with an ignore file that hides it from git,
    when Charter is the one creating it. A folder that already exists is the user's to
    manage and is left alone; so is anything that would lead outside the project. Best
    effort, like :func:`ensure_ignore_file`."""
    from charter.boundary import BoundaryError, writable
    from charter.fileio import atomic_write_text

    try:
        if directory.exists() or directory.is_symlink():
            return
        target = writable(root, directory / IGNORE_FILE, what="local state folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            atomic_write_text(target, LOCAL_CONTENT)
    except (OSError, BoundaryError):
        return
