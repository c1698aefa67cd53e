"""Guardrails: false allows, false blocks and PreToolUse hook latency.

Usage: ``python bench/guardrails_bench.py [--data DIR] [--runs N] [--json] [--show]``

- ``false_allows``: calls of the bypass corpus (tests/data/guardrail_cases.json: shell
  tricks and file-tool paths aimed at ``.git/``, ``.charter/``, secrets, outside the
  project, or outside the phase's write scope) that the guardrails let through. Bar: 0.
- ``false_blocks_corpus``: calls of the corpus' benign list that are denied or asked.
- ``false_blocks_real``: real Bash commands run by real users, read at run time from the
  ``transcript.jsonl`` files under ``--data`` (default: the session benchmark's dev
  split), checked as Claude Code would send them (the session's ``cwd``, the project
  root = the first ``cwd``, a track without SPEC.md: only the always-protected rules
  apply). Each counts as a false block when denied or asked; ``--show`` lists them with
  the reason, so whether a block was right can be judged. Bar: at most 1 in 10.
- ``user_commands_*``: the same transcripts' user messages (prompts, and the words typed
  when rejecting a tool call) read in order as the capture reads them
  (:mod:`charter.session.forbidden_commands`): how many forbid a command, and how many
  of the Bash calls after them the guardrail would hold (``user_commands``; each a
  block to judge with ``--show``).
- ``hook_warm_worker_p50_ms``: wall time of ``charter hook pre-tool-use`` (a fresh
  process each call, Claude Code's PreToolUse JSON on stdin) while the project's warm
  worker runs, on a project whose track is planning; ``hook_cold_p50_ms`` without it.
- ``decide_p50_ms``: :func:`pre_tool_use_output` in a warm process (what the worker pays).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CASES = ROOT / "tests" / "data" / "guardrail_cases.json"
DEFAULT_DATA = Path("/work/shared/bench/session")
CHARTER = Path(sys.executable).with_name("charter")


def p50_ms(samples: list[float]) -> float:
    return round(1000 * statistics.median(samples), 2) if samples else 0.0


def corpus(tmp: Path) -> dict[str, Any]:
    from tests.test_session_guardrails import decision, make_project, payload

    from charter.config import Project
    from charter.session.guardrails import pre_tool_use_output

    cases = json.loads(CASES.read_text())
    projects = {p: make_project(tmp, p) for p in ("unscoped", "planning", "executing")}
    out: dict[str, Any] = {}
    for kind in ("bypass", "benign"):
        wrong = []
        for n, case in enumerate(cases[kind]):
            root = projects[case["phase"]]
            got = decision(
                pre_tool_use_output(
                    Project.load(root), payload(root, case["tool"], case["input"], n)
                )
            )
            if (got == "allow") == (kind == "bypass"):
                wrong.append({"phase": case["phase"], "input": case["input"], "got": got})
        out[kind] = {"total": len(cases[kind]), "wrong": wrong}
    return out


def real_commands(data: Path) -> list[tuple[str, str, str]]:
    """(project root, cwd, command) of every Bash call in the transcripts under ``data``."""
    found = []
    for path in sorted(data.glob("*/transcript.jsonl")):
        for entry, root, cwd in _entries(path):
            for command in _bash_commands(entry):
                if root:
                    found.append((root, cwd or root, command))
    return found


def _entries(path: Path) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(entry, project root, cwd) of each JSON object line of a transcript: the root is
    the first cwd the transcript names."""
    from charter.session.shell import to_posix

    root = ""
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        cwd = to_posix(str(entry.get("cwd") or ""))
        root = root or cwd
        yield entry, root, cwd


def _bash_commands(entry: dict[str, Any]) -> list[str]:
    """The commands of an assistant entry's Bash tool calls."""
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [
        block["input"]["command"]
        for block in message.get("content") or []
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and block.get("name") == "Bash"
        and isinstance(block.get("input"), dict)
        and isinstance(block["input"].get("command"), str)
    ]


def real_blocks(data: Path) -> dict[str, Any]:
    from charter.session.guardrails import Policy, decide
    from charter.session.settings import GuardrailSettings

    g = GuardrailSettings()
    commands = real_commands(data)
    blocked = []
    for root, cwd, command in commands:
        policy = Policy(
            root=root.rstrip("/") or "/",
            home="/home/user",
            phase="unscoped",
            track=None,
            scopes=(),
            protected=tuple(p.strip("/") for p in g.protected),
            secrets=tuple(g.secret_files),
            scratch=tuple(g.scratch_dirs),
            allowed_tools=tuple(g.allowed_tools),
            check_dirs=False,  # other machines' directories do not exist here
        )
        verdict = decide(policy, "Bash", {"command": command}, cwd)
        if verdict.decision != "allow":
            blocked.append(
                {"decision": verdict.decision, "reason": verdict.reason, "command": command}
            )
    return {"total": len(commands), "blocked": blocked}


def _user_texts(entry: dict[str, Any]) -> list[str]:
    """What the user typed in one transcript entry: a prompt, or a rejection's words."""
    from charter.session.capture import user_feedback

    message = entry.get("message")
    if entry.get("type") != "user" or not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            out.append(block["text"])
        elif block.get("type") == "tool_result" and block.get("is_error"):
            said = user_feedback(json.dumps(block.get("content"), ensure_ascii=False))
            if said:
                out.append(said)
    return out


def user_commands(data: Path) -> dict[str, Any]:
    """The user's own prohibitions of commands in the transcripts under ``data``, and the
    real Bash calls after them that they would hold."""
    from charter.session.forbidden_commands import (
        UserForbiddenCommand,
        commands_forbidden_in,
        commands_permitted_in,
        lift,
    )
    from charter.session.shell import analyse

    messages, forbidding, held_calls, calls = 0, [], [], 0
    for path in sorted(data.glob("*/transcript.jsonl")):
        held: list[UserForbiddenCommand] = []
        for entry, root, cwd in _entries(path):
            for text in _user_texts(entry):
                messages += 1
                found = commands_forbidden_in(text)
                if found:
                    forbidding.append({"said": text[:300], "commands": [c.command for c in found]})
                held += [UserForbiddenCommand(c, "") for c in found]
                for span, _ in commands_permitted_in(text):
                    held = lift(held, span)
            for command in _bash_commands(entry):
                calls += 1
                if not held:
                    continue
                analysis = analyse(command, cwd or root or "/", "/home/user", check_dirs=False)
                for argv, _ in analysis.commands:
                    hit = next((h for h in held if h.matches(argv, None)), None)
                    if hit is not None:
                        held_calls.append({"command": command, "said": hit.words})
                        break
    return {
        "messages": messages,
        "forbidding": forbidding,
        "calls": calls,
        "held": held_calls,
    }


def _hook_call(body: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(CHARTER), "hook", "pre-tool-use"], input=body, capture_output=True, text=True, env=env
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0 or "deny" not in proc.stdout:
        raise SystemExit(f"unexpected hook answer: {proc.stdout!r} {proc.stderr!r}")
    return elapsed


def latency(tmp: Path, runs: int) -> dict[str, float]:
    from tests.test_session_guardrails import make_project, payload

    from charter.config import Project
    from charter.paths import worker_socket
    from charter.session.guardrails import pre_tool_use_output

    out: dict[str, float] = {}
    root = make_project(tmp / "latency", "planning", "")
    body = payload(root, "Bash", {"command": "cd src && sed -i s/a/b/ app/main.py && pytest -q"})
    project = Project.load(root)
    samples = []
    for _ in range(runs + 3):
        t0 = time.perf_counter()
        pre_tool_use_output(project, body)
        samples.append(time.perf_counter() - t0)
    out["decide_p50_ms"] = p50_ms(samples[3:])
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
    text = json.dumps(body)
    worker = subprocess.Popen(
        [sys.executable, "-m", "charter.integrations.claude_code.worker", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while not worker_socket(root).exists() and time.time() < deadline:
            time.sleep(0.1)
        warm = [_hook_call(text, env) for _ in range(runs + 2)]
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    out["hook_warm_worker_p50_ms"] = p50_ms(warm[2:])
    cold_root = make_project(tmp / "cold", "planning")  # warm_worker = false
    cold_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(cold_root)}
    cold_body = json.dumps(payload(cold_root, "Bash", {"command": "echo x > src/app/main.py"}))
    cold = [_hook_call(cold_body, cold_env) for _ in range(max(3, runs // 3))]
    out["hook_cold_p50_ms"] = p50_ms(cold)
    bare = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t0)
    out["python_startup_ms"] = p50_ms(bare)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="dir of */transcript.jsonl")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="list every block and false allow")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="charter-guardrails-bench-") as raw:
        tmp = Path(raw)
        found = corpus(tmp)
        real = real_blocks(args.data) if args.data.is_dir() else {"total": 0, "blocked": []}
        said = (
            user_commands(args.data)
            if args.data.is_dir()
            else {"messages": 0, "forbidding": [], "calls": 0, "held": []}
        )
        speed = latency(tmp, args.runs)
    result = {
        "false_allows": len(found["bypass"]["wrong"]),
        "bypass_total": found["bypass"]["total"],
        "false_blocks_corpus": len(found["benign"]["wrong"]),
        "benign_corpus_total": found["benign"]["total"],
        "false_blocks_real": len(real["blocked"]),
        "real_commands_total": real["total"],
        "user_messages_total": said["messages"],
        "user_commands_forbidding_messages": len(said["forbidding"]),
        "user_commands_held_real": len(said["held"]),
        "user_commands_bash_total": said["calls"],
        **speed,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:28} {value}")
    if args.show:
        for item in found["bypass"]["wrong"] + found["benign"]["wrong"]:
            print("corpus:", json.dumps(item)[:200])
        for item in said["forbidding"]:
            print(f"user forbids {item['commands']}: {item['said'][:160]!r}")
        for item in said["held"]:
            print(f"user held: {item['command'][:100]!r}\n    {item['said'][:160]}")
        for item in real["blocked"]:
            print(f"real {item['decision']}: {item['command'][:100]!r}\n    {item['reason'][:160]}")
    return 1 if result["false_allows"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
