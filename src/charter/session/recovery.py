"""Deterministic recovery: the seed's five steps, then one bounded text for the agent.

1. Load the core tier files in their fixed order.
2. Load the active track's task tier (``ACTIVE_TRACK``).
3. Load the last checkpoint (``latest.json``).
4. Pull the transient artifacts it references (test output, recent diff).
5. Rebuild the state from DECISIONS.md + PLAN.md; events after the checkpoint (the live
   plan, files, test runs, the user's words) come from the journal.

The text is filled in priority order within ``session.recover_budget_tokens``: the plan,
open risks and the user's standing instructions first, then what session start pins
anyway (constitution, bound invariants), decisions, edited files, test runs, core context
and recent work. The same state always gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from charter.errors import CharterError
from charter.session.compaction import interrupted, load_checkpoint, sha256_file
from charter.session.instructions import standing
from charter.session.journal import resumed_chain
from charter.session.schema import PlanStep, read_optional
from charter.session.service import Session, session_key
from charter.tokens import count_many, count_tokens

#: Claude Code shows at most this many characters of one hook's context to the model.
HOOK_CONTEXT_LIMIT = 10_000
#: Journal events only Claude Code's hooks record: they mark an agent's session.
AGENT_KINDS = ("tool", "prompt")
_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]"}


@dataclass
class Recovered:
    track: str
    plan: list[dict[str, str]] = field(default_factory=list)
    decisions: list[dict[str, str]] = field(default_factory=list)
    risks: list[dict[str, str]] = field(default_factory=list)
    edited_files: list[str] = field(default_factory=list)
    test_runs: list[dict[str, str]] = field(default_factory=list)
    user_instructions: list[dict[str, str]] = field(default_factory=list)
    text: str = ""
    tokens: int = 0
    checkpoint: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    session_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "session_id": self.session_id,
            "plan": self.plan,
            "decisions": self.decisions,
            "risks": self.risks,
            "edited_files": self.edited_files,
            "test_runs": self.test_runs,
            "user_instructions": self.user_instructions,
            "text": self.text,
            "tokens": self.tokens,
            "checkpoint": (
                {k: v for k, v in self.checkpoint.items() if k != "transcript"}
                if self.checkpoint
                else None
            ),
            "notes": self.notes,
        }


def _pick_session(
    session: Session, track: str, wanted: str, checkpoint: dict[str, Any] | None
) -> str:
    journal = session.journal  # `last`, not `events`: a long session has thousands
    # a session's events on this track only: after `charter track switch` the same
    # Claude Code session goes on with another track's work
    if wanted and journal.last(session=wanted, track=track, kinds=("tool", "prompt", "plan")):
        return wanted
    # the checkpoint's session when it is an agent's (hooks record its tools and
    # prompts); `charter session note/compact` and MCP calls have none of their own
    named = str((checkpoint or {}).get("session_id") or "")
    if named and journal.last(session=named, track=track, kinds=AGENT_KINDS):
        return named
    newest = journal.last(track=track, kinds=AGENT_KINDS)
    return newest.session if newest else (wanted or named)


def link_resumed(session: Session, session_id: str) -> None:
    """SessionStart(resume) under a session id with no events of its own: Claude Code
    resumed an earlier conversation under a new id (2.0.x copies that conversation into
    the new transcript). Journal that it goes on from the session whose state recovery
    serves right now, so recovery keeps reading that session's prompts, files and test
    runs once the new id has events of its own. A resume that keeps its id, or a second
    SessionStart of the same id, changes nothing."""
    if not session_id:
        return
    key = session_key(session_id)
    track, _ = session.track()
    journal = session.journal
    if journal.last(session=key, track=track, kinds=(*AGENT_KINDS, "plan", "resume")):
        return
    previous = _pick_session(session, track, key, load_checkpoint(session, track))
    if not previous or previous == key:
        return
    last = journal.last(session=previous, track=track, kinds=AGENT_KINDS)
    if last is None:
        return
    journal.add(key, track, "resume", {"from": previous}, last.time)


def recover(
    session: Session,
    session_id: str = "",
    *,
    pinned: list[tuple[str, str]] | None = None,
    budget_tokens: int | None = None,
    create: bool = True,
) -> Recovered:
    """The recovered state of the active track; ``pinned`` = (title, text) from other
    capabilities (constitution, invariants), joined within the budget. ``create=False``
    (a read: ``charter session recover``, the MCP tool) names the track the first hook
    would create instead of creating it in the user's repository."""
    track, created = session.track() if create else (session.tracks.current(), False)
    result = Recovered(track)
    if created:
        result.notes.append(f"created track {track} (docs/tracks/ACTIVE_TRACK)")
    core: list[tuple[str, str | None]] = []
    for name in session.settings.core_files:
        try:
            text = read_optional(session.root / name)
            core.append((name, session.scrub(text) if text else text))
        except CharterError as exc:  # one bad file must not cost the plan and decisions
            result.notes.append(f"{name} skipped: {exc}")
            core.append((name, None))
    tier = session.task_tier(track)
    checkpoint = load_checkpoint(session, track)
    result.checkpoint = checkpoint
    torn = interrupted(session, track)
    if torn is not None:
        written = ", ".join(torn["files"]) or "no file yet"
        result.notes.append(
            f"a compaction of track {track} was interrupted before its checkpoint "
            f"(written: {written}); the next PreCompact or `charter session compact` "
            "finishes it"
        )
    if checkpoint:
        for name, info in sorted(checkpoint.get("task", {}).items()):
            path = session.track_path(track, name)
            if sha256_file(path) != info.get("sha256"):
                result.notes.append(f"{name} changed since checkpoint {checkpoint.get('id')}")
    key = _pick_session(session, track, session_key(session_id) if session_id else "", checkpoint)
    result.session_id = key
    journal = session.journal
    after = int(checkpoint.get("journal_seq", 0)) if checkpoint else 0
    live = journal.last(track=track, kinds=("plan",), after=after)  # the newest plan only
    plan: list[PlanStep] = tier.plan
    if live is not None:
        plan = [
            PlanStep(
                str(s.get("id")),
                str(s.get("content")),
                str(s.get("status")),
                str(s.get("verification") or ""),
            )
            for s in live.data.get("steps", [])
        ]
    result.plan = [{"content": s.text, "status": s.status, "id": s.id} for s in plan]
    result.decisions = [d.to_dict() for d in tier.decisions]
    result.risks = [r.to_dict() for r in tier.risks]
    chain = resumed_chain(session.journal, track, key) if key else []
    events = sorted(
        (
            e
            for sid in chain
            for e in journal.events(
                session=sid, track=track, kinds=("edit", "test", "prompt", "instruction")
            )
        ),
        key=lambda e: e.seq,
    )
    files: dict[str, None] = {}
    tests: dict[str, str] = {}
    said: list[tuple[str, str, str]] = []
    for e in events:
        if e.kind == "edit":
            files.pop(e.data["path"], None)
            files[e.data["path"]] = None
        elif e.kind == "test":
            tests.pop(e.data["command"], None)
            tests[e.data["command"]] = e.data["outcome"]
        elif e.kind == "prompt":
            said.append((e.data["text"], "prompt", e.time))
        else:
            said.append((e.data["text"], "feedback", e.time))
    result.edited_files = list(files)
    result.test_runs = [{"command": c, "outcome": o} for c, o in tests.items()]
    budget = budget_tokens or _budget(session, checkpoint)
    plan_lines = _plan_items(plan, budget)
    risk_lines = [f"- [{r['severity']}] {r['risk']}" for r in result.risks if r["status"] == "open"]
    spent = min(sum(count_many(plan_lines)), budget // 2) + sum(count_many(risk_lines)) + 60
    reserve = min(250, budget // 8)  # files, test runs and decisions after them
    instructions = standing(
        said,
        session.settings.instruction_max_chars,
        max(0, budget - spent - reserve),
        count_many,
    )
    result.user_instructions = [
        {"text": i.text, "via": i.via, "time": i.time} for i in instructions
    ]
    transient = {}
    # the test output of the newest session (of those resumed) that ran tests, when its
    # last run was on this track
    runs = [r for r in (journal.last(session=sid, kinds=("test",)) for sid in chain) if r]
    last_run = max(runs, key=lambda r: r.seq) if runs else None
    if last_run is not None and last_run.track == track:
        for name in ("test_output.txt",):
            text = read_optional(session.session_dir(last_run.session) / name)
            if text:
                transient[name] = session.scrub(text)
    # hand-edited track files, or a journal written before redaction, may hold a secret
    lists = ("plan", "decisions", "risks", "edited_files", "test_runs", "user_instructions")
    for name, value in session.scrub_data({n: getattr(result, n) for n in lists}).items():
        setattr(result, name, value)
    result.text = _compose(
        session,
        result,
        plan,
        core,
        pinned or [],
        transient,
        budget,
    )
    result.text = session.scrub(result.text)  # served text: never a secret
    result.tokens = count_tokens(result.text) if result.text else 0
    return result


#: Tokens per word of conversation (prose, code and tool output together).
TOKENS_PER_WORD = 1.5


def _budget(session: Session, checkpoint: dict[str, Any] | None) -> int:
    """Tokens of recovered context: ``recover_budget_tokens``, and no more than
    ``recover_max_share`` of the conversation the last compaction replaced (its words,
    counted by the compaction): restoring most of a short conversation makes the
    agent's context larger, not smaller."""
    settings = session.settings
    words = int(((checkpoint or {}).get("transcript") or {}).get("words") or 0)
    if not words:
        return settings.recover_budget_tokens
    share = int(settings.recover_max_share * TOKENS_PER_WORD * words)
    return min(settings.recover_budget_tokens, max(settings.recover_min_tokens, share))


_DONE = ("completed", "cancelled")


def _plan_items(plan: list[PlanStep], budget_tokens: int) -> list[str]:
    """The plan's lines for the agent. A plan of more than half the budget shows its open
    steps and counts the finished ones: listing them first cut off the step in progress,
    the ones after it and the user's instructions, which come next."""
    lines = [_plan_line(s) for s in plan]
    if sum(count_many(lines)) <= budget_tokens // 2:
        return lines
    completed = sum(1 for s in plan if s.status == "completed")
    cancelled = sum(1 for s in plan if s.status == "cancelled")
    if not completed + cancelled:
        return lines
    counts = [
        f"{n} {what}" for n, what in ((completed, "completed"), (cancelled, "cancelled")) if n
    ]
    return [
        f"- ({' and '.join(counts)} steps not shown)",
        *(_plan_line(s) for s in plan if s.status not in _DONE),
    ]


def _plan_line(step: PlanStep) -> str:
    verify = f" (verify: {step.verification})" if step.verification else ""
    return f"- {_MARK.get(step.status, '[ ]')} {step.id}: {step.text}{verify}"


class _Budget:
    """Tokens for the session's own sections; characters for everything (hook limit)."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self.chars = HOOK_CONTEXT_LIMIT - 200
        self.parts: list[str] = []
        self.session_parts = 0

    def fits(self, text: str, *, pinned: bool = False) -> bool:
        if len(text) + 2 > self.chars:
            return False
        return pinned or count_tokens(text) <= self.tokens

    def add(self, text: str, *, pinned: bool = False) -> bool:
        if not text or not self.fits(text, pinned=pinned):
            return False
        self.parts.append(text)
        if not pinned:
            self.tokens -= count_tokens(text)
            self.session_parts += 1
        self.chars -= len(text) + 2
        return True

    def add_list(
        self,
        title: str,
        items: list[str],
        *,
        more: str = "more",
        pinned: bool = False,
        last: bool = False,
    ) -> None:
        """As many items as fit, in order, under ``title``; says how many were left out.
        ``last``: the last ones that fit (a test run's tail ends with its result; its
        first line alone, the command, says nothing)."""
        if not items:
            return

        def text(kept: list[str], left: int) -> str:
            note = [f"(+{left} earlier {more})"] if left and last else []
            after = [f"(+{left} {more})"] if left and not last else []
            return "\n".join([title, *note, *kept, *after])

        kept: list[str] = []
        for item in reversed(items) if last else items:
            trial = [item, *kept] if last else [*kept, item]
            if not self.fits(text(trial, len(items) - len(trial)), pinned=pinned):
                break
            kept = trial
        if kept:
            self.add(text(kept, len(items) - len(kept)), pinned=pinned)


def bounded_parts(parts: list[tuple[str, str]]) -> str:
    """(heading, text) parts joined within Claude Code's hook limit: each part's lines in
    order while they fit, then how many were left out.

    This is the answer when the session state cannot be composed (a hand edit broke a
    track file): the pinned parts alone must still respect the limit, and a project with
    hundreds of bound decisions would otherwise pass it many times over.
    """
    budget = _Budget(0)
    for heading, text in parts:
        if text.strip():
            budget.add_list(heading, text.strip().splitlines(), more="lines", pinned=True)
    return "\n\n".join(budget.parts)


def _compose(
    session: Session,
    result: Recovered,
    plan: list[PlanStep],
    core: list[tuple[str, str | None]],
    pinned: list[tuple[str, str]],
    transient: dict[str, str],
    budget_tokens: int,
) -> str:
    budget = _Budget(budget_tokens)
    header = (
        f"# Session state (Charter; track {result.track}; restored from "
        f"{session.settings.tracks_dir}/{result.track} and the session journal)"
    )
    budget.add(header)
    budget.session_parts = 0
    if plan:
        # at most half the budget: the user's instructions come next
        rest = budget.tokens - budget.tokens // 2
        budget.tokens -= rest
        budget.add_list("## Plan", _plan_items(plan, budget_tokens), more="steps")
        budget.tokens += rest
    open_risks = [r for r in result.risks if r["status"] == "open"]
    budget.add_list(
        "## Open risks", [f"- [{r['severity']}] {r['risk']}" for r in open_risks], more="risks"
    )
    budget.add_list(
        "## The user's instructions (newest first; still in force unless the user changed them)",
        [f"- {i['text']}" for i in result.user_instructions],
        more="older instructions",
    )
    for heading, text in pinned:
        if text.strip():
            budget.add_list(heading, text.strip().splitlines(), more="lines", pinned=True)
    budget.add_list(
        "## Decisions (DECISIONS.md, newest first)",
        [
            f"- {d['decision']}" + (f" — {d['reason']}" if d["reason"] else "")
            for d in reversed(result.decisions)
        ],
        more="decisions",
    )
    budget.add_list(
        "## Files edited this session (most recent first)",
        [f"- {p}" for p in reversed(result.edited_files)],
        more="files",
    )
    budget.add_list(
        "## Test runs (last outcome)",
        [f"- {t['outcome']}: {t['command']}" for t in reversed(result.test_runs)],
        more="runs",
    )
    for name, body in core:
        if body and name != "CLAUDE.md":
            budget.add_list(f"## {name}", body.strip().splitlines(), more="lines")
    if transient.get("test_output.txt"):
        budget.add_list(
            "## Last test output (tail)",
            transient["test_output.txt"].strip().splitlines()[-15:],
            more="lines",
            last=True,
        )
    parts = budget.parts if budget.session_parts else budget.parts[1:]
    return "\n\n".join(parts) + "\n" if parts else ""
