"""Hook entry points of the decisions capability, called by the Claude Code dispatcher.

- ``pinned_invariants_text``: the bound invariants pinned at SessionStart (including
  ``source: compact``), so decisions survive compaction.
- ``handle_stop``: checks the agent's last message (Claude Code's Stop input field
  ``last_assistant_message``) for drift. Output follows Claude Code's Stop contract:
  ``{"decision": "block", "reason": ...}`` makes the agent continue with the reason as
  its next instruction; ``{"systemMessage": ...}`` only shows a warning. When
  ``stop_hook_active`` is true the agent is already continuing because of a Stop hook, so
  this handler never blocks twice in a row (no loops); it warns instead.

The Stop hook adds the semantic layer only when the embedding model is already loaded
in the process (``drift.stop_semantic = "auto"``: the warm worker); a cold hook process
stays lexical, because loading the model costs about a second.
"""

from __future__ import annotations

import json
from typing import Any

from charter.config import Project
from charter.decisions.drift.result import DriftResult
from charter.decisions.invariants import invariants, invariants_text
from charter.errors import CharterError


def pinned_invariants_text(project: Project) -> str:
    """The bound invariants as a bullet list ("" when there are none)."""
    from charter.decisions.service import load_decisions

    decisions = load_decisions(project)
    return invariants_text(invariants(decisions, project.settings.decisions.aliases))


#: How much of the transcript's end is read when the payload lacks the message.
TRANSCRIPT_TAIL_BYTES = 512 * 1024


def _last_message_from_transcript(path: object) -> str:
    """The last assistant text in a Claude Code transcript (JSONL), for hook payloads
    from versions before ``last_assistant_message`` existed. Reads only the file's tail."""
    if not isinstance(path, str) or not path:
        return ""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TRANSCRIPT_TAIL_BYTES))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    for line in reversed(tail.splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [
                str(block.get("text", ""))
                for block in content
                if isinstance(block, dict) and block.get("type") == "text"
            ]
            if any(texts):
                return "\n".join(texts)
    return ""


def _model_loaded(project: Project) -> bool:
    """True when this process already holds the embedding model (the warm worker)."""
    from charter.embed import registry

    embed = project.settings.embed
    key = (embed.provider, embed.model_path, embed.batch_size, embed.max_tokens)
    return key in getattr(registry, "_CACHE", {})


def _reason(result: DriftResult, limit: int) -> str:
    lines = [
        "Charter drift check: your last message conflicts with bound decisions "
        "(facts the user already settled). Correct it; do not reopen them."
    ]
    for f in result.findings[:limit]:
        lines.append(f'- {f.rule} [{f.constraint_id}] "{f.evidence}" — {f.repair}')
    more = len(result.findings) - limit
    if more > 0:
        lines.append(f"- … and {more} more (charter drift check)")
    lines.append(
        "If the user wants to change a decision, they run "
        "`charter decisions renegotiate ID`; until then it stands."
    )
    return "\n".join(lines)


def handle_stop(project: Project, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The Stop hook's output object, or None when there is nothing to say."""
    settings = project.settings.drift
    mode = settings.on_stop
    if mode == "off":
        return None
    text = payload.get("last_assistant_message")
    if not isinstance(text, str):
        text = _last_message_from_transcript(payload.get("transcript_path"))
    if not text or not text.strip():
        return None
    from charter.decisions.service import checker_for, load_decisions, store_for

    try:
        if not store_for(project).exists():
            return None
        decisions = load_decisions(project)
    except CharterError as exc:
        # a tampered or unreadable decisions file is the user's problem, not the agent's
        return {"systemMessage": f"charter: decisions not checked: {exc}"}
    if not decisions.binding_entries():
        return None
    semantic = settings.semantic and (
        settings.stop_semantic == "on"
        or (settings.stop_semantic == "auto" and _model_loaded(project))
    )
    result = checker_for(project, decisions, semantic=semantic).check(text, "chat")
    if result.verdict == "pass":
        return None
    reason = _reason(result, settings.max_hook_findings)
    if mode == "block" and not payload.get("stop_hook_active"):
        return {"decision": "block", "reason": reason}
    return {"systemMessage": reason}
