"""Drift-check speed: one 250-word artifact against 8 constraints, and the Stop hook.

Prints medians (milliseconds). Inputs are the repo's own held-out scenario
(tests/data/drift_extra, ``clinic_scheduling``: 8 clarifications), so the script runs on
a clean clone. Usage: ``python bench/drift_speed.py [--runs N]``.

- ``check_semantic_ms``: default checker (lexical + bundled MiniLM), warm process,
  constraint vectors prepared once; the artifact's sentences are embedded every run.
- ``check_lexical_ms``: the lexical layer alone.
- ``*_clean_*``: the same on a 250-word artifact built only from passing cases (nothing
  is decided lexically, so the semantic layer embeds the most sentences).
- ``*_cpu_ms``: process CPU time of the same calls (all threads): on a shared, loaded
  machine wall time includes waiting for a core; CPU time is what the check costs.
- ``stop_hook_cold_ms``: wall time of ``charter hook stop`` in a fresh process (no warm
  worker), Claude Code Stop JSON on stdin, in a temp project with the same decisions.
- ``stop_hook_warm_worker_ms``: the same command while the project's warm worker runs
  (the normal case: SessionStart starts it); the worker holds the model, so the check
  includes the semantic layer (``drift.stop_semantic = "auto"``).
- ``stop_handler_warm_ms``: ``handle_stop`` in a warm process (what the warm worker
  pays per Stop event; the socket round trip comes on top).
- ``python_startup_ms``: a bare ``python -c pass`` for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "drift_extra"
SCENARIO = "clinic_scheduling"
CHARTER = Path(sys.executable).with_name("charter")


def artifact(words: int = 250, expected: str | None = None) -> str:
    """~250 words of real artifact text from the scenario's cases, lines kept
    (``expected="pass"``: only from cases without violations)."""
    texts = []
    for line in (DATA / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["scenario"] == SCENARIO and expected in (None, case["expected"]):
            texts.append(case["text"])
    out: list[str] = []
    count = 0
    for text in texts:
        for line in text.splitlines():
            n = len(line.split())
            if count + n > words:
                return "\n".join(out)
            out.append(line)
            count += n
    return "\n".join(out)


def median_ms(samples: list[float]) -> float:
    return round(1000 * statistics.median(samples), 2)


def in_process(texts: dict[str, str], runs: int) -> dict[str, float]:
    from charter.decisions.drift.checker import DriftChecker
    from charter.decisions.models import parse_clarifications
    from charter.embed.registry import get_embedder

    data = json.loads((DATA / "constraints" / f"{SCENARIO}.json").read_text())
    decisions = parse_clarifications(data)
    out = {}
    for name, embedder in (("semantic", get_embedder("minilm")), ("lexical", None)):
        checker = DriftChecker(decisions, embedder=embedder)
        for label, text in texts.items():
            for _ in range(3):
                checker.check(text)
            samples, cpu = [], []
            for _ in range(runs):
                t0, c0 = time.perf_counter(), time.process_time()
                checker.check(text)
                samples.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            out[f"check_{name}{label}_ms"] = median_ms(samples)
            out[f"check_{name}{label}_cpu_ms"] = median_ms(cpu)
    return out


def hook_cold(text: str, runs: int, mirror: Path | None = None) -> dict[str, float]:
    from charter.config import Project
    from charter.decisions import service
    from charter.decisions.models import parse_clarifications

    tmp = Path(tempfile.mkdtemp(prefix="charter-drift-speed-"))
    try:
        if mirror is not None:
            # a real repository's tracked files (its index, nothing checked out): the
            # checker reads what they name (drift.project_words)
            shutil.rmtree(tmp)
            subprocess.run(
                ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(tmp)],
                check=True,
            )
            subprocess.run(["git", "-C", str(tmp), "read-tree", "HEAD"], check=True)
        else:
            subprocess.run(["git", "init", "-q", str(tmp)], check=True)
        (tmp / "charter.toml").write_text("[hooks]\nwarm_worker = false\n")
        data = json.loads((DATA / "constraints" / f"{SCENARIO}.json").read_text())
        service.record(Project.load(tmp), parse_clarifications(data), "import")
        payload = json.dumps(
            {
                "session_id": "bench",
                "cwd": str(tmp),
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": text,
            }
        )
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(tmp)}
        from charter.decisions.hooks import handle_stop

        project = Project.load(tmp)
        warm = []
        for _ in range(runs + 3):
            t0 = time.perf_counter()
            reply = handle_stop(project, json.loads(payload))
            warm.append(time.perf_counter() - t0)
        assert reply is not None, "the artifact should fail the check"
        hook, bare, warm_hook = [], [], []
        worker = subprocess.Popen(
            [sys.executable, "-m", "charter.integrations.claude_code.worker", str(tmp)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            from charter.paths import worker_socket

            deadline = time.time() + 60
            while not worker_socket(tmp).exists() and time.time() < deadline:
                time.sleep(0.1)
            warm_hook.extend(_time_stop_hook(payload, env) for _ in range(runs + 1))
        finally:
            worker.terminate()
            worker.wait(timeout=30)
        for _ in range(runs):
            hook.append(_time_stop_hook(payload, env))
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare.append(time.perf_counter() - t0)
        return {
            "stop_handler_warm_ms": median_ms(warm[3:]),
            "stop_hook_warm_worker_ms": median_ms(warm_hook[1:]),
            "stop_hook_cold_ms": median_ms(hook),
            "python_startup_ms": median_ms(bare),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _time_stop_hook(payload: str, env: dict[str, str]) -> float:
    """Wall seconds of one ``charter hook stop`` subprocess."""
    t0 = time.perf_counter()
    subprocess.run(
        [str(CHARTER), "hook", "stop"],
        input=payload,
        text=True,
        env=env,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--project-mirror",
        type=Path,
        default=None,
        help="a (bare) git directory whose tracked files the hook's project holds",
    )
    args = parser.parse_args()
    text = artifact()
    clean = artifact(expected="pass")
    result: dict[str, object] = {
        "artifact_words": len(text.split()),
        "clean_artifact_words": len(clean.split()),
        "constraints": 8,
    }
    result.update(in_process({"": text, "_clean": clean}, args.runs))
    result.update(hook_cold(text, max(5, args.runs // 4), args.project_mirror))
    result["load_average_1m"] = round(os.getloadavg()[0], 2)
    result["cpus"] = os.cpu_count()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
