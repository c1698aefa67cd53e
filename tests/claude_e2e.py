"""Run the real Claude Code CLI against a scripted Messages API server on 127.0.0.1.

Why: the only honest answer to "what does the model see when Charter is installed?" is
to read the requests Claude Code itself sends. :class:`ScriptedModel` is a tiny HTTP
server that speaks the Messages API (streaming SSE, as the CLI asks for it), records
every request body, and answers with scripted replies: plain text by default, or a
``tool_use`` block when a :class:`Reply` asks for one (the CLI runs the tool and sends
the result back in the next request). :class:`ClaudeSession` runs ``claude -p`` in a
project directory with its own HOME and config directory, so nothing of the machine's
own Claude Code set-up leaks in and nothing leaks out.

Used by ``tests/e2e/`` (assertions) and ``bench/agent_tokens.py`` (counts). Everything
here is deterministic apart from ids: each reply gets a fresh message id, which the CLI
needs for ``/compact`` ("Not enough messages to compact" otherwise).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.model_server import CliRun, RecordedRequest, RecordingHandler, RecordingServer

REPO = Path(__file__).resolve().parent.parent
CLAUDE_DIR = REPO / "tools" / "claude-code"
CLAUDE_BIN = CLAUDE_DIR / "node_modules" / ".bin" / "claude"
CLAUDE_VERSION = "2.1.197"


def claude_binary() -> Path | None:
    """The pinned CLI installed by ``make claude-code``, if it is there."""
    return CLAUDE_BIN if CLAUDE_BIN.exists() else None


def install_claude_code() -> Path | None:
    """``npm ci`` the pinned CLI into tools/claude-code when Node is present; else None."""
    if claude_binary() is None:
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            return None
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=CLAUDE_DIR,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return claude_binary()


# --------------------------------------------------------------------------- the model


@dataclass
class Reply:
    """One scripted answer: text, and optionally one tool call before it."""

    text: str = "Done."
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)


#: A script answers a request body with a reply (None: fall through to the default).
Script = Callable[[dict[str, Any]], Reply | None]


class Request(RecordedRequest):
    """One request the CLI sent (Anthropic Messages API)."""

    @property
    def is_main(self) -> bool:
        """A turn of the agent's own conversation (carries tools), not a side query."""
        return bool(self.body.get("tools")) and "messages" in self.body

    def system_text(self) -> str:
        system = self.body.get("system", "")
        if isinstance(system, str):
            return system
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))

    def message_texts(self) -> list[str]:
        """Every text the messages carry (text blocks, tool results), in order."""
        return list(_texts(self.body.get("messages", [])))

    def all_text(self) -> str:
        """Everything the model reads in this request except tool definitions."""
        return "\n".join([self.system_text(), *self.message_texts()])

    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools", []) if isinstance(t, dict)]

    def last_user_text(self) -> str:
        """Text of the last user message (the prompt, hook context, tool results)."""
        for message in reversed(self.body.get("messages", [])):
            if message.get("role") == "user":
                return "\n".join(_texts([message]))
        return ""


def _texts(messages: Iterable[Any]) -> Iterator[str]:
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            yield content
            continue
        for block in content or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                yield block.get("text", "")
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, str):
                    yield inner
                else:
                    yield from _texts([{"content": inner}])
            elif block.get("type") == "tool_use":
                yield json.dumps(block.get("input", {}), sort_keys=True)


class _MessagesHandler(RecordingHandler):
    """The shared handler, and an empty 200 to a HEAD (as the stand-in always gave)."""

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class ScriptedModel(RecordingServer[Request]):
    """A Messages API stand-in: records requests, answers from ``scripts`` in order.

    Each script sees the request body and returns a :class:`Reply` or None; the first
    reply wins, else the model says "Done.". A reply with a tool is answered only when
    the last user message does not already carry a tool result (so each tool runs once
    per prompt and the turn ends).
    """

    not_found = json.dumps({"type": "error", "error": {"type": "not_found_error"}}).encode()
    handler = _MessagesHandler

    def __init__(self, scripts: Iterable[Script] = ()) -> None:
        super().__init__()
        self.scripts = list(scripts)

    def make_request(self, path: str, body: dict[str, Any]) -> Request:
        return Request(path, body)

    def _reply_for(self, body: dict[str, Any]) -> Reply:
        for script in self.scripts:
            reply = script(body)
            if reply is not None:
                if reply.tool and _ends_with_tool_result(body):
                    continue
                return reply
        return Reply()

    def answer(self, handler: RecordingHandler, path: str, request: Request, raw: bytes) -> None:
        body = request.body
        if path.endswith("/count_tokens"):
            chars = len(json.dumps(body))
            handler.send(200, "application/json", json.dumps({"input_tokens": max(1, chars // 4)}))
            return
        if not path.endswith("/messages"):
            handler.send(404, "application/json", self.not_found)
            return
        reply = self._reply_for(body)
        msg_id = f"msg_scripted_{self.next_id():05d}"
        message = _message(msg_id, body.get("model", "claude"), reply)
        if body.get("stream"):
            handler.sse(_stream_events(message), headers=[("Cache-Control", "no-cache")])
        else:
            handler.send(200, "application/json", json.dumps(message))


def _ends_with_tool_result(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return False
    content = messages[-1].get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _message(msg_id: str, model: str, reply: Reply) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
    stop = "end_turn"
    if reply.tool:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{msg_id[-5:]}",
                "name": reply.tool,
                "input": reply.tool_input,
            }
        )
        stop = "tool_use"
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _stream_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Messages API streaming events for a complete message."""
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": 10, "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


# --------------------------------------------------------------------------- the CLI


#: one ``claude`` invocation's outcome
ClaudeRun = CliRun


class ClaudeSession:
    """``claude -p`` in ``project`` against ``model``, isolated in ``home``.

    The first prompt starts a session; later prompts ``--resume`` it, so the
    conversation (and Charter's hook context in it) grows as in interactive use.
    """

    def __init__(
        self,
        binary: Path,
        project: Path,
        home: Path,
        model: ScriptedModel,
        *,
        extra_env: dict[str, str] | None = None,
        path_prepend: Iterable[Path] = (),
        timeout: float = 240,
    ) -> None:
        self.binary = binary
        self.project = project
        self.home = home
        self.model = model
        self.session_id: str | None = None
        self.timeout = timeout
        home.mkdir(parents=True, exist_ok=True)
        config = home / ".claude"
        config.mkdir(exist_ok=True)
        path = os.pathsep.join([*(str(p) for p in path_prepend), os.environ.get("PATH", "")])
        self.env = {
            "PATH": path,
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(config),
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-ant-scripted-dummy",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "IS_SANDBOX": "1",  # root on CI: let bypassPermissions run
            # a loaded CI machine can take longer than the default to start the MCP
            # server (a Python process importing the SDK): its tools then go missing
            "MCP_TIMEOUT": "60000",
            **(extra_env or {}),
        }

    def _base(self) -> list[str]:
        return [
            str(self.binary),
            "-p",
            "--model",
            "claude-sonnet-4-5",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
        ]

    def _run(self, args: list[str], stdin: str | None) -> ClaudeRun:
        proc = subprocess.run(
            args,
            cwd=self.project,
            env=self.env,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=self.timeout,
        )
        run = ClaudeRun(proc.returncode, proc.stdout, proc.stderr)
        for event in run.events():
            if isinstance(event.get("session_id"), str):
                self.session_id = event["session_id"]
        return run

    def prompt(self, text: str) -> ClaudeRun:
        """One user prompt (a turn) in the session."""
        args = self._base()
        if self.session_id:
            args += ["--resume", self.session_id]
        return self._run([*args, text], None)

    def stream(self, *texts: str) -> ClaudeRun:
        """User messages through ``--input-format stream-json``, one turn each.

        Each message is written only after the CLI reported the previous turn's
        ``result`` (messages queued during a turn would be merged into one), so this is
        an interactive session in one process: SessionStart fires once, ``/compact``
        works, and every prompt gets its own UserPromptSubmit.
        """
        args = [*self._base(), "--input-format", "stream-json"]
        if self.session_id:
            args += ["--resume", self.session_id]
        with tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen(
                args,
                cwd=self.project,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                bufsize=1,
            )
            lines: queue.Queue[str | None] = queue.Queue()
            reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
            reader.start()
            out: list[str] = []
            deadline = time.monotonic() + self.timeout
            assert proc.stdin is not None
            try:
                for text in texts:
                    message = {"type": "user", "message": {"role": "user", "content": text}}
                    proc.stdin.write(json.dumps(message) + "\n")
                    proc.stdin.flush()
                    if not _until_result(lines, out, deadline):
                        break
                proc.stdin.close()
                proc.wait(timeout=max(deadline - time.monotonic(), 1))
            except (subprocess.TimeoutExpired, BrokenPipeError):
                proc.kill()
                proc.wait()
            reader.join(timeout=5)
            while not lines.empty():
                line = lines.get()
                if line is not None:
                    out.append(line)
            err.seek(0)
            run = ClaudeRun(proc.returncode, "".join(out), err.read())
        for event in run.events():
            if isinstance(event.get("session_id"), str):
                self.session_id = event["session_id"]
        return run


def _pump(stream: Any, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _until_result(lines: queue.Queue[str | None], out: list[str], deadline: float) -> bool:
    """Collect output lines up to the next ``result`` event; False on EOF or timeout."""
    while True:
        try:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
        except queue.Empty:
            return False
        if line is None:
            lines.put(None)
            return False
        out.append(line)
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "result":
            return True
