"""The session store's one file-write step, with its crash seams.

Every file of session state (the task tier, the active-track pointer, the transient tier,
checkpoints) is written here, by a caller that holds the session lock: temp file + fsync
+ rename (:func:`charter.fileio.atomic_write_text`), so a kill -9 leaves the old or the
new bytes, never half. Two things are added on top:

- a kill between the temp file and the rename leaves ``.NAME.*.tmp`` beside the user's
  document; the next write of that file sweeps it (safe only because every writer of
  these files holds the session lock, so no live writer's temp file is swept);
- ``fault_point("session.<step>")`` before and ``"session.<step>.done"`` after, the
  seams ``tests/test_session_crash.py`` and ``bench/crash_safety.py`` kill at.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from charter.fileio import atomic_write_text, fault_point


def sweep_temps(path: Path) -> None:
    """Remove temp files a killed writer of ``path`` left (caller holds the session lock)."""
    with contextlib.suppress(OSError):
        for tmp in path.parent.glob(f".{path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()


def write_file(path: Path, text: str, step: str) -> None:
    """Atomically replace ``path`` with ``text``; ``step`` names the crash seams."""
    fault_point(f"session.{step}")
    sweep_temps(path)
    atomic_write_text(path, text)
    fault_point(f"session.{step}.done")
