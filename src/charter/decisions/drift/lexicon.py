"""Language-level knowledge of the lexical layer: tokens, stems and cue phrases.

Everything here is generic English / software vocabulary. Nothing names a product,
scenario or constraint: what a given project's constraints are about is derived from the
constraints themselves (:mod:`charter.decisions.drift.vocab`). The cue families map to
the seed's drift kinds:

- UNDECIDED — a resolved topic described as open (QA-PGC-003);
- QUESTION_CHOICE — a question offering alternatives (QA-PGC-004; whether a clause
  floats an alternative or asks for a choice is read by the learned stance model,
  :mod:`charter.decisions.drift.stance`, not by cue phrases);
- NEGATION — the option is named only to say it is not done (pass);
- HISTORY — the text recounts what was decided ("chose web over mobile") (pass);
- EXEMPT — a dependency that is optional, conditional or explicitly disabled (pass).
"""

from __future__ import annotations

import re
from functools import lru_cache

from charter.stopwords import ENGLISH

#: A word: letters and digits, or one letter with the ``#`` or ``++`` that makes it a
#: language's name ("C#", "F#", "C++"), which read as the bare letter named nothing.
_TOKEN = re.compile(
    r"[A-Za-z](?:#|\+\+)(?![A-Za-z_#+])|[A-Za-z][A-Za-z0-9]*|[0-9]+[A-Za-z][A-Za-z0-9]*"
)

#: Words that never name an option on their own: English function words (shared with
#: search), negations and modals (read by the cue patterns, not matched as options), and
#: generic product and requirement vocabulary ("app", "users", "feature", "required").
#: Generic language, not tuned on any scenario.
_NEVER_OPTION_WORDS = """
    able across allowed along also app application applications apps around available
    based data done either else ever every exclude excluded feature features first full
    fully get include included includes it's kind least less level make may might mode
    must need needed needs neither new no none nor not one onto option options others
    per require required requires scope scoped service services set shall since support
    supported system systems thing things two type types upon us use used user users
    using version versions via want wanted way whether whose within without yes
"""
STOPWORDS = ENGLISH | frozenset(_NEVER_OPTION_WORDS.split())

#: Generic software acronyms: upper case, but they do not name a product or option.
GENERIC_ACRONYMS = frozenset(
    [
        "api",
        "apis",
        "sdk",
        "ui",
        "ux",
        "url",
        "urls",
        "http",
        "https",
        "json",
        "csv",
        "tsv",
        "yaml",
        "yml",
        "toml",
        "xml",
        "html",
        "css",
        "id",
        "ids",
        "pdf",
        "sql",
        "db",
        "cli",
        "os",
        "io",
        "v1",
        "v2",
        "ci",
        "cd",
        "qa",
        "mvp",
        "faq",
        "pr",
        "prs",
        "etl",
        "crud",
        "rest",
    ]
)

#: Generic terms of the "works without a network" family, used when a bound requirement
#: forbids depending on the network (offline / no network access).
NETWORK_TERMS = frozenset(["network", "internet", "online", "connection", "connectivity", "cdn"])
_NET = r"(?:signal|network|connection|connectivity|coverage|wi-?fi|internet|reception)"
_NETWORK_REQUIREMENT = re.compile(
    r"\b(offline|without\s+(?:any\s+)?(?:network|internet|connectivity|connection)"
    r"|no\s+(?:network|internet|connectivity))\b"
    rf"|\b{_NET}\s+(?:drops?|is lost|goes down|is down|fails|is unavailable)\b"
    rf"|\blos(?:e|es|t|ing)\s+(?:the\s+)?{_NET}\b",
    re.I,
)
#: A condition of lost connectivity ("when there's no signal", "if the device loses the
#: network"), for requirements that must keep working offline.
NO_NETWORK = re.compile(
    r"\b(?:when|if|whenever|while|once)\b[^.;]{0,50}?"
    rf"(?:\bno\s+(?:\w+\s+)?{_NET}|\blos(?:e|es|t|ing)\s+(?:\w+\s+){{0,2}}?{_NET}"
    rf"|{_NET}\s+(?:drops?|is lost|goes down|is down|is unavailable|fails)|\boffline\b)"
    rf"|\bwithout\s+(?:a\s+|any\s+)?{_NET}\b",
    re.I,
)
#: Offline handled: the work is kept and goes on ("queued", "saved locally", "continues").
OFFLINE_HANDLED = re.compile(
    r"\b(?:queue[sd]?|cached?|locally|stored|saved|continues?|keeps? working|still works?"
    r"|syncs? (?:later|when|once|after))\b",
    re.I,
)
#: What the text then does instead of working: blocks, stops, asks to reconnect.
OFFLINE_FAILURE = re.compile(
    r"\b(?:blocked|blocks|block|stops?|stopped|halts?|halted|disabled|unavailable|greyed out"
    r"|can(?:no|')t|cannot|fails?|failed|errors?|refuses?|connect to|reconnect\w*"
    r"|requires?\s+(?:a\s+|an\s+)?(?:connection|network|signal)|(?:is|are) sent to"
    r"|(?:has|have) to wait|must wait|waits? for)\b",
    re.I,
)
#: "without X", "X disabled", "no X": the requirement forbids depending on X.
_FORBIDDEN_DEPENDENCY = re.compile(
    r"\bwith\s+(?P<a>[A-Za-z][\w.+#-]*)\s+(?:disabled|turned off|off)\b"
    r"|\bwithout\s+(?:any\s+)?(?P<b>[A-Za-z][\w.+#-]*)",
    re.I,
)

UNDECIDED = re.compile(
    r"\bundecided\b|\bTBD\b|\bto be (?:decided|determined|agreed)\b"
    r"|\b(?:decision|call|choice)\b[^.?!]{0,20}\bto be (?:taken|made|confirmed)\b"
    r"|(?:\bnot|n't|\bnever)\s+(?:\w+\s+){0,3}?(?:decided|agreed|finali[sz]ed|chosen|settled"
    r"|picked(?!\s+up))\b"
    r"|\bstill\s+(?:being\s+)?(?:worked out|hashed out|ironed out|thrashed out|under review)\b"
    r"|\b(?:whether|which(?:\s+\w+){0,2}?)\s+we(?:'ll| will)?\s+(?:end up|go|stick|settle)"
    r"\s+(?:with|on)\b"
    r"|\b(?:question|decision|choice|topic|call)\b[^.?!]{0,40}?(?:\bnot|n't|\bnever)\s+"
    r"(?:yet\s+)?(?:been\s+)?(?:closed|resolved|confirmed|made|taken|answered)\b"
    r"|\bstill\s+(?:need|needs|have|has)\s+to\s+(?:decide|figure out|choose|pick|settle|agree)"
    r"|\bstill\s+(?:open|undecided|unclear|under discussion|being (?:discussed|evaluated))"
    r"|\bstill\s+(?:evaluating|deciding|weighing|comparing)\b"
    r"|\buntil\s+(?:we|they|someone|(?:the|our)(?:\s+\w+){1,2}?)\s+(?:decides?|ha(?:ve|s) decided"
    r"|picks?|chooses?)\b"
    r"|\b(?:until|once)\s+(?:we|they|you)\s+(?:know|hear)\b(?=\s*[.,;!?]|\s*$"
    r"|\s+(?:which|whether|if|what)\b)"
    r"|\b(?:nobody|no one|no-one)\s+(?:has\s+)?(?:told|decided|confirmed|said)"
    r"|\bnot sure\s+(?:it|this|that|we)\s+(?:was|were|has|have)\s+(?:ever\s+)?"
    r"(?:been\s+)?decided"
    r"|\bopen question\b|\bdecision\s+(?:is\s+)?(?:still\s+)?pending\b"
    r"|\bpending\s+(?:a\s+)?decision"
    r"|\bup for (?:debate|discussion)\b"
    r"|\b(?:know|knows|told|sure|decided|decide|clear)\b[^.?!]{0,30}\bwhether\b[^.?!]{0,80}"
    r"\bor not\b"
    r"|\b(?:is|are)\s+in or out\b|\bwhich one we(?:'re| are) going with\b"
    r"|\bup in the air\b|\bleaning\s+towards?\b"
    r"|\bnot\s+(?:yet\s+)?(?:final|locked in|set in stone)\b"
    r"|\btentative(?:ly)?\b|\b(?:decide|choose|pick)\s+(?:that\s+)?later\b"
    r"|\brevisit\s+(?:the|this|that)\s+(?:decision|choice)\b"
    r"|\bwait(?:ing)?\s+(?:for|on)\s+(?:a|the)\s+decision\b"
    r"|\bstill\s+(?:debating|discussing|figuring out)\b|\bhaven't made up\b"
    r"|\byet to be (?:decided|confirmed|agreed|chosen)\b|\bremains? (?:open|to be seen)\b"
    r"|\b(?:nobody|no one)\s+(?:seems|is|was)\s+sure\b|\bnot sure (?:yet\s+)?(?:if|whether)\b"
    r"|\bunclear (?:if|whether)\b|\bstill (?:a|the) requirement\?"
    r"|\bdo we (?:really|still|even) (?:need|want)\b"
    r"|\buntil\b[^.;]{0,40}\b(?:is|are|has been|have been|gets?)\s+(?:locked in|decided|chosen"
    r"|picked|finali[sz]ed|agreed)\b",
    re.I,
)

#: "PostgreSQL or MongoDB for the reports?": a question offering alternatives.
QUESTION_CHOICE = re.compile(r"\bor\b[^.?!\n]*\?\s*$", re.I)

#: Words that put an option mention in the past of the decision. Not "chosen", "archived"
#: or "at the start": in product text they mostly describe the present ("the chosen
#: provider", "archived records", "at the start of each shift"); dropping them gained on
#: every labelled set and cost none (docs/benchmarks.md, Drift, stop 30).
HISTORY = re.compile(
    r"\b(?:chose|picked|selected|preferred|decided\s+(?:on|against|to)|opted|went with"
    r"|ruled out|was discussed"
    r"|were discussed|came up|during (?:planning|discovery)|for the record"
    r"|(?:was|were) rejected|settled on|standardi[sz]ed"
    r"|(?:origin|initi|historic)ally|(?:previous|former)ly|used to|in the past|legacy"
    r"|before (?:the|we|our) \w+ (?:launched|existed|went live)"
    r"|(?:I|we|they)\s+(?:also\s+)?considered"
    r"|weighed|compared|evaluated|trialled|trialed|piloted)\b",
    re.I,
)

#: Generic words of undecided phrasing: they never say which decision is meant ("work"
#: of "still being worked out" is not the topic "keep working offline").
_CUE_WORDS = (
    "work worked working figure figured iron hash thrash settle settled decide decided"
    " decision pending evaluate evaluating discuss discussed discussing debate debating"
    " review final finalised finalized agree agreed confirm confirmed air lean leaning"
    " wait waiting end stick go going tentative tentatively revisit open question"
)


def cue_stems() -> frozenset[str]:
    return _CUE_STEMS


#: A reported question or request: what follows is someone else's ask, not a proposal
#: ("asked whether X", "wanted to know if X", "your question was whether X"; a present
#: "the question is whether" is the writer's own open point and stays unreported).
REPORTED = re.compile(
    r"\b(?:asked|asks|asking|wondered|wonders|wondering|wanted\s+to\s+know"
    r"|wants\s+to\s+know|question\s+was)\s+(?:\w+\s+){0,4}?"
    r"(?:whether|if|why|about|where|how|when|what|which)\b"
    # a request someone made ("asked again for X", "writes asking for X"); not the
    # present "asks for", which is mostly what a form or an app does
    r"|\b(?:asked|asking)\s+(?:again\s+)?for\b",
    re.I,
)
#: Where a reported ask ends inside its sentence: a new clause of the writer's own
#: ("asked for a discount, so it might be worth offering X").
REPORTED_END = re.compile(r"[;—–]|\s-\s|,\s+(?:so|and|but|then)\b", re.I)

#: Words that negate what follows them in the clause.
PRE_NEGATORS = re.compile(
    r"\b(?:not|no|never|without|none|neither|nor|cannot|instead of|rather than|won't|can't"
    r"|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|shouldn't|mustn't|nothing"
    r"|refuses?|refused|rejects?|rejected|prevents?|forbids?|forbidden|disallows?|denies"
    r"|avoids?|blocks?|stops?|unlike|versus|vs|dropping|drops?|got rid of|away from|excluded"
    r"|nobody|no one|no-one)\b"
    r"|\b\w+n't\b",
    re.I,
)
#: "replaced X with Y", "swapped X for Y", "migrated (the job store) from X to Y": X is
#: the old thing.
DIRECTIONAL = re.compile(
    r"\b(?:replac(?:e|es|ed|ing)|swap(?:s|ped|ping)?"
    r"|(?:migrat|mov|switch|port)\w*\s+(?:\w+\s+){0,3}?from)\b",
    re.I,
)
DIRECTION_BREAK = re.compile(r"\b(?:with|to|by|into|onto|for)\b", re.I)
#: What puts an option in the place of the one named right after it: "polling instead of
#: BroadcastChannel", "cash rather than prepaying", "a wallet pass in place of a fob"
#: (up to three words between the cue and the option).
REPLACED_BY = re.compile(
    r"\b(?:instead of|rather than|in place of|in lieu of)\s+(?:\S+\s+){0,3}$", re.I
)
#: ...and the verbs whose object is the old one: "replaced X with Y", "migrated from X to
#: Y", "moved the tracker off X and onto Y", "swapped X for Y" (the object runs up to
#: ``DIRECTION_BREAK``).
REPLACING = re.compile(
    r"\b(?:replac(?:e|es|ed|ing)|swap(?:ped|ping)"
    r"|(?:migrat|mov|switch|port)\w*\s+(?:\w+\s+){0,3}?(?:from|off|away\s+from))\b",
    re.I,
)
#: "removed the X hack", "deleted the X call", "took X out": what follows is taken away,
#: up to a break that opens another predicate or names what came in ("removed the shim
#: and added X", "removed X, then …"); "dropped in X" adds X.
REMOVAL = re.compile(
    r"\b(?:remov(?:e|es|ed|ing)|delet(?:e|es|ed|ing)|dropped(?!\s+in)|eliminat(?:e|es|ed|ing)"
    r"|(?:strip|rip)(?:s|ped|ping)?\s+out|(?:take|takes|took|taken|taking)\s+out"
    r"|(?:leave|leaves|left|leaving)\s+out)\b",
    re.I,
)
REMOVAL_BREAK = re.compile(
    r"\b(?:and|then|but|so|instead|with|add(?:s|ed|ing)?|introduc\w*|replac\w*|in favou?r)\b"
    r"|[,;:]",
    re.I,
)

#: A clause that opens with a condition states a hypothetical, not what the text does
#: ("If a customer asks to keep their card on file, the form still refuses").
CONDITIONAL = re.compile(
    r"^\W*(?:and\s+|but\s+|so\s+)?(?:if|unless|in case|even if|suppose|supposing|assuming"
    r"|provided that|whether or not)\b",
    re.I,
)

#: A past participle, loosely (regular -ed and the common irregular endings): enough to
#: tell "had gone", "had chosen", "would have meant" from "had to", "had a" ("built",
#: "held", "put", "stuck" too).
_PAST_PARTICIPLE = (
    r"\w+(?:ed|en|ne|wn|ght|ook|ade|ad|id|nt|ung|ew|orn|ept|elt|eft|ost|ot|it|un"
    r"|lt|ld|ut|uck)"
)
#: A simple past in a condition: a regular -ed form or one of the commonest irregular
#: pasts ("if we took card payments", "if the fee were invoiced"). Generic English.
_SIMPLE_PAST = (
    r"(?:were|was|took|had|did|went|made|paid|kept|sold|ran|gave|chose|built|brought"
    r"|bought|held|got|\w{2,}(?<!e)ed)"
)
#: What may stand before a clause's condition: a label ("Design note: if …") or a
#: linking word.
_LEAD = r"^\W*(?:[^:.;?!]{1,60}:\s*)?(?:(?:and|but|so)\s+)?"
#: The unreal, which describes what did not or does not happen: an inverted condition
#: ("Had we gone with X"), a past-perfect condition ("If we had chosen X"), a
#: would-have consequence ("… would have meant rescanning"), or a condition in the past
#: tense with a would-consequence ("If we took card payments, we'd need a provider"; a
#: real condition keeps the present: "if the sync fails, we would …" is not one).
#: Generic English grammar.
COUNTERFACTUAL = re.compile(
    _LEAD + r"(?:had\s+(?:we|they|you|i|he|she|it"
    r"|(?:the|our|their|this|that)\s+\w+)\s+(?:not\s+|never\s+)?"
    + _PAST_PARTICIPLE
    + r"\b|if\s+[^,.;:]{0,60}?\bhad\s+(?:not\s+|never\s+)?(?:\w+ly\s+)?"
    + _PAST_PARTICIPLE
    + r"\b|if\s+[^,.;:]{0,60}?\b"
    + _SIMPLE_PAST
    + r"\b[^.;:?!]{0,120}?\b(?:would|could|might|(?:we|they|you|i|he|she|it)'d)\b)"
    + r"|\b(?:would|could|might|should)(?:n't|\s+not)?\s+have\s+"
    + _PAST_PARTICIPLE
    + r"\b|\b(?:we|they|you|i|he|she|it)'d\s+have\s+"
    + _PAST_PARTICIPLE
    + r"\b",
    re.I,
)

#: A clause that is only a negative verdict on the clause before it ("Search the dump for
#: any column holding a name: there must be none").
NEGATIVE_VERDICT = re.compile(
    r"^\W*(?:there\s+(?:must|should|can|may|will)\s+(?:still\s+)?be\s+(?:none|no\b)"
    r"|(?:none|nothing|zero)\b)",
    re.I,
)
#: The consequence of a condition refuses it ("if a user asks for X, the form refuses").
REFUSAL = re.compile(r"\b(?:refuses?|rejects?|declines?|blocks?|denies)\b", re.I)

#: Phrases that negate what precedes them in the clause ("X is out of scope").
POST_NEGATORS = re.compile(
    r"\b(?:out[- ]of[- ]scope|not[- ]in[- ]scope|not supported"
    r"|not (?:be\s+)?(?:built|offered|included|provided|added|planned)"
    r"|(?:is|are|was|were)\s+not|ruled out|excluded|won't be"
    r"|can't be|cannot be|isn't|aren't|never|is archived|are archived|won't|skipped|ignored"
    r"|rejected|refused|unsupported|dropped|removed|blocked|no\s+(?:way|option|means|ability)"
    r"|off the table|(?:is|are|was|were) cut|not part of|no plans"
    r"|(?:is|are|was|were|got|been) replaced|forbidden|prohibited|disallowed|banned"
    r"|not (?:allowed|permitted)|went back|sent back|given back|decommissioned"
    r"|retired|phased out|(?:is|are|was|were) gone|bypassed"
    r"|(?:stay|stays|stayed|remain|remains|remained|kept|keep|keeps|left) out"
    # what a user is told to move off: "X must be changed to Y", "X needs to be migrated to Y"
    r"|(?:must|should|needs?\s+to|ha(?:s|ve)\s+to)\s+be\s+(?:changed|migrated|converted"
    r"|updated|upgraded|moved|switched|ported|rewritten)\s+(?:over\s+)?to"
    # a negated verb whose object points back at what precedes: "X ... we don't quote them"
    r"|(?:\w+n't|not|never)\s+\w+\s+(?:it|them|those|these|any of them|either|both))\b",
    re.I,
)
#: "kept X out (of the models)", "left X out": the verb before the match, ``out`` right
#: after it; the POST_NEGATORS "X stays out" has both after it.
KEPT_OUT_BEFORE = re.compile(
    r"\b(?:keep|keeps|kept|keeping|leave|leaves|left|leaving)\s+(?:(?:the|all|any|those|these|our|its|their)\s+)?$",
    re.I,
)
KEPT_OUT_AFTER = re.compile(r"^\s+(?:\w+\s+)?out\b", re.I)
#: Words that turn a required "yes" into something less: dropped, deferred, optional.
WEAKENERS = re.compile(
    r"\b(?:skip(?:s|ped|ping)?|defer(?:s|red)?|postpone[sd]?|nice[- ]to[- ]have|optional"
    r"|not (?:required|needed|necessary|a must)|disabled|turned off|switched off"
    r"|(?:left|leave) out|out of scope|later phase|phase 2|v2)\b",
    re.I,
)

#: Modes a requirement can fix, each with the language of its opposite. A bound "issued
#: automatically" is contradicted by "uploaded by hand"; "within 60 seconds" by a job "at
#: 02:00"; "on a phone" by "desktop-only"; an accessibility level by "mouse-only".
#: (name, the requirement names the mode, the text states the opposite)
MODES: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "automatic",
        re.compile(r"\bautomatic(?:ally)?\b|\bauto-\w+", re.I),
        re.compile(
            r"\bmanual(?:ly)?\b|\bby hand\b|\b(?:on|upon) request\b"
            r"|\b(?:only|just)\b[^.;]{0,30}\bif\b[^.;]{0,50}\brequests?\b",
            re.I,
        ),
    ),
    (
        "realtime",
        re.compile(
            r"\breal[- ]?time\b|\binstant(?:ly)?\b|\bimmediately\b"
            r"|\bwithin\s+\d+\s*(?:ms|milliseconds?|s|sec|seconds?|min|minutes?)\b",
            re.I,
        ),
        re.compile(
            r"\bnightly\b|\bovernight\b|\bonce (?:a|per) (?:day|night|week)\b|\bcron\b"
            r"|\b(?:daily|weekly)\s+(?:batch|job|export|import|sync|upload|file|run)"
            r"|\bbatch\s+(?:job|export|import|file|run|upload|transfer)s?\b"
            r"|\bat\s+[012]?\d[:.][0-5]\d\b|\bend of (?:the\s+)?day\b",
            re.I,
        ),
    ),
    (
        "phone",
        re.compile(r"\b(?:smart)?phones?\b|\bmobile\b|\btablets?\b", re.I),
        re.compile(
            r"\b(?:desktop|laptop|pc|computer)s?[- ]only\b"
            r"|\bonly (?:on|from) (?:a |the )?(?:desktop|laptop|pc|computer)s?\b"
            r"|\bnot (?:on|for|from) (?:a |the )?(?:smart)?(?:phones?|mobile)\b",
            re.I,
        ),
    ),
    (
        "accessible",
        re.compile(r"\bwcag\b|\baccessib\w*|\bscreen[- ]readers?\b|\bkeyboard\b", re.I),
        re.compile(
            r"\bmouse[- ]only\b|\b(?:no|without)\s+(?:keyboard|screen[- ]reader)"
            r"|\b(?:keyboard|screen[- ]reader)\b[^.;]{0,50}\b(?:later|after (?:the\s+)?launch"
            r"|post-launch|next (?:release|phase)|phase 2|v2)\b",
            re.I,
        ),
    ),
)

#: A fallback for when the normal path fails: "if the printer jams, reprint by hand" does
#: not contradict "printed automatically".
FALLBACK = re.compile(
    r"\bfall(?:s|ing)?[- ]?back\b|\bas a backup\b|\bin case\b|\bemergenc"
    r"|\b(?:if|when|whenever)\b[^.;]{0,40}\b(?:fails?|jams?|breaks?|is down|goes down"
    r"|is unavailable|errors?|crash(?:es)?)\b",
    re.I,
)

#: Qualifiers that make a dependency acceptable: optional, conditional, or disabled.
EXEMPT = re.compile(
    r"\b(?:optional(?:ly)?|disabled|if|when|whenever|once|after|until|unless|back|returns?"
    r"|fallback|degrades?|re-?enable\w*|reconnect\w*|without|free)\b",
    re.I,
)


_NUMBER = re.compile(r"\d+")


def number_keys(text: str) -> frozenset[str]:
    """Numbers of a text as match keys (``#18``): tokens never hold a bare number, so
    these keys only meet keys made the same way."""
    return frozenset("#" + n for n in _NUMBER.findall(text))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


#: A web address, an e-mail address or a file path: its words name where something
#: lives, not a choice the text makes ("Bumps [x](https://github.com/…)",
#: "<bot@github.com>", "`.github/workflows/ci.yml`").
_ADDRESS = re.compile(
    r"(?:https?://|www\.)[^\s<>()\[\]]+|[\w.+\-\[\]]+@[\w-]+(?:\.[\w-]+)+"
    # a file path: two slashes, or one and a file name ("docs/config.md"); "iOS/Android"
    # and "CI/CD" stay words
    r"|(?:\.{0,2}/)?(?:[\w.-]+/){2,}[\w.-]*|[\w.-]+/[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b",
    re.I,
)


def token_spans(text: str) -> list[tuple[int, int, str]]:
    """Word tokens of ``text``, without the words of web and e-mail addresses and of
    file paths."""
    addresses = [(m.start(), m.end()) for m in _ADDRESS.finditer(text)]
    return [
        (m.start(), m.end(), m.group(0))
        for m in _TOKEN.finditer(text)
        if not any(a <= m.start() < b for a, b in addresses)
    ]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A small suffix stripper: enough to match seat/seats/seating, host/hosting."""
    w = word.lower()
    if len(w) <= 3:
        return w
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("xes", "x")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return stem(w[: -len(suffix)] + repl)
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    if w.endswith("ically") and len(w) > 8:
        w = w[:-4]  # automatically -> automatic
    for suffix in ("ingly", "ing", "edly", "ed", "ly", "ment", "ments", "ation", "ator", "ition"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


def content_stems(text: str) -> list[str]:
    """Stems of the content words of ``text`` (stopwords and 1-letter tokens dropped)."""
    out = []
    for tok in tokens(text):
        low = tok.lower()
        if low in STOPWORDS or len(low) < 2:
            continue
        out.append(stem(low))
    return out


def caps_key(token: str) -> str | None:
    """A case-sensitive key for an all-caps token whose lower case is a common word
    ("US" the region is not "us" the pronoun)."""
    if len(token) >= 2 and token.isupper() and token.isalpha() and token.lower() in STOPWORDS:
        return "=" + token
    return None


def is_title_word(token: str) -> bool:
    """``Stripe``, ``Core``: capitalised, otherwise lower case (a name only when capitalised)."""
    return len(token) > 1 and token[0].isupper() and token[1:].islower() and token.isalpha()


def case_keys(token: str, initial: bool = False) -> frozenset[str]:
    """Case-sensitive match keys of a text token, besides its lower-case stem.

    ``^word``: the token is capitalised. ``~word``: it is capitalised *inside* a sentence,
    where capitals mark a name; at the start of a sentence they are only orthography
    ("Students sign in" does not name "Workday Student").
    """
    keys = set()
    caps = caps_key(token)
    if caps is not None:
        keys.add(caps)
    if token[:1].isupper():
        st = stem(token.lower())
        keys.add("^" + st)
        if not initial:
            keys.add("~" + st)
    return frozenset(keys)


def acronym(word: str) -> str | None:
    """``JavaScript`` → ``js``: CamelCase words of two long parts get their initials."""
    parts = re.findall(r"[A-Z][a-z]{3,}", word)
    if len(parts) == 2 and "".join(parts) == word:
        return (parts[0][0] + parts[1][0]).lower()
    return None


def is_strong_token(token: str, position: int) -> bool:
    """Proper-noun-like: mixed case (iOS, MongoDB), an acronym (NFC), digits, or a
    capitalised word that is not the first word of its label."""
    if token.lower() in GENERIC_ACRONYMS:
        return False
    if any(c.isdigit() for c in token):
        return True
    inner_upper = any(c.isupper() for c in token[1:])
    if inner_upper:
        return True
    return token[:1].isupper() and position > 0


def network_requirement(text: str) -> bool:
    return bool(_NETWORK_REQUIREMENT.search(text))


def forbidden_dependencies(text: str) -> list[str]:
    """The X of "with X disabled" / "without X" in a requirement's question or answer."""
    out = []
    for match in _FORBIDDEN_DEPENDENCY.finditer(text):
        word = match.group("a") or match.group("b")
        if word and word.lower() not in STOPWORDS:
            out.append(word)
    return out


_CUE_STEMS = frozenset(content_stems(_CUE_WORDS))


#: Where a native client comes from names its platform: "the App Store" is iOS, "Google
#: Play" Android. Keys match a label's "iOS" / "Android" (plain and capitalised forms).
_IOS = frozenset(["ios"])
_ANDROID = frozenset(["android", "^android"])
_PLATFORM_WORDS = {"iphone": _IOS, "ipad": _IOS, "testflight": _IOS, "apk": _ANDROID}
_PLATFORM_PAIRS = {
    ("app", "store"): _IOS,
    ("google", "play"): _ANDROID,
    ("play", "store"): _ANDROID,
}


def platform_keys(prev: str, word: str) -> frozenset[str]:
    """Extra match keys of a (lower-case) token given the token before it."""
    return _PLATFORM_PAIRS.get((prev, word)) or _PLATFORM_WORDS.get(word) or frozenset()
