"""``charter hook EVENT``: Claude Code hook JSON in on stdin, hook JSON out on stdout.

This path runs on every prompt, so it imports only the standard library until it knows
it must do the work itself: it first asks the project's warm worker (started at session
start) over a Unix socket, and computes in-process only when no worker answers. Context
hooks fail open: any error means exit 0, nothing on stdout, one note on stderr.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from charter.paths import find_root, worker_socket

EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "stop": "Stop",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "post-tool-use-failure": "PostToolUseFailure",
    "pre-compact": "PreCompact",
    "session-end": "SessionEnd",
}
#: Events answered by the warm worker when one is up (the others need full discovery).
WORKER_EVENTS = {
    "user-prompt-submit",
    "stop",
    "pre-tool-use",
    "post-tool-use",
    "post-tool-use-failure",
    "pre-compact",
    "session-end",
}
CLIENT_TIMEOUT = 8.0
#: In-process answers give up after this long (the installer sets Claude Code's hook
#: timeout to 30 s), so a hook always answers in time even on a first, large compile.
HOOK_DEADLINE = float(os.environ.get("CHARTER_HOOK_DEADLINE", "20"))


def _note(message: str) -> None:
    print(f"charter: {message}", file=sys.stderr)


def _fail_closed(event: str, payload: object, reason: str) -> None:
    """Guardrails fail closed: when ``pre-tool-use`` cannot be answered, deny writes."""
    if event != "pre-tool-use":
        return
    data = payload if isinstance(payload, dict) else {}
    output: dict[str, Any] | None
    try:
        from charter.session.guardrails import fail_closed_output

        output = fail_closed_output(data, reason)
    except Exception:
        output = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": f"Charter guardrails failed closed ({reason})",
            }
        }
    if output:
        sys.stdout.write(json.dumps(output) + "\n")


def project_root(payload: dict[str, Any]) -> Path:
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    base = Path(env) if env else Path(payload.get("cwd") or os.getcwd())
    return find_root(base)


def ask_worker(root: Path, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The worker's answer, or None when no worker is listening (or it is too slow)."""
    path = worker_socket(root)
    if not path.exists():
        return None
    request = json.dumps({"event": event, "payload": payload}).encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CLIENT_TIMEOUT)
            sock.connect(str(path))
            sock.sendall(request)
            chunks = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        reply: dict[str, Any] = json.loads(b"".join(chunks).decode())
        return reply
    except (OSError, ValueError):
        return None


def _handle_in_process(root: Path, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Run the handler with a deadline below Claude Code's hook timeout; None if it ran out."""
    import threading

    box: dict[str, Any] = {}

    def work() -> None:
        from charter.integrations.claude_code.handlers import handle

        try:
            box["reply"] = handle(root, event, payload, start_worker=True)
        except Exception as exc:  # reported by the caller, which fails open
            box["error"] = exc

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(HOOK_DEADLINE)
    if thread.is_alive():
        try:  # best effort: without a worker the next prompt falls back again
            from charter.config import Project
            from charter.integrations.claude_code.handlers import spawn_worker

            if Project.load(root).settings.hooks.warm_worker:
                spawn_worker(root)
        except Exception:
            pass
        return None
    if "error" in box:
        raise box["error"]
    reply: dict[str, Any] = box["reply"]
    return reply


def hook_main(argv: list[str]) -> int:
    if not argv or argv[0] not in EVENTS:
        _note(f"usage: charter hook {{{'|'.join(EVENTS)}}}")
        return 2 if not argv else 0
    event = argv[0]
    try:
        raw = sys.stdin.read()
        payload = json.loads(raw) if raw.strip() else {}
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
    except (ValueError, OSError) as exc:
        _note(f"hook {event}: unreadable input ({exc}); continuing without Charter context")
        _fail_closed(event, {}, f"unreadable hook input: {exc}")
        return 0
    try:
        root = project_root(payload)
        reply = ask_worker(root, event, payload) if event in WORKER_EVENTS else None
        if reply is None:
            reply = _handle_in_process(root, event, payload)
            if reply is None:
                _note(
                    f"hook {event}: no answer within {HOOK_DEADLINE:.0f}s (first compile of a "
                    "large rule set?); continuing without Charter context, the warm worker "
                    "finishes the work for the next prompt"
                )
                _fail_closed(event, payload, f"no answer within {HOOK_DEADLINE:.0f}s")
                sys.stdout.flush()
                os._exit(0)  # the unfinished work thread must not hold the agent up
        for note in reply.get("notes", []):
            _note(note)
        output = reply.get("output")
        if output:
            sys.stdout.write(json.dumps(output) + "\n")
        return 0
    except Exception as exc:  # fail open: never break the agent
        how = "closed" if event == "pre-tool-use" else "open"
        _note(f"hook {event} failed {how}: {type(exc).__name__}: {exc}")
        _fail_closed(event, payload, f"{type(exc).__name__}: {exc}")
        return 0
