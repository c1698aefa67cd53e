"""The warm worker: one per project, answers hook requests over a Unix socket.

Loading the embedding model and the compiled rules takes about a second; a prompt hook
has a few hundred milliseconds. The worker pays the load once per session and then
answers each prompt in milliseconds. It exits after ``hooks.worker_idle_seconds`` with
no requests, and only one runs per project (an exclusive lock on the socket's lock file).
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from charter.errors import describe
from charter.integrations.claude_code import channel
from charter.paths import CONFIG_FILE, UnsafeRuntimeDir, runtime_dir, worker_socket

#: How long the worker waits for one whole request from a connected hook.
REQUEST_SECONDS = 5.0
#: A request still running after this long ends the worker (the hook gave up long ago;
#: long enough for a large recompile, whose result is cached for the next worker).
REQUEST_LIMIT = 120.0
#: The same for the warm-up (first compile of a large rule set, model load).
WARMUP_LIMIT = 300.0
#: At most this often, a request first checks that Charter's code on disk is still the
#: code the worker loaded (:func:`code_stamp`).
CODE_CHECK_SECONDS = 1.0


def code_stamp() -> int:
    """The newest modification time of Charter's own Python files.

    The socket's path already changes with Charter's version, so an upgrade never talks to
    an old worker; this catches what keeps the version: an editable install whose code was
    edited, a rebuild of the same version. A worker whose code changed under it would
    otherwise answer with the old code until it idled out."""
    import charter

    newest = 0
    stack = [os.path.dirname(os.path.abspath(charter.__file__))]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in ("__pycache__", "data"):
                            stack.append(entry.path)
                    elif entry.name.endswith(".py"):
                        newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
        except OSError:
            continue
    return newest


def config_stamp(root: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """What the project's settings were read from: ``charter.toml``, or (without one)
    ``pyproject.toml``'s ``[tool.charter]``. A worker keeps the settings it started with,
    so an edit (``drift.on_stop = "block"``, a guardrail switched off) went unseen until it
    idled out; a changed stamp ends it like a change of Charter's code."""
    out: list[tuple[int, int, int] | None] = []
    for name in (CONFIG_FILE, "pyproject.toml"):
        try:
            info = os.stat(root / name)
        except OSError:
            out.append(None)
            continue
        out.append((info.st_mtime_ns, info.st_size, info.st_ino))
        if name == CONFIG_FILE:
            break
    return tuple(out)


class _Watchdog(threading.Thread):
    """Ends the worker when one request runs past its limit or the process
    grows past ``hooks.max_memory_mb``: a hostile file (a YAML bomb in a rule file) must
    not leave a runaway process behind. The next hook starts a fresh worker."""

    def __init__(self, sock_path: Path) -> None:
        super().__init__(name="charter-watchdog", daemon=True)
        self.sock_path = sock_path
        self.inode: int | None = None
        self.busy_since: float | None = None
        self.limit = REQUEST_LIMIT
        self.max_rss = channel.MAX_RSS

    def run(self) -> None:
        while True:
            time.sleep(0.25)
            since = self.busy_since
            if since is None:
                continue
            rss = channel.rss_bytes() or 0
            if time.monotonic() - since > self.limit or rss > self.max_rss:
                if self.inode is not None and _still_ours(self.sock_path, self.inode):
                    with contextlib.suppress(OSError):
                        self.sock_path.unlink()
                    with contextlib.suppress(OSError):
                        channel.token_path(self.sock_path).unlink()
                os._exit(1)


def _serve(root: Path) -> int:
    from charter.integrations.claude_code.handlers import HANDLERS, HookState

    try:
        runtime_dir(create=True)
    except UnsafeRuntimeDir:
        return 0  # hooks compute in-process and say why
    sock_path = worker_socket(root)
    try:
        lock_fd = channel.open_lock(sock_path)  # held for the worker's lifetime
    except OSError:
        return 0  # a planted symlink or foreign file: never write through it
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another worker serves this project
    os.ftruncate(lock_fd, 0)
    os.pwrite(lock_fd, str(os.getpid()).encode(), 0)
    watchdog = _Watchdog(sock_path)
    watchdog.start()
    watchdog.limit = WARMUP_LIMIT  # the warm-up is watched too
    watchdog.busy_since = time.monotonic()
    # the C-level backstop for work stuck in native code, where the watchdog cannot run
    faulthandler.dump_traceback_later(WARMUP_LIMIT + 5, exit=True)
    stamp = code_stamp()  # before the imports below: a change during the warm-up counts
    settings = config_stamp(root)  # before the settings are read, for the same reason
    state = HookState(root)
    watchdog.max_rss = state.project.settings.hooks.max_memory_mb * 2**20
    state.retriever()  # warm: model, compiled rules, BM25
    from charter.embed.registry import embedder_for

    embedder_for(state.project.settings).embed(["warm up"])
    idle = state.project.settings.hooks.worker_idle_seconds
    try:
        runtime_dir()  # still ours after the warm-up
    except UnsafeRuntimeDir:
        return 0
    with contextlib.suppress(FileNotFoundError):
        sock_path.unlink()
    token = channel.write_token(sock_path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)  # the socket is born 0600: no window where others connect
    try:
        server.bind(str(sock_path))
    finally:
        os.umask(old_mask)
    bound = os.lstat(sock_path).st_ino
    watchdog.inode = bound
    watchdog.busy_since = None
    watchdog.limit = REQUEST_LIMIT
    faulthandler.cancel_dump_traceback_later()
    server.listen(8)
    server.settimeout(min(idle, 60))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # run the cleanup below
    last = checked = time.monotonic()
    try:
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle or not root.is_dir():
                    break  # idle too long, or the project is gone
                if not _still_ours(sock_path, bound):
                    break  # someone removed or replaced the socket: stop serving
                continue
            last = time.monotonic()
            with conn:
                try:
                    channel.check_peer(conn)
                except OSError:
                    continue  # another user: not a word back
                if last - checked >= CODE_CHECK_SECONDS:
                    checked = last
                    if code_stamp() != stamp or config_stamp(root) != settings:
                        # Charter's code or the project's settings changed: no answer
                        # from the old ones; the hook computes in-process and starts a
                        # worker that reads them anew
                        break
                watchdog.busy_since = time.monotonic()
                faulthandler.dump_traceback_later(REQUEST_LIMIT + 5, exit=True)
                try:
                    reply = _answer(conn, HANDLERS, state, token)
                finally:
                    faulthandler.cancel_dump_traceback_later()
                    watchdog.busy_since = None
                if reply is None:
                    continue
                if reply.pop("__render__", False):
                    from charter.integrations.claude_code.fastpath import render

                    data = render(reply)
                else:
                    data = json.dumps(reply).encode()
                with contextlib.suppress(OSError):
                    conn.settimeout(REQUEST_SECONDS)
                    conn.sendall(data)
    finally:
        if _still_ours(sock_path, bound):
            with contextlib.suppress(FileNotFoundError):
                sock_path.unlink()
            with contextlib.suppress(FileNotFoundError):
                channel.token_path(sock_path).unlink()
        server.close()
    return 0


def _still_ours(sock_path: Path, inode: int) -> bool:
    try:
        return os.lstat(sock_path).st_ino == inode
    except OSError:
        return False


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once. The fast client splices the hook
    input unparsed into the request: input that was no single JSON value (``{…},
    "event": "stop"``) overrode the request's own event, and a PreToolUse call was
    answered as a Stop (nothing: allowed). Refused, the full client reads the input and
    denies it as unreadable."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key given twice in one object")
    return out


class UnreadableInput(ValueError):
    """The hook's input is JSON but no object: the agent's fault, said as such."""


def _answer(
    conn: socket.socket, handlers: dict[str, Any], state: Any, token: str
) -> dict[str, Any] | None:
    """The reply to one request: None (no reply) when the caller lacks the token; a
    fail-open reply for a request that is too big, too slow, malformed or that fails."""
    try:
        raw = channel.read_line(conn, channel.MAX_REQUEST, time.monotonic() + REQUEST_SECONDS)
        request = json.loads(raw.decode(), object_pairs_hook=_once_each)
        if not isinstance(request, dict):
            raise ValueError("request is not a JSON object")
    except (OSError, ValueError, RecursionError) as exc:
        return {"output": None, "notes": [f"worker refused the request: {exc}"]}
    if not channel.same_token(token, request.get("token")):
        return None
    event = ""
    render = request.get("render") is True
    try:
        event = request["event"]
        payload = request.get("payload") or {}
        if not isinstance(payload, dict):
            raise UnreadableInput("hook input is not a JSON object")
        dropped = channel.drop_mistyped_text(event, payload)
        result: dict[str, Any] = handlers[event](state, payload)
        if dropped:
            result["notes"] = [*dropped, *(result.get("notes") or [])]
        if render:
            result["__render__"] = True
        return result
    except UnreadableInput as exc:  # the agent's input, not the worker, is at fault
        # said as the in-process hook says it: "worker error: ValueError" blamed Charter
        goes_on = "continuing without Charter context"
        output = None
        if event == "pre-tool-use":  # guardrails fail closed
            from charter.session.guardrails import fail_closed_output

            output = fail_closed_output({}, f"unreadable hook input: {exc}")
            goes_on = "the tool call is denied (guardrails fail closed)"
        reply: dict[str, Any] = {
            "output": output,
            "notes": [f"hook {event}: unreadable input ({exc}); {goes_on}"],
        }
    except Exception as exc:
        if event == "pre-tool-use":  # guardrails fail closed
            from charter.session.guardrails import fail_closed_output

            output = fail_closed_output({}, f"worker error: {describe(exc)}")
            reply = {
                "output": output,
                "notes": [f"guardrails failed closed: {exc}"],
            }
        else:
            reply = {"output": None, "notes": [f"worker failed open: {describe(exc)}"]}
    if render:
        reply["__render__"] = True
    return reply


def _isolate_sys_path(root: Path) -> None:
    """Drop the project (and the cwd) from ``sys.path``: a repository file named like a
    module (``tomllib.py``) must never run inside the worker."""
    cwd = os.getcwd()

    def inside(entry: str) -> bool:
        if entry in ("", "."):
            return True
        try:
            resolved = Path(entry).resolve()
        except OSError:
            return False
        return resolved == Path(cwd).resolve() or resolved == root

    sys.path[:] = [entry for entry in sys.path if not inside(entry)]


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python -m charter.integrations.claude_code.worker ROOT", file=sys.stderr)
        return 2
    root = Path(sys.argv[1]).resolve()
    _isolate_sys_path(root)
    return _serve(root)


if __name__ == "__main__":
    raise SystemExit(main())
