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

from charter.decisions.drift import lexicon
from charter.filetypes import TYPESET

#: Files whose names say what the project writes about, not what it uses.
_DOC_SUFFIXES = frozenset({".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc", ".org", *TYPESET})

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


def _name_words(component: str) -> frozenset[str]:
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
    asked about (the answer is the same as the whole vocabulary's, restricted to them).

    A folder's words are read once, with its parent's, however many files it holds: a
    tree of thousands of files is read in tens of milliseconds."""
    seen: Counter[str] = Counter()
    chains: dict[str, frozenset[str]] = {"": frozenset()}

    def chain(folder: str) -> frozenset[str]:
        got = chains.get(folder)
        if got is None:
            parent, _, name = folder.rpartition("/")
            got = chains[folder] = chain(parent) | _name_words(name)
        return got

    for count, path in enumerate(paths):
        if count >= MAX_PATHS:
            break
        folder, _, name = path.rpartition("/")
        dot = name.rfind(".")
        suffix = name[dot:].lower() if dot > 0 else ""
        if suffix in _DOC_SUFFIXES:
            continue
        words = chain(folder) | _name_words(name)
        language = _LANGUAGES.get(suffix)
        if language:
            words = words | {language}
        seen.update(words)
    found = (w for w, n in seen.items() if n >= min_files and w not in lexicon.STOPWORDS)
    if wanted is None:
        return frozenset(found)
    return frozenset(found).intersection(wanted)
