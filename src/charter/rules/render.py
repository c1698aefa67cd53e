"""How rules are shown to agents: short lines that cite their source.

Long rules are cut at a sentence (or word) boundary once they pass ``max_tokens``; the
citation stays, so the agent can open the full rule. This keeps one verbose rule from
crowding several relevant ones out of the budget.
"""

from __future__ import annotations

import re

from charter.rules.model import Rule
from charter.tokens import count_tokens

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def compact(text: str, max_tokens: int) -> str:
    if max_tokens <= 0 or count_tokens(text) <= max_tokens:
        return text
    out = ""
    for sentence in _SENTENCE.split(text):
        candidate = f"{out} {sentence}".strip()
        if count_tokens(candidate) > max_tokens:
            break
        out = candidate
    if not out:
        for word in text.split():
            candidate = f"{out} {word}".strip()
            if count_tokens(candidate) > max_tokens - 1:
                break
            out = candidate
    return out + " …"


def render_rule_line(rule: Rule, max_tokens: int = 0) -> str:
    """``- [ID] text (path:Lstart-Lend)``; content-derived ids are left out (noise)."""
    prefix = "" if rule.id.startswith("r-") else f"[{rule.id}] "
    return f"- {prefix}{compact(rule.text, max_tokens)} ({rule.source.cite()})"
