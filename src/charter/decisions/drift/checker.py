"""The drift checker: QA-PGC-001..004 on any artifact, with exact evidence spans.

Layers, cheapest first:

1. **Lexical** (deterministic): each sentence and clause is matched against the check
   vocabulary of every *binding* constraint — rejected options, excluded subjects,
   forbidden dependencies, clauses a free-text answer rules out — and read for cues:
   undecided language, suggestions and decision points, negation, quoted history.
2. **Semantic** (bundled MiniLM model): sentence embeddings attribute undecided language
   to the right topic and catch paraphrased reintroductions of an excluded subject, and
   an idea the writer floats about what a binding decision settles without naming its
   chosen option ("we could let the treasurer pay expenses in cash").

Both layers propose *candidates*; a calibrated decision (:mod:`.calibrate`: a logistic
regression fitted with leave-one-scenario-out cross-validation, precision first) keeps
the ones that become findings, weighing negation, quoted history, the rule chain's own
exceptions and the similarities instead of obeying each as a hard rule.

3. **Judge** (optional, off by default): a :class:`DriftJudge` may add findings; they
   are validated against the text and the binding set before they count.

Rules are attributed in the bench's labelling order: undecided language (003), then a
suggestion or decision point (004), then a committed excluded item (002), then any
other contradiction (001). Non-binding clarifications are used only to *explain away*
text (e.g. "X is still open" about a genuinely unresolved question), never to flag it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from charter.decisions.drift import lexicon, limits
from charter.decisions.drift.calibrate import (
    HEDGE,
    Candidate,
    DriftModel,
    default_model,
)
from charter.decisions.drift.judge import DriftJudge
from charter.decisions.drift.result import DriftResult, Finding
from charter.decisions.drift.segment import Unit, segment
from charter.decisions.drift.stance import default_stance_model
from charter.decisions.drift.vocab import (
    ConstraintVocab,
    TermSet,
    build_vocab,
    number_units,
    project_name_stems,
)
from charter.decisions.invariants import Invariant
from charter.decisions.models import PgcClarifications

if TYPE_CHECKING:  # numpy and the embedder load only when the semantic layer is on
    import numpy as np

    from charter.embed.base import Embedder

#: Semantic thresholds (cosine, all-MiniLM-L6-v2). Chosen on the dev split's score
#: distributions, not on individual cases; see docs/decisions.md.
EXCLUSION_SIM = 0.52
#: Semantic *candidates* (the calibrated decision weighs their similarities): a sentence
#: close to an excluded subject, or to a rejected option by a margin over the chosen one.
#: 0.55 before stop 29; 0.5 was chosen on invented sets and dev, and lower values start
#: flagging plain sentences (docs/benchmarks.md, Drift, "Paraphrase checks on more sentences").
REJECTED_SIM = 0.5
REJECTED_MARGIN = 0.15
#: A one-word match of a short excluded subject ("invest") must not be semantically
#: unrelated to the subject ("invest time in the wizard" vs "investment advice").
RELAXED_MIN_SIM = 0.15
#: Share of a yes/no requirement's subject words a decision question must repeat to
#: reopen it ("Should the technician app work offline at all?").
REOPEN_COVERAGE = 0.6
#: Short fragments ("(c) reporting") embed close to anything; semantic-only hits need
#: at least this many distinct words.
SEMANTIC_MIN_WORDS = 6
#: Topic-word weight a sentence needs before it is embedded for the semantic checks.
#: Paraphrases share few words with the decision they break, so the gate is low; the
#: calibrated decision, not the gate, keeps precision (0.5 and 2 sentences before stop
#: 29: docs/benchmarks.md, Drift, "Paraphrase checks on more sentences").
TOPIC_MIN = 0.25
#: A time, price or share past a free-text limit counts only in a sentence sharing this
#: many words with the limit's own clause; a count says what it counts ("40 km", "a
#: seventh request"), which is enough (two words against one: stop 61, docs/benchmarks.md)
LIMIT_ABOUT = 2
#: Another value for a quantity a free-text answer states plainly ("for 14 days") counts
#: only in a sentence sharing this many words with that value's clause: a plain value
#: has no comparative to say it is a rule, so the sentence must say what it is about.
VALUE_ABOUT = 3
#: A suggestion of the writer's own this close to a binding decision (its topic, the
#: closest of all) proposes an alternative to it unless it names the chosen option.
#: Chosen on the tuned half of the held-out sets (0.45 let two false alarms through
#: there); docs/benchmarks.md, round ninety-eight.
SUGGESTED_SIM = 0.5
#: At most this many sentences per artifact are embedded for paraphrase checks.
MAX_SEMANTIC_UNITS = 6
#: Hard cap on embedded sentences per check (undecided and gated ones included).
MAX_EMBEDDED_UNITS = 16
#: Embed the sentences of lexical candidates too, for the calibrated decision's
#: whole-sentence similarity features (``sent_*``).
DESCRIBE_CANDIDATES = True
#: At most this many such sentences per check (the first ones): each costs an embedding.
MAX_DESCRIBED_UNITS = 2
#: Lexical topic lead that makes embedding an undecided sentence unnecessary.
CLEAR_TOPIC_MARGIN = 1.0
#: Topic score below which undecided language is attributed with the sentence before.
UNDECIDED_TOPIC_MIN = 0.75
#: Topic weight of a requirement's subject words a sentence needs before the opposite of
#: the requirement's mode ("by hand" vs "automatically") counts against it.
MODE_SUBJECT_MIN = 1.0
#: A choice request this short names no options of its own ("Let's pick one at the
#: sync."): the options are in the sentence before.
_BACK_REFERENCE_WORDS = 8
NEG_WINDOW_BEFORE = 6
NEG_WINDOW_AFTER = 12
EXEMPT_BEFORE = 6
EXEMPT_AFTER = 4

_REPAIR = {
    "QA-PGC-001": "Rewrite this to follow the bound decision: {statement}",
    "QA-PGC-002": "Remove the excluded item, or change the decision first with "
    "`charter decisions renegotiate {id}`. Bound: {statement}",
    "QA-PGC-003": "State the decision as settled and build on it: {statement}",
    "QA-PGC-004": "Drop the alternative and optimise within the decision: {statement}",
}


@dataclass
class _Token:
    start: int
    end: int
    raw: str
    stem: str
    alts: frozenset[str] = frozenset()  # case-sensitive keys ("=US", "^Stripe")

    def match_keys(self) -> set[str]:
        return {self.stem, *self.alts}


@dataclass
class _Clause:
    start: int
    end: int
    tokens: list[_Token]
    stems: set[str]


@dataclass
class _UnitView:
    unit: Unit
    clauses: list[_Clause]
    stems: set[str]
    undecided: re.Match[str] | _Read | None
    suggestion: bool
    decision: bool
    history: bool
    reopen: bool = False  # an explicit decision point, not just a question with "or"
    #: stems that say what the sentence is about: the words of its undecided cue ("still
    #: being worked out") do not ("work" is not the topic "keep working offline")
    topic_stems: set[str] = field(default_factory=set)
    #: absolute span of a reported question ("a customer asked whether we could use X"):
    #: options named inside it are someone else's ask, not the text's commitment
    reported: tuple[int, int] | None = None


@dataclass
class _Hit:
    rule: str
    vocab: ConstraintVocab
    start: int
    end: int
    layer: str
    score: float
    strong: bool = True
    confirms: bool = False
    #: which check proposed it (a feature of the calibrated decision)
    source: str = ""
    pos: int = -1  # index of the sentence (unit) it was found in
    #: why the rule chain would have dropped it ("negated", "history"): the calibrated
    #: decision weighs these instead of obeying them
    flags: frozenset[str] = frozenset()
    coverage: float = 1.0  # share of the option's / subject's words the match used
    probability: float = 1.0  # the calibrated model's, once it has weighed the hit


@dataclass
class _Prepared:
    vocab: list[ConstraintVocab]
    topic_vectors: np.ndarray | None = None
    exclusion_vectors: dict[int, np.ndarray] = field(default_factory=dict)
    #: the bound statement itself ("Overbooking is never allowed: ..."), per constraint
    statement_vectors: dict[int, np.ndarray] = field(default_factory=dict)
    rejected_vectors: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def _sentence_initial(text: str, start: int) -> bool:
    """The token at ``start`` opens a sentence, a line, a list item, a text after a
    colon or a tag ("[Issue #12] Spec", "[Breaking] Add") or a table cell, where a
    capital letter says nothing about a name."""
    if _headline(_line_at(text, start)):
        return True
    before = text[max(0, start - 40) : start].rstrip(" \t\"'(*_`>#[")
    before = re.sub(r"(?:^|\n)\s*(?:[-*+•]|\d+[.)])$", "\n", before)
    return not before or before[-1] in ".!?:]|\n"


def _line_at(text: str, pos: int) -> str:
    end = text.find("\n", pos)
    return text[text.rfind("\n", 0, pos) + 1 : len(text) if end < 0 else end]


@lru_cache(maxsize=4096)
def _headline(line: str) -> bool:
    """A line in headline case ("Automated Update to Database Diagrams and API Docs"):
    every word of three or more but the small ones is capitalised, so a capital marks
    no name there."""
    words = [w for w in re.findall(r"[^\W\d_][\w'-]*", line) if w.lower() not in lexicon.STOPWORDS]
    return len(words) >= 3 and all(w[0].isupper() for w in words)


def _tokens(text: str, start: int, end: int) -> list[_Token]:
    out: list[_Token] = []
    prev = ""
    for s, e, raw in lexicon.token_spans(text[start:end]):
        low = raw.lower()
        initial = raw[:1].isupper() and _sentence_initial(text, start + s)
        alts = lexicon.case_keys(raw, initial) | lexicon.platform_keys(prev, low)
        out.append(_Token(start + s, start + e, raw, lexicon.stem(low), alts))
        prev = low
    return out


def _view(text: str, unit: Unit) -> _UnitView:
    clauses = []
    stems: set[str] = set()
    for span in unit.clauses:
        toks = _tokens(text, span.start, span.end)
        clause_stems = {k for t in toks for k in t.match_keys()}
        clause_stems |= lexicon.number_keys(text[span.start : span.end])
        stems |= clause_stems
        clauses.append(_Clause(span.start, span.end, toks, clause_stems))
    body = unit.text
    # The stance model reads each clause (a sentence of one clause as a whole): a long
    # sentence's words must not add up to a stance none of its clauses takes.
    reads = _stances(text, unit)
    # a settled choice described as open, by a cue phrase or, failing one, by the model
    # (its clause is then the cue's span: "still going back and forth on whether …")
    undecided: re.Match[str] | _Read | None = lexicon.UNDECIDED.search(body)
    if undecided is None:
        said = next(
            (
                (a, b)
                for a, b, labels in reads
                if "undecided" in labels and _OPEN_CHOICE.search(body[a:b])
            ),
            None,
        )
        if said is not None:
            undecided = _Read(*said)
    topic_stems = stems
    if undecided is not None:
        cue_start, cue_end = unit.start + undecided.start(), unit.start + undecided.end()
        cue = lexicon.cue_stems()
        topic_stems = {
            k
            for c in clauses
            for t in c.tokens
            if not (cue_start <= t.start < cue_end and t.stem in cue)
            for k in t.match_keys()
        }
    reported = lexicon.REPORTED.search(body)
    quiet_end = -1
    if reported is not None:  # "a customer asked whether we could add X" reports a request
        stop = lexicon.REPORTED_END.search(body, reported.end())
        quiet_end = stop.start() if stop else len(body)
    suggestion = any(
        "suggestion" in labels
        and (
            reported is None  # a clause holding someone else's ask floats nothing itself,
            # unless it goes on past the ask ("asked for X, so it might be worth Y")
            or not (start <= reported.start() < end or reported.start() <= start < quiet_end)
            or quiet_end < end
        )
        for start, end, labels in reads
    )
    decision_point = any("decision_point" in labels for _, _, labels in reads)
    return _UnitView(
        unit=unit,
        clauses=clauses,
        stems=stems,
        undecided=undecided,
        suggestion=suggestion,
        decision=decision_point or bool(lexicon.QUESTION_CHOICE.search(body)),
        reopen=decision_point,
        history=bool(lexicon.HISTORY.search(body)),
        topic_stems=topic_stems,
        reported=(
            None if reported is None else (unit.start + reported.start(), unit.start + quiet_end)
        ),
    )


#: What makes a clause the model reads as undecided about a *choice*: a question word or
#: the alternatives ("whether", "which", "A or B", "A versus B"); "the payment is still
#: pending" describes a state, not an open decision.
_OPEN_CHOICE = re.compile(
    r"\b(?:whether|which|what|how|who|where|when|between|versus|vs|or|if)\b", re.I
)


@dataclass(frozen=True)
class _Read:
    """A clause the stance model reads as undecided, standing in for a cue's match."""

    a: int
    b: int

    def start(self) -> int:
        return self.a

    def end(self) -> int:
        return self.b

    def group(self, _: int = 0) -> str:
        return ""


def _stances(text: str, unit: Unit) -> list[tuple[int, int, frozenset[str]]]:
    """(clause start and end relative to the sentence, the stances the learned model
    reads in that clause)."""
    model = default_stance_model()
    if len(unit.clauses) < 2:
        return [(0, len(unit.text), model.labels(unit.text))]
    return [
        (c.start - unit.start, c.end - unit.start, model.labels(text[c.start : c.end]))
        for c in unit.clauses
    ]


def _cue_in(view: _UnitView, clause: _Clause) -> bool:
    """The sentence's undecided cue sits in this clause (its scope is the clause)."""
    if view.undecided is None:
        return False
    return clause.start <= view.unit.start + view.undecided.start() < clause.end


def _drop_counterfactual(text: str, hits: list[_Hit]) -> list[_Hit]:
    """Hits in a sentence about what did not happen ("Had we gone with X, …", "If we had
    chosen X, every extract would have needed a review") are no plan: a text weighing
    the road not taken names the rejected option without choosing it. Only the grammar
    of the unreal past counts; a plain condition ("if the card fails, take cash") can
    still state what the text will do."""
    if not hits:
        return hits
    units = segment(text)
    out = []
    for hit in hits:
        unit = next((u for u in units if u.start <= hit.start < u.end), None)
        if unit is not None and lexicon.COUNTERFACTUAL.search(unit.text):
            continue
        out.append(hit)
    return out


#: What, before a reported ask, makes it a passing mention in a sentence of the
#: writer's own: a clause break or a subordinating word ("…, since two clients asked").
_REPORT_IN_PASSING = re.compile(r"[,;:]|\b(?:since|because|as|after|so|which|that)\b", re.I)


def _has_negation(text: str) -> bool:
    return bool(lexicon.PRE_NEGATORS.search(text) or lexicon.POST_NEGATORS.search(text))


def _refused_elsewhere(text: str, view: _UnitView, clause: _Clause, last: int) -> bool:
    """The rest of the sentence denies the words matched up to token ``last``: a bare
    negative verdict after a colon ("any column holding a name: there must be none"), or,
    when they sit in a condition, a refusal in its consequence ("if a user asks to store
    X, the form still refuses")."""
    after = clause.tokens[last].end
    unit_end = view.unit.start + len(view.unit.text)
    tail = text[after:unit_end]
    colon = tail.find(":")
    if colon >= 0 and lexicon.NEGATIVE_VERDICT.search(tail[colon + 1 :]):
        return True
    if not lexicon.CONDITIONAL.search(text[clause.start : clause.end]):
        return False
    comma = tail.find(",")
    if comma < 0:
        return False
    consequence = tail[comma + 1 :]
    return _has_negation(consequence) or bool(lexicon.REFUSAL.search(consequence))


def _proper_noun_match(text: str, clause: _Clause, terms: TermSet) -> set[str]:
    """A label's distinctive word counts on its own when the text uses it as a name
    (capitalised mid-sentence: "the React Native app" for "Native iOS/Android apps")."""
    if not terms.weak or terms.label_words < 2:
        return set()
    for idx, tok in enumerate(clause.tokens):
        if (
            idx > 0
            and tok.stem in terms.weak - terms.places
            and lexicon.is_title_word(tok.raw)
            and _mid_sentence(text, tok)
        ):
            return {tok.stem}
    return set()


#: Characters after which a capital starts a phrase rather than marking a name: a
#: sentence end, the end of a tag ("[Breaking] Add …", "<h2>Version"), a table cell's
#: edge ("| Version |"). Not a label's colon: "Epic: Solar customers" names the segment.
_PHRASE_OPENERS = frozenset(";.!?]>|")
#: Markup that may open a line before its first word (list marks, headings, quotes).
_LINE_MARKUP = " \t-*+#>|0123456789.)["


def _mid_sentence(text: str, tok: _Token) -> bool:
    """Whether a capitalised token sits in running text, where capitals mark a name: not
    the first word of a line or of a sentence, and not part of an identifier or a file
    name ("Directory.Packages.props", "src/Services")."""
    line = text[text.rfind("\n", 0, tok.start) + 1 : tok.start]
    if not line.strip(_LINE_MARKUP) or _headline(_line_at(text, tok.start)):
        return False
    if line.rstrip(" \t")[-1] in _PHRASE_OPENERS:
        return False
    touching = text[tok.start - 1 : tok.start] + text[tok.end : tok.end + 1]
    return not any(ch in "./_\\`" for ch in touching)


def _mark_decision_lists(views: list[_UnitView]) -> None:
    """Items of a list introduced as options, a vote or a pending decision are decision
    points themselves ("Options for the vote: ... (b) switch to X"); so is the sentence a
    short choice request points back to ("QR codes, NFC wristbands, printed tickets.
    Let's pick one at the sync.")."""
    for prev, view in itertools.pairwise(views):
        if (
            view.reopen
            and not prev.decision
            and len(view.unit.text.split()) < _BACK_REFERENCE_WORDS
        ):
            prev.decision = True
    active = False
    for view in views:
        if view.unit.is_bullet:
            if active:
                view.decision = True
            continue
        active = view.decision or (view.undecided is not None and view.unit.text.endswith(":"))


#: The chosen option's name goes on into a longer phrase ("one Xero credit line"): the
#: name qualifies what is replaced, it is not the thing replaced.
_OPTION_GOES_ON = re.compile(
    r"^[ \t]+(?!(?:and|or|with|to|for|by|in|on|at|so|as|because|since|from|into|onto|"
    r"via|now|then|but|which|that|entirely|altogether|completely)\b)[A-Za-z]",
    re.I,
)


def _window(text: str, clause: _Clause, first: int, last: int, before: int, after: int) -> str:
    """Clause text from ``before`` tokens ahead of the match to ``after`` tokens past it."""
    toks = clause.tokens
    s_idx = max(0, first - before)
    e_idx = min(len(toks) - 1, last + after)
    return text[toks[s_idx].start : toks[e_idx].end]


def _negated(text: str, clause: _Clause, first: int, last: int) -> bool:
    toks = clause.tokens
    pre_start = toks[max(0, first - NEG_WINDOW_BEFORE)].start
    pre = text[pre_start : toks[last].start]  # includes negators inside the matched span
    if lexicon.PRE_NEGATORS.search(pre):
        return True
    for match in lexicon.DIRECTIONAL.finditer(pre):
        # "replaced X with Y", "migrated from X to Y": only X, up to "with"/"to", is old
        if not lexicon.DIRECTION_BREAK.search(pre, match.end()):
            return True
    head = text[pre_start : toks[first].start]
    for match in lexicon.REMOVAL.finditer(head):
        # "I removed the X hack": X is taken away, unless another predicate comes between
        if not lexicon.REMOVAL_BREAK.search(head, match.end()):
            return True
    post_end = toks[min(len(toks) - 1, last + NEG_WINDOW_AFTER)].end
    post = text[toks[last].end : post_end]
    # "kept dataclasses out of the config models": the object between verb and particle
    before = text[toks[max(0, first - 3)].start : toks[first].start]
    if lexicon.KEPT_OUT_AFTER.match(post) and lexicon.KEPT_OUT_BEFORE.search(before):
        return True
    # a predicate after the first matched word denies it even when later words of the
    # match follow ("Equipment rental stays out of this system: … your own equipment")
    after = text[toks[first].end : post_end]
    return any(
        not _own_predicate(after[: m.start()], m.group(0), after[m.end() :])
        # a denial denied in turn: "X weren't on the out-of-scope list", "was never
        # ruled out"
        and not lexicon.PRE_NEGATORS.search(after[max(0, m.start() - _DENIED_DENIAL) : m.start()])
        for m in lexicon.POST_NEGATORS.finditer(after)
    )


#: How far before a denial ("out of scope", "ruled out") a negation denies it in turn.
_DENIED_DENIAL = 20


#: What opens a predicate of its own after the option: "… to PostgreSQL and removed the
#: old file", "…, then dropped the cache".
_NEW_PREDICATE = re.compile(r"(?:\band|\bthen|\bbut|,)\s+(?:also\s+|then\s+)?$", re.I)


def _own_predicate(before: str, negator: str, after: str) -> bool:
    """Is a verb that would negate the option ("removed", "dropped") the verb of a
    predicate joined after it ("I switched the DB to PostgreSQL and removed the old
    file"), said of its own object rather than of the option ("PostgreSQL was removed",
    "tried PostgreSQL, then dropped it")?"""
    return (
        negator.lower().endswith("ed")
        and " " not in negator
        and bool(_NEW_PREDICATE.search(before))
        and not _BACK_POINTER.match(after)
    )


#: An object that points back at the option: "then dropped it".
_BACK_POINTER = re.compile(r"\s+(?:it|them|this|that|those|these|both)\b", re.I)


def _subject_negated(text: str, clause: _Clause, subject: frozenset[str]) -> bool:
    """The forbidden clause's subject is named only to be excluded ("the depot charges
    packs, never bikes" against "bikes are never taken back to the depot to charge")."""
    for i, tok in enumerate(clause.tokens):
        if subject and tok.match_keys() & subject:
            before = text[clause.tokens[max(0, i - 2)].start : tok.start]
            if re.search(r"\b(?:never|not|no)\s+$", before, re.I):
                return True
    return False


def _match_positions(clause: _Clause, stems: set[str]) -> tuple[int, int] | None:
    idx = [i for i, t in enumerate(clause.tokens) if t.match_keys() & stems]
    if not idx:
        return None
    return idx[0], idx[-1]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while end > start and text[end - 1] in " .,;:!?—–-":
        end -= 1
    while start < end and text[start] in " —–-:":
        start += 1
    return start, end


class DriftChecker:
    """Checks artifacts against one set of clarifications (build once, check many).

    ``embedder`` enables the semantic layer (``None`` = lexical only, e.g. in a cold
    hook process); ``judge`` enables the optional model layer.
    """

    def __init__(
        self,
        decisions: PgcClarifications,
        *,
        aliases: Mapping[str, Sequence[str]] | None = None,
        embedder: Embedder | None = None,
        judge: DriftJudge | None = None,
        model: DriftModel | None = None,
        project_folder: str = "",
        project_words: Callable[[frozenset[str]], frozenset[str]] | frozenset[str] | None = None,
    ) -> None:
        """``project_folder``: the name of the project's folder; the project's own name,
        when the decisions write it, names none of their options. ``project_words``: what
        the project's own files name (:mod:`.project_words`): the words themselves, or
        a function telling which of the stems it is asked about they are; such a word
        names a rejected option only with company."""
        self.decisions = decisions
        self.embedder = embedder
        self.judge = judge
        self.model = model if model is not None else default_model()
        names = project_name_stems(decisions, project_folder) if project_folder else frozenset()
        if isinstance(project_words, frozenset):
            known = project_words
            project_words = known.intersection
        self._prep = _Prepared(vocab=build_vocab(decisions, aliases, names, project_words))
        self.invariants: list[Invariant] = [
            v.invariant for v in self._prep.vocab if v.invariant is not None
        ]
        if embedder is not None:
            self._embed_constraints(embedder)

    # -- semantic preparation ------------------------------------------------------------

    def _embed_constraints(self, embedder: Embedder) -> None:
        import numpy as np

        prep = self._prep
        texts = [v.descriptor for v in prep.vocab]
        keys: list[tuple[str, int, int]] = []
        for i, v in enumerate(prep.vocab):
            if v.invariant is None:
                continue
            texts.append(v.invariant.statement)
            keys.append(("st", i, 0))
            if v.excluded is not None:
                texts.append(v.invariant.subject or v.entry.text)
                keys.append(("ex", i, 0))
            for j, label in enumerate(v.invariant.rejected if v.rejected else ()):
                texts.append(label)
                keys.append(("rej", i, j))
            for j, label in enumerate(v.invariant.chosen if v.rejected else ()):
                texts.append(label)
                keys.append(("cho", i, j))
        if not texts:
            return
        vectors = embedder.embed(texts)
        n = len(prep.vocab)
        prep.topic_vectors = vectors[:n]
        rej: dict[int, list[np.ndarray]] = {}
        cho: dict[int, list[np.ndarray]] = {}
        for (kind, i, _), vec in zip(keys, vectors[n:], strict=True):
            if kind == "st":
                prep.statement_vectors[i] = vec
            elif kind == "ex":
                prep.exclusion_vectors[i] = vec
            elif kind == "rej":
                rej.setdefault(i, []).append(vec)
            else:
                cho.setdefault(i, []).append(vec)
        for i, rows in rej.items():
            chosen = np.stack(cho[i]) if cho.get(i) else np.zeros((0, rows[0].shape[0]))
            prep.rejected_vectors[i] = (np.stack(rows), chosen)

    # -- checking ------------------------------------------------------------------------

    def check(self, text: str, kind: str | None = None) -> DriftResult:
        """Findings on ``text``: the candidates the calibrated model keeps."""
        weights = self.model.for_layer(self.embedder is not None)
        kept = []
        for hit, cand in self._candidates(text):
            if cand.probability >= weights.threshold:
                hit.probability = cand.probability
                kept.append(hit)
        kept = _drop_counterfactual(text, kept)
        findings = self._findings(text, kept)
        if self.judge is not None:
            findings = self._with_judge(text, kind, findings)
        return DriftResult(findings=findings)

    def candidates(self, text: str) -> list[Candidate]:
        """Every proposed finding with its features and probability (for fitting and
        for explaining a verdict)."""
        return [c for _, c in self._candidates(text)]

    def _candidates(self, text: str) -> list[tuple[_Hit, Candidate]]:
        units = segment(text)
        views = [_view(text, u) for u in units]
        _mark_decision_lists(views)
        binding = [(ci, v) for ci, v in enumerate(self._prep.vocab) if v.invariant is not None]
        lexical = [
            {ci: self._lexical_hits(text, view, ci, vocab, None) for ci, vocab in binding}
            for view in views
        ]
        vecs: dict[int, np.ndarray] = {}
        sims: dict[int, np.ndarray] = {}
        # sentences embedded only to describe their candidates to the calibrated decision
        # (whole-sentence similarity), in the same model call; no semantic checks on them
        described: dict[int, np.ndarray] = {}
        if self.embedder is not None and views and self._prep.topic_vectors is not None:
            wanted = self._semantic_candidates(views, lexical)
            extra = self._described_units(views, lexical, wanted) if DESCRIBE_CANDIDATES else []
            if wanted or extra:
                matrix = self.embedder.embed([views[i].unit.text for i in [*wanted, *extra]])
                for row, pos in enumerate(wanted):
                    vecs[pos] = matrix[row]
                    sims[pos] = self._prep.topic_vectors @ matrix[row]
                for row, pos in enumerate(extra, start=len(wanted)):
                    described[pos] = matrix[row]
        hits: list[_Hit] = []
        for pos, view in enumerate(views):
            found_here = self._undecided_hits(text, views, pos, sims)
            vec = vecs.get(pos)
            for ci, vocab in binding:
                found = lexical[pos][ci]
                if vec is not None and found and vocab.excluded is not None:
                    found = self._lexical_hits(text, view, ci, vocab, vec)  # semantic gate
                found_here.extend(found)
                if vec is not None:
                    found_here.extend(self._semantic_hits(view, ci, vocab, vec))
            topic_sims = sims.get(pos)
            if topic_sims is not None and self._floats_own_idea(view):
                found_here.extend(self._suggested_hits(view, topic_sims))
            for hit in found_here:
                hit.pos = pos
            hits.extend(found_here)
        return self._featurize(text, views, hits, vecs, sims, described)

    def _described_units(
        self, views: list[_UnitView], lexical: list[dict[int, list[_Hit]]], wanted: list[int]
    ) -> list[int]:
        """Sentences holding a lexical candidate (or undecided language) that the semantic
        layer does not embed: the first ``MAX_DESCRIBED_UNITS``, within the cap on embedded
        sentences per check."""
        room = min(MAX_DESCRIBED_UNITS, MAX_EMBEDDED_UNITS - len(wanted))
        taken = set(wanted)
        out = [
            pos
            for pos, view in enumerate(views)
            if pos not in taken and (view.undecided is not None or any(lexical[pos].values()))
        ]
        return out[: max(0, room)]

    def _featurize(
        self,
        text: str,
        views: list[_UnitView],
        hits: list[_Hit],
        vecs: dict[int, np.ndarray],
        sims: dict[int, np.ndarray],
        described: dict[int, np.ndarray] | None = None,
    ) -> list[tuple[_Hit, Candidate]]:
        """Features of each candidate (see :mod:`calibrate`) and its probability."""
        prep = self._prep
        index = {id(v): ci for ci, v in enumerate(prep.vocab)}
        confirmed = {h.vocab.entry.id for h in hits if h.confirms}
        real = [h for h in hits if h.rule and not h.confirms]
        strong = [h for h in real if h.strong]
        # the lexical rule chain's verdict (exceptions for confirmed exclusions and shared
        # words); semantic candidates are judged on their similarities alone
        rules_keep = {
            id(h)
            for h in self._drop_confirmed([h for h in hits if not h.flags])
            if h.layer == "lexical"
        }
        weights = self.model.for_layer(self.embedder is not None)
        last = max(1, len(views) - 1)
        topics: dict[int, list[float]] = {}
        out = []
        for h in real:
            ci = index[id(h.vocab)]
            view = views[h.pos]
            body = view.unit.text
            if h.pos not in topics:  # lexical topic score of every constraint, per sentence
                topics[h.pos] = [
                    sum(w for t, w in v.topic.items() if t in view.topic_stems) for v in prep.vocab
                ]
            topic = topics[h.pos]
            f: dict[str, float] = {
                "bias": 1.0,
                "rule_003": float(h.rule == "QA-PGC-003"),
                "rule_004": float(h.rule == "QA-PGC-004"),
                "rule_002": float(h.rule == "QA-PGC-002"),
                f"src_{h.source}": 1.0,
                "strong": float(h.strong),
                "negated_unit": float(_has_negation(body)),
                "history": float(view.history),
                "reported": float(view.reported is not None),
                "cue_suggestion": float(view.suggestion),
                "cue_decision": float(view.decision),
                "cue_undecided": float(view.undecided is not None),
                "mentions_chosen": float(h.vocab.mentions_chosen(view.stems)),
                "confirmed_elsewhere": float(h.vocab.entry.id in confirmed),
                "overlaps_other_strong": float(
                    any(
                        s.vocab is not h.vocab and s.start < h.end and h.start < s.end
                        for s in strong
                    )
                ),
                "topic_lexical": min(3.0, topic[ci]) / 3.0,
                "topic_rank1": float(topic[ci] > 0 and topic[ci] >= max(topic)),
                "position": h.pos / last,
                "bullet": float(view.unit.is_bullet),
                "rules_keep": float(id(h) in rules_keep),
                "hedge": float(bool(HEDGE.search(body))),
                "coverage": h.coverage,
            }
            for flag in h.flags:
                f[f"flag_{flag}"] = 1.0
            vec = vecs.get(h.pos)
            row = sims.get(h.pos)
            if vec is not None and row is not None:
                f["embedded"] = 1.0
                f["sim_topic"] = float(row[ci])
                f["sim_topic_rank1"] = float(int(row.argmax()) == ci)
                if ci in prep.statement_vectors:
                    f["sim_statement"] = float(prep.statement_vectors[ci] @ vec)
                if ci in prep.rejected_vectors:
                    rejected, chosen = prep.rejected_vectors[ci]
                    f["sim_rejected"] = float((rejected @ vec).max())
                    f["sim_chosen"] = float((chosen @ vec).max()) if chosen.size else 0.0
                if ci in prep.exclusion_vectors:
                    f["sim_excluded"] = float(prep.exclusion_vectors[ci] @ vec)
            svec = vec if vec is not None else (described or {}).get(h.pos)
            if svec is not None:  # whole-sentence similarity, every embedded sentence
                f["sent_embedded"] = 1.0
                srow = prep.topic_vectors @ svec if prep.topic_vectors is not None else None
                if srow is not None:
                    f["sent_sim_topic"] = float(srow[ci])
                    others = [float(v) for j, v in enumerate(srow) if j != ci]
                    f["sent_sim_margin"] = float(srow[ci]) - max(others, default=0.0)
                if ci in prep.statement_vectors:
                    f["sent_sim_statement"] = float(prep.statement_vectors[ci] @ svec)
                if ci in prep.rejected_vectors:
                    rejected, chosen = prep.rejected_vectors[ci]
                    best_rej = float((rejected @ svec).max())
                    best_cho = float((chosen @ svec).max()) if chosen.size else 0.0
                    f["sent_sim_option_margin"] = best_rej - best_cho
            cand = Candidate(h.vocab.entry.id, h.rule, h.start, h.end, h.layer, h.score, f)
            cand.probability = weights.probability(cand)
            out.append((h, cand))
        return out

    def _semantic_candidates(
        self, views: list[_UnitView], lexical: list[dict[int, list[_Hit]]]
    ) -> list[int]:
        """Units worth embedding, because embedding is the expensive step.

        - undecided language whose topic the words alone do not settle (plus the sentence
          before it when the sentence itself names no topic: "not sure it was ever
          decided");
        - a one-word match of a short excluded subject, which needs semantic confirmation;
        - an idea the writer floats (:meth:`_floats_own_idea`): which decision it is about
          is read from its similarity;
        - at most ``MAX_SEMANTIC_UNITS`` other sentences, ranked by topic words of a binding
          exclusion or choice that the lexical layer left undecided for that sentence and
          that a paraphrase check could still flag (not negated, not quoted history, not
          elaborating the chosen option).
        Everything else stays lexical.
        """
        prep = self._prep
        wanted: set[int] = set()
        ranked: list[tuple[float, int]] = []
        for pos, view in enumerate(views):
            if view.undecided is not None:
                scores = self._topic_scores(view, {}, pos)
                lexical_best = scores[0][0] if scores else 0.0
                runner_up = scores[1][0] if len(scores) > 1 else 0.0
                if lexical_best - runner_up < CLEAR_TOPIC_MARGIN:
                    wanted.add(pos)  # the words alone do not say which decision is meant
                if pos > 0 and lexical_best < UNDECIDED_TOPIC_MIN:
                    wanted.add(pos - 1)
                continue
            if self._needs_relaxed_gate(view) or self._floats_own_idea(view):
                wanted.add(pos)
                continue
            if view.history or _has_negation(view.unit.text):
                continue  # the semantic checks cannot turn these into violations
            cue = view.suggestion or view.decision
            best = 0.0
            for ci, vocab in enumerate(prep.vocab):
                if ci not in prep.exclusion_vectors and ci not in prep.rejected_vectors:
                    continue
                if lexical[pos].get(ci):
                    continue  # already decided lexically
                if (
                    ci not in prep.exclusion_vectors
                    and vocab.mentions_chosen(view.stems)
                    and not cue
                ):
                    continue  # elaborating the chosen option
                best = max(best, sum(w for t, w in vocab.topic.items() if t in view.stems))
            if best >= TOPIC_MIN:
                ranked.append((best, pos))
        ranked.sort(key=lambda x: (-x[0], x[1]))
        wanted.update(pos for _, pos in ranked[:MAX_SEMANTIC_UNITS])
        # bound the cost on very long texts; the first sentences are checked semantically
        return sorted(wanted)[:MAX_EMBEDDED_UNITS]

    def _needs_relaxed_gate(self, view: _UnitView) -> bool:
        """A one-word match of a short excluded subject is confirmed semantically."""
        for vocab in self._prep.vocab:
            terms = vocab.excluded
            if vocab.invariant is None or terms is None or not terms.relaxed:
                continue
            if any(len(terms.matches(c.stems)) == 1 for c in view.clauses):
                return True
        return False

    # undecided language (QA-PGC-003) ------------------------------------------------------

    def _clause_topic_scores(self, view: _UnitView) -> list[tuple[float, int]]:
        """Topic scores of the clause holding the undecided cue, when its words alone
        name a topic: the cue's scope is its clause ("whether X is still open; the team
        wants Y data first" is about X, not Y). Empty list: fall back to the sentence."""
        assert view.undecided is not None
        cue = view.unit.start + view.undecided.start()
        clause = next((c for c in view.clauses if c.start <= cue < c.end), None)
        if clause is None or len(view.clauses) < 2:
            return []
        stems = clause.stems & view.topic_stems
        scores = []
        for ci, vocab in enumerate(self._prep.vocab):
            scores.append((sum(w for t, w in vocab.topic.items() if t in stems), ci))
        scores.sort(key=lambda x: (-x[0], x[1]))
        return scores if scores and scores[0][0] >= UNDECIDED_TOPIC_MIN else []

    def _topic_scores(
        self, view: _UnitView, sims: dict[int, np.ndarray], row: int
    ) -> list[tuple[float, int]]:
        scores = []
        row_sims = sims.get(row)
        for ci, vocab in enumerate(self._prep.vocab):
            lexical = sum(w for t, w in vocab.topic.items() if t in view.topic_stems)
            semantic = float(row_sims[ci]) if row_sims is not None else 0.0
            score = lexical + 2.0 * max(0.0, semantic - 0.25)
            scores.append((score, ci))
        scores.sort(key=lambda x: (-x[0], x[1]))
        return scores

    def _undecided_hits(
        self, text: str, views: list[_UnitView], pos: int, sims: dict[int, np.ndarray]
    ) -> list[_Hit]:
        view = views[pos]
        match = view.undecided
        if match is None:
            return []
        scores = self._clause_topic_scores(view) or self._topic_scores(view, sims, pos)
        best, ci = scores[0] if scores else (0.0, -1)
        if best < UNDECIDED_TOPIC_MIN and pos > 0:
            # "I'm not sure it was ever decided" refers back to the previous sentence
            prev = self._topic_scores(views[pos - 1], sims, pos - 1)
            if prev and prev[0][0] > best:
                best, ci = prev[0]
        if ci < 0 or best < UNDECIDED_TOPIC_MIN:
            return []
        cue = view.unit.start + match.start()
        if view.reported and view.reported[0] <= cue < view.reported[1]:
            return []  # someone else's question ("asked why X can't be picked")
        vocab = self._prep.vocab[ci]
        if vocab.invariant is None:
            return []  # the open question really is open (or only informational)
        start = view.unit.start + match.start()
        end = view.unit.start + match.end()
        for clause in view.clauses:
            if clause.start <= start < clause.end:
                start, end = clause.start, clause.end
                break
        score = min(1.0, best / 2)
        return [_Hit("QA-PGC-003", vocab, start, end, "lexical", score, source="undecided")]

    # lexical violations -------------------------------------------------------------------

    def _rule_for(self, view: _UnitView, vocab: ConstraintVocab, excluded: bool) -> str:
        if view.undecided is not None:
            return "QA-PGC-003"
        if view.suggestion or view.decision:
            return "QA-PGC-004"
        return "QA-PGC-002" if excluded else "QA-PGC-001"

    def _lexical_hits(
        self,
        text: str,
        view: _UnitView,
        ci: int,
        vocab: ConstraintVocab,
        vec: np.ndarray | None,
    ) -> list[_Hit]:
        hits: list[_Hit] = []
        inv = vocab.invariant
        assert inv is not None
        cue = view.suggestion or view.decision or view.undecided is not None
        chosen_here = self._affirms_chosen(text, view, vocab)
        for clause in view.clauses:
            for terms in vocab.rejected:
                hits.extend(
                    self._term_hit(
                        text, view, clause, vocab, terms, inv.kind == "exclusion", cue, chosen_here
                    )
                )
            if vocab.excluded is not None:
                found = self._term_hit(text, view, clause, vocab, vocab.excluded, True, cue, False)
                if found and vec is not None and vocab.excluded.relaxed:
                    sim = float(self._prep.exclusion_vectors[ci] @ vec)
                    matched = vocab.excluded.matches(clause.stems)
                    if len(matched) == 1 and sim < RELAXED_MIN_SIM:
                        found = [h for h in found if h.confirms]
                hits.extend(found)
            if vocab.subject_terms and (view.reopen or _cue_in(view, clause)):
                covered = len(vocab.subject_terms & clause.stems) / len(vocab.subject_terms)
                if covered >= REOPEN_COVERAGE:  # "Should the app work offline at all?"
                    hits.append(self._clause_hit(text, view, clause, vocab, False, "reopen"))
            if inv.kind == "choice" and not view.history:
                hits.extend(self._replaced_chosen_hit(text, view, clause, vocab))
            if vocab.numeric is not None and not view.history:
                hits.extend(self._other_value_hit(text, view, clause, vocab))
            if vocab.limits and not view.history:
                hits.extend(self._past_limit_hit(text, view, clause, vocab))
            if vocab.values and not view.history:
                hits.extend(self._other_amount_hit(text, view, clause, vocab))
            if vocab.dependency:
                hits.extend(self._dependency_hit(text, view, clause, vocab))
            if vocab.offline and not view.history:
                hits.extend(self._offline_failure_hit(text, view, clause, vocab))
            if vocab.modes and not view.history:
                hits.extend(self._opposite_mode_hit(text, view, clause, vocab))
            for item in vocab.scope_items:
                if view.history or not item <= clause.stems:
                    continue
                where = _match_positions(clause, set(item))
                if where and lexicon.WEAKENERS.search(
                    _window(text, clause, where[0], where[1], 4, 6)
                ):  # "generated PDFs are left out" against "every generated PDF"
                    hits.append(self._clause_hit(text, view, clause, vocab, False, "scope"))
            if vocab.required is not None:
                matched = vocab.required.matches(clause.stems)
                where = _match_positions(clause, matched) if matched else None
                weakened = where is not None and bool(
                    lexicon.WEAKENERS.search(_window(text, clause, where[0], where[1], 3, 4))
                )
                negated = (
                    not vocab.required_negative and _negated(text, clause, *where)
                    if where
                    else False
                )
                if where and (weakened or negated) and not view.history:
                    hits.append(self._clause_hit(text, view, clause, vocab, False, "required"))
            for forbidden in vocab.forbidden:
                matched = forbidden.matches(clause.stems)
                where = _match_positions(clause, matched) if matched else None
                if (
                    where
                    and not _negated(text, clause, *where)
                    and not view.history
                    and not _refused_elsewhere(text, view, clause, where[1])
                    and not _subject_negated(text, clause, forbidden.subject)
                    and not forbidden.numbers & clause.stems
                ):
                    hit = self._clause_hit(text, view, clause, vocab, False, "forbidden")
                    hit.strong = len(forbidden.core & clause.stems) >= 2
                    hits.append(hit)
        return hits

    def _other_value_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        """A quantity of the choice's unit that the user did not choose ("kept for 18
        months" against 6), in a sentence about the choice's topic."""
        assert vocab.numeric is not None
        unit, chosen = vocab.numeric
        values = [key for key, u in number_units(text[clause.start : clause.end]) if u == unit]
        if not values or any(key in chosen for key, u in number_units(view.unit.text)):
            return []  # the sentence states the chosen value: its other numbers are other things
        topic = sum(w for t, w in vocab.topic.items() if t in view.topic_stems and t != unit)
        where = _match_positions(clause, {unit})
        if topic < TOPIC_MIN or where is None:
            return []
        # "not 18 months", "never more than 18 months"; a condition after it ("unless
        # they ask") does not negate the value
        if lexicon.PRE_NEGATORS.search(_window(text, clause, where[0], where[1], 5, 0)):
            return []
        return [self._clause_hit(text, view, clause, vocab, False, "term")]

    def _past_limit_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        """A quantity past a cap or floor of a free-text answer ("loans of up to 14 days"
        against "at most 7 days"), in a sentence about what the limit is about."""
        said = text[clause.start : clause.end]
        found = limits.quantities(said)
        rest = text[clause.start : view.unit.start + len(view.unit.text)]
        for q in found:
            before, after = said[max(0, q.start - 40) : q.start], rest[q.end : q.end + 60]
            # a quantity is held against the limit it is about: of the answer's limits on
            # the same measure, the ones whose words its clause shares most ("a swap 50
            # hours ahead" is about "swaps at least 48 hours ahead", not about "at most
            # 3 hours on air in a row")
            same = [b for b in vocab.limits if limits.same_measure(b.quantity, q)]
            shared = [len(b.about & clause.stems) for b in same]
            for bound, words in zip(same, shared, strict=True):
                if words < max(shared) or limits.restates(bound, found):
                    continue
                about = q.measure == "count" or len(bound.about & view.stems) >= LIMIT_ABOUT
                if about and limits.broken(bound, q, before, after):
                    return [self._clause_hit(text, view, clause, vocab, False, "term")]
        return []

    def _other_amount_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        """Another value for a quantity a free-text answer fixes ("returned to stock
        after 7 days" against "stay on the shelf for 14 days"), in a sentence sharing
        ``VALUE_ABOUT`` words with the value's own clause. A sentence that states any of
        the answer's values of that measure is elaborating the answer, not changing it."""
        said = text[clause.start : clause.end]
        found = limits.quantities(said)
        sentence: list[limits.Quantity] | None = None
        rest = text[clause.start : view.unit.start + len(view.unit.text)]
        for q in found:
            same = [b for b in vocab.values if limits.same_measure(b.quantity, q)]
            if not same:
                continue
            best = max(same, key=lambda b: len(b.about & view.stems))
            if len(best.about & view.stems) < VALUE_ABOUT:
                continue
            if sentence is None:
                sentence = limits.quantities(view.unit.text)
            if any(limits.restates(b, sentence) for b in [*same, *vocab.limits]):
                continue
            before, after = said[max(0, q.start - 40) : q.start], rest[q.end : q.end + 60]
            if limits.broken(best, q, before, after):
                return [self._clause_hit(text, view, clause, vocab, False, "term")]
        return []

    def _replaced_chosen_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        """The chosen option named as the thing something else replaces: "watchers now use
        polling instead of BroadcastChannel", "replaced BroadcastChannel with polling",
        "moved the tracker off the VM and onto Render". The decision is abandoned whether
        or not the newcomer is one of the listed options; the sentence read the chosen
        name as negated and passed. Not when the sentence negates the replacement
        itself ("we won't use polling instead of X", "replacing X was rejected") or names
        the chosen option on the new side too (a refinement of it)."""
        for terms in vocab.chosen_terms:
            matched = terms.matches(clause.stems)
            # the option by its name: half its words ("Resource" alone is not "Split
            # Filters by Resource and Section"), written as a name in the text (mixed case,
            # a capital inside the sentence, an acronym: "event" of "Using events" is any
            # DOM event)
            if not terms.strong & matched or 2 * len(matched) < terms.label_words:
                continue
            where = _match_positions(clause, matched)
            if where is None:
                continue
            named = clause.tokens[where[0] : where[1] + 1]
            if not any(
                tok.match_keys() & matched
                and lexicon.is_strong_token(tok.raw, tok.start - view.unit.start)
                for tok in named
            ):
                continue
            start = clause.tokens[where[0]].start
            head = text[view.unit.start : start]
            cue = lexicon.REPLACED_BY.search(head)
            if cue is None:
                for found in lexicon.REPLACING.finditer(head):
                    if not lexicon.DIRECTION_BREAK.search(head, found.end()):
                        cue = found
            if cue is None:
                continue
            before = head[: cue.start()]
            after = text[clause.tokens[where[1]].end : view.unit.end]
            if _OPTION_GOES_ON.match(after):
                continue  # "instead of one Xero credit line per keg": a detail of it
            if (
                lexicon.PRE_NEGATORS.search(before)
                or lexicon.POST_NEGATORS.search(after)
                or terms.matches(set(lexicon.content_stems(before)))
            ):
                continue
            hit = self._clause_hit(text, view, clause, vocab, False, "replaced")
            hit.strong = bool(terms.strong & matched)
            hit.coverage = min(1.0, len(matched) / max(1, terms.label_words))
            return [hit]
        return []

    def _affirms_chosen(self, text: str, view: _UnitView, vocab: ConstraintVocab) -> bool:
        """The sentence names a chosen option, and not as the thing being replaced."""
        if not vocab.mentions_chosen(view.stems):
            return False
        for clause in view.clauses:
            for terms in vocab.chosen_terms:
                matched = terms.matches(clause.stems)
                where = _match_positions(clause, matched) if matched else None
                if where and not _negated(text, clause, *where):
                    return True
        return False

    def _clause_hit(
        self,
        text: str,
        view: _UnitView,
        clause: _Clause,
        vocab: ConstraintVocab,
        excluded: bool,
        source: str,
    ) -> _Hit:
        start, end = _trimmed(text, clause.start, clause.end)
        rule = self._rule_for(view, vocab, excluded)
        return _Hit(rule, vocab, start, end, "lexical", 1.0, source=source)

    def _term_hit(
        self,
        text: str,
        view: _UnitView,
        clause: _Clause,
        vocab: ConstraintVocab,
        terms: TermSet,
        excluded: bool,
        cue: bool,
        chosen_here: bool,
    ) -> list[_Hit]:
        matched = terms.matches(clause.stems) or _proper_noun_match(text, clause, terms)
        if not matched and (view.suggestion or view.decision):
            matched = terms.distinct_match(clause.stems)
        if not matched:
            return []
        where = _match_positions(clause, matched)
        if where is None:
            return []
        if view.reported and view.reported[0] <= clause.tokens[where[0]].start < view.reported[1]:
            return []  # named inside a reported question: someone else's ask
        flags = set()
        out = []
        if _negated(text, clause, *where):
            out.append(_Hit("", vocab, clause.start, clause.end, "lexical", 1.0, confirms=True))
            flags.add("negated")
        if view.history and not (view.suggestion or view.decision):
            flags.add("history")
        if chosen_here and not cue:
            # "the PWA installs on iOS and Android" elaborates the chosen option; the model
            # weighs it ("Google buttons above the card-number form" adds a rejected one)
            flags.add("chosen")
        strong = bool(terms.strong & matched) and not (terms.relaxed and len(matched) == 1)
        source = "excluded" if terms is vocab.excluded else "term"
        hit = self._clause_hit(text, view, clause, vocab, excluded, source)
        hit.strong = strong
        hit.flags = frozenset(flags)
        hit.coverage = min(1.0, len(matched) / max(1, terms.label_words))
        return [*out, hit]

    def _dependency_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        hits = []
        for idx, tok in enumerate(clause.tokens):
            if tok.stem not in vocab.dependency and tok.raw.lower() not in vocab.dependency:
                continue
            around = _window(text, clause, idx, idx, EXEMPT_BEFORE, EXEMPT_AFTER)
            if lexicon.EXEMPT.search(around) or _negated(text, clause, idx, idx):
                continue
            if view.history:
                continue
            hit = self._clause_hit(text, view, clause, vocab, False, "dependency")
            hit.strong = len(tok.raw) > 3  # "js" in "highlight.js" is weaker evidence
            hits.append(hit)
            break
        return hits

    def _offline_failure_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        """Lost connectivity followed by a failure, in a clause of a text bound to keep
        working offline: "when there's no signal, the screen shows 'Connect to ...'",
        "if the handheld loses the network, scanning is blocked"."""
        body = text[clause.start : clause.end]
        cond = lexicon.NO_NETWORK.search(body)
        if cond is None or lexicon.OFFLINE_HANDLED.search(view.unit.text):
            return []
        for fail in lexicon.OFFLINE_FAILURE.finditer(body, cond.end()):
            before = body[max(cond.end(), fail.start() - 12) : fail.start()]
            if lexicon.PRE_NEGATORS.search(before):
                continue  # "dead spots don't stop picking"
            return [self._clause_hit(text, view, clause, vocab, False, "offline")]
        return []

    def _opposite_mode_hit(
        self, text: str, view: _UnitView, clause: _Clause, vocab: ConstraintVocab
    ) -> list[_Hit]:
        """The clause states the opposite of a mode the requirement fixes ("uploads the
        certificate by hand" against "issued automatically"), about the same subject."""
        body = text[clause.start : clause.end]
        about = vocab.mode_about or (
            sum(w for t, w in vocab.mode_subject.items() if t in view.stems) >= MODE_SUBJECT_MIN
        )
        if not about or lexicon.FALLBACK.search(body):
            return []
        for name, _, opposite in lexicon.MODES:
            if name not in vocab.modes:
                continue
            for match in opposite.finditer(body):
                before = body[max(0, match.start() - 30) : match.start()]
                if lexicon.PRE_NEGATORS.search(before):
                    continue  # "never by hand", "nobody prints them by hand"
                return [self._clause_hit(text, view, clause, vocab, False, "mode")]
        return []

    # semantic violations ------------------------------------------------------------------

    def _semantic_hits(
        self, view: _UnitView, ci: int, vocab: ConstraintVocab, vec: np.ndarray
    ) -> list[_Hit]:
        prep = self._prep
        hits: list[_Hit] = []
        negated = _has_negation(view.unit.text)
        # said as the text's own position: not negated, not history, not someone's question
        # a sentence that reports an ask ("A caller asked whether …") is not the text's own
        # position; one that only mentions an ask in passing ("I added X, since two
        # clients asked for it") still is
        reported = view.reported is not None and not _REPORT_IN_PASSING.search(
            view.unit.text[: view.reported[0] - view.unit.start]
        )
        asserted = not negated and not view.history and not (reported and not view.suggestion)
        if ci in prep.exclusion_vectors:
            sim = float(prep.exclusion_vectors[ci] @ vec)
            if negated and sim >= EXCLUSION_SIM:
                hits.append(
                    _Hit("", vocab, view.unit.start, view.unit.end, "semantic", sim, True, True)
                )
            elif sim >= EXCLUSION_SIM and asserted and len(view.stems) >= SEMANTIC_MIN_WORDS:
                hits.append(self._unit_hit(view, vocab, True, sim, "sem_excluded"))
        chosen_here = vocab.mentions_chosen(view.stems)  # semantic path: presence is enough
        cue = view.suggestion or view.decision or view.undecided is not None
        if (
            ci in prep.rejected_vectors
            and len(view.stems) >= SEMANTIC_MIN_WORDS
            and asserted
            and (cue or not chosen_here)
        ):
            rejected, chosen = prep.rejected_vectors[ci]
            rej = float((rejected @ vec).max())
            cho = float((chosen @ vec).max()) if chosen.size else 0.0
            if rej >= REJECTED_SIM and rej - cho >= REJECTED_MARGIN:
                excluded = vocab.invariant is not None and vocab.invariant.kind == "exclusion"
                hits.append(self._unit_hit(view, vocab, excluded, rej, "sem_rejected"))
        return hits

    def _floats_own_idea(self, view: _UnitView) -> bool:
        """The sentence floats an idea of the writer's own (the stance model's suggestion,
        not someone else's ask), as a plan: not an open question, not the unreal ("Had
        we gone with X, ...") and not a condition ("If the council ever wants X, ...")."""
        if not view.suggestion or view.undecided is not None or view.history:
            return False
        body = view.unit.text
        if view.reported is not None and not _REPORT_IN_PASSING.search(
            body[: view.reported[0] - view.unit.start]
        ):
            return False
        return not (lexicon.COUNTERFACTUAL.search(body) or lexicon.CONDITIONAL.search(body))

    def _suggested_hits(self, view: _UnitView, row: np.ndarray) -> list[_Hit]:
        """An idea floated about what a binding decision settles: the sentence is closer to
        that decision than to any other (``SUGGESTED_SIM`` at least), and names none of its
        chosen options ("it might be worth moving the portal to a managed host" against the
        bound hosting). A suggestion that builds on the chosen option is left alone, and
        so is one near a free-text statement, whose several rules a floated detail often
        keeps. The calibrated decision weighs the candidate like any other."""
        ci = int(row.argmax())
        vocab = self._prep.vocab[ci]
        sim = float(row[ci])
        if vocab.invariant is None or vocab.invariant.kind == "statement" or sim < SUGGESTED_SIM:
            return []
        if len(view.stems) < SEMANTIC_MIN_WORDS or vocab.mentions_chosen(view.stems):
            return []
        return [self._unit_hit(view, vocab, False, sim, "suggested")]

    def _unit_hit(
        self, view: _UnitView, vocab: ConstraintVocab, excluded: bool, sim: float, source: str
    ) -> _Hit:
        """A semantic finding over the whole sentence (a weak one: similarity alone)."""
        rule = self._rule_for(view, vocab, excluded)
        return _Hit(
            rule,
            vocab,
            view.unit.start,
            view.unit.end,
            "semantic",
            sim,
            strong=False,
            source=source,
        )

    # assembling ---------------------------------------------------------------------------

    def _drop_confirmed(self, hits: list[_Hit]) -> list[_Hit]:
        """Drop weak hits that other evidence explains.

        A text that confirms an exclusion ("X is out of scope") is not contradicted by a
        weak mention of the same subject elsewhere ("you can still track X by hand"); and
        a weak hit that overlaps a clear hit on another constraint is usually the same
        violation seen through a shared word ("Stripe Connect transfers" is a payment
        provider, not ticket transfers)."""
        confirmed = {h.vocab.entry.id for h in hits if h.confirms}
        strong = [h for h in hits if h.strong and not h.confirms and h.rule]
        out = []
        for hit in hits:
            if hit.confirms:
                continue
            if not hit.strong and any(
                s.vocab.entry.id != hit.vocab.entry.id and s.start < hit.end and hit.start < s.end
                for s in strong
            ):
                continue  # one sentence, one violation: the clear match explains it
            if (
                hit.vocab.entry.id in confirmed
                and not hit.strong
                and hit.rule in ("QA-PGC-001", "QA-PGC-002")
                and hit.vocab.invariant is not None
                and hit.vocab.invariant.kind == "exclusion"
            ):
                continue
            out.append(hit)
        return out

    def _findings(self, text: str, hits: list[_Hit]) -> list[Finding]:
        best: dict[tuple[str, str, int], _Hit] = {}
        for hit in hits:
            start, end = _trimmed(text, hit.start, hit.end)
            hit.start, hit.end = start, end
            key = (hit.vocab.entry.id, hit.rule, start)
            if key not in best or hit.score > best[key].score:
                best[key] = hit
        # one finding per constraint and rule: keep the earliest span of each, as sure as
        # the surest of its hits
        merged: dict[tuple[str, str], _Hit] = {}
        sure: dict[tuple[str, str], float] = {}
        for (cid, rule, _), hit in sorted(best.items(), key=lambda kv: kv[1].start):
            merged.setdefault((cid, rule), hit)
            sure[(cid, rule)] = max(sure.get((cid, rule), 0.0), hit.probability)
        findings = []
        for hit in sorted(merged.values(), key=lambda h: (h.start, h.vocab.entry.id, h.rule)):
            inv = hit.vocab.invariant
            assert inv is not None
            findings.append(
                Finding(
                    rule=hit.rule,
                    constraint_id=inv.id,
                    evidence=text[hit.start : hit.end],
                    start=hit.start,
                    end=hit.end,
                    severity="error",
                    message=_message(hit.rule, inv),
                    repair=_REPAIR[hit.rule].format(statement=inv.statement, id=inv.id),
                    layer=hit.layer,
                    score=hit.score,
                    confidence=sure[(hit.vocab.entry.id, hit.rule)],
                )
            )
        return findings

    def _with_judge(self, text: str, kind: str | None, found: list[Finding]) -> list[Finding]:
        assert self.judge is not None
        binding = {inv.id for inv in self.invariants}
        extra = []
        for f in self.judge.judge(text, kind, self.invariants, found):
            valid_span = 0 <= f.start < f.end <= len(text) and text[f.start : f.end] == f.evidence
            if f.constraint_id in binding and valid_span and f.rule in _REPAIR:
                extra.append(f)
        seen = {(f.constraint_id, f.rule) for f in found}
        return found + [f for f in extra if (f.constraint_id, f.rule) not in seen]


def _message(rule: str, inv: Invariant) -> str:
    what = {
        "QA-PGC-001": "contradicts the bound decision",
        "QA-PGC-002": "reintroduces an excluded item",
        "QA-PGC-003": "treats a resolved decision as open",
        "QA-PGC-004": "suggests an alternative to a bound decision",
    }[rule]
    return f"{what} {inv.id}: {inv.statement}"


def check_text(
    text: str,
    decisions: PgcClarifications,
    *,
    kind: str | None = None,
    aliases: Mapping[str, Sequence[str]] | None = None,
    embedder: Embedder | None = None,
) -> DriftResult:
    """One-shot convenience wrapper around :class:`DriftChecker`."""
    return DriftChecker(decisions, aliases=aliases, embedder=embedder).check(text, kind)
