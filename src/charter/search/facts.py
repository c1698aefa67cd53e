"""Fact verification against the structured source of truth (seed 004, execution mode).

Markdown is for humans; CSV/YAML/JSON under the SoT paths is canonical. For each date,
ID, money amount and number in a text we look for the record it talks about (an ID or a
record name on the same line) and the field of the same kind; if the values differ the
SoT value wins and is reported with its address. SoT files are read from disk on every
check, so a verdict never depends on a stale index.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.errors import CharterError
from charter.fileio import read_text
from charter.search import gitinfo
from charter.search.actions import log_action
from charter.search.discover import discover, file_kind
from charter.search.parse import parse_file
from charter.search.patterns import (
    ID,
    ISO_DATE,
    MONEY,
    TEXT_DATE_DMY,
    TEXT_DATE_MDY,
    ULID,
    Fact,
    find_facts,
    normalise,
)
from charter.search.records import csv_records

#: Words in a sentence that point at a kind of field, for records with several of a kind.
FIELD_HINTS: dict[str, tuple[str, ...]] = {
    "due": ("deadline", "due", "deliver", "delivery", "by"),
    "end": ("end", "ends", "until", "deadline", "finish"),
    "start": ("start", "starts", "kickoff", "begin", "begins", "from"),
    "fee": ("fee", "price", "cost", "charge", "paid", "pay", "budget", "value", "worth"),
    "amount": ("amount", "total", "fee", "value"),
    "budget": ("budget",),
    "renewal": ("renewal", "renew", "renews"),
    "signed": ("signed", "sign", "signature"),
}
#: Fields whose value names the record (so a sentence mentioning it is about the record).
NAME_FIELDS = frozenset(
    {"id", "name", "title", "client", "customer", "company", "project", "tenant", "vendor"}
)
_MONEY_FIELD = re.compile(
    r"fee|price|amount|cost|budget|value|revenue|mrr|arr|usd|eur|gbp|rate|salary|spend", re.I
)


@dataclass(slots=True)
class SotField:
    path: str
    address: str  # record address ("row=3", "/deliverables/0")
    record_title: str
    name: str
    raw: str
    kind: str  # id | date | money | number | text
    value: str  # normalised

    @property
    def citation(self) -> str:
        return f"{self.path}#{self.address}"


@dataclass
class FactVerdict:
    kind: str
    text: str
    value: str
    line: int
    status: str  # verified | mismatch | not_found
    canonical: str | None = None
    address: str | None = None
    field: str | None = None
    record: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FactReport:
    facts: list[FactVerdict] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)  # SoT files not read, why

    def counts(self) -> dict[str, int]:
        out = {"verified": 0, "mismatch": 0, "not_found": 0}
        for fact in self.facts:
            out[fact.status] += 1
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "facts": [f.as_dict() for f in self.facts],
            "counts": self.counts(),
            "sources": self.sources,
            "errors": self.errors,
            "skipped": self.skipped,
        }


def _field_kind(name: str, raw: str) -> tuple[str, str]:
    text = raw.strip()
    if not text:
        return "text", ""
    # Large SoT files have millions of cells: dates, IDs and money all need a digit, and a
    # plain number can be none of them.
    # Each full test runs only when a whole-cell regex says it can succeed.
    if not _DIGIT.search(text):
        return "text", text.lower()
    if _PLAIN_NUMBER.fullmatch(text):
        return _number_kind(name, text)
    if ISO_DATE.fullmatch(text) or TEXT_DATE_MDY.fullmatch(text) or TEXT_DATE_DMY.fullmatch(text):
        dates = find_facts(text, kinds=("date",))
        if dates and dates[0].text == text:
            return "date", dates[0].value
    if ULID.fullmatch(text) or ID.fullmatch(text):
        ids = find_facts(text, kinds=("id",))
        if ids and ids[0].text == text:
            return "id", ids[0].value
    if MONEY.search(text):
        money = find_facts(text, kinds=("money",))
        if money and money[0].text.strip() == text:
            return "money", money[0].value
    if _PLAIN_NUMBER.fullmatch(text):
        return _number_kind(name, text)
    return "text", text.lower()


_PLAIN_NUMBER = re.compile(r"-?\d[\d,]*(\.\d+)?\s?%?")
_DIGIT = re.compile(r"\d")


def _number_kind(name: str, text: str) -> tuple[str, str]:
    kind = "money" if _MONEY_FIELD.search(name) else "number"
    return kind, normalise("number", text) + ("%" if text.endswith("%") else "")


def load_sot(
    project: Project,
) -> tuple[list[SotField], list[str], list[dict[str, str]], list[dict[str, str]]]:
    """Every field of every SoT record, the files read, files that failed to parse, and
    files skipped for size — each skip named, never silent.

    CSV files are streamed row by row up to ``search.index.max_sot_bytes`` (the index's
    ``max_file_bytes`` cap does not apply: a large ledger is exactly what facts are checked
    against); YAML and JSON are parsed whole, so they keep ``max_file_bytes``.
    """
    settings = project.settings.search
    caps = settings.index
    found = discover(project.root, [project.root], settings)
    fields: list[SotField] = []
    sources: list[str] = []
    errors: list[dict[str, str]] = []
    skipped: list[dict[str, str]] = []
    from charter.search.discover import matches_any
    from charter.secretscan.apply import project_scanner, scrub_record

    scanner = project_scanner(project)
    too_large = [
        (project.root / rel, rel) for rel, why in found.skipped if why.startswith("too large")
    ]
    for absolute, rel in sorted([*found.files, *too_large], key=lambda item: item[1]):
        kind = file_kind(rel, settings)
        if kind not in ("csv", "yaml", "json") or not matches_any(rel, caps.sot_paths):
            continue
        cap, key = (
            (caps.max_sot_bytes, "search.index.max_sot_bytes")
            if kind == "csv"
            else (caps.max_file_bytes, "search.index.max_file_bytes")
        )
        try:
            size = absolute.stat().st_size
        except OSError as exc:
            errors.append({"path": rel, "error": f"cannot read SoT file {rel}: {exc.strerror}"})
            continue
        if size > cap:
            skipped.append(
                {"path": rel, "reason": f"SoT file {rel} not checked: {size} bytes > {key} = {cap}"}
            )
            continue
        try:
            records = _records(absolute, kind, rel)
            for address, title, raw_record in records:
                # credential columns and flagged values never reach a verdict
                record = scrub_record(raw_record, scanner) or {}
                for name, raw in record.items():
                    field_kind, value = _field_kind(name, raw)
                    fields.append(SotField(rel, address, title, name, raw, field_kind, value))
        except CharterError as exc:
            fields = [f for f in fields if f.path != rel]
            errors.append({"path": rel, "error": str(exc)})
            continue
        sources.append(rel)
    return fields, sources, errors, skipped


def _records(absolute: Path, kind: str, rel: str) -> Iterator[tuple[str, str, dict[str, str]]]:
    """(address, title, fields) of each record; CSV rows are read as a stream."""
    if kind == "csv":
        try:
            with open(absolute, encoding="utf-8-sig", newline="") as handle:
                for rec in csv_records(handle, rel):
                    yield f"row={rec.row}", rec.title, rec.fields
        except OSError as exc:
            raise CharterError(f"cannot read SoT file {rel}: {exc.strerror}") from None
        return
    parsed = parse_file(read_text(absolute, what="SoT file"), kind, rel)
    for chunk in parsed.chunks:
        yield chunk.address, chunk.title, chunk.record or {}


def _comparable(fact_kind: str, field_kind: str) -> bool:
    if fact_kind in ("money", "number"):
        return field_kind in ("money", "number")
    return fact_kind == field_kind


def _sentence(text: str, fact: Fact) -> str:
    start = max(text.rfind("\n", 0, fact.start), text.rfind(". ", 0, fact.start)) + 1
    ends = [i for i in (text.find("\n", fact.end), text.find(". ", fact.end)) if i != -1]
    return text[start : min(ends) if ends else len(text)]


def _hint_score(name: str, sentence_words: set[str]) -> int:
    lowered = name.lower()
    score = 0
    for key, hints in FIELD_HINTS.items():
        if key in lowered and sentence_words & set(hints):
            score += 2
    for part in re.split(r"[_\W]+", lowered):
        if part and part in sentence_words:
            score += 1
    return score


def verify_text(project: Project, text: str) -> FactReport:
    """Verify every fact in ``text`` against the project's SoT (no logging)."""
    fields, sources, errors, skipped = load_sot(project)
    report = FactReport(sources=sources, errors=errors, skipped=skipped)
    by_record: dict[tuple[str, str], list[SotField]] = {}
    for f in fields:
        by_record.setdefault((f.path, f.address), []).append(f)
    record_names = {
        key: {
            f.value.lower()
            for f in group
            if len(f.value) >= 3 and (f.kind == "id" or f.name.lower() in NAME_FIELDS)
        }
        | _coded_title(group)
        for key, group in by_record.items()
    }
    for fact in find_facts(text):
        sentence = _sentence(text, fact)
        lowered = sentence.lower()
        words = set(re.findall(r"[a-z]+", lowered))
        same = [f for f in fields if _comparable(fact.kind, f.kind) and f.value == fact.value]
        # the records this sentence is about: an ID or a name of the record appears in it
        about = _mentioned(record_names, lowered)
        topical = False
        if not about:  # the sentence names no record: fall back to the nearest one before it
            about = _mentioned(record_names, text[: fact.start].lower(), nearest=True)
            topical = bool(about)
        if fact.kind == "id":
            hits = [f for f in fields if f.kind == "id" and f.value == fact.value]
            # prefer the record the ID identifies (an *id column) over one that refers to it
            hits.sort(key=lambda f: (not f.name.lower().endswith("id"), f.path, f.address))
            hit = hits[0] if hits else None
            report.facts.append(_verdict(fact, "verified" if hit else "not_found", hit, hit))
            continue
        in_context = [f for f in same if (f.path, f.address) in about]
        # the named record's own copy first (the file the sentence names)
        in_context.sort(key=lambda f: -_rank(f, lowered, words, fact.value))
        if in_context:
            report.facts.append(_verdict(fact, "verified", in_context[0], in_context[0]))
            continue
        # a value found in another record verifies nothing the sentence says of the record
        # it names: "<paper> was published in 2020" is wrong when that paper's row says
        # 2019, though some other row holds a 2020 (a SoT of years, counts and scores
        # holds most small numbers somewhere); only a sentence that names no record, or
        # whose record has no field this fact clearly stands for, is verified by them
        candidates = [f for key in about for f in by_record[key] if _comparable(fact.kind, f.kind)]
        if candidates:
            ranked = sorted(candidates, key=lambda f: -_rank(f, lowered, words, fact.value))
            best = ranked[0]
            top = _rank(best, lowered, words, fact.value)
            tied = [f for f in ranked if _rank(f, lowered, words, fact.value) == top]
            # the same record in two files (a paper's row in two tables) ties with itself:
            # copies that agree on the value are one answer
            clear = len(tied) == 1 or len({f.value for f in tied}) == 1
            # the sentence's own record: a field the fact clearly stands for (its name in
            # the sentence, a year for a year column) or, with no other record holding
            # the value, the only field of its kind; the record of an earlier sentence
            # only by the field's name, and never against a value found elsewhere
            stands = _hint_score(best.name, words) > 0
            if topical:
                wrong = clear and stands and not same
            else:
                wrong = clear and (top > 0 or not same)
            if wrong:
                report.facts.append(_verdict(fact, "mismatch", best, best))
                continue
        if same:
            report.facts.append(_verdict(fact, "verified", same[0], same[0]))
            continue
        report.facts.append(_verdict(fact, "not_found", None, None))
    return report


def _coded_title(group: list[SotField]) -> set[str]:
    """The record's own key when it is a code ("2.32.4", "v3-beta", "SKU 77B"): a table
    keyed by a version or a code names its records by it, though the column is neither an
    id nor a name. A date, an amount or a plain number is never a key here: it would tie
    every sentence stating that value to the record."""
    title = group[0].record_title.strip() if group else ""
    if len(title) < 3 or not _DIGIT.search(title) or _field_kind("", title)[0] != "text":
        return set()
    return {title.lower()}


def _rank(field: SotField, sentence: str, words: set[str], value: str = "") -> int:
    """A record whose own key is named outranks one that merely refers to it; a year
    ("in 2020") stands for a field named for years before a count or a score; and of
    records with the same key in several files (one file per product, each keyed by
    version: ``python.json`` and ``alpine-linux.json`` both hold a "3.7"), the one whose
    file the sentence names ("Python 3.7 …") is the one it is about."""
    title = field.record_title.lower()
    own = 3 if title and _mentions(sentence, title) else 0
    year = 2 if _YEAR.fullmatch(value) and "year" in field.name.lower() else 0
    return own + _file_named(field.path, sentence) + _hint_score(field.name, words) + year


def _file_named(path: str, sentence: str) -> int:
    """3 when the sentence names the record's file by its stem (``alpine-linux.json``:
    "alpine-linux" or "alpine linux"), else 0."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    if len(stem) < 3:
        return 0
    spaced = re.sub(r"[-_]+", " ", stem)
    return 3 if _mentions(sentence, stem) or _mentions(sentence, spaced) else 0


_YEAR = re.compile(r"1[89]\d\d|2[01]\d\d")


def _mentioned(
    record_names: dict[tuple[str, str], set[str]], text: str, *, nearest: bool = False
) -> list[tuple[str, str]]:
    """Records named in ``text``; with ``nearest``, only those named last in it."""
    hits: list[tuple[int, tuple[str, str]]] = []
    for key, names in record_names.items():
        positions = [_last_mention(text, name) for name in names]
        best = max(positions, default=-1)
        if best >= 0:
            hits.append((best, key))
    if not hits:
        return []
    if nearest:
        last = max(pos for pos, _ in hits)
        return [key for pos, key in hits if pos >= last - 80]
    return [key for _, key in hits]


def _last_mention(text: str, name: str) -> int:
    if name not in text:  # cheap test first: large SoT files have many names
        return -1
    found = -1
    for match in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
        found = match.start()
    return found


def _mentions(sentence: str, name: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", sentence) is not None


def _verdict(
    fact: Fact, status: str, canonical: SotField | None, where: SotField | None
) -> FactVerdict:
    return FactVerdict(
        kind=fact.kind,
        text=fact.text,
        value=fact.value,
        line=fact.line,
        status=status,
        canonical=canonical.raw if canonical else None,
        address=where.citation if where else None,
        field=where.name if where else None,
        record=where.record_title if where else None,
    )


def check_facts(project: Project, text: str, *, source: str = "-") -> FactReport:
    """Verify and append the outcome to ``context_actions.csv``."""
    started = time.perf_counter()
    report = verify_text(project, text)
    settings = project.settings.search
    log_action(
        project.root / settings.actions_log,
        action="facts.check",
        mode="execution",
        query=text,
        scope={"source": source, "sot": report.sources},
        results=[
            f"{f.status}:{f.text}" + (f"@{f.address}" if f.address else "") for f in report.facts
        ],
        duration_ms=(time.perf_counter() - started) * 1000,
        detail=report.counts(),
        root=project.root,
    )
    return report


def stale_sot(
    project: Project, now: float | None = None, candidates: list[str] | None = None
) -> list[dict[str, Any]]:
    """SoT files last changed more than ``stale_days`` ago (git commit time, else mtime).

    ``candidates`` (paths relative to the root, the indexed documents for a search) spares
    the walk of the whole tree; git is asked only about the SoT files among them, and not
    at all when there are none (a code repository without SoT records)."""
    from charter.search.discover import matches_any

    settings = project.settings.search
    now = time.time() if now is None else now
    if candidates is None:
        found = discover(project.root, [project.root], settings)
        candidates = [rel for _, rel in found.files]
    sot = [
        rel
        for rel in candidates
        if matches_any(rel, settings.index.sot_paths)
        and file_kind(rel, settings) in ("csv", "yaml", "json")
        and (project.root / rel).is_file()
    ]
    if not sot:
        return []
    times = gitinfo.commit_times(project.root, sot)
    stale: list[dict[str, Any]] = []
    for rel in sot:
        absolute = project.root / rel
        changed = float(times.get(rel) or Path(absolute).stat().st_mtime)
        age = (now - changed) / 86400
        if age > settings.stale_days:
            stale.append({"path": rel, "age_days": int(age), "last_changed": int(changed)})
    return sorted(stale, key=lambda s: (-s["age_days"], s["path"]))
