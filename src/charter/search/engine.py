"""Mode-aware hybrid search, the seed's pipeline end to end.

1. resolve the mode's scope (paths, zones, time window, deleted files) to a document mask;
2. BM25 top ``k_in`` and dense top ``k_in`` inside it; exact IDs/dates/phrases first
   when the mode asks for exact lookups;
3. merge and de-duplicate by weighted reciprocal rank fusion;
4. rerank the fused head with the configured reranker, fuse once more;
5. top ``k_out`` with citations; expansion with parent/sibling sections, citation chaining
   and recency order where the mode says so.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from charter.config import Project
from charter.embed.base import Embedder
from charter.errors import CharterError
from charter.search.actions import log_action
from charter.search.bm25 import bm25_for
from charter.search.chunks import Chunk
from charter.search.discover import is_adr_path, matches_any
from charter.search.embedding import search_embedder
from charter.search.fusion import ranked, rrf, zscore
from charter.search.patterns import find_facts
from charter.search.rerank import Candidates, Reranker, get_reranker
from charter.search.retrieve import HybridRetriever, Mask
from charter.search.scope import Scope, resolve_scope
from charter.search.settings import SearchSettings
from charter.search.store import DB_NAME, SearchStore
from charter.search.vectors import vectors_for
from charter.secretscan.apply import project_scanner, scrub_chunk, scrub_text, text_kind
from charter.store.db import read_snapshot


@dataclass
class Result:
    chunk_id: int
    citation: str
    path: str
    line_start: int
    line_end: int
    section: str
    text: str
    score: float
    scores: dict[str, float | None]
    kind: str = ""
    zone: str = ""
    address: str = ""
    doc_key: str = ""
    status: str = "live"
    changed_at: float = 0.0
    record: dict[str, str] | None = None
    chained_from: str | None = None
    exact: bool = False
    context: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "citation": self.citation,
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "section": self.section,
            "text": self.text,
            "score": round(self.score, 6),
            "scores": {k: (None if v is None else round(v, 6)) for k, v in self.scores.items()},
            "kind": self.kind,
            "zone": self.zone,
            "deleted": self.status == "deleted",
            "exact": self.exact,
        }
        if self.address:
            out["address"] = self.address
        if self.record is not None:
            out["record"] = self.record
        if self.doc_key:
            out["doc_id"] = self.doc_key
        if self.chained_from:
            out["chained_from"] = self.chained_from
        if self.context:
            out["context"] = self.context
        return out


@dataclass
class SearchResponse:
    query: str
    mode: str
    results: list[Result]
    scope: Scope
    warnings: list[str] = field(default_factory=list)
    duration_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "results": [r.as_dict() for r in self.results],
            "scope": self.scope.as_dict(),
            "warnings": self.warnings,
        }


def _exact_phrases(query: str) -> list[str]:
    facts = find_facts(query, kinds=("id", "date", "money", "phrase"))
    return [f.text.strip() for f in facts]


class SearchEngine:
    """Searches one project's index; keep it around to amortise loading."""

    def __init__(
        self,
        project: Project,
        *,
        embedder: Embedder | None = None,
        reranker: Reranker | str | None = "config",
    ) -> None:
        self.project = project
        self.settings: SearchSettings = project.settings.search
        db = project.state_dir / DB_NAME
        if not db.exists():
            raise CharterError(f"no search index at {db}: run `charter index` first")
        self.store = SearchStore(db)
        self.embedder = embedder or search_embedder(project.settings)
        with read_snapshot(self.store.conn):  # one consistent state, even mid re-index
            #: the index generation this engine's in-memory state was loaded from
            self.generation = self.store.generation()
            matrix = bm25_for(self.store, project.state_dir, self.settings.fusion.title_weight)
            vectors = vectors_for(
                self.store, project.state_dir, self.embedder.name, self.embedder.dim
            )
            self.retriever = HybridRetriever(
                self.store, self.embedder, self.settings, matrix, vectors
            )
        self._reranker_choice = reranker
        self._reranker: Reranker | None = None
        self._reranker_loaded = False
        self._mask_cache: dict[str, Mask] = {}
        self._stale_cache: tuple[float, list[dict[str, Any]]] | None = None
        self.scanner = project_scanner(project)

    def close(self) -> None:
        self.store.close()

    @property
    def reranker(self) -> Reranker | None:
        if not self._reranker_loaded:
            choice = self._reranker_choice
            self._reranker = (
                get_reranker(self.settings.rerank)
                if choice == "config"
                else (None if isinstance(choice, str) else choice)
            )
            self._reranker_loaded = True
        return self._reranker

    # -- scope ---------------------------------------------------------------------
    def doc_mask(self, scope: Scope, now: float | None = None) -> Mask:
        key = json.dumps(scope.as_dict(), sort_keys=True)
        if key in self._mask_cache and now is None:
            return self._mask_cache[key]
        now = time.time() if now is None else now
        window = scope.time_window_days * 86400
        allowed = np.zeros(len(self.retriever.doc_paths), dtype=bool)
        for i, path in enumerate(self.retriever.doc_paths):
            doc = self.retriever.docs[path]
            if doc.status == "deleted" and not scope.include_deleted:
                continue
            if doc.zone in scope.excluded_zones:
                continue
            if not (
                matches_any(path, scope.search_paths)
                or (scope.adrs and is_adr_path(path))
                or matches_any(path, scope.sot_paths)
            ):
                continue
            if (
                window
                and doc.changed_at < now - window
                # an ADR stays reachable however old it is (any ADR folder, whatever
                # the configured globs say)
                and not (is_adr_path(path) or matches_any(path, scope.time_window_exempt))
            ):
                continue
            allowed[i] = True
        self._mask_cache[key] = allowed
        return allowed

    # -- search --------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        mode: str | None = None,
        k_out: int | None = None,
        k_in: int | None = None,
        zones: list[str] | None = None,
        variables: dict[str, str] | None = None,
        rerank: bool = True,
        log: bool = True,
    ) -> SearchResponse:
        """Run one search and (by default) append it to ``context_actions.csv``.

        All reads of one search see one state of the index (a read snapshot); results
        whose chunks another process removed since this engine loaded are dropped with a
        warning, never an error.
        """
        if not query.strip():
            raise CharterError("empty query")
        with read_snapshot(self.store.conn):
            return self._search(
                query,
                mode=mode,
                k_out=k_out,
                k_in=k_in,
                zones=zones,
                variables=variables,
                rerank=rerank,
                log=log,
            )

    def _search(
        self,
        query: str,
        *,
        mode: str | None,
        k_out: int | None,
        k_in: int | None,
        zones: list[str] | None,
        variables: dict[str, str] | None,
        rerank: bool,
        log: bool,
    ) -> SearchResponse:
        started = time.perf_counter()
        mode = mode or self.settings.default_mode
        scope = resolve_scope(
            self.settings, mode, k_out=k_out, k_in=k_in, zones=zones or [], variables=variables
        )
        doc_mask = self.doc_mask(scope)
        mask = self.retriever.chunk_mask(doc_mask)
        retriever = self.retriever
        bm25_all = retriever.bm25_all(query)
        qvec = retriever.embed_query(query)
        dense_all = retriever.dense_all(qvec)
        bm25 = retriever.top(bm25_all, mask, scope.k_in, positive=True)
        dense = retriever.top(dense_all, mask, scope.k_in)
        exact_ids: list[int] = []
        titled: set[int] = set()
        if scope.exact_lookups:
            phrases = _exact_phrases(query)
            exact_ids = retriever.known(retriever.exact(phrases, mask))
            titled = retriever.titled(phrases, exact_ids)
        # the pool: both top lists and the exact matches, de-duplicated, each chunk with
        # both of its true scores
        pool = list(
            dict.fromkeys([c.chunk_id for c in bm25] + [c.chunk_id for c in dense] + exact_ids)
        )
        positions = retriever.positions(pool)
        bm25_scores = {i: float(bm25_all[p]) for i, p in zip(pool, positions, strict=True)}
        dense_scores = {i: float(dense_all[p]) for i, p in zip(pool, positions, strict=True)}
        bm25_list = [c.chunk_id for c in bm25]
        fused = self._fuse(bm25_scores, dense_scores, bm25_list, [c.chunk_id for c in dense])
        order = ranked(fused)
        rerank_scores: dict[int, float] = {}
        reranker = self.reranker if rerank else None
        final_scores = dict(fused)
        if reranker is not None and order:
            final_scores, rerank_scores = self._rerank(
                reranker, query, qvec, order, bm25_scores, bm25_list
            )
            order = ranked(final_scores)
        # exact matches first, in their own final order, then the rest; of them, first
        # those under a heading that names the phrase (the ticket titled "SP3-004" before
        # the plans that mention it)
        exact_set = set(exact_ids)
        top_exact = sorted(
            exact_ids, key=lambda i: (i not in titled, -final_scores.get(i, float("-inf")))
        )
        order = top_exact + [i for i in order if i not in exact_set]
        unmatched = _unmatched(order, exact_set, bm25_scores, dense_scores, scope.min_similarity)
        if unmatched:
            order = [i for i in order if i not in unmatched]
        chosen = order[: scope.k_out]
        rows = self.store.chunks_by_id(chosen)
        results: list[Result] = []
        warnings: list[str] = []
        gone = [i for i in chosen if i not in rows or rows[i]["path"] not in retriever.docs]
        if gone:  # another process is re-indexing: these chunks no longer exist
            warnings.append(
                f"the index changed during this search ({len(gone)} results dropped); "
                "search again for fresh results"
            )
        for chunk_id in chosen:
            row = rows.get(chunk_id)
            if row is None or chunk_id in gone:
                continue
            results.append(
                self._result(
                    row,
                    score=final_scores.get(chunk_id, 0.0),
                    scores={
                        "bm25": bm25_scores.get(chunk_id),
                        "dense": dense_scores.get(chunk_id)
                        if chunk_id in dense_scores
                        else self.retriever.cosine(qvec, [chunk_id])[0],
                        "fused": fused.get(chunk_id),
                        "rerank": rerank_scores.get(chunk_id),
                    },
                    exact=chunk_id in exact_set,
                )
            )
        if scope.citation_chaining:
            results.extend(self._chain(results, qvec, doc_mask, scope, _exact_phrases(query)))
        if scope.order_by_recency:
            # newest day first; within a day, most relevant first
            results.sort(key=lambda r: (-int(r.changed_at // 86400), -r.score))
        if scope.chunk_expansion:
            for result in results:
                result.context = self._expand(result.chunk_id)
        window_note = False
        if not results and scope.time_window_days:
            wider = self.doc_mask(replace(scope, time_window_days=0))
            if int(wider.sum()) > int(doc_mask.sum()):  # older documents were not looked at
                window_note = True
                warnings.append(
                    f"nothing in scope that changed in the last {scope.time_window_days} days "
                    f"matches the query (search.modes.{mode}.time_window_days); older "
                    "documents are left out"
                )
        if not results and unmatched and not window_note:
            warnings.append(
                f"no chunk in scope shares a term with the query or reaches a cosine of "
                f"{scope.min_similarity} (search.modes.{mode}.min_similarity); "
                f"{len(unmatched)} weaker candidates left out"
            )
        if self.retriever.missing_vectors:
            warnings.append(
                f"{self.retriever.missing_vectors} chunks have no vector for model "
                f"{self.embedder.name}: run `charter index`"
            )
        if mode == "execution":
            for item in self._stale():
                warnings.append(
                    f"stale source of truth: {item['path']} last changed {item['age_days']} "
                    f"days ago (> {self.settings.stale_days})"
                )
        response = SearchResponse(query, mode, results, scope, warnings)
        response.duration_ms = (time.perf_counter() - started) * 1000
        if log:
            self.log(response)
        return response

    def _fuse(
        self,
        bm25: dict[int, float],
        dense: dict[int, float],
        bm25_list: list[int],
        dense_list: list[int],
    ) -> dict[int, float]:
        """Fused scores over the pool (z-score over both full score sets, or RRF)."""
        fusion = self.settings.fusion
        weights = {"bm25": fusion.bm25_weight, "dense": fusion.dense_weight}
        if fusion.method == "rrf":
            lists = {"bm25": bm25_list, "dense": dense_list}
            return rrf(lists, weights, fusion.rrf_k)
        if fusion.method == "zscore":
            return zscore({"bm25": bm25, "dense": dense}, weights)
        raise CharterError(f"unknown search.fusion.method {fusion.method!r} (zscore | rrf)")

    def _rerank(
        self,
        reranker: Reranker,
        query: str,
        qvec: np.ndarray,
        order: list[int],
        bm25: dict[int, float],
        bm25_list: list[int],
    ) -> tuple[dict[int, float], dict[int, float]]:
        """Final scores after reranking, and the reranker's own scores.

        A ``dense`` reranker (rocchio) rescores the whole candidate pool with a refined
        query vector and the pool is fused again; an ``order`` reranker (a model) scores
        the fused head and its score is fused with the fused score.
        """
        head = order if reranker.kind == "dense" else order[: self.settings.rerank.candidates]
        needs_text = reranker.kind != "dense"
        rows = self.store.chunks_by_id(head) if needs_text else {}
        candidates = Candidates(
            query=query,
            query_vector=qvec,
            texts=[_rerank_text(rows[i]) if i in rows else "" for i in head] if needs_text else [],
            vectors=self.retriever.matrix[self.retriever.positions(head)],
        )
        scores = {i: float(v) for i, v in zip(head, reranker.score(candidates), strict=True)}
        if reranker.kind == "dense":
            return self._fuse(bm25, scores, bm25_list, ranked(scores)), scores
        base = {i: float(len(head) - n) for n, i in enumerate(head)}
        weight = self.settings.rerank.weight
        final = zscore({"fused": base, "rerank": scores}, {"fused": 1.0, "rerank": weight})
        for n, i in enumerate(order[len(head) :]):
            final[i] = -1e9 - n  # below the reranked head, in fused order
        return final, scores

    def _stale(self) -> list[dict[str, Any]]:
        """Stale SoT files among the indexed ones, re-checked at most once a minute."""
        from charter.search.facts import stale_sot

        now = time.monotonic()
        if self._stale_cache is None or now - self._stale_cache[0] > 60:
            # the SoT files search can answer from are the indexed ones: no walk of the
            # tree (seconds on a large repository, on every `charter search`)
            indexed = [path for path, doc in self.store.docs().items() if doc.status == "live"]
            self._stale_cache = (now, stale_sot(self.project, candidates=indexed))
        return self._stale_cache[1]

    def log(self, response: SearchResponse) -> None:
        log_action(
            self.project.root / self.settings.actions_log,
            action="search",
            mode=response.mode,
            query=response.query,
            scope=response.scope.as_dict(),
            results=[r.citation for r in response.results],
            duration_ms=response.duration_ms,
            root=self.project.root,
        )

    # -- helpers -------------------------------------------------------------------
    def _result(
        self, row: sqlite3.Row, *, score: float, scores: dict[str, float | None], exact: bool
    ) -> Result:
        doc = self.retriever.docs[row["path"]]
        path = row["path"]
        address, doc_key = row["address"], row["doc_key"]
        if address:
            citation = f"{path}#{address}"
        elif doc_key:
            citation = f"{path}#{doc_key}"
        else:
            span = f"L{row['line_start']}-L{row['line_end']}"
            citation = f"{path}#{span}" + (f" ({row['section']})" if row["section"] else "")
        if doc.status == "deleted":
            citation += f" [deleted{' in ' + doc.commit_sha[:10] if doc.commit_sha else ''}]"
        # served text is redacted again: the index may predate the scan or its allow-list
        served = Chunk(
            kind=row["kind"],
            line_start=int(row["line_start"]),
            line_end=int(row["line_end"]),
            section=row["section"],
            title=row["title"],
            text=row["text"],
            record=json.loads(row["record"]) if row["record"] else None,
        )
        if scrub_chunk(served, path, text_kind(row["kind"], path), self.scanner):
            citation = citation.replace(row["section"], served.section)
        return Result(
            chunk_id=int(row["id"]),
            citation=citation,
            path=path,
            line_start=int(row["line_start"]),
            line_end=int(row["line_end"]),
            section=served.section,
            text=served.text,
            score=score,
            scores=scores,
            kind=row["kind"],
            zone=doc.zone,
            address=address,
            doc_key=doc_key,
            status=doc.status,
            changed_at=doc.changed_at,
            record=served.record,
            exact=exact,
        )

    def _expand(self, chunk_id: int) -> list[dict[str, Any]]:
        """The parent section and the neighbouring sections under the same parent."""
        row = self.store.chunks_by_id([chunk_id]).get(chunk_id)
        if row is None:
            return []
        siblings = self.store.chunks_of(row["path"])
        out: list[dict[str, Any]] = []
        by_id = {int(r["id"]): r for r in siblings}
        parent = by_id.get(int(row["parent_id"])) if row["parent_id"] is not None else None
        if parent is not None:
            out.append(_context("parent", parent))
        same = [r for r in siblings if r["parent_id"] == row["parent_id"]]
        index = next((i for i, r in enumerate(same) if int(r["id"]) == chunk_id), -1)
        for offset, relation in ((-1, "previous"), (1, "next")):
            j = index + offset
            if index >= 0 and 0 <= j < len(same):
                out.append(_context(relation, same[j]))
        for item in out:
            item["text"] = scrub_text(item["text"], self.scanner, path=row["path"])
            item["citation"] = scrub_text(item["citation"], self.scanner, path=row["path"])
        return out

    def _chain(
        self,
        results: list[Result],
        qvec: np.ndarray,
        doc_mask: Mask,
        scope: Scope,
        phrases: tuple[str, ...] | list[str] = (),
    ) -> list[Result]:
        """Documents referenced by the results (ADR citing ADR), best chunk of each; at
        most ``k_out`` of them, those whose path or section names an ID or date of the
        query (``phrases``) first, then the closest to the query. A result from an index
        page (a sprint's list of its eleven tickets, a table of contents) cites every
        document it lists: with no bound, ten results chained fifty-six more."""
        have = {r.path for r in results}
        added: list[Result] = []
        paths = self.retriever.doc_paths
        for result in list(results):
            doc = self.retriever.docs[result.path]
            for ref in doc.refs:
                target = self._resolve_ref(result.path, ref)
                if target is None or target in have:
                    continue
                index = paths.index(target)
                if not doc_mask[index]:
                    continue
                chunks_all = self.store.chunks_of(target)
                known = set(self.retriever.known([int(c["id"]) for c in chunks_all]))
                chunks = [c for c in chunks_all if int(c["id"]) in known]
                if not chunks:
                    continue
                sims = self.retriever.cosine(qvec, [int(c["id"]) for c in chunks])
                best = chunks[int(np.argmax(sims))]
                chained = self._result(
                    best,
                    score=0.0,
                    scores={"bm25": None, "dense": max(sims), "fused": None, "rerank": None},
                    exact=False,
                )
                chained.chained_from = result.citation
                added.append(chained)
                have.add(target)
        needles = [re.compile(re.escape(p), re.IGNORECASE) for p in phrases if p.strip()]

        def named(r: Result) -> bool:
            return any(n.search(r.path) or n.search(r.section or "") for n in needles)

        added.sort(key=lambda r: (not named(r), -(r.scores.get("dense") or 0.0)))
        return added[: scope.k_out]

    def _resolve_ref(self, source: str, ref: str) -> str | None:
        docs = self.retriever.docs
        if ref.upper().startswith("ADR-"):
            number = ref.split("-", 1)[1].lstrip("0") or "0"
            for path, doc in docs.items():
                name = path.rsplit("/", 1)[-1].lower()
                digits = "".join(ch for ch in name.split("-")[0].split("_")[0] if ch.isdigit())
                if path == source:
                    continue
                if (digits and digits.lstrip("0") == number and is_adr_path(path)) or (
                    ref.lower() in doc.title.lower()
                ):
                    return path
            return None
        base = source.rsplit("/", 1)[0] if "/" in source else ""
        candidates = [ref.lstrip("/")]
        if base:
            import posixpath

            candidates.insert(0, posixpath.normpath(f"{base}/{ref}"))
        for candidate in candidates:
            if candidate in docs and candidate != source:
                return candidate
        return None


def _unmatched(
    order: list[int],
    exact: set[int],
    bm25: dict[int, float],
    dense: dict[int, float],
    floor: float,
) -> set[int]:
    """Candidates that match nothing: no query term (BM25 0), no exact hit, and a cosine
    below ``floor``. Dense retrieval always fills its ``k_in`` slots, so without this a
    query nothing answers comes back padded with whatever is in scope (review mode then
    puts the newest of it first). Fused scores can't decide it: a z-score is relative to
    the pool, so a lone true match scores 0 and a weak one below the pool's mean is
    negative. With the bundled model, on SciFact's judged pairs (test and train, 1,258),
    5 relevant documents sharing no term with their query (0.4 %) scored under 0.25,
    while about 95 % of random pairs sharing no term did."""
    if floor <= 0:
        return set()
    return {
        i for i in order if i not in exact and bm25.get(i, 0.0) <= 0 and dense.get(i, 0.0) < floor
    }


def _context(relation: str, row: sqlite3.Row) -> dict[str, Any]:
    span = f"L{row['line_start']}-L{row['line_end']}"
    section = f" ({row['section']})" if row["section"] else ""
    return {
        "relation": relation,
        "citation": f"{row['path']}#{span}{section}",
        "text": row["text"],
    }


def _rerank_text(row: sqlite3.Row) -> str:
    section = row["section"]
    return f"{section}\n{row['text']}" if section else str(row["text"])


def search_project(project: Project, query: str, **kwargs: Any) -> SearchResponse:
    """One-shot search (opens and closes the index)."""
    engine = SearchEngine(project)
    try:
        return engine.search(query, **kwargs)
    finally:
        engine.close()
