"""Where a project's root is, using only the standard library (hooks import this fast)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

CONFIG_FILE = "charter.toml"
STATE_DIR = ".charter"


def find_root(start: Path) -> Path:
    """The nearest ancestor with charter.toml, a [tool.charter] pyproject, or .git."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / CONFIG_FILE).is_file():
            return candidate
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                if "[tool.charter" in pyproject.read_text(errors="replace"):
                    return candidate
            except OSError:
                pass
        if (candidate / ".git").exists():
            return candidate
    return start


def worker_socket(root: Path) -> Path:
    """A short per-user socket path for the project's warm worker (AF_UNIX paths are short).

    The path depends on Charter's version, so after an upgrade hooks never talk to a
    worker still running the old code; that one idles out on its own.
    """
    from charter import __version__

    key = f"{root.resolve()}\0{__version__}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    base = Path(tempfile.gettempdir()) / f"charter-{os.getuid()}"
    return base / f"{digest}.sock"
