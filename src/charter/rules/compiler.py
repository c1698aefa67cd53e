"""Compile a project's rule files into a constitution plus embedded shards.

Output is deterministic: ``.charter/rules.json`` is canonical JSON with no wall-clock
values, so the same inputs give byte-identical state (tests hash it). Vectors live beside
it in ``rules.npy`` and in a content-addressed SQLite cache, so recompiling an unchanged
rule reuses its vector instead of running the model again. ``rules.meta.json`` is the
manifest written last: it names both files with their hashes, so the pair is committed
atomically and a torn pair (a compile killed mid-write) is detected and recompiled.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
import threading
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from charter import __version__
from charter.config import Project
from charter.embed.base import Embedder, Vectors
from charter.embed.registry import import_provider, rules_embedder_for
from charter.errors import CharterError
from charter.fileio import canonical_json, commit_files
from charter.rules.build import (
    apply_local_overrides,
    assign_ids,
    normalized,
    rules_from_source,
)
from charter.rules.freshness import explicit_paths, has_new_sources, is_stale
from charter.rules.groups import lead_ins
from charter.rules.model import Rule, Source
from charter.rules.render import (
    compact_keeping_directive,
    file_header,
    render_grouped,
    render_pinned_line,
)
from charter.rules.sources import (
    SourceFile,
    alias_scopes,
    configured_sources,
    discover,
    kind_for_path,
    load_source,
    resolve_imports,
)
from charter.rules.stored import (
    MANIFEST_FILE,
    PROHIBITED_FILE,
    STATE_FILE,
    STATE_VERSION,
    VECTORS_FILE,
    Constitution,
    Prohibitions,
    general_of,
    prohibitions_of,
    read_state,
)
from charter.rules.vector_cache import VectorCache
from charter.tokens import count_tokens
from charter.tokens import warm as warm_tokenizer


@dataclass
class CompileReport:
    sources: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    embedded: int = 0
    reused: int = 0
    restated: list[tuple[Source, Source]] = field(default_factory=list)  # (kept, copy)


@dataclass
class CompiledRules:
    """Compiled state in memory: rules, constitution, vectors aligned with ``rules``."""

    rules: list[Rule]
    constitution: Constitution
    vectors: Vectors
    model: str
    sources: list[dict[str, Any]]
    report: CompileReport = field(default_factory=CompileReport)
    #: the candidate rules' lines as shown and their token costs, counted at compile
    #: (:func:`charter.rules.retrieve.shown_lines`): a cold prompt hook then never builds
    #: the tokenizer; None when not stored (the retriever counts them)
    shown: dict[str, Any] | None = None
    #: each candidate rule's score of applying to every change (:mod:`charter.rules.general`),
    #: computed at save: the file tool hook hands the best over with the first source file
    general: dict[str, float] | None = None
    #: what the rules forbid at a tool call, read once (reading every rule's prohibitions
    #: is a tenth of a 500-rule compile): at save, or on first use of a loaded state
    prohibited: Prohibitions | None = None

    def prohibitions(self) -> Prohibitions:
        """The commands and edits the rules forbid (:func:`prohibitions_of`), read once."""
        if self.prohibited is None:
            self.prohibited = prohibitions_of(self.rules)
        return self.prohibited

    @property
    def source_tokens(self) -> int:
        """cl100k tokens of every compiled rule file: what loading them whole would cost,
        less the share of a file whose rules were compiled once under another file's copy
        (``folded``): four agents' copies of one text are one text's rules, and a quarter
        of all four would hold nearly every rule of it, selecting none."""
        return sum(
            round(int(s.get("tokens", 0)) * (1 - float(s.get("folded", 0.0)))) for s in self.sources
        )

    def by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    def state(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "model": self.model,
            "sources": self.sources,
            "constitution": self.constitution.to_dict(),
            "rules": [r.to_state() for r in self.rules],
        }


def build_constitution(
    rules: list[Rule],
    max_lines: int,
    boost: int,
    max_rule_tokens: int = 0,
    max_tokens: int = 0,
    *,
    inline: bool = False,
) -> Constitution:
    """The always-loaded rules, capped at ``max_lines`` lines and ``max_tokens`` tokens.

    Rules past either cap overflow: they keep their constitution priority and stay
    retrievable per task, and the overflow is reported; nothing is dropped silently.
    """
    # When the always-loaded rules overflow the caps, the rules of files that apply
    # everywhere come first: a file that is always applied yet names the files it is
    # about (Cursor's ``alwaysApply`` with ``globs: .cursor/rules/*.mdc``) says where it
    # matters, and is retrieved there per task (stable: file order within each group).
    members = sorted((r for r in rules if r.constitution), key=lambda r: bool(r.scopes))
    for rule in members:
        rule.priority += boost
    lines: dict[str, str] = {}
    kept: list[Rule] = []
    overflow: list[str] = []
    paths: set[str] = set()
    used = 0
    for rule in members:
        line = render_pinned_line(rule, max_rule_tokens, inline=inline)
        cost = count_tokens(line) + 1
        new_file = not inline and rule.source.path not in paths
        if new_file:
            cost += count_tokens(file_header(rule.source.path)) + 1
        fits = not max_tokens or used + cost <= max_tokens
        # the line cap counts what is shown: rule lines and one header per file
        if len(lines) + len(paths) + 1 + new_file <= max_lines and fits and not overflow:
            lines[rule.id] = line
            kept.append(rule)
            if not inline:
                paths.add(rule.source.path)
            used += cost
        else:
            overflow.append(rule.id)
    overflowed = bool(overflow)
    # a lead-in pinned without any of its items ("Pre-commit checklist (required for code
    # changes):" whose items are not always-loaded) says nothing alone: it is not pinned
    # but retrieved with its items per task, as retrieval leaves out orphan lead-ins
    pinned = {rule.id for rule in kept}
    for lead, items in lead_ins(rules).items():
        if rules[lead].id in pinned and not any(rules[i].id in pinned for i in items):
            kept.remove(rules[lead])
            overflow.append(rules[lead].id)
    text = render_grouped(kept, lambda r: lines[r.id], inline=inline)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return Constitution(digest, text, [r.id for r in kept], overflowed, overflow)


def _sources_for(
    project: Project, paths: list[Path] | None, report: CompileReport
) -> list[SourceFile]:
    settings = project.settings.rules
    root = project.root
    entries: list[tuple[str, Path]] = []
    if paths:
        from charter.boundary import inside_root

        for path in paths:
            if not path.exists():
                raise CharterError(f"rule file not found: {path}")
            # a named file is read into the agent's context like any rule file: it must
            # be the project's own (what `charter index PATH` and rules.sources refuse too)
            inside_root(root, path.absolute(), what=f"rule file {path}")
            entries.append((kind_for_path(path, root), path))
    else:
        entries = discover(root, settings.exclude, refused=report.errors)
        configured = configured_sources(root, settings.sources, report.errors, report.warnings)
        for kind, path in configured:
            if all(p.resolve() != path.resolve() for _, p in entries):
                entries.append((kind, path))
    sources: list[SourceFile] = []
    seen: set[str] = set()
    aliases: dict[str, list[tuple[str, str]]] = {}  # resolved rel -> (kind, rel as named)
    for kind, path in entries:
        aliases.setdefault(project.rel(path), []).append((kind, _named_rel(root, path)))
    for kind, path in entries:
        rel = project.rel(path)
        if rel in seen:
            continue
        try:
            src = load_source(path, rel, kind, settings.max_file_bytes)
            if src.note:
                report.warnings.append(src.note)
            if src.other_agent:
                seen.add(rel)
                report.warnings.append(
                    f"{rel}: written for {src.other_agent} only "
                    "(excludeAgent: coding-agent); not compiled"
                )
                continue
            alias_scopes(src, aliases[rel])
            sources.append(src)
            seen.add(rel)
            if kind in ("claude", "claude-local", "gemini", "qwen"):  # all follow @imports
                imports = resolve_imports(
                    src,
                    root,
                    settings.max_import_depth,
                    refused=report.errors,
                    warned=report.warnings,
                    max_bytes=settings.max_file_bytes,
                )
                for child in imports:
                    if child.note:
                        report.warnings.append(child.note)
                    if child.rel not in seen:
                        sources.append(child)
                        seen.add(child.rel)
        except CharterError as exc:
            report.errors.append(str(exc))
    return sources


def _named_rel(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` as named, symlinks not followed."""
    try:
        return path.absolute().relative_to(root.absolute()).as_posix()
    except ValueError:
        return path.name


#: How long a thread holding the GIL keeps it from another that asks, during a compile.
_SWITCH_INTERVAL = 0.0005

#: The vectors of a compile still embedding (its rules' lines are counted meanwhile).
_NO_VECTORS = np.zeros((0, 0), dtype=np.float32)


def compile_rules(
    project: Project,
    paths: list[Path] | None = None,
    *,
    embedder: Embedder | None = None,
    write: bool = True,
    embed_constitution: bool = False,
) -> CompiledRules:
    """Parse, tag, split and embed the project's rules; write state unless ``write=False``.

    Constitution rules are always loaded, never ranked, so their vectors are only needed
    when a contradiction check reaches its similarity test; unless ``embed_constitution``
    is set (lint), they are embedded on demand (or reused from the vector cache).
    """
    report = CompileReport()
    late_report = CompileReport()
    workers = ThreadPoolExecutor(2, thread_name_prefix="charter-compile")
    prefetch: _Prefetch | None = None
    # This thread parses and reads the rules holding the GIL while the model's threads
    # need it for a moment between batches (and the feeder to start a chunk): by default
    # they waited up to 5 ms for it each time, the model's cores idle meanwhile.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, _SWITCH_INTERVAL))
    try:
        # The model loads while the files are parsed (the load runs without the GIL).
        # Then the shards are embedded in a worker while this thread builds the
        # constitution (cl100k tables, ~0.13 s holding the GIL) and embeds the rules that
        # overflow it at once: their batches queue behind the shards' on the embedder's
        # pool, so the cores never wait for a second, smaller pass.
        loading = None
        if embedder is None:
            import_provider(project.settings)
            loading = workers.submit(rules_embedder_for, project.settings)
        # Creating a new project's vector cache (index.db: WAL switch, migrations, their
        # fsyncs) took ~0.2 s on the embedding's critical path; it is done meanwhile.
        warming = workers.submit(_warm_vector_cache, project.db_path)
        # The shards' rules are embedded as the parse makes them, not after the last one
        # (:class:`_Prefetch`): tagging 500 rules (~0.15 s) no longer delays the model.
        given = embedder
        model_of: Callable[[], Embedder] = (
            loading.result if loading is not None else lambda: _given(given)
        )
        prefetch = _Prefetch(project.db_path, model_of, warming.result)
        sources = _sources_for(project, paths, report)
        _redact_sources(project, sources, report)
        rules = _parse_rules(project, sources, report, prefetch.add)
        prefetch.finish()
        rules = _drop_pointers(project, sources, rules)
        _warn_pointers(project, sources, rules, report)
        if rules and loading is not None and not loading.done():
            warm_tokenizer()  # the model is still loading: build the cl100k tables meanwhile
        model = loading.result() if loading is not None else embedder
        assert model is not None
        warming.result()
        members = frozenset(r.id for r in rules if r.constitution)
        started = threading.Event()
        shards = workers.submit(
            embed_rules, project, rules, model, report, members, started, prefetch.vectors
        )
        # the shards are on the model before this thread takes the GIL (or it failed)
        while not started.wait(0.01) and not shards.done():
            pass
        constitution, source_tokens = _constitution(project, rules, sources, report)
        late = set(constitution.overflow_ids) | (members if embed_constitution else set())
        rows = [i for i, r in enumerate(rules) if r.id in late]
        folded = folded_shares(rules, report.restated)
        source_meta = [
            {
                "path": s.rel,
                "kind": s.kind,
                "sha256": hashlib.sha256(s.text.encode()).hexdigest(),
                "tokens": tokens,
            }
            # a file loaded only when asked for by name says so (no rule for every change)
            | ({"manual": True} if s.manual else {})
            # the share of its rules compiled once under another file's copy
            | ({"folded": folded[s.rel]} if folded.get(s.rel) else {})
            for s, tokens in zip(sources, source_tokens, strict=True)
        ]
        compiled = CompiledRules(rules, constitution, _NO_VECTORS, model.name, source_meta)
        if write:
            # what save stores that needs no vector (each rule's line as shown, what the
            # rules forbid at a tool call: pure Python, a fifth of a 500-rule compile) is
            # done while the model embeds the shards, instead of after them (the rules
            # that overflow the constitution queue behind the shards either way)
            from charter.rules.retrieve import shown_lines

            compiled.shown = shown_lines(compiled, project.settings.rules)
            compiled.prohibitions()
        late_vectors = embed_rules(project, [rules[i] for i in rows], model, late_report)
        vectors = shards.result()
    finally:
        sys.setswitchinterval(switch)
        if prefetch is not None:
            prefetch.close()
        workers.shutdown(wait=True)
    if rows:
        vectors[rows] = late_vectors
    report.embedded += late_report.embedded
    report.reused += late_report.reused
    report.sources = [s.rel for s in sources]
    compiled.vectors = vectors
    compiled.report = report
    if write:
        save(project, compiled, sources, explicit=paths)
    return compiled


def prohibitions_now(project: Project) -> Prohibitions:
    """What the project's rule files forbid as they are now: parsed exactly as a compile
    parses them, never embedded (a guardrail reads a rule file edited mid-turn with this,
    in a fraction of a compile)."""
    report = CompileReport()
    sources = _sources_for(project, explicit_paths(project), report)
    _redact_sources(project, sources, report)
    rules = _drop_pointers(project, sources, _parse_rules(project, sources, report))
    return prohibitions_of(rules)


def manual_paths(sources: list[dict[str, Any]]) -> set[str]:
    """The compiled files loaded only when the user asks for them by name."""
    return {str(s["path"]) for s in sources if s.get("manual")}


def _warm_vector_cache(path: Path) -> None:
    """Open (and on first use create) the vector cache once, so the embedding step's own
    open finds it ready. Its connection lives in this thread only (sqlite3's rule)."""
    VectorCache(path).close()


def folded_shares(rules: list[Rule], restated: list[tuple[Source, Source]]) -> dict[str, float]:
    """For each rule file with copies folded into another file's rules, the share of its
    rules that were (rounded to 3 places)."""
    kept: dict[str, int] = {}
    for rule in rules:
        kept[rule.source.path] = kept.get(rule.source.path, 0) + 1
    copies: dict[str, int] = {}
    for _, copy in restated:
        copies[copy.path] = copies.get(copy.path, 0) + 1
    return {path: round(n / (n + kept.get(path, 0)), 3) for path, n in copies.items() if n}


def _drop_pointers(project: Project, sources: list[SourceFile], rules: list[Rule]) -> list[Rule]:
    """Rules that only send the agent to rule files compiled here are no rules of their own
    (:func:`charter.rules.pointers.points_only_to`): a one-line ``CLAUDE.md`` saying "See
    `AGENTS.md`" was a rule that could be injected, sending the agent to read whole the
    file whose rules it is given one by one."""
    from charter.rules.pointers import points_only_to

    compiled = {s.rel for s in sources}
    if len(compiled) < 2:
        return rules
    return [r for r in rules if not points_only_to(project.root, r.source.path, r.text, compiled)]


def _warn_pointers(
    project: Project, sources: list[SourceFile], rules: list[Rule], report: CompileReport
) -> None:
    """A rule file that compiles to almost nothing but names Markdown files points the agent
    at rules Charter does not see: say which, and how to compile them."""
    from charter.rules.pointers import POINTER_MAX_RULES, named_markdown

    compiled = {s.rel for s in sources}
    counts: dict[str, int] = {}
    # a copy compiled once under another file is still a rule the file states: a file of
    # two hundred rules copied from another's is no pointer
    own = [rule.source.path for rule in rules] + [copy.path for _, copy in report.restated]
    for path in own:
        counts[path] = counts.get(path, 0) + 1
    for source in sources:
        if counts.get(source.rel, 0) > POINTER_MAX_RULES:
            continue
        exclude = project.settings.rules.exclude
        named = named_markdown(project.root, source.rel, source.text, compiled, exclude)
        if named:
            more = f" and {len(named) - 5} more" if len(named) > 5 else ""
            report.warnings.append(
                f"{source.rel}: sends the agent to {', '.join(named[:5])}{more}, which "
                f"Charter does not compile ({counts.get(source.rel, 0)} rule(s) of its own); "
                "list the ones that hold rules in [rules] sources"
            )


def _redact_sources(project: Project, sources: list[SourceFile], report: CompileReport) -> None:
    """Secrets in rule files are redacted before a rule is parsed (see charter.secretscan)."""
    from charter.secretscan.apply import project_scanner, scrub_sources

    found = scrub_sources(sources, project_scanner(project))
    for rel, redaction in found:
        report.warnings.append(
            f"{rel}:{redaction.line}: secret redacted ({redaction.detector}); "
            "remove it from the file and rotate it"
        )


def _parse_rules(
    project: Project,
    sources: list[SourceFile],
    report: CompileReport | None = None,
    emit: Callable[[Rule], None] | None = None,
) -> list[Rule]:
    """Rules of ``sources`` with ids and local overrides applied.

    With ``report``, a file that cannot be parsed safely (Markdown nested too deeply) is
    noted there and removed from ``sources`` in place; the others still compile. ``emit``
    is handed every rule as it is parsed, before any is dropped as a copy or override.
    """
    try:
        markers = [
            re.compile(m, re.IGNORECASE | re.MULTILINE)
            for m in project.settings.rules.constitution_markers
        ]
    except re.error as exc:
        raise CharterError(f"rules.constitution_markers: bad regex: {exc}") from None
    rules: list[Rule] = []
    for src in list(sources):
        try:
            rules.extend(rules_from_source(src, markers, emit))
        except CharterError as exc:
            if report is None:
                raise
            report.errors.append(str(exc))
            sources.remove(src)
    # ``[r-…]`` ids written by ``charter export`` for a text stated more than once
    exported = {r.id for r in rules if r.id.startswith("r-")}
    rules = apply_local_overrides(assign_ids(rules))
    copies = {src.rel for src in sources if generated_copy(src.body)}
    kept, restated = drop_restated(rules, exported, copies)
    if report is not None:
        report.restated = restated
    return kept


#: What a generator writes atop the rule file it made from another ("<!-- AUTO-GENERATED
#: from AGENTS.md — do not edit directly, run: make sync-rules -->").
_GENERATED_NOTE = re.compile(
    r"\bauto[- ]?generated\b|\bgenerated\s+(?:from|by)\b|\bdo\s+not\s+edit\b", re.IGNORECASE
)
_LEADING_COMMENT = re.compile(r"\s*<!--(.*?)-->", re.DOTALL)


def generated_copy(body: str) -> bool:
    """Whether a rule file opens with a comment saying it is generated and not to be
    edited: a copy a script keeps of the team's real rule file for another agent."""
    lead = _LEADING_COMMENT.match(body)
    return bool(lead and _GENERATED_NOTE.search(lead.group(1)))


def _same_rule_key(rule: Rule) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    return (
        normalized(rule.text).rstrip("."),
        tuple(sorted(rule.scopes)),
        tuple(sorted(rule.tool_classes)),
    )


def drop_restated(
    rules: list[Rule], exported: Collection[str] = (), copies: Collection[str] = ()
) -> tuple[list[Rule], list[tuple[Source, Source]]]:
    """One rule for a rule stated word for word in several files.

    Teams keep copies of one file for several agents (`AGENTS.md` and `CLAUDE.md`, a
    Cursor rule repeating a line): compiled twice, every copy would be pinned or
    retrieved twice, spending the budget on repeats. Copies that apply alike (same scopes
    and tool classes) are compiled once: the constitution copy if one is, else the
    higher priority, else one in a file that is no generated copy (``copies``: the rule
    is cited where the team edits it, not in a file that says not to edit it), else the
    first in file order. Repeats inside one file are kept:
    their sections differ; so are the repeats an export of such a file spreads over
    several files: it gives them their ids (``exported``, ``[r-1a2b3c4d]``), and a copy
    whose id differs from the kept one's where either is such an id is kept. Returns the
    kept rules and a (kept, dropped copy) pair of sources per dropped copy.
    """
    named = set(exported)
    groups: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[int]] = {}
    for pos, rule in enumerate(rules):
        groups.setdefault(_same_rule_key(rule), []).append(pos)
    dropped: set[int] = set()
    notes: list[tuple[Source, Source]] = []
    for members in groups.values():
        if len({rules[p].source.path for p in members}) < 2:
            continue
        best = min(
            members,
            key=lambda p: (
                not rules[p].constitution,
                -rules[p].priority,
                rules[p].source.path in copies,
                p,
            ),
        )
        for pos in members:
            ids = {rules[pos].id, rules[best].id}
            if len(ids) > 1 and ids & named:
                continue
            if pos != best and rules[pos].source.path != rules[best].source.path:
                dropped.add(pos)
                notes.append((rules[best].source, rules[pos].source))
    # the same words in nested folders' files ("Inherits root `AGENTS.md`" in `db/AGENTS.md`
    # and `db/src/AGENTS.md`): the outer copy applies wherever the inner one does, so the
    # inner one would only be handed over again beside it
    nested: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for pos, rule in enumerate(rules):
        if pos not in dropped and _folders(rule.scopes):
            key = _same_rule_key(rule)
            nested.setdefault((key[0], key[2]), []).append(pos)
    for members in nested.values():
        if len(members) < 2:
            continue
        outer: list[int] = []
        for pos in sorted(members, key=lambda p: (min(map(len, _folders(rules[p].scopes))), p)):
            wider = next(
                (
                    o
                    for o in outer
                    if rules[o].source.path != rules[pos].source.path
                    and {rules[o].id, rules[pos].id} & named == set()
                    and _inside(_folders(rules[pos].scopes), _folders(rules[o].scopes))
                ),
                None,
            )
            if wider is None:
                outer.append(pos)
            else:
                dropped.add(pos)
                notes.append((rules[wider].source, rules[pos].source))
    notes.sort(key=lambda pair: (pair[1].path, pair[1].line_start))
    return [r for p, r in enumerate(rules) if p not in dropped], notes


def _folders(scopes: list[str]) -> list[str]:
    """The folders of scopes that are whole folders (``db/src/**``), or ``[]`` when any
    scope is not (a kind of file, ``**/*.ts``, or none at all)."""
    out = []
    for scope in scopes:
        folder = scope.strip().lstrip("./")
        if not folder.endswith("/**") or re.search(r"[*?\[{]", folder[:-3]):
            return []
        out.append(folder[:-3])
    return out


def _inside(inner: list[str], outer: list[str]) -> bool:
    """Does every folder of ``inner`` lie in (or equal) one of ``outer``?"""
    return all(any(f == o or f.startswith(o + "/") for o in outer) for f in inner)


def _constitution(
    project: Project, rules: list[Rule], sources: list[SourceFile], report: CompileReport
) -> tuple[Constitution, list[int]]:
    """The capped constitution, and each source's cl100k token count."""
    settings = project.settings.rules
    per_source = [count_tokens(s.text) for s in sources]
    shares = folded_shares(rules, report.restated)
    own = sum(
        round(tokens * (1 - shares.get(s.rel, 0.0)))
        for s, tokens in zip(sources, per_source, strict=True)
    )
    token_cap = settings.max_constitution_tokens or max(
        settings.constitution_min_tokens,
        int(settings.constitution_budget_share * settings.budget_fraction * own),
    )
    constitution = build_constitution(
        rules,
        settings.max_constitution_lines,
        settings.constitution_priority_boost,
        settings.max_rule_tokens,
        token_cap,
        inline=settings.citation_style == "inline",
    )
    if constitution.truncated:
        report.warnings.append(
            f"constitution overflow: {len(constitution.overflow_ids)} rule(s) under "
            "always-loaded headings did not fit the constitution's cap "
            f"({settings.max_constitution_lines} lines, {token_cap} tokens: "
            "rules.max_constitution_lines, rules.max_constitution_tokens); they are "
            "retrieved per task like the other rules"
        )
    return constitution, per_source


def embed_rules(
    project: Project,
    rules: list[Rule],
    embedder: Embedder,
    report: CompileReport,
    deferred: frozenset[str] = frozenset(),
    started: threading.Event | None = None,
    prefetched: Callable[[], dict[str, np.ndarray]] | None = None,
) -> Vectors:
    """Vectors of ``rules``: cached ones reused, the rest embedded; ``deferred`` ids not
    in the cache are left as zero rows (see :meth:`Retriever.vector`). ``started`` is
    set once the cache is read, as the model starts (or when nothing is left to embed).
    ``prefetched`` gives vectors already embedded by text (:class:`_Prefetch`): a text
    missing from the cache is taken from there when it is in it; each text embedded here
    or there is stored in the cache as before."""
    if not rules:
        if started is not None:
            started.set()
        return np.zeros((0, embedder.dim), dtype=np.float32)
    texts = [r.search_text for r in rules]
    cache = VectorCache(project.db_path)
    try:
        try:
            vectors, uncached = cache.lookup(embedder.name, texts, embedder.dim)
        finally:
            if started is not None:
                started.set()
        missing = [i for i in uncached if rules[i].id not in deferred]
        wanted = sum(1 for r in rules if r.id not in deferred)
        if missing:
            ready = prefetched() if prefetched is not None else {}
            todo = [i for i in missing if texts[i] not in ready]
            if todo:
                fresh = embedder.embed([texts[i] for i in todo])
                for row, i in enumerate(todo):
                    vectors[i] = fresh[row]
            for i in missing:
                if texts[i] in ready:
                    vectors[i] = ready[texts[i]]
            cache.store(embedder.name, [texts[i] for i in missing], vectors[missing])
    finally:
        cache.close()
    report.embedded += len(missing)
    report.reused += wanted - len(missing)
    return vectors


def _given(embedder: Embedder | None) -> Embedder:
    assert embedder is not None
    return embedder


class _Prefetch:
    """The shards' vectors, embedded while the compile still parses.

    The parse hands over each rule as it makes it (:func:`rules_from_source`'s ``emit``);
    a rule of the constitution is skipped (embedded only when it overflows, as before),
    and so is a text already handed over. A feeder thread takes the texts in chunks,
    looks each chunk up in the vector cache and has what is missing embedded at once,
    while this thread tags the rest of the file. It keeps two chunks on the model, so
    the model's pool never waits between them, and takes a chunk when one of those is
    done: the first chunks are small (the model starts early), the next holds
    everything parsed meanwhile, sorted by length over many texts (little padding, as
    when every text was embedded after the parse).

    The vectors are keyed by the text embedded, and the bundled model gives a text the
    same bytes in any batch (``tests/test_embed_batching.py``), so the compile's output
    is the one it had when every rule was embedded after the parse. Nothing is written
    to the cache here: :func:`embed_rules` stores what it used, as before. A rule dropped
    after the parse (a copy, an override, a pointer) was embedded for nothing.
    """

    #: Texts the feeder waits for before it starts a chunk (unless the parse is over).
    CHUNK = 32
    #: Chunks embedding at once.
    IN_FLIGHT = 2

    def __init__(
        self, db_path: Path, model: Callable[[], Embedder], ready: Callable[[], object]
    ) -> None:
        self._db_path = db_path
        self._model = model
        self._ready = ready  # the vector cache exists (created in another worker)
        self._embeds = ThreadPoolExecutor(self.IN_FLIGHT, thread_name_prefix="charter-prefetch")
        self._changed = threading.Condition()
        self._pending: list[str] = []
        self._seen: set[str] = set()
        self._parsed = False  # no more texts will be handed over
        self._stopped = False
        self._in_flight = 0
        self._chunks: list[tuple[list[str], Future[Vectors]]] = []
        self._error: BaseException | None = None
        # the feeder owns the cache's connection (sqlite3's rule: one thread)
        self._feeder = threading.Thread(target=self._feed, name="charter-prefetch", daemon=True)
        self._feeder.start()

    def add(self, rule: Rule) -> None:
        if rule.constitution or rule.search_text in self._seen:
            return
        self._seen.add(rule.search_text)
        with self._changed:
            self._pending.append(rule.search_text)
            # the feeder is woken once per chunk (then by a chunk done): waking it on
            # every rule passed the GIL back and forth for nothing
            if len(self._pending) == self.CHUNK:
                self._changed.notify()

    def finish(self) -> None:
        """The parse is over: what is pending goes in the next chunk whatever its size."""
        with self._changed:
            self._parsed = True
            self._changed.notify()

    def _can_take(self) -> bool:
        if self._stopped or (self._parsed and not self._pending):
            return True
        enough = len(self._pending) >= self.CHUNK or (self._parsed and bool(self._pending))
        return enough and self._in_flight < self.IN_FLIGHT

    def _embedded(self, _: object) -> None:
        with self._changed:
            self._in_flight -= 1
            self._changed.notify()

    def _feed(self) -> None:
        cache: VectorCache | None = None
        try:
            # the model and the cache are made ready before the first chunk, not as it
            # comes (each step gives the GIL to the parsing thread and waits to get it back)
            model = self._model()
            self._ready()
            cache = VectorCache(self._db_path)
            while True:
                with self._changed:
                    self._changed.wait_for(self._can_take)
                    if self._stopped or not self._pending:
                        return
                    texts, self._pending = self._pending, []
                    self._in_flight += 1
                _, missing = cache.lookup(model.name, texts, model.dim)
                todo = [texts[i] for i in missing]
                if not todo:
                    self._embedded(None)
                    continue
                embedding = self._embeds.submit(model.embed, todo)
                self._chunks.append((todo, embedding))
                embedding.add_done_callback(self._embedded)
        except BaseException as exc:  # handed to the caller by vectors()
            self._error = exc
        finally:
            if cache is not None:
                cache.close()

    def vectors(self) -> dict[str, np.ndarray]:
        """Every text handed over that was not in the cache, with its vector (waits for
        the chunks still embedding)."""
        self.finish()
        self._feeder.join()
        if self._error is not None:
            raise self._error
        out: dict[str, np.ndarray] = {}
        for texts, embedding in self._chunks:
            out.update(zip(texts, embedding.result(), strict=True))
        return out

    def close(self) -> None:
        """Stop: no chunk is started after this, the cache is closed by its thread."""
        with self._changed:
            self._stopped = True
            self._changed.notify()
        self._feeder.join()
        self._embeds.shutdown(wait=True, cancel_futures=True)


def _stamps(sources: list[SourceFile]) -> dict[str, list[int]]:
    """Each source's stamp as it was when its text was read (not now: a file rewritten
    during the compile must look changed to the next reader)."""
    out = {}
    for s in sources:
        if s.stamp is None:
            st = s.path.stat()
            out[str(s.path.resolve())] = [st.st_mtime_ns, st.st_size]
        else:
            out[str(s.path.resolve())] = list(s.stamp)
    return out


def save(
    project: Project,
    compiled: CompiledRules,
    sources: list[SourceFile],
    explicit: list[Path] | None = None,
) -> None:
    """Commit ``rules.json`` and ``rules.npy`` as one unit, ``rules.meta.json`` last.

    The manifest names both files with their SHA-256 (:func:`charter.fileio.commit_files`),
    so a compile killed between the writes leaves a state that :func:`load` recognises
    as torn, and the next reader recompiles instead of serving mismatched rules.
    """
    state_dir = project.state_dir
    state_dir.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    np.save(buffer, compiled.vectors.astype(np.float32))
    state = compiled.state()
    # which rules apply to every change, scored once here from the vectors: the file tool
    # hook that hands them over reads rules.json only (no numpy, no model)
    from charter.rules.general import general_scores

    compiled.general = state["general"] = general_scores(
        compiled.rules,
        compiled.vectors,
        set(compiled.constitution.rule_ids),
        model_name=compiled.model,
        asked_for=manual_paths(compiled.sources),
    )
    # the text of the rules the file tool hooks hand over (path-scoped ones, and those
    # likely to apply to every change) as they show it, cut once here: those hooks must
    # not build the tokenizer on every cold call
    settings = project.settings.rules
    handed = {rid for rid, p in compiled.general.items() if p >= settings.code_rules_min_score}
    state["briefs"] = {
        r.id: compact_keeping_directive(r.text, settings.max_rule_tokens)
        for r in compiled.rules
        if r.scopes or r.id in handed
    }
    # and every rule's line as the prompt hook shows it, with its cost: the same for the
    # prompt hook run cold, which would otherwise build cl100k (~0.2 s) to count them
    from charter.rules.retrieve import shown_lines

    if compiled.shown is None:
        compiled.shown = shown_lines(compiled, project.settings.rules)
    state["shown"] = compiled.shown
    # the commands and files the rules forbid, apart: the PreToolUse hook reads them on
    # every tool call and must not parse every rule to find them
    prohibited = compiled.prohibitions().to_json()
    commit_files(
        state_dir / MANIFEST_FILE,
        {
            VECTORS_FILE: buffer.getvalue(),
            STATE_FILE: canonical_json(state).encode(),
            PROHIBITED_FILE: canonical_json(prohibited).encode(),
        },
        {
            "stamps": _stamps(sources),
            "config": project.settings.model_dump(mode="json"),
            "charter": __version__,
            "explicit": sorted(str(p.resolve()) for p in explicit) if explicit else None,
        },
    )


def load(project: Project) -> CompiledRules | None:
    """Compiled state from ``.charter/``, or None when there is none or it is unusable.

    None also for a torn state (a compile killed between its writes, or files edited):
    every caller then recompiles (:func:`load_or_compile`).
    """
    state = read_state(project)
    if state is None:
        return None
    data, files = state
    try:
        vectors = np.load(io.BytesIO(files[VECTORS_FILE]))
        rules = [Rule.from_state(r) for r in data["rules"]]
        if len(vectors) != len(rules):
            return None
        c = data["constitution"]
        constitution = Constitution(
            c["hash"], c["text"], list(c["rule_ids"]), c["truncated"], list(c["overflow_ids"])
        )
        shown = data.get("shown")
        return CompiledRules(
            rules,
            constitution,
            vectors,
            data["model"],
            data["sources"],
            shown=shown if isinstance(shown, dict) else None,
            general=general_of(data),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_or_compile(project: Project, *, check_new: bool = False) -> CompiledRules:
    """Compiled rules, recompiling when missing or stale (``context`` compiles on demand)."""
    compiled = load(project)
    fresh = compiled is not None and not is_stale(project)
    if fresh and (not check_new or not has_new_sources(project)):
        assert compiled is not None
        return compiled
    return compile_rules(project, explicit_paths(project))
