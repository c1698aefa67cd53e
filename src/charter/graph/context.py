"""Task context: rank the files, symbols, rules, decisions and documents a task needs.

Seeds come from what the task names: BM25 over files (search's formula and analyzer),
symbols whose names the task mentions (rarer names count more, and a name written as a
plain word counts less the more of the project's files carry it: an issue template's
"Sphinx version" is not a pointer to the ``Sphinx`` class), paths and stack-trace
frames, the files of a folder the task names by its path (a commit's scope,
"bindings/rust: …"), and files passed with ``--file``. Each seed gets its node
type's base score plus the matched-term boost; personalized PageRank then spreads
relevance along imports, calls, tests, governs and cites edges, and the two are blended
(``graph.seed_weight`` / ``graph.ppr_weight``, damping ``graph.damping``). Every
returned node says why.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from charter.filetypes import SOURCES_READ_AS_TEXT
from charter.graph.build import Graph
from charter.graph.extract import is_example_path
from charter.graph.index import FileIndex
from charter.graph.ppr import personalized_pagerank, transition
from charter.graph.query import TaskQuery, parse_task
from charter.graph.settings import GraphSettings
from charter.graph.text import code_terms

#: Base score per node type: how much a seed of this type is worth before term matches.
BASE_SCORE = {
    "source": 1.0,
    "symbol": 0.9,
    "rule": 0.8,
    "decision": 0.8,
    "route": 0.8,
    "component": 0.8,
    "token": 0.5,
    "bridge": 0.4,
    "section": 0.6,
    "document": 0.5,
    "finding": 0.7,
    "record": 0.5,
}
#: How strongly PageRank follows each relation (both directions).
EDGE_WEIGHT = {
    "imports": 1.0,
    "defines": 1.0,
    "calls": 0.6,
    "references": 0.4,
    "tests": 0.6,
    "governs": 0.3,
    "cites": 0.5,
    "contains": 0.5,
    "about": 0.5,
    "renders": 1.0,
    "declared_in": 1.0,
    "styled_by": 0.5,
    "uses": 0.5,
}


#: A file name's leading ordinal: "02-", "001_", "3.".
_ORDINAL = re.compile(r"^\d+[-_.]+(?=[a-z])")
#: the words of a file's lowercased name ("07_error_handling": error, handling)
_NAME_PARTS = re.compile(r"[a-z]{2,}")

_TEXT_TYPES = frozenset({"rule", "decision", "route", "component", "token"})
_TEXT_ATTRS = ("text", "question", "answer", "value")


@dataclass
class Weights:
    """Ranking knobs (defaults measured on the localization dev split)."""

    seed: float = 0.68
    #: BM25 weight of a clause's leading verb ("make", "add", "set": the task's action,
    #: not what it changes; see ``query.clause_verbs``)
    action: float = 0.5
    ppr: float = 0.32
    damping: float = 0.82
    symbol: float = 0.6
    path: float = 1.0
    frame: float = 0.8
    stem: float = 0.2
    test_penalty: float = 0.5
    doc_factor: float = 0.6
    seeds_kept: int = 30
    meta: float = 1.0
    search: float = 0.3
    #: a symbol named only as a plain word (not ``code`` or a dotted path) loses this
    #: share of its seed per share of files whose terms hold the name
    mention_share: float = 1.0
    #: a file's seed is divided by its centrality (global PageRank over the mean) to this
    #: power: a hub that every task's words touch says less about any one task
    hub: float = 0.05
    #: code under a documentation or examples folder counts this much of a source file
    example_factor: float = 0.5
    #: a folder the task names by its path ("sqlite/parser: accept …"): each of its
    #: files gets this much seed, when it holds at most ``folder_files`` of them
    folder: float = 0.5
    #: a name the task writes that the project does not define, used by at most
    #: ``used_files`` files: each of them gets this much seed
    used: float = 0.4
    used_files: int = 3
    folder_files: int = 60

    @classmethod
    def from_settings(cls, settings: GraphSettings) -> Weights:
        return cls(
            seed=settings.seed_weight,
            ppr=settings.ppr_weight,
            damping=settings.damping,
            test_penalty=settings.test_penalty,
            search=settings.search_weight,
        )


def _suffix_match(path: str, files: dict[str, Any]) -> str | None:
    clean = path.replace("\\", "/").lstrip("./")
    if clean in files:
        return clean
    parts = clean.split("/")
    for i in range(1, len(parts)):
        tail = "/".join(parts[i:])
        if tail in files:
            return tail
    return None


class _Suffixes:
    """Files by each tail of their path, made on first use (most tasks name no path)."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self._by_tail: dict[str, list[str]] | None = None

    @property
    def by_tail(self) -> dict[str, list[str]]:
        if self._by_tail is None:
            self._by_tail = defaultdict(list)
            for path in self.files:
                parts = path.split("/")
                for i in range(len(parts)):
                    self._by_tail["/".join(parts[i:])].append(path)
        return self._by_tail

    def find(self, path: str) -> list[str]:
        clean = path.replace("\\", "/").lstrip("./")
        parts = clean.split("/")
        for i in range(len(parts)):
            hits = self.by_tail.get("/".join(parts[i:]))
            if hits:
                return hits if len(hits) <= 3 else []
        return []


def _under_folder(sources: list[str], folder: str) -> list[str]:
    """The sources under ``folder`` named from the root, else under the one folder of
    that name deeper in the tree (``parser/src`` for ``sqlite/parser/src``); none when
    several folders end so or none does."""
    clean = folder.strip("/")
    prefix = clean + "/"
    under = [p for p in sources if p.startswith(prefix)]
    if under:
        return under
    tails = {p[: p.index("/" + prefix) + len(prefix)] for p in sources if "/" + prefix in p}
    if len(tails) != 1:
        return []
    (base,) = tails
    return [p for p in sources if p.startswith(base)]


def short_name(qualname: str) -> str:
    """The name a task would write for a symbol: ``perform_sync`` for
    ``Account::Syncer.perform_sync``, ``Syncer`` for Ruby's ``Account::Syncer``, ``Account``
    for PHP's ``App\\Models\\Account``."""
    return qualname.rsplit(".", 1)[-1].rsplit("::", 1)[-1].rsplit("\\", 1)[-1]


def _symbol_seeds(
    graph: Graph, query: TaskQuery, index: FileIndex | None = None, share_weight: float = 0.0
) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Symbol id → match strength, and the names that matched."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for node in graph.nodes.values():
        if node.type == "symbol":
            by_name[short_name(node.name)].append(node.id)
    strong: set[str] = set()
    for ident in query.identifiers:
        parts = ident.split(".")
        strong.add(parts[-1])
        if len(parts) > 1:
            strong.add(parts[-2])
    scores: dict[str, float] = {}
    matched: dict[str, list[str]] = {}
    for name, ids in by_name.items():
        if name in strong:
            strength = 1.0
        elif name in query.words and (name[:1].isupper() or "_" in name) and len(name) > 3:
            strength = 0.5
            whole = code_terms(name)[-1:]  # the identifier as the file index spells it
            if index is not None and share_weight and whole:
                strength *= max(0.0, 1.0 - share_weight * index.share(whole[0]))
        else:
            continue
        rarity = 1.0 / (1.0 + math.log(len(ids)))
        for sid in ids:
            scores[sid] = strength * rarity
            matched[sid] = [name]
    return scores, matched


def _centrality(
    graph: Graph, matrix: Any, position: dict[str, int], damping: float
) -> dict[str, float]:
    """Each file's global PageRank (its symbols rolled up) over the mean file's."""
    sources = [i for nid, i in position.items() if graph.nodes[nid].type == "source"]
    if not sources:
        return {}
    pr = personalized_pagerank(matrix, dict.fromkeys(sources, 1.0), damping)
    by_file: dict[str, float] = defaultdict(float)
    for nid, i in position.items():
        node = graph.nodes[nid]
        if node.type in ("source", "symbol") and node.path is not None:
            by_file[node.path] += float(pr[i])
    mean = sum(by_file.values()) / len(by_file)
    return {path: value / mean for path, value in by_file.items()} if mean > 0 else {}


def _shadowed_sidecar(nid: str, score: float, final: dict[str, float], graph: Graph) -> bool:
    """Whether ``nid`` is a file written beside another source and named after it
    (`snake.gd.uid`, `icon.svg.import`, Unity's `Player.cs.meta`, `app.js.map`) that ranks
    no higher than that file: it shares the file's name, so the task's words find both,
    and the file it describes is what an agent opens. An engine writes one beside every
    script or asset, so a task context would otherwise show each file twice."""
    node = graph.nodes.get(nid)
    if node is None or node.type != "source" or not node.path:
        return False
    name = node.path.rsplit("/", 1)[-1]
    if name.count(".") < 2 or name.startswith("."):
        return False
    primary = f"src:{node.path.rsplit('.', 1)[0]}"
    return primary in final and final[primary] >= score


def rank(
    graph: Graph,
    task: str,
    files: list[str] | None = None,
    *,
    weights: Weights | None = None,
    index: FileIndex | None = None,
    depth: int | None = None,
    search_hits: dict[str, float] | None = None,
) -> tuple[list[tuple[str, float, dict[str, float], list[str], list[str]]], TaskQuery]:
    """All scored nodes best first: (id, score, parts, matched_terms, reasons).

    ``search_hits`` (path → score in 0..1) are hits of the project's hybrid search (BM25 +
    dense, the retrieval core search and rules share) when an index exists.
    """
    w = weights or Weights()
    query = parse_task(task, files)
    index = index or FileIndex(graph.records)
    bm25, bm25_terms = index.scores(query.terms, dict.fromkeys(query.actions, w.action))
    top = float(bm25.max()) if bm25.size else 0.0
    seed: dict[str, float] = defaultdict(float)
    parts: dict[str, dict[str, float]] = defaultdict(dict)
    reasons: dict[str, list[str]] = defaultdict(list)
    matched: dict[str, list[str]] = defaultdict(list)
    if top > 0:
        for row in np.argsort(-bm25)[: max(w.seeds_kept * 3, 50)].tolist():
            if bm25[row] <= 0:
                break
            nid = f"src:{index.paths[row]}"
            value = float(bm25[row]) / top
            seed[nid] += value
            parts[nid]["bm25"] = round(value, 4)
            # the action is shown only when nothing the task changes matched
            terms_hit = set(bm25_terms.get(row, []))
            matched[nid].extend(sorted(terms_hit - set(query.actions) or terms_hit)[:12])
            reasons[nid].append("matches task terms")
    for path, value in (search_hits or {}).items():
        fid = f"src:{path}"
        if fid in graph.nodes and value > 0:
            seed[fid] += w.search * value
            parts[fid]["search"] = round(value, 4)
            reasons[fid].append("hybrid search hit")
    sym_scores, sym_names = _symbol_seeds(graph, query, index, w.mention_share)
    for sid, value in sym_scores.items():
        node = graph.nodes[sid]
        seed[sid] += BASE_SCORE["symbol"] * value
        matched[sid].extend(sym_names[sid])
        reasons[sid].append(f"task names {sym_names[sid][0]}")
        fid = f"src:{node.path}"
        best = parts[fid].get("symbol", 0.0)
        if value > best:
            seed[fid] += w.symbol * (value - best)
            parts[fid]["symbol"] = round(value, 4)
            reasons[fid].append(f"defines {node.name}")
            matched[fid].append(short_name(node.name))
    # a name the task writes that no symbol of the project defines (a library's class,
    # `QTimeZone::utc()`): the few files that use it are where the change goes
    defined = {short_name(graph.nodes[sid].name) for sid in sym_scores}
    for ident in query.identifiers:
        name = short_name(ident)
        whole = code_terms(name)[-1:] if len(code_terms(name)) > 1 else []
        col = index.vocab.get(whole[0]) if whole and name not in defined else None
        if col is None:
            continue
        rows_of = index.matrix.indices[index.matrix.indptr[col] : index.matrix.indptr[col + 1]]
        if not 0 < len(rows_of) <= w.used_files:
            continue
        for row in rows_of.tolist():
            fid = f"src:{index.paths[row]}"
            if parts[fid].get("used", 0.0) or parts[fid].get("symbol", 0.0):
                continue
            seed[fid] += w.used
            parts[fid]["used"] = 1.0
            reasons[fid].append(f"uses {name}")
            matched[fid].append(name)
    sources = [n.path for n in graph.nodes.values() if n.type == "source" and n.path is not None]
    suffixes = _Suffixes(sources)
    # files the task names by their path or whole name: an example it names is the one
    # to open, not an example weighed down among the sources its words also match
    named: set[str] = set()
    for path in query.paths:
        for hit in suffixes.find(path):
            fid = f"src:{hit}"
            named.add(fid)
            seed[fid] += w.path
            parts[fid]["path"] = 1.0
            reasons[fid].append("named in the task" if path not in (files or []) else "--file")
    for candidate in query.namespaces:  # the whole namespace path, never a shorter tail
        hits = suffixes.by_tail.get(candidate, [])
        for hit in hits if len(hits) <= 3 else []:
            fid = f"src:{hit}"
            if not parts[fid].get("path"):
                seed[fid] += w.path
                parts[fid]["path"] = 1.0
                reasons[fid].append("namespace named in the task")
    for folder in query.folders:
        under = _under_folder(sources, folder)
        for hit in under if len(under) <= w.folder_files else []:
            fid = f"src:{hit}"
            seed[fid] += w.folder
            parts[fid]["folder"] = 1.0
            reasons[fid].append(f"in {folder}/, named in the task")
    for frame_path, line, _func in query.frames:
        for hit in suffixes.find(frame_path):
            fid = f"src:{hit}"
            if parts[fid].get("frame"):
                continue
            seed[fid] += w.frame
            parts[fid]["frame"] = 1.0
            reasons[fid].append(f"in the stack trace (line {line})")
    lowered = {word.lower() for word in query.words if len(word) > 2}
    rows = {p: i for i, p in enumerate(index.paths)} if top > 0 else {}
    stems = {path: path.rsplit("/", 1)[-1].split(".", 1)[0].lower() for path in sources}
    # an ordering prefix is no part of the name ("02-preparation.tex", the chapter a task
    # calls "the preparation chapter"), unless many files share what is left (every app's
    # `0001_initial.py` migration)
    ordinal = Counter(_ORDINAL.sub("", stem) for stem in stems.values() if _ORDINAL.match(stem))
    for path in sources:
        stem = stems[path]
        # named whole ("07_error_handling") or, its ordering prefix dropped, by the rest
        said = stem in lowered
        if not said and _ORDINAL.match(stem) and ordinal[bare := _ORDINAL.sub("", stem)] <= 3:
            stem = bare
            said = stem in lowered
        if said and stem not in ("__init__", "index", "main", "utils", "test"):
            fid = f"src:{path}"
            # a name of several words ("error_handling", "book-editor") is as specific as
            # its path; one word ("error", "parser") is also what a task says in prose
            if len(_NAME_PARTS.findall(stem)) > 1:
                seed[fid] += w.path
                named.add(fid)
            else:
                seed[fid] += w.stem
            parts[fid]["stem"] = 1.0
            reasons[fid].append("file name named in the task")
            # its words count too when a common task word ("fix") filled the BM25 pool
            # with files that have both: "fix stdio" must not lose `stdio.py`
            row = rows.get(path)
            if "bm25" not in parts[fid] and row is not None and bm25[row] > 0:
                value = float(bm25[row]) / top
                seed[fid] += value
                parts[fid]["bm25"] = round(value, 4)
                matched[fid].extend(sorted(set(bm25_terms.get(row, [])))[:12])
    # rules, decisions and front-end nodes: matched-term boost on their own text
    wanted = set(query.terms)
    for node in graph.nodes.values():
        if node.type not in _TEXT_TYPES:
            continue
        text = " ".join([node.name, *(str(node.attrs.get(k, "")) for k in _TEXT_ATTRS)])
        node_terms = set(code_terms(text))
        overlap = node_terms & wanted
        if len(overlap) >= 2:
            value = len(overlap) / math.sqrt(len(wanted) * len(node_terms))
            seed[node.id] += w.meta * value
            parts[node.id]["terms"] = round(value, 4)
            matched[node.id].extend(sorted(overlap))
            reasons[node.id].append("its text matches the task")
    ids = list(graph.nodes)
    position = {nid: i for i, nid in enumerate(ids)}
    triples = [(s, t, EDGE_WEIGHT.get(r, 0.3)) for s, t, r in graph.rows]
    matrix = transition(len(ids), triples)
    centrality = _centrality(graph, matrix, position, w.damping) if w.hub else {}
    # type base scores and penalties on the seed
    for nid in list(seed):
        seeded = graph.nodes.get(nid)
        if seeded is None:
            del seed[nid]
            continue
        factor = BASE_SCORE.get(seeded.type, 0.5)
        if seeded.type == "source":
            if seeded.attrs.get("test"):
                factor *= w.test_penalty
            if seeded.attrs.get("language") in ("markdown", "text", "other", "binary") and not (
                (seeded.path or "").lower().endswith(SOURCES_READ_AS_TEXT)
            ):
                factor *= w.doc_factor
            elif is_example_path(seeded.path or "") and nid not in named:
                factor *= w.example_factor
            if centrality:
                factor /= max(centrality.get(seeded.path or "", 1.0), 1.0) ** w.hub
        seed[nid] *= factor
    ordered = sorted(seed.items(), key=lambda kv: (-kv[1], kv[0]))[: w.seeds_kept]
    ppr = personalized_pagerank(matrix, {position[k]: v for k, v in ordered}, w.damping)
    if depth is not None:  # only nodes within ``depth`` hops of a seed may come in by PageRank
        reach = np.zeros(len(ids), dtype=bool)
        reach[[position[k] for k, _ in ordered]] = True
        for _ in range(depth):
            reach |= (matrix @ reach.astype(np.float64)) > 0
        ppr = np.where(reach, ppr, 0.0)
    # roll symbol PageRank up into its file: the file is what an agent opens
    file_ppr: dict[str, float] = defaultdict(float)
    for nid, i in position.items():
        node = graph.nodes[nid]
        if node.type in ("source", "symbol") and node.path is not None:
            file_ppr[f"src:{node.path}"] += float(ppr[i])
    seed_top = max((v for _, v in ordered), default=0.0) or 1.0
    ppr_top = max(file_ppr.values(), default=0.0) or 1.0
    other_top = float(ppr.max()) or 1.0
    # a test file says which ranked file it tests (its ``tests`` edge), not only that
    # its words matched or that it is linked: the agent runs it after changing that file
    tested: dict[str, list[str]] = defaultdict(list)
    for src, dst, relation in graph.rows:
        if relation == "tests" and (ids[dst] in seed or ids[dst] in file_ppr):
            tested[ids[src]].append(ids[dst])
    final: dict[str, float] = {}
    for nid, i in position.items():
        node = graph.nodes[nid]
        if node.type == "symbol":
            continue
        if node.type == "source":
            pr = file_ppr.get(nid, 0.0) / ppr_top
            if node.attrs.get("test"):
                pr *= w.test_penalty
            elif is_example_path(node.path or ""):
                pr *= w.example_factor
        else:
            pr = float(ppr[i]) / other_top * BASE_SCORE.get(node.type, 0.5)
        s = seed.get(nid, 0.0) / seed_top
        if s <= 0 and pr <= 1e-4:
            continue
        final[nid] = w.seed * s + w.ppr * pr
        parts[nid]["seed"] = round(s, 4)
        parts[nid]["ppr"] = round(pr, 4)
        if s <= 0 and nid not in tested:
            reasons[nid].append("linked to the task's seeds")
    for nid, targets in tested.items():
        paths = sorted(str(graph.nodes[t].path) for t in targets if t in final)
        if nid in final and paths:
            reasons[nid].extend(f"tests {path}" for path in paths[:2])
    # symbols sit just under their file, ordered by their own match
    for sid, value in sym_scores.items():
        node = graph.nodes[sid]
        fid = f"src:{node.path}"
        if fid in final:
            final[sid] = final[fid] * (0.5 + 0.49 * min(value, 1.0))
            parts[sid]["seed"] = round(value, 4)
    result = []
    for nid, score in sorted(final.items(), key=lambda kv: (-kv[1], kv[0])):
        if _shadowed_sidecar(nid, score, final, graph):
            continue
        result.append(
            (
                nid,
                score,
                parts[nid],
                sorted(set(matched.get(nid, []))),
                list(dict.fromkeys(reasons.get(nid, []))),
            )
        )
    return result, query
