"""Secrets found by content (not only by file name) and redacted before storing or serving.

``scanner`` finds and redacts, ``apply`` hooks it into chunks, records, rules and hook
replies, ``ledger`` records what was redacted where for ``charter doctor``.
"""
