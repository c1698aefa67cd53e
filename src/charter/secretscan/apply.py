"""Where the scanner meets Charter's data: chunks, SoT records, compiled rules, replies.

Every front door calls one of these, so a secret is redacted before a chunk is stored
(the index never holds it), and again before anything is served (an index or compiled
rule state written by an older version, or under another allow-list, is cleaned on the
way out). Redaction is idempotent: a ``[REDACTED:…]`` mark is never redacted again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from charter.secretscan.scanner import Scanner, is_translation_catalog, scanner_for
from charter.secretscan.settings import SecretsSettings

if TYPE_CHECKING:
    from charter.config import Project
    from charter.search.chunks import Chunk, ParsedDoc

#: Chunk kinds whose text is configuration (an unquoted ``password: x`` is a secret).
_CONFIG_SUFFIXES = (".toml", ".ini", ".cfg", ".conf", ".env", ".properties", ".yaml", ".yml")


@dataclass(frozen=True)
class Redaction:
    """One redacted secret in a file: its 1-based line and the detector (never the value)."""

    line: int
    detector: str


def project_scanner(project: Project) -> Scanner:
    settings: SecretsSettings | None = getattr(project.settings, "secrets", None)
    return scanner_for(settings)


def text_kind(kind: str, path: str = "") -> str:
    """``config`` | ``code`` | ``prose``: how strict the keyword rule is for a chunk kind."""
    if kind in ("yaml", "json", "csv") or path.lower().endswith(_CONFIG_SUFFIXES):
        return "config"
    if kind in ("python", "code"):
        return "code"
    return "prose"


def scrub_parsed(parsed: ParsedDoc, path: str, kind: str, scanner: Scanner) -> list[Redaction]:
    """Redact every chunk of ``parsed`` in place (text, section, title, record fields).

    Returns what was redacted, by file line. SoT records lose the values of credential
    columns (``password``, ``api_key`` …) and any value a detector flags.
    """
    if not scanner.enabled or scanner.allow.path_allowed(path):
        return []
    found: set[Redaction] = set()
    mode = text_kind(kind, path)
    plain = plain_values(parsed, scanner)
    for chunk in parsed.chunks:
        # a notebook holds code and prose: each cell's chunk is read as what it is (an
        # ``api_key = config["OPENAI_API_KEY"]`` in a code cell is code, not a sentence)
        own = text_kind(chunk.kind, path) if kind == "notebook" else mode
        found.update(scrub_chunk(chunk, path, own, scanner, plain))
    title = parsed.meta.get("title")
    if isinstance(title, str) and title:
        cleaned = scanner.redact(title, path=path, kind=mode)
        if cleaned.findings:
            parsed.meta["title"] = cleaned.text
            found.update(Redaction(1, f.detector) for f in cleaned.findings)
    return sorted(found, key=lambda r: (r.line, r.detector))


def plain_values(parsed: ParsedDoc, scanner: Scanner) -> frozenset[str]:
    """The values a document's records hold in fields that name no credential, and the
    names inside them (``mariadb`` of ``image: mariadb:11.7``). A CI service or compose
    file sets a database's password to its user or image name (``MYSQL_USER: mariadb``,
    ``MYSQL_PASSWORD: mariadb``): a value the same file shows in the open is no secret.
    A real secret is not also an image, a host or a user name."""
    out: set[str] = set()
    for chunk in parsed.chunks:
        for name, raw in (chunk.record or {}).items():
            value = raw.strip().strip("'\"")
            if not value or scanner.credential_column(name):
                continue
            out.add(value)
            out.update(part for part in re.split(r"[:/@\s]+", value) if len(part) >= 3)
    return frozenset(out)


def scrub_chunk(
    chunk: Chunk,
    path: str,
    mode: str,
    scanner: Scanner,
    plain: frozenset[str] = frozenset(),
) -> set[Redaction]:
    """Redact one chunk in place; what was redacted, by file line. ``plain``: values
    the document shows in fields that name no credential (:func:`plain_values`)."""
    found: set[Redaction] = set()
    swaps: list[tuple[str, str]] = []
    if chunk.record is not None:
        # a catalog's ``password: New Password`` is the label's translation, not a value
        fields = "catalog" if mode == "catalog" or is_translation_catalog(path) else "config"
        for name, raw in list(chunk.record.items()):
            if raw.strip().strip("'\"") in plain and scanner.credential_column(name):
                continue  # the file shows this value in the open elsewhere
            new, detector = scanner.redact_value(name, raw, kind=fields)
            if detector is None:
                continue
            chunk.record[name] = new
            swaps.append((raw, new))
            chunk.text = chunk.text.replace(f"{name}: {raw}", f"{name}: {new}")
            found.add(Redaction(chunk.line_start, detector))
        for raw, new in swaps:
            if raw and raw in chunk.title:
                chunk.title = chunk.title.replace(raw, new)
            if raw and raw in chunk.section:
                chunk.section = chunk.section.replace(raw, new)
    result = scanner.redact(chunk.text, path=path, kind=mode, plain=plain)
    if result.findings:
        chunk.text = result.text
        found.update(Redaction(chunk.line_start + f.line - 1, f.detector) for f in result.findings)
    for attr in ("section", "title"):
        value = getattr(chunk, attr)
        if value and (attr == "section" or value != chunk.section):
            cleaned = scanner.redact(value, path=path, kind=mode)
            if cleaned.findings:
                setattr(chunk, attr, cleaned.text)
                found.update(Redaction(chunk.line_start, f.detector) for f in cleaned.findings)
    return found


def scrub_text(text: str, scanner: Scanner, *, path: str = "", kind: str = "prose") -> str:
    """``text`` redacted (serving side: callers only need the clean text)."""
    if not text or not scanner.enabled:
        return text
    return scanner.redact(text, path=path, kind=kind).text


def scrub_record(record: dict[str, str] | None, scanner: Scanner) -> dict[str, str] | None:
    if not record or not scanner.enabled:
        return record
    return {k: scanner.redact_value(k, v)[0] for k, v in record.items()}


def scrub_compiled(compiled: Any, scanner: Scanner) -> Any:
    """Compiled rules with their shown text redacted (in place; returns ``compiled``)."""
    if not scanner.enabled:
        return compiled
    for rule in compiled.rules:
        rule.text = scrub_text(rule.text, scanner, path=rule.source.path)
        rule.source.section = scrub_text(rule.source.section, scanner, path=rule.source.path)
    constitution = compiled.constitution
    constitution.text = scrub_text(constitution.text, scanner)
    return compiled


def scrub_sources(sources: list[Any], scanner: Scanner) -> list[tuple[str, Redaction]]:
    """Rule files as read for compiling, redacted in place before they are parsed.

    Redaction keeps every line where it was, so rule citations stay exact.
    """
    out: list[tuple[str, Redaction]] = []
    if not scanner.enabled:
        return out
    for src in sources:
        result = scanner.redact(src.text, path=src.rel, kind="prose")
        if not result.findings:
            continue
        src.text = result.text
        src.body = "\n".join(result.text.split("\n")[src.offset :])
        out.extend((src.rel, Redaction(f.line, f.detector)) for f in result.findings)
    return out


def scrub_hook_reply(reply: dict[str, Any], scanner: Scanner) -> dict[str, Any]:
    """A hook's reply with every string it sends to the agent redacted."""
    if not scanner.enabled:
        return reply
    output = reply.get("output")
    if isinstance(output, dict):
        reply["output"] = _scrub_json(output, scanner)
    return reply


def scrub_data(value: Any, scanner: Scanner) -> Any:
    """Every string inside JSON-like ``value`` redacted (a copy; ``value`` is untouched)."""
    return _scrub_json(value, scanner) if scanner.enabled else value


def _scrub_json(value: Any, scanner: Scanner) -> Any:
    if isinstance(value, str):
        return scrub_text(value, scanner)
    if isinstance(value, dict):
        return {k: _scrub_json(v, scanner) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_json(v, scanner) for v in value]
    return value


def scrub_pending(
    project: Project, store: Any, pending: list[Any], counts: dict[str, int]
) -> list[list[Redaction]]:
    """Redact every file about to be stored (working tree, git history, JSONL corpus).

    Runs before anything is hashed, embedded or written, so the index never holds a
    secret; ``counts`` gets the number redacted per path. Returns the redactions per item.
    """
    from charter.secretscan import ledger

    ledger.create(store.conn)
    scanner = project_scanner(project)
    out: list[list[Redaction]] = []
    for item in pending:
        found = scrub_parsed(item.parsed, item.path, item.kind, scanner)
        if found:
            counts[item.path] = len(found)
        out.append(found)
    return out
