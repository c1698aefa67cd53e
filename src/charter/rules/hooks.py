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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from charter.plugins import HookState
    from charter.rules.retrieve import Retriever

_PATHISH = re.compile(r"(?<![\w@])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,8})\b")
#: Rules are chosen from at most this much of a prompt: the task is stated at its start,
#: and a pasted multi-megabyte log must not hold the hook past its deadline.
MAX_PROMPT_CHARS = 20_000
CACHE_KEY = "rules.retriever"


def retriever_for(state: HookState, *, check_new: bool = False) -> Retriever:
    """The warm retriever of ``state``'s project (reloaded when rule files changed)."""
    from charter.config import Project
    from charter.embed.registry import embedder_for
    from charter.rules.compiler import is_stale, load_or_compile
    from charter.rules.retrieve import Retriever

    current: Retriever | None = state.cache.get(CACHE_KEY)
    if current is None or check_new or is_stale(state.project):
        state.project = Project.load(state.root)
        compiled = load_or_compile(state.project, check_new=check_new)
        current = Retriever(
            compiled, state.project.settings.rules, embedder_for(state.project.settings)
        )
        state.cache[CACHE_KEY] = current
    return current


def files_in_prompt(prompt: str, root: Path) -> list[str]:
    """Paths the prompt names that exist in the project (for repo-scoped rules)."""
    found = []
    for match in _PATHISH.finditer(prompt):
        candidate = match.group(1).lstrip("./")
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
    from charter.rules.compiler import load_or_compile

    return load_or_compile(state.project, check_new=True).constitution


#: Claude Code shows at most this many characters of one hook's context to the model.
HOOK_CONTEXT_LIMIT = 10_000


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
        return None
    title = f"# Project rules for this request (Charter; intent {result.intent.name})"
    budget = HOOK_CONTEXT_LIMIT - len(title) - 200
    chosen: list[str] = []
    paths: set[str] = set()
    for shard in result.shards:
        path = shard.rule.source.path
        size = len(retriever.lines[shard.rule.id]) + 1
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
        costs=retriever.costs,
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
            lambda r: retriever.lines[r.id],
            inline=retriever.inline,
        )
    ]
    if taken.seen:
        lines.append(f"({taken.seen} more for this request: already in this conversation.)")
    if taken.held:
        lines.append(f"({taken.held} more may apply: rules_for_task lists them.)")
    elif result.cut:
        lines.append("(Less likely rules left out: rules_for_task lists them.)")
    return title + "\n" + "\n".join(lines)


def new_conversation(state: HookState, payload: dict[str, Any]) -> list[str]:
    """SessionStart: a fresh or compacted conversation holds none of the injected rules."""
    from charter.rules.injected import clear

    if payload.get("source") in ("startup", "clear", "compact", None):
        clear(state.project.state_dir, str(payload.get("session_id") or ""))
    return []
