"""Speed of the rules engine on a 500-rule file (prints medians; not a test).

    .venv/bin/python bench/rules_speed.py [--rules 500] [--runs 5]

Measures: cold compile in a fresh process with the default model and no vector cache;
in-process retrieval p50 with and without the query embedding; hook wall time per
prompt, with the warm worker and without it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOPICS = [
    ("Security", ["secrets", "tokens", "passwords", "API keys", "session cookies", "PII"]),
    ("Testing", ["unit tests", "fixtures", "mocks", "snapshots", "e2e tests", "coverage"]),
    ("Architecture", ["services", "repositories", "controllers", "modules", "events", "DTOs"]),
    ("Style", ["imports", "naming", "docstrings", "type hints", "f-strings", "constants"]),
    ("Deployment", ["migrations", "feature flags", "rollbacks", "Docker images", "Helm charts"]),
    ("Performance", ["queries", "caching", "pagination", "bundle size", "N+1 queries", "indexes"]),
    ("Database", ["transactions", "foreign keys", "schemas", "seeds", "backups", "locks"]),
    ("Frontend", ["components", "CSS variables", "i18n strings", "hooks", "forms", "routes"]),
]
VERBS = ["Always validate", "Never log", "Prefer small", "Document", "Review", "Cache", "Test"]
CONTEXTS = [
    "in the billing service",
    "before merging",
    "in CI",
    "for public endpoints",
    "in React components",
    "during deploys",
    "in background jobs",
    "for admin pages",
]


def make_rules(n: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    per = n // len(TOPICS) + 1
    out = ["# Project rules", ""]
    count = 0
    for section, nouns in TOPICS:
        out += [f"## {section}", ""]
        for i in range(per):
            if count >= n:
                break
            text = (
                f"- {rng.choice(VERBS)} {rng.choice(nouns)} {rng.choice(CONTEXTS)} "
                f"(rule {count}, case {i}); see `docs/{section.lower()}/{i}.md`."
            )
            out.append(text)
            count += 1
        out.append("")
    return "\n".join(out)


def charter_exe() -> str:
    return str(Path(sys.executable).with_name("charter"))


def median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def bench_compile(root: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        subprocess.run(["rm", "-rf", str(root / ".charter")], check=True)
        start = time.perf_counter()
        subprocess.run(
            [charter_exe(), "compile", "--json"], cwd=root, check=True, capture_output=True
        )
        times.append(time.perf_counter() - start)
    return times


def bench_retrieval(root: Path, queries: list[str]) -> tuple[list[float], list[float]]:
    from charter.config import Project
    from charter.rules.api import retriever_for

    retriever = retriever_for(Project.load(root))
    retriever.retrieve("warm up")
    without, with_embed = [], []
    for q in queries:
        vec = retriever.embed_query(q)
        start = time.perf_counter()
        retriever.retrieve(q, query_vector=vec)
        without.append(time.perf_counter() - start)
        start = time.perf_counter()
        retriever.retrieve(q)
        with_embed.append(time.perf_counter() - start)
    return without, with_embed


def hook(root: Path, event: str, payload: dict[str, object]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    start = time.perf_counter()
    subprocess.run(
        [charter_exe(), "hook", event],
        cwd=root,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return time.perf_counter() - start


def bench_hooks(root: Path, queries: list[str], warm: bool) -> list[float]:
    from charter.paths import worker_socket

    (root / "charter.toml").write_text(f"[hooks]\nwarm_worker = {str(warm).lower()}\n")
    base = {"session_id": "bench", "transcript_path": str(root / "t.jsonl"), "cwd": str(root)}
    hook(root, "session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    sock = worker_socket(root)
    if warm:
        deadline = time.time() + 60
        while not sock.exists() and time.time() < deadline:
            time.sleep(0.1)
    times = []
    try:
        for q in queries:
            payload = {**base, "hook_event_name": "UserPromptSubmit", "prompt": q}
            times.append(hook(root, "user-prompt-submit", payload))
    finally:
        if warm and sock.exists():
            pid = int(sock.with_suffix(".lock").read_text() or 0)
            if pid:
                os.kill(pid, signal.SIGTERM)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    queries = [
        "Fix the N+1 queries on the invoices page",
        "Add a feature flag for the new checkout",
        "Write unit tests for the billing service",
        "Rotate the API keys used by background jobs",
        "Translate the settings form labels",
    ] * 4
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "CLAUDE.md").write_text(make_rules(args.rules))
        compile_times = bench_compile(root, args.runs)
        without, with_embed = bench_retrieval(root, queries)
        cold = bench_hooks(root, queries[: args.runs], warm=False)
        warm = bench_hooks(root, queries, warm=True)
    print(f"rules: {args.rules}")
    print(
        f"compile cold (fresh process, no cache) median: {median_ms(compile_times)} ms "
        f"(range {min(compile_times) * 1000:.0f}–{max(compile_times) * 1000:.0f} ms, "
        f"{len(compile_times)} runs)"
    )
    print(f"retrieval p50 excluding query embedding: {median_ms(without)} ms")
    print(f"retrieval p50 including query embedding: {median_ms(with_embed)} ms")
    print(
        f"hook user-prompt-submit p50, warm worker: {median_ms(warm)} ms "
        f"(max {round(max(warm) * 1000, 1)} ms)"
    )
    print(f"hook user-prompt-submit p50, no worker (cold process): {median_ms(cold)} ms")


if __name__ == "__main__":
    main()
