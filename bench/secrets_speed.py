"""What the secret scan adds to a full index: ``charter index`` with and without it.

    .venv/bin/python bench/secrets_speed.py [--docs 1000] [--runs 3] [--provider minilm]

Indexes the first ``--docs`` SciFact abstracts (as a JSONL corpus, the way `charter eval
ir` does) and, as a second corpus, this repository's docs/, src/ and the demo project
copied into a project folder, each into a fresh temporary index, alternating runs with
``[secrets] enabled = true`` and ``false`` so machine load hits both alike. Prints the
median seconds of each and the overhead. The scan alone (the same chunks redacted
in-process, no store, no model) is timed too: on a busy shared machine it is the steadier
figure of the two.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from charter.config import Project, parse_settings
from charter.embed.registry import get_embedder
from charter.search.indexer import Indexer, index_jsonl
from charter.search.parse import parse_file
from charter.secretscan.apply import scrub_parsed
from charter.secretscan.scanner import Scanner

REPO = Path(__file__).resolve().parents[1]
SCIFACT = Path("/work/shared/bench/ir/scifact/corpus.jsonl")


def _project(root: Path, enabled: bool, provider: str) -> Project:
    raw = {"embed": {"provider": provider}, "secrets": {"enabled": enabled}}
    raw["search"] = {"index": {"git_history": False}}
    return Project(root=root, settings=parse_settings(raw))


def _corpora(work: Path, docs: int) -> dict[str, Path]:
    out: dict[str, Path] = {}
    if SCIFACT.is_file():
        lines = SCIFACT.read_text(encoding="utf-8").splitlines()[:docs]
        path = work / "scifact.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[f"scifact[{len(lines)}]"] = path
    tree = work / "repo"
    for part in ("docs", "src", "examples/demo-project"):
        shutil.copytree(REPO / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    out["repo docs+src+demo"] = tree
    return out


def _index_once(source: Path, enabled: bool, provider: str, embedder) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if source.is_dir():
            shutil.copytree(source, root, dirs_exist_ok=True)
        project = _project(root, enabled, provider)
        started = time.perf_counter()
        if source.is_dir():
            Indexer(project, embedder).run()
        else:
            index_jsonl(project, source, embedder)
        return time.perf_counter() - started


def _scan_only(source: Path) -> tuple[float, int]:
    """Seconds to redact every chunk of the corpus in-process, and the chunks scanned."""
    parsed = []
    if source.is_dir():
        for path in sorted(source.rglob("*")):
            kind = {".md": "markdown", ".py": "python", ".csv": "csv", ".yaml": "yaml"}.get(
                path.suffix
            )
            if kind and path.is_file():
                text = path.read_text(encoding="utf-8")
                parsed.append((path.as_posix(), kind, parse_file(text, kind, path.name)))
    else:
        from charter.search.chunks import Chunk, ParsedDoc

        for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            obj = json.loads(line)
            chunk = Chunk("jsonl", n, n, obj.get("title", ""), obj.get("title", ""), obj["text"])
            parsed.append((source.name, "jsonl", ParsedDoc([chunk])))
    scanner = Scanner()
    scanner.redact("warm AKIA0000000000000000 up")  # import detect-secrets outside the clock
    started = time.perf_counter()
    for path, kind, doc in parsed:
        scrub_parsed(doc, path, kind, scanner)
    return time.perf_counter() - started, sum(len(d.chunks) for _, _, d in parsed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--provider", default="minilm")
    args = parser.parse_args()
    embedder = get_embedder(args.provider)
    embedder.embed(["warm up"])
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in _corpora(Path(tmp), args.docs).items():
            times: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.runs):
                for enabled in (False, True):
                    times[enabled].append(_index_once(source, enabled, args.provider, embedder))
            off, on = statistics.median(times[False]), statistics.median(times[True])
            scan, chunks = _scan_only(source)
            print(
                f"{name:<22} index off {off:7.2f}s  on {on:7.2f}s  "
                f"(+{(on - off) / off:+.1%} end to end)  scan alone {scan:6.3f}s "
                f"over {chunks} chunks = {scan / off:.1%} of the index  [{args.provider}, "
                f"median of {args.runs}]",
                flush=True,
            )


if __name__ == "__main__":
    main()
