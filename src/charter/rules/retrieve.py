"""Per-task shard retrieval: score, filter, select, resolve contradictions.

Score (the seed's, plus a lexical term): ``dense_weight * cosine + lexical_weight *
bm25/max_bm25 + intent_boost (shard intents contain the task intent) + domain_boost
(shard shares a domain inferred from the task's words) + risk_boost (critical 0.10,
high 0.05)``. Hard filters run before selection: risk classes, repo
scope against the files the caller names (with no files named, scoped rules stay
candidates), tool class. Selection takes the top N or fills a token budget; a shard that
contradicts an already chosen rule (must vs never, same domain, same subject) is dropped
in favour of the higher priority, whatever the scoring order.
"""

from __future__ import annotations

import functools
import heapq
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from charter.embed.base import Embedder
from charter.errors import CharterError
from charter.rules.actions import ADDS_DEPENDENCY, adds_dependency
from charter.rules.annotate import infer_domains
from charter.rules.compiler import CompiledRules
from charter.rules.gate import CONTENT_FREE, is_content_free
from charter.rules.groups import lead_ins, procedures, small_sections
from charter.rules.intent import Intent, classify
from charter.rules.kind_prior import kind_prior_for
from charter.rules.lexical import BM25, tokenize
from charter.rules.model import Rule
from charter.rules.render import file_header, render_grouped, render_rule_line
from charter.rules.scopes import scope_matches
from charter.rules.settings import RulesSettings
from charter.tokens import count_many, count_tokens

#: Where a task divides into clauses: punctuation, sentence ends and the conjunctions
#: that join two asks ("add X, and make sure Y", "do X because Y"). Generic English.
_CLAUSE_BREAK = re.compile(
    r"(?:[,;:]|\.)\s+(?:(?:and|so|but|then)\s+)?"
    r"|\s+(?:and|so|but|because|then|while|instead of|so that)\s+",
    re.I,
)

#: Selections made again at most this often to leave out lead-ins without items.
_LEAD_IN_ROUNDS = 3

_PROCEDURE = "completes a numbered procedure"

#: At most this many entries of one drawn file tree in a selection, and only among its
#: best few (``complete_from_top``): its entries are alike ("`src/x/`: X dynamics"), so
#: once one matches a task the rest rank near it (and the feedback query leans towards
#: them), and an entry that only just makes the cut says where, not how, taking the room
#: of a rule on how to do the work.
_TREE_ENTRIES = 1


def task_views(task: str) -> list[str]:
    """The clauses of a task worth matching on their own (three words or more), when it
    has at least two: a rule that serves one ask of a compound task should rank as if
    that ask had been the whole task, not be diluted by the others."""
    parts = [p.strip() for p in _CLAUSE_BREAK.split(task)]
    parts = [p for p in parts if len(p.split()) >= 3]
    return parts if len(parts) >= 2 else []


#: Words that end the head of a task's verb phrase ("Write the design doc | for …").
_HEAD_BREAK = re.compile(
    r"\s(?:for|to|into|in|on|with|that|which|so|from|of|by|when|where|after|before|using)\s",
    re.I,
)


def task_head(task: str) -> str | None:
    """The task's head: what it asks for, before what it is about ("Write the design doc"
    of "Write the design doc for moving link state into the store"). Rules about how that
    kind of work is done (a voice for prose, the steps of a review) name the work, not the
    topic, and a whole-task embedding is pulled towards the topic's words."""
    m = _HEAD_BREAK.search(task)
    if not m:
        return None
    head, rest = task[: m.start()].strip(), task[m.end() :]
    if len(head.split()) >= 3 and len(rest.split()) >= 3:
        return head
    return None


#: Two conflicting rules must also be at least this similar as a whole.
SAME_SUBJECT_COSINE = 0.55
_POLARITY_WORDS = re.compile(
    r"\b(never|must not|do not|don't|avoid|always|must|should not|should|required?|ensure)\b",
    re.IGNORECASE,
)


@dataclass
class Shard:
    rule: Rule
    score: float
    reasons: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule.to_dict(), "score": round(self.score, 4), "reasons": self.reasons}


@dataclass
class Retrieval:
    task: str
    intent: Intent
    constitution_rules: list[Rule]
    constitution_hash: str
    truncated: bool
    shards: list[Shard]
    dropped: list[dict[str, str]] = field(default_factory=list)
    policy_text: str = ""
    gated: bool = False  # no task content: no shards, by the content gate
    cut: bool = False  # lower-scored rules were left out by the relative cutoff
    _tokens: int | None = field(default=None, repr=False)

    @property
    def tokens(self) -> int:
        """cl100k tokens of ``policy_text``, counted when first asked for: the prompt hook
        never asks, so a cold hook does not build the tokenizer."""
        if self._tokens is None:
            self._tokens = count_tokens(self.policy_text)
        return self._tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "intent": self.intent.to_dict(),
            "constitution": {
                "hash": self.constitution_hash,
                "rules": [r.to_dict() for r in self.constitution_rules],
                "truncated": self.truncated,
            },
            "shards": [s.to_dict() for s in self.shards],
            "dropped": self.dropped,
            "policy_text": self.policy_text,
            "tokens": self.tokens,
            "gated": self.gated,
            "cut": self.cut,
        }


_NEVER_WORDS = re.compile(r"\b(never|must not|do not|don't|avoid|should not)\b", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`[^`]+`")


@functools.lru_cache(maxsize=65536)
def _action_tokens(text: str, polarity: str = "", width: int = 4) -> tuple[str, ...]:
    """The first content words after the rule's must/never word: what it demands.

    A prohibition is read after its prohibiting word ("… must pass the format check.
    Avoid dirty commits" prohibits dirty commits), and a code span is one word, so
    ``pint --dirty`` and ``pint --test`` are different commands, not the same four words.
    """
    match = (_NEVER_WORDS.search(text) if polarity == "never" else None) or (
        _POLARITY_WORDS.search(text)
    )
    tail = text[match.end() :] if match else text
    words: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(tail):
        words += tokenize(tail[last : span.start()])
        words.append(" ".join(span.group(0).lower().split()))
        last = span.end()
    words += tokenize(tail[last:])
    return tuple(words[:width])


_FOLDER_SCOPE = re.compile(r"([^*?\[\]{}]+)/\*\*")


def _apart(a: list[str], b: list[str]) -> bool:
    """Scopes that never name the same file: folders (``backend/**``, ``frontend/**``,
    as a nested AGENTS.md is scoped) neither of which holds the other."""
    if not a or not b:
        return False
    for p in a:
        for q in b:
            fp = _FOLDER_SCOPE.fullmatch(p.removeprefix("./"))
            fq = _FOLDER_SCOPE.fullmatch(q.removeprefix("./"))
            if fp is None or fq is None:
                return False
            x, y = fp.group(1).rstrip("/") + "/", fq.group(1).rstrip("/") + "/"
            if x.startswith(y) or y.startswith(x):
                return False
    return True


def contradicts(a: Rule, b: Rule, cosine: float | Callable[[], float]) -> bool:
    """must vs never, in a shared domain or section, demanding the same action.

    The action is compared word by word ("always use f-strings in log calls" vs "never use
    f-strings in log calls"), so two rules that merely share a topic ("externalize user
    strings" vs "never concatenate externalized strings") are not in conflict.
    """
    if not a.polarity or not b.polarity or a.polarity == b.polarity:
        return False
    if _apart(a.scopes, b.scopes):
        return False
    shared = set(a.domains) & set(b.domains)
    if not shared and a.source.section != b.source.section:
        return False
    ta, tb = set(_action_tokens(a.text, a.polarity)), set(_action_tokens(b.text, b.polarity))
    if min(len(ta), len(tb)) < 2 or len(ta & tb) / min(len(ta), len(tb)) < 0.75:
        return False
    value = cosine() if callable(cosine) else cosine
    return value >= SAME_SUBJECT_COSINE


class Retriever:
    """Holds a compiled rule set ready for many queries (the warm worker keeps one)."""

    def __init__(
        self, compiled: CompiledRules, settings: RulesSettings, embedder: Embedder
    ) -> None:
        if compiled.model and compiled.model != embedder.name:
            # a query vector from one model against rule vectors of another ranks noise
            raise CharterError(
                f"the rules were embedded by {compiled.model} and the task would be by "
                f"{embedder.name}: run `charter compile`"
            )
        self.compiled = compiled
        self.settings = settings
        self.embedder = embedder
        self.rules = compiled.rules
        self.vectors = compiled.vectors
        in_text = set(compiled.constitution.rule_ids)
        self.constitution_rules = [r for r in self.rules if r.id in in_text]
        self.candidates = [i for i, r in enumerate(self.rules) if r.id not in in_text]
        self.bm25 = BM25([self.rules[i].search_text for i in self.candidates])
        self.const_index = [i for i, r in enumerate(self.rules) if r.id in in_text]
        self.constitution_text = compiled.constitution.text
        self.inline = settings.citation_style == "inline"
        shown = compiled.shown
        if not _shown_fits(shown, compiled, settings):
            shown = shown_lines(compiled, settings)
        assert shown is not None
        self.constitution_tokens: int = shown["constitution_tokens"]
        self.header_tokens: int = shown["header_tokens"]
        self.lines: dict[str, str] = shown["lines"]
        self.costs: dict[str, int] = shown["costs"]
        #: shorter lines of the rules a budgeted selection shows below its best few (only
        #: the rules whose brief line differs; see ``full_ids``)
        self.brief_lines: dict[str, str] = shown["brief_lines"]
        self.brief_costs: dict[str, int] = shown["brief_costs"]
        #: what a file's ``In path:`` header costs, paid by the first rule shown from it
        self.header_costs: dict[str, int] = shown["headers"]
        #: the rules of a budgeted selection shown whole: one when the budget cut the
        #: brief lines short (``brief_min_rules``), so the rest reach as many as it can
        self.full_rules = settings.full_rules
        if shown["brief_rule_tokens"] < min(settings.brief_rule_tokens, settings.max_rule_tokens):
            self.full_rules = min(settings.full_rules, 1)
        cand_rules = [self.rules[i] for i in self.candidates]
        self.cand_vectors = np.ascontiguousarray(self.vectors[self.candidates], dtype=np.float32)
        risk_boost = {"critical": settings.risk_boost_critical, "high": settings.risk_boost_high}
        self.prior = np.array(
            [
                risk_boost.get(r.risk, 0.0) + (settings.directive_boost if r.directive else 0.0)
                for r in cand_rules
            ],
            dtype=np.float32,
        )
        self.kind_prior = (
            kind_prior_for(compiled.model, self.cand_vectors) if settings.kind_prior else None
        )
        self.intent_masks = {
            name: np.array([name in r.intents for r in cand_rules], dtype=bool)
            for name in {i for r in cand_rules for i in r.intents}
        }
        self.domain_masks = {
            name: np.array([name in r.domains for r in cand_rules], dtype=bool)
            for name in {d for r in cand_rules for d in r.domains}
        }
        self.filterable = [pos for pos, r in enumerate(cand_rules) if r.scopes or r.tool_classes]
        self.procedures = procedures(cand_rules) if settings.complete_procedures else []
        self.small_sections = small_sections(cand_rules, settings.complete_sections_up_to)
        self.lead_ins = lead_ins(cand_rules)
        self.id_rank = np.argsort(np.argsort([r.id for r in cand_rules], kind="stable"))
        self._reply_words: frozenset[str] | None = None
        self._action_vector: np.ndarray | None = None
        by_section: dict[tuple[str, str], list[int]] = {}
        for pos, r in enumerate(cand_rules):
            by_section.setdefault((r.source.path, r.source.section), []).append(pos)
        #: candidate positions of each section (file and heading path) with two or more
        self.sections = [np.array(g) for g in by_section.values() if len(g) > 1]

    def default_budget(self) -> int:
        """Tokens for constitution + shards when no explicit budget is configured."""
        return policy_budget(self.compiled.source_tokens, self.settings)

    def action_vector(self) -> np.ndarray:
        """The embedding of :data:`~charter.rules.actions.ADDS_DEPENDENCY`, made once."""
        if self._action_vector is None:
            self._action_vector = self.embedder.embed([ADDS_DEPENDENCY])[0]
        return self._action_vector

    def embed_query(self, task: str) -> np.ndarray:
        return self.embedder.embed([task])[0]

    def retrieve(
        self,
        task: str,
        files: list[str] | None = None,
        *,
        top: int | None = None,
        budget: int | None = None,
        risk: list[str] | None = None,
        tool: str | None = None,
        query_vector: np.ndarray | None = None,
        relative_cutoff: float | None = None,
    ) -> Retrieval:
        """The rules for ``task``. ``relative_cutoff`` (default: the setting) drops shards
        scoring below that share of the best one: the prompt hook's own, stricter, cut."""
        s = self.settings
        files = files or []
        if top is not None:
            top_n, budget_tokens = top, budget or 0
        elif budget is not None:
            top_n, budget_tokens = 0, budget
        elif s.selection == "top_n":
            top_n, budget_tokens = s.top_n, 0
        else:
            top_n = 0
            # the section headers are part of what is injected: the budget is a hard cap
            room = self.default_budget() - self.constitution_tokens - self.header_tokens
            budget_tokens = max(s.budget_min_shard_tokens, room, 1)
        intent = classify(task)
        cutoff = s.relative_cutoff if relative_cutoff is None else relative_cutoff
        # a clause match lifts the best rule of one ask, so a cutoff relative to the best
        # score would cut the other asks' rules: the cut ranks by the whole task
        whole_only = query_vector is not None or bool(cutoff)
        views = task_views(task) if s.clause_views > 0 and not whole_only else []
        # the head is a view too, kept out of the cut for the same reason
        head = task_head(task) if s.head_view > 0 and not whole_only else None
        if views or head:
            mats = self.embedder.embed([task, *views, *([head] if head else [])])
            qv = mats[0]
            view_mats = mats[1 : 1 + len(views)]
        else:
            qv = self.embed_query(task) if query_vector is None else query_vector
        cand = self.candidates
        best_view = (self.cand_vectors @ view_mats.T).max(axis=1) if views and cand else None
        head_cos = self.cand_vectors @ mats[-1] if head and cand else None
        # a task that brings a package in is also matched by that act, said plainly: the
        # rules on new dependencies name the act, the task names the package
        act_cos = (
            self.cand_vectors @ self.action_vector()
            if s.action_view > 0 and not whole_only and cand and adds_dependency(task)
            else None
        )

        def dense_for(vector: np.ndarray) -> np.ndarray:
            whole = self.cand_vectors @ vector
            if best_view is not None:
                whole = (1 - s.clause_views) * whole + s.clause_views * best_view
            if head_cos is not None:
                whole = whole + s.head_view * np.maximum(head_cos - whole, 0)
            if act_cos is not None:
                whole = whole + s.action_view * np.maximum(act_cos - whole, 0)
            return whole

        dense = dense_for(qv) if cand else np.zeros(0, dtype=np.float32)
        lex = self.bm25.scores(task) if cand else np.zeros(0, dtype=np.float32)
        lex_max = float(lex.max()) if len(lex) else 0.0
        if s.lexical_ceiling and lex_max > 0:
            lex_max = max(lex_max, s.lexical_ceiling * self.bm25.ideal(task))
        if s.content_gate and is_content_free(task, tokenize(task), self.reply_words()):
            reason = "no task in the prompt: only conversational words"
            return self._retrieval(
                task, intent, [], [{"rule_id": "*", "reason": reason}], gated=True
            )
        lex_norm = lex / lex_max if lex_max > 0 else lex
        if s.feedback_weight and len(cand) > s.feedback_top:
            first = s.dense_weight * dense + s.lexical_weight * lex_norm
            leaders = np.argpartition(-first, s.feedback_top)[: s.feedback_top]
            centroid = self.cand_vectors[leaders].mean(axis=0)
            mixed = qv + s.feedback_weight * centroid
            qv = mixed / max(float(np.linalg.norm(mixed)), 1e-9)
            dense = dense_for(qv)
        score: np.ndarray = s.dense_weight * dense + s.lexical_weight * lex_norm + self.prior
        lift = self.kind_prior.lift(intent.name) if self.kind_prior is not None else None
        if lift is not None:
            score = score + s.kind_prior * lift
        intent_mask = self.intent_masks.get(intent.name) if intent.name != "general" else None
        if intent_mask is not None:
            score = score + s.intent_boost * intent_mask
        task_domains = [d for d in infer_domains(task, "") if d in self.domain_masks]
        domain_mask = None
        if task_domains and s.domain_boost:
            domain_mask = np.any([self.domain_masks[d] for d in task_domains], axis=0)
            score = score + s.domain_boost * domain_mask
        if s.section_lift and not cutoff and len(cand):
            # the rules a task needs sit together under one heading more often than not:
            # a rule closes part of its gap to the best-scoring other rule of its section
            # (chosen with the held-out files split in two halves, each way; the prompt
            # hook's cut stays on each rule's own score, as its clause views do)
            score = score + s.section_lift * self._section_gap(score)
        allowed = np.ones(len(cand), dtype=bool)
        if risk:
            allowed &= np.array([self.rules[i].risk in risk for i in cand], dtype=bool)
        for pos in self.filterable:
            rule = self.rules[cand[pos]]
            if rule.scopes and files and not scope_matches(rule.scopes, files):
                allowed[pos] = False
            if tool and rule.tool_classes and tool not in rule.tool_classes:
                allowed[pos] = False
        order = np.lexsort((self.id_rank, -score))
        order = order[allowed[order]]

        def make(pos: int) -> Shard:
            rule = self.rules[cand[pos]]
            cos, lx = float(dense[pos]), float(lex_norm[pos])
            reasons = [f"cosine {cos:.3f}"]
            if lx > 0:
                reasons.append(f"lexical {lx:.2f}")
            if intent_mask is not None and intent_mask[pos]:
                reasons.append(f"intent {intent.name} +{s.intent_boost}")
            if domain_mask is not None and domain_mask[pos]:
                shared = [d for d in task_domains if d in rule.domains]
                reasons.append(f"domain {', '.join(shared)} +{s.domain_boost}")
            if rule.risk in ("critical", "high"):
                reasons.append(f"risk {rule.risk}")
            if rule.scopes and files:
                reasons.append("scope matches " + ", ".join(rule.scopes))
            return Shard(rule, float(score[pos]), reasons)

        # A lead-in chosen without any of its items ("Agents MUST:" alone) tells the agent
        # nothing and spends budget: it is left out and the selection made again without
        # it, so the next rule takes its place (a few rounds at most).
        excluded: set[int] = set()
        for _ in range(_LEAD_IN_ROUNDS):
            dropped: list[dict[str, str]] = []
            chosen, cut = self._select(
                (make(pos) for pos in order if pos not in excluded),
                top_n,
                budget_tokens,
                dropped,
                cutoff,
            )
            if budget_tokens and not top_n:
                chosen = self._complete_groups(chosen, make, allowed, budget_tokens)
            orphans = self._orphan_lead_ins(chosen)
            if not orphans:
                break
            excluded |= orphans
        else:
            chosen = [c for c in chosen if self._positions()[c.rule.id] not in excluded]
        position = self._positions()
        dropped.extend(
            {"rule_id": self.rules[cand[pos]].id, "reason": "a lead-in without its items"}
            for pos in sorted(excluded)
            if all(position[c.rule.id] != pos for c in chosen)
        )
        tiered = bool(budget_tokens) and not top_n
        return self._retrieval(task, intent, chosen, dropped, cut=cut, tiered=tiered)

    def _section_gap(self, score: np.ndarray) -> np.ndarray:
        """How far each candidate scores below the best other rule of its section (0 for
        the best one, and for a rule alone in its section)."""
        gap = np.zeros_like(score)
        for group in self.sections:
            vals = score[group]
            top = int(np.argmax(vals))
            others = np.full(len(group), vals[top])
            others[top] = np.partition(vals, -2)[-2]
            gap[group] = np.maximum(others - vals, 0)
        return gap

    def _orphan_lead_ins(self, chosen: list[Shard]) -> set[int]:
        """Positions of chosen lead-ins none of whose items were chosen."""
        position = self._positions()
        picked = {position[sh.rule.id] for sh in chosen}
        return {
            pos
            for pos in picked
            if pos in self.lead_ins and not picked.intersection(self.lead_ins[pos])
        }

    def reply_words(self) -> frozenset[str]:
        """The words of generic conversational replies, as this index tokenizes them."""
        if self._reply_words is None:
            self._reply_words = frozenset(w for r in CONTENT_FREE for w in tokenize(r))
        return self._reply_words

    def _retrieval(
        self,
        task: str,
        intent: Intent,
        shards: list[Shard],
        dropped: list[dict[str, str]],
        *,
        gated: bool = False,
        cut: bool = False,
        tiered: bool = False,
    ) -> Retrieval:
        policy = self.render_policy(shards, tiered=tiered)
        return Retrieval(
            task=task,
            intent=intent,
            constitution_rules=self.constitution_rules,
            constitution_hash=self.compiled.constitution.hash,
            truncated=self.compiled.constitution.truncated,
            shards=shards,
            dropped=dropped,
            policy_text=policy,
            gated=gated,
            cut=cut,
        )

    def _cos(self, a: Rule, b: Rule) -> float:
        return float(self.vector(a) @ self.vector(b))

    def vector(self, rule: Rule) -> np.ndarray:
        """The rule's vector; constitution rules compiled without one are embedded now."""
        row = self._index()[rule.id]
        if not self.vectors[row].any() and rule.search_text:
            if not self.vectors.flags.writeable or self.vectors is self.compiled.vectors:
                self.vectors = np.array(self.vectors, dtype=np.float32)
            self.vectors[row] = self.embedder.embed([rule.search_text])[0]
        return self.vectors[row]

    def _index(self) -> dict[str, int]:
        if not hasattr(self, "_idx"):
            self._idx = {r.id: i for i, r in enumerate(self.rules)}
        return self._idx

    def _select(
        self,
        scored: Iterator[Shard],
        top_n: int,
        budget: int,
        dropped: list[dict[str, str]],
        relative_cutoff: float,
    ) -> tuple[list[Shard], bool]:
        """The chosen shards, and whether the relative cutoff (not the budget or the
        count) ended the selection."""
        s = self.settings
        chosen: list[Shard] = []
        used = 0
        floor: float | None = None
        shown = {" ".join(r.text.lower().split()) for r in self.constitution_rules}
        misses = 0
        entries: dict[tuple[str, str], int] = {}
        for shard in scored:
            if floor is None:
                floor = max(s.min_score, shard.score * relative_cutoff)
            if shard.score < floor:
                return chosen, relative_cutoff > 0
            if top_n and len(chosen) >= top_n:
                break
            # shards come best first: the first ``full_rules`` taken are shown whole
            whole = bool(top_n) or len(chosen) < self.full_rules
            cost = self.cost_with_header(shard.rule, chosen, full=whole) if budget else 0
            if budget and used + cost > budget:
                misses += 1
                if top_n or misses < 50:
                    continue  # a shorter rule further down may still fit
                break
            said = " ".join(shard.rule.text.lower().split())
            if said in shown:
                continue  # the same rule again (a file that repeats itself): nothing new
            tree = (shard.rule.source.path, shard.rule.source.section)
            if shard.rule.kind == "entry" and (
                entries.get(tree, 0) >= _TREE_ENTRIES or len(chosen) >= s.complete_from_top
            ):
                continue
            rival = self._rival(shard.rule, [c.rule for c in chosen] + self.constitution_rules)
            if rival is not None:
                if rival.priority >= shard.rule.priority:
                    dropped.append(
                        {
                            "rule_id": shard.rule.id,
                            "reason": f"contradicts {rival.id} (priority {rival.priority} "
                            f">= {shard.rule.priority})",
                        }
                    )
                    continue
                chosen = [c for c in chosen if c.rule.id != rival.id]
                dropped.append(
                    {
                        "rule_id": rival.id,
                        "reason": f"contradicts {shard.rule.id} (priority {shard.rule.priority} "
                        f"> {rival.priority})",
                    }
                )
            chosen.append(shard)
            shown.add(" ".join(shard.rule.text.lower().split()))
            if shard.rule.kind == "entry":
                entries[tree] = entries.get(tree, 0) + 1
            if rival is not None:  # one shown rule left: count the whole selection again
                used = self.cost_of(chosen, tiered=not top_n) if budget else 0
            else:
                used += cost
        return chosen, False

    def cost_with_header(self, rule: Rule, shown: list[Shard], *, full: bool = True) -> int:
        """Tokens ``rule`` adds to ``shown``: its line (its brief line unless ``full``),
        and its file's header if new."""
        cost = self.costs[rule.id] if full else self.brief_costs.get(rule.id, self.costs[rule.id])
        if all(sh.rule.source.path != rule.source.path for sh in shown):
            cost += self.header_costs.get(rule.source.path, 0)
        return cost

    def cost_of(self, shown: list[Shard], *, tiered: bool = False) -> int:
        """Tokens of ``shown`` as rendered: every line, and one header per file
        (``tiered``: brief lines below the best ``full_rules``, as a budget shows them)."""
        full = self.full_ids(shown) if tiered else None
        paths = {sh.rule.source.path for sh in shown}
        return sum(
            self.costs[sh.rule.id]
            if full is None or sh.rule.id in full
            else self.brief_costs.get(sh.rule.id, self.costs[sh.rule.id])
            for sh in shown
        ) + sum(self.header_costs.get(p, 0) for p in paths)

    def full_ids(self, shown: list[Shard]) -> set[str]:
        """Ids of the rules of a budgeted selection shown whole: its best ``full_rules``
        by score. The rest show their brief line: a task's few best rules come with every
        clause, and the budget reaches more rules, each cited for its full text."""
        best = heapq.nsmallest(self.full_rules, shown, key=lambda sh: (-sh.score, sh.rule.id))
        return {sh.rule.id for sh in best}

    def _complete_groups(
        self,
        chosen: list[Shard],
        make: Callable[[int], Shard],
        allowed: np.ndarray,
        budget: int,
    ) -> list[Shard]:
        """Add the missing parts of procedures and small sections (see ``groups``),
        evicting the lowest-scored shards outside the group to stay within budget (for a
        small section, only shards scoring below the rule that comes in)."""
        s = self.settings
        position = self._positions()
        picked = {position[sh.rule.id] for sh in chosen}
        best = {position[sh.rule.id] for sh in chosen[: s.complete_from_top]}
        wanted: list[tuple[list[int], str]] = []
        for group in self.procedures:
            if 2 * len(picked.intersection(group)) >= len(group) and not picked >= set(group):
                wanted.append((group, _PROCEDURE))
        for group in self.small_sections:
            if best.intersection(group) and not picked >= set(group):
                wanted.append((group, "completes a small section"))
        if not wanted:
            return chosen
        chosen = list(chosen)
        for group, why in wanted:
            keep = best | set(group)
            group_is_procedure = why == _PROCEDURE
            for pos in group:
                if pos in picked or not allowed[pos]:
                    continue
                shard = make(pos)
                others = [c.rule for c in chosen] + self.constitution_rules
                if self._rival(shard.rule, others) is not None:
                    continue
                # a section is completed only by rules that score above the ones they
                # push out: its rules already close part of their gap to the section's
                # best (``section_lift``), so a better-scored rule of another section is
                # no worse evidence than the section's membership
                victims = sorted(
                    (
                        c
                        for c in chosen
                        if position[c.rule.id] not in keep
                        and (group_is_procedure or c.score < shard.score)
                    ),
                    key=lambda c: c.score,
                )
                # evictions hold only if the rule then fits: otherwise the shards stay
                trial = list(chosen)
                while self.cost_of([*trial, shard], tiered=True) > budget and victims:
                    trial.remove(victims.pop(0))
                if self.cost_of([*trial, shard], tiered=True) > budget:
                    break
                picked -= {position[c.rule.id] for c in chosen if c not in trial}
                chosen = trial
                shard.reasons.append(why)
                chosen.append(shard)
                picked.add(pos)
        chosen.sort(key=lambda sh: -sh.score)
        return chosen

    def _positions(self) -> dict[str, int]:
        """Rule id -> position among the candidates."""
        if not hasattr(self, "_pos"):
            self._pos = {self.rules[i].id: pos for pos, i in enumerate(self.candidates)}
        return self._pos

    def _rival(self, rule: Rule, others: list[Rule]) -> Rule | None:
        if not rule.polarity:  # only a must against a never can conflict (``contradicts``)
            return None
        for other in others:
            if (
                other.polarity
                and other.polarity != rule.polarity
                and other.id != rule.id
                and contradicts(rule, other, functools.partial(self._cos, rule, other))
            ):
                return other
        return None

    def line(self, rule_id: str, full: set[str] | None = None) -> str:
        """A rule's line as shown: whole, or its brief line when ``full`` is given and
        does not hold it."""
        if full is None or rule_id in full:
            return self.lines[rule_id]
        return self.brief_lines.get(rule_id, self.lines[rule_id])

    def line_cost(self, rule_id: str, full: set[str] | None = None) -> int:
        """Tokens of :meth:`line` (its newline included)."""
        if full is None or rule_id in full:
            return self.costs[rule_id]
        return self.brief_costs.get(rule_id, self.costs[rule_id])

    def render_policy(self, shards: list[Shard], *, tiered: bool = False) -> str:
        full = self.full_ids(shards) if tiered else None
        grouped = render_grouped(
            (sh.rule for sh in shards), lambda r: self.line(r.id, full), inline=self.inline
        )
        return _policy(self.constitution_text, grouped if shards else "")


def _policy(constitution: str, grouped: str) -> str:
    """The injected policy: the constitution, then the task's rules grouped by file."""
    parts = []
    if constitution:
        parts.append("Always:\n" + constitution)
    if grouped:
        parts.append("For this task:\n" + grouped)
    return "\n".join(parts)


def shown_lines(compiled: CompiledRules, settings: RulesSettings) -> dict[str, Any]:
    """The candidate rules' lines as the retriever shows them, each with its token cost
    (its newline included), each file header's cost, the constitution's tokens and the
    policy headers' tokens. Counted once at compile and stored with the rules, so a prompt
    hook run without the warm worker needs no tokenizer."""
    inline = settings.citation_style == "inline"
    in_text = set(compiled.constitution.rule_ids)
    candidates = [r for r in compiled.rules if r.id not in in_text]
    lines = {r.id: render_rule_line(r, settings.max_rule_tokens, inline=inline) for r in candidates}
    pinned = count_tokens(compiled.constitution.text) if compiled.constitution.text else 0
    cut = brief_tokens(compiled.source_tokens, pinned, len(candidates), settings)
    briefs = {r.id: render_rule_line(r, cut, inline=inline) for r in candidates}
    briefs = {rid: line for rid, line in briefs.items() if line != lines[rid]}
    paths = sorted({r.source.path for r in candidates})
    counts = count_many(
        [
            compiled.constitution.text,
            _policy(compiled.constitution.text, ""),
            "For this task:\n",
            # each line with its newline, as the policy joins them: a line ending in
            # punctuation takes its newline into its last token, so "+ 1" per line would
            # count about one token a line that is never sent (≈ 5 % of a budget)
            *(line + "\n" for line in lines.values()),
            *(line + "\n" for line in briefs.values()),
            *([] if inline else [file_header(p) + "\n" for p in paths]),
        ]
    )
    constitution, empty, task_header = counts[:3]
    rule_counts = counts[3 : 3 + len(lines)]
    brief_counts = counts[3 + len(lines) : 3 + len(lines) + len(briefs)]
    header_counts = counts[3 + len(lines) + len(briefs) :]
    return {
        "max_rule_tokens": settings.max_rule_tokens,
        "brief_rule_tokens": cut,
        "inline": inline,
        "lines": lines,
        "costs": dict(zip(lines, rule_counts, strict=True)),
        "brief_lines": briefs,
        "brief_costs": dict(zip(briefs, brief_counts, strict=True)),
        "headers": {} if inline else dict(zip(paths, header_counts, strict=True)),
        "constitution_tokens": constitution,
        "header_tokens": empty - constitution + task_header,
    }


def policy_budget(source_tokens: int, settings: RulesSettings) -> int:
    """Tokens for constitution + shards: ``budget_tokens``, else ``budget_fraction`` of
    the rule files (at most ``budget_max_tokens``)."""
    if settings.budget_tokens:
        return settings.budget_tokens
    return max(1, min(settings.budget_max_tokens, int(source_tokens * settings.budget_fraction)))


#: what a rule line costs besides its text: the dash, the citation (`` (L12)``) and the
#: newline
LINE_OVERHEAD_TOKENS = 5


def brief_tokens(
    source_tokens: int, constitution_tokens: int, rules: int, settings: RulesSettings
) -> int:
    """Where a budgeted selection cuts its brief lines: ``brief_rule_tokens``, or shorter
    when the budget left beside the constitution could not show ``brief_min_rules`` of
    them (or all the file's other ``rules``, if fewer), down to ``brief_floor_tokens``.
    A small file's quarter held three or four rules of 25 tokens and missed the rest of
    what the task needed; as gists of ten to fifteen tokens, each cited for its full
    text, it holds most of them (chosen on half of the small held-out files, measured on
    the other half: docs/benchmarks.md)."""
    cut = min(settings.brief_rule_tokens, settings.max_rule_tokens)
    if not settings.brief_min_rules:
        return cut
    # the shards' room as ``retrieve`` reckons it (its two header lines aside)
    room = max(
        settings.budget_min_shard_tokens,
        policy_budget(source_tokens, settings) - constitution_tokens,
    )
    per_rule = room // min(settings.brief_min_rules, max(rules, 1)) - LINE_OVERHEAD_TOKENS
    return max(min(settings.brief_floor_tokens, cut), min(cut, per_rule))


def _shown_fits(
    shown: dict[str, Any] | None, compiled: CompiledRules, settings: RulesSettings
) -> bool:
    """Were the stored lines made for these rules with these display settings?"""
    if not isinstance(shown, dict):
        return False
    try:
        in_text = set(compiled.constitution.rule_ids)
        wanted = {r.id for r in compiled.rules if r.id not in in_text}
        return (
            shown["max_rule_tokens"] == settings.max_rule_tokens
            and shown["brief_rule_tokens"]
            == brief_tokens(
                compiled.source_tokens, shown["constitution_tokens"], len(wanted), settings
            )
            and set(shown["brief_lines"]) == set(shown["brief_costs"]) <= wanted
            and shown["inline"] == (settings.citation_style == "inline")
            and set(shown["lines"]) == wanted
            and set(shown["costs"]) == wanted
            and isinstance(shown["headers"], dict)
            and isinstance(shown["constitution_tokens"], int)
            and isinstance(shown["header_tokens"], int)
        )
    except (KeyError, TypeError):
        return False
