"""The seed's four gates, runnable on a user's project without changing it.

1. Compaction determinism: compact twice, on two copies of the same inputs in temp
   dirs; the outputs must be byte-identical (compared by sha256).
2. Recovery replay: recover from the copy's ``latest.json``; the restored plan's
   checksum must equal PLAN.md's (and the checkpoint's hash of PLAN.md the file's).
3. Guardrail enforcement: a forbidden write (into ``.git/``, through both the Write tool
   and Bash) must be denied *and* logged in the audit log of a copy.
4. Evaluator: the active track's PLAN.md and SPEC.md pass :func:`evaluate`.

Gates 1-3 work on temporary copies of the session files (task tier, checkpoints,
journal, transient tier, config); gate 4 only reads. Nothing in the project changes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.session.service import Session


@dataclass(frozen=True)
class Gate:
    name: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


def _copy_project(session: Session, dest: Path) -> Project:
    """The session files of ``session``'s project under ``dest`` (a throwaway root)."""
    src = session.root
    s = session.settings
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("charter.toml", "pyproject.toml", *s.core_files):
        path = src / name
        if path.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest / name)
    for rel in (s.tracks_dir, s.context_dir, s.checkpoints_dir, s.sessions_dir):
        path = src / rel
        if path.is_dir():
            shutil.copytree(path, dest / rel, symlinks=True, dirs_exist_ok=True)
    pointer = src / s.active_track_file
    if pointer.is_file():
        (dest / s.active_track_file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(pointer, dest / s.active_track_file)
    state = dest / ".charter"
    state.mkdir(exist_ok=True)
    journal = session.project.state_dir / "session.db"
    if journal.is_file():  # a consistent copy even while hooks write (SQLite backup API)
        with (
            sqlite3.connect(str(journal)) as source,
            sqlite3.connect(str(state / "session.db")) as target,
        ):
            source.backup(target)
    (dest / ".git").mkdir(exist_ok=True)  # the copy is its own root, with a .git to protect
    return Project(root=dest, settings=session.project.settings, config_path=None)


def _hash_outputs(root: Path, session: Session, track: str) -> dict[str, str]:
    s = session.settings
    out: dict[str, str] = {}
    bases = (root / s.tracks_dir / track, root / s.checkpoints_dir / track, root / s.context_dir)
    for base in bases:
        if not base.is_dir():
            continue
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _gate(name: str, work: Callable[[], tuple[bool, str]]) -> Gate:
    try:
        passed, detail = work()
    except Exception as exc:  # a gate that cannot run fails, naming why
        return Gate(name, False, f"could not run: {type(exc).__name__}: {exc}")
    return Gate(name, passed, detail)


def _compaction(session: Session, track: str, tmp: Path) -> tuple[bool, str]:
    from charter.session.compaction import compact

    hashes = []
    for label in ("a", "b"):
        project = _copy_project(session, tmp / label)
        copy = Session(project)
        try:
            result = compact(copy, "", trigger="gate")
        finally:
            copy.close()
        hashes.append((_hash_outputs(project.root, session, track), result.written))
    (a, written), (b, _) = hashes
    if a != b:
        differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        return False, f"outputs differ between two runs: {', '.join(differ[:5])}"
    digest = hashlib.sha256(json.dumps(a, sort_keys=True).encode()).hexdigest()[:12]
    return True, (
        f"{len(a)} output files identical across two compactions (sha256 {digest}; "
        f"wrote {', '.join(written) or 'nothing new'})"
    )


def _plan_checksum(steps: list[tuple[str, str, str]]) -> str:
    return hashlib.sha256(json.dumps(steps, ensure_ascii=False).encode()).hexdigest()


def _recovery(session: Session, track: str, tmp: Path) -> tuple[bool, str]:
    from charter.session.compaction import compact, load_checkpoint, sha256_file
    from charter.session.recovery import recover
    from charter.session.schema import parse_plan, read_optional

    project = _copy_project(session, tmp / "recovery")
    copy = Session(project)
    try:
        compact(copy, "", trigger="gate")
        checkpoint = load_checkpoint(copy, track)
        if checkpoint is None:
            return False, "no checkpoint (latest.json) after compaction"
        plan_path = copy.track_path(track, "PLAN.md")
        text = read_optional(plan_path) or ""
        recorded = (checkpoint.get("task", {}).get("PLAN.md") or {}).get("sha256", "")
        actual = sha256_file(plan_path) if text else ""
        if recorded != actual:
            return False, f"latest.json records PLAN.md {recorded[:12]}, the file is {actual[:12]}"
        recovered = recover(copy, checkpoint.get("session_id", ""))
    finally:
        copy.close()
    want = _plan_checksum([(s.id, s.text, s.status) for s in parse_plan(text, "PLAN.md")])
    got = _plan_checksum([(p["id"], p["content"], p["status"]) for p in recovered.plan])
    if want != got:
        return False, (
            f"recovered plan ({len(recovered.plan)} steps, {got[:12]}) differs from PLAN.md "
            f"({want[:12]})"
        )
    return True, f"recovered plan equals PLAN.md ({len(recovered.plan)} steps, sha256 {got[:12]})"


def _guardrail(session: Session, tmp: Path) -> tuple[bool, str]:
    from charter.session.guardrails import pre_tool_use_output

    project = _copy_project(session, tmp / "guardrail")
    log = project.root / project.settings.session.guardrails.audit_log
    before = log.read_text(encoding="utf-8").count("\n") if log.exists() else 0
    forbidden = project.root / ".git" / "charter-gate-probe"
    probes = [
        ("Write", {"file_path": str(forbidden), "content": "x"}),
        ("Bash", {"command": "cd .git && echo probe > charter-gate-probe"}),
    ]
    for index, (tool, tool_input) in enumerate(probes):
        payload = {
            "hook_event_name": "PreToolUse",
            "session_id": "charter-gate",
            "tool_use_id": f"gate-{index}",
            "cwd": str(project.root),
            "tool_name": tool,
            "tool_input": tool_input,
        }
        out = pre_tool_use_output(project, payload)
        decision = ((out or {}).get("hookSpecificOutput") or {}).get("permissionDecision")
        if decision != "deny":
            return False, f"{tool} into .git/ was not denied (decision {decision or 'allow'})"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    logged = [json.loads(x) for x in lines[before:] if x.strip()]
    ids = {e.get("tool_use_id") for e in logged if e.get("decision") == "deny"}
    if not {"gate-0", "gate-1"} <= ids:
        return False, "the forbidden writes were denied but not logged in the audit log"
    return True, f"writes into .git/ denied (Write and Bash) and logged ({len(logged)} lines)"


def _evaluator(session: Session, track: str) -> tuple[bool, str]:
    from charter.session.evaluator import evaluate

    result = evaluate(session, track)
    return result.passed, result.summary()


def run_gates(session: Session) -> list[Gate]:
    """The four gates for the active track, in the seed's order."""
    from charter.session.tracks import git_branch, slug

    # No pointer yet: the track the first hook would create (the copies create it).
    track = session.tracks.active() or slug(git_branch(session.root) or "main")
    with tempfile.TemporaryDirectory(prefix="charter-gates-") as raw:
        tmp = Path(raw)
        return [
            _gate("compaction determinism", lambda: _compaction(session, track, tmp)),
            _gate("recovery replay", lambda: _recovery(session, track, tmp)),
            _gate("guardrail enforcement", lambda: _guardrail(session, tmp)),
            _gate("evaluator", lambda: _evaluator(session, track)),
        ]
