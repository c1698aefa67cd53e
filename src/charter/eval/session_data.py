"""The benchmark's data: session directories, their labels, and a first pass over each.

A session directory holds ``transcript.jsonl`` (Claude Code's own file) and
``labels.json`` (see ``shared/bench/session/README.md``). Before a replay starts, one
streaming pass finds what the replay must know in advance: the project path, the model,
which prompts belong to a resume copy (their answer comes later in the file), and the
files the stand-in repository must hold before the session edits them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charter.errors import CharterError
from charter.eval import transcript as tr
from charter.eval.session_paths import PathMap, safe_rel
from charter.fileio import read_text


@dataclass
class Session:
    key: str
    directory: Path
    transcript: Path
    labels: dict[str, Any]


def discover(data: Path, only: list[str] | None = None) -> list[Session]:
    """The session directories under ``data`` (``<key>/transcript.jsonl`` + labels)."""
    if not data.is_dir():
        raise CharterError(f"{data}: not a directory (expected session dirs with transcripts)")
    wanted = {k for k in (only or []) if k}
    sessions = []
    for sub in sorted(p for p in data.iterdir() if p.is_dir()):
        if wanted and sub.name not in wanted:
            continue
        transcript = sub / "transcript.jsonl"
        if not transcript.is_file():
            continue
        labels_path = sub / "labels.json"
        if not labels_path.is_file():
            raise CharterError(f"{labels_path}: missing (each session needs its labels)")
        try:
            labels = json.loads(read_text(labels_path, what="labels file"))
        except ValueError as exc:
            raise CharterError(f"{labels_path}: invalid JSON: {exc}") from None
        check_labels(labels_path, labels)
        sessions.append(Session(sub.name, sub, transcript, labels))
    missing = wanted - {s.key for s in sessions}
    if missing:
        raise CharterError(f"{data}: no session named {', '.join(sorted(missing))}")
    if not sessions:
        raise CharterError(f"{data}: no <key>/transcript.jsonl found")
    return sessions


def check_labels(path: Path, labels: Any) -> None:
    """The parts of labels.json the scorer reads, with the right types (else one error)."""
    if not isinstance(labels, dict):
        raise CharterError(f"{path}: expected a JSON object")
    mechanical = labels.get("mechanical")
    points = mechanical.get("points") if isinstance(mechanical, dict) else None
    if not isinstance(points, list):
        raise CharterError(f"{path}: mechanical.points must be a list of points")
    for n, point in enumerate(points):
        where = f"{path}: mechanical.points[{n}]"
        if not isinstance(point, dict) or not isinstance(point.get("id"), str):
            raise CharterError(f"{where}: each point needs an 'id' string")
        if not isinstance(point.get("line"), int):
            raise CharterError(f"{where}: 'line' must be an integer")
        for key, kind in (("plan", list), ("edited_files", list), ("test_runs", list)):
            if key in point and not isinstance(point[key], kind):
                raise CharterError(f"{where}: '{key}' must be a list")
    hand = labels.get("hand") or {}
    constraints = hand.get("user_constraints") if isinstance(hand, dict) else None
    if constraints is not None and not (
        isinstance(constraints, list)
        and all(
            isinstance(c, dict) and isinstance(c.get("key_terms", []), list) for c in constraints
        )
    ):
        raise CharterError(f"{path}: hand.user_constraints must be objects with key_terms lists")


# -- the pre-scan ------------------------------------------------------------------------


@dataclass
class Scan:
    """What the replay must know before it starts (one streaming pass over the file)."""

    cwd: str
    session_id: str
    model: str
    copy_prompts: set[int]
    seeded: list[str]  # files that existed before the session (relative), with seed content
    dirs: set[str]
    uuid_lines: dict[str, int]


def scan(session: Session, seed_dir: Path) -> Scan:
    """First pass: project path, model, resume-copy prompts, files to seed the repo with.

    A file the session edits must exist in the stand-in repository before its first
    edit; its content is the ``originalFile`` Claude Code recorded with that edit, when
    there is one. Seed files go straight to ``seed_dir`` so nothing large stays in memory.
    """
    labels = session.labels
    cwd = str(labels.get("cwd") or "")
    session_id = str(labels.get("session_id") or "")
    model = ""
    wanted_uuids = {
        str(c.get("revoked_by_uuid"))
        for c in (labels.get("hand") or {}).get("user_constraints") or []
        if isinstance(c, dict) and c.get("revoked_by_uuid")
    }
    uuid_lines: dict[str, int] = {}
    dupes = tr.DuplicateFilter()
    copy_prompts: set[int] = set()
    pending_prompt: int | None = None
    uses: dict[str, tuple[str, Any]] = {}
    touched: set[str] = set()
    seeded: list[str] = []
    dirs: set[str] = set()
    current_cwd = cwd
    paths: PathMap | None = None
    for line in tr.iter_lines(session.transcript):
        entry = line.entry
        if entry is None:
            continue
        if not cwd and isinstance(entry.get("cwd"), str):
            cwd = entry["cwd"]
        if not session_id and isinstance(entry.get("sessionId"), str):
            session_id = entry["sessionId"]
        if isinstance(entry.get("cwd"), str):
            current_cwd = entry["cwd"]
        if str(entry.get("uuid")) in wanted_uuids:
            uuid_lines[str(entry["uuid"])] = line.number
        if entry.get("isSidechain"):
            continue
        kind = entry.get("type")
        if kind == "assistant":
            message = entry.get("message")
            name = message.get("model") if isinstance(message, dict) else None
            if not model and isinstance(name, str) and name != "<synthetic>":
                model = name
            copy = dupes.assistant_is_copy(entry)
            if pending_prompt is not None:
                if copy:
                    copy_prompts.add(pending_prompt)
                pending_prompt = None
            if not copy:
                for block in tr.content_blocks(entry):
                    if block.get("type") == "tool_use" and block.get("name") in tr.EDIT_TOOLS:
                        uses[str(block.get("id"))] = (str(block.get("name")), block.get("input"))
        elif kind == "user":
            if tr.prompt_text(entry) is not None:
                pending_prompt = line.number
                continue
            for block in tr.content_blocks(entry):
                if block.get("type") != "tool_result" or dupes.seen_result(block):
                    continue
                use = uses.pop(str(block.get("tool_use_id")), None)
                if use is None or block.get("is_error"):
                    continue
                paths = paths or PathMap(cwd, seed_dir)
                _note_seed(
                    paths, current_cwd, use, entry.get("toolUseResult"), touched, seeded, dirs
                )
    return Scan(cwd, session_id or session.key, model, copy_prompts, seeded, dirs, uuid_lines)


def target_path(tool_input: Any) -> str:
    if not isinstance(tool_input, dict):
        return ""
    return str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")


def _note_seed(
    paths: PathMap,
    current_cwd: str,
    use: tuple[str, Any],
    result: Any,
    touched: set[str],
    seeded: list[str],
    dirs: set[str],
) -> None:
    name, tool_input = use
    rel = paths.relative(target_path(tool_input), current_cwd)
    if rel is None or not safe_rel(rel) or rel in touched:
        return
    touched.add(rel)
    parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
    if parent:
        dirs.add(parent)
    created = name == "Write" and not (isinstance(result, dict) and result.get("type") == "update")
    if created:
        return
    original = result.get("originalFile") if isinstance(result, dict) else None
    path = paths.temp_path(rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        original if isinstance(original, str) else "", encoding="utf-8", errors="surrogatepass"
    )
    seeded.append(rel)
