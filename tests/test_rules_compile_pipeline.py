"""A compile embeds its rules while it parses them, and loads the model before the CLI's
own imports: the same output as embedding every rule after the parse, one model load."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from charter.config import Project
from charter.embed import registry
from charter.embed.hashing import HashEmbedder
from charter.rules import compiler
from charter.rules.compiler import compile_rules
from tests.conftest import write


def _rules_file(n: int) -> str:
    """``n`` retrievable rules of varied lengths and a constitution section with more
    rules than its cap holds (the overflow is embedded after the parse, as before)."""
    lines = ["# Project rules", "", "## Critical rules", ""]
    lines += [f"- Never run the deploy script number {i} on a Friday." for i in range(8)]
    lines += ["", "## Conventions", ""]
    for i in range(n):
        tail = " because the billing service retries failed jobs" * (i % 4)
        lines.append(f"- Keep module {i} small and cover it with unit tests{tail}.")
    lines += ["", "## Copies", "", "- Keep module 3 small and cover it with unit tests."]
    return "\n".join(lines) + "\n"


def _state(root: Path) -> tuple[bytes, bytes, bytes]:
    state = root / ".charter"
    return tuple(  # type: ignore[return-value]
        (state / name).read_bytes() for name in ("rules.json", "rules.npy", "rules.prohibited.json")
    )


def test_a_pipelined_compile_is_byte_identical_to_embedding_after_the_parse(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    write(repo, "CLAUDE.md", _rules_file(90))
    write(repo, "charter.toml", "[rules]\nmax_constitution_lines = 4\n")
    serial = tmp_path / "serial"
    shutil.copytree(repo, serial)

    handed: list[str] = []
    real_add = compiler._Prefetch.add

    def add(self: compiler._Prefetch, rule: Any) -> None:
        handed.append(rule.search_text)
        real_add(self, rule)

    prefetched: list[dict[str, Any]] = []
    real_vectors = compiler._Prefetch.vectors

    def vectors(self: compiler._Prefetch) -> dict[str, Any]:
        prefetched.append(real_vectors(self))
        return prefetched[-1]

    monkeypatch.setattr(compiler._Prefetch, "add", add)
    monkeypatch.setattr(compiler._Prefetch, "vectors", vectors)
    piped = compile_rules(Project.load(repo))
    # every rule was handed over as parsed, and the prefetch embedded the shards' rules
    assert len(handed) == len(piped.rules)
    shards = {r.search_text for r in piped.rules if not r.constitution}
    assert len(prefetched) == 1 and set(prefetched[0]) == shards
    assert piped.constitution.overflow_ids  # the late pass has rules to embed too

    monkeypatch.setattr(compiler._Prefetch, "add", lambda self, rule: None)
    alone = compile_rules(Project.load(serial))
    assert _state(repo) == _state(serial)
    assert np.array_equal(piped.vectors, alone.vectors)
    assert piped.report.embedded == alone.report.embedded
    assert piped.report.reused == alone.report.reused == 0
    # deferred constitution rules stay zero rows; every other row has its vector
    kept = set(piped.constitution.rule_ids)
    for rule, row in zip(piped.rules, piped.vectors, strict=True):
        assert bool(np.any(row)) == (rule.id not in kept), rule.text


def test_the_prefetch_embeds_only_what_the_vector_cache_lacks(repo: Path) -> None:
    write(repo, "CLAUDE.md", _rules_file(20))
    project = Project.load(repo)
    first = compile_rules(project)
    assert first.report.embedded > 0
    write(repo, "CLAUDE.md", _rules_file(20) + "- Prefer dataclasses over dicts.\n")
    embedded: list[str] = []

    class Counting(HashEmbedder):
        name = first.model  # the cache holds this model's vectors

        def embed(self, texts: Any) -> Any:
            embedded.extend(texts)
            return super().embed(texts)

    again = compile_rules(Project.load(repo), embedder=Counting())
    assert again.report.embedded == 1
    assert embedded == [r.search_text for r in again.rules if "dataclasses" in r.text]


def test_the_prefetch_gives_each_text_the_vector_embedding_it_alone_gives(
    repo: Path,
) -> None:
    from charter.embed.registry import rules_embedder_for
    from charter.rules.build import rules_from_source
    from charter.rules.sources import load_source

    path = write(repo, "CLAUDE.md", _rules_file(70))
    project = Project.load(repo)
    model = rules_embedder_for(project.settings)
    rules = rules_from_source(load_source(path, "CLAUDE.md", "claude"), [])
    prefetch = compiler._Prefetch(project.db_path, lambda: model, lambda: None)
    try:
        for rule in rules:
            prefetch.add(rule)
        got = prefetch.vectors()
    finally:
        prefetch.close()
    texts = list(dict.fromkeys(r.search_text for r in rules))
    assert list(got) == texts  # in the order handed over, each text once
    assert np.array_equal(np.stack(list(got.values())), model.embed(texts))


def test_a_model_asked_for_while_it_loads_is_loaded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[int] = []

    class Slow(HashEmbedder):
        def __init__(self) -> None:
            built.append(1)
            time.sleep(0.2)
            super().__init__()

    monkeypatch.setattr(registry, "HashEmbedder", Slow)
    monkeypatch.setattr(registry, "_CACHE", {})
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(registry.get_embedder("hash"))) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(built) == 1
    assert len(got) == 3 and all(e is got[0] for e in got)


@pytest.mark.parametrize(
    ("args", "preloads"),
    [
        (["--json"], True),
        ([], True),
        (["--help"], False),
        (["-C", "elsewhere"], False),
        (["--project=elsewhere"], False),
    ],
)
def test_charter_compile_starts_loading_the_model_before_its_imports(
    repo: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], preloads: bool
) -> None:
    import charter.cli as cli

    calls: list[object] = []
    monkeypatch.setattr(registry, "preload_rules_embedder", lambda *a, **k: calls.append(a))
    monkeypatch.chdir(repo)
    cli._preload_compile(args)
    assert len(calls) == int(preloads)


def test_no_preload_outside_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import charter.cli as cli

    calls: list[object] = []
    monkeypatch.setattr(registry, "preload_rules_embedder", lambda *a, **k: calls.append(a))
    bare = tmp_path / "bare"
    bare.mkdir()
    monkeypatch.chdir(bare)
    monkeypatch.setattr("charter.paths.find_project", lambda start: None)
    cli._preload_compile([])
    assert calls == []


def test_a_second_preload_of_the_same_model_starts_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, "charter.toml", '[embed]\nprovider = "hash"\n')
    settings = Project.load(repo).settings
    monkeypatch.setattr(registry, "_PRELOADED", set())
    monkeypatch.setattr(registry, "_CACHE", {})
    done = threading.Event()
    calls: list[int] = []

    def then() -> None:
        calls.append(1)
        done.set()

    registry.preload_rules_embedder(settings, then=then)
    registry.preload_rules_embedder(settings, then=then)
    assert done.wait(10)
    time.sleep(0.1)
    assert calls == [1]
    assert isinstance(registry.rules_embedder_for(settings), HashEmbedder)


def test_a_compile_hands_the_gil_over_often_and_restores_the_interval(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While it parses and reads rules holding the GIL, the model's threads get it within
    half a millisecond (not Python's 5 ms); the process's setting is restored after."""
    import sys

    write(repo, "CLAUDE.md", _rules_file(5))
    seen: list[float] = []
    parse = compiler._parse_rules

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(sys.getswitchinterval())
        return parse(*args, **kwargs)

    monkeypatch.setattr(compiler, "_parse_rules", watched)
    before = sys.getswitchinterval()
    compile_rules(Project.load(repo))
    assert seen == [compiler._SWITCH_INTERVAL] and before > compiler._SWITCH_INTERVAL
    assert sys.getswitchinterval() == before
