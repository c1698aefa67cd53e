"""Tiered session state (seed 002): tracks, capture, compaction, recovery, guardrails.

The public face is :class:`charter.session.service.Session` (with
:func:`charter.session.compaction.compact` and :func:`charter.session.recovery.recover`).
This module imports nothing, so ``charter.config`` can read the settings cheaply.
"""
