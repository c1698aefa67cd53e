"""What changed in the search index since a sidecar was built, document by document.

A sidecar (BM25 postings, vectors) is rebuilt when the index generation moves. At 100k
chunks a rebuild from SQLite took ~5 s, most of a one-file re-index. But a chunk's rows
change only with its document's row: ``write_doc`` replaces a document's chunks together
with its ``docs`` row (stamped ``indexed_at``), and ``delete_doc`` drops both. So each
sidecar records every document's stamp (``indexed_at``, content hash, status), and an
update compares them with the ``docs`` table inside the caller's read snapshot: rows of
documents whose stamp is unchanged are kept as they are, the others are read again. The
check is against SQLite itself, not against what one writer believes it wrote, so a
parallel ``charter index`` or a run killed half-way is caught like any other change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from charter.search.store import SearchStore

#: (path, stamp) of every document, sorted by path (the order chunk → document maps use).
DocStamps = list[tuple[str, str]]

#: Above this share of changed documents an update is no cheaper than a rebuild.
MAX_CHANGED_SHARE = 0.5


def doc_stamps(store: SearchStore) -> DocStamps:
    """Every document's stamp: a new one whenever its chunks may have changed."""
    rows = store.conn.execute("SELECT path, indexed_at, sha256, status FROM docs")
    return sorted((str(p), f"{at!r}\x00{sha}\x00{status}") for p, at, sha, status in rows)


def encode_docs(stamps: DocStamps) -> npt.NDArray[np.uint8]:
    return np.frombuffer(json.dumps(stamps).encode("utf-8"), dtype=np.uint8)


def decode_docs(array: npt.NDArray[np.uint8] | None) -> DocStamps | None:
    """The stamps stored in a sidecar, or None when absent or unreadable."""
    if array is None:
        return None
    try:
        data = json.loads(bytes(array).decode("utf-8"))
        return [(str(path), str(stamp)) for path, stamp in data]
    except (ValueError, TypeError, UnicodeDecodeError):
        return None


@dataclass
class DocDelta:
    """How the documents moved between a sidecar's state (old) and the index's (new)."""

    changed: list[str]  # documents present now whose chunks must be read again
    dropped: npt.NDArray[np.bool_]  # per old document: changed or gone
    remap: npt.NDArray[np.int64]  # old document index -> new index (-1 when gone)
    new_index: dict[str, int]  # path -> new document index

    def small(self, documents: int) -> bool:
        return len(self.changed) <= MAX_CHANGED_SHARE * max(documents, 1)


def doc_delta(old: DocStamps, new: DocStamps) -> DocDelta:
    new_stamp = dict(new)
    new_index = {path: i for i, (path, _) in enumerate(new)}
    old_stamp = dict(old)
    dropped = np.fromiter((new_stamp.get(p) != s for p, s in old), dtype=bool, count=len(old))
    remap = np.fromiter((new_index.get(p, -1) for p, _ in old), dtype=np.int64, count=len(old))
    changed = [p for p, s in new if old_stamp.get(p) != s]
    return DocDelta(changed, dropped, remap, new_index)


def gather_rows(
    row_ptr: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Positions of ``rows``' entries in a CSR layout, in that row order, and the new
    row pointer: ``values[positions]`` is the selected (or permuted) rows' data."""
    starts = row_ptr[rows]
    lengths = row_ptr[rows + 1] - starts
    new_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    positions = np.repeat(starts - new_ptr[:-1], lengths) + np.arange(new_ptr[-1], dtype=np.int64)
    return positions, new_ptr
