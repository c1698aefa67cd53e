"""``charter agent-hook AGENT EVENT``: other agents' hook JSON, answered by Charter's hooks.

Cursor and Gemini CLI call hooks at the same moments Claude Code does, with different
JSON. This module translates their input into Claude Code's hook input, runs ``charter
hook`` on it (in a subprocess, so its deadlines, worker and fail-open/fail-closed rules
apply unchanged) and translates the answer back. Guardrails fail closed here too: when
``preToolUse``/``BeforeTool`` cannot be answered, the tool call is denied.

Codex speaks Claude Code's JSON, so its hooks run ``charter hook`` directly, except
PreToolUse: Codex rejects ``permissionDecision: "ask"`` (and ``"allow"`` without
``updatedInput``) as invalid hook output and then runs the tool, so Charter's "cannot
verify this write, ask the user" would let the write through there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

#: agent -> its event -> (Charter's hook event, Claude Code's event name)
EVENTS: dict[str, dict[str, tuple[str, str]]] = {
    "cursor": {
        "sessionStart": ("session-start", "SessionStart"),
        "preToolUse": ("pre-tool-use", "PreToolUse"),
        "postToolUse": ("post-tool-use", "PostToolUse"),
        "preCompact": ("pre-compact", "PreCompact"),
        "stop": ("stop", "Stop"),
    },
    "gemini": {
        "SessionStart": ("session-start", "SessionStart"),
        "BeforeAgent": ("user-prompt-submit", "UserPromptSubmit"),
        "BeforeTool": ("pre-tool-use", "PreToolUse"),
        "AfterTool": ("post-tool-use", "PostToolUse"),
        "AfterAgent": ("stop", "Stop"),
        "PreCompress": ("pre-compact", "PreCompact"),
        "SessionEnd": ("session-end", "SessionEnd"),
    },
    "codex": {
        "PreToolUse": ("pre-tool-use", "PreToolUse"),
    },
}
#: Tool names mapped onto Claude Code's, which Charter's guardrails understand.
TOOLS = {
    "cursor": {
        "Shell": "Bash",
        "Write": "Write",
        "StrReplace": "Edit",
        "Edit": "Edit",
        "Delete": "Write",
        "Read": "Read",
        "Grep": "Grep",
    },
    "gemini": {
        "run_shell_command": "Bash",
        "write_file": "Write",
        "replace": "Edit",
        "read_file": "Read",
        "read_many_files": "Read",
        "glob": "Glob",
        "search_file_content": "Grep",
    },
}
HOOK_TIMEOUT = 28.0
#: Gemini CLI hands hook context to the model inside these tags; without a terminal
#: (``gemini -p``) it prepends SessionStart's to the prompt, and BeforeAgent/AfterAgent
#: then receive that as their ``prompt`` (seen with Gemini CLI 0.61.0).
_HOOK_CONTEXT = re.compile(r"\A\s*<hook_context>.*?</hook_context>\s*", re.S)


def user_prompt(agent: str, prompt: str) -> str:
    """What the user typed: for Gemini, without the hook context blocks its CLI put in
    front (else Charter reads its own session state as the user's request, and stores
    it as the user's instruction)."""
    if agent != "gemini":
        return prompt
    while True:
        stripped = _HOOK_CONTEXT.sub("", prompt, count=1)
        if stripped == prompt:
            return prompt
        prompt = stripped


def project_dir(agent: str, payload: dict[str, Any]) -> str:
    """The project root the agent runs in."""
    return named_project_dir(agent, payload) or str(payload.get("cwd") or os.getcwd())


def named_project_dir(agent: str, payload: dict[str, Any]) -> str | None:
    """The project directory the agent itself names (Cursor's ``workspace_roots``,
    ``$GEMINI_PROJECT_DIR``), or None: then ``charter hook`` looks for the project
    around ``cwd`` and answers nothing when there is none."""
    if agent == "cursor":
        roots = payload.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            return roots[0]
    return os.environ.get("GEMINI_PROJECT_DIR") or os.environ.get("CURSOR_PROJECT_DIR") or None


def to_claude(agent: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's hook input for the agent's ``event`` payload."""
    _, name = EVENTS[agent][event]
    if agent == "codex":  # already Claude Code's shape (tool names included)
        return {**payload, "cwd": project_dir(agent, payload), "hook_event_name": name}
    session = payload.get("session_id") or payload.get("conversation_id") or "agent-session"
    out: dict[str, Any] = {
        "session_id": str(session),
        "transcript_path": str(payload.get("transcript_path") or ""),
        "cwd": project_dir(agent, payload),
        "hook_event_name": name,
    }
    if name == "SessionStart":
        out["source"] = str(payload.get("source") or "startup")
        if agent == "gemini" and out["source"] == "resume":
            # Gemini CLI replays a session without the user messages that start with
            # <hook_context>: SessionStart's context (and, with ``gemini -p``, the
            # prompts it was prepended to) never comes back, so Charter starts over
            out["source"] = "startup"
    elif name == "UserPromptSubmit":
        prompt = payload.get("prompt")
        if prompt is None or isinstance(prompt, str):
            prompt = user_prompt(agent, prompt or "")
        # a prompt that is not text goes on as it came: ``charter hook`` drops it with a
        # note (str() would make its repr the user's request)
        out["prompt"] = prompt
    elif name in ("PreToolUse", "PostToolUse"):
        tool = str(payload.get("tool_name") or "")
        out["tool_name"] = TOOLS[agent].get(tool, tool)
        tool_input = payload.get("tool_input")
        if isinstance(tool_input, str):  # Cursor sends MCP tool input as a JSON string
            try:
                tool_input = json.loads(tool_input)
            except ValueError:
                tool_input = {"input": tool_input}
        out["tool_input"] = tool_input if isinstance(tool_input, dict) else {}
        if name == "PostToolUse":
            out["tool_response"] = payload.get("tool_response") or payload.get("tool_output")
            if agent == "gemini":
                out["tool_use_id"] = _call_id(payload, tool)
    elif name == "Stop":
        out["stop_hook_active"] = bool(payload.get("stop_hook_active") or payload.get("loop_count"))
        message = payload.get("prompt_response") or payload.get("last_assistant_message")
        if isinstance(message, str):
            out["last_assistant_message"] = message
    elif name == "PreCompact":
        out["trigger"] = str(payload.get("trigger") or "auto")
    return out


def _call_id(payload: dict[str, Any], tool: str) -> str:
    """An id for one Gemini CLI tool call: AfterTool names none (0.61.0), and the
    inject-once store tells a retried answer from a new call by it. The call's time (to
    the millisecond), tool and input identify it."""
    raw = json.dumps(
        [str(payload.get("timestamp") or ""), tool, payload.get("tool_input")],
        sort_keys=True,
        default=str,
    )
    return "gemini-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def _context(output: dict[str, Any]) -> str:
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict) and isinstance(specific.get("additionalContext"), str):
        return str(specific["additionalContext"])
    return ""


def _permission(output: dict[str, Any]) -> tuple[str, str]:
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict):
        decision = str(specific.get("permissionDecision") or "allow")
        return decision, str(specific.get("permissionDecisionReason") or "")
    if output.get("decision") == "block":
        return "deny", str(output.get("reason") or "")
    return "allow", ""


def from_claude(agent: str, event: str, output: dict[str, Any] | None) -> dict[str, Any]:
    """The agent's hook answer for Charter's Claude Code answer ``output``."""
    output = output or {}
    _, name = EVENTS[agent][event]
    if agent == "codex":
        return _codex_answer(name, output)
    if agent == "cursor":
        if name == "SessionStart":
            text = _context(output)
            return {"additional_context": text} if text else {}
        if name == "PreToolUse":
            decision, reason = _permission(output)
            answer: dict[str, Any] = {"permission": decision}
            if reason:
                answer.update(user_message=reason, agent_message=reason)
            return answer
        if name == "Stop" and output.get("decision") == "block":
            return {"followup_message": str(output.get("reason") or "")}
        return {}
    # gemini
    if name in ("SessionStart", "UserPromptSubmit"):
        text = _context(output)
        event_name = "SessionStart" if name == "SessionStart" else "BeforeAgent"
        return (
            {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
            if text
            else {}
        )
    if name == "PreToolUse":
        decision, reason = _permission(output)
        if decision == "allow":
            return {}
        if decision == "ask":  # Gemini hooks cannot ask the user: refuse, say why
            reason = f"needs the user's confirmation: {reason}"
        return {"decision": "deny", "reason": reason or "denied by Charter's guardrails"}
    if name == "Stop" and output.get("decision") == "block":
        return {"decision": "deny", "reason": str(output.get("reason") or "")}
    message = output.get("systemMessage")
    answer = {"systemMessage": message} if isinstance(message, str) and message else {}
    text = _context(output)
    if name == "PostToolUse" and text:
        # AfterTool's additionalContext is appended to the tool's result in
        # <hook_context> tags (Gemini CLI 0.61.0): the path rules of the file it touched
        answer["hookSpecificOutput"] = {"hookEventName": "AfterTool", "additionalContext": text}
    return answer


def _codex_answer(name: str, output: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's answer as Codex accepts it: no ``allow`` (Codex's default anyway),
    ``ask`` as a deny that says the user has to confirm (Codex hooks cannot ask)."""
    if name != "PreToolUse":
        return output
    decision, reason = _permission(output)
    if decision == "allow":
        return {}
    if decision == "ask":
        reason = f"needs the user's confirmation: {reason}"
    return _claude_deny(reason or "denied by Charter's guardrails")


def _claude_deny(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def fail_closed(agent: str, event: str, reason: str) -> dict[str, Any]:
    """The answer when Charter could not be asked: deny tool calls, say nothing else."""
    _, name = EVENTS[agent][event]
    if name != "PreToolUse":
        return {}
    text = f"Charter guardrails failed closed ({reason})"
    if agent == "cursor":
        return {"permission": "deny", "user_message": text, "agent_message": text}
    if agent == "codex":
        return _claude_deny(text)
    return {"decision": "deny", "reason": text}


def run(agent: str, event: str, raw: bytes) -> tuple[dict[str, Any], list[str]]:
    """Answer one agent hook call: (answer JSON, notes for stderr)."""
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace") or "{}")
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
    except (ValueError, RecursionError) as exc:
        return fail_closed(agent, event, f"unreadable hook input: {exc}"), [
            f"agent-hook {agent} {event}: unreadable input ({exc})"
        ]
    claude = to_claude(agent, event, payload)
    charter_event, name = EVENTS[agent][event]
    if name in ("PreToolUse", "PostToolUse"):
        # these agents' answers before a tool call carry a decision, never context, and
        # Cursor's after one nothing: Charter must not mark rules as given where they are
        # not shown (charter.rules.moments, charter.rules.hooks.drops_tool_context)
        claude["charter_agent"] = agent
    retry = _retry_marker(agent, claude) if name in ("UserPromptSubmit", "Stop") else None
    if (
        retry is not None
        and name == "UserPromptSubmit"
        and isinstance(claude["prompt"], str)
        and _is_retry(retry, claude["prompt"])
    ):
        return {}, [f"agent-hook {agent} {event}: Charter's own correction, not a user prompt"]
    named = named_project_dir(agent, payload)
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    if named:
        env["CLAUDE_PROJECT_DIR"] = named
    try:
        proc = subprocess.run(
            # -P: a package directory in the project must not shadow Charter's imports
            [sys.executable, "-P", "-m", "charter", "hook", charter_event],
            input=json.dumps(claude),
            capture_output=True,
            text=True,
            timeout=HOOK_TIMEOUT,
            env=env,
            cwd=claude["cwd"] if os.path.isdir(claude["cwd"]) else None,
        )
    except (subprocess.TimeoutExpired, OSError) as exc:
        return fail_closed(agent, event, type(exc).__name__), [f"agent-hook {agent}: {exc}"]
    notes = [line for line in proc.stderr.splitlines() if line.strip()]
    try:
        output = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        return fail_closed(agent, event, "unreadable answer"), notes
    answer = from_claude(agent, event, output if isinstance(output, dict) else None)
    if retry is not None and name == "Stop" and answer.get("decision") == "deny":
        _remember_retry(retry, str(answer.get("reason") or ""), notes)
    return answer, notes


def _retry_marker(agent: str, claude: dict[str, Any]) -> Path | None:
    """Where Gemini CLI's next prompt is remembered as a retry of this session.

    An AfterAgent deny comes back to Gemini CLI's model as a new prompt, and BeforeAgent
    fires for it like for one the user typed (0.61.0): Charter would answer its own
    correction with rules and keep it as the user's newest instruction. So the deny's
    reason is remembered (its hash, in the project's state directory) and BeforeAgent
    passes that prompt by once. Other agents do not resubmit the reason as a prompt.
    """
    if agent != "gemini":
        return None
    try:
        from charter.config import Project

        project = Project.load(Path(claude["cwd"]))
    except Exception:  # no project here: nothing to remember, nothing to skip
        return None
    key = hashlib.sha256(claude["session_id"].encode("utf-8")).hexdigest()[:16]
    return project.state_dir / "agent-hooks" / f"gemini-retry-{key}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def _is_retry(marker: Path, prompt: str) -> bool:
    try:
        expected = marker.read_text(encoding="utf-8")
    except OSError:
        return False
    if expected != _digest(prompt):
        return False
    marker.unlink(missing_ok=True)
    return True


def _remember_retry(marker: Path, reason: str, notes: list[str]) -> None:
    from charter.fileio import atomic_write_text

    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(marker, _digest(reason))
    except OSError as exc:  # the retry then gets rules like a prompt: no harm beyond that
        notes.append(f"agent-hook gemini: cannot remember the retry ({exc})")
