"""The tokenizer of the Protocol Buffers reader.

Protocol Buffers has no tree-sitter grammar published as a wheel, and its grammar is small:
a token stream with lines is all its recursive-descent reader needs. It never raises: an
unterminated string or comment ends at the end of the file, an unknown character is a
one-character punctuation token the reader skips.
"""

from __future__ import annotations

from typing import NamedTuple


class Token(NamedTuple):
    kind: str  # "name" (identifiers, dotted: ``.pkg.Msg``), "string", "number", "punct"
    text: str
    line: int  # 1-based


def _is_name_start(ch: str) -> bool:
    return ch.isalpha() or ch == "_"


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text``: ``//`` and ``/* */`` are comments, and ``a.b.C`` and ``.a.b.C``
    are one name token (a proto type path)."""
    tokens: list[Token] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            tokens.append(Token("string", text[i + 1 : min(j, n)], line))
            i = j + 1 if j < n and text[j] == ch else j
        elif _is_name_start(ch) or (ch == "." and i + 1 < n and _is_name_start(text[i + 1])):
            j = i + 1
            while j < n and (
                _is_name_char(text[j])
                or (text[j] == "." and j + 1 < n and _is_name_start(text[j + 1]))
            ):
                j += 1
            tokens.append(Token("name", text[i:j], line))
            i = j
        elif ch.isdigit() or (ch in "-+" and i + 1 < n and text[i + 1].isdigit()):
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            tokens.append(Token("number", text[i:j], line))
            i = j
        else:
            tokens.append(Token("punct", ch, line))
            i += 1
    return tokens
