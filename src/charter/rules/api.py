"""The rules engine's public API: what the CLI, hooks and MCP server call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from charter.config import Project
from charter.embed.registry import rules_embedder_for
from charter.rules.compiler import CompiledRules, compile_rules, load_or_compile
from charter.rules.retrieve import Retriever

__all__ = [
    "compile_project",
    "compiled_rules",
    "constitution_payload",
    "retriever_for",
    "task_context",
]


def compile_project(project: Project, paths: list[Path] | None = None) -> CompiledRules:
    return compile_rules(project, paths)


def retriever_for(project: Project, *, check_new: bool = False) -> Retriever:
    compiled = _served(project, load_or_compile(project, check_new=check_new))
    return Retriever(compiled, project.settings.rules, rules_embedder_for(project.settings))


def task_context(
    project: Project,
    task: str,
    files: list[str] | None = None,
    top: int | None = None,
    budget: int | None = None,
) -> dict[str, Any]:
    """The ``charter context`` JSON result for one task (compiles on demand)."""
    retriever = retriever_for(project, check_new=True)
    return retriever.retrieve(task, files, top=top, budget=budget).to_dict()


def _served(project: Project, compiled: CompiledRules) -> CompiledRules:
    """Rule text redacted again on the way out (state may predate the secret scan)."""
    from charter.secretscan.apply import project_scanner, scrub_compiled

    return scrub_compiled(compiled, project_scanner(project))  # type: ignore[no-any-return]


def compiled_rules(project: Project) -> CompiledRules:
    """Every compiled rule as it is served (compiled on demand, secrets scrubbed): what
    ``charter rules`` lists, so a user can see what Charter read from the files."""
    return _served(project, load_or_compile(project, check_new=True))


def constitution_payload(project: Project) -> dict[str, Any]:
    compiled = _served(project, load_or_compile(project))
    by_id = compiled.by_id()
    c = compiled.constitution
    return {
        "hash": c.hash,
        "text": c.text,
        "truncated": c.truncated,
        "rules": [by_id[i].to_dict() for i in c.rule_ids],
        "overflow": c.overflow_ids,
    }
