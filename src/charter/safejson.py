"""JSON from files a user (or an attacker) controls: deep nesting is one clear error.

``json.loads`` recurses once per nesting level, so ``[[[[…]]]]`` a few thousand deep
raises ``RecursionError`` — which is not a ``JSONDecodeError``, escapes every caller's
handler and aborts a whole ``charter index`` run over one file. Here it becomes a
:class:`CharterError` naming the file, so the caller skips that file with a note.
"""

from __future__ import annotations

import json
import re
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


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(payload: dict[str, Any] | list[Any]) -> bool:
    """Replace each lone surrogate in the strings of ``payload`` (keys and values, at any
    depth) with U+FFFD, in place; whether there was one. JSON's ``"\\ud83d"`` escape
    (half a surrogate pair, as a cut emoji leaves) decodes to one, which no UTF-8 text can
    hold: a hook's prompt lost its rules and its record ("UnicodeEncodeError …
    surrogates not allowed"), and an MCP call was never answered (its reply could not be
    written)."""
    found = False
    stack: list[Any] = [payload]
    while stack:  # iterative: the nesting is the sender's, not ours to recurse on
        node = stack.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, value in items:
            if isinstance(key, str) and _LONE_SURROGATE.search(key):
                del node[key]
                key = _LONE_SURROGATE.sub("\ufffd", key)
                node[key] = value
                found = True
            if isinstance(value, str):
                if _LONE_SURROGATE.search(value):
                    node[key] = _LONE_SURROGATE.sub("\ufffd", value)
                    found = True
            elif isinstance(value, dict | list):
                stack.append(value)
    return found
