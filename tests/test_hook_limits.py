"""Hostile hook input and a tampered decisions store, through real ``charter hook``
subprocesses fed Claude Code hook JSON: every hook answers (exit 0, a note) within its
deadline and in bounded memory; enforcement fails closed."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.decisions import service
from charter.integrations.claude_code import channel
from charter.paths import worker_socket
from tests.conftest import CHARTER, hook_payload, run_hook, start_worker, write
from tests.decisions_support import decisions, no_worker

Run = Callable[..., subprocess.CompletedProcess[str]]
BAD = "Done. We could also consider a native mobile application for field staff later."
RULES = "# Rules\n\n## Security\n\n- Never commit secrets.\n\n## Database\n\n- Use Alembic.\n"
DEADLINE = 20.0


def _measured(cwd: Path, event: str, stdin: bytes | str, **env: str) -> dict[str, Any]:
    """Run one hook in a fresh parent that reports the hook's peak RSS (KiB) and time."""
    probe = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.monotonic()\n"
        "p = subprocess.run(sys.argv[1:], stdin=sys.stdin, capture_output=True)\n"
        "print(json.dumps({'rc': p.returncode, 'out': p.stdout.decode(errors='replace'),\n"
        "  'err': p.stderr.decode(errors='replace'), 'seconds': time.monotonic() - t,\n"
        "  'rss_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n"
    )
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-c", probe, *CHARTER, "hook", event],
        cwd=cwd,
        input=data,
        capture_output=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.fixture
def bound(repo: Path) -> Project:
    write(repo, "CLAUDE.md", RULES)
    no_worker(repo, '[drift]\non_stop = "block"\n')
    project = Project.load(repo)
    service.record(project, decisions(), "merge")
    return project


def test_deeply_nested_and_oversized_stdin_fail_open(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    no_worker(repo)
    nested = '{"prompt": ' * 200_000 + "1" + "}" * 200_000
    for stdin, expected in (
        (nested, "nested too deeply"),
        ("[" * 1_000_000, "nested too deeply"),
        (json.dumps({"prompt": "x" * (5 * 1024 * 1024)}), "over 4 MiB"),
        # under the cap but huge: answered from the prompt's start, in time
        (json.dumps({"prompt": "add a database column " * 180_000}), "rules chosen from"),
    ):
        out = _measured(repo, "user-prompt-submit", stdin)
        assert out["rc"] == 0
        assert ("Alembic" in out["out"]) is (expected == "rules chosen from")
        assert expected in out["err"] and "Traceback" not in out["err"], out["err"][-500:]
        assert out["seconds"] < DEADLINE


def test_endless_or_blocking_transcripts_are_refused(bound: Project, tmp_path: Path) -> None:
    fifo = tmp_path / "transcript.fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo), str(tmp_path)):
        stdin = hook_payload("Stop", bound.root, transcript_path=path, stop_hook_active=False)
        out = _measured(bound.root, "stop", stdin)
        assert out["rc"] == 0 and out["out"] == "", out
        assert "not a regular file" in out["err"] and "Traceback" not in out["err"]
        assert out["seconds"] < DEADLINE
        assert out["rss_kib"] < 1024 * 1024  # under 1 GiB


def test_a_named_pipe_among_the_track_files_is_one_note_not_a_wait(bound: Project) -> None:
    """A FIFO where the track's SPEC.md and PLAN.md would be: session-start and
    pre-compact opened it and waited (the hook gave up at its deadline, ``session state``
    never returned); now it is refused unopened, named in one note, within seconds."""
    start = _measured(bound.root, "session-start", hook_payload("SessionStart", bound.root))
    assert start["rc"] == 0, start["err"]
    track = (bound.root / "docs" / "tracks" / "ACTIVE_TRACK").read_text().strip()
    folder = bound.root / "docs" / "tracks" / track
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("SPEC.md", "PLAN.md"):
        os.mkfifo(folder / name)
    for event, command in (("SessionStart", "session-start"), ("PreCompact", "pre-compact")):
        out = _measured(bound.root, command, hook_payload(event, bound.root, trigger="auto"))
        assert out["rc"] == 0, out["err"]
        assert "SPEC.md" in out["err"] and "not a regular file" in out["err"], out["err"]
        assert "Traceback" not in out["err"]
        assert out["seconds"] < DEADLINE / 2, out
    proc = subprocess.run(
        [*CHARTER, "session", "state"],
        cwd=bound.root,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        start_new_session=True,
    )
    assert proc.returncode == 2, proc.stderr
    assert "SPEC.md" in proc.stderr and "not a regular file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_named_pipe_as_the_track_pointer_or_checkpoint_is_one_note_not_a_wait(
    bound: Project,
) -> None:
    """A FIFO as ``ACTIVE_TRACK`` made every hook wait out its deadline (pre-tool-use then
    denied with "no answer within 20s") and ``charter track list`` never return; a FIFO as
    the last checkpoint did the same to session-start. Now each is refused unopened."""
    tracks = bound.root / "docs" / "tracks"
    tracks.mkdir(parents=True)
    os.mkfifo(tracks / "ACTIVE_TRACK")
    prompt = _measured(bound.root, "user-prompt-submit", hook_payload("x", bound.root, prompt="db"))
    assert prompt["rc"] == 0 and "Alembic" in prompt["out"], prompt
    assert "ACTIVE_TRACK" in prompt["err"] and "not a regular file" in prompt["err"]
    tool = hook_payload("x", bound.root, tool_name="Bash", tool_input={"command": "ls"})
    guard = _measured(bound.root, "pre-tool-use", tool)
    reason = json.loads(guard["out"])["hookSpecificOutput"]["permissionDecisionReason"]
    assert "ACTIVE_TRACK" in reason and "not a regular file" in reason, reason
    for out in (prompt, guard):
        assert "Traceback" not in out["err"] and out["seconds"] < DEADLINE / 2, out
    proc = subprocess.run(
        [*CHARTER, "track", "list"], cwd=bound.root, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "ACTIVE_TRACK" in proc.stderr, proc.stderr
    (tracks / "ACTIVE_TRACK").unlink()
    (tracks / "ACTIVE_TRACK").write_text("main\n")
    checkpoints = bound.root / "artifacts" / "checkpoints" / "main"
    checkpoints.mkdir(parents=True)
    os.mkfifo(checkpoints / "latest.json")
    start = _measured(bound.root, "session-start", hook_payload("x", bound.root, source="compact"))
    assert start["rc"] == 0 and "latest.json" in start["err"], start
    assert "not a regular file" in start["err"] and start["seconds"] < DEADLINE / 2, start


def test_huge_transcript_is_read_from_its_tail(bound: Project, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    filler = json.dumps({"type": "user", "message": {"role": "user", "content": "y" * 4000}})
    last = {"type": "assistant", "message": {"role": "assistant", "content": BAD}}
    with transcript.open("w") as handle:
        for _ in range(5_000):  # ~20 MB
            handle.write(filler + "\n")
        handle.write("[" * 100_000 + "\n")  # a hostile line: skipped
        handle.write(json.dumps(last) + "\n")
    stdin = hook_payload("Stop", bound.root, transcript_path=str(transcript))
    out = _measured(bound.root, "stop", stdin)
    assert out["rc"] == 0, out["err"]
    reply = json.loads(out["out"])
    assert reply["decision"] == "block" and "native mobile application" in reply["reason"]
    assert out["rss_kib"] < 1024 * 1024 and out["seconds"] < DEADLINE


def _tamper(project: Project) -> None:
    store = service.store_for(project)
    store.path.write_text(store.path.read_text().replace("postgres", "mongodb"))


def _hook(root: Path, event: str, run_charter: Run, **extra: Any) -> tuple[Any, str]:
    proc = run_hook(run_charter, root, event, **extra)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return (json.loads(proc.stdout) if proc.stdout.strip() else None), proc.stderr


def test_tampered_decisions_block_stop_when_configured(bound: Project, run_charter: Run) -> None:
    _tamper(bound)
    root = bound.root
    for message in ("All done, tests pass.", BAD):
        out, err = _hook(root, "Stop", run_charter, last_assistant_message=message)
        assert out["decision"] == "block"
        assert "charter decisions verify" in out["reason"]
        assert "charter decisions restore" in out["reason"]
        assert "outside renegotiation" in err
    # Claude Code says the agent already continues because of a Stop hook: no loop
    again, _ = _hook(root, "Stop", run_charter, last_assistant_message=BAD, stop_hook_active=True)
    assert "decision" not in again and "decisions not checked" in again["systemMessage"]
    no_worker(root, '[drift]\non_stop = "warn"\n')
    warn, _ = _hook(root, "Stop", run_charter, last_assistant_message=BAD)
    assert "decision" not in warn and "outside renegotiation" in warn["systemMessage"]


def test_tampered_decisions_are_reported_to_the_agent_at_session_start(
    bound: Project, run_charter: Run
) -> None:
    out, _ = _hook(bound.root, "SessionStart", run_charter, source="startup")
    assert "PostgreSQL only" in out["hookSpecificOutput"]["additionalContext"]
    _tamper(bound)
    for source in ("startup", "compact"):
        out, err = _hook(bound.root, "SessionStart", run_charter, source=source)
        context = out["hookSpecificOutput"]["additionalContext"]
        assert "Never commit secrets" in context  # the constitution is still pinned
        assert "NOT VERIFIED" in context and "charter decisions verify" in context
        assert "PostgreSQL" not in context and "mongodb" not in context.lower()
        assert "outside renegotiation" in err


def test_worker_refuses_oversized_requests_and_stays_up(
    repo: Path, tmp_path: Path, run_charter: Run
) -> None:
    write(repo, "CLAUDE.md", RULES)
    env = {"TMPDIR": str(tmp_path), "XDG_RUNTIME_DIR": ""}
    sock = tmp_path / f"charter-{os.getuid()}" / worker_socket(repo).name
    sock, pid = start_worker(run_charter, repo, sock=sock, env=env)
    try:
        token = channel.read_token(sock)
        with socket.socket(socket.AF_UNIX) as raw:
            raw.settimeout(30)
            raw.connect(str(sock))
            head = json.dumps({"event": "stop", "token": token, "payload": {"p": ""}})[:-3]

            def flood() -> None:  # the worker stops reading and answers mid-way
                with contextlib.suppress(OSError):
                    raw.sendall(head.encode() + b"x" * (channel.MAX_REQUEST + 1024))

            sender = threading.Thread(target=flood)
            sender.start()
            reply = json.loads(raw.recv(65536).decode())
            sender.join(30)
        assert reply["output"] is None and "refused" in reply["notes"][0]
        with socket.socket(socket.AF_UNIX) as raw:  # a silent client: refused in time
            raw.connect(str(sock))
            raw.settimeout(30)
            began = time.monotonic()
            assert b"timed out" in raw.recv(65536)
            assert time.monotonic() - began < 10
        proc = run_hook(
            run_charter, repo, "UserPromptSubmit", env=env, prompt="add a column, use Alembic?"
        )
        assert "Alembic" in proc.stdout and proc.stderr == "", proc.stderr
    finally:
        os.kill(pid, 15)


def test_memory_cap_stops_hook_and_worker(repo: Path, tmp_path: Path, run_charter: Run) -> None:
    write(repo, "CLAUDE.md", RULES)
    write(repo, "charter.toml", "[hooks]\nmax_memory_mb = 128\n")  # below a loaded model
    env = {"TMPDIR": str(tmp_path), "XDG_RUNTIME_DIR": ""}
    began = time.monotonic()
    proc = run_hook(run_charter, repo, "SessionStart", env=env)
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert "stopped at 128 MiB" in proc.stderr and "Traceback" not in proc.stderr
    assert time.monotonic() - began < DEADLINE
    sock = tmp_path / f"charter-{os.getuid()}" / worker_socket(repo).name
    lock = channel.lock_path(sock)
    deadline = time.time() + 60
    while not (lock.exists() and lock.read_text()) and time.time() < deadline:
        time.sleep(0.2)
    pid = int(lock.read_text())  # the worker was started, and its watchdog ends it
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(pid, 15)
        pytest.fail("the worker outgrew hooks.max_memory_mb and kept running")
    assert not sock.exists()


def test_stdin_that_never_closes_fails_open_in_time(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    no_worker(repo)
    began = time.monotonic()
    proc = subprocess.Popen(
        [*CHARTER, "hook", "user-prompt-submit"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write('{"prompt": "add a column"')  # and never closed
    proc.stdin.flush()
    try:
        proc.wait(timeout=30)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.stdin.close()
        proc.kill()
    assert proc.returncode == 0 and out == ""
    assert "not closed within" in err and "Traceback" not in err
    assert time.monotonic() - began < DEADLINE


def test_tampered_decisions_block_through_the_warm_worker(
    bound: Project, tmp_path: Path, run_charter: Run
) -> None:
    root = bound.root
    write(root, "charter.toml", '[drift]\non_stop = "block"\n')  # worker on
    env = {"TMPDIR": str(tmp_path), "XDG_RUNTIME_DIR": ""}
    sock = tmp_path / f"charter-{os.getuid()}" / worker_socket(root).name
    sock, pid = start_worker(run_charter, root, sock=sock, env=env)
    try:
        _tamper(bound)
        proc = run_hook(run_charter, root, "Stop", env=env, last_assistant_message="All done.")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["decision"] == "block" and "charter decisions restore" in out["reason"]
        assert "outside renegotiation" in proc.stderr  # the worker's note, relayed
    finally:
        os.kill(pid, 15)


@pytest.mark.parametrize("warm", [False, True])
def test_a_prompt_ending_in_half_an_emoji_is_answered_and_recorded(
    repo: Path, tmp_path: Path, run_charter: Run, warm: bool
) -> None:
    """JSON's ``"\\ud83d"`` (half a surrogate pair, as a cut emoji leaves) decodes to a
    lone surrogate, which no UTF-8 text holds: the prompt's rules and its record were
    both lost ("surrogates not allowed", "TextEncodeInput must be …"). It is read as
    U+FFFD with one note, in the client and in the warm worker alike."""
    write(repo, "CLAUDE.md", RULES)
    env = {"TMPDIR": str(tmp_path), "XDG_RUNTIME_DIR": ""}
    pid = None
    if warm:
        sock = tmp_path / f"charter-{os.getuid()}" / worker_socket(repo).name
        _, pid = start_worker(run_charter, repo, sock=sock, env=env)
    else:
        no_worker(repo)
    try:
        prompt = "add a database column with Alembic \ud83d"
        proc = run_hook(run_charter, repo, "UserPromptSubmit", env=env, prompt=prompt)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert "not valid Unicode" in proc.stderr and "skipped" not in proc.stderr
        assert "Use Alembic." in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        stored = b"".join(path.read_bytes() for path in (repo / ".charter").glob("session.db*"))
        assert b"add a database column with Alembic" in stored  # the prompt is on record
    finally:
        if pid is not None:
            os.kill(pid, 15)


@pytest.mark.parametrize("prompt", [["add a database column"], {"text": "add a database column"}])
def test_a_prompt_that_is_not_text_is_one_note_not_its_repr(
    repo: Path, run_charter: Run, prompt: object
) -> None:
    write(repo, "CLAUDE.md", RULES)
    no_worker(repo)
    proc = run_hook(run_charter, repo, "UserPromptSubmit", prompt=prompt)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    kind = type(prompt).__name__
    assert f"prompt is {kind}, not text; ignored" in proc.stderr, proc.stderr
    # the repr ("['add a database column']") is neither answered nor recorded as the prompt
    assert "Alembic" not in proc.stdout
    for stored in (repo / ".charter").glob("session.db*"):
        assert b"database column" not in stored.read_bytes(), stored.name


def test_a_prompt_that_is_not_text_is_dropped_by_the_warm_worker_too(
    repo: Path, tmp_path: Path, run_charter: Run
) -> None:
    """The fast client hands the input to the worker unparsed, so the worker drops a
    prompt that is not text itself, and its note reaches stderr."""
    write(repo, "CLAUDE.md", RULES)
    env = {"TMPDIR": str(tmp_path), "XDG_RUNTIME_DIR": ""}
    sock = tmp_path / f"charter-{os.getuid()}" / worker_socket(repo).name
    _, pid = start_worker(run_charter, repo, sock=sock, env=env)
    try:
        prompt = ["add a database column"]
        proc = run_hook(run_charter, repo, "UserPromptSubmit", env=env, prompt=prompt)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert "prompt is list, not text; ignored" in proc.stderr, proc.stderr
        assert "Alembic" not in proc.stdout
    finally:
        os.kill(pid, 15)
