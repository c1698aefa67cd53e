"""Optional model-judge layer: a seam for an LLM (API key or MCP sampling) to add recall.

Off by default and never required: the offline checker is complete without it. A judge
sees the artifact, the bound invariants and the findings so far, and may return extra
findings; the checker validates every returned span against the text and drops findings
that cite a non-binding or unknown constraint, so a judge can never flag informational
answers or quote text that is not there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from charter.decisions.drift.result import Finding
from charter.decisions.invariants import Invariant


@runtime_checkable
class DriftJudge(Protocol):
    name: str

    def judge(
        self, text: str, kind: str | None, invariants: Sequence[Invariant], found: Sequence[Finding]
    ) -> Sequence[Finding]: ...
