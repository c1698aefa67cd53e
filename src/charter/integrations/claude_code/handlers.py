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
    from charter.session.recovery import Recovered

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
    """The "Bound decisions" section of session start's context ("" when none).

    Fails closed: when the decisions store fails verification (tampered, unreadable) the
    agent is told so in its context, not only the user on stderr, and the unverified
    content is never shown.
    """
    try:
        from charter.decisions.hooks import UNVERIFIED, pinned_invariants_text
    except ImportError:
        return ""
    try:
        text = pinned_invariants_text(project)
    except Exception as exc:  # decisions problems must not hide the constitution
        notes.append(f"invariants not pinned: {exc}")
        return "# Bound decisions: NOT VERIFIED\n" + UNVERIFIED
    if not text:
        return ""
    return "# Bound decisions (do not reopen or contradict)\n" + text


def session_start(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    text, notes = session_start_text(state, payload)
    return {"output": _context("SessionStart", text), "notes": notes}


def session_start_text(state: HookState, payload: dict[str, Any]) -> tuple[str, list[str]]:
    """What SessionStart gives the agent: the recovered session state joined with the
    constitution and the bound invariants (``charter session recover`` prints the same)."""
    notes: list[str] = []
    pinned = pinned_parts(state, payload, notes)
    try:
        recovered = session_recovery(state, payload, pinned)
        return recovered.text, notes + recovered.notes
    except Exception as exc:  # session state must not hide the constitution
        notes.append(f"session state not recovered: {type(exc).__name__}: {exc}")
        return "\n\n".join(f"{h}\n{t}" for h, t in pinned), notes


def pinned_parts(
    state: HookState, payload: dict[str, Any], notes: list[str]
) -> list[tuple[str, str]]:
    """(heading, text) of what session start always pins: constitution, invariants."""
    retriever = state.retriever(check_new=True)
    pinned: list[tuple[str, str]] = []
    source = payload.get("source", "startup")
    if retriever.constitution_text:
        pinned.append(
            (
                "# Project constitution (Charter; always applies"
                + (", re-pinned after compaction" if source == "compact" else "")
                + f"; hash {retriever.compiled.constitution.hash})",
                retriever.constitution_text,
            )
        )
    invariants = _invariants(state.project, notes)
    if invariants:
        heading, _, body = invariants.partition("\n")
        pinned.append((heading, body))
    return pinned


def session_recovery(
    state: HookState, payload: dict[str, Any], pinned: list[tuple[str, str]]
) -> Recovered:
    from charter.session.recovery import recover
    from charter.session.service import Session

    session = Session(state.project)
    try:
        return recover(session, str(payload.get("session_id") or ""), pinned=pinned)
    finally:
        session.close()


#: Rules are chosen from at most this much of a prompt: the task is stated at its start,
#: and a pasted multi-megabyte log must not hold the hook past its deadline.
MAX_PROMPT_CHARS = 20_000


def user_prompt_submit(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    prompt = str(payload.get("prompt") or "")
    if not prompt.strip():
        return {"output": None, "notes": []}
    notes = _session_call("capture_prompt", state, payload)
    if len(prompt) > MAX_PROMPT_CHARS:
        notes.append(
            f"prompt of {len(prompt)} characters: rules chosen from its first {MAX_PROMPT_CHARS}"
        )
        prompt = prompt[:MAX_PROMPT_CHARS]
    retriever = state.retriever()
    result = retriever.retrieve(prompt, files_in_prompt(prompt, state.root))
    if not result.shards:
        return {"output": None, "notes": notes}
    lines = [retriever.lines[s.rule.id] for s in result.shards]
    text = f"# Project rules for this request (Charter; intent {result.intent.name})\n" + "\n".join(
        lines
    )
    return {"output": _context("UserPromptSubmit", text), "notes": notes}


def stop(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    try:
        from charter.decisions.hooks import handle_stop
    except ImportError:
        return {"output": None, "notes": []}
    notes: list[str] = []
    return {"output": handle_stop(state.project, payload, notes), "notes": notes}


def _session_call(name: str, state: HookState, payload: dict[str, Any], **kwargs: Any) -> list[str]:
    """Run a session capture hook; failures become notes (context hooks fail open)."""
    try:
        from charter.session import hooks as session_hooks

        result: list[str] = getattr(session_hooks, name)(state.project, payload, **kwargs)
        return result
    except Exception as exc:
        return [f"session {name.replace('_', ' ')} skipped: {type(exc).__name__}: {exc}"]


def post_tool_use(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    return {"output": None, "notes": _session_call("capture_tool", state, payload, failed=False)}


def post_tool_use_failure(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    return {"output": None, "notes": _session_call("capture_tool", state, payload, failed=True)}


def pre_compact(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    return {"output": None, "notes": _session_call("pre_compact", state, payload)}


def session_end(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    notes = _session_call("pre_compact", state, {**payload, "trigger": "session-end"})
    return {"output": None, "notes": notes}


def pre_tool_use(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
    """Guardrails: fail closed (an error denies the call with the reason)."""
    from charter.session.guardrails import pre_tool_use_output

    return {"output": pre_tool_use_output(state.project, payload), "notes": []}


HANDLERS = {
    "session-start": session_start,
    "user-prompt-submit": user_prompt_submit,
    "stop": stop,
    "pre-tool-use": pre_tool_use,
    "post-tool-use": post_tool_use,
    "post-tool-use-failure": post_tool_use_failure,
    "pre-compact": pre_compact,
    "session-end": session_end,
}


#: Starts the worker without the project on ``sys.path``: ``-I`` (isolated mode) ignores
#: ``PYTHONPATH`` and never adds the cwd; Charter's own import root is appended (not
#: prepended, so it shadows nothing) for installs only reachable through ``PYTHONPATH``.
_WORKER_BOOT = (
    "import sys; p = sys.argv.pop(1); p and (p in sys.path or sys.path.append(p)); "
    "from charter.integrations.claude_code.worker import main; raise SystemExit(main())"
)


def worker_command(root: Path) -> list[str]:
    """The command line that starts ``root``'s warm worker."""
    import charter

    code_root = Path(charter.__file__).resolve().parent.parent
    extra = "" if code_root == root.resolve() else str(code_root)
    return [sys.executable, "-I", "-c", _WORKER_BOOT, extra, str(root)]


def spawn_worker(root: Path) -> None:
    """Start the project's warm worker in the background (no-op if one is running).

    Raises :class:`charter.paths.UnsafeRuntimeDir` (an ``OSError``) when the runtime
    directory is not this user's private directory: then no worker is started at all.
    """
    from charter.paths import runtime_dir

    runtime_dir(create=True)
    subprocess.Popen(
        worker_command(root),
        cwd=str(root),
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
