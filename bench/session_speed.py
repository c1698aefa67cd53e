"""Speed of session capture, compaction and recovery (prints medians; not a test).

    .venv/bin/python bench/session_speed.py [--calls 500] [--runs 5]

Measures, on a synthetic session of ``--calls`` tool calls (reads, edits, test runs, plan
updates, prompts) in a temporary git repository:

- ``pre-tool-use`` and ``post-tool-use`` hook wall time through the warm worker (each call
  a new ``charter hook`` process, as Claude Code makes them) and without it;
- compaction of the whole session (in-process and as ``charter session compact``);
- recovery (in-process and as ``charter session recover --json``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def charter_exe() -> str:
    return str(Path(sys.executable).with_name("charter"))


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms"


def p90(values: list[float]) -> str:
    ordered = sorted(values)
    return f"{ordered[int(0.9 * (len(ordered) - 1))] * 1000:.1f} ms"


def run(root: Path, *args: str, stdin: str | None = None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    start = time.perf_counter()
    subprocess.run(
        [charter_exe(), *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return time.perf_counter() - start


def tool_calls(root: Path, n: int) -> list[dict[str, Any]]:
    """A plausible mix: reads and greps, edits, test runs, todo updates."""
    calls: list[dict[str, Any]] = []
    for i in range(n):
        if i % 25 == 0:
            todos = [
                {
                    "content": f"step {j}",
                    "status": "completed" if j < i // 25 else "pending",
                    "activeForm": "x",
                }
                for j in range(20)
            ]
            calls.append(
                {"tool_name": "TodoWrite", "tool_input": {"todos": todos}, "tool_response": {}}
            )
        elif i % 3 == 0:
            path = root / f"src/mod_{i % 40}.py"
            calls.append(
                {"tool_name": "Edit", "tool_input": {"file_path": str(path)}, "tool_response": {}}
            )
        elif i % 7 == 0:
            command = f"python -m pytest tests/test_{i % 5}.py -q"
            calls.append(
                {
                    "tool_name": "Bash",
                    "tool_input": {"command": command},
                    "tool_response": {"stdout": "3 passed"},
                }
            )
        else:
            calls.append(
                {
                    "tool_name": "Read",
                    "tool_input": {"file_path": str(root / f"src/m{i}.py")},
                    "tool_response": {},
                }
            )
    return calls


def start_worker(root: Path) -> Any:
    from charter.paths import worker_socket

    base = {
        "session_id": "bench",
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    run(root, "hook", "session-start", stdin=json.dumps(base))
    sock = worker_socket(root)
    deadline = time.time() + 60
    while not sock.exists() and time.time() < deadline:
        time.sleep(0.1)
    return sock


def stop_worker(sock: Path) -> None:
    lock = sock.with_suffix(".lock")
    if lock.exists():
        pid = int(lock.read_text() or 0)
        if pid:
            os.kill(pid, signal.SIGTERM)


def bench_hooks(
    root: Path, calls: list[dict[str, Any]], warm: bool
) -> tuple[list[float], list[float]]:
    (root / "charter.toml").write_text(f"[hooks]\nwarm_worker = {str(warm).lower()}\n")
    sock = start_worker(root) if warm else None
    pre: list[float] = []
    post: list[float] = []
    try:
        for index, call in enumerate(calls):
            payload = {
                "session_id": "bench",
                "cwd": str(root),
                "tool_use_id": f"toolu_{index}",
                **call,
            }
            pre.append(
                run(
                    root,
                    "hook",
                    "pre-tool-use",
                    stdin=json.dumps({**payload, "hook_event_name": "PreToolUse"}),
                )
            )
            post.append(
                run(
                    root,
                    "hook",
                    "post-tool-use",
                    stdin=json.dumps({**payload, "hook_event_name": "PostToolUse"}),
                )
            )
    finally:
        if sock is not None:
            stop_worker(sock)
    return pre, post


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--hook-calls", type=int, default=60, help="hook processes timed per mode")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from charter.config import Project
    from charter.session.compaction import compact
    from charter.session.recovery import recover
    from charter.session.service import Session

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        calls = tool_calls(root, args.calls)
        warm_pre, warm_post = bench_hooks(root, calls[: args.hook_calls], warm=True)
        cold_pre, cold_post = bench_hooks(root, calls[: args.hook_calls // 3], warm=False)
        print(
            f"pre-tool-use  p50 warm worker {ms(warm_pre)} (p90 {p90(warm_pre)}); "
            f"cold process {ms(cold_pre)}"
        )
        print(
            f"post-tool-use p50 warm worker {ms(warm_post)} (p90 {p90(warm_post)}); "
            f"cold process {ms(cold_post)}"
        )

        compact_times: list[float] = []
        recover_times: list[float] = []
        for run_index in range(args.runs):
            project_root = Path(tmp) / f"s{run_index}"
            project_root.mkdir()
            subprocess.run(["git", "init", "-q", str(project_root)], check=True)
            session = Session(Project.load(project_root))
            capture = session.capture("bench")
            for index, call in enumerate(tool_calls(project_root, args.calls)):
                if index % 10 == 0:
                    capture.prompt({"prompt": f"Keep step {index} small; never add globals."})
                capture.tool(call, failed=False)
            start = time.perf_counter()
            compact(session, "bench", trigger="auto")
            compact_times.append(time.perf_counter() - start)
            recover(session, "bench")  # first call loads the tokenizer
            start = time.perf_counter()
            recover(session, "bench")
            recover_times.append(time.perf_counter() - start)
            session.close()
        last = Path(tmp) / f"s{args.runs - 1}"
        cli_compact = [run(last, "session", "compact", "--session", "bench") for _ in range(3)]
        cli_recover = [run(last, "session", "recover", "--json") for _ in range(3)]
        print(
            f"compaction of a {args.calls}-call session p50 {ms(compact_times)} in-process; "
            f"CLI process {ms(cli_compact)}"
        )
        print(f"recovery p50 {ms(recover_times)} in-process; CLI process {ms(cli_recover)}")


if __name__ == "__main__":
    main()
