"""Which code spans of a rule a negation forbids outright, read from the rule's words.

The guardrails act on two kinds of prohibition: commands ("never run `dune clean`") and
files ("never edit `dist/` directly, run the build"). Both are read the same way, and
only the plainest form counts, because a false reading denies a harmless call:

- a negation governs the span directly: a cue (never, not, avoid, forbidden, instead of
  …) followed by nothing but *bridge* words, the verbs of the act and their articles
  ("never run `X`", "do not edit files under `X`", "FORBIDDEN: `X`", "use `Y` instead of
  `X`"), or the span followed by "is forbidden" / "must not be used"; a span listed
  right after a forbidden one ("never `X`, `Y` or `Z`") goes with it; "instead of" after a
  negation names what to use ("never run `X` by hand instead of `Y`");
- the sentence sets no *condition* (when, unless, against production, …) that the
  guardrail cannot see; what follows a colon, a dash or ", since" is the reason and
  sets none, except an exception ("(except to build the library)"), which is one
  wherever it stands.

The word lists are plain English (negators, verbs, condition words), not tuned to any
rule file; each kind of prohibition names its own bridge and condition words. The same
grammar in German, Spanish, Portuguese, French and Chinese is data
(``charter/data/prohibition_words.json``: :data:`LANGUAGES`), merged into these readings:
"Niemals `git push --force` verwenden", "`X` ist verboten", "No ejecutes `X`", "Não use
`X`", "Ne lancez jamais `X`", "不要运行 `X`". A language's word order is read as it is
written: a German or French verb of the act may stand before the negation ("Führe
niemals `X` aus", "N'utilisez pas `X`"), and Spanish "no" counts only with the verb
after it ("no uses `X`"), since "no `X` needed" is English too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import MISSING, dataclass, fields
from typing import Any, Self, TypeVar, get_origin, get_type_hints

from charter.bundled import bundled_json
from charter.rules.model import Rule

T = TypeVar("T")


def _languages() -> dict[str, dict[str, list[str]]]:
    """The other languages' prohibition grammar; none (English only) if the data is
    missing, so a damaged install reads English rules as before."""
    data = bundled_json("prohibition_words.json") or {}
    languages = data.get("languages")
    return languages if isinstance(languages, dict) else {}


#: Per language (de, es, pt, fr, zh): cues before and after a span, the verbs of running
#: (``acts``) and editing, articles, an edit's objects, condition and exception words, and
#: who an instruction may name.
LANGUAGES = _languages()


def words_of(field: str) -> frozenset[str]:
    """One word field of every language, merged (``acts``, ``edit_verbs``, …)."""
    return frozenset(w for lang in LANGUAGES.values() for w in lang.get(field, []))


def _patterns(field: str) -> list[str]:
    return [p for lang in LANGUAGES.values() for p in lang.get(field, [])]


def _cjk(word: str) -> bool:
    """Written without spaces between words: matched as a substring, not as a word."""
    return any("\u3040" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" for c in word)


def _alternation(english: str, field: str) -> str:
    return "|".join([english, *_patterns(field)])


SPAN = re.compile(r"`([^`\n]+)`")
#: A command or path a rule forbids is short; longer spans are code, and a rule that
#: lists more than this many is a table of them, not one prohibition (bounded work and
#: state for any input).
MAX_SPAN_CHARS = 200
MAX_SPANS_PER_RULE = 32
#: A cue that makes what directly follows it forbidden.
_CUE_BEFORE = re.compile(
    "(?:"
    + _alternation(
        r"\bnever|\bnot|\bdon'?t|\bdo not|\bmust not|\bmustn'?t|\bshould not|\bshouldn'?t|"
        r"\bcannot|\bcan'?t|\bavoid|\bforbidden|\bprohibited|\bbanned|\binstead of|\brather than|"
        r"\bunder no circumstances?|\brefrain(?:s|ing)?\s+from|\bnot\s+(?:allowed|permitted)\s+to",
        "cues_before",
    )
    + r")\s*[:：]?\s*$",
    re.IGNORECASE,
)
#: Negations said with a preposition ("Under no circumstances run `X`", "refrain from
#: running `X`"): their "under" and "from" are no condition.
_NO_CIRCUMSTANCES = re.compile(
    r"\bunder\s+no\s+circumstances?\b|\brefrain(?:s|ing)?\s+from\b", re.IGNORECASE
)
#: Prepositions that make the span the instrument of the act before them: "never install
#: packages with `pip install`" forbids the command whatever the act's object.
_INSTRUMENT = frozenset({"with", "via", "using", "through"})
#: A negation that is also a word of English ("no"): it governs a span only with the
#: verb of the act between them ("no uses `X`"), never alone ("no `X` needed").
_WEAK_CUE = re.compile("(?:" + "|".join(_patterns("weak_cues") or ["(?!)"]) + r")\s*$", re.I)
#: The same said after the span: "`X` is forbidden", "`X` must never be used".
_CUE_AFTER = re.compile(
    # the way the act is done may come first: "Editing `X` by hand is forbidden"
    r"^\s*(?:(?:by\s+hand|manually|directly|locally|yourself)\s+)?(?:"
    + _alternation(
        r"(?:(?:is|are)\s+)?(?:forbidden|prohibited|banned|not allowed|disallowed|"
        r"not permitted|(?:must|should)\s+(?:never|not)\s+be\s+"
        r"(?:used|run|called|invoked|edited|modified|changed|touched))",
        "cues_after",
    )
    + r")(?!\w)",
    re.IGNORECASE,
)
_INSTEAD = re.compile(_alternation(r"instead of|rather than", "instead"), re.IGNORECASE)
#: A negation anywhere before a cue ("never run `X` instead of `Y`").
_NEGATED = re.compile(
    r"(?:\b(?:never|not|don'?t|avoid|cannot|can'?t|mustn'?t|shouldn'?t|forbidden|prohibited|"
    r"nie|niemals|nicht|kein\w*|verboten|nunca|jamás|prohibid[oa]|jamais|não|proibid[oa]|"
    r"pas|interdite?)\b|不要|不得|禁止|切勿|请勿|严禁|不能)",
    re.IGNORECASE,
)
#: Where a sentence turns from the prohibition to its reason: a colon, a dash, a
#: bracket, a conjunction of cause, or a comma before a clause with a subject of its own
#: ("…, there is no emulator on this machine", "…, it hangs on CI", "…, I release by
#: hand"), which says why, not when.
_EXPLANATION = re.compile(
    r"[:：]\s|\s[—–-]\s|[—–(（]|[,，]\s*(?:since|because|as|da|weil|porque|pois|car|puisque)\b|"
    r"[,，]\s*因为|"
    r"[,，]\s*(?:there\s+(?:is|are|was|were|isn't|aren't|wasn't|weren't)|there's|"
    r"(?:it|i|we|they|you)(?:['’](?:s|m|re|ll|ve|d))?\s+[a-z'’]+)\b"
)
#: A dash between two clauses of one sentence.
_DASH = re.compile(r"\s[—–-]\s|[—–]")
#: An exception is a condition wherever the sentence states it, in a reason or an aside
#: too: "do not use `X` (except to build the library)" allows some `X`.
_EXCEPTION = re.compile(
    r"\b(?:except|excepting|unless|other than|apart from|aside from|save for|"
    r"(?<!no )(?<!without )exceptions?"
    + "".join("|" + re.escape(w) for w in sorted(words_of("exceptions")) if not _cjk(w))
    + r")\b"
    + "".join("|" + re.escape(w) for w in sorted(words_of("exceptions")) if _cjk(w)),
    re.IGNORECASE,
)
#: What joins two spans of one list: "never `X`, `Y` or `Z`".
_LIST_JOIN = re.compile(r"\s*(?:,|;|/|、|(?i:or|and|, or|, and|oder|und|o|y|ou|e|et)|或|和)\s*")
#: A join, then a few words before the next span: "never edit `A` or files under `B`".
_JOINED_WORDS = re.compile(r"\s*,?\s*(?i:or|nor|and)\s+(?P<words>[^`]*?)\s*")
#: What follows an entry of a list of spans: a separator, the sentence's end, a dash before
#: what the entry is ("`docs/x.md` — generated from …"), or nothing.
_LIST_ENTRY_END = re.compile(
    r"\s*(?:[,;.)，、；。）]|\s[—–-]\s|[—–]|(?i:or|and|oder|und|ou|et)\b|或|和|$)"
)
#: "… locally.** All …" ends too; "e.g." and "i.e." do not
_SENTENCE_END = re.compile(r"(?<![ei]\.[gei])[.;!?][*_)\"']*(?=\s|$)|[。；！？]|\n")
#: Where the clause a cue sits in begins: punctuation, a list marker, a conjunction.
_CLAUSE_BREAK = re.compile(
    r"[.,;:!?()\[\]—–\n，。；：！？（）、]|\s-\s|^\s*(?:\d+\.|[-*+])\s|"
    # a sentence may open with one too: "And never edit `X`", "But do not run `Y`"
    r"\b(?i:and|but|or|und|oder|aber|pero|mas|mais|et|ou)\b"
)
#: Who an instruction may name before its negation ("you never …", "we do not …").
_ADDRESSEES = frozenset(
    {
        "you", "we", "please", "also", "so", "then", "just", "still", "simply", "must",
        # "You are not allowed to run `X`", "Claude is not permitted to …"
        "are", "is",
        "should", "shall", "will", "may", "can", "the", "agent", "agents", "assistant",
        "ai", "claude", "codex", "copilot", "gemini", "cursor",
    }
) | words_of("addressees")  # fmt: skip
#: After a span: it is the option to use, not the one forbidden ("`X` instead of `Y`").
_PREFERRED = re.compile(r"^\s*(?:" + _INSTEAD.pattern + r")(?!\w)", re.IGNORECASE)


#: A phrase after the act that names the agent itself as the one acting: no condition
#: the guardrail cannot see ("do not run `make e2e` automatically from agent actions").
_AGENT_ACTING = re.compile(
    r"\b(?:from|by|in|for|during|via|through)\s+(?:the\s+|an?\s+|your\s+|its\s+)?"
    r"(?:ai\s+)?(?:agents?|assistants?|ai|claude|codex|copilot|gemini|cursor)(?:'s)?"
    r"(?:\s+(?:actions?|sessions?|runs?|turns?|side|tool\s+calls?|tools?))?\b"
    r"|\bon\s+(?:your|its|their)\s+own\b",
    re.IGNORECASE,
)


#: The project itself as the place of the act ("do not use `npm` commands in this
#: repository", "**Do NOT use `prisma db push` in this project**"): the place the
#: guardrail guards, so no condition. A part of it ("in this project's `web/` folder",
#: "in the project root") is a place, and stays one.
_THIS_PROJECT = re.compile(
    r"\b(?:in|within|inside|across|throughout|for)\s+(?:this|our)\s+"
    r"(?:project|repo|repository|codebase|code\s+base|monorepo|workspace)\b"
    r"(?!['’]|\s+(?:root|folders?|dir(?:ector(?:y|ies))?|subfolders?|packages?|modules?)\b)",
    re.IGNORECASE,
)


#: A label that forbids, or asks first, then a list of acts: "**Never:** run the dev
#: server; use npm; commit without being asked", "⚠️ **Ask first:** adding a dependency;
#: …" (the "Boundaries" of many `AGENTS.md` files: Always / Ask first / Never).
_ACTS_LABEL = re.compile(
    r"^[^\w`]*(?:(?P<never>never|don'?t|do\s+not|forbidden|prohibited)|"
    r"(?P<ask>ask\s+first|ask\s+before|requires?\s+approval|needs?\s+approval))"
    r"[*_]*\s*[:：]\s*(?P<rest>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)


_LEADING_CONDITION = re.compile(
    r"(?:in|on|when|whenever|while|during|for|unless|without|against|before|after|if|"
    r"outside|inside|within|from)\b",
    re.IGNORECASE,
)


def _entries(text: str) -> list[str]:
    """``text`` split at its commas and semicolons outside brackets and code spans, a
    last "or" / "and" dropped: the acts a label's list names."""
    out, depth, code, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == "`":
            code = not code
        elif not code and ch in "([":
            depth += 1
        elif not code and ch in ")]":
            depth = max(0, depth - 1)
        elif not code and not depth and ch in ",;":
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    entries = [re.sub(r"^\s*(?:or|and)\s+", "", e).strip().rstrip(".") for e in out]
    return [e for e in entries if e]


def distributed(text: str) -> str:
    """``text`` with a label that forbids a list of acts said of each act: "Never: run
    the dev server; commit without being asked; push to `main`" reads as "Never run the
    dev server. Never commit without being asked. Never push to `main`.", and "Ask
    first: adding a dependency; commit, push" as "Ask before adding a dependency. Do not
    commit unless the user asks. …": only the first act stood after the label, and the
    others were read as words of no prohibition. ``text`` itself when no such label
    opens it, or its list has one entry."""
    m = _ACTS_LABEL.match(text)
    if m is None:
        return text
    entries = _entries(m.group("rest"))
    if len(entries) < 2 or _LEADING_CONDITION.match(entries[0]):
        return text  # "Never: in production, run `X`, …": the condition is every act's
    said = []
    for entry in entries:
        first = entry.split(maxsplit=1)[0].lower()
        if m.group("never"):
            said.append(f"Never {entry}.")
        elif first.endswith("ing"):
            said.append(f"Ask before {entry}.")
        else:
            said.append(f"Do not {entry} unless the user asks.")
    return " ".join(said)


@dataclass(frozen=True)
class Prohibition:
    """What a rule forbids, with the rule itself: the guardrail's denial cites it.

    Subclasses hold only ``str``, ``tuple[str, ...]`` and ``frozenset[str]`` fields, so one
    JSON round trip serves them all (the compiled state's ``rules.prohibited.json``)."""

    rule_id: str
    cite: str
    rule_text: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        hints = get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data and f.default is not MISSING:
                continue  # a field added since the file was written keeps its default
            kind = get_origin(hints[f.name])
            raw = data[f.name]
            if kind is tuple:
                values[f.name] = tuple(str(x) for x in raw)
            elif kind is frozenset:
                values[f.name] = frozenset(str(x) for x in raw)
            else:
                values[f.name] = str(raw)
        return cls(**values)


@dataclass(frozen=True)
class Reading:
    """How one kind of prohibition is read: the words that may stand between a cue and
    its span, the words that make a sentence conditional, and whether a purpose ("to
    make tests pass") after the spans makes it conditional too."""

    bridge: frozenset[str]
    conditions: frozenset[str]
    purpose_is_condition: bool = False
    #: bridge words of which one must stand between cue and span (a file is a thing:
    #: "avoid the `.x` argument" forbids no edit); empty: none needed (a command is an act)
    verbs: frozenset[str] = frozenset()
    #: verbs of the act that may lead a clause before its negation (German, French) or
    #: must follow a negation that is also an English word (Spanish "no")
    acts: frozenset[str] = frozenset()


def negated(text: str) -> bool:
    """Whether ``text`` holds a negation word ("never", "don't", "avoid" …): a sentence
    that asks for an edit with one in it is no request to edit."""
    return bool(_NEGATED.search(text))


def clause_start(text: str) -> int:
    """Where the clause ending ``text`` begins (after punctuation, a list marker or a
    conjunction)."""
    start = 0
    for m in _CLAUSE_BREAK.finditer(text):
        start = m.end()
    return start


#: What follows a ``;`` that joins two entries of a list of spans: the next span alone, then
#: the next ``;`` or the sentence's end (in masked text, where a span is ```xxx```).
_BARE_ENTRY = re.compile(r"[*_]*\s*`x+`[*_]*\s*(?:[;.!?]|$)")


def clauses(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` with code spans masked (a ``.`` inside a span or a
    version number does not end a sentence). A ``;`` between two spans with nothing else
    in the entry after it joins a list, as a comma does: a lead-in's items are read as one
    rule, "Never edit: `src/gen/`; `api/schema.json`", and every entry is what the lead-in
    forbids (only the first was held); "Never use `npm`; `pnpm` is the package manager"
    still ends at the ``;``."""
    return list(_clauses(text))


#: Memoised: reading a compile's prohibitions asks for each rule's clauses ~20 times
#: (commands, edits, consent, git readings), a quarter of that reading's time.
@functools.lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[tuple[int, int], ...]:
    masked = SPAN.sub(lambda m: "`" + "x" * (len(m.group(0)) - 2) + "`", text)
    out, start = [], 0
    for m in _SENTENCE_END.finditer(masked):
        if (
            m.group(0).startswith(";")
            and masked[: m.start()].rstrip("*_ ").endswith("`")
            and _BARE_ENTRY.match(masked, m.end())
        ):
            continue
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return tuple(out)


def _words(text: str) -> list[str]:
    """Lower-case words, letters of any script; a French elision ("n'utilisez") is the
    word it elides into."""
    return [w[2:] if w[1:2] == "'" and len(w) > 2 else w for w in _WORD.findall(text.lower())]


_WORD = re.compile(r"(?:[^\W\d_]|')+")


#: Words right before a colon that point at the entries after it ("these", "the
#: following commands", "any of these"): no kind of thing, no condition.
_POINTERS = frozenset(
    {"these", "those", "following", "commands", "command", "files", "of", "any", "the"}
)


#: Verbs of advising an act, said beside the act's own verb: "never run or suggest `X`",
#: "do not suggest or use `X`". Doing and advising are forbidden together, so the pair
#: forbids the act as its verb alone would; alone ("do not recommend `X`") it forbids
#: only the advice, which no tool call is.
_ADVISE = r"(?:suggest|recommend|propose|advise)(?:ing)?"
_ADVICE_BEFORE = re.compile(rf"\b{_ADVISE}\s+(?:or|nor)\s+(?=(\w+))", re.IGNORECASE)
_ADVICE_AFTER = re.compile(rf"\b(\w+)\s+(?:or|nor)\s+{_ADVISE}\b", re.IGNORECASE)


def _without_advice(text: str, reading: Reading) -> str:
    """``text`` with an advising verb paired with a verb of the act left out: "never run
    or suggest" reads as "never run", "do not suggest or run:" as "do not run:"."""
    acts = reading.bridge | reading.verbs | reading.acts

    def before(m: re.Match[str]) -> str:
        return "" if m.group(1).lower() in acts else m.group(0)

    def after(m: re.Match[str]) -> str:
        return m.group(1) if m.group(1).lower() in acts else m.group(0)

    return _ADVICE_AFTER.sub(after, _ADVICE_BEFORE.sub(before, text))


#: A verb right after a span: the span is the subject of a sentence of its own.
_OWN_VERB = re.compile(
    r"\s+(?:is|are|was|were|gets?|got|will|must|should|can|has|have|holds?|lives?)\b", re.I
)


def _governed(before: str, reading: Reading, after: str | None = None, span: str = "") -> bool:
    """Whether a negation cue governs what follows ``before`` (bridge words between).
    A colon right before the span introduces what the cue governs ("Do not edit:" over
    a list of paths, shown as "Do not edit: `*.pb.go`"), as the words would without it.
    A thing's name that repeats the folder ``span`` names, before a preposition of place,
    is crossed like "files" ("do not touch the migrations in `core/migrations/`"). A verb
    of advice paired with the act's ("never run or suggest `X`") is the act's verb."""
    text = _without_advice(re.sub(r"[*_~]+", " ", before), reading).rstrip()
    colon = re.search(r"(?<=[A-Za-z])\s*[:：]$", text) is not None
    text = re.sub(r"(?<=[A-Za-z])\s*[:：]$", "", text)
    if colon and after is not None and _OWN_VERB.match(after):
        return False  # "Never edit files: `dist/` is built by CI.": a sentence of its own
    crossed: set[str] = set()
    # before a colon, a few words of the act's object may name the kind of thing the
    # spans after it are ("Never edit generated files: `gen/**`, `*.pb.go`"), where a
    # verb must be crossed (a file is a thing) and no condition word stands; the span
    # must be an entry of that list, not the subject of a sentence of its own ("Never
    # edit generated files: `dist/` is built by CI.")
    listed = after is not None and _LIST_ENTRY_END.match(after) is not None
    named = 3 if colon and reading.verbs and listed else 0
    # the instrument of a negated act: "never install packages with `pip install`", the
    # act and its object in two words (commands: the reading without verbs of its own;
    # "don't worry about formatting with `black`" says more and forbids nothing)
    last = _LAST_WORD.search(text)
    if (
        not named
        and not colon
        and not reading.verbs
        and last
        and last.group(1).lower() in _INSTRUMENT
        and not span.lstrip().startswith("-")  # an option: "run tests with `--x`"
    ):
        named = 2
    # "Never run these:" or "Do not use the following commands:" over the entries: the
    # words before the colon point at what follows it, as the verb alone would
    pointing = colon and listed
    previous = ""  # the word crossed last (it follows ``word`` in the text)
    folder = _folder_name(span) if reading.verbs else ""
    while True:
        m = _LAST_WORD.search(text)
        if m is None:
            break
        word = _words(m.group(1))[0] if _words(m.group(1)) else m.group(1).lower()
        if pointing and word in _POINTERS:
            crossed.add(word)
            text = text[: m.start()].rstrip(" -")
            continue
        pointing = False  # only at the colon: "never run these tests: `x`" names a kind
        if word == "ever":  # "do not ever run `X`", "never, ever run `X`"
            text = text[: m.start()].rstrip(" -,")
            continue
        if word not in reading.bridge:
            if folder and previous in _PLACES and _same_name(word, folder):
                folder = ""  # once: "the migrations in `x/migrations/`"
            elif (
                not named
                or crossed & reading.verbs
                or word in reading.conditions
                or _CUE_BEFORE.search(text)
            ):
                break
            else:
                named -= 1
        previous = word
        crossed.add(word)
        text = text[: m.start()].rstrip(" -")
    cue = _CUE_BEFORE.search(text)
    if cue is None:
        cue = _WEAK_CUE.search(text) if crossed & reading.acts else None
    if cue is None:
        return False
    if _INSTEAD.match(cue.group(0).strip()):
        return not _NEGATED.search(text[: cue.start()]) and _acted(crossed, "", reading)
    # an instruction, not a description: nothing but "you", "we", "please" … stands
    # between the cue and the start of its clause ("normal users never edit `X`" and
    # "bug-fix PRs must not modify `X`" describe someone else); in German and French the
    # verb of the act may come first ("Führe niemals `X` aus", "N'utilisez pas `X`")
    lead = set(_words(_CLAUSE_BREAK.split(text[: cue.start()])[-1]))
    if not lead <= _ADDRESSEES | reading.acts:
        return False
    return _acted(crossed | lead, cue.group(0), reading) or _elided(
        text[: cue.start()], crossed, reading
    )


def _folder_name(span: str) -> str:
    """The last name of the folder a path span names (``core/migrations/`` or
    ``core/migrations`` gives ``migrations``; a file, a glob or a command gives "")."""
    span = span.strip()
    if not re.fullmatch(r"[\w./@-]+", span) or "/" not in span:
        return ""
    name = span.rstrip("/").rsplit("/", 1)[-1]
    return "" if "." in name else name.lower()


def _same_name(word: str, folder: str) -> bool:
    """Whether ``word`` is the folder's name, singular or plural ("template" of
    ``templates/``, "fixtures" of ``fixture/``)."""
    return word in (folder, folder + "s", folder + "es") or folder in (word + "s", word + "es")


#: Prepositions of place that may alone follow a negation whose verb the clause before
#: it said: "ONLY edit vignettes in `vignettes/`, NEVER in `doc/`".
_PLACES = frozenset({"in", "under", "inside", "within"})
#: ... where that clause ends on a place of its own, the one contrasted.
_CONTRASTED_PLACE = re.compile(r"\b(?:in|under|inside|within)\s+`[^`\n]+`\s*[,;]?\s*$", re.I)
#: Verbs of the act that make new content rather than change what is there ("write
#: tests in `tests/`, never in `src/`" puts tests elsewhere; it forbids no edit of
#: `src/`).
_NEW_CONTENT = frozenset({"write", "writing", "add", "adding", "create", "creating", "put"})


def _elided(before: str, crossed: set[str], reading: Reading) -> bool:
    """A negation with only a place after it contrasts that place with the one the
    clause before it names, and takes that clause's verb ("Only edit X in `A`, never in
    `B`": never edit X in `B`); it needs that verb, a verb of the act."""
    if not reading.verbs or not crossed or not crossed <= _PLACES:
        return False
    if not _CONTRASTED_PLACE.search(before):
        return False
    return bool(set(_words(SPAN.sub(" ", before))) & (reading.verbs - _NEW_CONTENT))


#: The last word of a text: letters of any script (a run of Chinese is one), apostrophes.
_LAST_WORD = re.compile(r"((?:[^\W\d_]|')+)\s*$")


def _acted(seen: set[str], cue: str, reading: Reading) -> bool:
    """Whether a verb of the act stands where a reading needs one (a file is a thing:
    "avoid the `.x` argument" forbids no edit): a word crossed or leading the clause, or
    inside the cue where a language writes the verb into it ("不要修改")."""
    if not reading.verbs:
        return True
    return bool(seen & reading.verbs) or any(_cjk(v) and v in cue for v in reading.verbs)


def _turn(clause: str, spans: list[re.Match[str]]) -> re.Match[str] | None:
    """A dash after a span that turns the sentence to what to do instead, negating
    nothing after it: "**Never use `pip install` or `uv pip`** — use `uv` for all
    dependency management". Its words (and its spans) say what to do instead, so they
    set no condition on the prohibition before it."""
    for m in _DASH.finditer(clause, spans[0].end()):
        if not _NEGATED.search(SPAN.sub(" ", clause[m.end() :])):
            return m
    return None


#: A "to" that completes a verb of trying or causing ("or otherwise try to make the
#: install pass", "or otherwise force a failure to disappear": the verb, a few words of
#: its object, then the "to"), naming what that act does: no purpose of the forbidden one.
_COMPLEMENT = re.compile(
    r"\b(?:try|tries|trying|attempt|attempts|attempting|force|forces|forcing|cause|causes|"
    r"causing|trick|tricks|tricking|coax|coaxing)(?:\s+[\w'-]+){0,3}?\s+to\b",
    re.IGNORECASE,
)


def _open_clauses(text: str, reading: Reading) -> Iterator[tuple[str, list[re.Match[str]]]]:
    """Each clause of ``text`` with code spans that sets no condition, and its spans."""
    for start, end in clauses(text):
        clause = text[start:end]
        spans = list(SPAN.finditer(clause))
        if not spans:
            continue
        # an explanation after the spans (": it sweeps in …", "— always revert for …")
        # says why, not when: its words set no condition
        why = _EXPLANATION.search(clause, spans[-1].end()) or _turn(clause, spans)
        window = clause[: why.start()] if why else clause
        # "en lugar de" names what to use, setting no condition with its "en"
        # "from agent actions", "by the assistant", "on your own": the one acting is
        # the agent the rule is written for, whose every call the guardrail sees
        # "in this project", "in this repository": where every call the guardrail sees is
        plain = _THIS_PROJECT.sub(" ", SPAN.sub(" ", window))
        plain = _NO_CIRCUMSTANCES.sub(" ", _AGENT_ACTING.sub(" ", plain))
        if reading.conditions & set(_words(_INSTEAD.sub(" ", plain))):
            continue
        if _EXCEPTION.search(SPAN.sub(" ", clause)):
            continue
        if reading.purpose_is_condition and "to" in _words(
            _COMPLEMENT.sub(" ", window[spans[-1].end() :])
        ):
            continue
        yield clause, spans


#: Acts that are not editing: "Running `scripts/deploy.sh` is forbidden" forbids running
#: the script, not editing it.
_RUNNING_ACTS = frozenset(
    {"run", "running", "execute", "executing", "call", "calling", "invoke", "invoking",
     "use", "using", "source", "sourcing", "import", "importing"}
)  # fmt: skip


def _other_act(before: str, reading: Reading) -> bool:
    """Whether the words right before a span name an act the reading does not forbid
    (for the edit reading, running or using the path)."""
    if not reading.verbs:
        return False
    words = _words(SPAN.sub(" ", before[-40:]))
    return bool(words) and words[-1] in _RUNNING_ACTS


#: A symbol that marks a list entry, right before its span ("❌ `dist/`", "🚫 `npm`"): no
#: word of the sentence, so it neither stops a negation nor breaks a list.
_ENTRY_MARK = re.compile(r"[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]\ufe0f?\s*(?=`)")


def _object_entry(between: str, reading: Reading) -> bool:
    """Whether ``between`` joins the next span to a list as what the act is done to,
    said with its kind or place: "never edit `A` or files under `B`", "`A`, `B` or
    anything under `C`", "`A` or content in `B`". The words may only be the act's objects
    and places, never a verb of its own (another act: "never edit `A` or run `B`"), and
    the reading must have verbs (a file is a thing: a command is read without)."""
    if not reading.verbs:
        return False
    m = _JOINED_WORDS.fullmatch(between)
    if m is None:
        return False
    words = _words(m.group("words"))
    return bool(words) and set(words) <= reading.bridge - reading.verbs - reading.acts


def forbidden_spans(text: str, reading: Reading) -> list[str]:
    """The code spans of ``text`` a negation forbids outright, in order."""
    text = _ENTRY_MARK.sub("", text)
    found: list[str] = []
    for clause, spans in _open_clauses(text, reading):
        previous_forbidden, previous_end = False, 0
        for m in spans:
            between = clause[previous_end : m.start()]
            listed = previous_forbidden and (
                _LIST_JOIN.fullmatch(between) or _object_entry(between, reading)
            )
            forbidden = not _PREFERRED.match(clause[m.end() :]) and bool(
                listed
                or _governed(clause[: m.start()][-80:], reading, clause[m.end() :], m.group(1))
                or (
                    _CUE_AFTER.match(clause[m.end() :]) is not None
                    and not _other_act(clause[: m.start()], reading)
                )
            )
            previous_forbidden, previous_end = forbidden, m.end()
            if forbidden and len(m.group(1)) <= MAX_SPAN_CHARS:
                found.append(m.group(1).strip())
                if len(found) >= MAX_SPANS_PER_RULE:
                    return found
    return found


#: "never commit with `--no-verify`": an act, then the option it must not take.
_ACT_WITH = re.compile(r"\b([a-z]+)\s+with\s*$")


#: An option named in brackets after what it does, alone or as an example: "(`--no-verify`",
#: "(e.g. `--amend`, ", "(such as `-f` or ".
_OPTION_ASIDE = re.compile(
    r"\(\s*(?:(?:e\.g\.|i\.e\.|such as|like|for example)[,:]?\s*)?"
    r"(?:`-[^`]*`\s*(?:,|or|/)\s*)*$",
    re.IGNORECASE,
)
#: A prohibition that opens its clause, then what it forbids in a few plain words.
_OPENING_PROHIBITION = re.compile(
    r"^\W*(?:(?:you|we|please)\s+)?(?:never|do not|don't|must not|mustn't|should not|"
    r"shouldn't|avoid)\s+(?P<act>[A-Za-z][A-Za-z ,'-]*?)\s*$",
    re.IGNORECASE,
)
#: Words that point the act at a place or target the guardrail cannot see ("push to main").
_TARGETS = frozenset({"to", "into", "onto", "of", "than"})


def _option_aside(before: str, reading: Reading) -> str | None:
    """The act a prohibition opening the clause forbids, when the option span after
    ``before`` is the way to do it ("Never skip pre-commit hooks (`--no-verify`)",
    "**Never amend commits** (`--amend`)": "skip pre-commit hooks", "amend commits");
    None when it is not. The act must be a few plain words that set no condition and
    name no target, and no other code span may come before."""
    aside = _OPTION_ASIDE.search(before)
    if aside is None:
        return None
    head = re.sub(r"[*_~]+", " ", before[: aside.start()])
    if "`" in head:
        return None
    opening = _OPENING_PROHIBITION.match(head)
    if opening is None:
        return None
    act = _words(opening.group("act"))
    if 0 < len(act) <= 6 and not set(act) & (reading.conditions | _TARGETS):
        return str(opening.group("act")).strip()
    return None


def forbidden_options(text: str, reading: Reading) -> list[tuple[str, str, str]]:
    """(verb, options, act) where a negation forbids doing something with an option span:
    "never commit with `--no-verify`" gives ("commit", "--no-verify", ""); an option in
    brackets after the act it performs gives ("", options, the act): "Never force-push
    (`--force`)" gives ("", "--force", "force-push"), the act telling which command it
    is an option of."""
    found: list[tuple[str, str, str]] = []
    no_bridge = Reading(bridge=frozenset(), conditions=reading.conditions)
    for clause, spans in _open_clauses(text, reading):
        for m in spans:
            span = m.group(1).strip()
            if not span.startswith("-") or len(span) > MAX_SPAN_CHARS:
                continue
            before = re.sub(r"[*_~]+", " ", clause[: m.start()]).rstrip()
            act = _ACT_WITH.search(before)
            if act and _governed(before[: act.start()][-80:], no_bridge):
                found.append((act.group(1), span, ""))
            elif (aside := _option_aside(clause[: m.start()], reading)) is not None:
                found.append(("", span, aside))
            if len(found) >= MAX_SPANS_PER_RULE:
                return found
    return found


def collect(
    rules: Iterable[Rule], read: Callable[[Rule], list[T]], key: Callable[[T], Hashable]
) -> list[T]:
    """What ``read`` finds in each rule, in rule order, once per rule and ``key``."""
    out: list[T] = []
    seen: set[tuple[str, Hashable]] = set()
    for rule in rules:
        for item in read(rule):
            if (rule.id, key(item)) not in seen:
                seen.add((rule.id, key(item)))
                out.append(item)
    return out
