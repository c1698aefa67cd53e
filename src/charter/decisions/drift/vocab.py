"""Check vocabulary derived from the constraints themselves (never from scenario lists).

For every clarification (binding or not) this builds the terms that say a sentence is
*about* it (question words, option labels and ids, aliases), weighted so that a word
shared by several clarifications counts less. For binding ones it adds what a violation
looks like: a rejected option's distinctive terms, an excluded subject's terms, the
dependency a requirement forbids ("without network access" → network words), and the
clauses a free-text answer forbids ("never by direct calls to X").
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from charter.decisions.drift import lexicon
from charter.decisions.drift.limits import Bound, bounds, stated_values
from charter.decisions.invariants import Invariant, invariant_for
from charter.decisions.models import Clarification, PgcClarifications

#: A negated clause of a free-text answer; it ends at punctuation, a colon included ("X is
#: never allowed: when ..." forbids X, the explanation after the colon is not forbidden),
#: but not at the colon or point of a time or a number ("not checked in by 10:00 is
#: released", "no more than 2.5 hours").
_NEGATIVE_CLAUSE = re.compile(
    r"\b(?P<neg>never|no|not|zero|without|nor)\b(?P<rest>(?:[^.;,:]|(?<=\d)[.:,](?=\d))*)", re.I
)
#: A negation inside a condition ("one reminder goes out if no appointment is booked",
#: "unless not yet paid") states when something happens; it forbids nothing.
_CONDITION_BEFORE = re.compile(
    r"\b(?:if|unless|when|whenever|while|until|once|where|in case)\b[^.;,:]*$", re.I
)
#: A negated passive or copula ("X are never shown"): X is what the clause forbids.
_COPULA_END = re.compile(r"\b(?:is|are|was|were|be|been|gets?)\s*$", re.I)
#: Words that only say *that* something is forbidden; the thing itself precedes them.
_PERMISSION = frozenset(["allowed", "permitted", "possible", "acceptable", "accepted", "ok"])


@dataclass(frozen=True)
class TermSet:
    """Terms of one option or subject: a match needs a strong term or enough weak ones."""

    label: str
    strong: frozenset[str]
    weak: frozenset[str]
    relaxed: bool = False  # weak words promoted to strong (short excluded subjects)
    label_words: int = 1  # content words of the label before distinctive filtering
    #: label words left after dropping those the other side shares ("Wave picking" vs the
    #: chosen "Zone picking" leaves "wave": that one word is the whole difference)
    distinct_words: int = 0
    #: keys every match needs: the number of "riders under 18" (``#18``), without which
    #: the subject would be every rider
    required: frozenset[str] = frozenset()
    #: words of where an excluded thing is ("Django views" of "patching globals in
    #: Django views"): a match needs a word besides them, and its name is no name
    places: frozenset[str] = frozenset()
    #: a rejected option's label (a name the text must mostly repeat), not a subject
    #: phrased from a question
    option: bool = False
    #: words that let ``places`` alone make a match: the question's words for an option
    #: named by what the project uses elsewhere ("JSON" beside "serialized messages")
    company: frozenset[str] = frozenset()

    def needed_weak(self) -> int:
        """Two weak words for a multi-word label, and a quarter of the words of a long
        option (two common words of a sentence-long ADR option name nothing); a lone
        leftover word is too generic."""
        needed = 2 if self.label_words >= 2 else 1
        if self.option:
            needed = max(needed, -(-self.label_words // 4))
        return needed if len(self.weak) >= needed else len(self.weak) + 1

    def matches(self, stems: set[str]) -> set[str]:
        """The stems of ``stems`` that make this set match (empty set: no match)."""
        if not self.required <= stems:
            return set()
        strong = set(self.strong & stems)
        weak = set(self.weak & stems)
        if not (strong | weak) - self.places and not self.company & stems:
            return set()  # only words of where the excluded thing is ("Django views")
        if strong:
            return strong | weak | self.required
        if self.weak and len(weak) >= self.needed_weak():
            return weak | self.required
        return set()

    def distinct_match(self, stems: set[str]) -> set[str]:
        """The one word that tells this option from the chosen one ("wave" of "Wave
        picking" vs "Zone picking"); used only where the text proposes or reopens."""
        if self.strong or self.distinct_words != 1:
            return set()
        return set((self.weak - self.places) & stems)

    def empty(self) -> bool:
        return not self.strong and not self.weak


@dataclass(frozen=True)
class Forbidden:
    """A clause a free-text answer rules out: core terms plus the answer's topic terms."""

    core: frozenset[str]
    context: frozenset[str]
    verb: frozenset[str] = frozenset()  # "staff cannot override": the action must be named
    #: "storage locations are never shown on the site": what is never shown must be named
    #: (one of these words), not just the predicate
    subject: frozenset[str] = frozenset()
    #: core words the rest of the answer also uses affirmatively ("sailing" of "fares never
    #: change with how full a sailing is" beside "half fare on every sailing")
    affirmed: frozenset[str] = frozenset()
    #: the limit the clause sets ("#6" of "no specialist is booked for more than 6
    #: sessions"): a text naming the same number restates the limit, it does not break it
    numbers: frozenset[str] = frozenset()

    def matches(self, stems: set[str]) -> set[str]:
        """Two core words; or, for a short clause (≤ 3 core words), one core word plus a
        word of the answer's topic. Words the answer also affirms do not count where the
        clause has others: they are what a text restating the answer says too."""
        core = set(self.core & stems)
        if not core or not self.verb <= stems:
            return set()
        if self.subject and not self.subject & stems:
            return set()
        context = set(self.context & stems)
        own = core - self.affirmed
        if len(self.core) <= 3 and context and own:
            return core | context
        distinct = self.core - self.affirmed
        if not distinct:
            # every word of the clause is one the answer affirms ("…set up a freeze, not
            # the member in the app" beside "Members can freeze"; "the system never
            # confirms a booking on its own" beside "every booking is confirmed by a
            # dispatcher"): the words name nothing the answer rules out, and a text
            # restating the answer says them all
            return set()
        if len(own) >= min(2, len(distinct)):
            return core | context
        return set()


@dataclass
class ConstraintVocab:
    entry: Clarification
    invariant: Invariant | None
    topic: dict[str, float] = field(default_factory=dict)
    descriptor: str = ""
    chosen: frozenset[str] = frozenset()
    chosen_terms: list[TermSet] = field(default_factory=list)
    rejected: list[TermSet] = field(default_factory=list)
    #: a choice of a quantity ("6 months after the rejection" among 12 and 24 months):
    #: the unit's stem and the chosen numbers, so any other number of that unit is a
    #: value the user did not choose ("kept for 18 months")
    numeric: tuple[str, frozenset[str]] | None = None
    excluded: TermSet | None = None
    dependency: frozenset[str] = frozenset()
    required: TermSet | None = None
    #: the requirement is itself phrased with a negation ("with no contact before the
    #: driver arrives", "refuse anyone whose certificate has expired"): a text negating
    #: the same thing restates it
    required_negative: bool = False
    subject_terms: frozenset[str] = frozenset()  # what a yes/no requirement is about
    forbidden: list[Forbidden] = field(default_factory=list)
    offline: bool = False  # a bound requirement to keep working without connectivity
    #: what a free-text answer says applies to every item ("every generated PDF")
    scope_items: list[frozenset[str]] = field(default_factory=list)
    #: modes the requirement fixes (lexicon.MODES names) and the words saying what it is
    #: about, weighted like the topic; ``mode_about``: the constraint's id names the mode
    modes: tuple[str, ...] = ()
    mode_subject: dict[str, float] = field(default_factory=dict)
    mode_about: bool = False
    #: caps and floors a free-text answer puts on a quantity ("at most 7 days")
    limits: list[Bound] = field(default_factory=list)
    #: plain values a free-text answer states ("for 14 days"), as ``exact`` bounds
    values: list[Bound] = field(default_factory=list)

    @property
    def binding(self) -> bool:
        return self.invariant is not None

    def mentions_chosen(self, stems: set[str]) -> bool:
        """The text names a chosen option (by a strong word or two of its words)."""
        return any(terms.matches(stems) for terms in self.chosen_terms)


def _raw_terms(text: str) -> list[tuple[str, int]]:
    """(token, position-in-text) pairs of content tokens."""
    out = []
    for pos, tok in enumerate(lexicon.tokens(text)):
        if tok.lower() in lexicon.STOPWORDS or len(tok) < 2:
            continue
        out.append((tok, pos))
    return out


def _id_terms(value: str) -> list[str]:
    return [p for p in re.split(r"[_\-.:\s]+", value.lower()) if len(p) >= 2]


#: A trailing place in an excluded subject: "… in Django views", "… inside React views".
_PLACE = re.compile(r"\s(?:in|inside|within|across|throughout)\s+(?P<place>\S.*)$", re.I)
#: The parties of a relation an excluded subject names: "imports between feature modules",
#: "shared state among tabs". The relation is what is excluded; the parties alone are not.
_PARTIES = re.compile(r"\s(?:between|among|amongst)\s+(?P<place>\S.*)$", re.I)


def _place_names(subject: str) -> tuple[set[str], frozenset[str]]:
    """Stems of the names that qualify a noun in a trailing place phrase of ``subject``
    ("Django" of "patching globals in Django views"), when words of its own come
    before the phrase, and the stems of the whole phrase: such a name says where the
    excluded thing is, not what it is. A name that ends the phrase ("storing data in
    Firebase") may be the thing itself."""
    parties = _PARTIES.search(subject)
    if parties and _raw_terms(subject[: parties.start()]):
        # "imports between feature modules": every word of the parties is a place; a
        # match needs a word of the relation ("the bible module's tests" names no import)
        return set(), frozenset(lexicon.content_stems(parties.group("place")))
    found = _PLACE.search(subject)
    if not found or not _raw_terms(subject[: found.start()]):
        return set(), frozenset()
    place = found.group("place")
    words = [tok for tok, _ in _raw_terms(place)]
    names = {
        lexicon.stem(tok.lower())
        for tok, _following in itertools.pairwise(words)
        if lexicon.is_title_word(tok)
    }
    return names, frozenset(lexicon.content_stems(place)) if names else frozenset()


def _doc_stems(entry: Clarification, aliases: Mapping[str, Sequence[str]]) -> set[str]:
    parts = [entry.text, *(c.label for c in entry.choices)]
    parts += [" ".join(_id_terms(c.id)) for c in entry.choices]
    parts += [" ".join(_id_terms(entry.id))]
    for key in (entry.id, *(c.id for c in entry.choices)):
        parts += list(aliases.get(key, ()))
    return set(lexicon.content_stems(" ".join(parts)))


def _term_set(
    label: str,
    extra_ids: Sequence[str],
    alias_words: Sequence[str],
    minus: set[str],
    shared: set[str],
    *,
    lenient: bool = False,
) -> TermSet:
    """Terms of one option label. ``lenient`` (chosen options) also counts a capitalised
    first word as a name: "Markdown files" mentions "Markdown (CommonMark + GFM)"."""
    strong: set[str] = set()
    weak: set[str] = set()
    for tok in lexicon.tokens(label):
        key = lexicon.caps_key(tok)
        if key is not None:
            strong.add(key)
    for tok, pos in _raw_terms(label):
        st = lexicon.stem(tok.lower())
        if st in minus:
            continue
        if lenient and pos == 0 and lexicon.is_title_word(tok):
            strong.add("^" + st)
        elif lexicon.is_strong_token(tok, pos) or len(_raw_terms(label)) == 1:
            # a Title-case word names the option only when the text capitalises it too
            # ("Core" in "AWS IoT Core" is not "the core team"); a later word of a name
            # only when capitalised inside a sentence ("Student" of "Workday Student"
            # is not "Students sign in")
            if lexicon.is_title_word(tok):
                strong.add(("~" if pos > 0 else "^") + st)
            else:
                strong.add(st)
        elif st not in shared:
            weak.add(st)
        abbr = lexicon.acronym(tok)
        if abbr and abbr not in minus:
            strong.add(abbr)
    words = [tok for tok, _ in _raw_terms(label)]
    for first, second in itertools.pairwise(words):
        # "roll back" is also written "rollback", "check in" "checkin"
        joined = lexicon.stem((first + second).lower())
        if joined not in minus and joined not in shared and len(first) + len(second) <= 12:
            weak.add(joined)
    label_stems = set(lexicon.content_stems(label))
    distinct = {st for st in label_stems if st not in minus and st not in shared}
    for ident in extra_ids:
        for part in _id_terms(ident):
            st = lexicon.stem(part)
            novel = st not in label_stems and st not in minus and st not in shared
            if novel and len(st) >= 3 and part not in lexicon.STOPWORDS:
                # a short id part is a code ("rst", "nfc"); a word ("mobile") is weak
                (strong if len(part) <= 4 else weak).add(st)
    for alias in alias_words:
        strong.update(lexicon.content_stems(alias))
    return TermSet(
        label=label,
        strong=frozenset(strong),
        weak=frozenset(weak),
        label_words=len(_raw_terms(label)),
        distinct_words=len(distinct) if distinct <= weak else 0,
    )


_NUMBER_UNIT = re.compile(r"(\d+)\s*-?\s*([A-Za-z]+)")


def number_units(text: str) -> list[tuple[str, str]]:
    """("#12", unit stem) for every number followed by the word it counts."""
    return [
        ("#" + m.group(1), lexicon.stem(m.group(2).lower()))
        for m in _NUMBER_UNIT.finditer(text)
        if m.group(2).lower() not in lexicon.STOPWORDS
    ]


def _numeric_choice(
    chosen: Sequence[str], rejected: Sequence[str]
) -> tuple[str, frozenset[str]] | None:
    """The unit and chosen numbers of a choice between quantities of one unit."""
    picked = [pair for label in chosen for pair in number_units(label)]
    other = {unit for label in rejected for _, unit in number_units(label)}
    units = {unit for _, unit in picked} & other
    if len(units) != 1:
        return None
    (unit,) = units
    return unit, frozenset(key for key, u in picked if u == unit)


def _numeric_option(label: str, chosen_numbers: frozenset[str]) -> TermSet | None:
    """An option that differs from the chosen one only by its number ("12 months after
    the rejection" vs "6 months after the rejection") is named by that number with the
    word it counts: ``#12`` and ``month``, both required."""
    for match in _NUMBER_UNIT.finditer(label):
        key = "#" + match.group(1)
        unit = match.group(2).lower()
        if key in chosen_numbers or unit in lexicon.STOPWORDS:
            continue
        unit_stem = lexicon.stem(unit)
        return TermSet(
            label=label,
            strong=frozenset([key]),
            weak=frozenset(),
            label_words=len(_raw_terms(label)),
            required=frozenset([key, unit_stem]),
        )
    return None


_SCOPE_ITEM = re.compile(r"\b(?:every|all|each)\s+", re.I)


def _scope_items(answer: str) -> list[frozenset[str]]:
    """The items a free-text answer applies to without exception: "on every page and
    every generated PDF" → {page}, {generat, pdf}. Up to two words, cut at the first
    stopword or punctuation ("every stock movement reaches" → {stock, movement})."""
    out = []
    for match in _SCOPE_ITEM.finditer(answer):
        words = []
        rest = re.split(r"[,.;:()]", answer[match.end() :], maxsplit=1)[0]
        for tok in lexicon.tokens(rest)[:2]:
            if tok.lower() in lexicon.STOPWORDS:
                break
            words.append(lexicon.stem(tok.lower()))
        if words and not (len(words) == 1 and len(words[0]) < 4):
            out.append(frozenset(words))
    return out


#: A number standing alone ("6", "6-session", "5%"), not part of a name ("S/4HANA", "v2").
_LIMIT_NUMBER = re.compile(r"(?<![A-Za-z/])(\d+)(?![A-Za-z\d])")


def _limit_numbers(clause: str) -> frozenset[str]:
    """The numbers a clause states, without the zeros of times and thousands or the
    digits of a product's name."""
    return frozenset("#" + n for n in _LIMIT_NUMBER.findall(clause) if n.strip("0"))


def _affirmed_elsewhere(answer: str, start: int, end: int) -> set[str]:
    """Content stems of the answer outside the sentence or ``;`` clause holding
    ``start:end``: what the answer says affirmatively around a negated clause."""
    first = max(answer.rfind(".", 0, start), answer.rfind(";", 0, start))
    ends = [i for i in (answer.find(".", end), answer.find(";", end)) if i >= 0]
    last = min(ends) if ends else len(answer)
    return set(lexicon.content_stems(answer[: first + 1] + " " + answer[last:]))


def _forbidden_clauses(answer: str, shared: set[str]) -> list[Forbidden]:
    out = []
    context = set(lexicon.content_stems(answer))
    for match in _NEGATIVE_CLAUSE.finditer(answer):
        if _CONDITION_BEFORE.search(answer[: match.start()]):
            continue
        core = set(lexicon.content_stems(match.group("rest")))
        # the answer's other clauses: what it affirms ("under the vet's own login; no
        # shared logins")
        affirmed = _affirmed_elsewhere(answer, match.start(), match.end())
        rest = {w.lower() for w in lexicon.tokens(match.group("rest"))}
        before = re.split(r"[.;:,]", answer[: match.start()])[-1]
        subject: set[str] = set()
        if rest and rest <= _PERMISSION:  # "Overbooking is never allowed"
            core = set(lexicon.content_stems(before))
        elif _COPULA_END.search(before):  # "Storage locations are never shown on ..."
            subject = set(lexicon.content_stems(before))
        elif match.group("neg").lower() in ("not", "never") and re.search(
            r",\s*$", answer[: match.start()]
        ):
            # "Only reception staff set up a freeze, not the member" (or "…, never the
            # app or the member"): the member is ruled out *of that action*, so the text
            # must name the action too
            contrast = re.split(r"[.;:]", answer[: match.start()])[-1]
            subject = set(lexicon.content_stems(contrast)) - core
        if not core:
            continue
        out.append(
            Forbidden(
                core=frozenset(core),
                context=frozenset(context - core - subject),
                subject=frozenset(subject),
                affirmed=frozenset(core & affirmed),
                numbers=_limit_numbers(match.group("rest")),
            )
        )
    # the subject of "X and Y can never read them" sits before the negator
    subj_neg = (
        r"(?P<subj>[^.;:,]*?)\b(?:(?:can|could|must|will|may)\s+(?P<never>never)|cannot|can't"
        r"|can not|must not|mustn't|may not)(?=\s)"
    )
    for match in re.finditer(subj_neg, answer):
        subj = set(lexicon.content_stems(match.group("subj")))
        if subj:
            verb = re.match(r"\s*(\w+)", answer[match.end() :])
            action = {lexicon.stem(verb.group(1).lower())} if verb else set()
            core = subj | action
            # as above: what the rest of the answer affirms ("items can be booked …;
            # anyone with an overdue item cannot book") is said by a text restating it
            affirmed = _affirmed_elsewhere(answer, match.start(), match.end())
            out.append(
                Forbidden(
                    core=frozenset(core),
                    context=frozenset(context - core),
                    affirmed=frozenset(core & affirmed),
                    # "can never" keeps its older, looser reading
                    verb=frozenset() if match.group("never") else frozenset(action),
                )
            )
    return out


def project_name_stems(decisions: PgcClarifications, folder: str) -> frozenset[str]:
    """The project's own name as the decisions write it, from the project folder's name
    ("jabref" for the decisions "Replace the internal # in JabRef by …").

    A decision that names the project in an option ("Build it into Foo") does not make
    every text about Foo a choice of that option: the agent's replies and commits name
    the project all the time. Only a folder name the decisions write as a name (with a
    capital or in capitals, after the first word of a text) counts, so a folder called ``web`` or
    ``server`` never takes a word away."""
    key = re.sub(r"[^a-z0-9]", "", folder.lower())
    if len(key) < 4 or key in lexicon.STOPWORDS:
        return frozenset()
    texts = [e.text for e in decisions.pgc_clarifications]
    texts += [c.label for e in decisions.pgc_clarifications for c in e.choices]
    for text in texts:
        for pos, tok in enumerate(lexicon.tokens(text)):
            written = re.sub(r"[^a-z0-9]", "", tok.lower())
            if pos > 0 and written == key and tok != tok.lower():  # "JabRef", "SACRO"
                return frozenset({lexicon.stem(key)})
    return frozenset()


def build_vocab(
    decisions: PgcClarifications,
    aliases: Mapping[str, Sequence[str]] | None = None,
    names: frozenset[str] = frozenset(),
    project_words: Callable[[frozenset[str]], frozenset[str]] | None = None,
) -> list[ConstraintVocab]:
    """Vocabulary for every clarification, in file order. ``names``: stems of the
    project's own name (:func:`project_name_stems`), which name no option;
    ``project_words``: which of the stems asked about the project's own files name
    (:func:`~charter.decisions.drift.project_words.project_words`); such a word names a
    rejected option only with company. Asked once, about the rejected options' names
    only: a hook need not read the whole tree's vocabulary."""
    aliases = aliases or {}
    docs = [_doc_stems(e, aliases) for e in decisions.pgc_clarifications]
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc)
    shared = {t for t, n in df.items() if n >= 2}
    out: list[ConstraintVocab] = []
    for entry, doc in zip(decisions.pgc_clarifications, docs, strict=True):
        inv = invariant_for(entry, aliases) if entry.binding else None
        vocab = ConstraintVocab(entry=entry, invariant=inv)
        vocab.topic = {t: 1.0 / df[t] for t in sorted(doc)}  # sums in one order: no hash seed
        labels = " ".join(c.label for c in entry.choices)
        vocab.descriptor = f"{entry.text} {labels}".strip()
        if inv is not None:
            _fill_binding_terms(vocab, inv, aliases, shared, names)
        out.append(vocab)
    if project_words is not None:
        asked = frozenset(_bare(key) for v in out for t in v.rejected for key in t.strong)
        used = project_words(asked) if asked else frozenset()
        for v in out if used else ():
            question = set(lexicon.content_stems(v.entry.text))
            v.rejected = [_shared_with_project(t, used, question) for t in v.rejected]
    return out


def _shared_with_project(
    terms: TermSet, project_words: frozenset[str], question: set[str]
) -> TermSet:
    """A rejected option's names that the project's own files also use ("JSON" where the
    project keeps JSON files) stop deciding alone: they become words of the option that
    need company, as a place name does: another word of the option ("JSON files") or a
    word of the question ("messages serialized as JSON")."""
    moved = {key for key in terms.strong if _bare(key) in project_words}
    if not moved:
        return terms
    bare = frozenset(_bare(key) for key in moved)
    return dataclasses.replace(
        terms,
        strong=terms.strong - moved,
        weak=terms.weak | bare,
        places=terms.places | bare,
        company=frozenset(question - bare),
    )


def _bare(key: str) -> str:
    """The lower-case stem under a case-sensitive key (``^maven``, ``~json``, ``=US``):
    ``^``/``~`` keys already hold a stem (stemming twice cuts "databas" to "databa"); a
    ``=`` key holds the token as written."""
    if key.startswith("="):
        return lexicon.stem(key[1:].lower())
    return key.lstrip("^~")


def _fill_binding_terms(
    vocab: ConstraintVocab,
    inv: Invariant,
    aliases: Mapping[str, Sequence[str]],
    shared: set[str],
    own_names: frozenset[str] = frozenset(),
) -> None:
    entry = vocab.entry
    if inv.kind in ("choice",) or (inv.kind == "exclusion" and entry.choices and inv.rejected):
        chosen: set[str] = set()
        for label, cid in zip(inv.chosen, inv.chosen_ids, strict=False):
            chosen |= set(lexicon.content_stems(label)) | {lexicon.stem(p) for p in _id_terms(cid)}
            for alias in inv.aliases.get(cid, ()):
                chosen |= set(lexicon.content_stems(alias))
        question = set(lexicon.content_stems(entry.text))
        vocab.chosen = frozenset(chosen - question - own_names)
        rejected_stems: set[str] = set()
        chosen_numbers = lexicon.number_keys(" ".join(inv.chosen))
        vocab.numeric = _numeric_choice(inv.chosen, inv.rejected)
        for label, cid in zip(inv.rejected, inv.rejected_ids, strict=False):
            terms = _term_set(label, [cid], inv.aliases.get(cid, ()), chosen | own_names, shared)
            terms = dataclasses.replace(terms, option=True)
            rejected_stems |= set(lexicon.content_stems(label))
            if chosen_numbers and set(lexicon.content_stems(label)) <= chosen:
                terms = _numeric_option(label, chosen_numbers) or terms
            if not terms.empty():
                vocab.rejected.append(terms)
        for label, cid in zip(inv.chosen, inv.chosen_ids, strict=False):
            terms = _term_set(
                label,
                [cid],
                inv.aliases.get(cid, ()),
                rejected_stems | question | own_names,
                shared,
                lenient=True,
            )
            if not terms.empty():
                vocab.chosen_terms.append(terms)
        return
    if inv.kind == "exclusion":
        subject = inv.subject or entry.text
        vocab.excluded = _term_set(
            subject, [], inv.aliases.get(entry.id, ()), set(own_names), shared
        )
        names, place = _place_names(subject)
        moved = {key for key in vocab.excluded.strong if key.lstrip("^~") in names}
        if moved and vocab.excluded.weak:
            # "patching globals in Django views": "Django views" says where, not what, is
            # excluded; alone it would name every Django view
            vocab.excluded = dataclasses.replace(
                vocab.excluded,
                strong=vocab.excluded.strong - moved,
                weak=vocab.excluded.weak | {key.lstrip("^~") for key in moved},
                places=place,
            )
        elif place and not names:
            vocab.excluded = dataclasses.replace(vocab.excluded, places=place)
        # a multi-word excluded subject is matched by its distinctive words; none of them
        # is "strong" by capitalisation alone, so relax to one weak word when there are
        # at most three of them ("a hosted / SaaS version" → host | saas)
        if len(vocab.excluded.weak) <= 3 and vocab.excluded.weak:
            vocab.excluded = TermSet(
                label=subject,
                strong=vocab.excluded.strong | vocab.excluded.weak,
                weak=frozenset(),
                relaxed=True,
                label_words=vocab.excluded.label_words,
                places=vocab.excluded.places,
            )
        numbers = lexicon.number_keys(subject)
        if numbers and not vocab.excluded.empty():
            vocab.excluded = dataclasses.replace(vocab.excluded, required=numbers)
        return
    if inv.kind in ("requirement", "prohibition"):
        vocab.subject_terms = frozenset(lexicon.content_stems(inv.subject))
    if inv.kind in ("requirement", "statement"):
        _fill_modes(vocab, inv)
    if inv.kind == "requirement":
        source = f"{entry.text} {inv.answer_text}"
        deps: set[str] = set()
        if lexicon.network_requirement(source):
            deps |= {lexicon.stem(t) for t in lexicon.NETWORK_TERMS}
            vocab.offline = True
        for word in lexicon.forbidden_dependencies(source):
            deps.add(lexicon.stem(word.lower()))
            abbr = lexicon.acronym(word)
            if abbr:
                deps.add(abbr)
        vocab.dependency = frozenset(deps)
        if not deps:
            vocab.required = _term_set(inv.subject, [], (), set(), shared)
            # an aside in parentheses ("(137 steps, no lift)") is not how the requirement
            # is phrased
            phrased = re.sub(r"\([^()]*\)", " ", entry.text)
            vocab.required_negative = bool(lexicon.PRE_NEGATORS.search(phrased))
        return
    if inv.kind == "statement" and inv.answer_text:
        vocab.forbidden = _forbidden_clauses(inv.answer_text, shared)
        vocab.scope_items = _scope_items(inv.answer_text)
        vocab.limits = bounds(inv.answer_text)
        vocab.values = stated_values(inv.answer_text)


def _fill_modes(vocab: ConstraintVocab, inv: Invariant) -> None:
    """The modes (automatic, real-time, phone, accessible) a requirement or free-text
    answer fixes, so that text stating the opposite mode can be caught."""
    entry = vocab.entry
    source = entry.text if inv.kind == "requirement" else f"{entry.text} {inv.answer_text}"
    modes = tuple(name for name, fixed, _ in lexicon.MODES if fixed.search(source))
    if not modes:
        return
    mode_words = {
        lexicon.stem(m.group(0).lower())
        for _, fixed, _ in lexicon.MODES
        for m in fixed.finditer(source)
    }
    vocab.modes = modes
    subject = dict(vocab.topic)
    if inv.kind == "statement":  # a free-text answer's own words count half
        for t in lexicon.content_stems(inv.answer_text):
            subject.setdefault(t, 0.5)
    vocab.mode_subject = {
        t: w for t, w in subject.items() if t not in mode_words and not t.isdigit()
    }
    id_text = " ".join(_id_terms(entry.id))
    vocab.mode_about = any(
        fixed.search(id_text) for name, fixed, _ in lexicon.MODES if name in modes
    )
