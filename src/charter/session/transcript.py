"""Bounded reads of a Claude Code transcript (JSONL), for hooks.

Hook payloads carry no clock and no assistant text before Stop; the transcript has both.
A transcript can be many megabytes (or a hostile path such as ``/dev/zero``), so only
regular files are read, and only their tail.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from charter.safejson import replace_lone_surrogates

TAIL_BYTES = 256 * 1024


def read_tail(path: object, limit: int = TAIL_BYTES) -> list[dict[str, Any]]:
    """The complete JSON entries in the last ``limit`` bytes of a regular file, in order."""
    if not isinstance(path, str) or not path:
        return []
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return []
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return []
        start = max(0, info.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, min(limit, info.st_size))
    except OSError:
        return []
    finally:
        os.close(fd)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first line is cut
    out: list[dict[str, Any]] = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(entry, dict):
            out.append(surrogate_free(raw, entry))
    return out


def surrogate_free(raw: bytes, entry: Any) -> Any:
    """``entry`` (parsed from ``raw``) with each lone surrogate read as U+FFFD: a
    ``"\\ud83d"`` escape (half an emoji, cut) decodes to one, which no UTF-8 text holds,
    and the session's capture at compaction was lost over it ("UnicodeEncodeError …
    surrogates not allowed"). Only lines with a ``\\ud8``-``\\udf`` escape are walked."""
    if isinstance(entry, dict | list) and re.search(rb"\\u[dD][89a-fA-F]", raw):
        replace_lone_surrogates(entry)
    return entry


def size_of(path: object) -> int:
    """Bytes in the transcript now (the checkpoint's transcript offset)."""
    if not isinstance(path, str) or not path:
        return 0
    try:
        info = Path(path).stat()
    except OSError:
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def tool_use_time(entries: list[dict[str, Any]], tool_use_id: str) -> str:
    """The timestamp of the assistant entry that issued ``tool_use_id`` ("" if not seen)."""
    if not tool_use_id:
        return ""
    for entry in reversed(entries):
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("id") == tool_use_id:
                return str(entry.get("timestamp") or "")
    return ""


def last_time(entries: list[dict[str, Any]]) -> str:
    for entry in reversed(entries):
        if entry.get("timestamp"):
            return str(entry["timestamp"])
    return ""
