"""Crash and concurrency tests of the stores ``tests/test_crash_safety.py``,
``tests/test_session_crash.py`` and ``tests/test_install_crash.py`` do not cover: the
project graph (snapshot, file cache, capsule, findings), the inject-once store, rules
export, compiles racing prompt hooks (rules state, vector cache), the warm worker's
runtime files, session writes from MCP and the CLI at once, the guardrails audit log,
the session handoff object and the SQLite schema migrations. The table of every store
and its tests is in ``docs/benchmarks.md`` ("Crash safety").

Writers are real ``charter`` subprocesses (or library writers in their own processes),
killed with SIGKILL through ``$CHARTER_FAULT`` or run many at once; then a reader and
the next run must see the previous or the new state whole, and nothing acknowledged
may be missing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from charter.graph.build import read_snapshot
from tests.conftest import CHARTER, charter_run, hook_payload

CONFIG = '[embed]\nprovider = "hash"\n'


def _run(
    *args: str, cwd: Path, fault: str = "", stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``charter ARGS``, killed at ``fault`` when one is named (and never otherwise)."""
    if fault:
        return charter_run(*args, cwd=cwd, stdin=stdin, env={"CHARTER_FAULT": fault})
    return charter_run(*args, cwd=cwd, stdin=stdin, unset=("CHARTER_FAULT",))


def _project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text(CONFIG, encoding="utf-8")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


# -- the project graph ------------------------------------------------------------------

GRAPH_V1 = {
    "src/billing.py": (
        "from src.tax import vat\n\n\ndef alpha_total(xs):\n    return sum(xs) * vat()\n"
    ),
    "src/tax.py": "def vat():\n    return 1.2\n",
}
GRAPH_V2 = {**GRAPH_V1, "src/billing.py": "def bravo_total(xs):\n    return sum(xs)\n"}
#: each write of ``charter graph build`` (before its rename)
GRAPH_STEPS = [
    "atomic.listing.json",
    "atomic.snapshot.json",
    "atomic.files.json",
    "atomic.built.json",
    "atomic.contract-capsule.json",
]


def _graph(root: Path) -> dict[str, object]:
    res = _run("graph", "build", "--json", cwd=root)
    assert res.returncode == 0, res.stderr
    snapshot = read_snapshot(root / ".charter/graph/snapshot.json")
    return {"id": snapshot["snapshot_id"], "nodes": sorted(n["id"] for n in snapshot["nodes"])}


def _set_tree(root: Path, files: dict[str, str], mtimes: dict[str, int] | None = None) -> None:
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
        if mtimes:
            os.utime(root / rel, ns=(mtimes[rel], mtimes[rel]))


@pytest.mark.parametrize("step", GRAPH_STEPS)
def test_graph_build_killed_at_each_write_serves_the_tree_on_disk(
    tmp_path: Path, step: str
) -> None:
    """Killed between snapshot.json and files.json, then the tree goes back to the bytes
    and mtimes the cache knows (a restore, ``cp -p``, or a second build of another tree
    interleaving its writes): the next build must not serve the other tree's snapshot."""
    root = _project(tmp_path / "g", GRAPH_V1)
    expected_v1 = _graph(root)
    mtimes = {rel: (root / rel).stat().st_mtime_ns for rel in GRAPH_V1}
    clean = _project(tmp_path / "clean", GRAPH_V2)
    expected_v2 = _graph(clean)
    assert expected_v1 != expected_v2
    _set_tree(root, GRAPH_V2)
    # the listing is written only when a folder's entry changes: the first build saw
    # ``src/`` modified within the racy window and noted no mtime; one settled since makes
    # this build write it, however fast the machine (a fast one met the window twice and
    # never reached the listing write)
    settled = time.time_ns() - 10_000_000_000
    os.utime(root / "src", ns=(settled, settled))
    assert _run("graph", "build", cwd=root, fault=step).returncode == -9
    for name in ("snapshot.json", "files.json", "contract-capsule.json", "built.json"):
        path = root / ".charter/graph" / name
        if path.exists():
            json.loads(path.read_text(encoding="utf-8"))  # whole, never half written
    # back to the bytes and mtimes the old cache knows: the killed build's snapshot of
    # the other tree must not be served beside it
    _set_tree(root, GRAPH_V1, mtimes)
    assert _graph(root) == expected_v1, "a snapshot of another tree was served"
    _set_tree(root, GRAPH_V2)
    assert _graph(root) == expected_v2
    assert not list((root / ".charter/graph").glob(".*.tmp*"))


def test_parallel_graph_builds_and_readers_while_files_change(tmp_path: Path) -> None:
    """Six builders and task-context readers at once, per round, while the tree changes
    between rounds: every process succeeds, the files always parse, and once the tree
    is quiet the graph is the one a clean build of it gives."""
    root = _project(tmp_path / "g", GRAPH_V1)
    for round_ in range(4):
        tree = {**GRAPH_V1, "src/extra.py": f"def extra_{round_}():\n    return {round_}\n"}
        _set_tree(root, tree)
        argvs = [("graph", "build")] * 3 + [("task-context", f"extra {round_}", "--json")] * 3
        with ThreadPoolExecutor(len(argvs)) as pool:
            results = list(pool.map(lambda a: _run(*a, cwd=root), argvs))
        assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
        for name in ("snapshot.json", "files.json", "contract-capsule.json", "built.json"):
            json.loads((root / ".charter/graph" / name).read_text(encoding="utf-8"))
    clean = _project(
        tmp_path / "clean", {**GRAPH_V1, "src/extra.py": "def extra_3():\n    return 3\n"}
    )
    assert _graph(root) == _graph(clean)
    assert not list((root / ".charter/graph").glob(".*.tmp*"))


def test_hook_state_writes_do_not_invalidate_the_graph(tmp_path: Path) -> None:
    """A prompt hook writes the inject-once store and the session journal under
    ``.charter/``; the graph is not built from them, so the next graph load must not
    re-link and rewrite files.json. A finding (which the graph is built from) must."""
    root = _project(tmp_path / "g", {**GRAPH_V1, "CLAUDE.md": RULES})
    assert _run("compile", cwd=root).returncode == 0

    def prompt(session: str) -> None:
        payload = hook_payload(
            "UserPromptSubmit", root, prompt="name the quokka3 queue", session_id=session
        )
        res = _run("hook", "user-prompt-submit", cwd=root, stdin=payload)
        assert res.returncode == 0 and "quokka3" in res.stdout

    prompt("first")  # creates the session's files in the project (docs/tracks/…)
    _graph(root)
    cache = root / ".charter/graph/files.json"
    stamp = cache.stat().st_mtime_ns
    injected = (root / ".charter/injected.db").stat().st_mtime_ns
    prompt("second")
    assert (root / ".charter/injected.db").stat().st_mtime_ns != injected
    _graph(root)
    assert cache.stat().st_mtime_ns == stamp, "a hook's state write rebuilt the graph"
    env = {k: v for k, v in os.environ.items() if k != "CHARTER_FAULT"}
    subprocess.run([sys.executable, "-c", FINDING, str(root), "f", "1"], env=env, check=True)
    assert "find:" in json.dumps(_graph(root)["nodes"])
    assert cache.stat().st_mtime_ns != stamp


FINDING = """
import sys
from charter.config import Project
from charter.graph.findings import record_findings
project = Project.load(sys.argv[1])
for n in range(int(sys.argv[3])):
    record_findings(project, [{"id": f"{sys.argv[2]}-{n}", "title": "t", "source": "lint"}])
"""


def test_findings_log_parallel_appends_and_a_torn_append(tmp_path: Path) -> None:
    root = _project(tmp_path / "f", {})
    env = {k: v for k, v in os.environ.items() if k != "CHARTER_FAULT"}
    procs = [
        subprocess.Popen([sys.executable, "-c", FINDING, str(root), f"w{i}", "15"], env=env)
        for i in range(8)
    ]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    torn = subprocess.run(
        [sys.executable, "-c", FINDING, str(root), "torn", "1"],
        env={**env, "CHARTER_FAULT": "append.torn"},
        timeout=300,
    )
    assert torn.returncode == -9
    after = subprocess.run([sys.executable, "-c", FINDING, str(root), "next", "1"], env=env)
    assert after.returncode == 0
    from charter.config import Project
    from charter.graph.findings import load_findings

    ids = {f["id"] for f in load_findings(Project.load(root))}
    assert ids == {f"w{i}-{n}" for i in range(8) for n in range(15)} | {"next-0"}


# -- the injected-once store (parallel prompt hooks) --------------------------------------

RULES = "# Rules\n\n" + "".join(
    f"- Rule {i}: always name the quokka{i} queue.\n" for i in range(12)
)


def test_parallel_prompt_hooks_never_inject_a_rule_twice(tmp_path: Path) -> None:
    """Prompt hooks of one session fired at once (Claude Code runs hooks in parallel,
    and two terminals share a session after ``--resume``): each rule is injected once in
    the session, never twice and never recorded without being given."""
    root = _project(tmp_path / "i", {"CLAUDE.md": RULES})
    assert _run("compile", cwd=root).returncode == 0
    prompts = [f"work on the quokka{i} queue and the quokka{(i + 5) % 12} queue" for i in range(12)]

    def prompt(text: str) -> subprocess.CompletedProcess[str]:
        payload = hook_payload("UserPromptSubmit", root, prompt=text, session_id="s-par")
        return _run("hook", "user-prompt-submit", cwd=root, stdin=payload)

    with ThreadPoolExecutor(len(prompts)) as pool:
        results = list(pool.map(prompt, prompts))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    given: list[str] = []
    for res in results:
        context = (
            json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
            if res.stdout.strip()
            else ""
        )
        # each rule by its citation: a small file's lines are cut short (brief_min_rules)
        given += [f"L{n}" for n in range(3, 15) if f"(L{n})" in context]
    assert len(given) == len(set(given)), f"a rule was injected twice: {sorted(given)}"
    with sqlite3.connect(root / ".charter/injected.db") as conn:
        stored = {r[0] for r in conn.execute("SELECT rule FROM injected WHERE session = 's-par'")}
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(stored) == len(given)


# -- rules export (files written into the user's repository) -----------------------------

EXPORT_RULES = (
    "# Rules\n\n## Tests\n\n- Run pytest before every commit.\n\n"
    "## Release\n\n- Never push tags by hand.\n\n## Style\n\n- Keep modules small.\n"
)


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_export_killed_midway_is_finished_and_leaves_no_temp_files(tmp_path: Path) -> None:
    root = _project(tmp_path / "e", {"CLAUDE.md": EXPORT_RULES})
    fresh = tmp_path / "fresh"
    res = _run("export", "cursor", "--out", str(fresh), "--json", cwd=root)
    assert res.returncode == 0, res.stderr
    names = [Path(f).name for f in json.loads(res.stdout)["files"]]
    assert len(names) >= 3
    for name in names[1:]:  # killed before the rename of the 2nd, 3rd, ... file
        out = tmp_path / f"out-{name}"
        assert (
            _run("export", "cursor", "--out", str(out), cwd=root, fault=f"atomic.{name}").returncode
            == -9
        )
        assert any(p.name.endswith(".tmp") for p in out.rglob(".*"))
        assert _run("export", "cursor", "--out", str(out), cwd=root).returncode == 0
        assert _tree(out) == _tree(fresh), "the next export finished the job, no temp left"


def test_parallel_exports_into_one_directory(tmp_path: Path) -> None:
    root = _project(tmp_path / "e", {"CLAUDE.md": EXPORT_RULES})
    assert _run("compile", cwd=root).returncode == 0
    fresh = tmp_path / "fresh"
    assert _run("export", "cursor", "--out", str(fresh), cwd=root).returncode == 0
    out = tmp_path / "out"
    with ThreadPoolExecutor(6) as pool:
        results = list(
            pool.map(lambda _: _run("export", "cursor", "--out", str(out), cwd=root), range(6))
        )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert _tree(out) == _tree(fresh)


# -- rules compile racing prompt hooks (state pair + vector cache) -------------------------


def test_parallel_compiles_and_prompt_hooks_see_whole_rules(tmp_path: Path) -> None:
    """Compiles of changing rules run beside prompt hooks: every hook answers from one
    whole compiled state (never a torn rules.json / rules.npy pair, never a traceback),
    the vector cache stays intact, and the final state is the last rules on disk."""
    root = _project(tmp_path / "c", {"CLAUDE.md": RULES})
    assert _run("compile", cwd=root).returncode == 0
    jobs: list[tuple[str, ...]] = [
        ("compile",),
        ("hook", "user-prompt-submit"),
        ("hook", "user-prompt-submit"),
    ] * 3

    sessions = iter(range(1000))

    def job(argv: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        if argv[0] == "compile":
            return _run("compile", cwd=root)
        payload = hook_payload(
            "UserPromptSubmit",
            root,
            prompt="name the quokka3 queue",
            session_id=f"s{next(sessions)}",
        )
        return _run(*argv, cwd=root, stdin=payload)

    for round_ in range(3):
        extra = f"- Rule {100 + round_}: log every wombat{round_} retry.\n"
        (root / "CLAUDE.md").write_text(RULES + extra, encoding="utf-8")
        with ThreadPoolExecutor(len(jobs)) as pool:
            results = list(pool.map(job, jobs))
        assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
        assert all("note" not in r.stderr.lower() for r in results), [r.stderr for r in results]
        hooks = [r for r, a in zip(results, jobs, strict=True) if a[0] == "hook"]
        assert all("quokka3 queue" in r.stdout for r in hooks), [
            (r.stdout, r.stderr) for r in hooks
        ]
    from charter.config import Project
    from charter.rules.compiler import load

    compiled = load(Project.load(root))
    assert compiled is not None
    assert any("wombat2" in r.text for r in compiled.rules)
    assert compiled.vectors.shape[0] == len(compiled.rules)
    with sqlite3.connect(root / ".charter/index.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_rule_file_rewritten_during_a_compile_is_not_served_as_fresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule file saved while a compile (a warm worker's warm-up, a hook) is reading it:
    the compiled state carries the file's stamp from before the read, so the next reader
    sees it stale and recompiles, instead of serving the half-written file's rules (once
    every prompt hook of a round answered nothing this way)."""
    from charter.config import Project
    from charter.rules import compiler

    root = _project(tmp_path / "r", {"CLAUDE.md": "# Rules\n"})
    parse = compiler._parse_rules

    def rewritten_meanwhile(*args: Any, **kwargs: Any) -> Any:
        out = parse(*args, **kwargs)  # read the old text; the editor saves now
        (root / "CLAUDE.md").write_text(RULES, encoding="utf-8")
        return out

    monkeypatch.setattr(compiler, "_parse_rules", rewritten_meanwhile)
    project = Project.load(root)
    first = compiler.compile_rules(project)
    assert not any("quokka" in r.text for r in first.rules)
    monkeypatch.setattr(compiler, "_parse_rules", parse)
    assert compiler.is_stale(project)
    again = compiler.load_or_compile(project)
    assert sum("quokka" in r.text for r in again.rules) == 12
    assert not compiler.is_stale(project)


# -- the warm worker's runtime files (socket, token, lock with its pid) -------------------


def _alive(pid: int) -> bool:
    """Running (a killed worker is a zombie until init reaps it: that counts as dead)."""
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (ProcessLookupError, FileNotFoundError):
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def test_worker_killed_leaves_hooks_answering_and_is_replaced(tmp_path: Path) -> None:
    """kill -9 of the warm worker leaves its socket, token and lock file behind: prompt
    hooks fired right after (eight at once) still answer with the rules, one new worker
    takes over the lock and the socket, and it serves the next hook."""
    import signal
    import time

    from charter.paths import worker_socket

    root = _project(tmp_path / "w", {"CLAUDE.md": RULES})
    root = root.resolve()

    def run(*args: str, cwd: Path, stdin: str | None = None, env: object = None):  # type: ignore[no-untyped-def]
        return _run(*args, cwd=cwd, stdin=stdin)

    from tests.conftest import start_worker

    sock, pid = start_worker(run, root)
    new_pid = 0
    try:
        os.kill(pid, signal.SIGKILL)
        deadline = time.time() + 10
        while _alive(pid) and time.time() < deadline:
            time.sleep(0.05)
        assert not _alive(pid) and sock.exists()  # what a crash leaves

        def prompt(n: int) -> subprocess.CompletedProcess[str]:
            payload = hook_payload(
                "UserPromptSubmit", root, prompt="name the quokka3 queue", session_id=f"k{n}"
            )
            return _run("hook", "user-prompt-submit", cwd=root, stdin=payload)

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(prompt, range(8)))
        assert all(r.returncode == 0 and "quokka3 queue" in r.stdout for r in results), [
            (r.stdout, r.stderr) for r in results
        ]
        lock = sock.with_suffix(".lock")
        deadline = time.time() + 90
        while time.time() < deadline:
            text = lock.read_text().strip() if lock.exists() else ""
            if text.isdigit() and int(text) != pid and _alive(int(text)) and sock.exists():
                new_pid = int(text)
                break
            time.sleep(0.2)
        assert new_pid, "no new worker took over"
        assert sock == worker_socket(root)
        served = prompt(99)
        assert served.returncode == 0 and "quokka3 queue" in served.stdout
    finally:
        for p in (pid, new_pid):
            if p and _alive(p):
                os.kill(p, signal.SIGTERM)


# -- MCP write tools from two agents at once, beside CLI notes -----------------------------


async def _mcp_writes(root: Path, agent: str, n: int) -> list[Any]:
    import anyio
    from mcp import Client

    from tests.conftest import mcp_server_params

    out: list[Any] = []
    async with Client(mcp_server_params(root)) as client:

        async def one(i: int) -> None:
            if i % 2:
                args = {"risk": f"{agent} risk {i} about the zorblax cache", "severity": "high"}
                out.append(await client.call_tool("record_risk", args))
            else:
                args = {"decision": f"{agent} decided {i}: keep the zorblax cache", "reason": "r"}
                out.append(await client.call_tool("record_decision", args))

        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
    return out


def test_parallel_mcp_and_cli_session_writes_lose_nothing(tmp_path: Path) -> None:
    """Two MCP servers (two agents on one project), 10 concurrent record_decision /
    record_risk calls each, while four ``charter session note decision`` processes
    run: every decision is in DECISIONS.md once and every risk in RISKS.md once."""
    import anyio

    from charter.config import Project
    from charter.session.service import Session

    root = _project(tmp_path / "m", {})
    (root / "charter.toml").write_text(CONFIG + "[hooks]\nwarm_worker = false\n")

    def cli(i: int) -> subprocess.CompletedProcess[str]:
        return _run("session", "note", "decision", f"cli decided {i}: zorblax", cwd=root)

    async def main() -> tuple[list[Any], list[subprocess.CompletedProcess[str]]]:
        results: list[Any] = []
        notes: list[subprocess.CompletedProcess[str]] = []

        async def agent(name: str) -> None:
            results.extend(await _mcp_writes(root, name, 10))

        async def clis() -> None:
            with ThreadPoolExecutor(4) as pool:
                notes.extend(await anyio.to_thread.run_sync(lambda: list(pool.map(cli, range(4)))))

        async with anyio.create_task_group() as tg:
            tg.start_soon(agent, "alpha")
            tg.start_soon(agent, "beta")
            tg.start_soon(clis)
        return results, notes

    results, notes = anyio.run(main)
    assert all(not r.is_error for r in results), [r for r in results if r.is_error]
    assert all(r.returncode == 0 for r in notes), [r.stderr for r in notes]
    session = Session(Project.load(root))
    try:
        track, _ = session.track()
        decisions = session.track_path(track, "DECISIONS.md").read_text(encoding="utf-8")
        risks = session.track_path(track, "RISKS.md").read_text(encoding="utf-8")
    finally:
        session.close()
    expected = [
        f"{a} decided {i}: keep the zorblax cache"
        for a in ("alpha", "beta")
        for i in range(0, 10, 2)
    ]
    expected += [f"cli decided {i}: zorblax" for i in range(4)]
    for text in expected:
        assert decisions.count(text) == 1, (text, decisions)
    for a in ("alpha", "beta"):
        for i in range(1, 10, 2):
            assert risks.count(f"{a} risk {i} about the zorblax cache") == 1, risks


# -- injected-once: recorded as given, but the answer never reached the agent -------------


def test_rules_recorded_by_a_worker_killed_before_its_reply_are_still_delivered(
    tmp_path: Path,
) -> None:
    """The warm worker records the prompt's rules as given, then dies (kill -9, its
    watchdog, a reply the hook times out on) before the hook prints them: the hook falls
    back to computing in-process and must still give the agent those rules, not report
    them "already in the conversation" (they would never reach it in this session)."""
    import signal
    import time

    root = _project(tmp_path / "w", {"CLAUDE.md": RULES}).resolve()
    transcript = root / "transcript.jsonl"
    transcript.write_text('{"type": "user", "message": {"content": "hi"}}\n')
    env = {k: v for k, v in os.environ.items() if k != "CHARTER_FAULT"}

    def hook(event: str, fault: str = "", **extra: Any) -> subprocess.CompletedProcess[str]:
        command = "session-start" if event == "SessionStart" else "user-prompt-submit"
        payload = hook_payload(event, root, **{"session_id": "s-kill", **extra})
        return subprocess.run(
            [*CHARTER, "hook", command],
            cwd=root,
            input=payload,
            env={**env, "CHARTER_FAULT": fault} if fault else env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    # the worker is started by SessionStart and inherits its environment: it alone dies
    assert hook("SessionStart", fault="injected.taken@2", source="startup").returncode == 0
    from charter.paths import worker_socket
    from tests.conftest import listening_worker

    sock = worker_socket(root)
    deadline = time.time() + 90
    pid = 0
    while not pid and time.time() < deadline:
        pid = listening_worker(sock)
        time.sleep(0.2)
    assert pid, "worker did not start"
    try:
        # a first prompt of another conversation warms the worker (and passes the seam
        # once), so it answers the next one well within the hook's wait
        warm = hook("UserPromptSubmit", prompt="name the quokka3 queue", session_id="s-warm")
        assert "quokka3 queue" in warm.stdout and _alive(pid)
        res = hook("UserPromptSubmit", prompt="name the quokka3 queue")
        assert res.returncode == 0, res.stderr
        assert "quokka3 queue" in res.stdout, (res.stdout, res.stderr)
        assert not _alive(pid), "the worker was not killed at the seam (test is void)"
        # the same words as the next prompt of the conversation (the transcript has grown)
        # do not repeat them: they were delivered
        transcript.write_text(transcript.read_text() + '{"type": "assistant"}\n')
        again = hook("UserPromptSubmit", prompt="name the quokka3 queue")
        assert again.returncode == 0 and "quokka3 queue." not in again.stdout, again.stdout
        assert "already in the conversation" in again.stderr
    finally:
        lock = sock.with_suffix(".lock").read_text().strip()
        for p in {pid, int(lock) if lock.isdigit() else 0}:
            if p and _alive(p):
                os.kill(p, signal.SIGTERM)


# -- guardrails audit log (parallel PreToolUse hooks) and the session handoff object ------


def test_parallel_denied_tool_calls_are_each_audited_once(tmp_path: Path) -> None:
    """Sixteen PreToolUse hooks at once (Claude Code runs a turn's tool hooks in
    parallel), each denied: every call is one whole line in the audit log, and one
    killed mid-line leaves the others readable."""
    root = _project(tmp_path / "g", {})
    (root / "charter.toml").write_text(CONFIG + "[hooks]\nwarm_worker = false\n")

    def deny(n: int, fault: str = "") -> subprocess.CompletedProcess[str]:
        payload = hook_payload(
            "PreToolUse",
            root,
            tool_name="Write",
            tool_use_id=f"t{n}",
            tool_input={"file_path": ".git/config", "content": "x"},
        )
        return _run("hook", "pre-tool-use", cwd=root, stdin=payload, fault=fault)

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(deny, range(16)))
    assert all(r.returncode == 0 and '"deny"' in r.stdout for r in results)
    assert deny(99, fault="append.torn").returncode == -9
    assert deny(100).returncode == 0
    log = root / "artifacts/guardrails/audit.jsonl"
    ids, torn = [], []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            ids.append(json.loads(line)["tool_use_id"])
        except ValueError:
            torn.append(line)
    assert len(torn) == 1, torn  # the killed writer's half line, on a line of its own
    assert sorted(ids) == sorted([f"t{n}" for n in range(16)] + ["t100"])


SHO = """
import sys
from pathlib import Path
from charter.search.sho import write_mode
for n in range(int(sys.argv[3])):
    write_mode(Path(sys.argv[1]), "review", **{f"{sys.argv[2]}{n}": n})
"""


def test_session_handoff_killed_at_its_write_keeps_the_old_object(tmp_path: Path) -> None:
    state = tmp_path / ".charter"
    env = {k: v for k, v in os.environ.items() if k != "CHARTER_FAULT"}
    run = [sys.executable, "-c", SHO, str(state)]
    assert subprocess.run([*run, "a", "3"], env=env, timeout=120).returncode == 0
    before = (state / "sho.json").read_bytes()
    for step in ("update.write", "atomic.sho.json"):
        killed = subprocess.run([*run, "k", "1"], env={**env, "CHARTER_FAULT": step}, timeout=120)
        assert killed.returncode == -9
        assert (state / "sho.json").read_bytes() == before  # the old object, whole
    procs = [subprocess.Popen([*run, f"w{i}", "10"], env=env) for i in range(6)]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    from charter.search.sho import read_sho

    data = read_sho(state)
    assert {f"w{i}{n}" for i in range(6) for n in range(10)} | {"a0", "a1", "a2"} <= set(data)


# -- schema migrations killed between a step and its record ------------------------------


@pytest.mark.parametrize("namespace", ["injected", "session", "search", "secrets", "vectors"])
def test_a_migration_killed_midway_is_redone_by_the_next_run(
    tmp_path: Path, namespace: str
) -> None:
    """A new project's first hook or index run creates its SQLite tables; killed after a
    migration step ran but before it was recorded, the next run must apply it again and
    work, not fail for good on "table ... already exists"."""
    root = _project(
        tmp_path / "m", {"CLAUDE.md": RULES, "docs/a.md": "# A\n\nThe wombat runbook.\n"}
    )
    (root / "charter.toml").write_text(CONFIG + "[hooks]\nwarm_worker = false\n")

    def prompt(session: str, fault: str = "") -> subprocess.CompletedProcess[str]:
        payload = hook_payload(
            "UserPromptSubmit", root, prompt="name the quokka3 queue", session_id=session
        )
        return _run("hook", "user-prompt-submit", cwd=root, stdin=payload, fault=fault)

    fault = f"migrate.{namespace}"
    if namespace in ("search", "secrets"):
        assert _run("index", cwd=root, fault=fault).returncode == -9
        res = _run("index", cwd=root)
        assert res.returncode == 0, res.stderr
        found = _run("search", "wombat runbook", "--json", cwd=root)
        assert found.returncode == 0 and "docs/a.md" in found.stdout, found.stderr
    elif namespace == "vectors":
        assert _run("compile", cwd=root, fault=fault).returncode == -9
        res = _run("compile", cwd=root)
        assert res.returncode == 0, res.stderr
    else:
        assert _run("compile", cwd=root).returncode == 0
        assert prompt("s1", fault).returncode == -9
        res = prompt("s2")
        assert res.returncode == 0 and "quokka3 queue" in res.stdout, res.stderr
        assert "already exists" not in res.stderr and "failed" not in res.stderr, res.stderr
        again = prompt("s2")
        assert "already in the conversation" in again.stderr, again.stderr


def test_an_index_left_half_migrated_by_an_older_charter_is_repaired(tmp_path: Path) -> None:
    """What the old migration (each statement committed on its own) left when killed
    after its first statement: the ``docs`` table and no record. ``charter index`` must
    repair it, not fail on every run."""
    root = _project(tmp_path / "m", {"docs/a.md": "# A\n\nThe wombat runbook.\n"})
    (root / ".charter").mkdir()
    conn = sqlite3.connect(root / ".charter/search.db")
    conn.execute(
        "CREATE TABLE docs (path TEXT PRIMARY KEY, kind TEXT NOT NULL, sha256 TEXT NOT NULL, "
        "mtime REAL NOT NULL, zone TEXT NOT NULL, status TEXT NOT NULL, origin TEXT NOT NULL, "
        "commit_sha TEXT, changed_at REAL NOT NULL, deleted_at REAL, title TEXT NOT NULL "
        "DEFAULT '', refs TEXT NOT NULL DEFAULT '[]', error TEXT, indexed_at REAL NOT NULL)"
    )
    conn.commit()
    conn.close()
    res = _run("index", cwd=root)
    assert res.returncode == 0, res.stderr
    found = _run("search", "wombat runbook", "--json", cwd=root)
    assert found.returncode == 0 and "docs/a.md" in found.stdout, found.stderr
