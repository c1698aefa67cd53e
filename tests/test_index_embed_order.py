"""A first index embeds each distinct text once, in calls of similar lengths, and stores
exactly the vectors the model gives each text alone (a speed change, not a model change)."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from charter.config import Project
from charter.embed.base import Vectors
from charter.embed.registry import get_embedder
from charter.search.indexer import Indexer
from charter.search.parse import embed_text
from tests.conftest import commit_all, write

LICENCE = (
    "# Copyright the Billing authors.\n"
    "# Licensed under the Apache License, Version 2.0; see LICENSE for the terms.\n"
)


class RecordingEmbedder:
    """The real bundled model, keeping the texts of every call it is given."""

    def __init__(self) -> None:
        self.inner = get_embedder("minilm")
        self.name = self.inner.name
        self.dim = self.inner.dim
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def make_repo(root: Path) -> Path:
    """Modules that share a licence header, with functions of very different lengths."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for module in range(12):
        body = [LICENCE]
        for fn in range(6):
            count = 1 + (module * 7 + fn * 5) % 40
            words = " + ".join(f"item_{module}_{fn}_{k}" for k in range(count))
            body.append(f"\n\ndef total_{module}_{fn}(item):\n    return {words}\n")
        write(root, f"billing/module_{module}.py", "".join(body))
    write(root, "docs/guide.md", "# Guide\n\nShort.\n\n## Long\n\n" + "Invoices are paid. " * 60)
    commit_all(root)
    return root


def _stored(root: Path) -> list[tuple[str, bytes]]:
    with sqlite3.connect(root / ".charter" / "search.db") as conn:
        rows = conn.execute(
            "SELECT c.section, c.text, v.vec FROM chunks c JOIN vectors v ON v.chunk_id = c.id "
            "ORDER BY c.path, c.ordinal"
        ).fetchall()
    return [(embed_text(section, text), vec) for section, text, vec in rows]


def test_each_distinct_text_is_embedded_once_in_length_order(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    embedder = RecordingEmbedder()
    report = Indexer(Project.load(root), embedder).run()  # type: ignore[arg-type]
    stored = _stored(root)
    texts = [text for text, _ in stored]
    sent = [text for call in embedder.calls for text in call]
    assert report.chunks_embedded == len(stored)
    assert len(set(texts)) < len(texts)  # the shared header is a chunk of every module
    assert sorted(sent) == sorted(set(texts))  # each distinct text reaches the model once
    assert [len(t) for t in sent] == sorted(len(t) for t in sent)  # one length order

    # the vectors are the bytes the model gives each text on its own
    alone = np.stack([embedder.inner.embed([text])[0] for text in texts]).astype(np.float32)
    digest = hashlib.sha256(b"".join(vec for _, vec in stored)).hexdigest()
    assert digest == hashlib.sha256(alone.tobytes()).hexdigest()
