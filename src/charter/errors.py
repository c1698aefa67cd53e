"""One exception type that front doors turn into a single stderr line and exit code."""

from __future__ import annotations


class CharterError(Exception):
    """A problem the user can fix: bad input, bad path, bad config.

    Front doors print ``str(error)`` on one line and exit non-zero; they never show a
    traceback for these.
    """

    exit_code = 2


class TamperError(CharterError):
    """Stored state was changed outside Charter (e.g. a decisions file edited by hand)."""

    exit_code = 3
