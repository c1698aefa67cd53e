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
    if not isinstance(text, str) or not text.strip():
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
