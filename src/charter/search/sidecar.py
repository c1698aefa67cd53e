"""Array files beside the search index, opened by memory map: a cold search reads no rows.

The SQLite index is the source of truth. Loading 100k float32 vectors out of its rows
costs about a second per process, so the arrays a search needs (the vector matrix, the
chunk → document map, the BM25 postings) are also kept in one flat file per kind,
which :func:`read_arrays` maps into memory without copying: opening is O(1), and a query
only faults in the pages it touches.

A sidecar is a cache, never the only copy. Each one carries the index generation and
instance it was built from (the generation moves in the same SQLite transaction as the
data, see :mod:`charter.search.store`); readers compare that stamp inside their read
snapshot and rebuild from SQLite when it differs. Writers follow the one discipline of
:mod:`charter.fileio`: a temp sibling, fsync, rename, fsync of the directory, so a reader
sees the old file or the new one. A file that is torn anyway (truncated, foreign, an
older format, a header that does not parse, a size or footer that disagrees with the
header) reads as ``None`` and is rebuilt like a stale one.

Layout: ``MAGIC`` (8 bytes), header length (8 bytes, little-endian), the JSON header
(``meta`` plus each array's dtype, shape and offset), the arrays at 64-byte aligned
offsets, then ``FOOTER`` and the total size (8 + 8 bytes).
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from charter.fileio import _fsync_dir, fault_point, remove_dead_temps

MAGIC = b"CHSIDE01"
FOOTER = b"CHSIDEOK"
ALIGN = 64
_SIZE = struct.Struct("<Q")
#: Headers are small (a stamp and a few array descriptions); anything bigger is foreign.
MAX_HEADER = 64 * 1024 * 1024

Arrays = dict[str, npt.NDArray[Any]]


class Stacked:
    """An array given as blocks of rows, written one after another: the file holds their
    concatenation without it being built in memory (blocks may be views of a mapped
    file, e.g. the unchanged rows of the sidecar being replaced)."""

    def __init__(self, parts: list[npt.NDArray[Any]]) -> None:
        if not parts:
            raise ValueError("Stacked needs at least one block")
        self.parts = [np.ascontiguousarray(p) for p in parts]
        self.dtype = self.parts[0].dtype
        tail = self.parts[0].shape[1:]
        if any(p.dtype != self.dtype or p.shape[1:] != tail for p in self.parts):
            raise ValueError("Stacked blocks differ in dtype or row shape")
        self.shape = (sum(p.shape[0] for p in self.parts), *tail)
        self.nbytes = sum(p.nbytes for p in self.parts)


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def write_arrays(
    path: Path,
    meta: Mapping[str, Any],
    arrays: Mapping[str, npt.NDArray[Any] | Stacked],
    *,
    fault: str,
) -> None:
    """Write ``arrays`` with ``meta`` to ``path`` atomically (temp + fsync + rename).

    ``fault`` names the :func:`charter.fileio.fault_point` between the fsync of the whole
    temp file and its rename (the crash-safety tests kill the writer there).
    """
    parts = {
        name: array if isinstance(array, Stacked) else np.ascontiguousarray(array)
        for name, array in arrays.items()
    }
    described: dict[str, dict[str, Any]] = {}
    header = b""
    # the offsets depend on the header's length and the header names the offsets:
    # iterate until the length is stable (two rounds in practice)
    start = 0
    for _ in range(8):
        offset = _align(len(MAGIC) + _SIZE.size + start)
        described = {}
        for name, array in parts.items():
            described[name] = {
                "dtype": array.dtype.str,
                "shape": list(array.shape),
                "offset": offset,
            }
            offset = _align(offset + array.nbytes)
        total = offset + len(FOOTER) + _SIZE.size
        header = json.dumps(
            {"meta": dict(meta), "arrays": described, "size": total}, sort_keys=True
        ).encode("utf-8")
        if len(header) == start:
            break
        start = len(header)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(MAGIC + _SIZE.pack(len(header)) + header)
            for name, array in parts.items():
                handle.seek(described[name]["offset"])
                for block in array.parts if isinstance(array, Stacked) else [array]:
                    if block.nbytes:
                        handle.write(block.data)  # contiguous: written without a copy
            handle.seek(total - len(FOOTER) - _SIZE.size)
            handle.write(FOOTER + _SIZE.pack(total))
            handle.flush()
            os.fsync(handle.fileno())
        fault_point(fault)  # the temp file is whole, not yet renamed in
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    remove_dead_temps(path)


def read_arrays(path: Path, kind: str | None = None) -> tuple[dict[str, Any], Arrays] | None:
    """(meta, read-only arrays mapped from ``path``), or None when missing, torn or (with
    ``kind``) a sidecar of another kind."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(len(MAGIC) + _SIZE.size)
            if len(head) < len(MAGIC) + _SIZE.size or head[: len(MAGIC)] != MAGIC:
                return None
            (length,) = _SIZE.unpack(head[len(MAGIC) :])
            if length > min(MAX_HEADER, size):
                return None
            header = json.loads(handle.read(length).decode("utf-8"))
            if not isinstance(header, dict) or header.get("size") != size:
                return None
            handle.seek(size - len(FOOTER) - _SIZE.size)
            if handle.read(len(FOOTER) + _SIZE.size) != FOOTER + _SIZE.pack(size):
                return None
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        arrays: Arrays = {}
        for name, spec in header["arrays"].items():
            dtype = np.dtype(spec["dtype"])
            shape = tuple(int(n) for n in spec["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            offset = int(spec["offset"])
            if offset < 0 or offset + count * dtype.itemsize > size:
                return None
            arrays[name] = np.frombuffer(mapped, dtype=dtype, count=count, offset=offset).reshape(
                shape
            )
        meta = header["meta"]
        if not isinstance(meta, dict) or (kind is not None and meta.get("kind") != kind):
            return None
        return meta, arrays
    except (OSError, ValueError, KeyError, TypeError, AttributeError, struct.error):
        return None
