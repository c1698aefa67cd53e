"""SQLite storage shared by every capability (WAL, busy timeout, ordered migrations)."""

from charter.store.db import connect

__all__ = ["connect"]
