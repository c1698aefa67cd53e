"""JSON from files a user (or an attacker) controls: deep nesting is one clear error.

``json.loads`` recurses once per nesting level, so ``[[[[…]]]]`` a few thousand deep
raises ``RecursionError`` — which is not a ``JSONDecodeError``, escapes every caller's
handler and aborts a whole ``charter index`` run over one file. Here it becomes a
:class:`CharterError` naming the file, so the caller skips that file with a note.
"""

from __future__ import annotations

import json
from typing import Any

from charter.errors import CharterError


class JsonLimitError(CharterError):
    """A JSON document nested too deeply to parse safely."""


def loads(text: str | bytes, *, name: str) -> Any:
    """``json.loads`` whose recursion limit is reported as one line naming ``name``.

    Syntax errors still raise ``json.JSONDecodeError`` so callers keep their line and
    column messages.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise JsonLimitError(f"{name}: JSON nested too deeply to parse") from None
