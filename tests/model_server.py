"""The recording HTTP server the scripted model stand-ins share, and a CLI run's outcome.

Why: the Claude Code (Messages API), Codex (Responses API) and Gemini CLI (Gemini API)
end-to-end tests each run the real CLI against a loopback server that records every
request body and answers from scripts. Serving, recording, ids and the wire helpers
(JSON and SSE replies) are the same for all three; only the reply shapes differ, and
those stay in each API's subclass (``tests/claude_e2e.py``, ``tests/agent_e2e.py``),
which implements :meth:`RecordingServer.answer`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar


class Recorded(Protocol):
    """What a server records per request: it can say whether it is a main turn."""

    @property
    def is_main(self) -> bool: ...


R = TypeVar("R", bound=Recorded)


@dataclass
class RecordedRequest:
    """One request a CLI sent: its path and decoded JSON body. Each API's subclass says
    what a main turn is and how to read its texts."""

    path: str
    body: dict[str, Any]


class RecordingHandler(BaseHTTPRequestHandler):
    """Reads and records each POST, then lets the server answer it."""

    protocol_version = "HTTP/1.1"
    recorder: ClassVar[RecordingServer[Any]]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self.send(404, "application/json", self.recorder.not_found)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        request = self.recorder.record(self.path, body if isinstance(body, dict) else {})
        self.recorder.answer(self, self.path.split("?", 1)[0], request, raw)

    def send(
        self, status: int, kind: str, data: bytes | str, headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        raw = data.encode() if isinstance(data, str) else data
        self.send_response(status)
        self.send_header("Content-Type", kind)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def sse(
        self,
        events: Iterable[tuple[str, Any]],
        *,
        named: bool = True,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """One complete server-sent event stream (``event:`` lines when ``named``)."""
        data = b"".join(
            (f"event: {name}\n" if named else "").encode()
            + f"data: {json.dumps(payload)}\n\n".encode()
            for name, payload in events
        )
        self.send(200, "text/event-stream", data, headers)


class RecordingServer(Generic[R]):
    """A loopback model server: records every request, answers through :meth:`answer`.

    A context manager (serving starts on enter, stops on exit); ``requests`` holds what
    the agent sent, in order, and :meth:`main_requests` the turns of its own
    conversation."""

    #: the body of a 404 answer
    not_found: ClassVar[bytes] = b'{"error": {"code": 404}}'
    #: the handler class (a subclass may add methods, such as ``do_HEAD``)
    handler: ClassVar[type[RecordingHandler]] = RecordingHandler

    def __init__(self) -> None:
        self.requests: list[R] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        handler = type("Handler", (self.handler,), {"recorder": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def main_requests(self) -> list[R]:
        with self._lock:
            return [r for r in self.requests if r.is_main]

    def record(self, path: str, body: dict[str, Any]) -> R:
        request = self.make_request(path, body)
        with self._lock:
            self.requests.append(request)
        return request

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def make_request(self, path: str, body: dict[str, Any]) -> R:
        raise NotImplementedError

    def answer(self, handler: RecordingHandler, path: str, request: R, raw: bytes) -> None:
        """Send the reply to one recorded POST (``path`` without its query)."""
        raise NotImplementedError


@dataclass
class CliRun:
    """One agent CLI invocation's outcome (Claude Code, Codex or Gemini CLI)."""

    returncode: int
    stdout: str
    stderr: str

    def events(self) -> list[dict[str, Any]]:
        """The JSON objects among the output lines (``--json`` / ``stream-json`` runs)."""
        out = []
        for line in self.stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                out.append(event)
        return out
