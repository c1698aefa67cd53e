"""Build the graph snapshot: walk, extract changed files only, link, sort, hash, write.

Per-file records are cached in ``.charter/graph/files.json`` keyed by path with size and
mtime; a file is re-read only when those moved, and re-parsed only when its SHA-256 did.
Linking (imports, calls, tests, governs, cites) is recomputed each build from the cached
records: it is cheap next to parsing. ``snapshot.json`` holds nodes and edges sorted by
id, a ``source_hash`` over the source artifacts and a ``created_at`` (the committer time
of ``HEAD`` when first built, the clock outside git) that is reused while that hash is
unchanged (from the snapshot, or from the committed contract capsule in a fresh clone),
so the same tree always gives the same bytes, in every clone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.fileio import atomic_write_text, locked, remove_stale_temps
from charter.graph import governance
from charter.graph.extract import extract_file
from charter.graph.files import Listing, list_files, save_listing
from charter.graph.link import link
from charter.graph.model import Edge, Node
from charter.graph.sot import is_sot
from charter.graph.sot import records as sot_records
from charter.search.noise import noise_rules, read_head

SCHEMA_VERSION = "2"
CACHE_VERSION = 48  # 48: Chinese and Japanese text gives character-pair terms


def graph_dir(project: Project) -> Path:
    return project.state_dir / "graph"


@contextlib.contextmanager
def write_lock(project: Project) -> Iterator[None]:
    """Held while the graph's files are written (never while reading or building them,
    so hooks only wait for a rename or two). Holding it, the temp files of writers that
    were killed before their rename are removed: no other writer can be mid-write."""
    directory = graph_dir(project)
    with locked(directory / "snapshot.json"):
        remove_stale_temps(
            directory,
            ["snapshot.json", "files.json", "contract-capsule.json", "listing.json", "built.json"],
        )
        yield


class Graph:
    """A built graph in memory: the snapshot plus the per-file records behind it.

    ``snapshot`` is the snapshot's header (ids, hashes, counts); ``nodes`` are in id
    order and ``rows`` are the edges as (source index, target index, relation) into that
    order, sorted like the edges. ``edges`` and ``records`` are made on first use: a warm
    task-context call needs neither (the records, with every file's terms, are most of
    what a build caches)."""

    def __init__(
        self,
        snapshot: dict[str, Any],
        nodes: dict[str, Node],
        rows: list[tuple[int, int, str]],
        records: dict[str, dict[str, Any]] | Callable[[], dict[str, dict[str, Any]]],
        report: dict[str, Any] | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.nodes = nodes
        self.rows = rows
        self._records = records
        self._edges: list[Edge] | None = None
        self.report = report if report is not None else {}

    @property
    def snapshot_id(self) -> str:
        return str(self.snapshot["snapshot_id"])

    @property
    def records(self) -> dict[str, dict[str, Any]]:
        if callable(self._records):
            self._records = self._records()
        return self._records

    @property
    def edges(self) -> list[Edge]:
        if self._edges is None:
            ids = list(self.nodes)
            self._edges = [Edge(ids[s], ids[t], r) for s, t, r in self.rows]
        return self._edges

    def edges_among(self, ids: set[str]) -> list[Edge]:
        """The edges whose two ends are both in ``ids``, in snapshot order."""
        order = list(self.nodes)
        wanted = {i for i, nid in enumerate(order) if nid in ids}
        return [Edge(order[s], order[t], r) for s, t, r in self.rows if s in wanted and t in wanted]

    def full_snapshot(self) -> dict[str, Any]:
        """The snapshot with every node (its id included) and edge as a dict: the form the
        contract capsule is computed from."""
        return {
            **self.snapshot,
            "nodes": [n.as_dict() for n in self.nodes.values()],
            "edges": [e.as_dict() for e in self.edges],
        }


def _derived_id(node: dict[str, Any]) -> str | None:
    """The id a stored source or symbol node leaves out: ``src:PATH``, ``sym:PATH#NAME``."""
    if "path" not in node:
        return None
    if node["type"] == "source":
        return f"src:{node['path']}"
    if node["type"] == "symbol":
        return f"sym:{node['path']}#{node['name']}"
    return None


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def snapshot_text(
    header: dict[str, Any], nodes: list[Node], rows: list[tuple[int, int, str]]
) -> str:
    """The stored snapshot (schema 2): the header's keys, then one node a line (without
    its id where the type and path say it) and one edge a line as ``[source index, target
    index, relation]`` into the node list. Ids are written once, not in every edge: a
    Kotlin app's 71,000 edges repeated 100-character ids (35 MB indented)."""
    relations = {r: _dump(r) for r in {row[2] for row in rows}}
    stored = []
    for node in nodes:
        data = node.as_dict()
        if _derived_id(data) == node.id:
            del data["id"]
        stored.append(_dump(data))
    return (
        _dump(header)[:-1]
        + ',"nodes":[\n'
        + ",\n".join(stored)
        + '\n],"edges":[\n'
        + ",\n".join(f"[{s},{t},{relations[r]}]" for s, t, r in rows)
        + "\n]}\n"
    )


def _load_json(path: Path, *, sha256: object = None) -> dict[str, Any] | None:
    """The JSON object in ``path``; with ``sha256``, only when the bytes have that hash.

    snapshot.json and files.json are two files written one after the other: a build
    killed between them, or two builds of different trees interleaving their writes, can
    leave a cache whose fingerprint matches the tree beside a snapshot of another tree.
    The cache names the snapshot it was written with, so such a pair is rebuilt rather
    than served (stale symbols) until the next change.
    """
    try:
        raw = path.read_bytes()
        if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _scrubber(project: Project) -> Callable[[str, str, str], str] | None:
    """Secrets redacted by content before a file's words are kept (``[secrets]``)."""
    from charter.secretscan.apply import project_scanner, scrub_text, text_kind

    scanner = project_scanner(project)
    if not scanner.enabled:
        return None

    def scrub(text: str, rel: str, kind: str) -> str:
        return scrub_text(text, scanner, path=rel, kind=text_kind(kind, rel))

    return scrub


def _records(
    project: Project, cache: dict[str, Any], listing: Listing
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Current per-file records, re-extracting only what changed since the cache."""
    noise = noise_rules(project.root, project.settings.search.index)
    # records were judged under these noise rules: other rules re-judge every file
    rules = sorted(project.settings.search.index.skip_noise)
    usable = cache.get("version") == CACHE_VERSION and cache.get("noise") == rules
    old = cache.get("files", {}) if usable else {}
    max_bytes = project.settings.graph.max_file_bytes
    scrub = _scrubber(project)
    records: dict[str, dict[str, Any]] = {}
    parsed, notes = 0, []
    for rel in listing.files:
        size, mtime_ns = listing.stats[rel]
        prev = old.get(rel)
        if prev and prev["size"] == size and prev["mtime_ns"] == mtime_ns:
            records[rel] = prev
        else:
            try:
                # the index's decision: a lockfile or a cassette is no node (its head is
                # read again on each build: such files are few, the read is 64 KiB)
                reason = noise.text_reason(rel, read_head(project.root / rel))
                if reason is not None:
                    listing.skipped.append((rel, reason))
                    continue
                record = extract_file(
                    project.root, rel, max_bytes, scrub, project.settings.graph.max_notebook_bytes
                )
            except OSError as exc:
                notes.append({"path": rel, "note": f"unreadable ({exc.strerror})"})
                continue
            if is_sot(project, rel) and "note" not in record:
                found = sot_records(project, rel)
                if isinstance(found, str):
                    record["note"] = found
                else:
                    record["sot_records"] = found
            if prev and prev.get("sha256") == record["sha256"]:
                prev = {**prev, "mtime_ns": record["mtime_ns"]}
                records[rel] = prev
            else:
                records[rel] = record
                parsed += 1
        if records[rel].get("note"):
            notes.append({"path": rel, "note": records[rel]["note"]})
    report = {
        "files": len(records),
        "parsed": parsed,
        "reused": len(records) - parsed,
        "notes": notes,
        "skipped": [{"path": p, "reason": r} for p, r in listing.skipped],
    }
    return records, report


#: What under ``.charter/`` the snapshot is built from (governance nodes): the compiled
#: rules, the decisions, the findings. Nothing else there (the inject-once store, the
#: session journal, the search index, locks, caches) changes the graph, and prompt and
#: tool hooks write some of it all the time: counting it re-linked the graph and rewrote
#: files.json on every prompt.
_GRAPH_INPUTS = ("rules.", "decisions/", "graph/findings.jsonl")


def _fingerprint(project: Project, records: dict[str, dict[str, Any]]) -> str:
    """Changes when any file, Charter's own state (rules, decisions, findings) or settings do."""
    rows: list[Any] = [[p, r["size"], r["mtime_ns"]] for p, r in sorted(records.items())]
    state = project.state_dir
    if state.is_dir():
        for path in sorted(state.rglob("*")):
            rel = path.relative_to(state).as_posix()
            if (
                rel.startswith(_GRAPH_INPUTS)
                and not rel.endswith(".lock")
                and ".tmp" not in rel
                and path.is_file()
            ):
                stat = path.stat()
                rows.append([f".charter/{rel}", stat.st_size, stat.st_mtime_ns])
    rows.append(project.settings.graph.model_dump())
    rows.append(CACHE_VERSION)  # a Charter that extracts files differently rebuilds
    blob = json.dumps(rows, separators=(",", ":"), default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def read_snapshot(path: Path) -> dict[str, Any]:
    """A stored snapshot with every node's id and every edge as ``{"source", "target",
    "relation"}``: the form schema 1 stored, for readers of the file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    nodes = [{**n, "id": n.get("id") or _derived_id(n)} for n in data["nodes"]]
    ids = [n["id"] for n in nodes]
    edges = [{"source": ids[s], "target": ids[t], "relation": r} for s, t, r in data["edges"]]
    return {**data, "nodes": nodes, "edges": edges}


def _from_snapshot(
    snapshot: dict[str, Any],
    records: dict[str, dict[str, Any]] | Callable[[], dict[str, dict[str, Any]]],
    report: dict[str, Any],
) -> Graph:
    nodes: dict[str, Node] = {}
    for data in snapshot.pop("nodes"):
        nid = data.get("id") or _derived_id(data) or ""
        nodes[nid] = Node(
            nid,
            data["type"],
            data.get("name", ""),
            data.get("path"),
            data.get("line_start"),
            data.get("line_end"),
            data.get("attrs", {}),
        )
    rows = [(s, t, r) for s, t, r in snapshot.pop("edges")]
    return Graph(snapshot, nodes, rows, records, report)


def source_hash(nodes: list[Node]) -> str:
    """SHA-256 over the stable-sorted (id, kind, path, hash) of the source artifacts."""
    rows = sorted(
        (n.id, str(n.attrs.get("language", "")), n.path or "", str(n.attrs.get("sha256", "")))
        for n in nodes
        if n.type == "source"
    )
    return hashlib.sha256(json.dumps(rows, separators=(",", ":")).encode("utf-8")).hexdigest()


def _reused_created_at(directory: Path, source_hash: str) -> str | None:
    """The ``created_at`` an earlier build of these very sources recorded, if any.

    The local snapshot is asked first; then the committed contract capsule, which is
    all a fresh clone has (``snapshot.json`` is git-ignored). Without the second look
    every clone stamped its own wall-clock time into the committed capsule, so building
    the graph in a clone of an unchanged tree showed the capsule as modified.
    """
    for name in ("snapshot.json", "contract-capsule.json"):
        earlier = _load_json(directory / name) or {}
        if earlier.get("source_hash") == source_hash and earlier.get("created_at"):
            return str(earlier["created_at"])
    return None


def _version_time(project: Project) -> str:
    """``created_at`` for sources no earlier build recorded: the committer time of
    ``HEAD`` (the version the sources belong to), or the clock outside git.

    The build's own clock made two clones of one commit write different capsules (a
    file teams commit) when neither had one yet; the commit time is the same in every
    clone, on every machine and in every time zone.
    """
    from charter.search.gitinfo import head_time

    seconds = head_time(project.root)
    when = datetime.now(UTC) if seconds is None else datetime.fromtimestamp(seconds, UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _listing_key(project: Project, listing: Listing) -> str:
    """Changes when the files listed, their sizes or mtimes, Charter's own graph inputs or
    the settings do: unchanged, the snapshot ``built.json`` names is current without
    reading the per-file cache (``_fingerprint`` over the records, which holds every
    file's terms, is what a build compares)."""
    rows: list[Any] = [[p, *listing.stats[p]] for p in listing.files]
    rows.append(_fingerprint(project, {}))  # Charter's state, settings, cache version
    rows.append(sorted(project.settings.search.index.skip_noise))
    rows.append(SCHEMA_VERSION)
    blob = json.dumps(rows, separators=(",", ":"), default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _records_loader(
    project: Project, listing: Listing, snapshot_sha256: str
) -> Callable[[], dict[str, dict[str, Any]]]:
    """The records behind a snapshot, read when first asked for: from the file cache
    written with that snapshot, else (a build wrote another since) the current files'."""

    def load() -> dict[str, dict[str, Any]]:
        cache = _load_json(graph_dir(project) / "files.json") or {}
        if cache.get("snapshot_sha256") == snapshot_sha256 and cache.get("version") == (
            CACHE_VERSION
        ):
            return dict(cache.get("files", {}))
        return _records(project, cache, Listing(list(listing.files), [], dict(listing.stats)))[0]

    return load


def build_graph(project: Project, *, write: bool = True) -> Graph:
    """Build (incrementally) and, by default, write snapshot.json and the file cache."""
    started = time.perf_counter()
    directory = graph_dir(project)
    cache_path = directory / "files.json"
    snapshot_path = directory / "snapshot.json"
    built_path = directory / "built.json"
    listing = list_files(project, directory / "listing.json")
    if write and listing.cache is not None and directory.is_dir():
        # under the writers' lock: a writer holding it removes the temp files of killed
        # writers, and this one's temp file, written outside it, was taken for one (a
        # parallel build then failed its rename)
        with write_lock(project):
            save_listing(directory / "listing.json", listing)
    key = _listing_key(project, listing)
    built = _load_json(built_path) or {}
    if built.get("listing") == key and isinstance(built.get("report"), dict):
        current = _load_json(snapshot_path, sha256=built.get("snapshot_sha256"))
        if current is not None and current.get("schema_version") == SCHEMA_VERSION:
            report = {**built["report"], "parsed": 0, "reused": built["report"].get("files", 0)}
            report["seconds"] = round(time.perf_counter() - started, 3)
            report["snapshot_id"] = current["snapshot_id"]
            report["counts"] = current["counts"]
            loader = _records_loader(project, listing, built["snapshot_sha256"])
            return _from_snapshot(current, loader, report)
    cache = _load_json(cache_path) or {}
    records, report = _records(project, cache, listing)
    fingerprint = _fingerprint(project, records)
    if fingerprint == cache.get("fingerprint") and snapshot_path.is_file():
        current = _load_json(snapshot_path, sha256=cache.get("snapshot_sha256"))
        if current is not None and current.get("schema_version") == SCHEMA_VERSION:
            if write:
                # under the writers' lock, like every graph file: a writer holding it
                # sweeps temp files it takes for killed writers' (this one's, outside
                # it, was swept and its rename failed)
                with write_lock(project):
                    _write_built(project, built_path, key, cache["snapshot_sha256"], report)
            report["seconds"] = round(time.perf_counter() - started, 3)
            report["snapshot_id"] = current["snapshot_id"]
            report["counts"] = current["counts"]
            return _from_snapshot(current, records, report)
    nodes, edges = link(records)
    extra_nodes, extra_edges, notes = governance.collect(project, records)
    nodes.update({n.id: n for n in extra_nodes})
    edges.extend(extra_edges)
    # the build's report as a warm call gives it (governance notes come with a rebuild)
    warm_report = {**report, "notes": list(report["notes"])}
    report["notes"].extend(notes)
    live = set(nodes)
    # by a key tuple, in the dataclass's own field order: the generated ``__lt__`` of
    # ``order=True`` is Python-level and cost ~1 s on 70,000 edges
    edge_list = sorted(
        {e for e in edges if e.source in live and e.target in live},
        key=lambda e: (e.source, e.target, e.relation),
    )
    ordered = [nodes[k] for k in sorted(nodes)]
    position = {n.id: i for i, n in enumerate(ordered)}
    rows = [(position[e.source], position[e.target], e.relation) for e in edge_list]
    digest = source_hash(ordered)
    created = _reused_created_at(directory, f"sha256:{digest}") or _version_time(project)
    counts: dict[str, int] = {}
    for node in ordered:
        counts[node.type] = counts.get(node.type, 0) + 1
    snapshot = {
        "schema_version": SCHEMA_VERSION,
        "snapshot_id": f"graph:{digest[:12]}",
        "project_id": "proj:default",
        "created_at": created,
        "source_hash": f"sha256:{digest}",
        "counts": dict(sorted(counts.items())),
    }
    if write:
        directory.mkdir(parents=True, exist_ok=True)
        text = snapshot_text(snapshot, ordered, rows)
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with write_lock(project):
            if not snapshot_path.exists() or snapshot_path.read_text(encoding="utf-8") != text:
                atomic_write_text(snapshot_path, text)
            atomic_write_text(
                cache_path,
                json.dumps(
                    {
                        "version": CACHE_VERSION,
                        "noise": sorted(project.settings.search.index.skip_noise),
                        "fingerprint": fingerprint,
                        "snapshot_sha256": sha,
                        "files": records,
                    },
                    separators=(",", ":"),
                ),
            )
            save_listing(directory / "listing.json", listing)
            _write_built(project, built_path, key, sha, warm_report)
    report["seconds"] = round(time.perf_counter() - started, 3)
    report["snapshot_id"] = snapshot["snapshot_id"]
    report["counts"] = snapshot["counts"]
    graph = Graph(snapshot, {n.id: n for n in ordered}, rows, records, report)
    graph._edges = edge_list
    return graph


def _write_built(
    project: Project, path: Path, key: str, snapshot_sha256: str, report: dict[str, Any]
) -> None:
    """Name the snapshot the listing ``key`` gives, with the build's report: the next call
    on an unchanged tree reads the snapshot and nothing else."""
    data = {"listing": key, "snapshot_sha256": snapshot_sha256, "report": report}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    if _load_json(path) != json.loads(text):
        atomic_write_text(path, text)
