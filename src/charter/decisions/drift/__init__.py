"""Constraint drift checks (seed 003, QA-PGC-001..004) against bound decisions.

``DriftChecker`` (in :mod:`.checker`) runs a deterministic lexical layer, a semantic
layer with the bundled embedding model, a calibrated decision over their candidates
(:mod:`.calibrate`, weights in ``charter/data/drift_model.json``), and optionally a
model judge (off by default).
Import from the submodules; this package stays empty so the hook path loads only what
it uses.
"""
