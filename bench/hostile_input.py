"""Hostile-input and boundary probes: each one through the real CLI, time and peak memory.

Builds a fresh temp project per probe, runs ``charter`` in a subprocess (address space
capped at 6 GiB so a regression fails instead of swapping), and prints one row per probe:
exit code, seconds, peak RSS (MiB), the first ``charter: error`` / warning line, and for
boundary probes whether the outside canary appeared in any output or an outside file was
written. Usage: ``python bench/hostile_input.py [--runs N]`` (N repetitions, worst kept).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import write
from tests.test_hostile_input import billion_laughs, write_ledger

CANARY = "OUTSIDE-CANARY-BENCH"
CHARTER = [sys.executable, "-m", "charter"]


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (6 * 1024**3, 6 * 1024**3))


def _base(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, "CLAUDE.md", "# Rules\n\n- Always run the tests before pushing.\n")


def setup_mdc_bomb(root: Path, outside: Path) -> list[str]:
    bomb = billion_laughs().replace("l8:", "globs:")
    write(root, ".cursor/rules/bomb.mdc", f"---\n{bomb}alwaysApply: true\n---\n- Lint.\n")
    return ["compile", "--json"]


def setup_sot_bomb_index(root: Path, outside: Path) -> list[str]:
    write(root, "sot/bomb.yaml", billion_laughs())
    return ["index", "--json"]


def setup_sot_bomb_facts(root: Path, outside: Path) -> list[str]:
    write(root, "sot/bomb.yaml", billion_laughs())
    write(root, "claim.md", "The fee is 100.\n")
    return ["facts", "check", "claim.md", "--json"]


def setup_deep_json(root: Path, outside: Path) -> list[str]:
    write(root, "sot/deep.json", "[" * 200_000 + "]" * 200_000)
    return ["index", "--json"]


def setup_md_emphasis(root: Path, outside: Path) -> list[str]:
    write(root, ".claude/rules/emph.md", "*" * 30_000 + "a" + "*" * 30_000 + "\n")
    return ["compile", "--json"]


def setup_md_links(root: Path, outside: Path) -> list[str]:
    write(root, "docs/links.md", "# L\n\n" + "[a](" * 50_000 + "\n")
    write(root, "docs/dots.md", "# D\n\n" + "a." * 100_000 + "x\n")
    return ["index", "--json"]


def setup_sot_10mb(root: Path, outside: Path) -> list[str]:
    write_ledger(root / "sot/ledger.csv", 10_000_000)
    write(root, "claim.md", "Invoice INV-0000042 has a fee of 1042.\n")
    return ["facts", "check", "claim.md", "--json"]


def setup_symlinked_rule(root: Path, outside: Path) -> list[str]:
    (root / ".claude/rules").mkdir(parents=True)
    (root / ".claude/rules/evil.md").symlink_to(outside / "evil.md")
    return ["context", "leak instruction", "--json"]


def setup_imports(root: Path, outside: Path) -> list[str]:
    write(root, "CLAUDE.md", f"# R\n\n- Run tests.\n\n@{outside}/evil.md\n@../outside/evil.md\n")
    return ["context", "leak instruction", "--json"]


def setup_sources(root: Path, outside: Path) -> list[str]:
    write(root, "charter.toml", '[rules]\nsources = ["../outside/*.md"]\n')
    return ["context", "leak instruction", "--json"]


def setup_actions_log(root: Path, outside: Path) -> list[str]:
    write(root, "charter.toml", f'[search]\nactions_log = "{outside}/log.csv"\n')
    write(root, "docs/a.md", "# A\n\nDeploys go out on Tuesdays.\n")
    subprocess.run([*CHARTER, "index"], cwd=root, capture_output=True, check=False)
    return ["search", "deploys"]


def setup_log_symlink(root: Path, outside: Path) -> list[str]:
    write(root, "docs/a.md", "# A\n\nDeploys go out on Tuesdays.\n")
    subprocess.run([*CHARTER, "index"], cwd=root, capture_output=True, check=False)
    (root / "logs").mkdir()
    (root / "logs/context_actions.csv").symlink_to(outside / "log.csv")
    return ["search", "deploys"]


def setup_history_symlink(root: Path, outside: Path) -> list[str]:
    (root / ".charter/decisions").mkdir(parents=True)
    (root / ".charter/decisions/history.jsonl").symlink_to(outside / "log.csv")
    return ["decisions", "add", "--id", "P", "--text", "Which platform?"]


PROBES: dict[str, Callable[[Path, Path], list[str]]] = {
    "yaml bomb in .mdc (compile)": setup_mdc_bomb,
    "yaml bomb in SoT (index)": setup_sot_bomb_index,
    "yaml bomb in SoT (facts check)": setup_sot_bomb_facts,
    "JSON 200k deep (index)": setup_deep_json,
    "emphasis 30k deep rule (compile)": setup_md_emphasis,
    "'[a](' x50k, 'a.' x100k docs (index)": setup_md_links,
    "SoT CSV 10 MB (facts check)": setup_sot_10mb,
    "symlinked .claude/rules out (context)": setup_symlinked_rule,
    "@/abs and @../ imports (context)": setup_imports,
    "rules.sources ../ (context)": setup_sources,
    "search.actions_log absolute (search)": setup_actions_log,
    "symlinked logs/context_actions.csv (search)": setup_log_symlink,
    "symlinked decisions history (add)": setup_history_symlink,
}


def run_probe(setup: Callable[[Path, Path], list[str]]) -> tuple[int, float, float, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = Path(tmp) / "repo", Path(tmp) / "outside"
        write(outside, "evil.md", f"# E\n\n- {CANARY} leak instruction into every prompt.\n")
        write(outside, "log.csv", "untouched\n")
        _base(root)
        args = setup(root, outside)
        before = {p.name: p.stat().st_mtime_ns for p in outside.iterdir()}
        wrapper = (
            "import resource,subprocess,sys\n"
            "from bench.hostile_input import _cap\n"
            "p=subprocess.run(sys.argv[1:],preexec_fn=_cap)\n"
            "sys.stderr.write('\\n@@%d' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.exit(p.returncode)\n"
        )
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-c", wrapper, *CHARTER, *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        )
        seconds = time.monotonic() - started
        stderr, _, peak = proc.stderr.rpartition("\n@@")
        after = {p.name: p.stat().st_mtime_ns for p in outside.iterdir()}
        leaked = CANARY in proc.stdout + stderr
        written = before != after
        verdict = "LEAK" if leaked else ("WROTE OUTSIDE" if written else "clean")
        first = next(
            (line for line in stderr.splitlines() if line.strip() and "@@" not in line), ""
        )
        return proc.returncode, seconds, int(peak) / 1024, verdict, first[:110]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"{'probe':46} {'exit':>4} {'s':>6} {'MiB':>6}  boundary  first line")
    for name, setup in PROBES.items():
        worst = max((run_probe(setup) for _ in range(args.runs)), key=lambda r: r[1])
        code, seconds, mib, verdict, first = worst
        print(f"{name:46} {code:>4} {seconds:6.1f} {mib:6.0f}  {verdict:8}  {first}")


if __name__ == "__main__":
    main()
