"""Incremental indexing: read changed files, chunk, embed only what is new, store.

A file is re-read only when its content hash changed; within a changed file, chunks whose
text is unchanged keep their stored vectors, so only new text reaches the embedding model.
Files that disappear from disk stay in the index marked ``deleted`` (review mode can still
find them), and files deleted in git history are added the same way. Malformed files are
reported and skipped; everything else is still indexed.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charter.boundary import inside_root
from charter.config import Project
from charter.embed.base import Embedder
from charter.errors import CharterError
from charter.fileio import MAX_TEXT_BYTES, fault_point, iter_jsonl, locked, read_text
from charter.notebooks import SUFFIX as NOTEBOOK_SUFFIX
from charter.search import gitinfo
from charter.search.bm25 import bm25_for
from charter.search.chunks import Chunk, ParsedDoc
from charter.search.discover import discover, file_kind, zone_for
from charter.search.noise import noise_rules
from charter.search.parse import embed_text, is_fixture, is_template, parse_file
from charter.search.store import SearchStore
from charter.search.text import analyze
from charter.search.vectors import vectors_for
from charter.secretscan import ledger
from charter.secretscan.apply import scrub_pending
from charter.store.db import read_snapshot

#: Texts per call to the embedder.
EMBED_BATCH = 256
#: Chunks embedded before their documents are committed (a kill loses at most these).
STORE_EVERY = 2048


@dataclass
class IndexReport:
    """What an index run did (the CLI prints it; tests assert on it)."""

    indexed: list[str] = field(default_factory=list)  # re-read and stored
    unchanged: int = 0
    deleted: list[str] = field(default_factory=list)  # newly marked deleted
    history: list[str] = field(default_factory=list)  # deleted-in-git files added
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unindexed: dict[str, int] = field(default_factory=dict)  # extension -> files not indexed
    errors: list[tuple[str, str]] = field(default_factory=list)
    chunks_embedded: int = 0
    chunks_reused: int = 0
    embedded_paths: list[str] = field(default_factory=list)
    redacted: dict[str, int] = field(default_factory=dict)  # path -> secrets redacted
    totals: dict[str, int] = field(default_factory=dict)  # what the index holds afterwards
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "history": self.history,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "unindexed": self.unindexed,
            "errors": [{"path": p, "error": e} for p, e in self.errors],
            "chunks_embedded": self.chunks_embedded,
            "chunks_reused": self.chunks_reused,
            "embedded_paths": self.embedded_paths,
            "redacted": self.redacted,
            "totals": self.totals,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class _Pending:
    path: str
    kind: str
    sha256: str
    mtime: float
    zone: str
    status: str
    origin: str
    changed_at: float
    parsed: ParsedDoc
    commit: str | None = None
    hashes: list[str] = field(default_factory=list)
    vectors: list[bytes | None] = field(default_factory=list)


def _sha(data: str) -> str:
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


#: How files are cut into chunks. Every file is read again when this changed since the
#: index was last completed: bump it with any change that cuts an unchanged file
#: differently (2: a long Markdown table or list is split between rows and items; 3: a
#: section whose body holds no word is no chunk), or an
#: index built before the change keeps the old chunks of every file nobody edits. Vectors
#: are reused by text, so a bump re-embeds only the chunks whose text is new. The stamp
#: is one row of the index's ``meta`` table, written after a run completes; each
#: document's ``sha256`` stays the SHA-256 of its text.
PARSE_VERSION = 3


def _reparse_needed(conn: sqlite3.Connection) -> bool:
    """Whether the stored chunks were cut by another chunker than this one."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'parse_version'").fetchone()
    return row is None or row[0] != str(PARSE_VERSION)


def _stamp_parse_version(conn: sqlite3.Connection) -> None:
    with conn:
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('parse_version', ?)",
            (str(PARSE_VERSION),),
        )


def _title(parsed: ParsedDoc, rel: str) -> str:
    meta_title = parsed.meta.get("title")
    if meta_title:
        return str(meta_title)
    for chunk in parsed.chunks:
        if chunk.title:
            return chunk.title
    return rel.rsplit("/", 1)[-1]


def _fts_row(chunk: Chunk) -> tuple[str, str, str]:
    return analyze(chunk.section or chunk.title), analyze(chunk.text), chunk.text


class Indexer:
    """Indexes one project into ``.charter/search.db`` with one embedding model."""

    def __init__(self, project: Project, embedder: Embedder, *, progress: bool = False) -> None:
        self.project = project
        self.settings = project.settings.search
        self.embedder = embedder
        self.progress = progress

    def _store(self) -> SearchStore:
        return SearchStore.for_state_dir(self.project.state_dir)

    def run(self, paths: Sequence[Path] | None = None) -> IndexReport:
        """Index ``paths`` (default: the configured roots) and return what happened.

        One run at a time per project: a second ``charter index`` (a hook, an MCP call, a
        user) waits for the first and then finds its work done, instead of embedding the
        same files again in parallel (minutes of model time on a large repository)."""
        with locked(self.project.state_dir / "index-run"):
            return self._run(paths)

    def _run(self, paths: Sequence[Path] | None) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport()
        root = self.project.root
        targets = [Path(p) if Path(p).is_absolute() else root / p for p in (paths or [])]
        if not targets:
            targets = [root / p for p in self.settings.index.paths]
        for target in targets:
            if not target.exists():
                raise CharterError(f"path not found: {target}")
            # refused before the walk: /etc or / would be walked whole, file by file
            inside_root(root, target, what=f"path {target}")
        found = discover(root, targets, self.settings)
        report.skipped = found.skipped
        report.unindexed = found.unindexed
        commit_times = gitinfo.commit_times(root)
        with self._store() as store:
            known = store.docs()
            rescan = ledger.ensure(store.conn, self.project.settings.secrets)
            reparse = _reparse_needed(store.conn)
            if rescan:  # stored under another secrets policy (or none): read every file
                known = {}
            if store.models() - {self.embedder.name}:
                # vectors from another model can't be compared with this one's: re-embed all
                known = {path: doc for path, doc in known.items() if doc.status == "deleted"}
                with store.conn:  # deleted files keep BM25 only; their text is gone
                    store.conn.execute(
                        "DELETE FROM vectors WHERE model != ?", (self.embedder.name,)
                    )
                    # same transaction: a kill after it must not leave live documents
                    # marked as indexed while their vectors are gone
                    store.conn.execute("UPDATE docs SET sha256 = '' WHERE status = 'live'")
                    store.bump_generation()
            pending: list[_Pending] = []
            seen: set[str] = set()
            noise = noise_rules(root, self.settings.index)
            index = self.settings.index

            def cap_of(rel: str) -> int:
                # a notebook's outputs are most of its bytes and are never indexed
                notebook = rel.lower().endswith(NOTEBOOK_SUFFIX)
                return max(MAX_TEXT_BYTES, index.max_notebook_bytes if notebook else 0)

            for absolute, rel in found.files:
                try:
                    text = read_text(absolute, what="document", max_bytes=cap_of(rel))
                except CharterError as exc:
                    seen.add(rel)
                    report.errors.append((rel, str(exc)))
                    continue
                reason = noise.text_reason(rel, text)
                if reason is not None:  # not seen: an earlier index of it is dropped below
                    report.skipped.append((rel, reason))
                    continue
                seen.add(rel)
                digest = _sha(text)
                stat = absolute.stat()
                kind = file_kind(rel, self.settings) or "text"
                old = known.get(rel)
                if (
                    not reparse
                    and old
                    and old.sha256 == digest
                    and old.status == "live"
                    and old.origin == "fs"
                ):
                    report.unchanged += 1
                    continue
                try:
                    parsed = parse_file(text, kind, rel, self.settings.index.max_chunk_tokens)
                except CharterError as exc:
                    structured = kind in ("yaml", "json", "notebook")
                    if not structured or not (is_template(text) or is_fixture(rel)):
                        report.errors.append((rel, str(exc)))
                        continue
                    # ``<%= … %>`` in a Rails fixture, ``{{ .Values }}`` in a chart: YAML
                    # only once rendered; a test's deliberately broken manifest: its text
                    # is indexed, with no warning
                    kind = "text"
                    parsed = parse_file(text, kind, rel, self.settings.index.max_chunk_tokens)
                declared = parsed.meta.get("zone")
                pending.append(
                    _Pending(
                        path=rel,
                        kind=kind,
                        sha256=digest,
                        mtime=stat.st_mtime,
                        zone=zone_for(rel, self.settings, str(declared) if declared else None),
                        status="live",
                        origin="fs",
                        changed_at=float(commit_times.get(rel) or stat.st_mtime),
                        parsed=parsed,
                    )
                )
            now = time.time()
            # resolved once: a one-file run in a large index checks every known document
            resolved_targets = [t.resolve() for t in targets]
            for rel, doc in known.items():
                if doc.status != "live" or doc.origin == "jsonl" or rel in seen:
                    continue
                absolute = root / rel
                if not _under(absolute.resolve(), resolved_targets):
                    continue
                if absolute.exists():
                    with store.conn:  # now excluded, ignored or a secret: drop it
                        store.delete_doc(rel)
                    continue
                with store.conn:
                    store.mark_deleted(rel, now)
                report.deleted.append(rel)
            if self.settings.index.git_history and targets == [
                root / p for p in self.settings.index.paths
            ]:
                pending.extend(self._history(root, known, report))
            self._embed_and_store(store, pending, report)
            if rescan:
                ledger.stamp(store.conn, self.project.settings.secrets)
            if reparse and targets == [root / p for p in self.settings.index.paths]:
                _stamp_parse_version(store.conn)  # every file under the index paths re-cut
            report.totals = store.stats()
        report.indexed = [p.path for p in pending if p.origin == "fs"]
        report.seconds = time.perf_counter() - started
        return report

    def _history(self, root: Path, known: dict[str, Any], report: IndexReport) -> list[_Pending]:
        out: list[_Pending] = []
        noise = noise_rules(root, self.settings.index)
        for gone in gitinfo.deleted_files(root, self.settings.index.git_history_limit):
            if gone.path in known:
                continue
            kind = file_kind(gone.path, self.settings)
            if kind is None:
                continue
            from charter.search.discover import charter_own, is_secret, matches_any

            if (
                charter_own(gone.path)
                or is_secret(gone.path, self.settings.index.deny)
                or matches_any(gone.path, self.settings.index.exclude)
            ):
                continue
            text = gitinfo.show_before(
                root, gone.commit, gone.path, self.settings.index.max_file_bytes
            )
            if text is None or noise.path_reason(gone.path) or noise.text_reason(gone.path, text):
                continue
            try:
                parsed = parse_file(text, kind, gone.path, self.settings.index.max_chunk_tokens)
            except CharterError:
                # A deleted file is kept for what it said, and nobody can repair its old
                # syntax: warned about, a malformed JSON file gone from the tree for years
                # was named on every run (it was never stored, so each run read it again).
                # Its records can't be read, so its text is indexed as prose.
                kind = "text"
                parsed = parse_file(text, kind, gone.path, self.settings.index.max_chunk_tokens)
            declared = parsed.meta.get("zone")
            out.append(
                _Pending(
                    path=gone.path,
                    kind=kind,
                    sha256=_sha(text),
                    mtime=float(gone.time),
                    zone=zone_for(gone.path, self.settings, str(declared) if declared else None),
                    status="deleted",
                    origin="git",
                    changed_at=float(gone.time),
                    parsed=parsed,
                    commit=gone.commit,
                )
            )
            report.history.append(gone.path)
        return out

    def _embed_and_store(
        self, store: SearchStore, pending: list[_Pending], report: IndexReport
    ) -> None:
        model = self.embedder.name
        redactions = scrub_pending(self.project, store, pending, report.redacted)
        total = sum(len(item.parsed.chunks) for item in pending)
        bar = _bar(total) if self.progress and total > EMBED_BATCH else None
        embedded: set[str] = set()
        try:
            # documents are embedded and committed a slice at a time: a kill (or a crash)
            # loses at most one slice's work, and vectors never pile up for a whole repo
            begin = 0
            while begin < len(pending):
                end, size = begin, 0
                while end < len(pending) and (end == begin or size < STORE_EVERY):
                    size += len(pending[end].parsed.chunks)
                    end += 1
                self._embed_slice(
                    store, pending[begin:end], redactions[begin:end], report, embedded, bar
                )
                begin = end
        finally:
            if bar is not None:
                bar[0].stop()
        report.embedded_paths = sorted(embedded)
        if pending or report.deleted:
            # the generation moved with each document (a trigger, same transaction);
            # compile BM25 weights and the vector sidecar now so the first search after
            # indexing is fast (a kill before either leaves it stale: rebuilt on read)
            fault_point("index.committed")
            # one read snapshot: a parallel `charter index` committing meanwhile can never
            # leave a cache whose stamp and content come from different generations
            with read_snapshot(store.conn):
                bm25_for(store, self.project.state_dir, self.settings.fusion.title_weight)
                vectors_for(store, self.project.state_dir, model, self.embedder.dim)

    def _embed_slice(
        self,
        store: SearchStore,
        pending: list[_Pending],
        redactions: list[Any],
        report: IndexReport,
        embedded: set[str],
        bar: tuple[Any, Any] | None,
    ) -> None:
        model = self.embedder.name
        todo: list[tuple[int, int, str]] = []  # (pending index, chunk index, text)
        for p_index, item in enumerate(pending):
            texts = [embed_text(c.section, c.text) for c in item.parsed.chunks]
            item.hashes.extend(_sha(text) for text in texts)
            reusable = store.vectors_by_hash(item.hashes, model)
            for c_index, (text, digest) in enumerate(zip(texts, item.hashes, strict=True)):
                if digest in reusable:
                    item.vectors.append(reusable[digest])
                    report.chunks_reused += 1
                else:
                    item.vectors.append(None)
                    todo.append((p_index, c_index, text))
        if bar is not None:
            bar[0].update(bar[1], advance=sum(len(p.parsed.chunks) for p in pending) - len(todo))
        if todo:
            self._embed(todo, pending, bar)
            report.chunks_embedded += len(todo)
            embedded.update(pending[p].path for p, _, _ in todo)
        for p_index, item in enumerate(pending):
            title = _title(item.parsed, item.path)
            fault_point("index.doc")
            with store.conn:
                ledger.record(store.conn, item.path, item.origin, redactions[p_index])
                store.write_doc(
                    path=item.path,
                    kind=item.kind,
                    sha256=item.sha256,
                    mtime=item.mtime,
                    zone=item.zone,
                    status=item.status,
                    origin=item.origin,
                    changed_at=item.changed_at,
                    title=title,
                    refs=item.parsed.refs,
                    chunks=item.parsed.chunks,
                    fts_rows=[_fts_row(c) for c in item.parsed.chunks],
                    text_hashes=item.hashes,
                    vectors=[v or b"" for v in item.vectors],
                    model=model,
                    commit_sha=item.commit,
                )
            item.vectors = []  # stored: let a large run's vectors go

    def _embed(
        self,
        todo: list[tuple[int, int, str]],
        pending: list[_Pending],
        bar: tuple[Any, Any] | None,
    ) -> None:
        # Identical texts (a licence header, a copied fixture, a repeated record) are
        # embedded once, and texts of similar length share a call so batches carry
        # little padding: a text's vector does not depend on its batch, bit for bit
        # (tests/test_embed_batching.py), so both change the time only.
        places: dict[str, list[tuple[int, int]]] = {}
        for p_index, c_index, text in todo:
            places.setdefault(text, []).append((p_index, c_index))
        texts = sorted(places, key=len)
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start : start + EMBED_BATCH]
            vectors = self.embedder.embed(batch)
            advanced = 0
            for text, vector in zip(batch, vectors, strict=True):
                blob = vector.astype("float32").tobytes()
                for p_index, c_index in places[text]:
                    pending[p_index].vectors[c_index] = blob
                advanced += len(places[text])
            if bar is not None:
                bar[0].update(bar[1], advance=advanced)


def _bar(total: int) -> tuple[Any, Any]:
    """A progress bar on stderr over ``total`` chunks (reused ones advance it at once)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr, emoji=False),
        transient=True,
    )
    bar.start()
    return bar, bar.add_task("embedding chunks", total=total)


def _under(resolved: Path, targets: Sequence[Path]) -> bool:
    """Is the resolved ``resolved`` one of the resolved ``targets`` or inside one?"""
    return any(resolved.is_relative_to(target) for target in targets)


def index_jsonl(
    project: Project, file: Path, embedder: Embedder, *, progress: bool = False
) -> IndexReport:
    """Index an exported corpus (``{"_id","title","text"}`` per line) as one document.

    Each line becomes one chunk whose ``doc_key`` is its ``_id``; a changed file keeps the
    vectors of unchanged lines.
    """
    started = time.perf_counter()
    report = IndexReport()
    text = read_text(file, what="JSONL file", max_bytes=1 << 31)
    rel = project.rel(file)
    chunks: list[Chunk] = []
    for number, obj in iter_jsonl(file, text=text):
        if "_id" not in obj:
            raise CharterError(f'malformed JSONL {file}: line {number}: needs an "_id" field')
        title = str(obj.get("title") or "").strip()
        body = str(obj.get("text") or "")
        chunks.append(
            Chunk(
                kind="jsonl",
                line_start=number,
                line_end=number,
                section=title,
                title=title,
                text=body,
                ordinal=len(chunks),
                doc_key=str(obj["_id"]),
            )
        )
    indexer = Indexer(project, embedder, progress=progress)
    with indexer._store() as store:
        old = store.docs().get(rel)
        digest = _sha(text)
        if old and old.sha256 == digest:
            report.unchanged = 1
        else:
            pending = _Pending(
                path=rel,
                kind="jsonl",
                sha256=digest,
                mtime=file.stat().st_mtime,
                zone=zone_for(rel, project.settings.search),
                status="live",
                origin="jsonl",
                changed_at=file.stat().st_mtime,
                parsed=ParsedDoc(chunks=chunks),
            )
            indexer._embed_and_store(store, [pending], report)
            report.indexed = [rel]
        report.totals = store.stats()
    report.seconds = time.perf_counter() - started
    return report
