"""The project's decisions file and its append-only, hash-chained history.

``.charter/decisions/pgc_clarifications.json`` holds the canonical structure.
``.charter/decisions/history.jsonl`` holds one line per change (merge, import, add,
answer, renegotiate) with the SHA-256 of the decisions file before and after, and the
hash of the previous line, so

- an edit to the decisions file that bypassed Charter is detected (its hash is not the
  ``after`` of the last history line) and reported as :class:`TamperError` by every
  command that reads decisions;
- an edit or deletion of a history line breaks the chain and is detected too.

A write (:meth:`DecisionStore.update`) happens entirely under the store's lock: read and
verify the current state, decide, write the snapshot of the new content, append the
history line (fsync; the commit point), atomically rename the decisions file. A crash
between the append and the rename leaves the old file, whose hash equals the last line's
``before``: recognised as "recorded, not yet applied" (not tampering), and finished from
the snapshot by the next write. :meth:`DecisionStore.audit` replays the history over the
snapshots to catch writes decided on a stale read, which a hash chain cannot see.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.decisions.models import PgcClarifications, parse_clarifications
from charter.errors import CharterError, TamperError
from charter.fileio import append_line, atomic_write_text, fault_point, locked, read_text

if TYPE_CHECKING:
    from charter.secretscan.scanner import Scanner

DECISIONS_DIR = "decisions"
DECISIONS_FILE = "pgc_clarifications.json"
HISTORY_FILE = "history.jsonl"
SNAPSHOT_DIR = "snapshots"
EMPTY_SHA = hashlib.sha256(b"").hexdigest()
GENESIS = "0" * 64


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entry_hash(entry: dict[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return sha256_text(json.dumps(body, sort_keys=True, ensure_ascii=False))


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass
class ChainStatus:
    """What :meth:`DecisionStore.verify` found."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    current_sha: str = EMPTY_SHA
    pending: bool = False  # the last recorded change never reached the decisions file
    skipped_lines: int = 0  # torn lines from an interrupted append (ignored, chain intact)


class DecisionStore:
    """Reads and writes one project's decisions; every read verifies the hash chain."""

    def __init__(self, state_dir: Path, scanner: Scanner | None = None) -> None:
        #: with a scanner, a change that would add a secret is refused before anything is
        #: written: the store is verbatim and hash-chained, so it cannot redact after
        self.scanner = scanner
        self.dir = state_dir / DECISIONS_DIR
        self.path = self.dir / DECISIONS_FILE
        self.history_path = self.dir / HISTORY_FILE
        self.snapshot_dir = self.dir / SNAPSHOT_DIR

    # -- reading -------------------------------------------------------------------------

    def _current_text(self) -> str | None:
        if not self.path.exists():
            return None
        return read_text(self.path, what="decisions file", regular_only=True)

    def history(self) -> list[dict[str, Any]]:
        return self.verify().entries

    def _read_history(self) -> tuple[list[dict[str, Any]], int]:
        if not self.history_path.exists():
            return [], 0
        entries: list[dict[str, Any]] = []
        skipped = 0
        raw = read_text(self.history_path, what="decisions history", regular_only=True)
        for line in raw.splitlines():
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                skipped += 1
                continue
            if not isinstance(entry, dict) or "hash" not in entry:
                skipped += 1
                continue
            entries.append(entry)
        return entries, skipped

    def _verified_history(self) -> tuple[list[dict[str, Any]], int]:
        """History entries whose hash chain is intact (else :class:`TamperError`)."""
        entries, skipped = self._read_history()
        prev = GENESIS
        for index, entry in enumerate(entries, start=1):
            if entry.get("prev") != prev or _entry_hash(entry) != entry.get("hash"):
                raise TamperError(
                    f"decisions history {self.history_path} was edited at line {index} "
                    "(hash chain broken)"
                )
            prev = str(entry["hash"])
        return entries, skipped

    def _reading(self) -> contextlib.AbstractContextManager[None]:
        """A reader's shared lock, so history and file are read from one commit.

        Without it a reader racing a writer could see the new file with the old history
        and report tampering. No lock (and no directory created) when nothing is stored.
        """
        if not self.dir.is_dir():
            return contextlib.nullcontext()
        return locked(self.path, shared=True, required=False)

    def verify(self) -> ChainStatus:
        """Check the history chain and that the decisions file is the recorded state.

        Raises :class:`TamperError` when the file or the history was changed outside
        Charter.
        """
        with self._reading():
            return self._verify()

    def _verify(self) -> ChainStatus:
        entries, skipped = self._verified_history()
        text = self._current_text()
        current = EMPTY_SHA if text is None else sha256_text(text)
        status = ChainStatus(entries=entries, current_sha=current, skipped_lines=skipped)
        if not entries:
            if text is not None:
                raise TamperError(
                    f"{self.path} has no recorded history: it was written outside Charter "
                    "(import it with `charter decisions import`)"
                )
            return status
        last = entries[-1]
        if current == last.get("after"):
            return status
        if current == last.get("before"):
            status.pending = True
            return status
        raise TamperError(
            f"{self.path} was changed outside renegotiation (sha256 {current[:12]}, "
            f"recorded {str(last.get('after'))[:12]}); run `charter decisions restore` "
            "to return to the recorded state, then `charter decisions renegotiate ID`"
        )

    def load(self) -> PgcClarifications:
        """The verified decisions (empty when none were recorded yet)."""
        with self._reading():
            return self._load()

    def _load(self) -> PgcClarifications:
        self._verify()
        text = self._current_text()
        if text is None:
            return PgcClarifications(pgc_clarifications=[])
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CharterError(f"invalid JSON in {self.path}: {exc.msg}") from None
        return parse_clarifications(data, str(self.path))

    def exists(self) -> bool:
        return self.path.exists() or self.history_path.exists()

    # -- writing -------------------------------------------------------------------------

    def update(
        self,
        fn: Callable[[PgcClarifications], Change | None],
        *,
        before_rename: Callable[[], None] | None = None,
    ) -> dict[str, Any] | None:
        """Read-modify-write the decisions entirely under the store's lock.

        ``fn`` gets the current verified decisions and returns the :class:`Change` to
        record (or None for no change). Loading, deciding and writing all happen while
        the lock is held, so parallel writers (12 ``charter decisions add`` at once)
        serialize and none loses another's change. An interrupted earlier write is
        finished first (:meth:`recover`). Returns the history entry, or None.

        Write steps, each a kill point for the crash tests: snapshot of the new content,
        history append (fsync; the commit point), atomic rename of the decisions file.
        """
        with locked(self.path):
            self._recover_locked()
            change = fn(self._load())
            if change is None:
                return None
            return self._write_locked(change, before_rename)

    def write(
        self,
        new: PgcClarifications,
        *,
        op: str,
        clarification_id: str | None = None,
        old: Any = None,
        new_value: Any = None,
        reason: str | None = None,
        before_rename: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        """Record ``new`` as the decisions state, whatever is stored now (blind write).

        Prefer :meth:`update`, which decides on the state read under the lock.
        ``before_rename`` is a test seam: it runs after the history append and before the
        decisions file is replaced (where a crash is most interesting).
        """
        change = Change(new, op, clarification_id, old, new_value, reason)
        with locked(self.path):
            return self._write_locked(change, before_rename)

    def _write_locked(
        self, change: Change, before_rename: Callable[[], None] | None
    ) -> dict[str, Any]:
        status = self._verify()
        text = change.new.canonical_text()
        self._refuse_new_secrets(change, text)
        after = sha256_text(text)
        prev = status.entries[-1]["hash"] if status.entries else GENESIS
        entry: dict[str, Any] = {
            "seq": len(status.entries) + 1,
            "time": _now(),
            "op": change.op,
            "id": change.clarification_id,
            "old": change.old,
            "new": change.new_value,
            "reason": change.reason,
            "before": status.current_sha,
            "after": after,
            "prev": prev,
        }
        entry["hash"] = _entry_hash(entry)
        atomic_write_text(self.snapshot_dir / f"{after}.json", text)
        fault_point("decisions.snapshot")
        append_line(
            self.history_path,
            json.dumps(entry, sort_keys=True, ensure_ascii=False),
            fault="decisions.history",
        )
        fault_point("decisions.history")
        if before_rename is not None:
            before_rename()
        atomic_write_text(self.path, text)
        fault_point("decisions.rename")
        return entry

    def _refuse_new_secrets(self, change: Change, text: str) -> None:
        """Raise when ``change`` brings a secret the stored decisions do not already hold.

        Decisions are committed, injected into every session and served verbatim, and
        their history is append-only, so a key pasted as an answer could never be taken
        back: it is stopped here. Lines already stored are not judged again, so a store
        that holds one from before can still change."""
        if self.scanner is None or not self.scanner.enabled:
            return
        said = json.dumps(
            [change.old, change.new_value, change.reason], ensure_ascii=False, default=str
        )
        before = set((self._current_text() or "").splitlines())
        found: list[str] = []
        for part in (text, said):
            redacted = self.scanner.redact(part, kind="config")
            if not redacted.findings:
                continue
            lines = part.splitlines()
            found += [
                f.detector
                for f in redacted.findings
                if f.line <= len(lines) and lines[f.line - 1] not in before
            ]
        if found:
            kinds = ", ".join(sorted(set(found)))
            raise CharterError(
                f"not recorded: the change holds what looks like a secret ({kinds}); "
                "decisions are committed and served verbatim, so record where the secret "
                "lives (a vault path, an environment variable name), never its value"
            )

    def recover(self) -> dict[str, Any] | None:
        """Finish a write that was interrupted after its history line (the commit point).

        Returns the history entry that was applied, or None when nothing was pending.
        """
        with locked(self.path):
            return self._recover_locked()

    def _recover_locked(self) -> dict[str, Any] | None:
        status = self._verify()
        if not status.pending:
            return None
        last = status.entries[-1]
        target = str(last["after"])
        snapshot = self.snapshot_dir / f"{target}.json"
        if not snapshot.is_file():
            return None  # cannot roll forward; the next write records over the old state
        text = read_text(snapshot, what="decisions snapshot", regular_only=True)
        if sha256_text(text) != target:
            return None
        atomic_write_text(self.path, text)
        return last

    def audit(self) -> list[str]:
        """Replay the history over its snapshots; the problems found (empty when sound).

        Each history line must describe the whole difference between the state before it
        and after it: a write may only add or change the clarifications it names. A
        write decided on a stale read (the lost update of parallel writers) drops or
        reverts another write's clarification, which shows here even though every hash
        in the chain is intact.
        """
        entries, _ = self._verified_history()
        problems: list[str] = []
        states: dict[str, dict[str, Any] | None] = {EMPTY_SHA: {}}
        previous_after = EMPTY_SHA
        for entry in entries:
            seq = entry.get("seq")
            before, after = str(entry.get("before")), str(entry.get("after"))
            if before != previous_after:
                problems.append(
                    f"history #{seq} starts from a state ({before[:12]}) that is not the "
                    f"result of the write before it ({previous_after[:12]})"
                )
            old, new = self._snapshot_state(before, states), self._snapshot_state(after, states)
            previous_after = after
            if old is None or new is None:
                problems.append(f"history #{seq}: snapshot missing or altered")
                continue
            named = _named_ids(entry)
            for cid, value in old.items():
                if cid not in new:
                    problems.append(f"history #{seq} ({entry.get('op')}) dropped {cid}")
                elif new[cid] != value and cid not in named:
                    problems.append(f"history #{seq} ({entry.get('op')}) reverted {cid}")
            for cid in new:
                if cid not in old and cid not in named:
                    problems.append(f"history #{seq} ({entry.get('op')}) added unnamed {cid}")
        return problems

    def _snapshot_state(
        self, sha: str, cache: dict[str, dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        if sha not in cache:
            snapshot = self.snapshot_dir / f"{sha}.json"
            state: dict[str, Any] | None = None
            try:
                text = read_text(snapshot, what="decisions snapshot", regular_only=True)
                if sha256_text(text) == sha:
                    data = json.loads(text).get("pgc_clarifications", [])
                    state = {str(e.get("id")): e for e in data if isinstance(e, dict)}
            except (CharterError, ValueError, AttributeError):
                state = None
            cache[sha] = state
        return cache[sha]

    def restore(self) -> str:
        """Put back the last recorded state (from its snapshot); returns its sha256."""
        with locked(self.path):
            entries, _ = self._verified_history()
            if not entries:
                raise CharterError("no recorded decisions to restore")
            target = str(entries[-1]["after"])
            snapshot = self.snapshot_dir / f"{target}.json"
            if not snapshot.exists():
                raise CharterError(f"snapshot {snapshot} is missing; cannot restore")
            text = read_text(snapshot, what="decisions snapshot", regular_only=True)
            if sha256_text(text) != target:
                raise TamperError(f"snapshot {snapshot} does not match its recorded hash")
            atomic_write_text(self.path, text)
            return target


@dataclass
class Change:
    """One change to record: the new state and what the history line says about it."""

    new: PgcClarifications
    op: str
    clarification_id: str | None = None
    old: Any = None
    new_value: Any = None
    reason: str | None = None


def _named_ids(entry: dict[str, Any]) -> set[str]:
    """The clarification ids a history line says it changed."""
    if entry.get("id"):
        return {str(entry["id"])}
    value = entry.get("new")
    if isinstance(value, list):
        return {str(v) for v in value}
    return set()
