"""Hook entry points of the session capability (called by the Claude Code dispatcher).

Capture hooks (PostToolUse, PostToolUseFailure, UserPromptSubmit) record and answer
nothing; PreCompact compacts; SessionEnd writes a final checkpoint; SessionStart recovers.
They fail open: a problem is a note, never a blocked agent. Guardrails (PreToolUse) live
in :mod:`charter.session.guardrails` and fail closed.
"""

from __future__ import annotations

from typing import Any

from charter.config import Project
from charter.session.service import Session


def _session(project: Project) -> Session:
    return Session(project)


def capture_tool(project: Project, payload: dict[str, Any], *, failed: bool) -> list[str]:
    s = _session(project)
    try:
        s.capture(str(payload.get("session_id") or "")).tool(payload, failed=failed)
    finally:
        s.close()
    return []


def capture_prompt(project: Project, payload: dict[str, Any]) -> list[str]:
    s = _session(project)
    try:
        s.capture(str(payload.get("session_id") or "")).prompt(payload)
    finally:
        s.close()
    return []


def pre_compact(project: Project, payload: dict[str, Any]) -> list[str]:
    from charter.session.compaction import compact

    s = _session(project)
    try:
        result = compact(
            s,
            str(payload.get("session_id") or ""),
            trigger=str(payload.get("trigger") or "auto"),
            transcript_path=payload.get("transcript_path"),
        )
    finally:
        s.close()
    written = ", ".join(result.written) or "nothing new"
    seq = (result.checkpoint or {}).get("seq", 0)
    return [f"session compacted (track {result.track}): {written}; checkpoint {seq}", *result.notes]
