"""Which rules are already in the agent's conversation, per session.

Hook context stays in the conversation until Claude Code compacts it, so a rule injected
for one prompt is still there for the next: injecting it again only costs tokens. This
store remembers, per session id, the rules already given; the prompt hook leaves them
out and says how many. A new conversation (SessionStart ``startup``/``clear``) or a
compaction (``compact``) clears the slate; ``resume`` keeps it. One SQLite file, one
transaction per prompt, so parallel hooks never lose an entry.
"""

from __future__ import annotations

from pathlib import Path

from charter.store.db import connect, migrate


def _v1(conn: object) -> None:
    conn.executescript(  # type: ignore[attr-defined]
        "CREATE TABLE injected (session TEXT NOT NULL, rule TEXT NOT NULL, "
        "PRIMARY KEY (session, rule))"
    )


def _path(state_dir: Path) -> Path:
    return state_dir / "injected.db"


def take_new(state_dir: Path, session: str, rule_ids: list[str]) -> list[str]:
    """The ids not yet given in ``session`` (in order), recorded as given now."""
    if not session:
        return list(rule_ids)
    conn = connect(_path(state_dir))
    try:
        migrate(conn, "injected", [_v1])
        conn.execute("BEGIN IMMEDIATE")
        try:
            seen = {
                row[0]
                for row in conn.execute("SELECT rule FROM injected WHERE session = ?", (session,))
            }
            fresh = [rid for rid in rule_ids if rid not in seen]
            conn.executemany(
                "INSERT OR IGNORE INTO injected (session, rule) VALUES (?, ?)",
                [(session, rid) for rid in fresh],
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return fresh
    finally:
        conn.close()


def clear(state_dir: Path, session: str) -> None:
    """Forget what ``session`` was given (its conversation no longer holds it)."""
    path = _path(state_dir)
    if not session or not path.exists():
        return
    conn = connect(path)
    try:
        migrate(conn, "injected", [_v1])
        with conn:
            conn.execute("DELETE FROM injected WHERE session = ?", (session,))
    finally:
        conn.close()
