"""What each Claude Code hook event answers; shared by the in-process path and the worker.

SessionStart (every ``source``, including ``compact``) pins the constitution and the
bound invariants, so they survive compaction. UserPromptSubmit injects the rules for the
prompt. Stop hands the agent's last message to the drift checker. Rule files that
changed since the last compile are recompiled before answering.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.config import Project

if TYPE_CHECKING:  # the stop hook never needs the rules engine: keep its import cheap
    from charter.rules.retrieve import Retriever

_PATHISH = re.compile(r"(?<![\w@])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,8})\b")


class HookState:
    """A project and its retriever, kept warm by the worker between prompts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = Project.load(root)
        self._retriever: Retriever | None = None

    def retriever(self, *, check_new: bool = False) -> Retriever:
        from charter.embed.registry import embedder_for
        from charter.rules.compiler import is_stale, load_or_compile
        from charter.rules.retrieve import Retriever

        if self._retriever is None or check_new or is_stale(self.project):
            self.project = Project.load(self.root)
            compiled = load_or_compile(self.project, check_new=check_new)
            self._retriever = Retriever(
                compiled, self.project.settings.rules, embedder_for(self.project.settings)
            )
        return self._retriever


def _context(event_name: str, text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}


def files_in_prompt(prompt: str, root: Path) -> list[str]:
    """Paths the prompt names that exist in the project (for repo-scoped rules)."""
    found = []
    for match in _PATHISH.finditer(prompt):
        candidate = match.group(1).lstrip("./")
        if candidate and (root / candidate).exists():
            found.append(candidate)
    return sorted(set(found))


def _invariants(project: Project, notes: list[str]) -> str:
    try:
        from charter.decisions.hooks import pinned_invariants_text
    except ImportError:
        return ""
    try:
        return pinned_invariants_text(project)
    except Exception as exc:  # decisions problems must not hide the constitution
        notes.append(f"invariants not pinned: {exc}")
        return ""


def session_start(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    notes: list[str] = []
    retriever = state.retriever(check_new=True)
    parts = []
    source = payload.get("source", "startup")
    if retriever.constitution_text:
        parts.append(
            "# Project constitution (Charter; always applies"
            + (", re-pinned after compaction" if source == "compact" else "")
            + f"; hash {retriever.compiled.constitution.hash})\n"
            + retriever.constitution_text
        )
    invariants = _invariants(state.project, notes)
    if invariants:
        parts.append("# Bound decisions (do not reopen or contradict)\n" + invariants)
    return {"output": _context("SessionStart", "\n\n".join(parts)), "notes": notes}


def user_prompt_submit(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    prompt = str(payload.get("prompt") or "")
    if not prompt.strip():
        return {"output": None, "notes": []}
    retriever = state.retriever()
    result = retriever.retrieve(prompt, files_in_prompt(prompt, state.root))
    if not result.shards:
        return {"output": None, "notes": []}
    lines = [retriever.lines[s.rule.id] for s in result.shards]
    text = f"# Project rules for this request (Charter; intent {result.intent.name})\n" + "\n".join(
        lines
    )
    return {"output": _context("UserPromptSubmit", text), "notes": []}


def stop(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    try:
        from charter.decisions.hooks import handle_stop
    except ImportError:
        return {"output": None, "notes": []}
    return {"output": handle_stop(state.project, payload), "notes": []}


def _redacted(handler: Any) -> Any:
    """Every reply's text passes the secret scanner before it reaches the agent."""

    def run(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
        from charter.secretscan.apply import project_scanner, scrub_hook_reply

        reply: dict[str, Any] = handler(state, payload)
        return scrub_hook_reply(reply, project_scanner(state.project))

    run.__name__ = handler.__name__
    return run


HANDLERS = {
    "session-start": _redacted(session_start),
    "user-prompt-submit": _redacted(user_prompt_submit),
    "stop": _redacted(stop),
}


def spawn_worker(root: Path) -> None:
    """Start the project's warm worker in the background (no-op if one is running)."""
    subprocess.Popen(
        [sys.executable, "-m", "charter.integrations.claude_code.worker", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def handle(
    root: Path,
    event: str,
    payload: dict[str, Any],
    *,
    state: HookState | None = None,
    start_worker: bool = False,
) -> dict[str, Any]:
    state = state or HookState(root)
    reply = HANDLERS[event](state, payload)
    if start_worker and state.project.settings.hooks.warm_worker:
        try:
            spawn_worker(root)
        except OSError as exc:
            reply.setdefault("notes", []).append(f"warm worker not started: {exc}")
    return reply
