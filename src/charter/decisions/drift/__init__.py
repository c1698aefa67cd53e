"""Constraint drift checks (seed 003, QA-PGC-001..004) against bound decisions.

``DriftChecker`` runs a deterministic lexical layer, a semantic layer with the bundled
embedding model, and optionally a model judge (off by default). See docs/decisions.md.
"""

from charter.decisions.drift.checker import DriftChecker, check_text
from charter.decisions.drift.result import RULES, DriftResult, Finding

__all__ = ["RULES", "DriftChecker", "DriftResult", "Finding", "check_text"]
