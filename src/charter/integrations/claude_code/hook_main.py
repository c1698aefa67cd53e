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
import time
from pathlib import Path
from typing import Any

from charter.errors import describe
from charter.integrations.claude_code import channel, fastpath
from charter.paths import find_project, named_root, runtime_base, runtime_dir, worker_socket

#: Claude Code's event names by Charter's CLI names, and the ones the warm worker answers.
EVENTS = fastpath.EVENTS
WORKER_EVENTS = fastpath.FAST_EVENTS
CLIENT_TIMEOUT = 8.0
#: A hook answers within this long, worker or not (the installer sets Claude Code's hook
#: timeout to 30 s), so it always answers in time even on a first, large compile.
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


def _goes_on(event: str) -> str:
    """What happens next, for the note: the guardrail denies, context hooks go on."""
    if event == "pre-tool-use":
        return "the tool call is denied (guardrails fail closed)"
    return "continuing without Charter context"


class NoProject(ValueError):
    """The hook runs in no project: nothing to answer (said in one note)."""


def project_root(payload: dict[str, Any]) -> Path:
    """``$CLAUDE_PROJECT_DIR``, else the project around the payload's ``cwd``, else the one
    around the hook's own working directory. A directory in no project (no charter.toml,
    [tool.charter] pyproject or .git above it: /tmp, $HOME) is never taken as one: that
    would compile every rule file under it and write Charter's state there."""
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    if env:
        named = named_root(env)
        if named is not None:
            return named
        # $HOME, /tmp or / named by an agent started there: no project of its own, so
        # only the project around cwd counts (as without the variable)
    cwd = payload.get("cwd")
    for base in (cwd if isinstance(cwd, str) and cwd else None, os.getcwd()):
        found = find_project(Path(base)) if base else None
        if found is not None:
            return found
    raise NoProject(
        f"no project at or above {cwd if isinstance(cwd, str) and cwd else os.getcwd()} "
        "(no charter.toml, [tool.charter] pyproject or .git; or set CLAUDE_PROJECT_DIR)"
    )


def ask_worker(
    root: Path, event: str, payload: dict[str, Any], timeout: float = CLIENT_TIMEOUT
) -> dict[str, Any] | None:
    """The worker's answer, or None when no trustworthy worker answers in ``timeout``.

    The runtime directory, the socket file and the worker's uid are checked before the
    payload (the user's prompt) is sent; a worker that fails a check is reported on
    stderr and not used.
    """
    if not os.path.lexists(runtime_base()):
        return None  # no worker was ever started for this user
    path = worker_socket(root)
    try:
        runtime_dir()
        if not os.path.lexists(path):
            return None
        channel.check_socket_file(path)
        token = channel.read_token(path)
    except FileNotFoundError:
        return None  # the worker is starting or just left
    except OSError as exc:  # UnsafeRuntimeDir, a foreign socket or token file
        _note(f"{exc}; computing in-process")
        return None
    request = json.dumps({"event": event, "payload": payload, "token": token}).encode() + b"\n"
    deadline = time.monotonic() + timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            channel.check_peer(sock)
            sock.sendall(request)
            raw = channel.read_line(sock, channel.MAX_REPLY, deadline)
        reply = json.loads(raw.decode())
    except channel.ChannelError as exc:
        _note(f"warm worker not used: {exc}")
        return None
    except (OSError, ValueError, RecursionError):
        return None
    return reply if isinstance(reply, dict) else None


def _handle_in_process(
    root: Path, event: str, payload: dict[str, Any], timeout: float = HOOK_DEADLINE
) -> dict[str, Any] | None:
    """Run the handler with a deadline below Claude Code's hook timeout; None if it ran out."""
    import threading

    box: dict[str, Any] = {}

    def work() -> None:
        from charter.integrations.claude_code.handlers import HookState, handle

        try:
            state = HookState(root)
            box["max_rss"] = state.project.settings.hooks.max_memory_mb * 2**20
            box["reply"] = handle(root, event, payload, state=state, start_worker=True)
        except Exception as exc:  # reported by the caller, which fails open
            box["error"] = exc

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    end = time.monotonic() + max(timeout, 0.0)
    while thread.is_alive() and time.monotonic() < end:
        thread.join(min(0.1, max(end - time.monotonic(), 0.0)))
        limit = int(box.get("max_rss", channel.MAX_RSS))
        if (channel.rss_bytes() or 0) > limit:
            _note(
                f"hook {event}: stopped at {limit // 2**20} MiB of memory (a huge or hostile "
                "input?); raise hooks.max_memory_mb if this is expected"
            )
            break
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


#: How long a hook waits for its whole stdin (Claude Code writes it at once and closes).
STDIN_SECONDS = 5.0
#: Past the deadline by this much, a hook stuck in native code (which no Python-level
#: timer can interrupt) is ended by faulthandler's C watchdog: exit 1, never a hang past
#: Claude Code's own timeout.
BACKSTOP_GRACE = 3.0


def _read_input(seconds: float = STDIN_SECONDS, preread: bytes | None = None) -> bytes:
    """Hook stdin: at most :data:`channel.MAX_HOOK_INPUT` bytes, within ``seconds``
    (ValueError beyond either: a stream that never ends must not hold the hook).
    ``preread`` is what the fast path already read; the rest follows it."""
    import select

    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # no real stdin (embedded callers)
        return sys.stdin.read(channel.MAX_HOOK_INPUT + 1).encode()[: channel.MAX_HOOK_INPUT]
    limit = channel.MAX_HOOK_INPUT
    end = time.monotonic() + seconds
    chunks: list[bytes] = [preread] if preread else []
    size = len(preread or b"")
    if size > limit:
        raise ValueError(f"over {limit // (1024 * 1024)} MiB, not read")
    while True:
        left = end - time.monotonic()
        if left <= 0:
            raise ValueError(f"stdin not closed within {STDIN_SECONDS:.0f}s, not read")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ValueError(f"over {limit // (1024 * 1024)} MiB, not read")


def _untrusted_sys_path() -> None:
    """Drop the current directory from ``sys.path`` (``python -m charter`` puts it first):
    a project file named like a module must never be imported by a hook."""
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd)]


def _event_from_input(
    argv: list[str], preread: bytes | None, stdin_seconds: float
) -> tuple[str, bytes]:
    """The event an unknown name stands for, read from the input's ``hook_event_name``
    (Claude Code sends it with every hook), and the input read for it. A misspelt event
    in a settings file must not exit quietly: Claude Code reads that as "allow"."""
    usage = f"usage: charter hook {{{'|'.join(EVENTS)}}}"
    if not argv:
        raise ValueError(usage)
    try:
        raw = _read_input(max(stdin_seconds, 0.0), preread=preread)
        payload = json.loads(raw.decode("utf-8", errors="replace")) if raw.strip() else {}
    except (ValueError, OSError, RecursionError):
        payload = {}
    named = payload.get("hook_event_name") if isinstance(payload, dict) else None
    event = fastpath.canonical_event(named) if isinstance(named, str) else None
    if event is None:
        raise ValueError(f"unknown hook event {argv[0]!r}; {usage}")
    _note(f"unknown hook event {argv[0]!r}: answered as {EVENTS[event]}, which its input names")
    return event, raw


def hook_main(
    argv: list[str], preread: bytes | None = None, stdin_seconds: float = STDIN_SECONDS
) -> int:
    started = time.monotonic()
    event = fastpath.canonical_event(argv[0]) if argv else None
    if event is None:
        try:
            event, preread = _event_from_input(argv, preread, stdin_seconds)
        except ValueError as exc:
            _note(str(exc))
            return 2
    import faulthandler

    devnull = open(os.devnull, "w")  # noqa: SIM115 - must outlive the watchdog
    faulthandler.dump_traceback_later(HOOK_DEADLINE + BACKSTOP_GRACE, exit=True, file=devnull)
    try:
        return _run(event, started, preread, stdin_seconds)
    finally:
        faulthandler.cancel_dump_traceback_later()
        devnull.close()


def _run(
    event: str, started: float, preread: bytes | None = None, stdin_seconds: float = STDIN_SECONDS
) -> int:
    _untrusted_sys_path()
    try:
        raw = _read_input(max(stdin_seconds, 0.0), preread=preread)
        payload = json.loads(raw.decode("utf-8", errors="replace")) if raw.strip() else {}
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        for note in channel.drop_mistyped_text(event, payload):
            _note(note)
    except RecursionError:
        _note(f"hook {event}: unreadable input (JSON nested too deeply); {_goes_on(event)}")
        _fail_closed(event, {}, "unreadable hook input: JSON nested too deeply")
        return 0
    except (ValueError, OSError) as exc:
        _note(f"hook {event}: unreadable input ({exc}); {_goes_on(event)}")
        _fail_closed(event, {}, f"unreadable hook input: {exc}")
        return 0
    try:
        try:
            root = project_root(payload)
        except NoProject as exc:
            _note(f"hook {event}: {exc}; nothing to do")
            return 0
        reply = None
        if event in WORKER_EVENTS:
            left = HOOK_DEADLINE - (time.monotonic() - started)
            reply = ask_worker(root, event, payload, min(CLIENT_TIMEOUT, max(left / 2, 0.1)))
        if reply is None:
            reply = _handle_in_process(
                root, event, payload, HOOK_DEADLINE - (time.monotonic() - started)
            )
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
        _note(f"hook {event} failed {how}: {describe(exc)}")
        _fail_closed(event, payload, describe(exc))
        return 0
