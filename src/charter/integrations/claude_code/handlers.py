"""What each Claude Code hook event answers; shared by the in-process path and the worker.

The answers come from the capabilities, through the seam (:mod:`charter.plugins`): this
module only dispatches. Per event it runs the capture handlers (record, answer nothing),
then at SessionStart joins what capabilities pin (constitution, bound invariants) with the
recovered session state, for other events joins the context handlers' text, and finally
lets decision handlers answer with their own JSON (a Stop block, a PreToolUse deny).
Context hooks fail open: a failing handler becomes a note. Guardrail events fail closed:
their handlers' errors propagate to the caller, which denies.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.config import Project
from charter.errors import describe
from charter.integrations.claude_code.fastpath import EVENTS

if TYPE_CHECKING:
    from charter.rules.retrieve import Retriever
    from charter.session.recovery import Recovered

#: Claude Code's event names, by Charter's CLI names.
EVENT_NAMES = EVENTS


class HookState:
    """A project and the warm objects handlers keep in ``cache`` between events."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = Project.load(root)
        self.cache: dict[str, Any] = {}

    def retriever(self, *, check_new: bool = False) -> Retriever:
        """The rules engine's warm retriever (the worker loads it at start)."""
        from charter.rules.hooks import retriever_for

        return retriever_for(self, check_new=check_new)


#: what Claude Code shows of one hook's context (more is saved to a file, with a preview)
CONTEXT_LIMIT = 10_000


def _context(event_name: str, text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}


def _failed(where: str, exc: Exception) -> str:
    return f"{where} skipped: {describe(exc)}"


def pinned_parts(
    state: HookState, payload: dict[str, Any], notes: list[str]
) -> list[tuple[str, str]]:
    """(heading, text) of what session start always pins, in the capabilities' order."""
    from charter.plugins import hook_set

    parts: list[tuple[str, str]] = []
    for _, fn in sorted(hook_set().pinned, key=lambda item: item[0]):
        try:
            parts.extend(fn(state, payload, notes))
        except Exception as exc:  # one capability's problem must not hide the others
            notes.append(_failed("session start part", exc))
    return parts


def session_recovery(
    state: HookState, payload: dict[str, Any], *, create: bool = True
) -> tuple[Recovered, list[str]]:
    """The recovered session state as SessionStart gives it (``charter session recover``,
    which reads only: ``create=False`` leaves a project without tracks without one)."""
    from charter.session.hooks import recovery

    notes: list[str] = []
    pinned = pinned_parts(state, payload, notes)
    recovered = recovery(state.project, payload, pinned, create=create)
    return recovered, notes


def _compose_start(
    state: HookState, payload: dict[str, Any], pinned: list[tuple[str, str]], notes: list[str]
) -> str:
    from charter.plugins import hook_set

    for compose in hook_set().compose:
        try:
            text, more = compose(state, payload, pinned)
            notes.extend(more)
            return str(text)
        except Exception as exc:  # the pinned parts still reach the agent
            notes.append(_failed("session state", exc))
    from charter.session.recovery import bounded_parts

    return bounded_parts(pinned)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _session_start_text(state: HookState, payload: dict[str, Any], notes: list[str]) -> str:
    """SessionStart's context. On ``resume`` Claude Code replays the conversation, the
    context given at its start included: what is unchanged since is not given again
    (nothing at all when the whole answer is the same; else the refreshed session state
    without the pinned parts, such as the constitution, that the conversation holds)."""
    from charter.rules.injected import take

    pinned = pinned_parts(state, payload, notes)
    text = _compose_start(state, payload, pinned, notes)
    session = str(payload.get("session_id") or "")
    if not session or not text:
        return text
    whole = f"session-start:{_digest(text)}"
    parts = {f"pinned:{_digest(body)}": (heading, body) for heading, body in pinned}
    try:
        given = set(take(state.project.state_dir, session, [whole, *parts]).fresh)
    except Exception as exc:  # a context hook fails open: give everything
        notes.append(_failed("injected-once store", exc))
        return text
    if payload.get("source") != "resume":
        return text
    if whole not in given:
        notes.append("resumed: the session state and pinned parts are already in the conversation")
        return ""
    fresh = [part for key, part in parts.items() if key in given]
    if len(fresh) < len(parts):
        text = _compose_start(state, payload, fresh, notes)
    return text


def dispatch(state: HookState, event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One hook event's answer: ``{"output": hook JSON or None, "notes": [...]}``."""
    from charter.plugins import hook_set

    hooks = hook_set()
    notes: list[str] = []
    for capture in hooks.capture.get(event, []):
        try:
            notes.extend(capture(state, payload))
        except Exception as exc:
            notes.append(_failed(f"{event} capture", exc))
    output: dict[str, Any] | None = None
    if event == "session-start":
        output = _context("SessionStart", _session_start_text(state, payload, notes))
    else:
        parts: list[str] = []
        for context in hooks.context.get(event, []):
            try:
                text = context(state, payload, notes)
            except Exception as exc:
                notes.append(_failed(f"{event} context", exc))
                continue
            if not text:
                continue
            if sum(len(p) + 2 for p in parts) + len(text) > CONTEXT_LIMIT - 50:
                # each handler keeps itself under the limit; together they may not
                notes.append(f"{event} context part left out: over Claude Code's limit")
                continue
            parts.append(text)
        output = _context(EVENT_NAMES[event], "\n\n".join(parts))
    for decide in hooks.decide.get(event, []):
        if event in hooks.fail_closed:
            answer = decide(state, payload, notes)  # errors propagate: the caller denies
        else:
            try:
                answer = decide(state, payload, notes)
            except Exception as exc:
                notes.append(_failed(f"{event} check", exc))
                continue
        if answer:
            output = _with_context(answer, output)
            break
    return {"output": output, "notes": notes}


def _with_context(answer: dict[str, Any], context: dict[str, Any] | None) -> dict[str, Any]:
    """A decision (a PreToolUse deny or ask) keeps the context gathered for the same
    event: rules recorded as given must reach the model, or they would be marked in the
    conversation without ever being in it."""
    if context is None:
        return answer
    given = context.get("hookSpecificOutput", {})
    decided = answer.get("hookSpecificOutput")
    text = given.get("additionalContext")
    if not text or not isinstance(decided, dict):
        return answer
    if decided.get("hookEventName") != given.get("hookEventName"):
        return answer
    if decided.get("additionalContext"):
        text = f"{decided['additionalContext']}\n\n{text}"
    return {**answer, "hookSpecificOutput": {**decided, "additionalContext": text}}


def _handler(event: str) -> Any:
    def run(state: HookState, payload: dict[str, Any]) -> dict[str, Any]:
        reply = dispatch(state, event, payload)
        if reply["output"] is None:
            return reply
        # every answer's text passes the secret scanner before it reaches the agent
        from charter.secretscan.apply import project_scanner, scrub_hook_reply

        return scrub_hook_reply(reply, project_scanner(state.project))

    return run


HANDLERS = {event: _handler(event) for event in EVENT_NAMES}


#: Imports Charter from the import root given as the first argument: ``-I`` (isolated
#: mode) ignores ``PYTHONPATH`` and never adds the cwd, so a root reachable only through
#: ``PYTHONPATH`` is put first while ``charter`` is imported (else a Charter installed in
#: the interpreter was imported instead, and the worker served that other code: it
#: handed nothing over once the other one had compiled a state of its own version), then
#: moved last, so it shadows nothing else.
_IMPORT_CHARTER = (
    "import sys; p = sys.argv.pop(1); q = bool(p) and p not in sys.path; "
    "q and sys.path.insert(0, p); import charter; "
    "q and (sys.path.remove(p), sys.path.append(p)); "
)
#: Starts the worker without the project on ``sys.path``.
_WORKER_BOOT = (
    _IMPORT_CHARTER
    + "from charter.integrations.claude_code.worker import main; raise SystemExit(main())"
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
