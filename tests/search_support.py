"""Shared helpers for the search tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from charter.config import Project
from charter.search.engine import SearchEngine


@contextlib.contextmanager
def open_engine(root: Path) -> Iterator[SearchEngine]:
    """A search engine over ``root``'s index without reranking, closed afterwards."""
    engine = SearchEngine(Project.load(root), reranker="none")
    try:
        yield engine
    finally:
        engine.close()
