"""Hook entry points of the decisions capability, called by the Claude Code dispatcher.

- ``pinned_invariants_text``: the bound invariants pinned at SessionStart (including
  ``source: compact``), so decisions survive compaction.
- ``handle_stop``: checks the agent's last message (Claude Code's Stop input field
  ``last_assistant_message``) for drift. Output follows Claude Code's Stop contract:
  ``{"decision": "block", "reason": ...}`` makes the agent continue with the reason as
  its next instruction; ``{"systemMessage": ...}`` only shows a warning, to the user (the
  model never sees it), so it is worded for the user. When ``stop_hook_active`` is true
  the agent is already continuing because of a Stop hook, so this handler never blocks
  twice in a row (no loops); it warns instead.

The Stop hook adds the semantic layer only when the embedding model is already loaded
in the process (``drift.stop_semantic = "auto"``: the warm worker); a cold hook process
stays lexical, because loading the model costs about a second.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any

from charter.config import Project
from charter.decisions.drift.result import DriftResult, Finding
from charter.decisions.invariants import invariants, invariants_text
from charter.decisions.settings import DriftSettings
from charter.errors import CharterError


def pinned_invariants_text(project: Project) -> str:
    """The bound invariants as a bullet list ("" when there are none)."""
    from charter.decisions.service import load_decisions

    decisions = load_decisions(project)
    return invariants_text(invariants(decisions, project.settings.decisions.aliases))


#: How much of the transcript's end is read when the payload lacks the message.
TRANSCRIPT_TAIL_BYTES = 512 * 1024


def pinned_invariants(project: Project, notes: list[str]) -> list[tuple[str, str]]:
    """The "Bound decisions" part of session start's context (none when there are none).

    Fails closed: when the decisions store fails verification (tampered, unreadable) the
    agent is told so in its context, not only the user on stderr, and the unverified
    content is never shown.
    """
    try:
        text = pinned_invariants_text(project)
    except Exception as exc:  # decisions problems must not hide the constitution
        notes.append(f"invariants not pinned: {exc}")
        return [("# Bound decisions: NOT VERIFIED", UNVERIFIED)]
    if not text:
        return []
    return [("# Bound decisions (do not reopen or contradict)", text)]


def _transcript_tail(path: str, notes: list[str]) -> str:
    """The last :data:`TRANSCRIPT_TAIL_BYTES` of a regular file, else "" with a note.

    The path comes from hook input: a FIFO would block the open, ``/dev/zero`` or a
    growing file would never end, so the file is opened non-blocking, refused unless it
    is a regular file, and read by a bounded ``pread`` of its tail.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if not isinstance(exc, FileNotFoundError):
            notes.append(f"transcript {path} not read: {exc.strerror}")
        return ""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            notes.append(f"transcript {path} is not a regular file; not read")
            return ""
        start = max(0, info.st_size - TRANSCRIPT_TAIL_BYTES)
        data = os.pread(fd, TRANSCRIPT_TAIL_BYTES, start)
    except OSError as exc:
        notes.append(f"transcript {path} not read: {exc.strerror}")
        return ""
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def _last_message_from_transcript(path: object, notes: list[str] | None = None) -> str:
    """The last assistant message's text in a Claude Code transcript (JSONL), for hook
    payloads from versions before ``last_assistant_message`` existed. Reads only the
    file's tail. Claude Code writes one line per content block, so a reply of several
    text blocks (around a tool call, or split while streaming) spans several lines that
    share the message id: all of them are read, in order, not only the last one."""
    if not isinstance(path, str) or not path:
        return ""
    tail = _transcript_tail(path, notes if notes is not None else [])
    parts: list[str] = []
    current: object = None
    for line in reversed(tail.splitlines()):
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            if parts:
                break
            continue
        message_id = message.get("id")
        if parts and (current is None or message_id != current):
            break
        texts = _texts(message.get("content"))
        if any(texts):
            parts.append("\n".join(texts))
            current = message_id
        elif parts:
            continue  # a tool call of the same message
    return "\n\n".join(reversed(parts))


def _last_prompt_from_transcript(path: object, notes: list[str]) -> str:
    """The user's last prompt in a Claude Code transcript: the newest user entry that
    holds text (a tool result is also a user entry, but not something the user said)."""
    if not isinstance(path, str) or not path:
        return ""
    for line in reversed(_transcript_tail(path, notes).splitlines()):
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        texts = _texts(message.get("content"))
        if any(t.strip() for t in texts):
            return "\n".join(texts)
    return ""


def _texts(content: object) -> list[str]:
    """The text of a transcript message's ``content``: a string, or its text blocks (a
    tool call or a tool result holds none)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        ]
    return []


def _model_loaded(project: Project) -> bool:
    """True when this process already holds the embedding model (the warm worker).

    Asked of ``sys.modules``, not by importing the registry: that import pulls in numpy,
    a third of a cold lexical Stop hook's time, only to learn that nothing is loaded.
    """
    registry = sys.modules.get("charter.embed.registry")
    if registry is None:
        return False
    embed = project.settings.embed
    key = (embed.provider, embed.model_path, embed.batch_size, embed.max_tokens)
    return key in getattr(registry, "_CACHE", {})


def _reason(result: DriftResult, limit: int, findings: list[Finding] | None = None) -> str:
    findings = result.findings if findings is None else findings
    lines = [
        "Charter drift check: your last message conflicts with bound decisions "
        "(facts the user already settled). Correct it; do not reopen them."
    ]
    for f in findings[:limit]:
        lines.append(f'- {f.rule} [{f.constraint_id}] "{f.evidence}" — {f.repair}')
    more = len(findings) - limit
    if more > 0:
        lines.append(f"- … and {more} more (charter drift check)")
    lines.append(
        "If the user wants to change a decision, they run "
        "`charter decisions renegotiate ID`; until then it stands."
    )
    return "\n".join(lines)


#: What the agent is told when the decisions store fails verification (tampered or
#: unreadable). It never carries the unverified content.
UNVERIFIED = (
    "Charter: the project's decisions store failed its integrity check (it was changed "
    "outside Charter, or cannot be read), so the bound decisions could not be verified "
    "and are not shown. Do not treat any decision as settled or open on your own; tell "
    "the user to run `charter decisions verify`, then `charter decisions restore` to "
    "return to the recorded decisions (or `charter decisions renegotiate ID` to change "
    "one)."
)


def handle_stop(
    project: Project, payload: dict[str, Any], notes: list[str] | None = None
) -> dict[str, Any] | None:
    """The Stop hook's output object, or None when there is nothing to say.

    Fails closed: with ``drift.on_stop = "block"`` a decisions store that fails
    verification blocks the stop (once; ``stop_hook_active`` prevents a loop), because
    the agent's work can no longer be checked against what the user decided.
    """
    notes = notes if notes is not None else []
    settings = project.settings.drift
    mode = settings.on_stop
    if mode == "off":
        return None
    from charter.decisions.service import checker_for, load_decisions, store_for

    try:
        if not store_for(project).exists():
            return None
        decisions = load_decisions(project)
    except CharterError as exc:
        notes.append(f"decisions not verified: {exc}")
        if mode == "block" and not payload.get("stop_hook_active"):
            return {"decision": "block", "reason": f"{UNVERIFIED}\nDetail: {exc}"}
        return {"systemMessage": f"charter: decisions not checked: {exc}"}
    if not decisions.binding_entries():
        return None
    text = payload.get("last_assistant_message")
    if not isinstance(text, str):
        text = _last_message_from_transcript(payload.get("transcript_path"), notes)
    if not text or not text.strip():
        return None
    semantic = settings.semantic and (
        settings.stop_semantic == "on"
        or (settings.stop_semantic == "auto" and _model_loaded(project))
    )
    result = checker_for(project, decisions, semantic=semantic).check(text, "chat")
    if result.verdict == "pass":
        return None
    where = _store_path(project)
    if mode == "block":
        # precision first: interrupt the agent only for findings the calibrated model is
        # sure of; tell the user about the rest without stopping the work
        sure = result.confident(settings.block_confidence)
        asked = _asked_by_user(project, decisions, payload, sure, semantic, notes)
        if asked:
            # the user's own last prompt goes against these decisions ("let's switch to X
            # after all"): the agent did what it was told, so it is not sent back; the
            # user is told how to record the change
            sure = [f for f in sure if f.constraint_id not in asked]
            if not sure:
                return {"systemMessage": _changed_by_user(result, settings, where, asked)}
        if sure and not payload.get("stop_hook_active"):
            reason = _reason(result, settings.max_hook_findings, sure)
            return {"decision": "block", "reason": reason}
        if not sure:
            return {"systemMessage": _possible(result, settings)}
        why = "Claude was already sent back once this turn, so it was not stopped again."
        return {"systemMessage": _warning(result, settings.max_hook_findings, where, why)}
    why = 'Claude has not been told (drift.on_stop = "warn").'
    return {"systemMessage": _warning(result, settings.max_hook_findings, where, why)}


def _asked_by_user(
    project: Project,
    decisions: Any,
    payload: dict[str, Any],
    findings: list[Finding],
    semantic: bool,
    notes: list[str],
) -> set[str]:
    """The ids among ``findings`` that the user's last prompt itself goes against."""
    if not findings:
        return set()
    prompt = _last_prompt_from_transcript(payload.get("transcript_path"), notes)
    if not prompt.strip():
        return set()
    from charter.decisions.service import checker_for

    said = checker_for(project, decisions, semantic=semantic).check(prompt, "chat")
    ids = {f.constraint_id for f in findings}
    # what the user asks for, not a question ("should we use X?") or a doubt ("not sure
    # about Y any more"), which leave the decision standing
    return {
        f.constraint_id
        for f in said.findings
        if f.rule != "QA-PGC-003" and not prompt[f.end :].lstrip(" \"'”’)").startswith("?")
    } & ids


def _changed_by_user(
    result: DriftResult, settings: DriftSettings, where: str, asked: set[str]
) -> str:
    """The user asked for what the reply did, against a decision still bound."""
    ids = sorted(asked)
    decision = ids[0] if len(ids) == 1 else "ID"
    lines = [
        "Charter drift check: Claude's last reply follows your request, which goes against "
        f"decisions still bound in {where} ({', '.join(ids)}), so Claude was not stopped:"
    ]
    shown = [f for f in result.findings if f.constraint_id in asked]
    for f in shown[: settings.max_hook_findings]:
        lines.append(f'- {f.rule} [{f.constraint_id}] the reply: "{f.evidence}"')
    lines.append(
        "If you changed the decision, record it with "
        f"`charter decisions renegotiate {decision}`; until then every reply is checked "
        "against the old one."
    )
    return "\n".join(lines)


def _store_path(project: Project) -> str:
    """Where the bound decisions are recorded, relative to the project when inside it."""
    from charter.decisions.service import store_for

    path = store_for(project).path
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return str(path)


def _warning(result: DriftResult, limit: int, where: str, why: str) -> str:
    """The Stop hook's ``systemMessage`` when the agent is not sent back.

    Claude Code shows a Stop hook's ``systemMessage`` to the user, never to the model
    (only a block's ``reason`` reaches the model), so this speaks to the user: what the
    reply said, which bound decision it conflicts with and where that is recorded, and
    what they can do. :func:`_reason` is the agent's wording, for blocks."""
    findings = result.findings
    lines = [f"Charter drift check: Claude's last reply conflicts with decisions bound in {where}:"]
    for f in findings[:limit]:
        lines.append(f"- it {f.message}")
        lines.append(f'  the reply: "{f.evidence}" ({f.rule})')
    more = len(findings) - limit
    if more > 0:
        lines.append(f"- … and {more} more (`charter drift check` lists them)")
    ids = sorted({f.constraint_id for f in findings})
    decision = ids[0] if len(ids) == 1 else "ID"
    lines.append(
        f"{why} Ask it to correct the reply, or change the decision with "
        f'`charter decisions renegotiate {decision}`; drift.on_stop = "block" has Claude '
        "correct such replies itself."
    )
    return "\n".join(lines)


def _possible(result: DriftResult, settings: DriftSettings) -> str:
    """Findings under ``block_confidence``: shown to the user, the agent not stopped."""
    lines = [
        "Charter drift check: possible conflict with bound decisions (confidence under "
        f"drift.block_confidence = {settings.block_confidence}, so the agent was not stopped):"
    ]
    limit = settings.max_hook_findings
    for f in result.findings[:limit]:
        lines.append(f'- {f.rule} [{f.constraint_id}] "{f.evidence}" ({f.confidence:.2f})')
    more = len(result.findings) - limit
    if more > 0:
        lines.append(f"- … and {more} more (charter drift check)")
    return "\n".join(lines)
