"""Rule annotations: explicit ids and tags written by the user, and inferred tags.

Tags follow the seed's source system: risk class (``critical|high|medium|low|info``),
``@domain``, ``[toolclass]``, ``#intent``, ``scope:<glob>``, ``priority:N``. Everything
is matched on word boundaries and outside code spans, so "follow" is not ``low``,
"decide" is not ``cd`` and ``@n8n/di`` (a package) is not a domain. Rules without tags
get domains and intents inferred from their words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from charter.rules.intent import INTENTS, matching_intents
from charter.rules.model import RISK_LEVELS

TOOL_CLASSES = ("bash", "shell", "edit", "write", "read", "git", "web", "network", "mcp", "search")

_CODE_SPAN = re.compile(r"`[^`]*`")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
#: ``[SEC-1]`` / ``R12:``, or, in brackets only, a content id (``[r-1a2b3c4d]``,
#: ``[r-1a2b3c4d-2]``): ``charter export`` writes one for a rule stated twice, whose id
#: depends on the file and section it came from, so the export compiles to the same id.
#: Outside brackets an id is set off by a colon, stop, bracket, dash or bold: a rule
#: that opens with a name written the same way ("UTF-8 encoding", "SHA-256 hashes
#: only") keeps its first word.
_ID = r"(?:[A-Z][A-Z0-9]*-\d{1,5}|R\d{2,5})"
_EXPLICIT_ID = re.compile(
    r"^\s*(?:\*\*)?(?:\[(?P<cid>r-[0-9a-f]{8}(?:-\d{1,4})?)\]|"
    rf"\[(?P<bid>{_ID})\]|(?P<id>{_ID})(?=\*\*|\s*[:.)\]-]))"
    r"(?:\*\*)?\s*[:.)\]-]?\s+"
)
_RISK = re.compile(
    r"(?:\(|\[|\brisk[:=]\s*|!)(?P<risk>critical|high|medium|low|info)\b\)?\]?", re.IGNORECASE
)
_RISK_LEAD = re.compile(r"^\s*(?:\*\*)?(CRITICAL|IMPORTANT|WARNING)\b", re.MULTILINE)
#: A ``@domain`` tag is written after the rule, with the other tags: only tags (and a
#: closing stop) may follow it. A word marked with ``@`` inside the sentence ("Can be
#: @mentioned: Yes", "reference it with @docs first") is the rule's own word.
_TAGS_TO_END = (
    r"(?=(?:\s*(?:@[a-z][a-z0-9-]{1,30}|\[\w+\]|#[\w-]+|scope:\S+|priority:-?\d+|"
    r"\(\w+\)|risk[:=]\w+|!\w+))*\s*[.;,]?\s*$)"
)
_DOMAIN = re.compile(r"(?<![\w/.@`])@(?P<dom>[a-z][a-z0-9-]{1,30})\b(?![/.\w@-])" + _TAGS_TO_END)
_TOOL = re.compile(r"\[(?P<tool>" + "|".join(TOOL_CLASSES) + r")\](?![(\[])", re.IGNORECASE)
_INTENT = re.compile(r"(?<![\w&/])#(?P<intent>" + "|".join(INTENTS) + r")\b", re.IGNORECASE)
#: a glob of only ``*``/``_`` is no scope (it would match everything): in prose it is the
#: end of emphasis, "**Stay inside the issue's scope:** Implement only …"
_SCOPE = re.compile(r"\bscope:(?P<glob>(?=[^\s,;]*[^\s,;*_])[^\s,;]+)")
_PRIORITY = re.compile(r"\bpriority:(?P<n>-?\d{1,4})\b")

_NEVER = re.compile(
    r"\b(never|must not|mustn't|do not|don't|dont|avoid|forbidden|prohibited|no longer|"
    r"shall not|should not|shouldn't|cannot|can't|not allowed|disallow\w*)\b",
    re.IGNORECASE,
)
_MUST = re.compile(
    r"\b(must|always|required?|requires|shall|mandatory|ensure|need to|should)\b", re.IGNORECASE
)
#: The same in Chinese and Japanese, whose words have no boundaries for ``\b``: "do not",
#: "must not", "never", "forbidden", "avoid", "cannot"; "must", "always", "be sure to".
_NEVER_CJK = re.compile(
    r"禁止|不要|不得|不许|不准|不能|不可|切勿|严禁|避免|"
    r"しない|しては(?:いけない|ならない|だめ)|避ける|厳禁|禁物"
)
_MUST_CJK = re.compile(r"必须|务必|一定要|始终|总是|必ず|常に|しなければ(?:ならない|いけない)")
#: A request in Chinese or Japanese ("please", "prefer"): it instructs, as an English
#: imperative does.
_CJK_DIRECTIVE = re.compile(
    "|".join(p.pattern for p in (_NEVER_CJK, _MUST_CJK))
    + r"|请|優先|优先|ください|すること|こと$|してください"
)

#: Inference lexicon: a domain is tagged when a rule mentions any of its stems.
DOMAIN_LEXICON: dict[str, tuple[str, ...]] = {
    "security": (
        "secur",
        "secret",
        "password",
        "credential",
        "token",
        "auth ",
        "authent",
        "authoriz",
        "authoris",
        "authz",
        "authn",
        "vulnerab",
        "attack",
        "xss",
        "csrf",
        "inject",
        "sanitiz",
        "encrypt",
        "permission",
        "api key",
        "exploit",
    ),
    "testing": (
        "test",
        "spec ",
        "specs ",
        "mock",
        "fixture",
        "coverage",
        "assert",
        "jest",
        "vitest",
        "pytest",
        "playwright",
        "e2e",
        "snapshot",
    ),
    "architecture": (
        "architect",
        "module",
        "package",
        "layer",
        "dependency inject",
        "service",
        "repository",
        "interface",
        "monorepo",
        "boundar",
        "structure",
        "pattern",
    ),
    "style": (
        "format",
        "naming",
        "name ",
        "indent",
        "lint",
        "style",
        "camelcase",
        "pascalcase",
        "prettier",
        "biome",
        "eslint",
        "ruff",
        "comment",
        "readab",
        "type",
        "import ",
        "imports",
        "imported",
        "importing",
    ),
    "deployment": (
        "deploy",
        "release",
        "production",
        "staging",
        "docker",
        "kubernetes",
        "ci ",
        "pipeline",
        "rollout",
        "publish",
        "infra",
        "helm",
        "terraform",
    ),
    "performance": (
        "perform",
        "slow",
        "fast ",
        "faster",
        "fastest",
        "latency",
        "cache",
        "memory",
        "lazy",
        "optimi",
        "n+1",
        "bundle",
        "throughput",
        "query count",
    ),
    "git": ("commit", "branch", "pull request", " pr ", "merge", "rebase", "push", "git"),
    "database": ("database", "migration", "sql", "query", "schema", "orm", "index", "table"),
    "api": (
        "api",
        "endpoint",
        "rest ",
        "restful",
        "graphql",
        "controller",
        "route",
        "request",
        "response",
    ),
    "frontend": ("ui ", "css", "component", "vue", "react", "frontend", "i18n", "design system"),
    "errors": ("error", "exception", "throw", "catch", "fail"),
    "logging": ("log ", "logs", "logging", "logger", "log call", "telemetry"),
    "docs": ("docs", "documentation", "readme", "changelog", "docstring", "markdown"),
}


@dataclass
class Annotations:
    explicit_id: str = ""
    risk: str = ""
    domains: list[str] = field(default_factory=list)
    tool_classes: list[str] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    priority: int | None = None
    clean_text: str = ""


#: Emphasis marks around words (``**not**``, ``_never_``), outside code spans.
_EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)")


def _strip_code(text: str) -> str:
    return _CODE_SPAN.sub(" ", _LINK.sub(r"\1", text))


def parse_annotations(text: str) -> Annotations:
    """Explicit annotations of ``text`` and the text with the annotation markup removed."""
    ann = Annotations()
    clean = text
    match = _EXPLICIT_ID.match(clean)
    if match:
        ann.explicit_id = match.group("id") or match.group("bid") or match.group("cid")
        clean = clean[match.end() :]
    plain = _strip_code(clean)
    risk = _RISK.search(plain)
    if risk:
        ann.risk = risk.group("risk").lower()
        clean = clean.replace(risk.group(0), " ")
    else:
        lead = _RISK_LEAD.search(plain)
        if lead:
            ann.risk = "critical" if lead.group(1) == "CRITICAL" else "high"
    ann.domains = sorted({m.group("dom") for m in _DOMAIN.finditer(plain)})
    ann.tool_classes = sorted({m.group("tool").lower() for m in _TOOL.finditer(plain)})
    ann.intents = sorted({m.group("intent").lower() for m in _INTENT.finditer(plain)})
    ann.scopes = sorted({m.group("glob") for m in _SCOPE.finditer(plain)})
    prio = _PRIORITY.search(plain)
    if prio:
        ann.priority = int(prio.group("n"))
    for rx in (_DOMAIN, _TOOL, _INTENT, _SCOPE, _PRIORITY):
        if rx is _DOMAIN:
            for dom in ann.domains:
                clean = re.sub(
                    rf"(?<![\w/.@`])@{re.escape(dom)}\b(?![/.\w@-])" + _TAGS_TO_END, " ", clean
                )
            continue
        # longest first: removing ``scope:**/*.ts`` first left the ``x`` of ``scope:**/*.tsx``
        tokens = {m.group(0) for m in rx.finditer(_strip_code(clean))}
        for token in sorted(tokens, key=lambda t: (-len(t), t)):
            clean = clean.replace(token, " ")
    ann.clean_text = " ".join(clean.split())
    return ann


def _stem_pattern(stem: str) -> str:
    # a stem written with a trailing space is a whole word: "pr " is no prefix of
    # "prefer", nor "log " of "login", nor "ci " of "city"
    word = re.escape(stem.strip())
    return rf"\b{word}\b" if stem.endswith(" ") else rf"\b{word}"


_DOMAIN_RX = {
    domain: re.compile("|".join(_stem_pattern(s) for s in stems))
    for domain, stems in DOMAIN_LEXICON.items()
}


def infer_domains(text: str, section: str) -> list[str]:
    """Domains whose stems start a word of the rule or its section (not mid-word)."""
    haystack = f" {_strip_code(text)} {section} ".lower()
    return sorted(domain for domain, rx in _DOMAIN_RX.items() if rx.search(haystack))


def infer_intents(text: str, section: str) -> list[str]:
    return matching_intents(f"{section}: {text}")


def infer_risk(text: str, domains: list[str]) -> str:
    low = text.lower()
    if re.search(r"\b(never|must not|do not|don't)\b", low) and "security" in domains:
        return "high"
    if "security" in domains:
        return "high"
    return "medium"


#: Forbidding an omission demands the thing: "never skip the changelog", "don't forget to
#: run migrations", "do not omit the header" are obligations, not prohibitions.
_NEGATED_OMISSION = re.compile(
    r"\b(?:never|must not|mustn't|do not|don't|dont|should not|shouldn't|avoid)\s+"
    r"(?:ever\s+)?(?:skip|skipping|omit|omitting|forget|forgetting|neglect|neglecting|"
    r"leave out|leaving out)\b",
    re.IGNORECASE,
)


def polarity(text: str) -> str:
    """``never`` for prohibitions, ``must`` for obligations, ``""`` otherwise."""
    plain = _NEGATED_OMISSION.sub(" must ", _strip_code(text))
    if _NEVER.search(plain) or _NEVER_CJK.search(plain):
        return "never"
    if _MUST.search(plain) or _MUST_CJK.search(plain):
        return "must"
    return ""


_DIRECTIVE_WORDS = re.compile(
    r"\b(must|should|never|always|don't|do not|avoid|prefer|ensure|make sure|required?|"
    r"need to|only|instead|mustn't|shouldn't|cannot|forbidden)\b",
    re.IGNORECASE,
)
_IMPERATIVE_VERBS = frozenset(
    [
        "use",
        "add",
        "run",
        "keep",
        "write",
        "call",
        "check",
        "create",
        "put",
        "import",
        "define",
        "follow",
        "mock",
        "name",
        "return",
        "throw",
        "wrap",
        "place",
        "store",
        "update",
        "test",
        "document",
        "validate",
        "prefer",
        "avoid",
        "include",
        "remove",
        "register",
        "reuse",
        "confirm",
        "refer",
        "describe",
        "make",
        "ensure",
        "do",
        "set",
        "pass",
        "move",
        "split",
        "extract",
        "apply",
        "install",
        "build",
        "commit",
        "push",
        "open",
        "log",
        "handle",
        "look",
        "consider",
        "start",
        "limit",
        "specify",
        "read",
        "be",
        "treat",
        "verify",
        "prefix",
        "group",
        "sort",
        "configure",
        "declare",
        "bump",
        "delete",
        "rename",
        "respect",
        "ask",
    ]
)
#: A bold label before the instruction ("**Files**: Use …"); the leading ``[^\w*]*`` must not
#: swallow the label's own asterisks, or the label's word is taken for the first word.
_LEAD_LABEL = re.compile(r"^[^\w*]*(\*\*[^*]+\*\*\s*[:\-–—]?\s*)?")


def is_directive(text: str, *, strong: bool = False) -> bool:
    """Does the text instruct (modal words or an imperative verb first) or only describe?
    With ``strong``, "instead" and "only" alone are no instruction: "Using `string`
    instead of region types" under "Common Issues:" names a mistake."""
    # emphasis is no word: "do **not** commit this copy" says "do not"
    plain = _EMPHASIS.sub("", _strip_code(text))
    words = _DIRECTIVE_WORDS.findall(plain)
    if strong:
        words = [w for w in words if w.lower() not in ("instead", "only")]
    if words or _CJK_DIRECTIVE.search(plain):
        return True
    words = _LEAD_LABEL.sub("", text).split()
    first = re.sub(r"[^a-z']", "", words[0].lower()) if words else ""
    return first in _IMPERATIVE_VERBS


def normalize_risk(value: str) -> str:
    value = value.lower().strip()
    return value if value in RISK_LEVELS else "medium"
