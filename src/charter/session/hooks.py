"""Hook handlers of the session capability, offered on the seam by
:mod:`charter.session.plugin`.

Capture hooks (PostToolUse, PostToolUseFailure, UserPromptSubmit) record and answer
nothing; PreCompact compacts; SessionEnd writes a final checkpoint; SessionStart composes
the recovered state with what other capabilities pin. They fail open: a problem is a
note, never a blocked agent. Guardrails (PreToolUse) live in
:mod:`charter.session.guardrails` and fail closed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from charter.config import Project
from charter.session.service import Session

if TYPE_CHECKING:
    from charter.session.recovery import Recovered


CACHE_KEY = "session.session"


def warm_session(state: Any) -> Session:
    """The hook state's session, kept open between events (the warm worker answers every
    tool call: reopening the journal each time costs a WAL checkpoint on close)."""
    cached: Session | None = state.cache.get(CACHE_KEY)
    if cached is not None and cached.project is state.project:
        return cached
    if cached is not None:
        cached.close()
    session = Session(state.project)
    state.cache[CACHE_KEY] = session
    return session


def capture_tool(state: Any, payload: dict[str, Any], *, failed: bool) -> list[str]:
    warm_session(state).capture(str(payload.get("session_id") or "")).tool(payload, failed=failed)
    return []


def capture_prompt(state: Any, payload: dict[str, Any]) -> list[str]:
    if not str(payload.get("prompt") or "").strip():
        return []
    warm_session(state).capture(str(payload.get("session_id") or "")).prompt(payload)
    return []


def session_start(state: Any, payload: dict[str, Any]) -> list[str]:
    """SessionStart: prune old session history when a day has passed since the last
    prune (one ``stat`` otherwise); tool calls never prune."""
    from charter.session.retention import auto_prune

    session = warm_session(state)
    if payload.get("source") == "resume":
        from charter.session.recovery import link_resumed

        link_resumed(session, str(payload.get("session_id") or ""))
    report = auto_prune(session, str(payload.get("session_id") or ""))
    if report is None or not report.removed:
        return []
    return [
        f"session history pruned: {report.journal_events} journal events, "
        f"{len(report.checkpoints)} checkpoints, {len(report.session_dirs)} session folders, "
        f"{report.injected_conversations} inject-once conversations"
    ]


def pre_compact(project: Project, payload: dict[str, Any]) -> list[str]:
    from charter.session.compaction import compact

    s = Session(project)
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


def recovery(
    project: Project,
    payload: dict[str, Any],
    pinned: list[tuple[str, str]],
    *,
    create: bool = True,
) -> Recovered:
    """The recovered state joined with ``pinned`` (what SessionStart gives the agent)."""
    from charter.session.recovery import recover

    s = Session(project)
    try:
        return recover(s, str(payload.get("session_id") or ""), pinned=pinned, create=create)
    finally:
        s.close()
