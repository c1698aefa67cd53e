"""Reading Claude Code's session transcripts (``~/.claude/projects/*/<session>.jsonl``).

The format is undocumented; what this module knows comes from real files (see
``shared/bench/session/README.md``). A transcript is append-only JSON lines: conversation
entries (``user``, ``assistant``, ``system``) and bookkeeping (snapshots, progress). One
model response spans several ``assistant`` lines (one per content block); tool calls are
answered by later ``user`` lines holding ``tool_result`` blocks; a compaction appends a
``compact_boundary`` and a summary instead of truncating the file; and Claude Code 2.0.x
may write an earlier conversation into the file again when a session is resumed.

Everything here streams: a multi-megabyte transcript is read one line at a time, and the
only state kept across lines is sets of ids (for resume copies), never the text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: User entries whose text starts with one of these are echoes, not something typed.
_ECHO_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted by user",
    "<task-notification>",
    "<command-name>",  # built-in slash commands (/compact, /login …) run locally
)
#: IDE context Claude Code prepends to the typed text as extra text blocks.
_IDE_PREFIXES = ("<ide_selection>", "<ide_opened_file>")
INTERRUPT_PREFIX = "[Request interrupted by user"
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})


@dataclass(frozen=True)
class Line:
    """One transcript line: its 1-based number, its raw text and the parsed object."""

    number: int
    raw: str  # without the trailing newline; undecodable bytes kept as surrogates
    entry: dict[str, Any] | None  # None for a line that is not a JSON object


def iter_lines(path: Path) -> Iterator[Line]:
    """Each line of ``path`` in order, parsed; a broken line yields ``entry=None``."""
    with path.open("rb") as handle:
        for number, data in enumerate(handle, start=1):
            raw = data.decode("utf-8", errors="surrogateescape").rstrip("\r\n")
            entry: dict[str, Any] | None = None
            if raw.strip():
                try:
                    obj = json.loads(raw)
                except ValueError:
                    obj = None
                entry = obj if isinstance(obj, dict) else None
            yield Line(number, raw, entry)


def content_blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The message's content as a list of blocks (a plain string becomes one text block)."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def block_text(content: Any) -> str:
    """The text of a tool result's ``content`` (a string or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(parts)
    return ""


def is_compact_boundary(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "system" and entry.get("subtype") == "compact_boundary"


def is_compact_summary(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "user" and bool(entry.get("isCompactSummary"))


def compact_trigger(entry: dict[str, Any]) -> str:
    meta = entry.get("compactMetadata")
    trigger = meta.get("trigger") if isinstance(meta, dict) else None
    return trigger if trigger in ("manual", "auto") else "auto"


def prompt_text(entry: dict[str, Any]) -> str | None:
    """The text a user typed, if ``entry`` is a prompt (else None).

    Not prompts: meta entries (caveats, skill and command expansions), compaction
    summaries, tool results, local command and shell echoes, interruptions, task
    notifications. IDE context blocks are dropped from the text; an entry holding only
    IDE context is not a prompt.
    """
    if entry.get("type") != "user" or entry.get("isSidechain"):
        return None
    if (
        entry.get("isMeta")
        or entry.get("isCompactSummary")
        or entry.get("isVisibleInTranscriptOnly")
    ):
        return None
    blocks = content_blocks(entry)
    if not blocks or any(b.get("type") == "tool_result" for b in blocks):
        return None
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    typed = [t for t in texts if t.strip() and not t.lstrip().startswith(_IDE_PREFIXES)]
    if not typed or any(t.lstrip().startswith(_ECHO_PREFIXES) for t in typed):
        return None
    return "\n\n".join(typed)


def is_interrupt(entry: dict[str, Any]) -> bool:
    if entry.get("type") != "user":
        return False
    return any(
        str(b.get("text", "")).lstrip().startswith(INTERRUPT_PREFIX)
        for b in content_blocks(entry)
        if b.get("type") == "text"
    )


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class DuplicateFilter:
    """Recognises blocks a resumed 2.0.x session wrote into the file a second time.

    Such copies get new uuids but keep the ``tool_use`` ids and ``message.id``s; hooks
    never fired for them. A block is a copy when its tool_use id, its result's id, or its
    (message id, text) was seen before. Only digests are kept, so memory stays small.
    """

    def __init__(self) -> None:
        self._uses: set[str] = set()
        self._results: set[str] = set()
        self._texts: set[str] = set()

    def seen_use(self, block: dict[str, Any]) -> bool:
        key = str(block.get("id", ""))
        if not key:
            return False
        if key in self._uses:
            return True
        self._uses.add(key)
        return False

    def seen_result(self, block: dict[str, Any]) -> bool:
        key = str(block.get("tool_use_id", ""))
        if not key:
            return False
        if key in self._results:
            return True
        self._results.add(key)
        return False

    def seen_text(self, message_id: Any, block: dict[str, Any]) -> bool:
        if not message_id:
            return False
        key = _digest(message_id, block.get("type"), block.get("text") or block.get("thinking"))
        if key in self._texts:
            return True
        self._texts.add(key)
        return False

    def assistant_is_copy(self, entry: dict[str, Any]) -> bool:
        """Whether any block of this assistant entry was seen before (and remember them)."""
        message = entry.get("message")
        message_id = message.get("id") if isinstance(message, dict) else None
        copy = False
        for block in content_blocks(entry):
            kind = block.get("type")
            if kind == "tool_use":
                copy = self.seen_use(block) or copy
            elif kind in ("text", "thinking"):
                copy = self.seen_text(message_id, block) or copy
        return copy


def content_chars(entry: dict[str, Any]) -> int:
    """Characters of conversation an entry adds: prompts, assistant text, tool I/O.

    Thinking blocks, bookkeeping and compaction summaries are not counted: they are not
    what the user and the agent said or did.
    """
    kind = entry.get("type")
    if kind == "user":
        text = prompt_text(entry)
        if text is not None:
            return len(text)
        total = 0
        for block in content_blocks(entry):
            if block.get("type") == "tool_result":
                total += len(block_text(block.get("content")))
        return total
    if kind == "assistant":
        total = 0
        for block in content_blocks(entry):
            if block.get("type") == "text":
                total += len(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                total += len(json.dumps(block.get("input"), ensure_ascii=False))
        return total
    return 0
