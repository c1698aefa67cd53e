"""Hook handlers of the rules engine: the constitution pinned at session start, the
rules for each prompt. Offered on the seam by :mod:`charter.rules.plugin`.

The retriever (compiled rules, BM25, the embedding model) is kept in the hook state's
cache, so the warm worker loads it once per session; rule files changed since the last
compile are recompiled before answering.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from charter.plugins import HookState
    from charter.rules.model import Rule
    from charter.rules.retrieve import Retriever

_PATHISH = re.compile(r"(?<![\w@])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,8})\b")
#: Rules are chosen from at most this much of a prompt: the task is stated at its start,
#: and a pasted multi-megabyte log must not hold the hook past its deadline.
MAX_PROMPT_CHARS = 20_000
CACHE_KEY = "rules.retriever"
#: the compiled state on disk when the warm retriever was loaded: a compile since (by the
#: CLI, another session) makes the tool-time hooks read the disk instead
STAMP_KEY = "rules.retriever.stamp"


def retriever_for(state: HookState, *, check_new: bool = False) -> Retriever:
    """The warm retriever of ``state``'s project, reloaded when rule files changed or the
    compiled state was written since (``charter compile``, another session's hook)."""
    from charter.config import Project
    from charter.embed.registry import rules_embedder_for
    from charter.rules.compiler import is_stale, load_or_compile
    from charter.rules.retrieve import Retriever

    current: Retriever | None = state.cache.get(CACHE_KEY)
    moved = current is not None and state.cache.get(STAMP_KEY) != _state_stamp(state)
    if current is None or check_new or moved or is_stale(state.project):
        state.project = Project.load(state.root)
        compiled = load_or_compile(state.project, check_new=check_new)
        current = Retriever(
            compiled, state.project.settings.rules, rules_embedder_for(state.project.settings)
        )
        state.cache[CACHE_KEY] = current
        state.cache[STAMP_KEY] = _state_stamp(state)
    return current


def _state_stamp(state: HookState) -> tuple[int, int] | None:
    """The compiled state's manifest as it stands on disk (mtime, size), or None."""
    from charter.rules.stored import MANIFEST_FILE

    try:
        st = (state.project.state_dir / MANIFEST_FILE).stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def files_in_prompt(prompt: str, root: Path) -> list[str]:
    """Paths the prompt names that exist in the project (for repo-scoped rules)."""
    found = []
    for match in _PATHISH.finditer(prompt):
        candidate = match.group(1).removeprefix("./")  # `.github/…` keeps its dot
        if ".." in candidate.split("/"):
            continue  # outside the project, or not where it seems
        if candidate and (root / candidate).exists():
            found.append(candidate)
    return sorted(set(found))


def pinned_constitution(
    state: HookState, payload: dict[str, Any], notes: list[str]
) -> list[tuple[str, str]]:
    constitution = _constitution(state)
    if not constitution.text:
        return []
    source = payload.get("source", "startup")
    heading = (
        "# Project constitution (Charter; always applies"
        + (", re-pinned after compaction" if source == "compact" else "")
        + f"; hash {constitution.hash})"
    )
    return [(heading, constitution.text)]


def _constitution(state: HookState) -> Any:
    """The compiled constitution, picking up new rule files. A warm worker refreshes its
    retriever; a one-off process (``charter session recover``) only loads the compiled
    rules: pinning the constitution needs no embedding model."""
    if CACHE_KEY in state.cache or state.cache.get("rules.warm"):
        return retriever_for(state, check_new=True).compiled.constitution
    from charter.rules.freshness import is_fresh
    from charter.rules.stored import stored_constitution

    # a fresh compile answers from its stored text alone (no parser, no numpy)
    if is_fresh(state.project, check_new=True):
        stored = stored_constitution(state.project)
        if stored is not None:
            return stored
    from charter.rules.compiler import load_or_compile

    return load_or_compile(state.project, check_new=True).constitution


#: Claude Code shows at most this many characters of one hook's context to the model.
HOOK_CONTEXT_LIMIT = 10_000
#: The injected-rules store's entry for the note that less likely rules were left out
#: (not a rule id: rule ids never hold a colon).
LEFT_OUT_NOTE = "note:left-out"


def prompt_event(payload: dict[str, Any]) -> str:
    """Which prompt of the conversation this is: its text and the transcript's size when
    the hook fired (Claude Code waits for the hook, so the warm worker and the hook's
    in-process fallback see the same size; the same words asked later see a longer
    transcript). "" when there is no transcript to tell two prompts apart."""
    import hashlib

    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        return ""
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return ""
    text = str(payload.get("prompt") or "")
    return hashlib.sha256(f"{size}\0{text}".encode()).hexdigest()[:32]


def prompt_rules(state: HookState, payload: dict[str, Any], notes: list[str]) -> str | None:
    """The rules for this prompt that are not already in the conversation."""
    from charter.rules.injected import take
    from charter.rules.render import file_header, render_grouped

    prompt = str(payload.get("prompt") or "")
    if not prompt.strip():
        return None
    if len(prompt) > MAX_PROMPT_CHARS:
        notes.append(
            f"prompt of {len(prompt)} characters: rules chosen from its first {MAX_PROMPT_CHARS}"
        )
        prompt = prompt[:MAX_PROMPT_CHARS]
    retriever = retriever_for(state)
    settings = state.project.settings.rules
    result = retriever.retrieve(
        prompt,
        files_in_prompt(prompt, state.root),
        relative_cutoff=settings.hook_relative_cutoff or None,
    )
    if not result.shards:
        if result.gated:
            notes.append("no task in the prompt (only conversational words): no rules added")
        else:  # say so when rules could have ranked: an empty answer must name itself
            pinned = set(retriever.compiled.constitution.rule_ids)
            open_rules = sum(
                1 for r in retriever.compiled.rules if r.id not in pinned and not r.scopes
            )
            if open_rules:
                notes.append(f"no rule ranked for this prompt ({open_rules} not pinned)")
        return None
    title = f"# Project rules for this request (Charter; intent {result.intent.name})"
    budget = HOOK_CONTEXT_LIMIT - len(title) - 200
    # shown as `charter context` shows them: the best few whole, the rest brief
    full = retriever.full_ids(result.shards)
    chosen: list[str] = []
    paths: set[str] = set()
    for shard in result.shards:
        path = shard.rule.source.path
        size = len(retriever.line(shard.rule.id, full)) + 1
        size += 0 if retriever.inline or path in paths else len(file_header(path)) + 1
        if size > budget:
            break
        chosen.append(shard.rule.id)
        paths.add(path)
        budget -= size
    session = str(payload.get("session_id") or "")
    share = settings.hook_budget_fraction
    taken = take(
        state.project.state_dir,
        session,
        chosen,
        costs={rid: retriever.line_cost(rid, full) for rid in chosen},
        budget=max(1, int(retriever.compiled.source_tokens * share)) if share else 0,
        event=prompt_event(payload),
    )
    if not taken.fresh:
        if taken.seen:
            notes.append(f"{taken.seen} rules for this request are already in the conversation")
        if taken.held:
            notes.append(
                f"{taken.held} rules held back by rules.hook_budget_fraction (rules_for_task)"
            )
        return None
    by_id = {shard.rule.id: shard.rule for shard in result.shards}
    lines = [
        render_grouped(
            (by_id[rid] for rid in taken.fresh),
            lambda r: retriever.line(r.id, full),
            inline=retriever.inline,
        )
    ]
    if taken.seen:
        lines.append(f"({taken.seen} more for this request: already in this conversation.)")
    if taken.held:
        lines.append(f"({taken.held} more may apply: rules_for_task lists them.)")
    elif (
        result.cut
        and take(
            state.project.state_dir, session, [LEFT_OUT_NOTE], event=prompt_event(payload)
        ).fresh
    ):
        # said once per conversation, like the rules: it stays in it until compaction
        lines.append("(Less likely rules left out: rules_for_task lists them.)")
    return title + "\n" + "\n".join(lines)


def new_conversation(state: HookState, payload: dict[str, Any]) -> list[str]:
    """SessionStart: a fresh or compacted conversation holds none of the injected rules."""
    from charter.rules.injected import clear

    if payload.get("source") in ("startup", "clear", "compact", None):
        clear(state.project.state_dir, str(payload.get("session_id") or ""))
    return []


#: Claude Code's tools that read or change one file, and the input key naming it (Gemini
#: CLI's ``read_file``/``write_file``/``replace`` arrive under these names, with the same
#: ``file_path``: :mod:`charter.integrations.agent_hooks`).
FILE_TOOLS = {
    "Read": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "Write": "file_path",
    "NotebookEdit": "notebook_path",
}
#: Tools whose input is a patch naming the files it writes, and the key holding it:
#: Codex's ``apply_patch`` (its only file tool; Codex reads files through the shell).
PATCH_TOOLS = {"apply_patch": "command"}
#: The file headers of Codex's patch grammar that leave a file behind (not deletions).
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Move to): (.+?)[ \t]*$", re.M)


def touched_files(payload: dict[str, Any], root: Path) -> list[str]:
    """The project-relative paths a file tool's call names, in order; [] for other tools,
    paths outside the project, or input that names no file."""
    tool = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return []
    raws: list[object]
    if tool in PATCH_TOOLS:
        patch = tool_input.get(PATCH_TOOLS[tool])
        raws = list(_PATCH_FILE.findall(patch)) if isinstance(patch, str) else []
    elif tool in FILE_TOOLS:
        raws = [tool_input.get(FILE_TOOLS[tool])]
    else:
        return []
    out: list[str] = []
    for raw in raws:
        rel = _project_path(raw, payload, root)
        if rel is not None and rel not in out:
            out.append(rel)
    return out


def touched_file(payload: dict[str, Any], root: Path) -> str | None:
    """The first of :func:`touched_files`, or None."""
    found = touched_files(payload, root)
    return found[0] if found else None


def _project_path(raw: object, payload: dict[str, Any], root: Path) -> str | None:
    if not isinstance(raw, str) or not raw.strip() or "\0" in raw:
        return None
    path = Path(raw)
    if not path.is_absolute():
        cwd = payload.get("cwd")
        path = (Path(cwd) if isinstance(cwd, str) and cwd else root) / path
    try:
        rel = Path(os.path.normpath(path)).relative_to(root.resolve())
    except ValueError:
        try:
            rel = Path(os.path.normpath(path)).relative_to(root)
        except ValueError:
            return None
    text = rel.as_posix()
    return None if text in ("", ".") or text.startswith("../") else text


#: agents whose answer to a finished tool call carries no context (Cursor's postToolUse):
#: rules handed over there would be marked as in the conversation yet never shown
_NO_TOOL_CONTEXT = frozenset(["cursor"])


def drops_tool_context(payload: dict[str, Any]) -> bool:
    return payload.get("charter_agent") in _NO_TOOL_CONTEXT


def path_rules(state: HookState, payload: dict[str, Any], notes: list[str]) -> str | None:
    """PostToolUse of a file tool: the rules scoped to that file's path (a nested
    AGENTS.md, a Cursor rule's globs, a ``paths:`` list) that are not yet in the
    conversation, the narrowest scope's first (then in their files' order), within
    ``rules.path_rules_max_tokens``, shown in their files' order.

    The prompt hook ranks rules by the prompt's words, and a prompt rarely names the
    directory its work ends up in: this is how the web app's component rules reach an
    agent that opens a ``.tsx`` file while fixing an invoice bug. It also keeps what
    Claude Code does natively for nested CLAUDE.md files (load them when a file below is
    read), which managed rules turn off. Rules come from the warm retriever when there
    is one, else from the compiled state on disk; nothing is compiled here (the prompt
    hook does that), so a tool call never waits for the embedding model.
    """
    from charter.rules.scopes import scope_matches, specificity

    settings = state.project.settings.rules
    if settings.path_rules_max_tokens <= 0 or drops_tool_context(payload):
        return None
    rels = touched_files(payload, state.root)
    if not rels:
        return None
    found = rules_at_hand(state)
    if found is None:
        return None
    rules, pinned = found.rules, found.pinned
    # a rule file the agent has just read or written whole is in the conversation word for
    # word: its own rules are not handed over beside it (a Read of `db/AGENTS.md` matches
    # that file's scope, `db/**`)
    whole = payload.get("tool_name") in ("Read", "Write") and not _part_read(payload)
    own = set(rels) if whole else set()
    matched = [
        r
        for r in rules
        if r.scopes
        and r.id not in pinned
        and r.source.path not in own
        and scope_matches(r.scopes, rels)
    ]
    # the narrowest scope first (a folder's own rules before a whole tree's or a kind of
    # file's), then file order: the budget goes to the rules most about this place
    narrow = {r.id: specificity(r.scopes, rels) for r in matched}
    matched.sort(
        key=lambda r: (
            tuple(-n for n in narrow[r.id]),
            r.source.path,
            r.source.line_start,
            r.source.line_end,
            r.id,
        )
    )
    scoped = "this path" if len(rels) == 1 else "these paths"
    title = f"# Project rules for {', '.join(rels)} (Charter; rules scoped to {scoped})"
    return hand_over(
        state,
        payload,
        matched,
        found,
        title=title,
        budget=settings.path_rules_max_tokens,
        more="scoped to this path",
        ranked=True,
    )


def _part_read(payload: dict[str, Any]) -> bool:
    """Did a Read ask for part of the file (an ``offset`` or ``limit``)?"""
    tool_input = payload.get("tool_input")
    return isinstance(tool_input, dict) and bool(
        tool_input.get("offset") or tool_input.get("limit")
    )


class AtHand(NamedTuple):
    """The compiled rules as a tool-time hook sees them."""

    rules: list[Rule]
    #: the constitution's ids: always in the conversation
    pinned: set[str]
    #: rule lines as the prompt hook shows them (warm), else empty
    shown: dict[str, str]
    #: path-scoped rules' text cut at compile time (cold), else empty
    briefs: dict[str, str]
    #: each candidate rule's score of applying to every change
    general: dict[str, float]
    #: files loaded only when the user asks for them by name: they hold no rule of a
    #: step or of every change
    asked_for: frozenset[str] = frozenset()


def rules_at_hand(state: HookState) -> AtHand | None:
    """The compiled rules for a tool-time hook without compiling, from the warm retriever
    when there is one, else from the compiled state on disk (None when nothing is
    compiled), so a tool call never waits for the embedding model."""
    from charter.rules.stored import load_rules

    warm = state.cache.get(CACHE_KEY)
    if warm is not None and state.cache.get(STAMP_KEY) == _state_stamp(state):
        from charter.rules.compiler import manual_paths  # loaded with the warm retriever

        compiled = warm.compiled
        return AtHand(
            compiled.rules,
            set(compiled.constitution.rule_ids),
            warm.lines,
            {},
            compiled.general or {},
            frozenset(manual_paths(compiled.sources)),
        )
    stored = load_rules(state.project)
    if stored is None:
        return None
    return AtHand(
        stored.rules,
        set(stored.constitution_ids),
        {},
        stored.briefs,
        stored.general,
        stored.asked_for,
    )


def hand_over(
    state: HookState,
    payload: dict[str, Any],
    matched: list[Rule],
    found: AtHand,
    *,
    title: str,
    budget: int,
    more: str,
    ranked: bool = False,
    once: str = "",
    whole: bool = False,
) -> str | None:
    """``matched`` rules not yet in the conversation, in their files' order (``ranked``:
    taken best first as given, shown in their files' order), grouped and cited like the
    prompt's rules, within ``budget`` tokens and Claude Code's limit on one context,
    recorded as given under this tool call (see :func:`take`); None when none is new.
    ``more`` says what the held-back rules have in common. ``once`` names a moment that
    hands rules over once per conversation: it is recorded with them, and once it is in
    the conversation nothing more is handed over for it until a compaction clears it.
    ``whole``: each rule in its own words up to three times ``max_rule_tokens`` (a cut
    keeping the sentence that forbids), never cut to the prompt's brief: the words that
    name the step may come after that cut."""
    from charter.rules.injected import take
    from charter.rules.render import (
        file_header,
        render_grouped,
        render_pinned_line,
        render_rule_line,
    )
    from charter.tokens import estimate_tokens

    if not matched:
        return None
    settings = state.project.settings.rules
    shown, briefs = found.shown, found.briefs
    if not ranked:
        matched = sorted(
            matched, key=lambda r: (r.source.path, r.source.line_start, r.source.line_end, r.id)
        )
    inline = settings.citation_style == "inline"
    if whole:
        lines = {
            r.id: render_pinned_line(r, 3 * settings.max_rule_tokens, inline=inline)
            for r in matched
        }
    else:
        lines = {
            r.id: shown.get(r.id)
            or render_rule_line(r, settings.max_rule_tokens, inline=inline, brief=briefs.get(r.id))
            for r in matched
        }
    room = HOOK_CONTEXT_LIMIT - len(title) - 200  # what Claude Code shows of one context
    fits: list[Rule] = []
    seen_paths: set[str] = set()
    for rule in matched:
        size = len(lines[rule.id]) + 1
        if not inline and rule.source.path not in seen_paths:
            size += len(file_header(rule.source.path)) + 1
        if size > room:
            break
        fits.append(rule)
        seen_paths.add(rule.source.path)
        room -= size
    costs = {r.id: estimate_tokens(lines[r.id]) + 1 for r in fits}
    if not inline:  # each file's header is paid by the first of its rules
        for path in {r.source.path for r in fits}:
            first = next(r for r in fits if r.source.path == path)
            costs[first.id] += estimate_tokens(file_header(path)) + 1
    ids = [r.id for r in fits]
    if once:  # costs nothing; handed over with the moment's rules or not at all
        ids, costs[once] = [once, *ids], 0
    taken = take(
        state.project.state_dir,
        str(payload.get("session_id") or ""),
        ids,
        costs=costs,
        budget=budget,
        event=f"tool:{payload.get('tool_use_id') or ''}",
        gate=once,
    )
    if once and once not in taken.fresh:
        return None
    fresh = set(taken.fresh) - {once}
    if not fresh:
        return None
    if ranked:
        fits.sort(key=lambda r: (r.source.path, r.source.line_start, r.source.line_end, r.id))
    body = render_grouped((r for r in fits if r.id in fresh), lambda r: lines[r.id], inline=inline)
    held = taken.held + len(matched) - len(fits)
    tail = f"\n({held} more rules {more}: rules_for_task lists them.)" if held and not once else ""
    return title + "\n" + body + tail
