"""What a task text names: keywords, identifiers, file paths, stack-trace frames.

Issues paste tracebacks (``File "pkg/mod.py", line 12, in fn``), dotted names
(``requests.models.Request``), calls (``register_hook()``), paths and error messages;
each of these is a stronger pointer into the code than its words alone, so they are
pulled out before the words go to BM25.
"""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

from charter.graph.text import code_terms
from charter.search.text import STOPWORDS

_PY_FRAME = re.compile(r'File "([^"]+)", line (\d+)(?:, in (\w+))?')
_JS_FRAME = re.compile(r"at (?:([\w.$<>]+) )?\(?((?:[\w.@-]+/)*[\w.-]+\.(?:[jt]sx?|mjs|cjs)):(\d+)")
# sources the graph reads as text (Go, Rust, Zig, C/C++, ClojureScript…): Go panics,
# Zig and Rust traces and compiler errors name them as ``path.ext:LINE``
_TEXT_SRC = (
    r"go|rs|zig|java|kt|swift|rb|php|cs|c|h|cc|cpp|cxx|hpp|hh|hxx|ino|clj|cljs|cljc"
    r"|ex|exs|erl|scala|dart|lua|ml|hs|vue|svelte|sh|sql"
)
_SRC_FRAME = re.compile(rf"(?<![\w.-])((?:[\w.@-]+/)*[\w.-]+\.(?:{_TEXT_SRC})):(\d+)\b")
_PATH = re.compile(
    r"(?<![\w.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|mjs|css|scss|md|toml|cfg|ini|ya?ml|json"
    rf"|{_TEXT_SRC}))\b"
)
# a path with a folder and any extension (``conf/modules.config``, ``modules/local/x.nf``):
# a pipeline's or build's own file types are many; a path names a file only when the
# project has one there, so ``github.com/a/b.git`` names nothing
_FOLDER_PATH = re.compile(r"(?<![\w.-])((?:[\w.-]+/)+[\w.-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})\b")
# a folder path (``bindings/rust``, ``core/json/``): two parts or more, no file extension;
# a commit's scope names one ("sqlite/parser: accept …"), as do "in core/vdbe, …" tasks
_FOLDER = re.compile(r"(?<![\w./@:-])((?:[A-Za-z_][\w-]*/)+[A-Za-z_][\w-]*)/?(?![\w./-])")
# a Clojure namespace (``app.main.data.workspace.path-edition``, three parts or more)
_CLJ_NS = re.compile(r"(?<![\w./-])([a-z][\w-]*(?:\.[a-z][\w-]*){2,})(?![\w/-])")
_DOTTED = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\b")
_IDENT = re.compile(r"\b([A-Za-z_]\w*)\b")
_NUMBERED = re.compile(r"(?<![\w.-])(\d+[-_][A-Za-z][\w-]*)")
# ``refine(expr)`` or `` `trigsimp` ``: a lowercase word written as a call or inside a code
# span is a name even when it reads as English, as long as it is not the language's own
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LANGUAGE_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)


def _written_as_code(text: str) -> list[str]:
    """Names the text writes as calls or inside inline code spans (longer than three
    letters, Python's builtins and keywords left out: ``print(`` names nothing here)."""
    found = [m.group(1) for m in _CALL.finditer(text)]
    for span in _CODE_SPAN.finditer(text):
        found.extend(_IDENT.findall(span.group(1)))
    return [name for name in found if len(name) > 3 and name not in _LANGUAGE_NAMES]


def is_identifier_like(word: str) -> bool:
    """snake_case, camelCase, CapWords or ALLCAPS-with-digits: a name, not prose."""
    if "_" in word.strip("_") and len(word) > 3:
        return True
    inner = word[1:]
    if any(c.isupper() for c in inner) and any(c.islower() for c in word):
        return True
    return word[:1].isupper() and any(c.isdigit() for c in word)


@dataclass
class TaskQuery:
    """The parts of a task text that seed task context."""

    text: str
    terms: list[str]
    keywords: list[str]
    identifiers: list[str] = field(default_factory=list)
    words: set[str] = field(default_factory=set)
    paths: list[str] = field(default_factory=list)
    frames: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, function)
    namespaces: list[str] = field(default_factory=list)  # Clojure namespaces as file paths
    folders: list[str] = field(default_factory=list)  # folder paths the task names
    actions: list[str] = field(default_factory=list)  # terms of each clause's leading verb


# the word a clause of a task starts on, after a bullet or number and a commit's
# ``type(scope):`` prefix ("feat: make content retries configurable", "- Add a toast"): an
# imperative task names its action there ("add", "make", "set", "improve") and the thing
# to change after it, so the action is a weak pointer into the code. Only a plain word
# followed by another counts (not a name, not a lone word).
_CLAUSE_VERB = re.compile(
    r"(?:^|(?<=\n)|(?<=[.!?;] ))[ \t]*(?:[-*\u2022+][ \t]+|\d+[.)][ \t]+)?"
    r"(?:[A-Za-z]+(?:\([^)\n]*\))?!?:[ \t]+)?(?:[Pp]lease[ \t]+)?"
    r"([A-Za-z][a-z]+)(?=[ \t,]+[\w`\"'])"
)


#: Other terms a task needs before its action verbs count less: fewer say too little.
_ACTION_CONTEXT = 3


def clause_verbs(text: str) -> list[str]:
    """The plain words a task's clauses start on (see ``_CLAUSE_VERB``), lowercased."""
    return list(dict.fromkeys(m.group(1).lower() for m in _CLAUSE_VERB.finditer(text)))


def parse_task(text: str, files: list[str] | None = None) -> TaskQuery:
    frames: list[tuple[str, int, str]] = []
    for match in _PY_FRAME.finditer(text):
        frames.append((match.group(1), int(match.group(2)), match.group(3) or ""))
    for match in _JS_FRAME.finditer(text):
        frames.append((match.group(2), int(match.group(3)), match.group(1) or ""))
    for match in _SRC_FRAME.finditer(text):
        frames.append((match.group(1), int(match.group(2)), ""))
    paths = [m.group(1) for m in _PATH.finditer(text)]
    paths += [m.group(1) for m in _FOLDER_PATH.finditer(text)]
    paths += list(files or [])
    identifiers: list[str] = []
    for match in _DOTTED.finditer(text):
        dotted = match.group(1)
        if re.fullmatch(r"[\w-]+\.(?:py|js|ts|tsx|md|txt|com|org|io)", dotted):
            continue
        identifiers.append(dotted)
    words: set[str] = set()
    for match in _IDENT.finditer(text):
        word = match.group(1)
        words.add(word)
        if is_identifier_like(word):
            identifiers.append(word)
    # a file's name may start with its order ("07_error_handling", "0042-add-index"): the
    # task that names it names a word the identifier pattern above never starts on a digit
    words.update(m.group(1) for m in _NUMBERED.finditer(text))
    identifiers.extend(_written_as_code(text))
    terms = code_terms(text)
    keywords: list[str] = []
    seen: set[str] = set()
    for term in terms:
        if term not in seen and term not in STOPWORDS and len(term) > 1:
            seen.add(term)
            keywords.append(term)
    unique_ids = list(dict.fromkeys(identifiers))
    namespaces = [
        match.group(1).replace("-", "_").replace(".", "/") + ext
        for match in _CLJ_NS.finditer(text)
        for ext in (".cljs", ".cljc", ".clj")
    ]
    folders = [m.group(1) for m in _FOLDER.finditer(text)]
    named = {w.lower() for w in identifiers}
    actions = [
        term
        for verb in clause_verbs(text)
        if verb not in named
        for term in code_terms(verb)
        if term not in STOPWORDS
    ]
    if len(set(keywords) - set(actions)) < _ACTION_CONTEXT:
        actions = []  # "fix format": a short task's every word is what it is about
    return TaskQuery(
        text,
        terms,
        keywords[:40],
        unique_ids,
        words,
        list(dict.fromkeys(paths)),
        frames,
        list(dict.fromkeys(namespaces)),
        list(dict.fromkeys(folders)),
        list(dict.fromkeys(actions)),
    )
