"""Deterministic compaction and checkpoints (seed 002).

Inputs: the transient tier (journal events) plus task-tier deltas since the last
checkpoint, and the assistant's ``Decision:`` / ``Risk:`` blocks in the transcript since
the checkpoint's offset. Outputs, at fixed paths: DECISIONS.md (append-only, no repeat),
PLAN.md (overwritten with the normalised live plan), RISKS.md (appended/updated with
severity tags), a CONTEXT_CORE proposal for a new global invariant, and the checkpoint
``latest.json`` (with its history). A schema violation refuses the whole compaction and
writes nothing. Times come from events, so the same inputs give the same bytes; running
it again with nothing new changes nothing (PreCompact can fire twice per compaction).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from charter.fileio import canonical_json, fault_point, read_text
from charter.session.schema import RISK_STATUSES, SEVERITIES, Decision, PlanStep, Risk, norm
from charter.session.service import Session, resolve_risk, session_key
from charter.session.tracks import inside
from charter.session.transcript import surrogate_free
from charter.session.writes import write_file

CHECKPOINT_SCHEMA = "charter.checkpoint/1"
#: Most transcript bytes one compaction reads for Decision/Risk blocks.
TRANSCRIPT_READ_CAP = 16 * 1024 * 1024
#: Words of conversation counted at most: enough to know it is long.
WORDS_COUNTED = 250_000
_BLOCK = re.compile(
    r"^\s*(?:[-*]\s+)?\**(Decision|Risk|Reason|Impact|Mitigation|Severity|Status)\**\s*:\s*(.+)$"
)
#: Another field of a block written on the same line after ";" or a sentence's end
#: ("Decision: Use Redis; risk: stampede on deploy", "… . Reason: latency"): the line
#: holds two fields, the second its own block's or a follow-up of the first.
_INLINE_FIELD = re.compile(
    r"\s*(?:;|\.(?=\s))\s*\**(?=(?:decision|risk|reason|impact|mitigation|severity|status)"
    r"\**\s*:\s*\S)",
    re.IGNORECASE,
)


def _block_lines(text: str) -> list[str]:
    """The lines of ``text``, a block line holding several fields split at each one."""
    out: list[str] = []
    for line in text.splitlines():
        if not _BLOCK.match(line):
            out.append(line)
            continue
        first, *rest = _INLINE_FIELD.split(line)
        out.append(first)
        out += [field[:1].upper() + field[1:] for field in rest]
    return out


#: A severity written before the risk, as recovery lists risks ("[high] …", "(high) …").
_SEVERITY_TAG = re.compile(r"^[\[(]\s*([A-Za-z]+)\s*[\])]\s*:?\s*(?=\S)")


def sha256_file(path: Path) -> str:
    if not path.is_file():  # missing, or a FIFO or device: reading it would block or not end
        return ""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


@dataclass
class CompactResult:
    track: str
    checkpoint: dict[str, Any] | None
    written: list[str] = field(default_factory=list)
    decisions_added: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "written": self.written,
            "decisions_added": self.decisions_added,
            "checkpoint": self.checkpoint,
            "notes": self.notes,
        }


def checkpoint_dir(session: Session, track: str) -> Path:
    path = session.root / session.settings.checkpoints_dir / track
    return inside(session.root, path, "checkpoint folder")


def load_checkpoint(session: Session, track: str) -> dict[str, Any] | None:
    path = checkpoint_dir(session, track) / "latest.json"
    if not path.exists():
        return None
    try:
        data = json.loads(
            read_text(path, what="checkpoint", max_bytes=1024 * 1024, regular_only=True)
        )
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("schema") != CHECKPOINT_SCHEMA:
        return None
    return data


def blocks_from_text(text: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """``Decision:`` and ``Risk:`` blocks written by the assistant (with their follow-ups)."""
    decisions: list[dict[str, str]] = []
    risks: list[dict[str, str]] = []
    current: dict[str, str] | None = None
    for line in _block_lines(text):
        match = _BLOCK.match(line)
        if not match:
            if line.strip():
                current = None
            continue
        key, value = match.group(1).lower(), norm(match.group(2).strip("*").strip())
        if key == "decision":
            current = {"decision": value}
            decisions.append(current)
        elif key == "risk":
            current = {"risk": value}
            tagged = _SEVERITY_TAG.match(value)
            if tagged and tagged.group(1).lower() in SEVERITIES:
                # "Risk: [high] Users relying on …": the severity as recovery shows it
                current = {"risk": value[tagged.end() :], "severity": tagged.group(1).lower()}
            risks.append(current)
        elif key == "status" and (current is None or "risk" not in current):
            # a decision's "Status: accepted" (an ADR's habit) is no part of it
            continue
        elif current is not None and key not in current:
            current[key] = value
    return decisions, risks


def _words_of(content: object) -> int:
    if isinstance(content, str):
        return len(content.split())
    if not isinstance(content, list):
        return 0
    total = 0
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            total += len(str(block.get("text", "")).split())
        elif kind == "tool_use":
            total += len(json.dumps(block.get("input"), ensure_ascii=False).split())
        elif kind == "tool_result":
            total += _words_of(block.get("content"))
    return total


def conversation_words(entry: object) -> int:
    """Words of conversation a transcript entry adds: prompts, assistant text, tool input
    and output; not thinking, bookkeeping or compaction summaries. Words, not characters:
    a path is one word however long, so the count is the same on every machine."""
    if not isinstance(entry, dict) or entry.get("isCompactSummary") or entry.get("isMeta"):
        return 0
    message = entry.get("message")
    if entry.get("type") not in ("user", "assistant") or not isinstance(message, dict):
        return 0
    return _words_of(message.get("content"))


def _assistant_blocks(
    transcript: object, offset: int, words: int = 0
) -> tuple[list[Decision], list[Risk], int, int]:
    """Decision/Risk blocks in assistant text after ``offset``; returns the new offset and
    ``words`` plus the conversation's words in what was read (counted up to
    ``WORDS_COUNTED``: past that the conversation is long enough for any use)."""
    if not isinstance(transcript, str) or not transcript:
        return [], [], offset, words
    try:
        fd = os.open(transcript, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return [], [], offset, words
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return [], [], offset, words
        size = info.st_size
        if offset > size:
            offset, words = 0, 0  # a different (or rewritten) transcript
        start = max(offset, size - TRANSCRIPT_READ_CAP)
        if start > offset:
            words = WORDS_COUNTED  # more than the read cap: long
        os.lseek(fd, start, os.SEEK_SET)
        # One buffer, filled in place and scanned in place: only the lines that may hold
        # a block are copied out (the first compaction of a long session reads 16 MiB;
        # growing bytes and splitting them held three copies of it at once).
        data = bytearray(size - start)
        got = 0
        with memoryview(data) as view:
            while got < len(data):
                n = os.readv(fd, [view[got:]])
                if not n:
                    break
                got += n
        del data[got:]
    finally:
        os.close(fd)
    end = data.rfind(b"\n") + 1  # only complete lines; the rest is read next time
    decisions: list[Decision] = []
    risks: list[Risk] = []
    pos = 0
    while pos < end:
        stop = data.find(b"\n", pos, end)
        line, pos = (pos, stop), stop + 1
        entry = None
        if words < WORDS_COUNTED and line[1] > line[0]:
            try:
                raw = bytes(data[line[0] : line[1]])
                entry = surrogate_free(raw, json.loads(raw))
            except (ValueError, RecursionError):
                continue
            words = min(WORDS_COUNTED, words + conversation_words(entry))
        if data.find(b'"assistant"', *line) < 0 or (
            data.find(b"ecision", *line) < 0 and data.find(b"Risk", *line) < 0
        ):
            continue
        if entry is None:
            try:
                raw = bytes(data[line[0] : line[1]])
                entry = surrogate_free(raw, json.loads(raw))
            except (ValueError, RecursionError):
                continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        if entry.get("isSidechain"):
            continue
        content = message.get("content")
        texts = (
            [content]
            if isinstance(content, str)
            else [
                b.get("text", "")
                for b in content or []
                if isinstance(b, dict) and b.get("type") == "text"
            ]
        )
        time = str(entry.get("timestamp") or "")
        for text in texts:
            found_d, found_r = blocks_from_text(str(text))
            for d in found_d:
                decisions.append(
                    Decision.make(
                        d["decision"], d.get("reason", ""), d.get("impact", ""), "assistant", time
                    )
                )
            for r in found_r:
                # a severity or status the block does not name (or names wrongly) is left
                # empty: compaction keeps the known risk's, or uses medium / open for a new
                # one ("Status: mitigated (fallback added)" names mitigated)
                severity = r.get("severity", "").lower()
                severity = severity if severity in SEVERITIES else ""
                status = re.sub(r"\W.*", "", r.get("status", "").lower())
                status = status if status in RISK_STATUSES else ""
                made = Risk.make(r["risk"], severity or "medium", "open", r.get("mitigation", ""))
                risks.append(
                    replace(made, severity=severity, status=status, source="assistant", time=time)
                )
    return decisions, risks, start + end, words


def _merge_plan(live: list[dict[str, Any]], current: list[PlanStep]) -> list[PlanStep]:
    """The live plan as PLAN.md steps, keeping verification notes of steps it still has."""
    verify = {s.text: s.verification for s in current if s.verification}
    steps = []
    for item in live:
        text = norm(str(item.get("content") or ""))
        if not text:
            continue
        steps.append(
            PlanStep(
                str(item.get("id")),
                text,
                str(item.get("status") or "pending"),
                norm(str(item.get("verification") or "")) or verify.get(text, ""),
            )
        )
    return steps


def compact(
    session: Session,
    session_id: str = "",
    *,
    trigger: str = "manual",
    transcript_path: object = None,
) -> CompactResult:
    """Run the compaction routine for the active track; refuse on a schema violation."""
    track, _ = session.track()
    key = session_key(session_id) if session_id else ""
    with session.lock():
        tier = session.task_tier(track)  # SchemaError: refuse, nothing written
        previous = load_checkpoint(session, track)
        after = int(previous.get("journal_seq", 0)) if previous else 0
        offset = words = 0
        if previous and previous.get("session_id") == key:
            offset = int(previous.get("transcript", {}).get("offset", 0))
            words = int(previous.get("transcript", {}).get("words", 0))
        journal = session.journal
        # Heads only: a long session's journal holds thousands of tool calls and many
        # whole plans; only decisions, risks and the newest plan are read with their data.
        events = journal.heads(track=track, after=after)
        # The journal position this checkpoint covers: the last event READ, not the last
        # in the journal (a hook may have added one since; it belongs to the next run).
        seq = max([after, *(e.seq for e in events)])
        kinds = {e.kind for e in events}
        noted = (
            journal.events(track=track, kinds=("decision", "risk"), after=after, upto=seq)
            if kinds & {"decision", "risk"}
            else []
        )
        result = CompactResult(track, previous)
        decisions = [Decision(**e.data) for e in noted if e.kind == "decision"]
        risks = [Risk(**e.data) for e in noted if e.kind == "risk"]
        found_d, found_r, new_offset, words = _assistant_blocks(transcript_path, offset, words)
        decisions += found_d
        known = {r.id: r for r in tier.risks}
        for found in found_r:
            old = known.get(found.id)
            if old is None:
                found = replace(
                    found, severity=found.severity or "medium", status=found.status or "open"
                )
            else:
                found = resolve_risk(found, old, found.severity, found.status)
            known[found.id] = found
            risks.append(found)
        if interrupted(session, track) is not None:
            result.notes.append("finishing a compaction that was interrupted")
        _begin(session, track, previous, after, seq)
        if decisions:
            added = session.append_decisions(track, decisions)
            result.decisions_added = len(added)
            if added:
                result.written.append("DECISIONS.md")
        if risks and session.merge_risks(track, risks):
            result.written.append("RISKS.md")
        live = (
            journal.last(track=track, kinds=("plan",), after=after, upto=seq)
            if "plan" in kinds
            else None
        )
        if live is not None:
            steps = _merge_plan(live.data.get("steps", []), tier.plan)
            if session.write_plan(track, steps):
                result.written.append("PLAN.md")
        core = [d for d in decisions if "global" in d.impact.lower().split()]
        if core:
            result.written.extend(_core_update(session, core))
        # the agent's session, not `charter session note` (cli) or an MCP call (mcp)
        agents = [e.session for e in events if e.session and e.kind in ("tool", "prompt")]
        others = [e.session for e in events if e.session]
        named = (
            key
            or (agents[-1] if agents else "")
            or str((previous or {}).get("session_id") or "")
            or (others[-1] if others else "")
        )
        checkpoint = _checkpoint(
            session,
            track,
            named,
            trigger,
            seq,
            {"offset": new_offset, "words": words},
            events[-1].time if events else (previous or {}).get("time", ""),
            previous,
        )
        result.checkpoint = checkpoint
        _finish(session, track)
        return result


# -- the compaction's intent record (torn-compaction detection) -------------------------


def _intent_path(session: Session, track: str) -> Path:
    """Under ``.charter/``: a private record, never beside the user's documents."""
    return session.project.state_dir / "session" / "compacting" / f"{track}.json"


def _begin(
    session: Session, track: str, previous: dict[str, Any] | None, after: int, seq: int
) -> None:
    """Record that a compaction is about to write (DECISIONS, RISKS, PLAN, checkpoint).

    ``latest.json`` is the commit point of the multi-file state; this record, removed
    after it, is how recovery tells a torn compaction (task files newer than the
    checkpoint because the run died in between) from a plain edit. Re-running the
    compaction finishes it: every step is idempotent (decisions and risks are merged by
    stable id, the plan and the checkpoint are recomputed from the same journal range).
    """
    write_file(
        _intent_path(session, track),
        canonical_json(
            {
                "track": track,
                "checkpoint_seq": int((previous or {}).get("seq", 0)),
                "journal_from": after,
                "journal_to": seq,
            }
        ),
        "compact.begin",
    )


def _finish(session: Session, track: str) -> None:
    path = _intent_path(session, track)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fault_point("session.compact.done")


def interrupted(session: Session, track: str) -> dict[str, Any] | None:
    """The intent record of a compaction of ``track`` that was killed before its
    checkpoint (None when the last compaction finished), with ``files``: the task files
    that no longer match the last checkpoint's hashes."""
    path = _intent_path(session, track)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        data = {}
    info: dict[str, Any] = data if isinstance(data, dict) else {}
    checkpoint = load_checkpoint(session, track) or {}
    if int(checkpoint.get("seq", 0)) > int(info.get("checkpoint_seq", 0)):
        return None  # killed after its checkpoint: the compaction is complete
    task = checkpoint.get("task", {})
    changed = []
    for name in ("PLAN.md", "DECISIONS.md", "RISKS.md"):
        file = session.track_path(track, name)
        if sha256_file(file) != (task.get(name) or {}).get("sha256", ""):
            changed.append(name)
    return {**info, "files": changed}


def _core_update(session: Session, decisions: list[Decision]) -> list[str]:
    """A new global invariant: a reviewable proposal (default) or appended to CONTEXT_CORE."""
    context = session.root / session.settings.context_dir
    lines = [
        f"- {d.decision} ({d.id}; {d.reason})" if d.reason else f"- {d.decision} ({d.id})"
        for d in decisions
    ]
    if session.settings.core_writes == "auto":
        path = context / "CONTEXT_CORE.md"
    else:
        path = context / "CONTEXT_CORE.proposed.md"
    with session.lock():
        current = (
            path.read_text(encoding="utf-8")
            if path.exists()
            else "# Proposed global invariants\n\n"
        )
        missing = [line for line in lines if line not in current.splitlines()]
        if not missing:
            return []
        body = current if current.endswith("\n") else current + "\n"
        write_file(path, body + "\n".join(missing) + "\n", "core")
    return [session.project.rel(path)]


def _checkpoint(
    session: Session,
    track: str,
    session_id: str,
    trigger: str,
    journal_seq: int,
    transcript: dict[str, int],
    time: str,
    previous: dict[str, Any] | None,
) -> dict[str, Any]:
    task = {}
    for name in ("SPEC.md", "PLAN.md", "DECISIONS.md", "RISKS.md"):
        path = session.track_path(track, name)
        if path.exists():
            task[name] = {"path": session.project.rel(path), "sha256": sha256_file(path)}
    transient = []
    if session_id:
        sdir = session.session_dir(session_id)
        for name in ("work_log.md", "test_output.txt", "recent_diff.txt"):
            path = sdir / name
            if path.exists():
                transient.append({"path": session.project.rel(path), "sha256": sha256_file(path)})
    body: dict[str, Any] = {
        "schema": CHECKPOINT_SCHEMA,
        "track": track,
        "session_id": session_id,
        "trigger": trigger,
        "journal_seq": journal_seq,
        "time": time,
        "task": task,
        "transient": transient,
        "transcript": transcript,
    }

    # The transcript's byte position is left out, its word count is not: Claude Code
    # appends its compaction lines (no words of the conversation) after the first
    # PreCompact, so a second one reads further with nothing new in it; the next
    # compaction reads those lines again from the earlier position, at no cost.
    def _same(ckpt: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in ckpt.items() if k not in {"trigger", "seq", "id", "transcript"}}
        out["words"] = dict(ckpt.get("transcript") or {}).get("words")
        return out

    if previous is not None and _same(previous) == _same(body):
        return previous  # nothing new: a second PreCompact writes nothing
    body["seq"] = int(previous.get("seq", 0)) + 1 if previous else 1
    # The id leaves out the transcript position: its offset counts bytes of a file whose
    # content includes machine paths, so it is kept for the next compaction but not hashed.
    hashed = {k: v for k, v in body.items() if k != "transcript"}
    body["id"] = hashlib.sha256(canonical_json(hashed).encode()).hexdigest()[:16]
    cdir = checkpoint_dir(session, track)
    write_file(cdir / "history" / f"{body['seq']:05d}.json", canonical_json(body), "history")
    write_file(cdir / "latest.json", canonical_json(body), "checkpoint")  # the commit point
    return body
