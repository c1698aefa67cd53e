"""``charter lint``: problems in the rule set a user should fix, each with file:line."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from charter.config import Project
from charter.rules.build import normalized
from charter.rules.compiler import CompiledRules, compile_rules
from charter.rules.retrieve import contradicts


@dataclass
class LintIssue:
    kind: str  # contradiction | duplicate | overflow | unparseable
    severity: str  # error | warning
    location: str  # path:line
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "location": self.location,
            "message": self.message,
        }


def lint_rules(compiled: CompiledRules) -> list[LintIssue]:
    issues: list[LintIssue] = []
    rules = compiled.rules
    vectors = compiled.vectors
    index = {r.id: i for i, r in enumerate(rules)}
    seen: dict[str, str] = {}
    for rule in rules:
        key = normalized(rule.text)
        if key.endswith(":"):
            # a lead-in ("When to use:") says what its items say: repeated under another
            # heading it introduces other items, not the same rule again
            key += "\x00" + rule.source.section
            if rule.source.line_end > rule.source.line_start:
                # a lead-in cited over the code it introduces ("✅ Fix:" over one
                # example, then over another): each says what its own code shows
                key += "\x00" + str(rule.source.line_start)
        if rule.scopes:
            # the same words in files for different parts of the tree (a README template
            # per kind of package, a nested AGENTS.md per folder) never apply together
            key += "\x01" + "\x00".join(sorted(rule.scopes))
        where = f"{rule.source.path}:{rule.source.line_start}"
        if key in seen:
            issues.append(
                LintIssue("duplicate", "warning", where, f"duplicate of the rule at {seen[key]}")
            )
        else:
            seen[key] = where
    for kept, copy in compiled.report.restated:  # copies the compiler kept once
        issues.append(
            LintIssue(
                "duplicate",
                "warning",
                f"{copy.path}:{copy.line_start}",
                f"restates the rule at {kept.cite()} word for word (compiled once)",
            )
        )
    polar = [r for r in rules if r.polarity]
    for a, b in combinations(polar, 2):
        cos = float(vectors[index[a.id]] @ vectors[index[b.id]]) if len(vectors) else 0.0
        if contradicts(a, b, cos):
            issues.append(
                LintIssue(
                    "contradiction",
                    "error",
                    f"{a.source.path}:{a.source.line_start}",
                    f"'{a.text[:60]}' ({a.polarity}) contradicts "
                    f"{b.source.path}:{b.source.line_start} '{b.text[:60]}' ({b.polarity})",
                )
            )
    c = compiled.constitution
    if c.truncated:
        first = index[c.overflow_ids[0]]
        r = rules[first]
        issues.append(
            LintIssue(
                "overflow",
                "warning",
                f"{r.source.path}:{r.source.line_start}",
                f"constitution exceeds its line or token cap; {len(c.overflow_ids)} rule(s) "
                "from here on are retrieved per task instead of always loaded",
            )
        )
    for error in compiled.report.errors:
        location, message = _located(error)
        issues.append(LintIssue("unparseable", "error", location, message))
    return issues


def _located(error: str) -> tuple[str, str]:
    """(location, message) of a compile error, which names its file first
    (``CLAUDE.md:5: …``) or last (``rule file is binary, not text: /path``)."""
    first, sep, rest = error.partition(": ")
    if sep and " " not in first:
        return first, rest
    head, sep, last = error.rpartition(": ")
    if sep and last and " " not in last:
        return last, head
    return "", error


def lint_project(project: Project) -> list[LintIssue]:
    return lint_rules(compile_rules(project, write=False, embed_constitution=True))
