"""Words that name what a project already uses, read from its own file tree.

A decision's rejected option is often one word: "JSON", "Maven", "Python", "VM". In a
project that already keeps JSON files, builds against Maven artifacts, has a ``python/``
folder or a ``vm`` crate, that word is everywhere in the agent's replies and commit
messages for reasons that have nothing to do with the decision ("Parse text from JSON"
under "chat history is stored in MVStore, not JSON files"). The word alone cannot tell the
rejected choice from the project's other uses of the same thing; with another word of the
option ("JSON files") it still can. The checker moves such words of a rejected option
from the names that decide alone to the words that need company (``TermSet.places``).

The evidence is the project's file names, folder names and source languages: cheap to
read (one ``git ls-files``), present in every project, and written by the project rather
than by the decisions. Documentation files are left out: an ADR or a note about the
option names it without the project using it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from functools import lru_cache

from charter.decisions.drift import lexicon

#: Files whose names say what the project writes about, not what it uses.
_DOC_SUFFIXES = frozenset({".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc", ".org"})

#: A source file's language by suffix, where the suffix is not the language's name
#: (``.json`` already says "json"). Generic data: the languages' usual file suffixes.
_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".rs": "rust",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".rb": "ruby",
    ".cs": "csharp",
    ".fs": "fsharp",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".hpp": "cpp",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".pl": "perl",
    ".sh": "shell",
    ".tf": "terraform",
    ".jl": "julia",
    ".clj": "clojure",
    ".erl": "erlang",
    ".scala": "scala",
    ".swift": "swift",
    ".dart": "dart",
    ".lua": "lua",
    ".php": "php",
    ".java": "java",
    ".go": "go",
}

#: A word of a name: letters with the digits that follow them, split at a lower-to-upper
#: change ("JsonUtils" → Json, Utils; "MVStore" → MV, Store; "s3_bucket" → s3, bucket).
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")

#: At most this many paths are read: a project's vocabulary is in its first tens of
#: thousands of files, and a hook must stay fast on a monorepo.
MAX_PATHS = 50_000


def _words(path: str) -> set[str]:
    out: set[str] = set()
    for component in path.split("/"):
        out |= _component_words(component)
    return out


@lru_cache(maxsize=65536)
def _component_words(component: str) -> frozenset[str]:
    """A folder's words are read once however many files it holds."""
    out = set()
    for part in re.split(r"[^A-Za-z0-9]+", component):
        for word in _WORD.findall(part):
            if len(word) >= 2 and not word.isdigit():
                out.add(lexicon.stem(word.lower()))
    return frozenset(out)


def project_words(
    paths: Iterable[str], wanted: Collection[str] | None = None, min_files: int = 2
) -> frozenset[str]:
    """Stems of the words the project's own file and folder names and source languages
    use, each in at least ``min_files`` files that are not documentation (one file can
    be a note about the thing rather than a use of it). ``wanted``: only these stems are
    looked for (a hook asks about a rejected option's few names, not the whole tree)."""
    seen: Counter[str] = Counter()
    if wanted is None:
        for count, path in enumerate(paths):
            if count >= MAX_PATHS:
                break
            words = _path_words(path)
            if words is not None:
                seen.update(words)
        return frozenset(
            w for w, n in seen.items() if n >= min_files and w not in lexicon.STOPWORDS
        )
    left = set(wanted) - lexicon.STOPWORDS
    found: set[str] = set()
    for count, path in enumerate(paths):
        if count >= MAX_PATHS or not left:
            break
        # a stem's first letters are in any path naming it ("dependenc" of dependencies);
        # a name already found is not looked for again
        low = path.lower()
        if not any(w[: max(2, len(w) - 1)] in low for w in left):
            dot = low.rfind(".")
            if dot < 0 or _LANGUAGES.get(low[dot:]) not in left:
                continue
        words = _path_words(path)
        if not words:
            continue
        for w in words & left:
            seen[w] += 1
            if seen[w] >= min_files:
                found.add(w)
                left.discard(w)
    return frozenset(found)


def _path_words(path: str) -> set[str] | None:
    """The words of one tracked path and its language; None for documentation."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    suffix = name[dot:].lower() if dot > 0 else ""
    if suffix in _DOC_SUFFIXES:
        return None
    words = _words(path)
    language = _LANGUAGES.get(suffix)
    if language:
        words.add(language)
    return words
