"""Entry point of ``charter hook EVENT`` (placeholder, replaced by the hooks module)."""

from __future__ import annotations


def hook_main(argv: list[str]) -> int:
    return 0
