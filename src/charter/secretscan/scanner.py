"""Find secrets in text by content and redact them in place.

The detectors are detect-secrets' precise plugins (AWS, GitHub, GitLab, Slack, Stripe,
JWT, private keys, basic-auth URLs, the ``password = "..."`` keyword rule and the rest of
its token formats); the two high-entropy plugins are off unless configured, because on
prose and code they flag ordinary identifiers, hashes and URLs (docs/benchmarks.md has
the measured figure). A secret value is replaced where it stands (``[REDACTED:aws-access-
key]``) so the rest of the line stays useful, line numbers never move, and each finding
records where it was and which detector saw it, never the value.

Speed: detect-secrets costs ~0.1 s to import and runs ~25 plugins per line, so nothing
reaches it unless one cheap regex says a line could hold a secret (a credential word, a
known token prefix, a long mixed run of token characters, a ``user:pass@`` URL). Text
that never passes that pre-filter never imports the library.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import re
import string
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from charter.secretscan.settings import SecretsSettings

MARK = "[REDACTED:{}]"
_MARK_PREFIX = "[REDACTED:"

#: Kinds of text, which decide how strict the keyword rule is: ``config`` accepts an
#: unquoted ``password: value``; ``code`` and ``prose`` need the value quoted, or (prose)
#: to look like a credential.
CONFIG_KINDS = frozenset({"yaml", "json", "csv", "toml", "ini", "env", "properties", "config"})

_KEYWORDS = (
    r"api_?key|auth_?key|service_?key|account_?key|db_?key|database_?key|priv_?key|"
    r"private_?key|client_?key|db_?pass|database_?pass|key_?pass|password|passwd|pwd|"
    r"secret|contrase|token|passphrase|credential|cloudant|softlayer|ibm|cos_?hmac"
)
#: Substrings one of which every keyword-rule match contains (checked on lower case).
_KEYWORD_LITERALS = (
    "key", "pass", "pwd", "secret", "contrase", "token", "credential", "cloudant",
    "softlayer", "ibm", "hmac", "aws",
)  # fmt: skip
#: The keyword rule's shapes, from the end of a credential word: assigned, called or
#: followed by a quoted value (``password = "x"``, ``api_key: x``, ``token "x";``) ...
_AFTER_KEYWORD = re.compile(
    r"\w*['\"\]]{0,2}\s*(?:[:=!]|=>)\s*[@'\"`]?[^\s'\"`]*[A-Za-z]"
    r"|\w*(?:\.assign)?\(['\"]"
    r"|\S{0,50}?\s*['\"`]"
)
#: ... or compared (``"x" == password``), looking back from the word's start.
_BEFORE_KEYWORD = re.compile(r"[!=]{2,3}\s*\w*\Z")
_AWS_QUOTED = re.compile(r".{0,60}?['\"]")
#: Literal prefixes of the token formats most likely to hold no digit (a long run with
#: letters and digits catches the rest of the detectors' formats).
_TOKEN_LITERALS = (
    "AKIA", "ASIA", "AKC", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "glpat-", "k_live_", "eyJ",
    "PRIVATE KEY", "PuTTY-User-Key", "AccountKey", "_authToken", "sk-ant-", "sk-proj-",
    "sk-svcacct-", "AIza", "hf_", "github_pat_", "Bearer ", "dop_v1_", "npm_", "xapp-",
)  # fmt: skip
_BASIC_AUTH = re.compile(r"://[^\s/@:]*:[^\s/@]*@")
_BASIC_AUTH_DETECTOR = "basic-auth-credentials"
#: From a digit to the end of its run of token characters (the regex engine skips to
#: digits in C; the run's start is found by stepping back): a run of sixteen or more
#: token characters mixing letters and digits may be a token (shorter formats the
#: detectors know start with one of the literals below).
_DIGIT_RUN = re.compile(r"\d[A-Za-z0-9_+=]*+")
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_+=")
_HAS_DIGIT = re.compile(r"\d")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_KEYWORD_AT = re.compile(rf"(?i:{_KEYWORDS})")
#: A key naming a collection of credentials (``secrets:``, ``tokens =``): its one-word
#: value is a mode or a reference (GitHub Actions' ``secrets: inherit``), never a secret,
#: which is one credential's value (generic English plurals of the keyword nouns).
_COLLECTION_KEY = re.compile(
    r"(?i)(?:secret|token|password|credential|key)s['\"\]]{0,2}\s*(?:[:=]|=>)\s*['\"`]?\Z"
)

_KEY_BLOCK = re.compile(
    r"-{4,5} ?BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?) ?-{4,5}"
    r"(?:.*?-{4,5} ?END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}|(?P<open>))",
    re.DOTALL,
)
_KEY_BEGIN = re.compile(r"-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_KEY_END = re.compile(r"-{4,5} ?END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_BASE64_LINE = re.compile(r"^\s*(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment):.*)\s*$")
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d.*")
#: Base64 key material: a block without a run like this holds a placeholder, not a key.
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/]{16,}")

#: Keyword-rule values that are words about a secret, not a secret.
_PLACEHOLDERS = frozenset(
    {
        "none",
        "null",
        "nil",
        "true",
        "false",
        "yes",
        "no",
        "required",
        "optional",
        "empty",
        "undefined",
        "string",
        "str",
        "example",
        "redacted",
        "hidden",
        "secret",
        "password",
        "token",
    }
)
_INDIRECT = re.compile(r"^[\w.\-]+[\[(].*[\])]$")
#: A value that names where the secret lives: ``$VAR``, ``${VAR:-x}``, a CI expression
#: (``${{ secrets.NPM_TOKEN }}``), ``%VAR%``, ``env(...)``, ``process.env.X``, ``os.environ``.
_ENV_REF = re.compile(
    r"^(?:\$\{?\w+\}?|\$\{.*\}|%\w+%|env\(.*\)|process\.env\..+|os\.environ.*)$", re.I
)

_PLUGIN_CLASSES = (
    "aws.AWSKeyDetector",
    "artifactory.ArtifactoryDetector",
    "azure_storage_key.AzureStorageKeyDetector",
    "basic_auth.BasicAuthDetector",
    "cloudant.CloudantDetector",
    "discord.DiscordBotTokenDetector",
    "github_token.GitHubTokenDetector",
    "gitlab_token.GitLabTokenDetector",
    "ibm_cloud_iam.IbmCloudIamDetector",
    "ibm_cos_hmac.IbmCosHmacDetector",
    "jwt.JwtTokenDetector",
    "mailchimp.MailchimpDetector",
    "npm.NpmDetector",
    "openai.OpenAIDetector",
    "pypi_token.PypiTokenDetector",
    "sendgrid.SendGridDetector",
    "slack.SlackDetector",
    "softlayer.SoftlayerDetector",
    "square_oauth.SquareOAuthDetector",
    "stripe.StripeDetector",
    "telegram_token.TelegramBotTokenDetector",
    "twilio.TwilioKeyDetector",
)


#: Token formats detect-secrets 1.5 does not know (gitleaks-style rules for keys that
#: appeared since): (detector, regex of the whole token).
EXTRA_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic-api-key", re.compile(r"sk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_\-]{40,}")),
    ("openai-api-key", re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}")),
    ("google-api-key", re.compile(r"AIza[0-9A-Za-z_\-]{35}")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("github-token", re.compile(r"github_pat_[A-Za-z0-9_]{40,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}")),
    ("digitalocean-token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}")),
    ("slack-token", re.compile(r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+")),
    ("bearer-token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-_.~+/]{20,}=*)")),
)


@dataclass(frozen=True)
class Finding:
    """One redacted secret: where (1-based line within the scanned text) and what kind."""

    line: int
    detector: str


@dataclass
class Redacted:
    """Text after redaction and what was taken out of it."""

    text: str
    findings: list[Finding] = field(default_factory=list)


def slug(secret_type: str) -> str:
    """``'AWS Access Key'`` -> ``'aws-access-key'`` (the detector name shown to users)."""
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def value_sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def could_hold_secret(text: str) -> bool:
    """The cheap pre-filter: False means no enabled detector could fire in ``text``.

    Substring checks first (C speed), and the keyword shapes only around a keyword that
    occurs: on prose this costs about a tenth of a millisecond per kilobyte.
    """
    lowered = text.lower()
    for word in _KEYWORD_LITERALS:
        at = lowered.find(word)
        while at != -1:
            after = at + len(word)
            if (
                _AFTER_KEYWORD.match(text, after)
                or _BEFORE_KEYWORD.search(text, max(0, at - 48), at)
                or (word == "aws" and _AWS_QUOTED.match(text, after))
            ):
                return True
            at = lowered.find(word, after)
    if "xox" in lowered or any(literal in text for literal in _TOKEN_LITERALS):
        return True
    if "://" in text and "@" in text and _BASIC_AUTH.search(text):
        return True
    for match in _DIGIT_RUN.finditer(text):
        start, end = match.span()
        while start > 0 and text[start - 1] in _TOKEN_CHARS:
            start -= 1
        if end - start >= 16 and _HAS_LETTER.search(text, start, end):
            return True
    return False


_TOKEN_RUN = re.compile(r"[A-Za-z0-9_+=]{16,}")


def candidate_lines(text: str) -> set[int]:
    """The 0-based lines of ``text`` on which :func:`could_hold_secret` may be True: a
    superset found by scanning the whole text once for its triggers (a credential word, a
    token prefix, ``://``, a long run of token characters with a digit and a letter), so
    a long file's thousands of harmless lines are not each run through the pre-filter.
    """
    found: set[int] = set()
    if not text:
        return found
    breaks = [m.start() for m in re.finditer("\n", text)]

    def mark(at: int) -> None:
        found.add(bisect.bisect_left(breaks, at))

    lowered = text.lower()
    for word in (*_KEYWORD_LITERALS, "xox", "://"):
        at = lowered.find(word) if word != "://" else text.find(word)
        while at != -1:
            mark(at)
            at = (lowered if word != "://" else text).find(word, at + len(word))
    for literal in _TOKEN_LITERALS:
        at = text.find(literal)
        while at != -1:
            mark(at)
            at = text.find(literal, at + len(literal))
    for match in _TOKEN_RUN.finditer(text):
        if _HAS_DIGIT.search(text, *match.span()) and _HAS_LETTER.search(text, *match.span()):
            mark(match.start())
    return found


_LOCK = threading.Lock()


@lru_cache(maxsize=4)
def _plugins(high_entropy: bool) -> tuple[Any, ...]:
    """detect-secrets plugin instances (imported on first need: the import is slow)."""
    import importlib

    with _LOCK:
        out: list[Any] = []
        for dotted in _PLUGIN_CLASSES:
            module_name, _, cls_name = dotted.rpartition(".")
            module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
            out.append(getattr(module, cls_name)())
        if high_entropy:
            from detect_secrets.plugins.high_entropy_strings import (
                Base64HighEntropyString,
                HexHighEntropyString,
            )

            out.extend([Base64HighEntropyString(), HexHighEntropyString()])
        return tuple(out)


#: A call without parentheses whose name is a credential word and whose one argument is
#: a quoted value, alone on its line: Groovy's ``storePassword "x"`` (a Gradle signing
#: config), Elixir's ``@secret "x"``, Ruby's ``password "x"``. detect-secrets knows the
#: shape only when a ``;`` ends it (``private_key "x";``).
_BARE_CALL = re.compile(
    rf"^\s*@?(?:[A-Za-z_][\w.]*?)?(?:{_KEYWORDS})\w*\s+(['\"])([^'\"\s]+)\1\s*[;,]?\s*$",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _keyword_rules() -> tuple[dict[Any, int], dict[Any, int]]:
    """detect-secrets' keyword regexes, and :data:`_BARE_CALL`: (config style, quotes
    required), value group each."""
    from detect_secrets.plugins import keyword

    return (
        {**keyword.CONFIG_DENYLIST_REGEX_TO_GROUP, _BARE_CALL: 2},
        {**keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, _BARE_CALL: 2},
    )


_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-+/=.]")
_EDGE = " \t\"'=:`,;"


def _secret_span(line: str, match: re.Match[str]) -> tuple[int, int]:
    """The part of a detector's match that is the secret.

    A capture group holds the secret when it is long (AWS secret keys, basic-auth
    passwords); short groups are token prefixes (``ghp``), so the whole match is taken.
    The span is trimmed of delimiters the regex included and extended over token
    characters it stopped short of (JWT's lazy signature), so no tail stays visible.
    """
    start, end = match.span()
    groups = [i for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
    if groups:
        best = max(groups, key=lambda i: len(match.group(i)))
        if len(match.group(best)) >= 12 or match.re.pattern.startswith("://"):
            start, end = match.span(best)
    while start < end and line[start] in _EDGE:
        start += 1
    while end > start and line[end - 1] in _EDGE:
        end -= 1
    stop = end
    while end < len(line) and _TOKEN_CHAR.match(line[end]):
        end += 1
    while end > stop and line[end - 1] == ".":  # a sentence's full stop, not the token
        end -= 1
    return start, end


class Allow:
    """The allow-list: path globs, value hashes and value regexes from ``[secrets] allow``."""

    def __init__(self, entries: Sequence[str]) -> None:
        self.paths: list[str] = []
        self.hashes: set[str] = set()
        self.patterns: list[re.Pattern[str]] = []
        for entry in entries:
            if entry.startswith("sha256:"):
                self.hashes.add(entry[7:].strip().lower())
            elif entry.startswith("re:"):
                try:
                    self.patterns.append(re.compile(entry[3:]))
                except re.error as exc:
                    from charter.errors import CharterError

                    raise CharterError(f"secrets.allow: bad regex {entry!r}: {exc}") from None
            else:
                self.paths.append(entry)

    def path_allowed(self, path: str) -> bool:
        if not self.paths or not path:
            return False
        from charter.search.discover import matches_any

        return matches_any(path, self.paths)

    def value_allowed(self, value: str) -> bool:
        if self.hashes and value_sha256(value) in self.hashes:
            return True
        return any(p.search(value) for p in self.patterns)


#: Folders of translation catalogs and the formats only catalogs use. A catalog's keys name
#: UI strings (the key ``password`` holding the German word for it): the keyword rule,
#: which takes the value of a key named like a credential for one, is off there, while
#: the detectors of credential formats (tokens, keys, URLs with passwords) still run.
_CATALOG_DIRS = frozenset(
    {"i18n", "l10n", "locale", "locales", "lang", "langs", "languages", "translations"}
)
_CATALOG_FORMATS = (".po", ".pot", ".arb", ".xlf", ".xliff", ".strings", ".stringsdict")
_CATALOG_DATA = (".json", ".yaml", ".yml", ".toml", ".properties", ".ftl")
#: A locale tag with its region or script (``de-DE``, ``pt_BR``, ``zh-Hans``, ``es-419``):
#: a bare two-letter stem could be anything (``ci``, ``db``), a tagged one is a locale.
_LOCALE_TAG = re.compile(r"[a-z]{2,3}[-_](?:[A-Z]{2}|[A-Z][a-z]{3}|\d{3})")


def is_translation_catalog(path: str) -> bool:
    """A translation catalog, by where it lives and how it is named (not its content)."""
    if not path:
        return False
    low = path.lower().replace("\\", "/")
    name = low.rsplit("/", 1)[-1]
    if name.endswith(_CATALOG_FORMATS):
        return True
    if not name.endswith(_CATALOG_DATA):
        return False
    if any(part in _CATALOG_DIRS for part in low.split("/")[:-1]):
        return True
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].split(".")[0]
    return bool(_LOCALE_TAG.fullmatch(stem))


class Scanner:
    """Redacts secrets in text under one configuration (cheap to keep; thread-safe)."""

    def __init__(self, settings: SecretsSettings | None = None) -> None:
        self.settings = settings or SecretsSettings()
        self.allow = Allow(self.settings.allow)
        self.columns = [_words(c) for c in self.settings.credential_columns]

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    # -- text ----------------------------------------------------------------------
    def redact(
        self, text: str, *, path: str = "", kind: str = "prose", plain: frozenset[str] = frozenset()
    ) -> Redacted:
        """``text`` with every secret replaced by ``[REDACTED:<detector>]``. ``plain``:
        values the same file shows in fields that name no credential, which the keyword
        rule does not take for secrets (:func:`charter.secretscan.apply.plain_values`)."""
        if not self.enabled or not text or self.allow.path_allowed(path):
            return Redacted(text)
        if not could_hold_secret(text):
            return Redacted(text)
        findings: list[Finding] = []
        # in a translation catalog a key names the string, not a credential
        kind = "catalog" if is_translation_catalog(path) else kind
        text = self._private_keys(text, findings)
        lines = text.split("\n")
        candidates = candidate_lines(text)
        changed = False
        for index, line in enumerate(lines):
            if index not in candidates and len(line) <= 4000:
                continue
            if len(line) > 4000 or not could_hold_secret(line):
                if len(line) > 4000:
                    lines[index], hit = self._long_line(line, kind, plain)
                    if hit:
                        changed = True
                        findings.extend(Finding(index + 1, d) for d in hit)
                continue
            new, found = self._line(line, kind, plain)
            if found:
                lines[index] = new
                changed = True
                findings.extend(Finding(index + 1, d) for d in found)
        if changed:
            text = "\n".join(lines)
        findings.sort(key=lambda f: (f.line, f.detector))
        return Redacted(text, findings)

    def _long_line(
        self, line: str, kind: str, plain: frozenset[str] = frozenset()
    ) -> tuple[str, list[str]]:
        """A minified line: scan it in windows so one regex never sees megabytes."""
        out: list[str] = []
        found: list[str] = []
        for start in range(0, len(line), 2000):
            piece = line[start : start + 2000]
            new, hit = self._line(piece, kind, plain) if could_hold_secret(piece) else (piece, [])
            out.append(new)
            found.extend(hit)
        return "".join(out), found

    def _private_keys(self, text: str, findings: list[Finding]) -> str:
        """Whole private-key blocks (the detector only names the header line)."""
        if "PRIVATE KEY" not in text and "PuTTY-User-Key" not in text:
            return text

        def block(match: re.Match[str]) -> str:
            body = match.group(0)
            if match.group("open") is None:
                end = _KEY_END.search(body)
                head = _KEY_BEGIN.match(body)
                inner = body[head.end() if head else 0 : end.start() if end else None]
                if not _KEY_MATERIAL.search(inner):
                    return body  # an elided or placeholder body (``...``, ``YOUR_KEY``)
            line = text.count("\n", 0, match.start()) + 1
            findings.append(Finding(line, "private-key"))
            if match.group("open") is not None:  # no END marker: take the base64 lines after
                return MARK.format("private-key")
            return MARK.format("private-key") + "\n" * body.count("\n")

        text = _KEY_BLOCK.sub(block, text)
        lines = text.split("\n")
        mark = MARK.format("private-key")
        began = False
        for index, line in enumerate(lines):
            if line.endswith(mark) or _PUTTY.search(line):
                if _PUTTY.search(line):
                    lines[index] = _PUTTY.sub(mark, line)
                    findings.append(Finding(index + 1, "private-key"))
                j = index + 1
                while j < len(lines) and _BASE64_LINE.match(lines[j]):
                    lines[j] = ""
                    j += 1
            elif _KEY_BEGIN.search(line):
                began = True  # a placeholder block kept whole: its END is no key's
            elif _KEY_END.search(line) and not began:  # the block began in an earlier chunk
                findings.append(Finding(index + 1, "private-key"))
                lines[index] = _KEY_END.sub(mark, line)
                j = index - 1
                while j >= 0 and _BASE64_LINE.match(lines[j]):
                    lines[j] = ""
                    j -= 1
        return "\n".join(lines)

    def _line(
        self, line: str, kind: str, plain: frozenset[str] = frozenset()
    ) -> tuple[str, list[str]]:
        """One line with its secrets replaced, and the detectors that fired."""
        spans: list[tuple[int, int, str]] = []
        for plugin in _plugins(self.settings.high_entropy):
            try:
                values = list(plugin.analyze_string(line))
            except Exception:  # a detector bug must not stop indexing
                continue
            if not values:
                continue
            detector = slug(plugin.secret_type)
            if hasattr(plugin, "entropy_limit"):
                for value in values:
                    if plugin.calculate_shannon_entropy(value) > plugin.entropy_limit:
                        at = line.find(value)
                        if at >= 0 and len(value) >= 8:
                            spans.append((at, at + len(value), detector))
                continue
            for regex in plugin.denylist:
                for match in regex.finditer(line):
                    if detector == _BASIC_AUTH_DETECTOR and is_placeholder(
                        match.group(1), line[: match.start(1)]
                    ):
                        continue  # postgres://postgres:postgres@localhost: a dev default
                    spans.append((*_secret_span(line, match), detector))
        for detector, regex in EXTRA_RULES:
            for match in regex.finditer(line):
                spans.append((*_secret_span(line, match), detector))
        spans.extend(self._keyword(line, kind, plain))
        return self._replace(line, spans)

    def _replace(self, line: str, spans: list[tuple[int, int, str]]) -> tuple[str, list[str]]:
        """Replace ``spans`` (merged where they overlap; allow-listed values kept)."""
        merged: list[list[Any]] = []
        for start, end, detector in sorted(spans):
            if end - start < 4 or line[start:end].startswith(_MARK_PREFIX):
                continue
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
                continue
            merged.append([start, end, detector])
        done: list[str] = []
        for start, end, detector in reversed(merged):
            if self.allow.value_allowed(line[start:end]):
                continue
            line = line[:start] + MARK.format(detector) + line[end:]
            done.append(detector)
        done.reverse()
        return line, done

    def _keyword(
        self, line: str, kind: str, plain: frozenset[str] = frozenset()
    ) -> Iterator[tuple[int, int, str]]:
        """``password = "..."`` style assignments (detect-secrets' keyword rule)."""
        if kind == "catalog" or not _KEYWORD_AT.search(line):
            return
        config, quoted = _keyword_rules()
        rules = config if kind in CONFIG_KINDS or kind == "prose" else quoted
        for regex, group in rules.items():
            match = regex.search(line)
            if not match or match.group(group) is None:
                continue
            value = match.group(group)
            end = match.end(group)
            quote = match.group(group - 1) if group > 1 else ""
            if _names_a_secret(line[: match.start(group)]):
                continue  # ``secretName: demo-tls``: the name of a secret, not its value
            if kind == "prose" and not quote and value.split():
                # unquoted in a sentence ("use SMTP_PASSWORD=x9Lk… for the tests"): the
                # value runs to the first space, less the punctuation closing it; the
                # rest is the sentence it sits in
                value = _closed_token(value.split()[0])
                end = match.start(group) + len(value)
            rest = line[: match.start(group)] + " " + line[end:]
            if _COLLECTION_KEY.search(line[: match.start(group)]) and value.strip().isalpha():
                continue  # ``secrets: inherit``: a mode for a set of secrets, not one's value
            if value.strip().strip("'\"`") in plain:
                continue  # the file shows it in the open (a user or an image name)
            if _refers_to_a_secret(line[: match.start(group)], value):
                continue  # ``tlsSecret: web-tls``, ``secret `prod/app/env```: where it lives
            if not _keyword_value_ok(value.strip(), strict=kind == "prose", context=rest):
                continue
            yield match.start(group), end, "secret-keyword"
            return

    # -- records ---------------------------------------------------------------------
    def credential_column(self, name: str) -> bool:
        """Does a field name say its value is a credential (``password``, ``api_key``)?"""
        words = _words(name)
        if not words:
            return False
        for wanted in self.columns:
            n = len(wanted)
            for i in range(len(words) - n + 1):
                if words[i : i + n] != wanted:
                    continue
                after = words[i + n] if i + n < len(words) else ""
                before = words[i - 1] if i else ""
                if after in _DESCRIPTIVE or before in _COUNTING or before in _SOURCING:
                    continue
                return True
        return False

    def redact_value(
        self, name: str, value: str, *, kind: str = "config"
    ) -> tuple[str, str | None]:
        """A record field's value after redaction, and the detector (None if untouched)."""
        if not self.enabled or not value.strip():
            return value, None
        if (
            kind != "catalog"
            and self.credential_column(name)
            and _column_value_is_secret(value, name)
        ):
            if self.allow.value_allowed(value):
                return value, None
            return MARK.format("credential-column"), "credential-column"
        result = self.redact(f"{name}: {value}", kind=kind)
        if not result.findings:
            return value, None
        prefix = f"{name}: "
        new = result.text[len(prefix) :] if result.text.startswith(prefix) else result.text
        return new, result.findings[0].detector


#: Words after a credential word that make the column about it, not it (token_count).
_DESCRIPTIVE = frozenset(
    [
        "count",
        "counts",
        "len",
        "length",
        "budget",
        "limit",
        "limits",
        "type",
        "kind",
        "id",
        "name",
        "names",
        "url",
        "uri",
        "expiry",
        "expires",
        "expiration",
        "ttl",
        "policy",
        "hint",
        "rotation",
        "rotated",
        "age",
        "scope",
        "scopes",
        "header",
        "field",
        "env",
        "var",
        "path",
        "file",
        "location",
        "ref",
        "required",
        "enabled",
        "min",
        "max",
        "owner",
        "date",
        "at",
        "created",
        "updated",
        "status",
        "method",
        "provider",
        "store",
        "stores",
        "strength",
        "reset",
        "changed",
        "format",
        "version",
    ]
)
_COUNTING = frozenset({"max", "min", "num", "n", "total", "has", "is", "no"})
#: Words before a credential word that make the field say where a secret comes from, by
#: name (Drone's and Woodpecker's ``from_secret: kube_token_prod``), not hold one.
_SOURCING = frozenset({"from", "via"})
#: The key an assignment's value belongs to, at the end of the text before the value.
_ASSIGNED_KEY = re.compile(r"([A-Za-z_][\w-]*)[\"'`\]]*\s*(?::=|=>|[:=])\s*[\"'`]?\s*$")


def _names_a_secret(before: str) -> bool:
    """Whether the key of the value that follows ``before`` ends in a word that makes it
    about a secret rather than one (``secretName``, ``password_hint``, ``token_type``):
    Kubernetes manifests name their TLS and volume secrets on every other page."""
    key = _ASSIGNED_KEY.search(before)
    if key is None:
        return False
    words = _words(key.group(1))
    return len(words) >= 2 and words[-1] in _DESCRIPTIVE


#: A value that names where a secret lives by a path of lowercase words, maybe after a
#: scheme (``prod/app/env``, ``secret:argocd/repo-creds``, ``pullsecret:ns/ghcr-pull``).
_SECRET_PATH = re.compile(r"(?:[a-z]*:)?[a-z][a-z0-9_-]*(?:/[a-z][a-z0-9_-]*)+")
#: A Kubernetes object's name: lowercase words joined by hyphens or dots (``web-tls``,
#: ``keycloak-admin``, ``grafana.example.org-tls``).
_OBJECT_NAME = re.compile(r"[a-z]+\d*(?:(?:-{1,2}|\.)[a-z]+\d*)+")


def _refers_to_a_secret(before: str, value: str) -> bool:
    """Whether ``value`` names a secret rather than holds one: a path of lowercase words
    (a secret manager's or a cluster's), lowercase words ending in one that describes
    (``client-id``: the field a secret sits in), or, for a key whose last word is ``secret``
    after another word (``adminSecret``, ``tlsSecret``, ``existingMasterKeySecret`` — the
    Kubernetes way of naming a Secret object), an object's name of lowercase words."""
    value = value.strip().strip("'\"`")
    if _SECRET_PATH.fullmatch(value):
        return True
    if not _OBJECT_NAME.fullmatch(value):
        return False
    if _words(value)[-1] in _DESCRIPTIVE:
        return True  # ``secretKey: client-id``: the name of a field that holds one
    key = _ASSIGNED_KEY.search(before)
    if key is None:
        return False
    words = _words(key.group(1))
    return len(words) >= 2 and words[-1] in ("secret", "secrets")


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


_KEYWORD_WORD = re.compile(rf"(?:{_KEYWORDS}|key|pass)s?")


def _names_its_kind(value: str) -> bool:
    """A value with the keyword rule's own word as one of its parts (``your-api-key``,
    ``test-key``, ``test-password``): a placeholder naming what belongs there, the shape
    of test fixtures and docs. A real key or password is not spelled out in words."""
    parts = _words(value.strip("'\"`"))  # ``apiKey``, ``accessKeyId`` too
    pairs = [a + b for a, b in itertools.pairwise(parts)]
    return len(parts) > 1 and any(_KEYWORD_WORD.fullmatch(p) for p in parts + pairs)


#: Credential values shorter than this are placeholders or dev defaults (``test``,
#: ``pass``, ``dev1``), not secrets: no generated key or token is this short.
_MIN_SECRET_CHARS = 6
#: The words placeholder and dev-default credentials are made of: the credential's own
#: kind, the usual stand-ins, and the default accounts of common database and service
#: images (``POSTGRES_PASSWORD: postgres``, ``MYSQL_ROOT_PASSWORD: root``). Generic
#: English and tool names, kept few: the words of the key itself (``minio`` in
#: ``MINIO_ROOT_PASSWORD: minioadmin``) join them per line.
_PLACEHOLDER_WORDS = frozenset(
    {
        "password", "passwd", "pass", "pwd", "secret", "token", "key", "auth",
        "change", "me", "it", "my", "your", "example", "sample", "test", "testing",
        "dev", "development", "local", "localhost", "default", "demo", "dummy", "fake",
        "placeholder", "insecure", "not", "real", "foo", "bar", "baz", "qwerty",
        "letmein", "welcome", "admin", "administrator", "root", "user", "guest",
        "postgres", "mysql", "sa", "app", "provided", "supplied", "name", "access",
    }
)  # fmt: skip
#: Letter-for-letter spellings (``p@ssw0rd``, ``s3cr3t``): a digit only inside a word.
_LEET = {"@": "a", "$": "s"}
_LEET_DIGITS = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"}
_RUNS = re.compile(r"[a-z]+|\d+")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def _trivial_digits(run: str) -> bool:
    """``1``, ``123``, ``2024``, ``0000``: digits anyone appends to a word."""
    return (
        run in "01234567890"
        or run in "9876543210"
        or len(set(run)) == 1
        or bool(re.fullmatch(r"(?:19|20)\d\d", run))
    )


def _made_of(text: str, words: frozenset[str]) -> bool:
    """Whether ``text`` (lower case letters and digits) is words from ``words`` run
    together, with trivial digits between them (``postgres123``, ``minioadmin``)."""
    runs = _RUNS.findall(text)
    if not runs or "".join(runs) != text:
        return False
    for run in runs:
        if run[0].isdigit():
            if not _trivial_digits(run):
                return False
            continue
        ends = {0}  # word-break positions reachable from the start of the run
        for end in range(1, len(run) + 1):
            if any(run[start:end] in words for start in ends if end - start >= 2):
                ends.add(end)
        if len(run) not in ends:
            return False
    return True


def _spellings(text: str) -> list[str]:
    """The value in lower case letters and digits, as written and with look-alike
    characters read as the letters they stand for."""
    lowered = "".join(_LEET.get(ch, ch) for ch in text.lower())
    leet = [
        _LEET_DIGITS[ch]
        if ch in _LEET_DIGITS and 0 < i < len(lowered) - 1
        and lowered[i - 1].isalpha() and lowered[i + 1].isalpha()
        else ch
        for i, ch in enumerate(lowered)
    ]  # fmt: skip
    plain = re.sub(r"[^a-z0-9]", "", text.lower())
    return [plain, re.sub(r"[^a-z0-9]", "", "".join(leet))]


#: Filler after a token's prefix: no generated secret repeats one of these eight times.
_FILLER_RUN = re.compile(r"([xX*#•])\1{7,}")
#: ... or fill all that follows a token's short prefix (``sk-xxxx``, ``ghp_****``).
_PREFIXED_FILLER = re.compile(r"[A-Za-z]{1,5}[-_]([xX*#•])\1{3,}")


def is_placeholder(value: str, context: str = "") -> bool:
    """Whether a credential's value is an obvious placeholder or dev default, not a secret.

    CI services, dev containers and compose files set credentials to values anyone can
    read (``POSTGRES_PASSWORD: postgres``); reporting each one as a leak to rotate buries
    the real ones. A value is a placeholder when it is very short; a template or
    reference (``<password>``, ``{{ x }}``, ``${VAR}``); filler (``xxxxxx``, ``****``,
    ``abcdefgh``); or made of placeholder words, the words of ``context`` (the rest of its
    line: the key, the URL's user and scheme) and trivial digits (``postgres123``,
    ``minioadmin``, ``P@ssw0rd``). A generated secret is none of these; a weak one a
    person chose (``sunshine``, ``keyboard cat``) is still a credential that leaked, and
    stays redacted."""
    text = value.strip().strip("'\"`")
    if len(text) < _MIN_SECRET_CHARS:
        return True
    if _ENV_REF.match(text) or (text[0] in "{<[" and text[-1] in "}>]"):
        return True
    if len(text.split()) > 1:  # a phrase (``keyboard cat``): each of its words
        return all(is_placeholder(word, context) for word in text.split())
    if len({ch for ch in text.lower() if ch.isalnum()}) <= 2 or text.lower() in _ALPHABET:
        return True
    if _FILLER_RUN.search(text) or _PREFIXED_FILLER.fullmatch(text):  # ``sk-xxxx``
        return True
    words = _PLACEHOLDER_WORDS | {w for w in _words(context) if len(w) >= 2 and w.isalpha()}
    return any(_made_of(form, words) for form in _spellings(text))


def _is_value(value: str) -> bool:
    return bool(value) and not value.startswith(_MARK_PREFIX) and len(value) >= 4


def _column_value_is_secret(value: str, name: str = "") -> bool:
    text = value.strip()
    if text.startswith(_MARK_PREFIX) or text.lower() in _PLACEHOLDERS:
        return False
    return not is_placeholder(text, name)


_OPENER = {")": "(", "]": "[", "}": "{", ">": "<"}


def _closed_token(token: str) -> str:
    """A prose token less the punctuation closing the sentence around it, keeping a
    bracket it opened itself: "(use PASSWORD=x9Lk…)" ends at "x9Lk…", while the type in
    "api_key: Optional[str] = None" stays "Optional[str]", which no secret looks like
    (stripped to "Optional[str" it was redacted as one)."""
    while token:
        last = token[-1]
        unopened = last in _OPENER and token.count(_OPENER[last]) < token.count(last)
        if last not in "`'\",.;:" and not unopened:
            break
        token = token[:-1]
    return token


def _keyword_value_ok(value: str, *, strict: bool, context: str = "") -> bool:
    """detect-secrets' own heuristic filters, plus: a secret has no spaces, is no
    placeholder or dev default (:func:`is_placeholder`, ``context`` being the rest of its
    line; ``false}`` is ``false`` less the brace closing its object), and in prose it
    looks like one (two character classes, six or more characters, not an identifier)."""
    if not _is_value(value) or any(ch.isspace() for ch in value):
        return False
    # the bracket closing the object around it is no part of the value: ``{"secret": false}``
    bare = _closed_token(value).lower().strip("'\"`")
    if bare in _PLACEHOLDERS or is_placeholder(value, context):
        return False
    if value[0] in "{<$%" or _ENV_REF.match(value) or _INDIRECT.match(value):
        return False
    if not re.search(r"[A-Za-z]", value) or len(set(value)) == 1:
        return False
    if _names_its_kind(value):
        return False
    if "(" in value or value.endswith((")", "]")):
        return False
    if value.startswith(_MARK_PREFIX):
        return False
    if strict:
        classes = sum(
            bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]")
        )
        if classes < 2 or len(value) < 6:
            return False
        if re.fullmatch(r"[A-Za-z_][\w.]*", value) and not _HAS_DIGIT.search(value):
            return False  # an identifier (settings.password_field), not a value
    return True


_DEFAULT: dict[str, Scanner] = {}


def scanner_for(settings: SecretsSettings | None) -> Scanner:
    """A cached scanner for ``settings`` (rebuilt when the settings change)."""
    key = settings.model_dump_json() if settings is not None else ""
    found = _DEFAULT.get(key)
    if found is None:
        found = Scanner(settings)
        _DEFAULT[key] = found
    return found


def redact_lines(text: str, settings: SecretsSettings | None = None, **kw: Any) -> str:
    """Convenience: the redacted text only."""
    return scanner_for(settings).redact(text, **kw).text


def iter_detectors(findings: Iterable[Finding]) -> list[str]:
    return sorted({f.detector for f in findings})
