"""Run the real Codex CLI and Gemini CLI against scripted model servers on 127.0.0.1.

Why: as for Claude Code (``tests/claude_e2e.py``), the honest answer to "what does the
model see when Charter is installed?" is the request bodies the agent itself sends.
:class:`ScriptedServer` records every request and answers in the agent's own API:
Codex's custom provider speaks the OpenAI Responses API (``POST /v1/responses``, SSE),
Gemini CLI the Gemini API (``:generateContent``, ``:streamGenerateContent?alt=sse``,
``:countTokens``). A :class:`Reply` may carry one tool call; it is made only when the
request does not already end with a tool result, so each tool runs once per prompt.

:class:`CodexSession` runs ``codex exec --json`` (later prompts ``exec resume`` the
thread) and :class:`GeminiSession` runs ``gemini -p``, each with its own HOME (and
CODEX_HOME), telemetry, update checks and analytics off, pointed at the server. Both
CLIs are pinned under ``tools/`` and installed by ``npm ci`` (``make codex``, ``make
gemini-cli``); nothing here downloads anything else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.model_server import CliRun, RecordedRequest, RecordingHandler, RecordingServer

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"
#: agent -> (tools/ directory, binary under node_modules/.bin, pinned version)
PINNED = {
    "codex": ("codex", "codex", "0.169.0"),
    "gemini": ("gemini-cli", "gemini", "0.61.0"),
}
#: agent -> the CLI's name in messages
CLI_NAMES = {"codex": "Codex CLI", "gemini": "Gemini CLI"}
#: ``npm ci`` flags per agent (the Makefile uses the same). No install scripts run.
#: Codex's binary is its optional per-platform package (``@openai/codex-linux-x64``,
#: ~400 MB unpacked); Gemini CLI's optional packages (a pty, a keychain binding, one of
#: them compiled by node-gyp) are not needed without a terminal and are left out.
NPM_FLAGS = {
    "codex": ["--ignore-scripts"],
    "gemini": ["--ignore-scripts", "--omit=optional"],
}
#: A model slug Codex 0.169.0 knows (its bundled catalogue): with an unknown slug Codex
#: falls back to generic metadata, without tool search and with a warning.
CODEX_MODEL = "gpt-5.5"
#: A fixed model: with the default ``auto`` Gemini CLI first asks a router model, which
#: a scripted server would have to answer in its JSON schema.
GEMINI_MODEL = "gemini-2.5-pro"


def agent_binary(agent: str) -> Path | None:
    """The pinned CLI installed by ``make codex`` / ``make gemini-cli``, if it is there."""
    folder, name, _ = PINNED[agent]
    path = TOOLS / folder / "node_modules" / ".bin" / name
    return path if path.exists() else None


def install_agent(agent: str) -> Path | None:
    """``npm ci`` the pinned CLI when Node is present; else None."""
    if agent_binary(agent) is None:
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            return None
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", *NPM_FLAGS[agent]],
            cwd=TOOLS / PINNED[agent][0],
            check=True,
            capture_output=True,
            timeout=900,
        )
    return agent_binary(agent)


# --------------------------------------------------------------------------- the model


@dataclass
class Reply:
    """One scripted answer: text, and optionally one tool call after it.

    ``tool_input`` is the call's arguments (a dict), or the raw input of a free-form
    tool (a str: Codex's ``apply_patch`` takes the patch text itself). ``namespace``
    names a Codex tool namespace (``mcp__charter`` for Charter's MCP tools), and the
    tool ``tool_search`` is Codex's client-side search over deferred tools. A tool reply
    is skipped once a tool answered the last prompt unless ``chained`` (a script that
    makes several calls in a row, each after the previous one's result)."""

    text: str = "Done."
    tool: str | None = None
    tool_input: dict[str, Any] | str = field(default_factory=dict)
    namespace: str | None = None
    chained: bool = False


class Request(RecordedRequest):
    """One request the agent sent (Codex Responses or Gemini API)."""

    @property
    def api(self) -> str:
        return "gemini" if "contents" in self.body else "responses"

    @property
    def is_main(self) -> bool:
        """A turn of the agent's own conversation (it offers tools), not a side query."""
        return bool(self.tool_names())

    def tool_names(self) -> list[str]:
        names = []
        for tool in self.body.get("tools") or []:
            if not isinstance(tool, dict):
                continue
            if "functionDeclarations" in tool:
                names += [f.get("name", "") for f in tool["functionDeclarations"]]
            elif tool.get("name"):
                names.append(str(tool["name"]))
            elif tool.get("type"):
                names.append(str(tool["type"]))
        return names

    def items(self) -> list[tuple[str, str]]:
        """(role, text) of everything the conversation holds, in order: messages,
        tool calls (their arguments as JSON) and tool results."""
        out: list[tuple[str, str]] = []
        if self.api == "gemini":
            for content in self.body.get("contents") or []:
                role = str(content.get("role", ""))
                for part in content.get("parts") or []:
                    if "text" in part:
                        out.append((role, str(part["text"])))
                    elif "functionCall" in part:
                        out.append((role, json.dumps(part["functionCall"], sort_keys=True)))
                    elif "functionResponse" in part:
                        out.append(("tool", json.dumps(part["functionResponse"])))
            return out
        for item in self.body.get("input") or []:
            kind = item.get("type")
            if kind == "message" or "role" in item:
                content = item.get("content")
                if isinstance(content, str):
                    out.append((str(item.get("role")), content))
                    continue
                for block in content or []:
                    if isinstance(block, dict) and isinstance(block.get("text"), str):
                        out.append((str(item.get("role")), block["text"]))
            elif kind in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                text = output if isinstance(output, str) else json.dumps(output)
                out.append(("tool", text))
            elif kind in ("function_call", "custom_tool_call"):
                out.append(("assistant", str(item.get("arguments") or item.get("input"))))
            elif kind == "tool_search_output":
                out.append(("tool", json.dumps(item.get("tools"))))
        return out

    def all_text(self) -> str:
        """Everything the model reads except tool definitions."""
        system = self.body.get("systemInstruction") or {}
        parts = [str(p.get("text", "")) for p in system.get("parts") or []]
        parts.append(str(self.body.get("instructions") or ""))
        return "\n".join([*parts, *(text for _, text in self.items())])

    def ends_with_tool_result(self) -> bool:
        """Has a tool answered since the user's last message (the agent may add its own
        developer messages after a tool result)?"""
        roles = [role for role, _ in self.items()]
        last_user = max((i for i, role in enumerate(roles) if role == "user"), default=-1)
        return "tool" in roles[last_user + 1 :]


#: A script answers a request with a reply (None: fall through to the default).
Script = Callable[[Request], Reply | None]


class ScriptedServer(RecordingServer[Request]):
    """A Responses API and Gemini API stand-in: records requests, answers from scripts."""

    def __init__(self, scripts: Iterable[Script] = ()) -> None:
        super().__init__()
        self.scripts = list(scripts)

    def make_request(self, path: str, body: dict[str, Any]) -> Request:
        return Request(path, body)

    def _reply_for(self, request: Request) -> Reply:
        for script in self.scripts:
            reply = script(request)
            if reply is not None:
                if reply.tool and not reply.chained and request.ends_with_tool_result():
                    continue
                return reply
        return Reply()

    def answer(self, handler: RecordingHandler, path: str, request: Request, raw: bytes) -> None:
        if path.endswith(":countTokens"):
            total = max(1, len(raw) // 4)
            handler.send(200, "application/json", json.dumps({"totalTokens": total}))
        elif path.endswith("/responses"):
            reply = self._reply_for(request)
            handler.sse(_responses_events(self.next_id(), request.body, reply))
        elif path.endswith(":streamGenerateContent"):
            reply = self._reply_for(request)
            handler.sse([("", _gemini_response(reply))], named=False)
        elif path.endswith(":generateContent"):
            reply = self._reply_for(request)
            handler.send(200, "application/json", json.dumps(_gemini_response(reply)))
        else:
            handler.send(404, "application/json", self.not_found)


def _responses_events(n: int, body: dict[str, Any], reply: Reply) -> list[tuple[str, Any]]:
    """The Responses API stream for one complete reply (Codex reads the ``done`` items)."""
    items: list[dict[str, Any]] = [
        {
            "type": "message",
            "id": f"msg_{n}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }
    ]
    if reply.tool == "tool_search":
        items.append(
            {
                "type": "tool_search_call",
                "call_id": f"call_{n}",
                "execution": "client",
                "arguments": reply.tool_input,
            }
        )
    elif reply.tool and isinstance(reply.tool_input, str):
        items.append(
            {
                "type": "custom_tool_call",
                "id": f"ctc_{n}",
                "call_id": f"call_{n}",
                "name": reply.tool,
                "input": reply.tool_input,
                "status": "completed",
            }
        )
    elif reply.tool:
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": reply.tool,
                "arguments": json.dumps(reply.tool_input),
                "status": "completed",
                **({"namespace": reply.namespace} if reply.namespace else {}),
            }
        )
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    response = {
        "id": f"resp_{n}",
        "object": "response",
        "model": body.get("model", "scripted"),
        "status": "completed",
        "output": items,
        "usage": usage,
    }
    events: list[tuple[str, Any]] = [
        ("response.created", {"type": "response.created", "response": {**response, "output": []}})
    ]
    for index, item in enumerate(items):
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return events


def _gemini_response(reply: Reply) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": reply.text}]
    if reply.tool:
        args = reply.tool_input if isinstance(reply.tool_input, dict) else {}
        parts.append({"functionCall": {"name": reply.tool, "args": args}})
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": GEMINI_MODEL,
    }


# --------------------------------------------------------------------------- the CLIs


#: one CLI invocation's outcome
AgentRun = CliRun


class _CliSession:
    """One CLI in ``project`` against ``server``, isolated in ``home``: what the Codex and
    Gemini CLI runners share (the environment's base, running one invocation)."""

    def __init__(
        self,
        binary: Path,
        project: Path,
        home: Path,
        server: ScriptedServer,
        *,
        path_prepend: Iterable[Path] = (),
        timeout: float = 240,
    ) -> None:
        self.binary = binary
        self.project = project
        self.server = server
        self.timeout = timeout
        path = os.pathsep.join([*(str(p) for p in path_prepend), os.environ.get("PATH", "")])
        self.env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "NO_COLOR": "1"}
        self._configure(home)

    def _configure(self, home: Path) -> None:
        """Write the CLI's user settings under ``home`` and add to ``self.env``."""
        raise NotImplementedError

    def _run(self, args: list[str]) -> AgentRun:
        proc = subprocess.run(
            args,
            cwd=self.project,
            env=self.env,
            input="",
            capture_output=True,
            text=True,
            timeout=self.timeout,
        )
        return AgentRun(proc.returncode, proc.stdout, proc.stderr)


class CodexSession(_CliSession):
    """``codex exec`` in ``project`` against ``server``, isolated in ``home``.

    The user config (``$CODEX_HOME/config.toml``) names the scripted provider, trusts
    the project (Codex loads a project's ``.codex/`` only when it is trusted) and turns
    analytics, update checks and plugin sync off. Hooks run through
    ``--dangerously-bypass-hook-trust``, Codex's documented switch for automation: a
    person trusts each hook once with ``/hooks`` instead.
    """

    #: the thread the first prompt started (later prompts resume it)
    thread_id: str | None = None

    def _configure(self, home: Path) -> None:
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(
            f'model = "{CODEX_MODEL}"\n'
            'model_provider = "scripted"\n'
            "check_for_update_on_startup = false\n\n"
            "[features]\nplugins = false\n\n"
            "[analytics]\nenabled = false\n\n"
            "[model_providers.scripted]\n"
            'name = "scripted"\n'
            f'base_url = "{self.server.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "SCRIPTED_API_KEY"\n\n'
            f"[projects.{json.dumps(str(self.project))}]\n"
            'trust_level = "trusted"\n',
            encoding="utf-8",
        )
        self.env |= {
            "CODEX_HOME": str(codex_home),
            "SCRIPTED_API_KEY": "scripted-dummy",
        }

    def prompt(self, text: str, *config: str) -> AgentRun:
        """One user prompt (a turn); later prompts resume the same thread. ``config``:
        ``key=value`` overrides (``codex -c``)."""
        args = [str(self.binary), "exec"]
        if self.thread_id:
            args.append("resume")
        args += ["--json", "--dangerously-bypass-hook-trust", "--skip-git-repo-check"]
        args += [f"--config={c}" for c in config]
        args += [self.thread_id, text] if self.thread_id else [text]
        run = self._run(args)
        for event in run.events():
            if event.get("type") == "thread.started" and isinstance(event.get("thread_id"), str):
                self.thread_id = event["thread_id"]
        return run


class GeminiSession(_CliSession):
    """``gemini -p`` in ``project`` against ``server``, isolated in ``home``.

    ``GOOGLE_GEMINI_BASE_URL`` points the Gemini API client at the server, with API-key
    auth selected in the user settings; the workspace is trusted through
    ``GEMINI_CLI_TRUST_WORKSPACE`` (Gemini CLI ignores a project's ``.gemini/`` settings,
    hooks included, in an untrusted folder). Later prompts ``--resume`` the session.
    """

    #: a session to resume exists (after the first prompt)
    resume = False

    def _configure(self, home: Path) -> None:
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(
            json.dumps(
                {
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                    "telemetry": {"enabled": False},
                    "privacy": {"usageStatisticsEnabled": False},
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                }
            ),
            encoding="utf-8",
        )
        self.env |= {
            "GEMINI_API_KEY": "scripted-dummy",
            "GOOGLE_GEMINI_BASE_URL": self.server.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }

    def prompt(self, text: str) -> AgentRun:
        args = [str(self.binary), "-m", GEMINI_MODEL, "--approval-mode", "yolo"]
        args += ["--output-format", "json", "-p", text]
        if self.resume:
            args += ["--resume", "latest"]
        run = self._run(args)
        self.resume = True
        return run


#: agent -> its session runner
SESSIONS: dict[str, type[_CliSession]] = {"codex": CodexSession, "gemini": GeminiSession}


def hook_contexts(request: Request) -> list[str]:
    """The texts Gemini CLI wraps in ``<hook_context>`` tags (hook additional context),
    as the hook gave them: Gemini CLI 0.61.0 escapes ``<`` and ``>`` in a hook's
    context (so it cannot close the tag), and only those."""
    out = []
    for _, text in request.items():
        for part in text.split("<hook_context>")[1:]:
            context = part.split("</hook_context>")[0]
            out.append(context.replace("&lt;", "<").replace("&gt;", ">"))
    return out


def developer_texts(request: Request) -> Iterator[str]:
    """The developer messages of a Responses request (Codex puts hook context there)."""
    for role, text in request.items():
        if role == "developer":
            yield text
