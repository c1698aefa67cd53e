"""The warm worker: one per project, answers hook requests over a Unix socket.

Loading the embedding model and the compiled rules takes about a second; a prompt hook
has a few hundred milliseconds. The worker pays the load once per session and then
answers each prompt in milliseconds. It exits after ``hooks.worker_idle_seconds`` with
no requests, and only one runs per project (an exclusive lock on the socket's lock file).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from charter.paths import worker_socket


def _serve(root: Path) -> int:
    from charter.integrations.claude_code.handlers import HANDLERS, HookState

    sock_path = worker_socket(root)
    sock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = open(sock_path.with_suffix(".lock"), "a+")  # noqa: SIM115 - held for the lifetime
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another worker serves this project
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    state = HookState(root)
    state.retriever()  # warm: model, compiled rules, BM25
    state.project.settings.embed  # noqa: B018
    from charter.embed.registry import embedder_for

    embedder_for(state.project.settings).embed(["warm up"])
    idle = state.project.settings.hooks.worker_idle_seconds
    with contextlib.suppress(FileNotFoundError):
        sock_path.unlink()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(sock_path))
    os.chmod(sock_path, 0o600)
    server.listen(8)
    server.settimeout(min(idle, 60))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # run the cleanup below
    last = time.monotonic()
    try:
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle or not root.is_dir():
                    break  # idle too long, or the project is gone
                continue
            last = time.monotonic()
            with conn:
                conn.settimeout(10)
                reply = _answer(conn, HANDLERS, state)
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps(reply).encode())
    finally:
        with contextlib.suppress(FileNotFoundError):
            sock_path.unlink()
        server.close()
    return 0


def _answer(conn: socket.socket, handlers: dict[str, Any], state: Any) -> dict[str, Any]:
    buffer = b""
    event = ""
    try:
        while not buffer.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            buffer += chunk
        request = json.loads(buffer.decode())
        event = request["event"]
        result: dict[str, Any] = handlers[event](state, request.get("payload") or {})
        return result
    except Exception as exc:
        if event == "pre-tool-use":  # guardrails fail closed
            from charter.session.guardrails import fail_closed_output

            output = fail_closed_output({}, f"worker error: {type(exc).__name__}: {exc}")
            return {"output": output, "notes": [f"guardrails failed closed: {exc}"]}
        return {"output": None, "notes": [f"worker failed open: {type(exc).__name__}: {exc}"]}


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python -m charter.integrations.claude_code.worker ROOT", file=sys.stderr)
        return 2
    return _serve(Path(sys.argv[1]).resolve())


if __name__ == "__main__":
    raise SystemExit(main())
