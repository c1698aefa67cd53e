"""The labelled rule files of benchmark directories, each compiled as Charter compiles it.

Shared by the bench scripts that walk a rules benchmark file by file (the training-data
extraction of ``rules_embed_train.py`` and the cross-encoder experiment)."""

from __future__ import annotations

import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from charter.config import Project, Settings
from charter.embed.base import Embedder
from charter.eval.rules_bench import load_tasks
from charter.rules.compiler import CompiledRules, compile_rules


def compiled_files(
    datas: list[Path], settings: Settings, embedder: Embedder
) -> Iterator[tuple[Path, str, str, CompiledRules, list[dict[str, Any]]]]:
    """(benchmark dir, file as labelled, file as the project names it, compiled rules,
    the file's tasks), file by file in sorted order."""
    for data in datas:
        by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for task in load_tasks(data):
            by_file[task["file"]].append(task)
        with tempfile.TemporaryDirectory() as tmp:
            for rel_file in sorted(by_file):
                path = data / rel_file
                project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
                compiled = compile_rules(project, [path], embedder=embedder, write=False)
                yield data, rel_file, project.rel(path), compiled, by_file[rel_file]


def require_tasks(datas: list[Path], prog: str) -> None:
    """Exit with one line naming the first directory that holds no ``tasks.jsonl``."""
    missing = [d for d in datas if not (d / "tasks.jsonl").is_file()]
    if missing:
        sys.exit(f"{prog}: no tasks.jsonl in {missing[0]}")
