"""Kill -9 and parallel-writer trials for every store (shared by the tests and the bench).

Each trial copies a prepared project, runs a real ``charter`` (or library) writer in a
subprocess that is killed with SIGKILL at a named write step (``$CHARTER_FAULT``) or at a
random moment, and then checks, as a later reader and a later run would:

- **corrupted**: a reader saw a torn or inconsistent state (a mixed rules pair, a BM25
  cache that disagrees with the index, a decisions file the history does not explain, a
  log row that no longer parses) or the next run could not proceed;
- **lost**: an acknowledged write (exit 0, or committed before the kill and therefore
  due to be finished by recovery) is missing after the next run.

Every scenario exercises the real code paths; nothing here reimplements the stores.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

CHARTER = [sys.executable, "-m", "charter"]
CONFIG = '[embed]\nprovider = "hash"\n'


@dataclass
class Trial:
    store: str
    step: str
    killed: bool
    lost: int = 0
    corrupted: int = 0
    detail: str = ""
    seconds: float = 0.0


def _env(fault: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CHARTER_FAULT"}
    if fault:
        env["CHARTER_FAULT"] = fault
    return env


def run_writer(
    argv: list[str], cwd: Path, step: str, rng: random.Random, duration: float
) -> tuple[int, float]:
    """Run ``argv``; kill it at ``step`` (fault seam) or, for ``random``, at a random time.

    Returns (exit code, seconds); -9 means it was killed.
    """
    started = time.perf_counter()
    if step == "random":
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=_env(None),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # anywhere from interpreter start-up to just past a normal finish, weighted
            # to the part of the run where the writes happen
            proc.wait(timeout=rng.uniform(0.25 * duration, 1.05 * duration))
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
        code = proc.wait(timeout=300)
    else:
        done = subprocess.run(
            argv, cwd=cwd, env=_env(step), capture_output=True, text=True, timeout=300
        )
        code = done.returncode
    return code, time.perf_counter() - started


def charter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CHARTER, *args], cwd=cwd, env=_env(None), capture_output=True, text=True, timeout=300
    )


def new_project(root: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "charter.toml").write_text(CONFIG, encoding="utf-8")
    return root


def _copy(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    return dest


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- decisions ------------------------------------------------------------------------


class DecisionsScenario:
    """``charter decisions add`` killed at each step of the store's write."""

    name = "decisions"
    steps: ClassVar[list[str]] = [
        "decisions.snapshot",
        "decisions.history.torn",
        "decisions.history",
        "decisions.rename",
        "random",
    ]
    base_ids: ClassVar[list[str]] = ["BASE_A", "BASE_B", "BASE_C"]

    def __init__(self, work: Path) -> None:
        self.work = work
        self.template = new_project(work / "decisions-template")
        for cid in self.base_ids:
            res = charter(*_add_args(cid), cwd=self.template)
            assert res.returncode == 0, res.stderr
        probe = _copy(self.template, work / "decisions-probe")
        _, self.duration = run_writer(
            [*CHARTER, *_add_args("PROBE")], probe, "none", random.Random(0), 0
        )

    def trial(self, index: int, step: str, rng: random.Random) -> Trial:
        from charter.config import Project
        from charter.decisions.store import DecisionStore

        root = _copy(self.template, self.work / f"decisions-{index}")
        started = time.perf_counter()
        code, _ = run_writer([*CHARTER, *_add_args("NEW")], root, step, rng, self.duration)
        trial = Trial(self.name, step, killed=code == -signal.SIGKILL)
        store = DecisionStore(Project.load(root).state_dir)
        problems = _decision_problems(store)
        if problems:
            trial.corrupted += 1
            trial.detail = f"after kill: {problems[0]}"
        ids = _decision_ids(store)
        if ids is not None and not set(self.base_ids) <= ids:
            trial.lost += len(set(self.base_ids) - ids)
        committed = any(e.get("id") == "NEW" for e in _history_or_empty(store))
        res = charter(*_add_args("NEXT"), cwd=root)  # the next run recovers
        if res.returncode != 0:
            trial.corrupted += 1
            trial.detail = f"next write failed: {res.stderr.strip()}"
        problems = _decision_problems(store)
        if problems:
            trial.corrupted += 1
            trial.detail = f"after recovery: {problems[0]}"
        ids = _decision_ids(store) or set()
        expected = {*self.base_ids, "NEXT"}
        if code == 0 or committed:
            expected.add("NEW")
        trial.lost += len(expected - ids)
        if expected - ids:
            trial.detail = f"missing {sorted(expected - ids)}"
        trial.seconds = time.perf_counter() - started
        shutil.rmtree(root, ignore_errors=True)
        return trial


def _add_args(cid: str) -> list[str]:
    return [
        "decisions",
        "add",
        "--id",
        cid,
        "--text",
        f"{cid}?",
        "--type",
        "yes_no",
        "--answer",
        "yes",
    ]


def _decision_problems(store: Any) -> list[str]:
    from charter.errors import CharterError

    try:
        store.verify()
        return list(store.audit())
    except CharterError as exc:
        return [str(exc)]


def _decision_ids(store: Any) -> set[str] | None:
    from charter.errors import CharterError

    try:
        return {e.id for e in store.load().pgc_clarifications}
    except CharterError:
        return None


def _history_or_empty(store: Any) -> list[dict[str, Any]]:
    from charter.errors import CharterError

    try:
        return list(store.history())
    except CharterError:
        return []


# -- rules compile state --------------------------------------------------------------

RULES_V1 = """# Project rules

## Security
- Never log request bodies or tokens.

## Style
- Keep modules under 400 lines.
- Use type hints on every public function.
- Prefer pathlib over os.path.
"""

# the same number of rules, one edited: a torn pair then has matching lengths, which is
# exactly the case a length check cannot catch
RULES_V2 = RULES_V1.replace(
    "- Prefer pathlib over os.path.",
    "- Name every background job after the queue it drains (quokkaledger convention).\n"
    "- Never run `make purge-queues`.",
)


class RulesScenario:
    """``charter compile`` of changed rules killed between its state files."""

    name = "rules compile"
    steps: ClassVar[list[str]] = [
        "commit.rules.npy",
        "commit.rules.json",
        "commit.rules.prohibited.json",
        "commit.manifest",
        "random",
    ]

    def __init__(self, work: Path) -> None:
        self.work = work
        self.template = new_project(work / "rules-template")
        (self.template / "CLAUDE.md").write_text(RULES_V1, encoding="utf-8")
        assert charter("compile", cwd=self.template).returncode == 0
        self.v1 = _rules_pair(self.template)
        ref = _copy(self.template, work / "rules-ref")
        (ref / "CLAUDE.md").write_text(RULES_V2, encoding="utf-8")
        started = time.perf_counter()
        assert charter("compile", cwd=ref).returncode == 0
        self.duration = time.perf_counter() - started
        self.v2 = _rules_pair(ref)
        assert self.v1 != self.v2 and self.v1 is not None and self.v2 is not None
        self.commands = (_commands(self.template), _commands(ref))
        assert self.commands == ([], ["make purge-queues"])

    def trial(self, index: int, step: str, rng: random.Random) -> Trial:
        root = _copy(self.template, self.work / f"rules-{index}")
        (root / "CLAUDE.md").write_text(RULES_V2, encoding="utf-8")
        started = time.perf_counter()
        code, _ = run_writer([*CHARTER, "compile"], root, step, rng, self.duration)
        trial = Trial(self.name, step, killed=code == -signal.SIGKILL)
        seen = _rules_pair(root)  # what a reader (context, hooks, lint) loads now
        if seen is not None and seen not in (self.v1, self.v2):
            trial.corrupted += 1
            trial.detail = "a reader loaded a torn rules.json / rules.npy pair"
        if _commands(root) not in (None, *self.commands):
            trial.corrupted += 1
            trial.detail = "the PreToolUse hook read commands of neither compile"
        if code == 0 and seen != self.v2:
            trial.lost += 1
            trial.detail = "compile exited 0 but its state is not what readers load"
        # the next run (as a hook would) must serve the new rules without a manual compile
        res = charter("context", "name the background job", "--json", cwd=root)
        if res.returncode != 0:
            trial.corrupted += 1
            trial.detail = f"context failed after the kill: {res.stderr.strip()}"
        elif "quokkaledger" not in res.stdout and "quokkaledger" not in _constitution(root):
            trial.lost += 1
            trial.detail = "context served the old rules after the kill"
        if _rules_pair(root) != self.v2:
            trial.lost += 1
            trial.detail = "the state was not recompiled to the new rules"
        trial.seconds = time.perf_counter() - started
        shutil.rmtree(root, ignore_errors=True)
        return trial


def _rules_pair(root: Path) -> tuple[str, str] | None:
    """(sha of the rules state, sha of its vectors) as :func:`compiler.load` returns them."""
    from charter.config import Project
    from charter.fileio import canonical_json
    from charter.rules.compiler import load

    compiled = load(Project.load(root))
    if compiled is None:
        return None
    state = canonical_json(compiled.state()).encode()
    return _sha(state), _sha(np.ascontiguousarray(compiled.vectors, dtype=np.float32).tobytes())


def _commands(root: Path) -> list[str] | None:
    """The forbidden commands as the PreToolUse hook reads them (None: none readable)."""
    from charter.config import Project
    from charter.rules.stored import load_prohibitions

    listed = load_prohibitions(Project.load(root))
    return None if listed is None else [c.command for c in listed.commands]


def _constitution(root: Path) -> str:
    try:
        return (root / ".charter" / "rules.json").read_text(encoding="utf-8")
    except OSError:
        return ""


# -- search index ---------------------------------------------------------------------

DOCS = {
    f"docs/guide-{i}.md": f"# Guide {i}\n\n## Setup\n\nInstall step {i} uses the cli tool.\n\n"
    f"## Usage\n\nRun the report {i} every morning with the scheduler.\n"
    for i in range(6)
}
TERM = "zephyrquartz"


class SearchScenario:
    """``charter index`` of changed docs killed per document, after the last commit,
    and while the BM25 cache or the vector sidecar is saved."""

    name = "search index"
    steps: ClassVar[list[str]] = [
        "index.doc@1",
        "index.doc@2",
        "index.doc@3",
        "index.committed",
        "bm25.save",
        "vectors.save",
        "random",
    ]

    def __init__(self, work: Path) -> None:
        self.work = work
        self.template = new_project(work / "search-template")
        for rel, text in DOCS.items():
            path = self.template / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert charter("index", cwd=self.template).returncode == 0
        ref = _copy(self.template, work / "search-ref")
        _change_docs(ref)
        started = time.perf_counter()
        assert charter("index", cwd=ref).returncode == 0
        self.duration = time.perf_counter() - started

    def trial(self, index: int, step: str, rng: random.Random) -> Trial:
        root = _copy(self.template, self.work / f"search-{index}")
        _change_docs(root)
        started = time.perf_counter()
        code, _ = run_writer([*CHARTER, "index"], root, step, rng, self.duration)
        trial = Trial(self.name, step, killed=code == -signal.SIGKILL)
        problem = _search_problem(root)
        if problem:
            trial.corrupted += 1
            trial.detail = f"after kill: {problem}"
        if code == 0:
            trial.lost += _search_missing(root)
        res = charter("index", cwd=root)  # the next run finishes the job
        if res.returncode != 0:
            trial.corrupted += 1
            trial.detail = f"next index failed: {res.stderr.strip()}"
        problem = _search_problem(root)
        if problem:
            trial.corrupted += 1
            trial.detail = f"after recovery: {problem}"
        missing = _search_missing(root)
        if missing:
            trial.lost += missing
            trial.detail = f"{missing} change(s) missing from the index after the next run"
        trial.seconds = time.perf_counter() - started
        shutil.rmtree(root, ignore_errors=True)
        return trial


def _change_docs(root: Path) -> None:
    for i in (1, 4):
        path = root / f"docs/guide-{i}.md"
        path.write_text(path.read_text() + f"\n## Notes\n\nThe {TERM} flag is new.\n")
    (root / "docs/guide-2.md").unlink()
    (root / "docs/added.md").write_text(f"# Added\n\nAbout {TERM} and nothing else.\n")


def _search_problem(root: Path) -> str:
    """Does a reader see an index whose BM25 cache, vector sidecar or integrity disagrees
    with its data?"""
    from charter.config import Project
    from charter.embed.registry import get_embedder
    from charter.search.bm25 import BM25Matrix, bm25_for
    from charter.search.store import SearchStore
    from charter.search.vectors import VectorIndex, vectors_for
    from charter.store.db import read_snapshot

    project = Project.load(root)
    db = project.state_dir / "search.db"
    try:
        with sqlite3.connect(db) as conn:
            check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            return f"integrity_check: {check}"
        with SearchStore(db) as store:
            weight = project.settings.search.fusion.title_weight
            served = bm25_for(store, project.state_dir, weight)
            fresh = BM25Matrix.build(store, weight)
            if not np.array_equal(served.chunk_ids, fresh.chunk_ids):
                return "BM25 cache rows differ from the index (stale cache served)"
            for query in (TERM, "report scheduler", "install cli"):
                a, b = served.scores(query), fresh.scores(query)
                if (a is None) != (b is None) or (
                    a is not None and b is not None and not np.allclose(a, b)
                ):
                    return f"BM25 cache scores differ for {query!r} (stale cache served)"
            embedder = get_embedder(project.settings.embed.provider)
            with read_snapshot(store.conn):
                side = vectors_for(store, project.state_dir, embedder.name, embedder.dim)
                rows = VectorIndex.build(store, embedder.name, embedder.dim)
            for name in ("chunk_ids", "chunk_doc", "matrix"):
                if not np.array_equal(getattr(side, name), getattr(rows, name)):
                    return f"vector sidecar {name} differs from the index (stale sidecar served)"
    except (sqlite3.Error, OSError) as exc:
        return f"unreadable index: {exc}"
    return ""


def _search_missing(root: Path) -> int:
    """Changes on disk that the index does not hold (per document)."""
    from charter.config import Project
    from charter.search.store import SearchStore

    project = Project.load(root)
    with SearchStore(project.state_dir / "search.db") as store:
        docs = store.docs()
        term_paths = {
            r[0]
            for r in store.conn.execute(
                "SELECT c.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                "WHERE chunks_fts MATCH ?",
                (TERM,),
            )
        }
    missing = 0
    for path in sorted((root / "docs").glob("*.md")):
        rel = path.relative_to(root).as_posix()
        doc = docs.get(rel)
        digest = _sha(path.read_text(encoding="utf-8").encode())
        if doc is None or doc.status != "live" or doc.sha256 != digest:
            missing += 1
    if docs.get("docs/guide-2.md") is None or docs["docs/guide-2.md"].status != "deleted":
        missing += 1
    missing += len({"docs/guide-1.md", "docs/guide-4.md", "docs/added.md"} - term_paths)
    return missing


# -- append-only actions log ----------------------------------------------------------

LOG_WRITER = """
import sys
from pathlib import Path
from charter.search.actions import log_action
log_action(Path(sys.argv[1]), action="search", mode="execution", query=sys.argv[2],
           scope={"paths": ["docs/**"]}, results=["docs/a.md#L1-L2 (A, \\"q\\")"],
           duration_ms=1.5, detail={"marker": sys.argv[2], "note": "comma, quote \\" x"})
"""


class LogScenario:
    """One ``context_actions.csv`` append killed mid-row, after the row, at random."""

    name = "actions log"
    steps: ClassVar[list[str]] = ["actions.torn", "actions.written", "random"]

    def __init__(self, work: Path) -> None:
        self.work = work
        self.template = new_project(work / "log-template")
        self.log = Path("logs/context_actions.csv")
        for i in range(5):
            _log(self.template / self.log, f"base-{i}")
        started = time.perf_counter()
        _log(_copy(self.template, work / "log-probe") / self.log, "probe")
        self.duration = time.perf_counter() - started

    def trial(self, index: int, step: str, rng: random.Random) -> Trial:
        from charter.search.actions import read_actions

        root = _copy(self.template, self.work / f"log-{index}")
        log = root / self.log
        started = time.perf_counter()
        argv = [sys.executable, "-c", LOG_WRITER, str(log), "killed"]
        code, _ = run_writer(argv, root, step, rng, self.duration)
        trial = Trial(self.name, step, killed=code == -signal.SIGKILL)
        rows = read_actions(log)
        markers = [json.loads(r["detail"]).get("marker") for r in rows]
        base = [f"base-{i}" for i in range(5)]
        if markers[:5] != base or len(markers) > 6:
            trial.corrupted += 1
            trial.detail = f"rows after kill: {markers}"
        _log(log, "next")  # the next run appends normally
        markers = [json.loads(r["detail"]).get("marker") for r in read_actions(log)]
        expected = [*base, *(["killed"] if code == 0 else []), "next"]
        got = [m for m in markers if m != "killed" or code == 0]
        if got != expected:
            trial.lost += len(set(expected) - set(got)) or 1
            trial.detail = f"rows after recovery: {markers}"
        trial.seconds = time.perf_counter() - started
        shutil.rmtree(root, ignore_errors=True)
        return trial


def _log(path: Path, marker: str) -> None:
    res = subprocess.run(
        [sys.executable, "-c", LOG_WRITER, str(path), marker],
        env=_env(None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr


# -- parallel writers -----------------------------------------------------------------


@dataclass
class ParallelResult:
    store: str
    writers: int
    acknowledged: int
    lost: int
    corrupted: int
    detail: str = ""


def parallel_decisions(work: Path, processes: int, rounds: int) -> ParallelResult:
    """``processes`` concurrent ``charter decisions add`` per round, ``rounds`` rounds,
    while a reader keeps loading and verifying the store (it must never see a torn or
    "tampered" state)."""
    import threading

    from charter.config import Project
    from charter.decisions.store import DecisionStore

    root = new_project(work / "parallel-decisions")
    store = DecisionStore(Project.load(root).state_dir)
    acknowledged: list[str] = []
    reader_errors: list[str] = []
    reads = 0
    stop = threading.Event()

    def read_loop() -> None:
        nonlocal reads
        while not stop.is_set():
            problems = _decision_problems_fast(store)
            reads += 1
            if problems:
                reader_errors.append(problems[0])
            time.sleep(0.002)  # a hook's pace, not a spin that starves the writers

    reader = threading.Thread(target=read_loop)
    reader.start()
    try:
        for r in range(rounds):
            ids = [f"P{r}_{i}" for i in range(processes)]
            with ThreadPoolExecutor(processes) as pool:
                codes = list(
                    pool.map(lambda cid: charter(*_add_args(cid), cwd=root).returncode, ids)
                )
            acknowledged += [cid for cid, code in zip(ids, codes, strict=True) if code == 0]
    finally:
        stop.set()
        reader.join()
    problems = _decision_problems(store)
    ids_now = _decision_ids(store) or set()
    lost = sorted(set(acknowledged) - ids_now)
    history = len(_history_or_empty(store))
    detail = f"{len(ids_now)} stored, {history} history lines, {reads} concurrent reads"
    if problems:
        detail += f"; verify: {problems[0]}"
    if reader_errors:
        detail += f"; reader: {reader_errors[0]}"
    return ParallelResult(
        "decisions",
        processes * rounds,
        len(acknowledged),
        len(lost),
        len(problems) + len(reader_errors),
        detail,
    )


def _decision_problems_fast(store: Any) -> list[str]:
    """What a hook sees: load (which verifies the chain) must not fail."""
    from charter.errors import CharterError

    try:
        store.load()
        return []
    except CharterError as exc:
        return [str(exc)]


def parallel_log(work: Path, processes: int, rows_each: int) -> ParallelResult:
    """``processes`` concurrent writers appending ``rows_each`` rows to one actions log."""
    from charter.search.actions import read_actions

    log = work / "parallel-log" / "logs" / "context_actions.csv"
    script = LOG_WRITER.replace(
        "log_action(", "for _ in range(int(sys.argv[3])):\n    log_action(", 1
    ).replace("\n           ", "\n               ")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(log), f"w{i}", str(rows_each)], env=_env(None)
        )
        for i in range(processes)
    ]
    acknowledged = sum(rows_each for p in procs if p.wait(timeout=300) == 0)
    rows = read_actions(log)
    lines = [ln for ln in log.read_text(encoding="utf-8").splitlines()[1:] if ln]
    corrupted = len(lines) - len(rows)
    lost = max(0, acknowledged - len(rows))
    return ParallelResult("actions log", processes, acknowledged, lost, corrupted, "")


SCENARIOS: list[Any] = [
    DecisionsScenario,
    RulesScenario,
    SearchScenario,
    LogScenario,
]
