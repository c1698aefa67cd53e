"""``charter eval rules``: recall of gold rules and injected tokens on labelled rule files.

Data layout (``shared/bench/rules``): one directory per rule file and a ``tasks.jsonl``
whose lines name the file, the task and gold lines (with ``alt`` lines stating the same
rule). A gold rule is found when a returned rule's span (constitution or shard) covers
its line or any alt line. Tokens are the policy text's cl100k tokens as a fraction of the
whole file's.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project, Settings
from charter.embed.registry import rules_embedder_for
from charter.errors import CharterError
from charter.fileio import iter_jsonl, read_text
from charter.rules.compiler import CompiledRules, compile_rules, manual_paths
from charter.rules.model import Rule
from charter.rules.retrieve import Retriever
from charter.tokens import count_tokens, estimate_tokens


def _covers(rules: list[Rule], path: str, line: int) -> bool:
    return any(
        r.source.path == path and r.source.line_start <= line <= r.source.line_end for r in rules
    )


def _gold_found(rules: list[Rule], path: str, gold: dict[str, Any]) -> bool:
    lines = [gold["line"]] + [a["line"] for a in gold.get("alt", [])]
    return any(_covers(rules, path, ln) for ln in lines)


def load_tasks(data: Path) -> list[dict[str, Any]]:
    tasks_path = data / "tasks.jsonl"
    tasks = []
    for number, task in iter_jsonl(tasks_path, what="tasks file"):
        if "task" not in task or "file" not in task:
            raise CharterError(f"{tasks_path}:{number}: expected an object with task and file")
        tasks.append(task)
    return tasks


def evaluate_rules(
    data: Path,
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Per-file and overall recall / token figures for ``data``."""
    if not data.is_dir():
        raise CharterError(f"benchmark directory not found: {data}")
    settings = settings or Settings()
    tasks = load_tasks(data)
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task in tasks:
        by_file[task["file"]].append(task)
    embedder = rules_embedder_for(settings)
    per_file: dict[str, Any] = {}
    all_rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="charter-eval-") as tmp:
        for rel_file in sorted(by_file):
            path = data / rel_file
            if progress:
                progress(rel_file)
            project = Project(root=path.parent, settings=settings, state_override=Path(tmp))
            compiled = compile_rules(project, [path], embedder=embedder, write=False)
            retriever = Retriever(compiled, settings.rules, embedder)
            whole = count_tokens(read_text(path, what="rule file"))
            rel = project.rel(path)
            always_path = path.parent / "always.json"
            always_cov = moment_cov = None
            handed, handed_tokens = at_moments(compiled, settings)
            if always_path.is_file():
                always = json.loads(always_path.read_text())["always"]
                hit = [_gold_found(retriever.constitution_rules, rel, g) for g in always]
                always_cov = sum(hit) / len(hit) if hit else None
                held = retriever.constitution_rules + handed
                moment_hit = [_gold_found(held, rel, g) for g in always]
                moment_cov = sum(moment_hit) / len(moment_hit) if moment_hit else None
            rows = []
            for task in by_file[rel_file]:
                result = retriever.retrieve(task["task"], task.get("files"))
                returned = retriever.constitution_rules + [s.rule for s in result.shards]
                gold = task.get("relevant", [])
                found = [_gold_found(returned, rel, g) for g in gold]
                shard_only = [_gold_found([s.rule for s in result.shards], rel, g) for g in gold]
                rows.append(
                    {
                        "id": task.get("id", ""),
                        "gold": len(gold),
                        "recall": (sum(found) / len(gold)) if gold else None,
                        "shard_recall": (sum(shard_only) / len(gold)) if gold else None,
                        "tokens": result.tokens,
                        "ratio": result.tokens / whole if whole else 0.0,
                        "shards": len(result.shards),
                        "missed": [g["line"] for g, ok in zip(gold, found, strict=True) if not ok],
                    }
                )
            per_file[rel_file] = _summary(rows) | {
                "whole_tokens": whole,
                "constitution_tokens": retriever.constitution_tokens,
                "constitution_rules": len(retriever.constitution_rules),
                "rules": len(compiled.rules),
                "always_coverage": always_cov,
                "moment_coverage": moment_cov,
                "moment_tokens": handed_tokens,
            }
            all_rows.extend(rows)
    table = per_file_table(per_file)
    covered = [f["always_coverage"] for f in per_file.values() if f["always_coverage"] is not None]
    overall = _summary(all_rows)
    # the benchmark's second figure: how much of each file's always-rules (process and
    # safety invariants, labelled once per file in always.json) the always-loaded core holds
    overall["always_coverage"] = round(statistics.fmean(covered), 4) if covered else None
    # and with what the moments hand over besides (a commit, a push, a pull request, the
    # first source file): what a conversation that does all of them has received
    moments = [f["moment_coverage"] for f in per_file.values() if f["moment_coverage"] is not None]
    overall["moment_coverage"] = round(statistics.fmean(moments), 4) if moments else None
    overall["moment_tokens"] = (
        round(statistics.fmean(f["moment_tokens"] for f in per_file.values()), 1)
        if per_file
        else 0.0
    )
    return {
        "overall": overall,
        "files": per_file,
        "per_file": table,
        "worst_file": worst_file(table),
        "tasks": all_rows,
    }


def per_file_table(files: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per rule file, so a regression on one file cannot hide in the mean."""
    return [
        {
            "file": name,
            "tasks": row["tasks"],
            "recall": row["recall"],
            "shard_recall": row["shard_recall"],
            "token_ratio": row["token_ratio"],
            "token_ratio_p95": row["token_ratio_p95"],
            "token_ratio_max": row["token_ratio_max"],
            "always_coverage": row.get("always_coverage"),
            "moment_coverage": row.get("moment_coverage"),
        }
        for name, row in files.items()
    ]


#: the steps a conversation that delivers a change takes (:mod:`charter.rules.moments`)
_STEPS = (("git", "commit"), ("git", "push"), ("gh", "pr", "create"))


def at_moments(compiled: CompiledRules, settings: Settings) -> tuple[list[Rule], int]:
    """What the tool-time moments hand over in one conversation that reads a source file,
    commits, pushes and opens a pull request, each within its own budget as the hooks
    take them, and the tokens they cost."""
    from charter.rules.general import general_scores, ranked
    from charter.rules.moments import rules_for_steps, steps_of
    from charter.rules.render import file_header, render_rule_line

    config = settings.rules
    pinned = set(compiled.constitution.rule_ids)
    given: list[Rule] = []
    spent = 0

    def take(rules: list[Rule], budget: int) -> None:
        nonlocal spent
        room, paths = budget, set()
        for rule in rules:
            if rule.id in pinned:
                continue
            # counted as the hooks count them (a quarter of the characters, no tokenizer)
            cost = estimate_tokens(render_rule_line(rule, config.max_rule_tokens)) + 1
            if rule.source.path not in paths:
                cost += estimate_tokens(file_header(rule.source.path)) + 1
            if cost > room:
                continue
            room -= cost
            paths.add(rule.source.path)
            pinned.add(rule.id)
            given.append(rule)
        spent += budget - room

    if config.code_rules_max_tokens > 0:
        scores = general_scores(
            compiled.rules,
            compiled.vectors,
            pinned,
            model_name=compiled.model,
            asked_for=manual_paths(compiled.sources),
        )
        take(
            ranked(compiled.rules, scores, pinned, config.code_rules_min_score),
            config.code_rules_max_tokens,
        )
    if config.step_rules_max_tokens > 0:
        for step in steps_of(_STEPS):
            take(rules_for_steps(compiled.rules, [step], pinned), config.step_rules_max_tokens)
    return given, spent


def worst_file(table: list[dict[str, Any]]) -> str | None:
    """The file with the lowest recall (ties: the larger token ratio); files whose tasks
    all have empty gold have no recall and are never the worst."""
    scored = [r for r in table if r["recall"] is not None]
    if not scored:
        return None
    return min(scored, key=lambda r: (r["recall"], -r["token_ratio"]))["file"]


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    with_gold = [r for r in rows if r["recall"] is not None]
    ratios = sorted(r["ratio"] for r in rows)
    p95 = ratios[min(len(ratios) - 1, round(0.95 * (len(ratios) - 1)))] if ratios else 0.0
    return {
        "tasks": len(rows),
        "recall": round(statistics.fmean(r["recall"] for r in with_gold), 4) if with_gold else None,
        "shard_recall": round(statistics.fmean(r["shard_recall"] for r in with_gold), 4)
        if with_gold
        else None,
        "token_ratio": round(statistics.fmean(ratios), 4) if ratios else 0.0,
        "token_ratio_p95": round(p95, 4),
        # the contract is a cap per task (at most 25 % of the file): the mean hides a breach
        "token_ratio_max": round(ratios[-1], 4) if ratios else 0.0,
        "tokens_mean": round(statistics.fmean(r["tokens"] for r in rows), 1) if rows else 0.0,
    }
