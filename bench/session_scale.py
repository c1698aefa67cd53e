"""Hooks at large session state: a days-long session grown through the real front doors
(prints medians; not a timed test).

    .venv/bin/python bench/session_scale.py [--calls 5000] [--prompts 2000] \
        [--plan-steps 300] [--decisions 500] [--risks 200] [--compactions 20] \
        [--tracks 50] [--transcript-mb 50] [--runs 5] [--keep DIR]
    # grow once, keep every stage, then time the kept stages with any code tree:
    .venv/bin/python bench/session_scale.py --snapshots DIR --no-measure
    .venv/bin/python bench/session_scale.py --measure DIR --runs 5

A temporary git repository with a small CLAUDE.md is grown stage by stage, every write
through a real front door: ``charter hook post-tool-use`` / ``user-prompt-submit`` /
``pre-compact`` / ``session-start`` processes fed Claude Code's hook JSON on stdin (with
the warm worker, as in a real session), a transcript in Claude Code's JSONL format
written alongside (tool_use / tool_result / prompt entries, assistant ``Decision:`` and
``Risk:`` blocks, ``compact_boundary`` markers; tool output pads it to ``--transcript-mb``
over the session), and ``charter track new`` for the tracks. Stages: the baseline, the
work log (``--calls`` tool calls), the prompts (user instructions), the plan (a
``--plan-steps`` TodoWrite list, updated), decisions and risks (assistant blocks picked up
by ``--compactions`` PreCompact + SessionStart(compact) rounds), the tracks.

After each stage every hook is timed ``--runs`` times cold (a fresh process, no warm
worker: ``hooks.warm_worker = false``) and warm (through the worker; SessionStart always
runs in-process, so its warm figure is a second process with the OS caches warm), with
the cold process's peak RSS and CPU from ``/usr/bin/time -v`` and the warm hook's CPU
(client process + worker, from ``/proc``). Linux only (``/usr/bin/time``, ``/proc``).
Checked each time: SessionStart and UserPromptSubmit context under Claude Code's 10,000
characters, and a rule the prompt hook injected not injected again for the same prompt in
the same conversation. Also printed: the sizes of the stores (journal, work log, track
files, checkpoints, transcript).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import commit_all

SESSION = "5f0c1d2e-scale-bench"
HOOKS = (
    "pre-tool-use",
    "post-tool-use",
    "user-prompt-submit",
    "pre-compact",
    "session-start",
    "stop",
)
CLAUDE_MD = """# Project rules

## Testing
- Run the unit tests with `pytest -q` before every commit.
- Never mock the database in integration tests; use the SQLite fixture.

## Style
- Use type hints on every public function.
- Keep modules under 400 lines; split by responsibility.

## Dependencies
- Use uv for Python dependencies, never pip install directly.
- Do not add a dependency without asking the user.
"""


def charter_exe() -> str:
    return str(Path(sys.executable).with_name("charter"))


class Transcript:
    """Claude Code's JSONL transcript of the session, written as the hooks are fed."""

    def __init__(self, path: Path, cwd: Path, pad_bytes: int) -> None:
        self.path = path
        self.cwd = str(cwd)
        self.pad = pad_bytes
        self.n = 0
        self.parent: str | None = None
        self.handle = path.open("a", encoding="utf-8")

    def time(self) -> str:
        # one entry every ~3 s from a fixed start: deterministic
        t = 1_780_000_000 + self.n * 3
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{self.n % 1000:03d}Z"

    def _write(self, kind: str, message: dict[str, Any], **extra: Any) -> str:
        self.n += 1
        uuid = f"00000000-0000-4000-8000-{self.n:012d}"
        entry = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": SESSION,
            "version": "2.1.63",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": self.time(),
            **extra,
        }
        self.handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.parent = uuid
        return uuid

    def prompt(self, text: str) -> None:
        self._write("user", {"role": "user", "content": text})

    def tool_use(self, tool_id: str, tool: str, tool_input: dict[str, Any]) -> None:
        self._write(
            "assistant",
            {
                "model": "claude-sonnet-4-6",
                "id": f"msg_{tool_id}",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}],
            },
        )

    def tool_result(self, tool_id: str, output: str) -> None:
        body = output + "\n" + ("    x = compute(value)  # padding line\n" * (self.pad // 40))
        self._write(
            "user",
            {
                "role": "user",
                "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": body}],
            },
            toolUseResult={"stdout": body[:2000], "stderr": "", "interrupted": False},
        )

    def assistant_text(self, text: str) -> None:
        self._write(
            "assistant",
            {
                "model": "claude-sonnet-4-6",
                "id": f"msg_t{self.n}",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            },
        )

    def compact_boundary(self) -> None:
        self.n += 1
        entry = {
            "parentUuid": None,
            "isSidechain": False,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "sessionId": SESSION,
            "timestamp": self.time(),
            "compactMetadata": {"trigger": "auto", "preTokens": 170000},
        }
        self.handle.write(json.dumps(entry) + "\n")

    def flush(self) -> None:
        self.handle.flush()


class Bench:
    def __init__(self, root: Path, transcript: Transcript) -> None:
        self.root = root
        self.t = transcript
        self.env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
        self.calls = 0
        self.cpu = 0.0

    def payload(self, event: str, **extra: Any) -> str:
        self.t.flush()
        return json.dumps(
            {
                "session_id": SESSION,
                "transcript_path": str(self.t.path),
                "cwd": str(self.root),
                "hook_event_name": event,
                "permission_mode": "default",
                **extra,
            }
        )

    def hook(self, name: str, stdin: str, *, rss: bool = False) -> tuple[float, int, str, str]:
        """(seconds, peak RSS KiB or 0, stdout, stderr) of one ``charter hook`` process;
        with ``rss``, the process's CPU seconds (user + system) go to ``self.cpu``."""
        cmd = [charter_exe(), "hook", name]
        if rss:
            cmd = ["/usr/bin/time", "-v", *cmd]
        start = time.perf_counter()
        proc = subprocess.run(
            cmd,
            cwd=self.root,
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
        )
        took = time.perf_counter() - start
        peak = 0
        err = proc.stderr
        if rss:
            match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
            peak = int(match.group(1)) if match else 0
            self.cpu = sum(
                float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", err)
            )
            err = (
                err[: err.find("\tCommand being timed")] if "\tCommand being timed" in err else err
            )
        if proc.returncode != 0:
            raise SystemExit(f"charter hook {name} exit {proc.returncode}: {err[-2000:]}")
        return took, peak, proc.stdout, err

    def cli(self, *args: str) -> str:
        proc = subprocess.run(
            [charter_exe(), *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=300,
        )
        if proc.returncode != 0:
            raise SystemExit(f"charter {' '.join(args)} exit {proc.returncode}: {proc.stderr}")
        return proc.stdout

    # -- growth through the front doors ---------------------------------------------------

    def tool_call(self, tool: str, tool_input: dict[str, Any], response: Any, output: str) -> None:
        self.calls += 1
        tool_id = f"toolu_{self.calls:08d}"
        self.t.tool_use(tool_id, tool, tool_input)
        self.t.tool_result(tool_id, output)
        self.hook(
            "post-tool-use",
            self.payload(
                "PostToolUse",
                tool_name=tool,
                tool_input=tool_input,
                tool_response=response,
                tool_use_id=tool_id,
            ),
        )

    def work(self, n: int) -> None:
        for i in range(n):
            if i % 3 == 0:
                path = str(self.root / f"src/mod_{i % 60}.py")
                self.tool_call(
                    "Edit",
                    {"file_path": path, "old_string": "a", "new_string": "b"},
                    {"filePath": path},
                    "The file has been updated.",
                )
            elif i % 11 == 0:
                cmd = f"python -m pytest tests/test_mod_{i % 9}.py -q"
                out = f"{'.' * 40}\n{40 - i % 2} passed, {i % 2} failed in 1.2s"
                self.tool_call("Bash", {"command": cmd}, {"stdout": out, "stderr": ""}, out)
            elif i % 5 == 0:
                self.tool_call(
                    "Grep",
                    {"pattern": f"def handler_{i % 77}"},
                    {"numFiles": 3},
                    "src/a.py\nsrc/b.py",
                )
            else:
                path = str(self.root / f"src/mod_{i % 60}.py")
                self.tool_call("Read", {"file_path": path}, {"type": "text"}, f"contents of {path}")

    def prompts(self, n: int) -> None:
        for i in range(n):
            text = (
                f"For step {i}: keep the handler_{i % 97} change small and never touch "
                f"the public API of module {i % 13}; use pytest -q for the check."
            )
            if i % 10 == 0:  # some long prompts with a pasted log
                text += "\n\nTraceback (most recent call last):\n" + (
                    f'  File "src/mod_{i % 60}.py", line {i}, in run\n' * 30
                )
            self.t.prompt(text)
            self.hook("user-prompt-submit", self.payload("UserPromptSubmit", prompt=text))

    def plan(self, steps: int, updates: int) -> None:
        for u in range(updates):
            todos = [
                {
                    "content": f"Step {j}: implement part {j} of the migration plan",
                    "status": "completed" if j < u * steps // max(updates, 1) else "pending",
                    "activeForm": f"Implementing part {j}",
                }
                for j in range(steps)
            ]
            self.tool_call("TodoWrite", {"todos": todos}, {"newTodos": todos}, "Todos updated")

    def decisions_and_risks(self, decisions: int, risks: int, compactions: int) -> list[float]:
        times = []
        for c in range(compactions):
            lo, hi = c * decisions // compactions, (c + 1) * decisions // compactions
            rlo, rhi = c * risks // compactions, (c + 1) * risks // compactions
            blocks = [
                f"Decision: Use approach {k} for the storage layer of part {k}\n"
                f"Reason: benchmark {k} showed it is simpler\nImpact: src/part_{k}/"
                for k in range(lo, hi)
            ]
            blocks += [
                f"Risk: Part {k} may regress under load {k}\nSeverity: "
                f"{('low', 'medium', 'high')[k % 3]}\nMitigation: load test {k}"
                for k in range(rlo, rhi)
            ]
            self.t.assistant_text("Here is where we stand.\n\n" + "\n\n".join(blocks))
            self.work(10)
            took, _, _, _ = self.hook(
                "pre-compact", self.payload("PreCompact", trigger="auto", custom_instructions="")
            )
            times.append(took)
            self.t.compact_boundary()
            self.t.prompt("This session is being continued from a previous conversation...")
            self.hook("session-start", self.payload("SessionStart", source="compact"))
        return times

    def tracks(self, n: int) -> None:
        active = (self.root / "docs/tracks/ACTIVE_TRACK").read_text().strip()
        for i in range(n):
            self.cli("track", "new", f"feature-{i:02d}")
        self.cli("track", "switch", active)

    # -- the worker -----------------------------------------------------------------------

    def set_warm(self, warm: bool) -> None:
        (self.root / "charter.toml").write_text(f"[hooks]\nwarm_worker = {str(warm).lower()}\n")
        if not warm:
            self.stop_worker()

    def worker_pid(self) -> int:
        from charter.paths import worker_socket

        lock = worker_socket(self.root).with_suffix(".lock")
        try:
            return int(lock.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def start_worker(self) -> None:
        self.hook("session-start", self.payload("SessionStart", source="resume"))
        deadline = time.time() + 60
        while not self.worker_pid() and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)

    def worker_alive(self) -> bool:
        """Whether a worker holds the project's worker lock (it does for its lifetime)."""
        import fcntl

        from charter.paths import worker_socket

        try:
            fd = os.open(worker_socket(self.root).with_suffix(".lock"), os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def stop_worker(self) -> None:
        """Stop the worker, and one a hook just spawned (it takes the lock a moment later)."""
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.worker_alive():
                pid = self.worker_pid()
                if pid:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGTERM)
                time.sleep(0.1)
                continue
            time.sleep(1.0)  # a worker being spawned has not taken its lock yet
            if not self.worker_alive():
                return

    def worker_cpu(self) -> float:
        """CPU seconds the worker has used so far (0 without one): a warm hook's cost is
        its client process plus what the worker spent answering it."""
        try:
            fields = Path(f"/proc/{self.worker_pid()}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def worker_hwm_mb(self) -> float:
        pid = self.worker_pid()
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return 0.0
        match = re.search(r"VmHWM:\s+(\d+) kB", status)
        return int(match.group(1)) / 1024 if match else 0.0

    # -- measurement ----------------------------------------------------------------------

    def probe(self, name: str) -> str:
        """One representative input per hook (tool-call hooks on a project file)."""
        self.calls += 1
        tool_id = f"toolu_{self.calls:08d}"
        path = str(self.root / "src/mod_1.py")
        tool = {
            "tool_name": "Edit",
            "tool_use_id": tool_id,
            "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
        }
        if name == "pre-tool-use":
            self.t.tool_use(tool_id, "Edit", tool["tool_input"])
            return self.payload("PreToolUse", **tool)
        if name == "post-tool-use":
            self.t.tool_result(tool_id, "ok")
            return self.payload("PostToolUse", **tool, tool_response={"filePath": path})
        if name == "user-prompt-submit":
            return self.payload(
                "UserPromptSubmit", prompt="How should tests mock the database here?"
            )
        if name == "pre-compact":
            return self.payload("PreCompact", trigger="manual", custom_instructions="")
        if name == "session-start":
            return self.payload("SessionStart", source="compact")
        return self.payload(
            "Stop",
            stop_hook_active=False,
            last_assistant_message="I changed the handler and ran pytest -q; "
            "all tests pass. The storage layer keeps approach 3.",
        )

    def measure(self, runs: int) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        self.set_warm(False)
        for name in HOOKS:
            times, cpus, peaks, ctx = [], [], [], 0
            for _ in range(runs):
                took, peak, stdout, _ = self.hook(name, self.probe(name), rss=True)
                times.append(took)
                cpus.append(self.cpu)
                peaks.append(peak)
                ctx = max(ctx, context_chars(stdout))
            out[name] = {
                "cold": statistics.median(times),
                "cpu": statistics.median(cpus),
                "rss": max(peaks),
                "ctx": ctx,
            }
        self.set_warm(True)
        self.start_worker()
        for name in HOOKS:
            times, cpus = [], []
            for _ in range(runs):
                before = self.worker_cpu()
                took, _, stdout, _ = self.hook(name, self.probe(name), rss=True)
                times.append(took)
                cpus.append(self.cpu + self.worker_cpu() - before)
                out[name]["ctx"] = max(out[name]["ctx"], context_chars(stdout))
            out[name]["warm"] = statistics.median(times)
            out[name]["warm_cpu"] = statistics.median(cpus)
        out["worker"] = {"hwm": self.worker_hwm_mb()}
        out["inject"] = {"twice": self.injected_twice()}
        return out

    def injected_twice(self) -> bool:
        """A fresh conversation (SessionStart startup), then the same prompt twice: the
        second must not inject a rule the first did. The first prompt is written to the
        transcript in between, as Claude Code does: the same prompt on an unchanged
        transcript is a retry of a lost answer, which gets its rules again."""
        self.hook("session-start", self.payload("SessionStart", source="startup"))
        prompt = "Add a test for the handler; how do we mock the database in tests?"
        first = self.hook("user-prompt-submit", self.payload("UserPromptSubmit", prompt=prompt))[2]
        self.t.prompt(prompt)
        second = self.hook("user-prompt-submit", self.payload("UserPromptSubmit", prompt=prompt))[2]
        lines = {ln for ln in context_text(first).splitlines() if ln.startswith("- ")}
        again = {ln for ln in context_text(second).splitlines() if ln.startswith("- ")}
        return bool(lines & again) or not lines

    def sizes(self) -> dict[str, int]:
        def size(path: Path) -> int:
            if path.is_file():
                return path.stat().st_size
            return (
                sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
                if path.exists()
                else 0
            )

        return {
            "journal": sum(size(p) for p in (self.root / ".charter").glob("session.db*")),
            "work_log": sum(
                size(p) for p in (self.root / "artifacts/sessions").rglob("work_log.md")
            ),
            "tracks": size(self.root / "docs/tracks"),
            "checkpoints": size(self.root / "artifacts/checkpoints"),
            "charter_state": size(self.root / ".charter"),
            "transcript": size(self.t.path),
        }


def context_text(stdout: str) -> str:
    if not stdout.strip():
        return ""
    data = json.loads(stdout)
    return str((data.get("hookSpecificOutput") or {}).get("additionalContext") or "")


def context_chars(stdout: str) -> int:
    return len(context_text(stdout))


def report(stage: str, figures: dict[str, dict[str, Any]], sizes: dict[str, int]) -> None:
    print(f"\n== {stage}")
    print("  " + ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sizes.items()))
    print(
        f"  {'hook':20} {'cold p50':>9} {'cold CPU':>9} {'warm p50':>9} {'warm CPU':>9} "
        f"{'cold RSS':>9} {'context':>8}"
    )
    for name in HOOKS:
        f = figures[name]
        print(
            f"  {name:20} {f['cold'] * 1000:7.0f}ms {f['cpu'] * 1000:7.0f}ms "
            f"{f['warm'] * 1000:7.0f}ms {f['warm_cpu'] * 1000:7.0f}ms "
            f"{f['rss'] / 1024:7.0f}MB {f['ctx']:8d}"
        )
    print(f"  (load average {os.getloadavg()[0]:.1f})")
    print(
        f"  worker peak RSS {figures['worker']['hwm']:.0f} MB; "
        f"a rule injected twice: {'YES' if figures['inject']['twice'] else 'no'}; "
        f"largest context {max(figures[n]['ctx'] for n in HOOKS)} chars (limit 10000)"
    )
    sys.stdout.flush()


def snapshot(bench: Bench, out: Path | None, index: int, stage: str) -> None:
    """Keep a copy of the grown project and transcript (``--measure`` times it again)."""
    if out is None:
        return
    bench.stop_worker()
    bench.t.flush()
    dest = out / f"{index:02d}"
    shutil.copytree(bench.root, dest / "proj", symlinks=True)
    shutil.copy2(bench.t.path, dest / bench.t.path.name)
    (dest / "stage.txt").write_text(stage + "\n")


def measure_snapshots(source: Path, runs: int) -> None:
    """Time the hooks on each kept stage, on a fresh copy (the timing runs write to it)."""
    for stage_dir in sorted(p for p in source.iterdir() if (p / "stage.txt").exists()):
        with tempfile.TemporaryDirectory(prefix="charter-scale-") as tmp:
            base = Path(tmp)
            shutil.copytree(stage_dir / "proj", base / "proj", symlinks=True)
            shutil.copy2(stage_dir / f"{SESSION}.jsonl", base / f"{SESSION}.jsonl")
            transcript = Transcript(base / f"{SESSION}.jsonl", base / "proj", 0)
            with transcript.path.open("rb") as handle:
                transcript.n = sum(1 for _ in handle)
            bench = Bench(base / "proj", transcript)
            bench.calls = 10**7
            try:
                stage = (stage_dir / "stage.txt").read_text().strip()
                report(stage, bench.measure(runs), bench.sizes())
            finally:
                bench.stop_worker()
                transcript.handle.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--prompts", type=int, default=2000)
    parser.add_argument("--plan-steps", type=int, default=300)
    parser.add_argument("--plan-updates", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=500)
    parser.add_argument("--risks", type=int, default=200)
    parser.add_argument("--compactions", type=int, default=20)
    parser.add_argument("--tracks", type=int, default=50)
    parser.add_argument("--transcript-mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    parser.add_argument("--snapshots", type=Path, help="keep a copy of every stage here")
    parser.add_argument("--no-measure", action="store_true", help="only grow (and keep)")
    parser.add_argument("--measure", type=Path, help="time the hooks on kept --snapshots")
    args = parser.parse_args()
    if args.measure:
        print(f"stages kept in {args.measure}; {args.runs} runs per hook and mode")
        measure_snapshots(args.measure, args.runs)
        return

    base = args.keep or Path(tempfile.mkdtemp(prefix="charter-scale-"))
    root = base / "proj"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    (root / "src").mkdir()
    for i in range(60):
        (root / f"src/mod_{i}.py").write_text(f"def handler_{i}():\n    return {i}\n")
    (root / "CLAUDE.md").write_text(CLAUDE_MD)
    commit_all(root)
    for i in range(0, 60, 2):  # a working tree with changes: edits refresh recent_diff
        (root / f"src/mod_{i}.py").write_text(f"def handler_{i}():\n    return {i + 1}\n")
    # tool output pads the transcript to --transcript-mb over all the calls of the session
    total_calls = args.calls + args.plan_updates + args.compactions * 10
    pad = int(args.transcript_mb * 1e6 / max(total_calls, 1))
    transcript = Transcript(base / f"{SESSION}.jsonl", root, pad)
    bench = Bench(root, transcript)
    bench.set_warm(True)
    bench.hook("session-start", bench.payload("SessionStart", source="startup"))
    bench.start_worker()
    print(f"project {root}; {args.runs} runs per hook and mode")
    try:
        stages = 0

        def stage(name: str) -> None:
            nonlocal stages
            if not args.no_measure:
                report(name, bench.measure(args.runs), bench.sizes())
            snapshot(bench, args.snapshots, stages, name)
            stages += 1
            bench.set_warm(True)
            bench.start_worker()

        stage("baseline (empty session)")
        grown = time.perf_counter()
        bench.work(args.calls)
        print(f"(grew {args.calls} tool calls in {time.perf_counter() - grown:.0f} s)")
        stage(f"work log: {args.calls} tool calls")
        grown = time.perf_counter()
        bench.prompts(args.prompts)
        print(f"(grew {args.prompts} prompts in {time.perf_counter() - grown:.0f} s)")
        stage(f"+ {args.prompts} user prompts")
        bench.plan(args.plan_steps, args.plan_updates)
        stage(f"+ a {args.plan_steps}-step plan ({args.plan_updates} TodoWrites)")
        compact_times = bench.decisions_and_risks(args.decisions, args.risks, args.compactions)
        print(
            f"(PreCompact during growth: first {compact_times[0] * 1000:.0f} ms, "
            f"p50 {statistics.median(compact_times) * 1000:.0f} ms, "
            f"max {max(compact_times) * 1000:.0f} ms)"
        )
        stage(f"+ {args.decisions} decisions, {args.risks} risks, {args.compactions} compactions")
        bench.tracks(args.tracks)
        stage(f"+ {args.tracks} tracks")
        sys.stdout.flush()
    finally:
        bench.stop_worker()
        transcript.handle.close()
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
