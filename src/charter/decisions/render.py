"""Prompt injection: fill ``$$PGC_CLARIFICATIONS`` and ``$$PGC_INVARIANTS`` in a template.

Seed 003 requires the canonical structure "injected verbatim into all downstream LLM
prompts", so the clarifications token is replaced by exactly the stored JSON text (no
re-serialisation that could reorder or reformat it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from charter.decisions.invariants import invariants, invariants_text
from charter.decisions.models import PgcClarifications
from charter.errors import CharterError
from charter.fileio import MAX_TEXT_BYTES

CLARIFICATIONS_TOKEN = "$$PGC_CLARIFICATIONS"
INVARIANTS_TOKEN = "$$PGC_INVARIANTS"
NO_INVARIANTS = "(no bound constraints)"
_TOKENS = re.compile(re.escape(CLARIFICATIONS_TOKEN) + "|" + re.escape(INVARIANTS_TOKEN))


def render_template(
    template: str,
    decisions: PgcClarifications,
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """``template`` with both tokens replaced; other text is left byte-for-byte alone."""
    canonical = decisions.canonical_text().rstrip("\n")
    text = invariants_text(invariants(decisions, aliases)) or NO_INVARIANTS
    values = {CLARIFICATIONS_TOKEN: canonical, INVARIANTS_TOKEN: text}
    # each token expands to a whole document: bound the result before building it
    size = len(template) + sum(
        len(values[m.group(0)]) - len(m.group(0)) for m in _TOKENS.finditer(template)
    )
    if size > MAX_TEXT_BYTES:
        raise CharterError(
            f"rendered template too large ({size} characters > {MAX_TEXT_BYTES}): "
            "each token expands to the whole decisions text"
        )
    # One pass, so a token that appears inside a user's answer is never expanded again.
    return _TOKENS.sub(lambda m: values[m.group(0)], template)
