"""Rules that are written as one unit in parts: numbered procedures and tiny sections.

A rule file often states one rule across a few items: the steps of a procedure ("1.
Define the API types … 4. Update the frontend"), or a two-item section ("Use title case
for labels" / "Don't capitalize short prepositions"). Handing an agent steps 2–4 without
step 1, or half of a two-line section, is worse than either whole or nothing. Retrieval
completes such groups: a procedure when at least half of its steps were chosen, a tiny
section when one of its rules is among the task's best few.
"""

from __future__ import annotations

from collections import defaultdict

from charter.rules.model import Rule

#: Steps more than this many lines apart belong to different procedures.
_STEP_GAP = 2
#: Longer numbered lists are reference lists, not procedures to complete.
MAX_PROCEDURE_STEPS = 8


def procedures(rules: list[Rule]) -> list[list[int]]:
    """Indexes into ``rules`` of each numbered procedure (2 to 8 adjacent steps)."""
    steps = sorted(
        (i for i, r in enumerate(rules) if r.kind == "step"),
        key=lambda i: (rules[i].source.path, rules[i].source.line_start),
    )
    groups: list[list[int]] = []
    current: list[int] = []
    for i in steps:
        rule = rules[i]
        if current:
            last = rules[current[-1]]
            same = (
                rule.source.path == last.source.path
                and rule.source.section == last.source.section
                and rule.source.line_start - last.source.line_end <= _STEP_GAP
            )
            if not same:
                groups.append(current)
                current = []
        current.append(i)
    if current:
        groups.append(current)
    return [g for g in groups if 2 <= len(g) <= MAX_PROCEDURE_STEPS]


def small_sections(rules: list[Rule], max_size: int) -> list[list[int]]:
    """Indexes into ``rules`` of each section holding 2 to ``max_size`` rules."""
    if max_size < 2:
        return []
    by_section: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, rule in enumerate(rules):
        by_section[(rule.source.path, rule.source.section)].append(i)
    return [g for g in by_section.values() if 2 <= len(g) <= max_size]


def lead_ins(rules: list[Rule]) -> dict[int, list[int]]:
    """Index of each lead-in ("To add a migration:", "Agents MUST:") -> its items' indexes.

    A lead-in is a rule ending in a colon directly over a list (items or steps, each at
    most ``_STEP_GAP`` lines after the one before, same file and section). Alone it says
    nothing: its meaning is in its items, which carry its words for retrieval.
    """
    order = sorted(
        range(len(rules)), key=lambda i: (rules[i].source.path, rules[i].source.line_start)
    )
    out: dict[int, list[int]] = {}
    for at, i in enumerate(order):
        lead = rules[i]
        if not lead.text.rstrip().endswith(":"):
            continue
        items: list[int] = []
        end = lead.source.line_end
        for j in order[at + 1 :]:
            item = rules[j]
            if (
                item.kind not in ("item", "step")
                or item.source.path != lead.source.path
                or item.source.section != lead.source.section
                or item.source.line_start - end > _STEP_GAP
            ):
                break
            items.append(j)
            end = item.source.line_end
        if items:
            out[i] = items
    return out
