"""Vue, Svelte and Astro components: the code of their ``<script>`` blocks (and an Astro
component's ``---`` frontmatter, which is TypeScript).

A component's script imports the components, stores and composables it uses; read as
words only, a ``.vue`` file had no edges, so the components a page is built from were
unreachable from it. The script blocks are parsed with the JavaScript/TypeScript
extractor over a copy of the file in which everything outside them is blanked, so every
symbol keeps its line in the component file.
"""

from __future__ import annotations

import re
from typing import Any

from charter.graph import extract_js

#: SFC suffixes whose ``<script>`` blocks are read
SUFFIXES = (".vue", ".svelte", ".astro")
#: an Astro component's leading ``---`` fence: its server-side TypeScript
_FRONTMATTER = re.compile(r"\A(\s*---[ \t]*\n)(.*?)^---[ \t]*$", re.DOTALL | re.MULTILINE)
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)
_LANG = re.compile(r"""\blang\s*=\s*["']?([A-Za-z]+)""")
_NOT_NEWLINE = re.compile(r"[^\n]")


def _language(attrs: str) -> str:
    """The grammar a ``<script>`` tag's ``lang`` asks for (JavaScript when it names none)."""
    match = _LANG.search(attrs)
    lang = match.group(1).lower() if match else ""
    if lang in ("ts", "typescript"):
        return "typescript"
    if lang == "tsx":
        return "tsx"
    return "javascript"


def script_source(text: str, astro: bool = False) -> tuple[str, str] | None:
    """The file with everything but its script blocks' code blanked (lines and columns
    kept), and the grammar to parse it with; None when the file has no script."""
    spans = [(b.start(2), b.end(2)) for b in _SCRIPT.finditer(text)]
    languages = {_language(b.group(1)) for b in _SCRIPT.finditer(text)}
    fence = _FRONTMATTER.match(text) if astro else None
    if fence:  # a ``<script>`` written inside the fence (in a string) is the fence's
        spans = [(fence.start(2), fence.end(2))] + [s for s in spans if s[0] >= fence.end()]
        languages.add("typescript")
    if astro and spans:  # Astro's scripts are TypeScript whatever their tag says
        languages.add("typescript")
    if not spans:
        return None
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces.append(_NOT_NEWLINE.sub(" ", text[last:start]))
        pieces.append(text[start:end])
        last = end
    pieces.append(_NOT_NEWLINE.sub(" ", text[last:]))
    lang = (
        "tsx" if "tsx" in languages else "typescript" if "typescript" in languages else "javascript"
    )
    return "".join(pieces), lang


def extract(text: str, path: str = "") -> dict[str, Any]:
    """Symbols, imports and calls of a component's scripts (empty when it has none)."""
    found = script_source(text, astro=path.endswith(".astro"))
    if found is None:
        return {}
    source, lang = found
    out = extract_js.extract(source.encode("utf-8"), lang)
    out.pop("language", None)  # the file stays a template; its script is part of it
    return out
