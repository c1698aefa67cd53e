"""Split a Markdown rule file into instruction-bearing blocks with exact line spans.

Real rule files are not tidy bullet lists, so every block that can carry an instruction
is a unit: a list item (nested items are their own units), a numbered step, a
paragraph, a table row ("symptom | fix"), and a fenced code block attached to the unit
before it (its commented lines stay searchable). Headings are not rules; they become the
section path carried by every unit. Spans are 1-based and inclusive, relative to the
original file (front matter included), because citations and benchmarks depend on them.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from charter.rules.annotate import is_directive, polarity

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode


@functools.cache
def _markdown() -> Any:
    """The parser, built on first use: hooks that only load compiled rules import this
    module (through the compiler) but never parse, so they skip markdown-it's import."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _tree(text: str) -> SyntaxTreeNode:
    from markdown_it.tree import SyntaxTreeNode

    tokens = _markdown().parse(text)
    for _ in range(_STRAY_FENCE_ROUNDS):
        stray = _stray_fence(tokens, text)
        if stray is None:
            break
        # the line stays, blank, so every later span still points at its own line
        lines = text.split("\n")
        lines[stray] = ""
        text = "\n".join(lines)
        tokens = _markdown().parse(text)
    return SyntaxTreeNode(tokens)


#: Bare fences recovered from per file, at most (each needs a parse of the file).
_STRAY_FENCE_ROUNDS = 4


def _stray_fence(tokens: list[Any], text: str) -> int | None:
    """The line of a bare fence (no language after it) that opens a block never closed,
    or None. It is the closer of an example whose opening fence sat indented in a list
    item while its code did not (the item, and the block, ended at the code's first
    line): CommonMark then reads the rest of the file as code, so every rule after it
    was lost. A fence naming a language and left open is code, and stays so."""
    lines = text.split("\n")
    last = max((i + 1 for i, line in enumerate(lines) if line.strip()), default=0)
    for token in tokens:
        if token.type != "fence" or token.info.strip() or not token.map:
            continue
        start, end = token.map
        if end < last:
            continue
        closing = lines[end - 1].strip() if end - 1 > start else ""
        fence = token.markup
        if not (closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0])):
            return int(start)
    return None


#: The number a heading of a numbered outline opens with ("6. ", "1.1. ", "3) ").
_OUTLINE_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*[.)]\s+")

#: A comment line of code; a shebang (``#!/usr/bin/env bash``) says which shell, not why.
_COMMENT = re.compile(r"^\s*(#(?!!)|//|--|;|<!--)\s?(.*?)(-->)?\s*$")


#: Scripts written without spaces between words: Chinese and Japanese.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def word_count(text: str) -> int:
    """Words of ``text``: whitespace-separated, but a run of Chinese or Japanese counts a
    word per character, since those scripts put no spaces between words ("错误：始终检查并处理"
    is an instruction, not one word)."""
    return sum(max(1, len(_UNSPACED.findall(token))) for token in text.split())


#: A heading's outline number, with or without a closing mark ("9.2 ", "3. ", "2) ").
_HEADING_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)+[.)]?|\d+[.)])\s+")


def heading_word_count(text: str) -> int:
    """Words a heading says, to tell a heading that states what the code under it shows
    ("Use `withCache()` for Simple Database Queries") from one that names it ("Directory
    structure"): its outline number ("9.2 ") is no word, and a run of Chinese or Japanese
    counts a word per two characters, as words of those scripts mostly are ("目录结构",
    "directory structure", is two words, not four)."""
    text = _HEADING_NUMBER.sub("", text, count=1)
    return sum(
        max(1, (len(_UNSPACED.findall(token)) + 1) // 2) if _UNSPACED.search(token) else 1
        for token in text.split()
    )


@dataclass
class Block:
    """One candidate rule: its text, where it is, and what surrounds it."""

    kind: str  # item | step | paragraph | row | code | command | entry (of a file tree)
    text: str
    line_start: int
    line_end: int
    section: list[str]
    context: str = ""  # parent item text / table header / lead-in, for retrieval only
    code_comments: list[str] = field(default_factory=list)
    depth: int = 0


def _trim_end(lines: list[str], start0: int, end0: int) -> int:
    """Exclusive 0-based end with trailing blank lines removed."""
    while end0 > start0 + 1 and not lines[end0 - 1].strip():
        end0 -= 1
    return end0


def _inline_text(node: SyntaxTreeNode) -> str:
    parts: list[str] = []
    for child in node.children:
        if child.type == "inline":
            parts.append(child.content)
    return " ".join(_hard_breaks(p).replace("\n", " ") for p in parts).strip()


def _hard_breaks(text: str) -> str:
    """``text`` without the backslash that ends a line as a Markdown hard line break."""
    return text.replace("\\\n", "\n")


#: A line drawn with one character ("#####…", "=====", "-----"): a frame, no words.
_RULE_LINE = re.compile(r"^\s*([^\w\s])\1{5,}\s*$")


#: Fence languages that are Markdown: a ``#`` line is a heading there, ``---`` front
#: matter's fence or a thematic break, and only ``<!-- … -->`` is a comment.
_MARKDOWN_FENCES = frozenset(["markdown", "md", "mdc", "mdx"])


def _fence_comments(content: str, info: str = "") -> list[str]:
    """The comments of a code block, read as its language writes them (``info``: the
    fence's language). A comment of marks alone ("---" read as ``--`` and "-") says
    nothing."""
    language = info.strip().split()[0].lower() if info.strip() else ""
    markdown = language in _MARKDOWN_FENCES
    comments = []
    for line in content.splitlines():
        if _RULE_LINE.match(line):
            continue  # "######…" framing a banner is read as "#" then "#####…"
        match = _COMMENT.match(line)
        if not match or (markdown and match.group(1) != "<!--"):
            continue
        text = match.group(2).strip()
        if re.search(r"\w", text):
            comments.append(text)
    return comments


#: A code line that opens a block or goes on over the next: a construct, not a line of
#: its own ("function f() {", "if x:", "a = [").
_OPENS_BLOCK = re.compile(r"(?:[{(\[:,\\]|=>|->)\s*$")
#: A comment after a line's code ("Theme::instance()   // Does NOT exist!").
_CODE_NOTE = re.compile(r"\s{2,}(?://|#|--)\s*(.*?)\s*$|\s(?://|--)\s+(.*?)\s*$")


def _forbidden_lines(content: str) -> list[tuple[int, str, str]]:
    """(line offset in the fence, code, its trailing comment) for each line of a short
    fence of one-line entries (at most twelve, none over 120 characters, none opening a
    block); ``[]`` for any other code."""
    out: list[tuple[int, str, str]] = []
    for offset, line in enumerate(content.splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        if len(text) > 120 or _OPENS_BLOCK.search(text) or len(out) == 12:
            return []
        match = _CODE_NOTE.search(text)
        note = (match.group(1) or match.group(2) or "") if match else ""
        code = text[: match.start()].strip() if match else text
        if not code or "`" in code:
            return []
        out.append((offset, code, note))
    return out


#: A line of a drawn file tree: the drawing ("├── ", "│   └── ", indent), one name with
#: no space in it, and what it holds after a comment mark ("src/   # Main sources").
_TREE_LINE = re.compile(
    r"^(?P<draw>[\s│├└┬┌─|`+\\-]*?)(?P<name>[\w.@<>{}*$\[\]-][\w.@<>{}*$\[\]/-]*/?)"
    r"(?:\s+(?:#|//|<-+|←)\s*(?P<note>\S.*?))?\s*$"
)


def _tree_entries(content: str) -> list[tuple[int, str, str]]:
    """(line offset in the fence, the entry's path from the tree's root, what it holds)
    for each annotated entry of a fence that draws a file tree: every line one entry, at
    least three, a folder (a name ending in "/" or drawn with tree marks) among them, and
    two or more saying what they hold; ``[]`` for any other code."""
    rows: list[tuple[int, int, str, str]] = []
    drawn = False
    for offset, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        match = _TREE_LINE.match(line)
        if match is None:
            return []
        name = match.group("name")
        name = name[2:] if name.startswith("./") and len(name) > 2 else name
        drawn = drawn or name.endswith("/") or bool(re.search(r"[│├└]", match.group("draw")))
        note = (match.group("note") or "").rstrip("│|┃ ")  # a frame drawn on the right
        rows.append((offset, match.start("name"), name, note))
    if len(rows) < 3 or not drawn or sum(1 for r in rows if r[3]) < 2:
        return []
    entries: list[tuple[int, str, str]] = []
    parents: list[tuple[int, str]] = []
    for offset, column, name, note in rows:
        while parents and parents[-1][0] >= column:
            parents.pop()
        path = "".join(p for _, p in parents if p.endswith("/")) + name
        if note and re.search(r"[^\W\d_]", note):
            entries.append((offset, path, note))
        parents.append((column, name if name.endswith("/") else ""))
    return entries


def _continued_by(after: SyntaxTreeNode | None) -> bool:
    """Whether the paragraph after a fence goes on with its sentence ("unless a
    benchmark supports it"): what the fence lists is then forbidden only so far."""
    if after is None or after.type != "paragraph":
        return False
    text = _inline_text(after).lstrip("*_ ")
    return bool(text) and text[0].islower()


def _is_banner(content: str) -> bool:
    """Whether a code block is a banner: comment lines only, framed by drawn lines
    ("####…" over "# Agent Workspace Guide" over "####…"). It titles the file or marks
    its end; it states no rule and illustrates none."""
    lines = [line for line in content.splitlines() if line.strip()]
    return (
        len(lines) >= 2
        and bool(_RULE_LINE.match(lines[0]))
        and bool(_RULE_LINE.match(lines[-1]))
        and all(_RULE_LINE.match(line) or _COMMENT.match(line) for line in lines)
    )


#: Fence languages whose lines are commands to run, not code to read.
_SHELL_FENCES = frozenset(
    {"bash", "sh", "shell", "zsh", "fish", "console", "terminal", "shell-session"}
    | {"sh-session", "powershell", "pwsh", "ps1", "cmd", "bat"}
)
#: A heading that says its section lists commands ("## Commands", "Useful commands").
_COMMANDS_HEADING = re.compile(r"\bcommands?\b", re.IGNORECASE)
#: A line of a fence with no language that reads as a command: at the line's start, env
#: assignments (``PYTEST_ADDOPTS="-k x"``), then a program named in lower case
#: (``make``, ``./gradlew``) followed by a space or the line's end; a file tree's line
#: ("app/  # Application source") or code (``import x``, ``foo(1)``) is no command.
_BARE_COMMAND = re.compile(
    r"^(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+)*(?:\./)?[a-z][\w.+-]*(?:\s|$)"
)
#: Words that begin code, not a command, in a fence with no language.
_CODE_WORDS = frozenset(["import", "from", "def", "class", "return", "const", "let", "var"])


def _untagged_commands(content: str, heading: str) -> bool:
    """Whether a fence with no language is a list of shell commands: it sits under a
    heading that names commands and each of its lines (comments and continued lines
    aside) starts, unindented, with a command. Written without ``bash``, such a block
    ("## Commands" over ``make test  # full suite``) was read as an example and its
    commands, the section's whole content, were lost."""
    if not _COMMANDS_HEADING.search(heading):
        return False
    seen = False
    continued = False  # the line before ended in a backslash: this one is its rest
    for line in content.splitlines():
        stripped = line.strip()
        if continued:
            continued = stripped.endswith("\\")
            continue
        if not stripped or _COMMENT.match(line):
            continue
        words = stripped.split()
        if (
            not _BARE_COMMAND.match(line)
            or words[0] in _CODE_WORDS
            or (len(words) > 1 and words[1] == "=")  # `x = 1` is code
        ):
            return False
        seen = True
        continued = stripped.endswith("\\")
    return seen


#: A shell block longer than this is a script, not a list of commands.
_MAX_COMMANDS = 20
_PROMPT = re.compile(r"^\s*(?:\$|PS>|PS [^>]*>)\s+")
#: Lines that make a shell block a script (control flow, functions, heredocs) rather than
#: a list of commands to pick from.
_SCRIPT = re.compile(
    r"^\s*(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|function)\b"
    r"|[{}]\s*$|<<-?\s*['\"]?\w+"
)
_TRAILING_COMMENT = re.compile(r"\s+#\s+(.*)$")
#: A comment drawn as a divider ("── Run locally ────", "===== Lint =====", "--- x ---"):
#: runs of frame characters at its ends, around the label between them.
#: A run of ASCII frame characters stands apart from the label (`--release` is an option).
_DRAWN_ENDS = re.compile(
    r"^(?:[\u2500-\u257f]+|[=~*#_-]{2,}(?=\s|$))\s*"
    r"|\s*(?:[\u2500-\u257f]+|(?:^|(?<=\s))[=~*#_-]{2,})$"
)


def _comment_label(note: str) -> str:
    """A shell comment without the frame drawn around it: "── Run locally ──────" is
    "Run locally", a comment that is only a drawn line is no comment."""
    previous = None
    while previous != note:
        previous, note = note, _DRAWN_ENDS.sub("", note).strip()
    return note


def _continues(comment: str) -> bool:
    """Whether a comment line carries on the sentence of the comment line above it: it
    opens in lower case ("# with current output; run after visual changes)"), where a
    comment of its own opens with a capital or a symbol ("# Run unit tests")."""
    return comment[:1].islower()


#: Words that open and close a shell construct, in command position.
_OPENS = re.compile(r"(?:^|[;&|(]\s*)(?:if|for|while|until|case)\b")
_CLOSES = re.compile(r"(?:^|[;&|]\s*)(?:fi|done|esac)\b")
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)")
#: ``cd DIR`` alone on a line: the commands after it run in DIR.
_CD = re.compile(r"^cd\s+(\S+)$")


#: A command's failure handler as a brace group: ``cmd || { echo "failed"; exit 1; }``.
_FALLBACK = re.compile(r"\s*\|\|\s*\{[^{}]*\}\s*$")
_FALLBACK_OPEN = re.compile(r"\s*\|\|\s*\{\s*$")


def _fold_fallbacks(lines: list[str]) -> tuple[list[str], dict[int, int]]:
    """``lines`` with each command's failure handler (``cmd || { echo …; exit 1; }``, on
    one line or over several) taken off, the lines it took left blank, and for each such
    command the index of the handler's last line. The handler says what happens when
    the command fails; the command is what the block asks to run (read whole, the brace
    group made the block a script, so none of its commands was a rule)."""
    out = list(lines)
    ends: dict[int, int] = {}
    index = 0
    while index < len(out):
        line = out[index]
        if _FALLBACK.search(line) and _FALLBACK.sub("", line).strip():
            out[index] = _FALLBACK.sub("", line)
            ends[index] = index
        elif _FALLBACK_OPEN.search(line) and _FALLBACK_OPEN.sub("", line).strip():
            close = index + 1
            while close < len(out) and not re.search(r"[{}]", out[close]):
                close += 1
            if close < len(out) and "{" not in out[close] and out[close].rstrip().endswith("}"):
                out[index] = _FALLBACK_OPEN.sub("", line)
                for inner in range(index + 1, close + 1):
                    out[inner] = ""
                ends[index] = close
                index = close
        index += 1
    return out, ends


def _construct_lines(lines: list[str]) -> set[int] | None:
    """Indexes of the lines inside shell constructs (``if … fi``, loops, functions,
    heredocs), or None when they do not pair up (a fragment, read as a script)."""
    inside: set[int] = set()
    depth = 0
    heredoc = ""
    for index, raw in enumerate(lines):
        line = raw.strip()
        if heredoc:
            inside.add(index)
            if line == heredoc:
                heredoc = ""
            continue
        if line.startswith("#"):
            if depth:
                inside.add(index)
            continue
        opens = len(_OPENS.findall(line)) + line.endswith("{")
        closes = len(_CLOSES.findall(line)) + line.startswith("}")
        document = _HEREDOC.search(line)
        if document:
            heredoc = document.group(1)
        if depth or opens or closes or heredoc:
            inside.add(index)
        depth += opens - closes
        if depth < 0:
            return None
    return None if depth or heredoc else inside


def _quote_after(line: str, quote: str) -> str:
    """The quote still open at the end of ``line`` ("" for none), read as a shell reads
    it: ``'`` and ``"`` pair up, a backslash escapes outside single quotes, and a ``#``
    that opens a word outside quotes starts a comment ("# don't" opens nothing)."""
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            break
    return quote


def _open_quotes(lines: list[str]) -> set[int]:
    """Indexes of the lines that end inside a quoted argument closed on a later line
    (``git commit -m "Title`` over the message's body and its closing quote): the lines
    up to the close are one command. A quote left open to the end of the block is a
    stray one and joins nothing."""
    joined: set[int] = set()
    quote = ""
    run: list[int] = []
    for index, line in enumerate(lines):
        quote = _quote_after(line, quote)
        if quote:
            run.append(index)
        else:
            joined.update(run)
            run = []
    return joined


def _unquoted(line: str) -> str:
    """``line`` without its quoted arguments and its comment: the shell's own syntax."""
    line = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "", line)
    return re.sub(r"(?:^|\s)#.*$", "", line)


def _subshells(lines: list[str]) -> tuple[list[str], set[int]]:
    """``lines`` with each subshell written over several lines (``(`` alone, its commands,
    then ``) | nc localhost 7777``) made one command, and the indexes of the lines that
    continue into the next. The group's commands run as one: read a line at a time, the
    block gave ``(``, ``sleep 1`` and ``) | nc …`` as commands of their own; joined, its
    lines read ``( echo …; sleep 1 ) | nc …``. Comments inside the group are dropped."""
    out = list(lines)
    joined: set[int] = set()
    index = 0
    while index < len(out):
        shell = _unquoted(out[index]).strip()
        depth = shell.count("(") - shell.count(")")
        if not shell.startswith("(") or depth <= 0:
            index += 1
            continue
        close = index + 1
        while close < len(out) and depth > 0:
            inner = _unquoted(out[close])
            depth += inner.count("(") - inner.count(")")
            close += 1
        close -= 1
        if (
            depth
            or not out[close].strip().startswith(")")
            or any(_SCRIPT.search(out[i]) for i in range(index + 1, close))
        ):
            # not closed where a group closes, or holding a script: as they are
            index += 1
            continue
        body = [i for i in range(index + 1, close) if out[i].strip()]
        for inner_index in range(index + 1, close):
            if out[inner_index].strip().startswith("#"):
                out[inner_index] = ""
        body = [i for i in body if out[i].strip()]
        for inner_index in body[:-1]:
            text = out[inner_index].rstrip()
            if not text.endswith(("|", "&&", "||", ";", "\\", "(")):
                out[inner_index] = text + ";"
        joined.update(range(index, close))
        index = close + 1
    return out, joined


def _commands(
    node: SyntaxTreeNode, first_line: int, heading: str = ""
) -> list[tuple[int, int, str]]:
    """(start, end, text) of each command in a shell fence whose opening line is
    ``first_line``, with the comment that explains it (a trailing ``# ...`` or the comment
    line just above it); a command continued with a backslash is one command. Empty when
    the fence is not a shell block or is long enough to be a script. A fence with no
    language is a shell block when it lists commands under ``heading``, the heading of
    its section, that names them (:func:`_untagged_commands`)."""
    info = (node.info or "").strip().split()
    if not info:
        if node.type != "fence" or not _untagged_commands(node.content, heading):
            return []
    elif info[0].lower() not in _SHELL_FENCES:
        return []
    lines, handled = _fold_fallbacks(node.content.splitlines())
    lines, grouped = _subshells(lines)
    quoted = _open_quotes(lines)
    # the lines inside a quoted argument are its text, not commands or constructs
    probe = ["" if index - 1 in quoted else line for index, line in enumerate(lines)]
    # a check written as a construct among the commands ("if unformatted=$(gofmt -l .);
    # then … fi" between `go vet` and `make spellcheck`) is left out, not the list; a
    # block that is mostly constructs is a script
    skipped = _construct_lines(probe)
    if skipped is None or any(
        _SCRIPT.search(line) for i, line in enumerate(probe) if i not in skipped
    ):
        return []
    plain = [i for i, line in enumerate(probe) if line.strip() and not line.strip().startswith("#")]
    if len(skipped & set(plain)) * 2 >= len(plain):
        return []
    # in a transcript ("$ npm test" then its output) only the prompted lines are commands
    prompted = any(_PROMPT.match(line) for line in lines)
    out: list[tuple[int, int, str]] = []
    note = ""
    noted = 0  # the line of the comment above that ``note`` came from
    parts: list[str] = []
    begun = 0
    where = ""  # the folder a `cd DIR` line moved to
    for offset, raw in enumerate(lines):
        line = first_line + 1 + offset
        stripped = raw.strip()
        if offset in skipped:
            note, noted = "", 0
            continue
        if not parts:
            if not stripped or stripped.startswith("#!"):
                note, noted = "", 0
                continue
            comment = _COMMENT.match(raw)
            if comment and comment.group(1) == "#":
                label = _comment_label(comment.group(2).strip())
                if note and noted and _continues(label):
                    # "# Update baselines (overwrites the golden files" then "# with the
                    # current output)": one sentence over two lines, cited from its first
                    note = f"{note} {label}"
                    continue
                note = label
                noted = line if note else 0
                continue
            if prompted and not _PROMPT.match(raw):
                continue  # output of the command before it
            stripped = _PROMPT.sub("", stripped)
            begun = line
        parts.append(stripped.removesuffix("\\").strip())
        if stripped.endswith("\\") or offset in quoted or offset in grouped:
            continue
        line = first_line + 1 + handled.get(offset, offset)
        command = " ".join(p for p in parts if p)
        parts = []
        trailing = _TRAILING_COMMENT.search(command)
        if trailing:
            note, noted = _comment_label(trailing.group(1).strip()), 0
            command = command[: trailing.start()].strip()
        moved = _CD.match(command)
        if moved and moved.group(1) in ("..", "-", "~"):
            where = ""  # back where the block started: no rule in it
            note, noted = "", 0  # its comment ("cd ..  # Go to the parent repo") is the cd's
            continue
        # "# Run a single test class:" over the command introduces it: in brackets after
        # the command the colon points at nothing
        shown = _options_as_code(note.rstrip(":：").rstrip())
        if where:
            # "cd cli" then "go test ./cli": the command says where it runs
            shown = f"{shown}; in `{where}`" if shown else f"in `{where}`"
        # the comment line shown with the command is part of what it cites
        first = noted if shown and noted else begun
        out.append((first, line, f"`{command}`" + (f" ({shown})" if shown else "")))
        if moved:
            where = moved.group(1).rstrip("/")
        note, noted = "", 0
        if len(out) > _MAX_COMMANDS:
            return []
    return out


#: A long option in a shell comment ("never build with --release"): code, as the rule
#: would have written it in prose.
_BARE_OPTION = re.compile(r"(?<![\w`-])(--[A-Za-z][\w-]*(?:=[^\s`),;]+)?)")


def _options_as_code(note: str) -> str:
    """A command's comment with its bare long options as code spans: the comment is
    plain text inside a code block, so "never build with --release" carries the option
    as a word where prose would write `--release`."""
    return _BARE_OPTION.sub(r"`\1`", note)


def _heading_text(node: SyntaxTreeNode) -> str:
    """A heading's words without emphasis and code marks; an underscore inside a word is
    part of it (``node_modules``, ``snake_case``), as Markdown itself reads it."""
    text = _inline_text(node)
    return re.sub(r"[*`]+|(?<!\w)_+|_+(?!\w)", "", text).strip()


class _Walker:
    def __init__(self, source: str, offset: int) -> None:
        self.lines = source.splitlines()
        self.offset = offset  # lines of front matter removed before parsing
        self.blocks: list[Block] = []
        self.headings: list[tuple[float, str]] = []
        #: the last heading: 1-based first and last line, text, and the section it opens
        self.last_heading: tuple[int, int, str, list[str]] | None = None
        self.heading_lines: list[tuple[int, int, list[str]]] = []
        self.indents = 0  # indented blocks read as rules around this walker
        #: tag sections of the file (0-based open and close lines, name, headings saved
        #: at the open tag); only the file's own walker has them
        self.tags: list[tuple[int, int, str, list[tuple[float, str]]]] = []
        self.open_tags: list[int] = []  # indexes into ``tags``

    def section(self) -> list[str]:
        return [text for _, text in self.headings]

    def span(self, node: SyntaxTreeNode, end0: int | None = None) -> tuple[int, int]:
        assert node.map is not None
        start0, stop0 = node.map
        if end0 is not None:
            stop0 = end0
        stop0 = _trim_end(self.lines, start0, stop0)
        return start0 + 1 + self.offset, stop0 + self.offset

    def add(self, block: Block) -> None:
        first = block.line_start - 1 - self.offset
        quoted = 0 <= first < len(self.lines) and self.lines[first].lstrip().startswith(">")
        block.text = _unmark(block.text, quoted=quoted)
        if _DATE_STAMP.match(block.text) or _is_stamp_line(block.text):
            return  # "**Last Updated:** 2025-10-22": when the file was written, no rule
        if _SLOT.match(block.text) and not block.code_comments:
            return  # "[Describe the problem it solves]": a template's slot, never filled
        if not block.code_comments and _reports_absence(block.text):
            return  # "No Cursor rules found (`.cursor/rules/`)": a report, nothing to obey
        if block.kind == "paragraph" and (
            _FILE_PREAMBLE.match(block.text.strip("*_ "))
            or _AGENT_PREAMBLE.match(block.text.strip("*_ "))
        ):
            return  # "This file provides guidance to Claude Code …": what the file is for
        self.blocks.append(block)

    def attach_code(
        self,
        node: SyntaxTreeNode,
        after: SyntaxTreeNode | None = None,
        *,
        label: Block | None = None,
    ) -> None:
        """A code block illustrates the unit just before it, if that unit is adjacent.
        ``after``: the node after it in its section, when the walker knows it. ``label``:
        the rule of the list item the code is in, when the item's words only name what
        the code does ("Install dependencies" over `pnpm install`)."""
        if _is_banner(node.content):
            return
        start, end = self.span(node)
        section = self.section()
        commands = _commands(node, start, section[-1] if section else "")
        if label is not None and len(commands) == 1 and self.blocks and self.blocks[-1] is label:
            # a list item's label over its one command, as Warp's generated WARP.md writes
            # every command ("- Install dependencies" over a fence of `pnpm install`): the
            # label alone said nothing and the command alone not what it is for, so they
            # are one rule, as a lead-in with a colon and its command are
            joint = "" if _ends_in_colon(label.text) else ":"
            label.text = f"{label.text}{joint} {commands[0][2]}"
            label.line_end = max(label.line_end, end)
            return
        if commands:
            # each command is a rule of its own, read with the lead-in above it ("Testing
            # commands:"): inside one block its text would never reach the agent
            prev = self.blocks[-1] if self.blocks else None
            lead = ""
            if prev is not None and start - prev.line_end <= 2 and prev.section == self.section():
                lead = prev.text
            if lead and len(commands) == 1 and prev is not None and _is_lead_in(lead):
                # "Regenerate everything:" over its one command: the lead-in says nothing
                # without it, and the command alone ("`./scripts/gen.sh`", one word) was
                # dropped, so they are one rule, cited over both
                prev.text = f"{lead} {commands[0][2]}"
                prev.line_end = max(prev.line_end, end)
                return
            barred = lead if lead and _forbids(lead) else ""
            if not lead:
                barred = self.forbidding_heading(node)
            if barred:
                # "Never run these:" (or "❌ Don't:", or a heading "### Avoid") over its
                # commands: each command alone read as one to run, the opposite of what
                # it says, so each is shown after the prohibition, as a list item under
                # it is; a lead-in that only introduces them is cited with the first
                if lead and prev is not None and _is_lead_in(lead) and self.blocks[-1] is prev:
                    self.blocks.pop()
                    commands[0] = (prev.line_start, commands[0][1], commands[0][2])
                for first, last, text in commands:
                    self.add(Block("command", f"{barred} {text}", first, last, self.section()))
                return
            for first, last, text in commands:
                self.add(Block("command", text, first, last, self.section(), lead))
            return
        entries = _tree_entries(node.content)
        if entries:
            # a file tree whose lines say what each folder holds ("contrib/   # Docker
            # configs, Helm charts"): each annotated entry is a rule of its own, as an item
            # "- `contrib/`: Docker configs" is; as one block of comments its lines were
            # cited by none, and a task about one folder never reached its line
            for offset, path, note in entries:
                line = start + offset
                self.add(Block("entry", f"`{path}`: {note}", line, line, self.section()))
            return
        comments = _fence_comments(node.content, node.info or "")
        prev = self.blocks[-1] if self.blocks else None
        gap_ok = prev is not None and start - prev.line_end <= 2
        barred = self.forbidding_heading(node)
        listed = _forbidden_lines(node.content) if barred and not comments else []
        if listed and not _continued_by(after):
            # "## NEVER Use" right over `Theme::instance()  // Does NOT exist!`, `MD5`,
            # `'connector' = 'kafka'`: each line is a thing the heading forbids, as the
            # items of a list under it are; as one block the heading's words were dropped
            # and the lines never reached the agent
            # code is quoted as code; a fence of plain text lists things said in words
            # ("random Tailwind colors"), and a code span there would read as a command
            prose = (node.info or "").strip().lower() in ("", "text", "txt", "plain", "plaintext")
            for offset, code, note in listed:
                shown = code if prose else f"`{code}`"
                text = f"{barred} {shown}" + (f" ({note})" if note else "")
                self.add(Block("item", text, start + offset, start + offset, self.section()))
            return
        if prev is not None and gap_ok and prev.section == self.section():
            prev.line_end = max(prev.line_end, end)
            prev.code_comments.extend(comments)
            return
        heading = self.last_heading
        if (
            heading is not None
            and heading[3] == self.section()
            and 0 < start - heading[1] <= 2
            and heading_word_count(heading[2]) >= 3
        ):
            # "### Use `withCache()` for Simple Database Queries" over its example: the
            # heading states what the code shows, so heading and code are one rule (the
            # code's comments are read with it, its citation covers the code)
            self.add(
                Block(
                    "paragraph", heading[2], heading[0], end, self.section(), code_comments=comments
                )
            )
            return
        if comments:
            self.add(
                Block(
                    "code",
                    "; ".join(comments),
                    start,
                    end,
                    self.section(),
                    code_comments=comments,
                )
            )

    def cross_tags(self, line0: int) -> None:
        """Enter and leave tag sections before the block starting at ``line0``: a tag is a
        section just under the heading it is in, and headings inside it end with it."""
        while self.open_tags and self.tags[self.open_tags[-1]][1] < line0:
            saved = self.tags[self.open_tags.pop()][3]
            self.headings[:] = saved
        for index, (start, end, name, saved) in enumerate(self.tags):
            if start < line0 <= end and index not in self.open_tags:
                saved[:] = list(self.headings)
                level = self.headings[-1][0] if self.headings else 0
                self.headings.append((level + 0.001, name))
                self.open_tags.append(index)

    def walk(self, nodes: list[SyntaxTreeNode], context: str = "", depth: int = 0) -> None:
        walked: set[int] = set()
        for index, node in enumerate(nodes):
            kind = node.type
            if self.tags and node.map is not None:
                self.cross_tags(node.map[0])
            after = nodes[index + 1] if index + 1 < len(nodes) else None
            if kind == "paragraph" and after is not None and after.type in LISTS:
                heading = _plain_heading(node)
                if heading:
                    # "Error Handling and Validation" alone on a line over a list (plain-text
                    # rule files have no '#'): a heading, not a rule; it names the section
                    self.headings.append((99, heading))
                    self.walk_list(after, context, depth)
                    self.headings.pop()
                    walked.add(index + 1)
                    continue
                title = _list_title(_inline_text(node))
                barred = "" if context else self.forbidding_heading(node, near=False)
                if title and barred:
                    # "## Do Not Edit" over "**Auto-generated files:**" over `*.pb.go`: the
                    # title sorts what the heading forbids, so each item is shown after the
                    # heading (alone it says the opposite, or nothing: one word was dropped)
                    # and the title, no rule alone, is its section and cited with the first;
                    # a title that forbids by itself ("## Forbidden actions" over "**YOU
                    # MUST NEVER edit these files:**") says what the items are forbidden:
                    # each is shown after the title, whose verb the heading lacks
                    if polarity(title) == "never":
                        barred = title if _ends_in_colon(title) else f"{title}:"
                    start, _ = self.span(node)
                    self.headings.append((99, title))
                    self.walk_list(
                        after, barred, depth, prefix=True, negation=True, lead_start=start
                    )
                    self.headings.pop()
                    walked.add(index + 1)
                    continue
                lead = _inline_text(node)
                if title and not (_is_lead_in(lead) and (_forbids(lead) or _bare_commands(after))):
                    # "**Testing**" or "Database rules:" over a list names its section;
                    # the line itself stays a unit (it starts the rule statement). A bold
                    # lead-in over bare commands ("**Needs approval:**" over `git push`),
                    # or one that forbids ("**Never run:**"), is read as the same line
                    # unbolded is: an item alone would read as "run it", or the opposite.
                    # A title that only names what the list holds ("**Key Files:**",
                    # "**Key Characteristics:**") instructs nothing: it is the items'
                    # section, as a bold name over sub-items is, not a rule shown alone
                    # in the small budget (a title that instructs, "**Always run:**",
                    # stays a rule)
                    instructs = bool(is_directive(title) or polarity(title))
                    if instructs:
                        self.add_paragraph(node, context, depth)
                    # a title that is no rule is cited with the first item, as a bold name
                    # over sub-items is
                    cited = None if instructs else self.span(node)[0]
                    self.headings.append((99, title))
                    if _names_actions(after) or (not instructs and _asks(title)):
                        # "**Common Issues**:" over "Manually editing generated files": an
                        # action named alone reads as the task itself, so it is shown after
                        # its title, as after a lead-in (an item that instructs stays as it
                        # is); so is an answer to a title that asks ("**What is NOT a
                        # breaking change:**" over "Page deletions", "Product license
                        # changes"): alone it reads as a rule, or says nothing
                        self.walk_list(
                            after, lead, depth, prefix=True, plain_only=True, lead_start=cited
                        )
                    else:
                        self.walk_list(after, context, depth, lead_start=cited)
                    self.headings.pop()
                    walked.add(index + 1)
                    continue
                if _is_lead_in(lead) and (
                    _one_word_items(after)
                    or (polarity(lead) != "never" and _one_word_items(after, spans=True))
                ):
                    # "Do not hand-edit generated files:" over `generated/*`, `dist/*`: a
                    # one-word item is no rule alone (it was dropped), so the list is
                    # what the lead-in says, and one rule with it; so is a list of bare
                    # code spans ("Run these without asking:" over `make test`, `go test
                    # ...`): a command alone would read as "run it" (under a negated
                    # lead-in each item is shown with it instead, see below)
                    start, _ = self.span(node)
                    _, end = self.span(after)
                    items = "; ".join(_item_texts([after]))
                    self.add(Block("paragraph", f"{lead} {items}", start, end, self.section()))
                    walked.add(index + 1)
                    continue
                if (
                    _ends_in_colon(lead)
                    and not _forbids(lead)
                    and _plain_items([after])
                    and (_mostly_named(after) or _repeats(after))
                ):
                    # "A source file consists of the following, in this exact order:" over
                    # "License", "Package statement", …, or an import layout whose "blank
                    # line" comes back between groups: items that name the parts of one
                    # thing (most do not instruct, or one is repeated: a layout, not a set
                    # of rules) are nothing alone, so the list is one rule with its lead-in
                    start, _ = self.span(node)
                    _, end = self.span(after)
                    items = "; ".join(t.rstrip(".") for t in _item_texts([after]))
                    self.add(Block("paragraph", f"{lead} {items}", start, end, self.section()))
                    walked.add(index + 1)
                    continue
                if _is_question(lead):
                    # "When should authorization tests be written?" over its answers: an
                    # answer alone ("When adding a new restricted field") says nothing, so
                    # each item is shown after the question, and the first one's citation
                    # starts at the question's line (no rule of its own: it asks nothing
                    # of the agent)
                    start, _ = self.span(node)
                    self.walk_list(after, lead, depth, prefix=True, lead_start=start)
                    walked.add(index + 1)
                    continue
                negated = _forbids(lead)
                # items that are all quotations ("I'll just add the new behavior alongside
                # the old.") are what someone says or thinks, never an instruction: each is
                # shown after the line that introduces them, however long it is
                quoted = lead.rstrip("*_ ").endswith(":") and _quoted_items(after)
                if _is_lead_in(lead) or negated or quoted:
                    # "When adding a new tool:" over a list: the paragraph stays a unit and
                    # becomes each item's retrieval context (not its displayed text), but
                    # under "Agents MUST NOT:" (or a longer "Do not use these commands,
                    # they are not portable:") an item shown alone ("Bypass module
                    # boundaries", "`jq`") would say the opposite, so it is shown with the
                    # lead-in, unless it says "never" or "must" itself. A lead-in that is only
                    # who and a modal ("Agents **must**:", "You should not:") says nothing
                    # alone: it is no rule of its own, only the items' context
                    if not (_bare_modal(lead) or _points_at_list(lead)):
                        self.add_paragraph(node, context, depth)
                    if not (negated or quoted) and _is_lead_in(lead) and _names_actions(after):
                        # "Changes that need a suggestion:" over "Changing database access
                        # patterns": an action named alone reads as the task itself, so
                        # it is shown after its lead-in (an item that instructs stays as
                        # it is)
                        self.walk_list(after, lead, depth, prefix=True, plain_only=True)
                    else:
                        self.walk_list(
                            after, lead, depth, prefix=negated or quoted, negation=negated
                        )
                    walked.add(index + 1)
                    continue
                label = _list_label(node)
                if label and not _bare_commands(after):
                    # "Build and deploy" alone on a line over its list, in sentence case
                    # and without a colon (files written as plain text, as generated
                    # instruction files often are): it names the section, as a heading
                    # would; alone it asks nothing and only spent the budget
                    self.headings.append((99, label))
                    self.walk_list(after, context, depth)
                    self.headings.pop()
                    walked.add(index + 1)
                    continue
            if index in walked:
                continue
            if kind == "paragraph" and _plain_heading(node):
                if after is None or after.type == "heading":
                    continue  # "Purpose and Functionality" over a heading: no rule in it
                if after.type == "paragraph" and not _plain_heading(after):
                    # over the paragraph it titles, as over a list
                    self.headings.append((99, _plain_heading(node)))
                    self.add_paragraph(after, context, depth)
                    self.headings.pop()
                    walked.add(index + 1)
                    continue
            if kind == "paragraph" and after is not None and self.prose(after):
                title = _inline_text(node)
                if "\n" not in node.children[0].content and _is_title_line(title):
                    # "Execution Process" over indented rules names their section
                    self.headings.append((99, re.sub(r"[*_`#]+", "", title).strip()))
                    self.walk_prose(after, context, depth)
                    self.headings.pop()
                    walked.add(index + 1)
                    continue
            if kind == "heading":
                level = int(node.tag[1:])
                while self.headings and self.headings[-1][0] >= level:
                    self.headings.pop()
                self.headings.append((level, _heading_text(node)))
                start, end = self.span(node)
                self.heading_lines.append((start, end, self.section()))
                self.last_heading = (start, end, _inline_text(node), self.section())
            elif kind == "paragraph" and self.barred_paragraph(node, context, depth):
                continue
            elif kind == "paragraph":
                before = len(self.blocks)
                self.add_paragraph(node, context, depth)
                self.numbered_title(node, context, before)
            elif kind == "code_block" and self.prose(node):
                self.walk_prose(node, context, depth)
            elif kind in ("fence", "code_block"):
                self.attach_code(node, after)
            elif kind in LISTS and not context and self.forbidding_heading(node):
                # "### ❌ Never include:" or "## Do Not Edit" right over its items: an item
                # shown alone ("`Co-Authored-By: Claude`", "Use inline styles") would say
                # the opposite, so it is shown after the heading, as under a lead-in
                heading = self.forbidding_heading(node)
                self.walk_list(node, heading, depth, prefix=True, negation=True)
            elif kind in LISTS and not context and self.governing_heading(node):
                # "### ⚠️ Ask First" over "Modifying production manifests", "Dropping
                # tables": an action named under a heading that says what to do about it
                # reads alone as the task itself, so it is shown after the heading (an
                # item that instructs by itself stays as it is)
                heading = self.governing_heading(node)
                self.walk_list(node, heading, depth, prefix=True, plain_only=True)
            elif kind in LISTS:
                self.walk_list(node, context, depth)
            elif kind == "table":
                self.walk_table(node)
            elif kind == "blockquote":
                self.walk(node.children, context, depth)
            elif kind == "html_block" and self.walk_tagged(node, context, depth):
                continue
            elif kind == "html_block":
                # a comment first, whole: one holding "->" is not a tag's end
                text = re.sub(r"<!--.*?(?:-->|$)", " ", node.content, flags=re.DOTALL)
                text = re.sub(r"<[^>]+>", " ", text)
                text = " ".join(text.split())
                if word_count(text) >= 4:
                    start, end = self.span(node)
                    self.add(Block("paragraph", text, start, end, self.section(), context))

    def forbidding_heading(self, node: SyntaxTreeNode, *, near: bool = True) -> str:
        """The heading of ``node``'s section when it is a short prohibition ("Don't", "Do
        Not Edit", "❌ Never include:"), as a lead-in ending in a colon; else ``""``. With
        ``near`` it must be right over ``node`` (at most one blank line between)."""
        heading = self.last_heading
        if heading is None or heading[3] != self.section():
            return ""
        start, _ = self.span(node)
        text = _heading_text_of(heading[2])
        if near and not 0 < start - heading[1] <= 2:
            return ""
        if len(text.split()) > 6:
            return ""
        # "What NOT to Test" over "Private methods directly": a prohibition the way a
        # checklist writes it
        if polarity(text) != "never" and _what_to(text) != "not":
            return ""
        return text if _ends_in_colon(text) else f"{text}:"

    def governing_heading(self, node: SyntaxTreeNode) -> str:
        """The heading right over ``node`` when it is a short instruction that its list's
        items complete ("Ask first", "✅ Always") and most items name actions rather than
        instruct ("Modifying the consumer group", "Dropping columns or tables"), as a
        lead-in ending in a colon; else ``""``. A prohibition is
        :meth:`forbidding_heading`'s."""
        from charter.rules.annotate import is_directive

        heading = self.last_heading
        if heading is None or heading[3] != self.section():
            return ""
        start, _ = self.span(node)
        if not 0 < start - heading[1] <= 2:
            return ""
        text = _heading_text_of(heading[2])
        plain = re.sub(r"[*_`]+", "", text).strip()
        if _WHEN_TO.match(plain):
            # "When to Verify Dark Mode" over "After adding or modifying any UI component",
            # "When users report visibility issues": each item is a time the heading's act
            # is due, and alone names no act at all
            return text if _ends_in_colon(text) else f"{text}:"
        if len(plain.split()) > 4 or polarity(plain) == "never":
            return ""
        items = _item_texts([node])
        if plain.rstrip(":").strip().lower() in _OBJECT_VERBS and 2 * sum(
            is_directive(t, strong=True) for t in items
        ) < len(items):
            # "## Remove" over "Doc comments that paraphrase the function name": the items
            # are the verb's objects, and one shown alone says nothing of what to do
            return text if _ends_in_colon(text) else f"{text}:"
        # "What to Test" over "All public API methods", "Edge cases: …": each item
        # completes the heading, whatever it names
        if _what_to(plain) != "to" and (not is_directive(plain) or not _names_actions(node)):
            return ""
        return text if _ends_in_colon(text) else f"{text}:"

    def numbered_title(self, node: SyntaxTreeNode, context: str, before: int) -> None:
        """A numbered heading of three words or more right over a paragraph ("### 6.
        `includedUsage` Must Be a Multiple of `billingUnits`" over "Stripe requires integer
        tier values…"): a file that numbers its rules as headings states each rule in the
        heading and explains it below, so the paragraph alone says why, not what. The
        heading leads the paragraph's text and its line starts the citation. Headings that
        are not numbered name sections and stay the section path."""
        heading = self.last_heading
        if context or len(self.blocks) != before + 1 or heading is None:
            return
        start, _ = self.span(node)
        block = self.blocks[-1]
        if heading[3] != self.section() or not 0 < start - heading[1] <= 2:
            return
        text = _heading_text_of(heading[2])
        numbered = _OUTLINE_NUMBER.match(text)
        if numbered is None or block.line_start != start:
            return
        title = text[numbered.end() :].strip()
        if word_count(title) < 3:
            return
        block.text = f"{title}{'' if title[-1:] in '.:!?' else ':'} {block.text}"
        block.line_start = heading[0]

    def barred_paragraph(self, node: SyntaxTreeNode, context: str, depth: int) -> bool:
        """A paragraph right under a heading that is itself the prohibition ("## Don't
        edit files under `docs/`" over "They are generated by `make docs`; change the
        schema instead."): alone it says why, not what, so it is shown after the heading
        and cited from the heading's line. A paragraph that forbids or requires by itself
        stays as it is."""
        heading = "" if context else self.forbidding_heading(node)
        text = _inline_text(node)
        if not heading or not text or polarity(text) or self.last_heading is None:
            return False
        _, end = self.span(node)
        start = self.last_heading[0]
        self.add(Block("paragraph", f"{heading} {text}", start, end, self.section(), "", [], depth))
        return True

    def walk_tagged(self, node: SyntaxTreeNode, context: str, depth: int) -> bool:
        """Rules wrapped in a tag (``<important>…</important>``) are parsed as Markdown.

        Prompt-style rule files group rules in XML-like tags; CommonMark sees one HTML
        block. The lines inside are parsed on their own, with the tag name as a section.
        """
        raw = node.content.splitlines()
        opening = _OPEN_TAG.match(raw[0]) if raw else None
        if opening is None or len(raw) < 2 or node.map is None:
            return False
        if opening.group(1).lower() in _HTML_NAMES:
            return False
        tag = opening.group(1)
        inner = raw[1:]
        if re.match(rf"^\s*</{re.escape(tag)}\s*>\s*$", inner[-1]):
            inner = inner[:-1]
        if not any(line.strip() for line in inner):
            return True
        sub = _Walker("\n".join(inner), self.offset + node.map[0] + 1)
        sub.headings = [*self.headings, (99, tag)]
        sub.walk(_tree("\n".join(inner)).children, context, depth)
        self.blocks.extend(sub.blocks)
        return True

    def prose(self, node: SyntaxTreeNode) -> bool:
        """An indented block to read as rules (a few levels deep at most: each level
        parses its text again)."""
        return self.indents < _MAX_INDENTS and _is_prose_block(node)

    def walk_prose(self, node: SyntaxTreeNode, context: str, depth: int) -> None:
        """Rules indented four spaces (pasted from a document) are read as Markdown:
        CommonMark makes them an indented code block, whose text no rule would show."""
        assert node.map is not None
        sub = _Walker(node.content, self.offset + node.map[0])
        sub.headings = list(self.headings)
        sub.indents = self.indents + 1
        sub.walk(_tree(node.content).children, context, depth)
        self.blocks.extend(sub.blocks)

    def add_paragraph(self, node: SyntaxTreeNode, context: str, depth: int) -> None:
        """A paragraph is one unit, unless its lines are one instruction each.

        Plain-text rule files (``.cursorrules`` and many CLAUDE.md files) put one rule per
        line with no list markers; Markdown joins those lines into one paragraph. Lines
        are split apart where a line ends a sentence and the next starts a new one, and a
        short title-like line ("Naming Conventions") becomes the section of the lines
        under it; lines with neither markers nor full stops are split when each starts a
        statement and none goes on into the next. Hard-wrapped prose, whose lines end
        mid-sentence, stays one unit.
        """
        text = _inline_text(node)
        if not text or _rules_apply_everywhere(text):
            return
        start, end = self.span(node)
        raw = [c.content for c in node.children if c.type == "inline"]
        drawn = _drawing_start(raw[0]) if raw else None
        if drawn == 0:
            # a screen or diagram drawn with box-drawing characters outside a fence
            # ("│ SIDEBAR │ MAIN CONTENT │"): a figure, read as a fenced one would be,
            # illustrating the rule just above it; its lines are no rules
            prev = self.blocks[-1] if self.blocks else None
            if prev is not None and start - prev.line_end <= 2 and prev.section == self.section():
                prev.line_end = max(prev.line_end, end)
            return
        if drawn is not None and len(raw[0].split("\n")) == end - start + 1:
            # "The page has a sidebar:" right over its drawing: the line, cited with it
            lead = " ".join(line.strip() for line in raw[0].split("\n")[:drawn])
            self.add(Block("paragraph", lead, start, end, self.section(), context, [], depth))
            return
        lines = _hard_breaks(raw[0]).split("\n") if len(raw) == 1 else []
        broken = (
            [_HARD_BREAK.search(line) is not None for line in raw[0].split("\n")] if raw else []
        )
        groups = _line_groups(lines, broken) if len(lines) == end - start + 1 else []
        if len(groups) <= 1:
            self.add(Block("paragraph", text, start, end, self.section(), context, [], depth))
            return
        title: list[str] = []
        for first, last, is_title in groups:
            if is_title:
                title = [re.sub(r"[*_`#]+", "", lines[first]).strip()]
                continue
            piece = " ".join(line.strip() for line in lines[first : last + 1])
            self.add(
                Block(
                    "paragraph",
                    piece,
                    start + first,
                    start + last,
                    self.section() + title,
                    context,
                    [],
                    depth,
                )
            )

    def walk_list(
        self,
        node: SyntaxTreeNode,
        context: str,
        depth: int,
        *,
        prefix: bool = False,
        lead_start: int | None = None,
        negation: bool = False,
        plain_only: bool = False,
    ) -> None:
        """Rules of a list's items; with ``prefix`` each item is shown after ``context``
        (with ``negation``, only an item that neither forbids nor requires by itself: "Never
        log tokens" under "Don't:" says what it means alone; with ``plain_only``, only an
        item that does not instruct by itself)."""
        from charter.rules.annotate import is_directive

        ordered = node.type == "ordered_list"
        # "- **Module system**" over its sub-items: a bold name that instructs nothing is
        # the section of the items it heads, as a bold line over a list is, not a rule
        # (alone, "Module system" says nothing); an item of that shape without sub-items
        # in a list where others head theirs ("- **Patterns**" over unindented items)
        # names the items after it, up to the next such name
        titled = any(_item_title(item) and _nested(item) for item in node.children)
        # "Agents must never run:" over "terraform apply", "terraform destroy": commands
        # written without code marks, which a prohibition governs only as code spans
        commands = _plain_commands(_item_texts([node])) if negation else set()
        pushed = False
        for item in node.children:
            if self.tags and item.map is not None:
                self.cross_tags(item.map[0])  # a list goes on across a tag's blank lines
            own = [c for c in item.children if c.type in ("paragraph", "html_block")]
            nested = [c for c in item.children if c.type in LISTS]
            first_nested = min((c.map[0] for c in nested if c.map), default=None)
            text = " ".join(_inline_text(p) for p in own if p.type == "paragraph").strip()
            label = nested and _is_label(text) and _bare_spans(nested)
            if (
                (
                    nested
                    and (_is_lead_in(text) or label)
                    and (_plain_items(nested) or _no_instructions(nested))
                )
                or (nested and _ends_in_colon(text) and _plain_items(nested))
                or (nested and text and _examples_only(nested))
            ):
                # a heading-like item whose sub-items are plain (short, or naming and
                # describing rather than instructing): one rule, whole span; so is a
                # label without its colon over bare commands or paths ("Run tests (in
                # `e2e/`)" over "`make e2e`"), which say nothing alone, and a sentence
                # of any length ending in a colon over short items that name what it
                # asks for ("…consider creating dedicated modules for specific
                # sub-concerns:" over "Positioning logic (e.g., `Tasks.Positioning`)")
                children = "; ".join(t.rstrip(".") for t in _item_texts(nested))
                start, end = self.span(item)
                joined = f"{text}: {children}" if label else f"{text} {children}"
                self.add(Block("item", joined, start, end, self.section(), context))
                for child in item.children:
                    # "**Build**:" over its commands and then "Exit 0 ⇒ clean": the
                    # commands are rules too (they were dropped with the item's code)
                    if child.type == "fence" or (
                        child.type == "code_block" and not self.prose(child)
                    ):
                        self.attach_code(child)
                continue
            if nested and _is_lead_in(text):
                # each sub-item is a rule read with the lead-in's words; the first one's
                # citation starts at the lead-in's line, so the lead-in is cited too
                lead: int | None = self.span(item)[0]
                for child in item.children:
                    if child in nested:
                        self.walk_list(child, text, depth + 1, prefix=True, lead_start=lead)
                        lead = None
                    elif child.type == "fence" or (
                        child.type == "code_block" and not self.prose(child)
                    ):
                        # "**Run build verification**:" over its command and then what
                        # must hold: the command is a rule too, read with the lead-in
                        # (it was dropped with the item's code)
                        lead = self.lead_code(child, text, lead, ordered, context)
                continue
            if nested and not prefix and _heads_items(item, text):
                # "- Maintainer (PI)" over "Merges PRs.": a short label, no colon, that
                # instructs nothing names whose or what its sub-items are; alone it is no
                # rule, and the sub-items alone would read as the agent's own duties, so
                # each is read after it, as after a lead-in ("Maintainer (PI): Merges PRs.")
                lead = self.span(item)[0]
                for child in nested:
                    self.walk_list(child, f"{text}:", depth + 1, prefix=True, lead_start=lead)
                    lead = None
                continue
            title = _item_title(item) if titled else ""
            if pushed and (title or nested):  # the next group starts
                self.headings.pop()
                pushed = False
            if title and (nested or item is not node.children[-1]):
                named: int | None = self.span(item)[0]  # cited with the first item
                self.headings.append((99, title))
                if not nested:
                    pushed, lead_start = True, named
                    continue
                for child in nested:
                    self.walk_list(child, context, depth + 1, lead_start=named)
                    named = None
                self.headings.pop()
                continue
            # "If you work on the backend, run:" over its fence, then "If you work on the
            # frontend, run:" over another, in one item: each paragraph introduces the
            # code after it, so a paragraph after code is a rule of its own (read and
            # cited with its code), not words joined to the item's first sentence
            later = [] if nested else _after_code(item)
            if later and later[0].map is not None:
                first_nested = later[0].map[0]
                text = " ".join(
                    _inline_text(p)
                    for p in own
                    if p.type == "paragraph" and p.map and p.map[0] < first_nested
                ).strip()
            if text in commands:
                text = f"`{text}`"
            if (
                prefix
                and context
                and text
                and not (negation and polarity(text))
                and not (plain_only and is_directive(text, strong=True))
            ):
                text = f"{context} {text}"
            named_code: Block | None = None
            if text:
                start, end = self.span(item, first_nested)
                if lead_start is not None:
                    start, lead_start = lead_start, None
                kept = len(self.blocks)
                self.add(
                    Block(
                        "step" if ordered else "item",
                        text,
                        start,
                        end,
                        self.section(),
                        context,
                        [],
                        depth,
                    )
                )
                added = len(self.blocks) > kept
                if added and not nested and not later and _names_its_code(text):
                    named_code = self.blocks[-1]
            for child in item.children:
                if child in later:
                    start, end = self.span(child)
                    kind = "step" if ordered else "item"
                    self.add(Block(kind, _inline_text(child), start, end, self.section(), context))
                elif child.type == "fence" or (
                    child.type == "code_block" and not self.prose(child)
                ):
                    self.attach_code(child, label=named_code)
                    named_code = None
                elif child.type in ("bullet_list", "ordered_list"):
                    self.walk_list(child, text or context, depth + 1)
                elif child.type in ("table", "blockquote") or (
                    child.type == "code_block" and self.prose(child)
                ):
                    self.walk([child], text or context, depth + 1)
        if pushed:
            self.headings.pop()

    def lead_code(
        self, node: SyntaxTreeNode, lead: str, start: int | None, ordered: bool, context: str
    ) -> int | None:
        """The code of a list item whose lead-in heads sub-items: its one command is
        shown after the lead-in ("Run build verification: `make build`"), cited from
        ``start`` (the item's line, when no rule cites it yet); other code is attached as
        any code is. The line the next rule's citation starts at (None: cited)."""
        first, end = self.span(node)
        section = self.section()
        commands = _commands(node, first, section[-1] if section else "")
        if len(commands) != 1:
            self.attach_code(node)
            return start
        kind = "step" if ordered else "item"
        shown = f"{lead} {commands[0][2]}"
        self.add(Block(kind, shown, first if start is None else start, end, section, context))
        return None

    def walk_table(self, node: SyntaxTreeNode) -> None:
        header: list[str] = []
        for part in node.children:
            for row in part.children:
                cells = [_inline_text(cell) for cell in row.children]
                if part.type == "thead":
                    header = cells
                    continue
                if not any(cells):
                    continue
                if header and len(header) == len(cells):
                    text = " | ".join(
                        f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True)
                    )
                else:
                    text = " | ".join(cells)
                start, end = self.span(row)
                self.add(Block("row", text, start, end, self.section(), " | ".join(header)))


LISTS = ("bullet_list", "ordered_list")

_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")
#: Kiro steering's reference to a file of the project: ``#[[file:<path>]]``.
_FILE_REFERENCE = re.compile(r"#\[\[file:\s*([^\]\s`][^\]`]*?)\s*\]\]")
#: Cursor's link to a file of the project in a rule: ``[src/db/](mdc:src/db/)``.
_MDC_LINK = re.compile(r"\[([^\]\n]*)\]\(mdc:\s*([^)\s`]+)\s*\)")


def _mdc_link(match: re.Match[str]) -> str:
    """A Cursor ``mdc:`` link as the path it names, as code: the link's text when that is
    the path, else the text with the path after it ("[the schema](mdc:src/db/schema.ts)"
    is "the schema (`src/db/schema.ts`)"). ``mdc:`` is no address an agent can open."""
    label, path = match.group(1).strip(), match.group(2)
    bare = re.sub(r"[`*_]+", "", label).strip()
    if not bare or bare.rstrip("/") == path.rstrip("/"):
        return f"`{path}`"
    return f"{label} (`{path}`)"


#: An alert's marker, also as a Markdown formatter escapes it (``> \[!IMPORTANT]``).
_ALERT = re.compile(r"^\\?\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\\?\]\s*", re.IGNORECASE)
#: A callout's marker of any type atop a quote: besides GitHub's five, Obsidian's and
#: the ones files written for both use (``> [!CRITICAL]``, ``> [!danger]-`` folded).
_CALLOUT = re.compile(r"^\\?\[!([A-Za-z][A-Za-z-]*)\\?\][-+]?\s*")


#: A line that is only a bracketed slot of a template ("[Describe the main user flow]",
#: "[目标用户群体]"): what the file's author was to write there, not a rule. Two words at
#: least (or a Chinese or Japanese phrase), so a lone tag such as "[bash]" stays as it is.
_SLOT = re.compile(r"^\[(?=[^\[\]]*(?:\w\s+\w|[\u3040-\u30ff\u4e00-\u9fff]{2}))[^\[\]]+\]$")
#: A paragraph that only says what the rule file itself is for ("This file provides
#: guidance to Claude Code (claude.ai/code) when working with code in this repository.",
#: the line Claude Code's `/init` writes atop every CLAUDE.md): the file's preamble,
#: no instruction; one sentence, so a paragraph that goes on to instruct stays. Two words
#: may qualify what it holds ("THIS FILE CONTAINS MANDATORY INSTRUCTIONS FOR ALL AI
#: ASSISTANTS", "This document contains the coding guidelines").
_FILE_PREAMBLE = re.compile(
    r"^this (?:file|document) (?:provides|gives|contains|offers) (?:\w+ ){0,2}?(?:guidance"
    r"|instructions|context|rules|guidelines)\b(?:[^.!?]|[.!?](?=\S))*[.!]?$",
    re.I,
)
#: The same said without a verb, the file's one-line subtitle: "Project-specific
#: instructions for Claude Code.", "Guidelines for AI coding agents working in this
#: repository." (a few words, then what it holds and for which agent: no instruction).
_AGENT_PREAMBLE = re.compile(
    r"^(?:[\w-]+ ){0,3}(?:instructions|guidance|guidelines|rules|context|conventions)\s+"
    r"for\s+(?:(?:the|all|any)\s+)?(?:ai\s+)?(?:claude(?:\s+code)?|codex|copilot|cursor|"
    r"gemini(?:\s+cli)?|(?:coding\s+)?(?:agents?|assistants?)|llms?)(?:\s*\([^()]*\))?"
    r"(?:\s+(?:in|on|for|working\s+(?:on|in|with))\s+this\s+(?:repository|repo|project|"
    r"codebase|package))?\s*[.!]?$",
    re.I,
)
#: A line that only dates the file or numbers its version ("**Last Updated:** 2025-10-22",
#: "Version: 1.4.0", "_Last reviewed: March 2025_"): the file's stamp, not a rule.
_DATE_STAMP = re.compile(
    r"^[*_]*(?:last[ -]?(?:updated|modified|reviewed|verified|revised)|updated|created|"
    r"date|version|revision)[*_]*\s*:\s*[*_]*\s*"
    r"(?:\d{4}-\d{1,2}(?:-\d{1,2})?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|"
    r"(?:\d{1,2}\s+)?[A-Z][a-z]{2,8}\.?\s+(?:\d{1,2},?\s+)?\d{4}|v?\d+(?:\.\d+)+)"
    r"[*_]*\s*$",
    re.IGNORECASE,
)


#: A sentence that reports the absence of something looked for ("No Cursor rules found
#: (`.cursor/rules/`)", "No `.cursorrules` file was found.", "No Cursor rules or Copilot
#: instructions currently exist", "There is no `.github/copilot-instructions.md` at time
#: of writing.", as agents' `/init` writes them): nothing to obey. The report is a verb of
#: having looked (found, detected, configured, bundled), or a state dated to the writing
#: (currently, at time of writing, yet); only a place or a bracket may follow, so "No
#: `console.log` left in production code" and "There is no `Makefile`; do not create one"
#: stay rules, and so does "There are no tests" (no date: what the project is).
_ABSENCE = re.compile(
    r"^(?:there\s+(?:is|are)\s+(?:currently\s+)?)?no\s+(?P<what>[^;:—–]{1,200}?)\s+"
    r"(?:(?:(?:was|were|is|are|has\s+been|have\s+been)\s+)?(?:currently\s+)?"
    r"(?:found|detected|configured|bundled)|currently\s+(?:exists?|present|available|"
    r"defined|configured))\b(?P<tail>.*)$",
    re.IGNORECASE,
)
_DATED_ABSENCE = re.compile(
    r"^there\s+(?:is|are)\s+no\s+(?P<what>[^;:—–]{1,200}?),?\s+"
    r"(?:at\s+(?:the\s+)?time\s+of\s+writing|currently|yet|so\s+far)(?P<tail>)\s*[.!]?$",
    re.IGNORECASE,
)
#: What may follow a reported absence: a bracket, a place ("in `.cursor/rules/`
#: directory"), a date ("at time of writing"), nothing that instructs.
_ABSENCE_TAIL = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?(?:(?:in|at|under|within|inside|for)\s+[^;:,—–()]*?)?"
    r"\s*(?:\([^()]*\)\s*)?[.!]?$",
    re.IGNORECASE,
)


_INSTRUCTS = re.compile(
    r"\b(?:must|should|shall|never|always|please|unless|until|do\s+not|don't)\b", re.I
)


def _reports_absence(text: str) -> bool:
    """Whether every sentence of ``text`` only reports that something is absent
    (:data:`_ABSENCE`): a sentence that reports the absence of something is no rule."""
    plain = re.sub(r"[*_]+", "", " ".join(text.split())).strip()
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", plain)
    for sentence in sentences:
        found = _ABSENCE.match(sentence) or _DATED_ABSENCE.match(sentence)
        if found is None or not _ABSENCE_TAIL.match(found.group("tail")):
            return False
        if _INSTRUCTS.search(found.group("what")):
            return False  # "No tests are run unless CI is configured": said to someone
    return bool(sentences)


#: One field of a line of fields: a short label, a colon, a short value.
_FIELD = re.compile(r"^[*_]*[\w][\w .-]{0,30}?[*_]*\s*:\s*[*_]*\S.{0,60}$")


def _is_stamp_line(text: str) -> bool:
    """A line of "Label: value" fields joined by ``|`` or ``·``, one of them the file's
    stamp ("Version: 3.0 | Target: Solo embedded development | Last Updated: 2025-01-20"):
    what the file is, not a rule. Every field must be one: "Version: 2 | Never push to
    main" stays."""
    if "`" in text:
        return False  # "Build: `make` | Version: 1.2": a command is said there
    fields = [f.strip() for f in re.split(r"\s[|·•]\s", text)]
    return (
        len(fields) >= 2
        and all(_FIELD.match(f) and len(f.split()) <= 8 for f in fields)
        and any(_DATE_STAMP.match(f) for f in fields)
    )


def _unmark(text: str, *, quoted: bool = False) -> str:
    """Text without GitHub's markers: a task box (``- [ ] Update the changelog``) says
    nothing about the rule, and an alert (``> [!IMPORTANT]``, or ``> \\[!IMPORTANT]`` as
    mdformat writes it) is shown as its word; atop a quote (``quoted``), a callout of any
    type is (``> [!CRITICAL]`` reads "Critical: …")."""
    text = _TASK_BOX.sub("", text)
    text = (_CALLOUT if quoted else _ALERT).sub(lambda m: f"{m.group(1).capitalize()}: ", text)
    if "(mdc:" in text:
        # outside code spans (a link's text may be one: "[`src/db/`](mdc:src/db/)")
        spans = [m.span() for m in re.finditer(r"(`+)[^`]+?\1", text)]
        text = _MDC_LINK.sub(
            lambda m: m.group(0) if any(a < m.start() < b for a, b in spans) else _mdc_link(m),
            text,
        )
    if "#[[" in text:
        # Kiro steering's link to a file, ``#[[file:api/openapi.yaml]]``: the path, as
        # code (outside code spans: there the markup is what the rule shows)
        text = "".join(
            part if part.startswith("`") else _FILE_REFERENCE.sub(r"`\1`", part)
            for part in re.split(r"(`+[^`]*`+)", text)
        )
    # a rule wrapped in a tag on its own line ("<important>Do not …</important>"): the
    # tag is emphasis, not text (an HTML element such as <code> stays as written)
    wrapped = _WRAPPED.match(text)
    if wrapped and wrapped.group(1).lower() not in _HTML_NAMES:
        return wrapped.group(2).strip()
    return text


_WRAPPED = re.compile(r"^<([A-Za-z][\w.-]*)(?:\s[^>]*)?>((?:(?!</?\1[\s>]).)+)</\1\s*>$", re.DOTALL)


_OPEN_TAG = re.compile(r"^\s*<([A-Za-z][\w.-]*)(?:\s[^>]*)?>\s*$")
_HTML_NAMES = frozenset(
    [
        "div",
        "p",
        "span",
        "details",
        "summary",
        "table",
        "tr",
        "td",
        "th",
        "ul",
        "ol",
        "li",
        "pre",
        "code",
        "br",
        "hr",
        "img",
        "a",
        "b",
        "i",
        "em",
        "strong",
        "section",
        "article",
        "header",
        "footer",
        "nav",
        "picture",
        "source",
        "video",
        "audio",
    ]
)


def _list_title(text: str) -> str:
    """The section a paragraph names for the list under it, or ``""``.

    Only a paragraph that is entirely bold or italic ("**Testing**"): a lead-in sentence
    ending with a colon is part of the rule statement and stays a unit of its own.
    """
    plain = text.strip()
    bold = re.fullmatch(r"(\*\*|__|\*|_)(?P<t>[^*_]{1,60}?)\1:?", plain)
    return bold.group("t").strip().rstrip(":").strip() if bold else ""


_SENTENCE_END = re.compile(r"[.!?。！？][)\]\"'*_`」』）]*$")
#: A line that starts a new unit: a capital, a digit, or a Chinese or Japanese character
#: (those scripts have no capitals).
_STARTS_NEW = re.compile(r"^[*_`\"'(\[「『（]*[A-Z0-9\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _is_title_line(line: str) -> bool:
    plain = re.sub(r"[*_`#]+", "", line).strip()
    words = plain.split()
    return (
        0 < len(words) <= 6
        and plain[:1].isupper()
        and not re.search(r"[.!?,;:]$", plain)
        and not _LABEL.match(plain)
        and sum(w[:1].isupper() for w in words) >= max(1, len(words) // 2)
    )


#: Words a Title Case heading leaves in lower case ("Error Handling and Validation").
_MINOR_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "or",
        "per",
        "the",
        "to",
        "vs",
        "via",
        "with",
        "&",
    ]
)


def _one_line(node: SyntaxTreeNode) -> str:
    """A one-line paragraph's text without emphasis, code or heading marks; ``""`` when
    the paragraph runs over more than one line."""
    inline = [c for c in node.children if c.type == "inline"]
    if len(inline) != 1 or "\n" in inline[0].content.strip():
        return ""
    return re.sub(r"[*_`#]+", "", inline[0].content).strip()


def _plain_heading(node: SyntaxTreeNode) -> str:
    """The heading a one-line paragraph is, or ``""``: Title Case words, at most six, no
    sentence punctuation and no "label: value" colon ("Key Principles", "Python/FastAPI",
    "FastAPI-Specific Guidelines"; not "Follow these rules" or "Frontend: React")."""
    plain = _one_line(node)
    words = plain.split()
    if not 0 < len(words) <= 6 or not plain[:1].isupper() or re.search(r"[.!?,;:]", plain):
        return ""
    if all(w[:1].isupper() or not w[:1].isalpha() or w.lower() in _MINOR_WORDS for w in words):
        return plain
    return ""


def _list_label(node: SyntaxTreeNode) -> str:
    """The section a short one-line paragraph names for the list under it, or ``""``: at
    most five words, no sentence or label punctuation and nothing that instructs ("Local
    development", "Key files to know"; not "Always run these", "Never commit" or "Follow
    these rules", which stay rules). Title Case lines are :func:`_plain_heading`'s."""
    plain = _one_line(node)
    words = plain.split()
    if not 0 < len(words) <= 5 or not plain[:1].isupper() or re.search(r"[.!?;:()\[\]]", plain):
        return ""
    return "" if is_directive(plain) else plain


#: Bullets that are not Markdown list markers ("• Use tabs", "✅ Use named exports",
#: "→ Keep PRs small"): a line opened by one starts a new unit.
_BULLETS = frozenset("•·▪▫◦‣▸►▹→⇒➜➔➤✓✔✗✘☐☑☒")


#: Box-drawing characters ("│", "┌", "─", "├"): the lines of a drawn screen or diagram.
_BOX_DRAWING = re.compile("[\u2500-\u257f]")


def _drawing_start(text: str) -> int | None:
    """The line a drawing starts at in a paragraph's lines, or None: from the first line
    drawn with box-drawing characters on, two lines or more, nearly all of them drawn. A
    line of prose with one box character in it is no drawing."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _BOX_DRAWING.search(line)), None)
    if first is None:
        return None
    rest = [line for line in lines[first:] if line.strip()]
    drawn = sum(1 for line in rest if _BOX_DRAWING.search(line))
    return first if len(rest) >= 2 and drawn >= 0.8 * len(rest) else None


def _opens_with_bullet(line: str) -> bool:
    return bool(line) and (line[0] in _BULLETS or unicodedata.category(line[0]) == "So")


#: A line that opens with a label and a colon ("Backend: Node.js with Express",
#: "**Note:** …"): one statement of a "label: value" list, never a title.
_LABEL = re.compile(r"^[*_`]*[A-Z][\w./+&'’()-]*(?:\s+[\w./+&'’()-]+){0,3}[*_`]*:[*_`]*\s+\S")
#: A line the author set apart in bold: a whole statement ("**Always run `make check`
#: after changes.**") or a bold label with an aside before its colon ("**Tracing** (use
#: first):"). Hard-wrapped prose puts bold on a word or two, not on a whole line or label.
_SET_APART = re.compile(
    r"^\*\*[A-Z][^*]*\*\*[.:!]?$|^\*\*[A-Z][^*]{0,40}\*\*\s*\([^()]*\)\s*:(?:\s+\S.*)?$"
)
#: A Markdown hard line break ending a line: two spaces or a backslash.
_HARD_BREAK = re.compile(r"(?: {2,}|\\)$")


def _line_groups(lines: list[str], broken: list[bool] | None = None) -> list[tuple[int, int, bool]]:
    """Consecutive line ranges ``(first, last, is_title)`` that each hold one unit.

    ``broken[i]`` says line ``i`` ends with a hard line break: the author ended the
    line on purpose, so a new capitalised line after it starts a new unit.
    """
    if len(lines) < 2:
        return [(0, len(lines) - 1, False)] if lines else []
    groups: list[tuple[int, int, bool]] = []
    first = 0
    listed = _unmarked_list(lines)
    for i in range(len(lines) - 1):
        here, after = lines[i].strip(), lines[i + 1].strip()
        title = i == first and _is_title_line(here) and not (broken and broken[i])
        ended = (
            listed
            or _SENTENCE_END.search(here)
            or (broken is not None and broken[i] and not here.rstrip("*_`").endswith(":"))
        )
        if _ILLUSTRATES.match(after) and not title:
            continue  # "Example: `a/b` → `:b`" shows the line before it, not a rule alone
        set_apart = _SET_APART.match(after) and not _GOES_ON.search(here)
        # a label after a line that needs what follows ("disclosed through an" over
        # "`Assisted-by:` commit message trailer.") is the sentence going on, not a new
        # "label: value" line; after a colon ("Stack:") it is the first of a list
        label = _LABEL.match(after) and not (
            _GOES_ON.search(here) and not here.rstrip("*_`").endswith(":")
        )
        if _opens_with_bullet(after) or (
            _STARTS_NEW.match(after) and (title or ended or label or set_apart)
        ):
            groups.append((first, i, title))
            first = i + 1
    groups.append((first, len(lines) - 1, False))
    return groups


#: A line that only illustrates the statement before it ("Example: …", "e.g. …").
_ILLUSTRATES = re.compile(
    r"[*_]*(?:examples?[*_]*\s*:|e\.g\.|for (?:example|instance)\b)", re.IGNORECASE
)

#: How a line that goes on in the next one ends: a comma, colon, dash, opening bracket or
#: joining mark (Chinese and Japanese ones too), or a word that needs what follows.
_GOES_ON = re.compile(
    r"(?:[,;:(\[{/&+=–—-]|[，、：；（「『])[*_`]*$|\b(?:"
    + "|".join(sorted(_MINOR_WORDS - {"&"}))
    + r"|is|are|be|that|which|not|no|if|when|than|you|we|it|this|these|your|our)$",
    re.IGNORECASE,
)


def _unclosed(line: str) -> bool:
    """Does the line open a bracket or code span it does not close ("[NGI0")?"""
    pairs = (("(", ")"), ("[", "]"), ("{", "}"), ("（", "）"), ("「", "」"))
    return line.count("`") % 2 == 1 or any(line.count(a) > line.count(b) for a, b in pairs)


def _unmarked_list(lines: list[str]) -> bool:
    """Are these lines a list written without markers, one statement each ("Use pnpm",
    "Never commit secrets", one per line, no full stops)? Every line starts a statement
    and none ends as a line that goes on does (or with a full stop: an author who writes
    them ends statements with them); hard-wrapped prose fails one or the other on almost
    every line, and its lines all reach about the same width (60 to 120 characters) where
    the others are as long as what each says."""
    if len(lines) < 3:
        return False
    if not all(_STARTS_NEW.match(line.strip()) for line in lines):
        return False
    if any(_GOES_ON.search(line.strip()) or _SENTENCE_END.search(line.strip()) for line in lines):
        # a full stop anywhere: the author ends statements with them, and the lines
        # between are split at them already (a line without one goes on)
        return False
    if any(_unclosed(line) for line in lines[:-1]):
        return False
    widths = [len(line.rstrip()) for line in lines[:-1]]
    return not (min(widths) >= 0.75 * max(widths) and 60 <= max(widths) <= 120)


#: A line of prose: a capitalised word (after any list marker), then more words or nothing.
_PROSE_LINE = re.compile(
    r"^\s*(?:[-*+•]\s+|\d+[.)]\s+)?[A-Z][A-Za-z'’-]*[a-z][\w'’-]*(?:[,:]?\s+\S|[.:]?\s*$)"
)
#: What marks a line as code even when it starts with a capital: a statement or block
#: ending, an assignment, an arrow.
_CODE_LINE = re.compile(r"[;{}\[(]\s*$|\s=\s|=>|->|::")


#: Indented blocks inside indented blocks read as rules, at most this deep.
_MAX_INDENTS = 4


def _is_prose_block(node: SyntaxTreeNode) -> bool:
    """An indented (not fenced) code block whose lines are prose, not code."""
    if node.type != "code_block" or node.map is None:
        return False
    lines = [line for line in node.content.splitlines() if line.strip()]
    prose = [line for line in lines if _PROSE_LINE.match(line) and not _CODE_LINE.search(line)]
    return bool(lines) and len(prose) >= 0.8 * len(lines)


def _ends_in_colon(text: str) -> bool:
    """Does the line end in a colon (the full-width one of Chinese and Japanese too)?"""
    return re.sub(r"[*_`]+", "", text).strip().endswith((":", "："))


def _names_its_code(text: str) -> bool:
    """Do a list item's words only name what the code under it does, a label rather than a
    sentence ("Install dependencies", "Start dev server (http://localhost:3000)", "Python
    (if installed)")? Eight words at most, and no sentence end."""
    plain = re.sub(r"[*_`]+", "", text).strip()
    words = [w for w in plain.split() if re.search(r"\w", w)]
    return 0 < len(words) <= 8 and not re.search(r"[.!?。！？]$", plain)


def _is_lead_in(text: str) -> bool:
    """A short line ending in a colon that introduces what follows (a mark standing
    alone, the ``/`` of "v1 / _v1", is no word)."""
    plain = re.sub(r"[*_`]+", "", text).strip()
    words = [w for w in plain.split() if re.search(r"\w", w)]
    return _ends_in_colon(plain) and len(words) <= 10


#: a lead-in of who and a modal only ("Agents **must**:", "Contributors should not:",
#: "You MUST NOT:", "Don't:"): nothing is left of it without the list under it
_BARE_MODAL = re.compile(
    r"^(?:[A-Za-z][\w-]*\s+){0,2}?(?:(?:must|should|shall|may|can|will)(?:\s+(?:not|never|always))?"
    r"|mustn't|shouldn't|can't|cannot|won't|need\s+to|have\s+to|do|don't|do\s+not|never|always)"
    r"\s*:$",
    re.IGNORECASE,
)


def _bare_modal(text: str) -> bool:
    """Is the lead-in only who and a modal ("Agents **must**:", "You should not:")?"""
    return bool(_BARE_MODAL.match(_plain_lead(text)))


def _plain_lead(text: str) -> str:
    """A lead-in without emphasis or code marks, curly apostrophes or runs of spaces."""
    return " ".join(re.sub(r"[*_`]+", "", text).replace("\u2019", "'").split())


#: a lead-in that only points at the list under it ("**ALWAYS** follow these security
#: guidelines:", "Please adhere to the following conventions:"): its list is the rules
_POINTING_LEAD = re.compile(
    r"^(?:[A-Za-z][\w-]*\s+){0,3}?(?:follow|observe|obey|apply|respect|honou?r|"
    r"adhere\s+to|stick\s+to|keep\s+to|abide\s+by)\s+(?:these|those|the\s+following|"
    r"the\s+rules|the\s+guidelines)\b(?:\s+[\w-]+){0,3}?\s*(?:below\s*)?:$",
    re.IGNORECASE,
)


#: A sentence that only says the rules around it apply everywhere: "These apply to every
#: change, even if you don't load the matching skill:", "These rules apply to every change
#: in this repository, regardless of language." Its subject points at the rules, its
#: object is every one of a kind (one word: "every change that shows a number" and "all
#: official experiments" restrict, and stay rules), and what follows only stresses it.
_APPLY_EVERYWHERE = re.compile(
    r"^(?:these|the\s+following|the\s+rules\s+below)"
    r"(?:\s+(?:rules|conventions|guidelines|standards|principles|instructions|constraints|"
    r"requirements|policies))?\s+(?:apply|applies|hold)\s+to\s+(?:every|all|each|any)\s+\w+"
    r"(?:\s+(?:in|across|throughout)\s+(?:this|the)\s+(?:repo|repository|project|codebase|"
    r"code\s+base|monorepo|workspace))?"
    r"(?:\s*,?\s*(?:even\s+if\b[^.;:!?]*|without\s+exceptions?|with\s+no\s+exceptions?|"
    r"no\s+exceptions?|in\s+every\s+\w+|regardless\s+of\b[^.;:!?]*|not\s+just\b[^.;:!?]*))*"
    r"\s*[.:!]?$",
    re.IGNORECASE,
)


def _rules_apply_everywhere(text: str) -> bool:
    """Is the paragraph only "These apply to every change …" (no rule of its own: the
    rules it points at are, and it spent the constitution's budget)?"""
    return bool(_APPLY_EVERYWHERE.match(_plain_lead(text)))


def _points_at_list(text: str) -> bool:
    """Is the lead-in only "follow these (…) guidelines:", pointing at its items?"""
    return bool(_POINTING_LEAD.match(_plain_lead(text)))


def _is_label(text: str) -> bool:
    """A short item that names what its sub-items are but ends in no colon or sentence
    mark ("Run tests commands (in `e2e` directory)", "Source layout")."""
    plain = re.sub(r"[*_`]+", "", text).strip()
    return (
        bool(plain)
        and len(plain.split()) <= 10
        and not plain.endswith((":", "：", ".", "!", "?", ";", ","))
        and not re.search(r"[.!?]\s", plain)
    )


def _bare_spans(lists: list[SyntaxTreeNode]) -> bool:
    """Are all sub-items (two or more) one code span each, without nesting: commands or
    paths that say nothing without the item above them?"""
    if any(c.type in LISTS for lst in lists for item in lst.children for c in item.children):
        return False
    texts = _item_texts(lists)
    return len(texts) >= 2 and all(_BARE_SPAN.match(t.strip()) for t in texts)


def _forbids(lead: str) -> bool:
    """Is ``lead`` a line ending in a colon that forbids what the list under it names?

    Only its last sentence introduces the list ("Never use npx. Run binaries through one
    of:" introduces allowed ways); past ten words the prohibition must open that sentence
    ("Do not use these commands -- they are not portable:", "Agents must not run:"),
    not sit in a clause that explains ("… because summaries cannot be read via the API:").
    """
    if not _ends_in_colon(lead):
        return False
    plain = re.sub(r"[*_`]+", "", lead).strip()
    sentence = re.split(r"(?<=[.!?])\s+", plain)[-1]
    if polarity(sentence) != "never":
        return False
    if len(sentence.split()) <= 10:
        return True
    return polarity(" ".join(sentence.split()[:4])) == "never"


def _heading_text_of(inline: str) -> str:
    """A heading's inline text without emphasis marks (code spans kept)."""
    return strip_strong(inline).strip()


#: Strong emphasis as Markdown reads it: ``**`` anywhere, ``__`` only at a word's edge
#: (CommonMark: ``mcp__server__tool`` and ``snake__case`` are words, not emphasis).
_STRONG = re.compile(r"\*\*(.+?)\*\*|(?<![^\W_])__(?=\S)(.+?)(?<=\S)__(?![^\W_])")


def strip_strong(text: str) -> str:
    """``text`` without its strong-emphasis marks; an identifier with double underscores
    inside it (``mcp__peekaboo__analyze``) keeps them, as a Markdown reader shows it."""
    return _STRONG.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)


#: A title that asks what its list answers: "What counts as a breaking change",
#: "When to bump the version", "Which files are generated".
_ASKING = re.compile(r"^(?:what|which|when|who|how|why|where)\s+\S+\s+\S+", re.I)


def _asks(title: str) -> bool:
    """A title that is a question, with or without its question mark."""
    plain = re.sub(r"[*_`]+", "", title).strip()
    return _is_question(plain) or (bool(_ASKING.match(plain)) and len(plain.split()) <= 12)


def _is_question(text: str) -> bool:
    """A short question that the list below it answers ("When should X be written?")."""
    plain = re.sub(r"[*_`]+", "", text).strip()
    return plain.endswith("?") and "\n" not in plain and 2 <= len(plain.split()) <= 12


def _item_texts(lists: list[SyntaxTreeNode]) -> list[str]:
    out = []
    for lst in lists:
        for item in lst.children:
            out.append(" ".join(_inline_text(p) for p in item.children if p.type == "paragraph"))
    return [t for t in out if t]


_BARE_SPAN = re.compile(r"^`[^`]+`$")


#: A word of a command written as plain text: a lower-case name or path, or an option.
_PLAIN_COMMAND_WORD = re.compile(r"^(?:[a-z][\w./+:-]*|-{1,2}[a-z][\w-]*(?:=\S+)?)$")


def _plain_commands(texts: list[str]) -> set[str]:
    """The items of a list that are commands written without code marks ("terraform
    apply", "terraform destroy -auto-approve"): two to five lower-case words or options,
    no sentence, instructing nothing, and their first word (the program) shared by
    another such item, as the subcommands of one program are; a list of phrases
    ("global state") rarely repeats its first word, and "use X" instructs."""
    from charter.rules.commands import parse_command

    found = [
        t
        for t in texts
        if 2 <= len(t.split()) <= 5
        and all(_PLAIN_COMMAND_WORD.match(w) for w in t.split())
        and not is_directive(t)
        and not polarity(t)
        and parse_command(t) is not None
    ]
    firsts = [t.split()[0] for t in found]
    return {t for t in found if firsts.count(t.split()[0]) >= 2}


def _heads_items(item: SyntaxTreeNode, text: str) -> bool:
    """Is ``item`` a short plain label over its sub-items ("Maintainer (PI)", "Enforcement
    guidance", "Model (`models.py`)"): no colon, no sentence, nothing it instructs, no
    bold name (that one is the sub-items' section, see :func:`_item_title`), and no code
    of its own; a code span in it names the file or symbol the label is about, when a
    word of the label stands outside it (a lone `` `src/` `` is a name, not a label)?"""
    text = re.sub(r"\s*<!--.*?(?:-->|$)", "", text).strip()  # an exported line's citation
    words = re.sub(r"`[^`]*`", " ", text)
    if not text or _item_title(item) or re.search(r"[*_]{2}|`", words):
        return False
    if not re.search(r"[^\W\d_]", words):
        return False
    if any(c.type not in LISTS and c.type != "paragraph" for c in item.children):
        return False
    return _is_label(text) and not is_directive(text) and not polarity(text)


def _after_code(item: SyntaxTreeNode) -> list[SyntaxTreeNode]:
    """The paragraphs of a list item that come after a code block of the item (each
    introduces the code that follows it); none when the item holds no code before a
    paragraph."""
    out: list[SyntaxTreeNode] = []
    seen_code = False
    for child in item.children:
        if child.type in ("fence", "code_block"):
            seen_code = True
        elif child.type == "paragraph" and seen_code and child.map is not None:
            out.append(child)
    return out


def _nested(item: SyntaxTreeNode) -> bool:
    return any(c.type in LISTS for c in item.children)


def _item_title(item: SyntaxTreeNode) -> str:
    """The name a list item gives the items it heads ("- **Module system**"), or ``""``:
    an item that is one short bold or italic label, no sentence, that instructs nothing
    ("- **Never push to main**" is a rule) and holds no code."""
    own = [c for c in item.children if c.type not in LISTS]
    if len(own) != 1 or own[0].type != "paragraph":
        return ""
    text = _inline_text(own[0]).strip()
    title = _list_title(text)
    if not title or text.rstrip("*_").endswith(":") or not _is_label(title):
        return ""
    return "" if is_directive(title) or polarity(title) else title


def _one_word_items(node: SyntaxTreeNode, *, spans: bool = False) -> bool:
    """A list whose items are one word or code span each (paths, names), not nested;
    with ``spans``, each a code span of any length (a command) or one word."""
    items = node.children
    texts = _item_texts([node])
    return (
        len(texts) == len(items)
        and all(word_count(t) == 1 or (spans and _BARE_SPAN.match(t.strip())) for t in texts)
        and not any(c.type in LISTS for item in items for c in item.children)
    )


def _bare_commands(node: SyntaxTreeNode) -> bool:
    """A list whose items are each one code span of two words or more (``git push``,
    ``make test``), not nested: commands, which say nothing without their lead-in."""
    texts = _item_texts([node])
    return _one_word_items(node, spans=True) and all(
        _BARE_SPAN.match(t.strip()) and " " in t.strip() for t in texts
    )


def _no_instructions(lists: list[SyntaxTreeNode]) -> bool:
    """Sub-items none of which instructs on its own ("Frontmatter `title` and `summary`",
    "Shared model components -> `models/common/`"): they complete their lead-in, so the
    lead-in with its items is the rule, as a reader labels it."""
    from charter.rules.annotate import is_directive

    for lst in lists:
        for item in lst.children:
            if any(c.type in LISTS for c in item.children):
                return False
    texts = _item_texts(lists)
    return bool(texts) and not any(is_directive(t) for t in texts)


#: An item that is one quotation from its first character to its last.
_QUOTATION = re.compile(r'^(?:"[^"]+"|“[^”]+”|‘[^’]+’)[.!?]?$')


def _quoted_items(node: SyntaxTreeNode) -> bool:
    """Are all of a list's items (two or more) quotations, each whole?"""
    texts = _item_texts([node])
    return len(texts) >= 2 and all(_QUOTATION.match(t.strip()) for t in texts)


def _mostly_named(node: SyntaxTreeNode) -> bool:
    """Do most of a list's items name things rather than instruct ("License", "Package
    statement"; a noun phrase may open with a verb's word: "Import statements")?"""
    from charter.rules.annotate import is_directive

    texts = _item_texts([node])
    if any(re.search(r":\s", t) for t in texts):
        return False  # "`feat/name`: new features": a term and what it means, each one
    return bool(texts) and 2 * sum(is_directive(t) for t in texts) < len(texts)


def _repeats(node: SyntaxTreeNode) -> bool:
    """Does a list hold the same item twice (a layout's "blank line" between groups)?"""
    texts = [t.strip().lower() for t in _item_texts([node])]
    return len(set(texts)) < len(texts) and not any(re.search(r":\s", t) for t in texts)


#: A heading of one verb whose list names what it acts on ("## Remove", "## Keep").
_OBJECT_VERBS = frozenset(
    ["remove", "delete", "drop", "keep", "prefer", "use", "include", "exclude", "avoid"]
)


def _names_action(text: str) -> bool:
    """Does an item open with a verb's -ing form ("Modifying production manifests",
    "**Dropping** tables", after an adverb or a "not": "Manually editing generated
    files", "Not validating region input"): an action named, not an instruction?"""
    words = [re.sub(r"[^\w]", "", w).lower() for w in re.sub(r"[*_]+", "", text).split()[:2]]
    if len(words) == 2 and (words[0] == "not" or (len(words[0]) >= 4 and words[0].endswith("ly"))):
        words = words[1:]
    first = words[0] if words else ""
    return len(first) >= 6 and first.endswith("ing") and first.isalpha()


#: A checklist's heading of what to do or not: "What to Test", "What NOT to Commit",
#: "Things not to do"
_WHAT_TO = re.compile(
    r"^\W*(?:what\s+(not\s+)?|things\s+(not\s+))to\s+[A-Za-z][\w-]*\W*$", re.IGNORECASE
)


#: A heading that asks when to do something ("When to Verify Dark Mode", "When to run
#: the migrations"): its list gives the times, each completing it.
_WHEN_TO = re.compile(r"^\W*when\s+to\s+[A-Za-z][\w-]*(?:\s+[\w./-]+){0,4}\W*$", re.IGNORECASE)


def _what_to(text: str) -> str:
    """``"not"`` for a heading "What NOT to X", ``"to"`` for "What to X", else ``""``."""
    match = _WHAT_TO.match(re.sub(r"[*_`]+", "", text).strip())
    if match is None:
        return ""
    return "not" if match.group(1) or match.group(2) else "to"


def _names_actions(node: SyntaxTreeNode) -> bool:
    """Do most of a list's items name actions without instructing (see
    :func:`_names_action`)?"""
    from charter.rules.annotate import is_directive

    texts = _item_texts([node])
    actions = [t for t in texts if _names_action(t) and not is_directive(t, strong=True)]
    return bool(texts) and 2 * len(actions) >= len(texts)


#: A sub-item that shows an example of the rule above it: "*Bad*: `// Added function`",
#: "Good: `vim.opt.number = true`", "*Example*: `w-8 h-8`", "e.g. `parseISO`".
_EXAMPLE_ITEM = re.compile(
    r"^[\W_]*(?:bad|good|wrong|right|correct|incorrect|better|worse|before|after|"
    r"examples?|e\.g\.|i\.e\.)[*_]*\s*(?:\([^()]*\)\s*)?[:：]|^[\W_]*e\.g\.",
    re.IGNORECASE,
)


def _examples_only(lists: list[SyntaxTreeNode]) -> bool:
    """Are these sub-items all examples of the item above them ("*Bad*: `…`" and "*Good*:
    `…`" under "Comments must describe *current state*")? Alone, each was a rule that said
    nothing ("*Bad*: `// Added function to calculate damage`" retrieved without its rule);
    they belong to the rule they illustrate."""
    for lst in lists:
        for item in lst.children:
            if any(c.type in LISTS for c in item.children):
                return False
    texts = _item_texts(lists)
    return bool(texts) and all(_EXAMPLE_ITEM.match(t) for t in texts)


def _plain_items(lists: list[SyntaxTreeNode]) -> bool:
    """Sub-items that name things rather than instruct (short, no nesting of their own)."""
    for lst in lists:
        for item in lst.children:
            if any(c.type in LISTS for c in item.children):
                return False
    texts = _item_texts(lists)
    return bool(texts) and all(len(t.split()) <= 6 for t in texts)


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_DIVIDER = re.compile(r"^\s*={3,}\s+\S.*?\brules\s+={3,}\s*$", re.I)
#: A closing tag alone on its line; prompt templates name sections in words
#: (``</SIMULATION ANALYSIS>``), which no HTML tag does.
_CLOSE_TAG = re.compile(r"^\s*</([A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*)*)\s*>\s*$")
#: An opening tag of such words alone on its line: ``<SIMULATION ANALYSIS>`` (an HTML
#: tag's attributes have ``=`` or quotes).
_WORDS_TAG = re.compile(r"^\s*<([A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*)+)\s*>\s*$")
#: A tag around code or an example, alone on its line: ``<code-snippet lang="php">``,
#: ``<example>``, ``<example type="invalid">``, ``<bad-example>``.
_REGION_OPEN = re.compile(r"^(\s*)<(code-snippet|[\w-]*example[\w-]*)(\s[^>]*)?>\s*$", re.I)
#: The fence a region becomes: longer than any fence an example holds, so it never closes
#: early.
_REGION_FENCE = "~" * 10


#: Fence languages of a whole rule file pasted inside one fence (from a chat answer).
_WRAPPER_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(?:markdown|md|mdc)\s*$", re.I)


def _unfence_whole(lines: list[str]) -> list[str]:
    """``lines`` with a fence around the whole file blanked: a rule file pasted from a
    chat answer is one ```markdown block, which Markdown reads as code and no rule
    shows. A fenced example inside a file (text before or after it) is left alone."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 3:
        return lines
    first, last = filled[0], filled[-1]
    opening = _WRAPPER_FENCE.match(lines[first])
    if not opening:
        return lines
    mark = opening.group(1)
    closing = lines[last].strip()
    if not (closing.startswith(mark[0] * len(mark)) and set(closing) == {mark[0]}):
        return lines
    # fences inside pair up (```ts … ```); a bare fence with none open would close the
    # wrapper early: then it is not one block around the file
    inner = ""
    for line in lines[first + 1 : last]:
        fence = _FENCE_LINE.match(line)
        if not fence:
            continue
        bare = line.strip() == fence.group(1)
        if inner:
            if bare and fence.group(1)[0] == inner[0] and len(fence.group(1)) >= len(inner):
                inner = ""
        elif bare and fence.group(1)[0] == mark[0] and len(fence.group(1)) >= len(mark):
            return lines
        else:
            inner = fence.group(1)
    return [*lines[:first], "", *lines[first + 1 : last], "", *lines[last + 1 :]]


def _unwrap(body: str) -> str:
    """``body`` with the lines that only frame rules made plain, line for line.

    Generated guideline files (Laravel Boost's ``<laravel-boost-guidelines>``) join
    several files with ``=== name rules ===`` lines and write code as ``<code-snippet
    lang="php">…</code-snippet>``; prompt-style files put examples in ``<example>`` tags,
    bad ones too (``<example type="invalid">``). Markdown reads all of them as text: the
    divider became a rule, an example's lines became rules (a bad example, the opposite of
    the rule), and a snippet or a wrapper's closing tag right under a list item became
    part of that item's text. Dividers and closing wrapper tags become blank lines,
    snippets and examples fenced code (attached to the rule above, as any code); lines
    inside fenced code are left alone. The line count never changes, so spans still
    point into the file.
    """
    return _unwrap_regions(body)[0]


def _unwrap_regions(body: str) -> tuple[str, list[tuple[int, int, str]]]:
    """:func:`_unwrap`, and the sections tags make: ``(open, close, name)``, 0-based
    lines of a custom tag alone on its line (``<general_guidelines>``, ``<rules>``) and
    its closing tag, both blanked. Markdown saw only the paragraph right under the tag
    (and nothing at all when the name has ``_``: no HTML tag has one), so the tag's name
    was lost for the rest and an underscored tag was shown as part of a rule."""
    lines = _unfence_whole(body.split("\n"))
    regions: list[tuple[int, int, str]] = []
    closers: dict[str, list[int]] = {}  # tag name -> lines that close it, in order
    for number, line in enumerate(lines):
        tag = _CLOSE_TAG.match(line)
        if tag:
            closers.setdefault(" ".join(tag.group(1).split()).lower(), []).append(number)
    fence = ""
    region_end = -1
    for i, line in enumerate(lines):
        if i <= region_end:
            continue
        opened = _FENCE_LINE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        region = _REGION_OPEN.match(line)
        ends = closers.get(region.group(2).lower(), []) if region else []
        after = bisect.bisect_right(ends, i)
        end = ends[after] if after < len(ends) else -1
        closing = _CLOSE_TAG.match(line)
        if region and end > 0:
            lang = re.search(r"\blang=[\"']?([\w+-]+)", region.group(3) or "")
            lines[i] = f"{region.group(1)}{_REGION_FENCE}{lang.group(1) if lang else ''}"
            lines[end] = f"{region.group(1)}{_REGION_FENCE}"
            region_end = end
        elif _DIVIDER.match(line) or (closing and closing.group(1).lower() not in _HTML_NAMES):
            lines[i] = ""
        else:
            opening = _OPEN_TAG.match(line)
            name = opening.group(1) if opening else ""
            words = _WORDS_TAG.match(line)
            if words and " ".join(words.group(1).split()).lower() in closers:
                # ``<MAKE CHANGES>`` … ``</MAKE CHANGES>``: the words are its name
                name = " ".join(words.group(1).split())
            ends = closers.get(name.lower(), []) if name.lower() not in _HTML_NAMES else []
            after = bisect.bisect_right(ends, i)
            if after < len(ends):
                regions.append((i, ends[after], name))
                lines[i] = ""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if filled:
        # a tag around the whole file (``<laravel-boost-guidelines>``) wraps, like a fence
        regions = [r for r in regions if not (r[0] < filled[0] and r[1] > filled[-1])]
    return "\n".join(lines), regions


#: A line's leading run of blanks that holds a space Markdown does not count as one (a
#: no-break space, U+2000..U+200A, U+202F, U+205F, U+3000).
_UNICODE_INDENT = re.compile(
    r"^[ \t]*[\u00a0\u2000-\u200a\u202f\u205f\u3000][ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]*"
)

_UNICODE_SPACE = re.compile(r"[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def _unicode_indents(body: str) -> str:
    """``body`` with each line's leading blanks removed where they hold a no-break or
    other Unicode space (text pasted from a web page or chat). CommonMark reads such a
    space as text, so every such line continued the paragraph before it: a file of
    headings and bullets indented that way read as a handful of run-on rules ("bun run
    typecheck Code Style and Structure - Write concise …"). The line reads as the author
    laid it out, unindented; a line of such spaces only is blank. Lines are kept, so
    every citation still points at its own line."""
    if not _UNICODE_SPACE.search(body):
        return body
    return "\n".join(_UNICODE_INDENT.sub("", line) for line in body.split("\n"))


#: A shell comment written outside a fence: one ``#``, a space, words (Markdown reads it
#: as a heading of the first level).
_BARE_COMMENT = re.compile(r"^# (?=\S)(?!#)")
#: A command run by its path (``./qa/bin/functional parsing``).
_PATH_COMMAND = re.compile(r"^\.{0,2}/?(?:[\w.-]+/)+[\w.-]+(?:\s|$)")
#: What tells a line of commands from a line of prose: an option, a path, a variable.
_SHELL_MARK = re.compile(r"(?:^|\s)--?[A-Za-z]|/|=|\\$")


def _fence_bare_commands(lines: list[str]) -> list[str]:
    """``lines`` with a shell script written without its fence made one, line for line.

    Some files (a `CRUSH.md`, a README pasted without its fences) list commands as they
    would sit in a script: "# Run all unit tests" over ``env PYTHONPATH=src pytest …``,
    outside any fence. Markdown reads each comment as a heading of the first level, so the
    commands were rules without their purpose and every section after them was filed under
    the last comment ("Lint & format > Code Style"). A run of two or more comments, each
    directly over commands (:data:`_BARE_COMMAND`, one at least with an option, a path or
    a variable), between blank lines, is read as the fence it lost: the blank line before
    it opens a ``bash`` fence and the one after it closes the fence."""
    out = list(lines)
    fence = ""
    i = 0
    while i < len(out):
        opened = _FENCE_LINE.match(out[i])
        if fence:
            if (
                opened
                and out[i].strip() == fence[0] * len(out[i].strip())
                and len(out[i].strip()) >= len(fence)
            ):
                fence = ""
            i += 1
            continue
        if opened:
            fence = opened.group(1)
            i += 1
            continue
        end = _bare_script_end(out, i) if i > 0 and not out[i - 1].strip() else None
        if end is None:
            i += 1
            continue
        out[i - 1] = "```bash"
        if end < len(out):
            out[end] = "```"
        i = end + 1
    return out


def _bare_script_end(lines: list[str], start: int) -> int | None:
    """The blank line that ends a bare script starting at ``start`` (see
    :func:`_fence_bare_commands`; ``len(lines)`` when the file ends with it), or None."""
    pairs = 0
    marked = False
    end = start
    i = start
    while i < len(lines) and _BARE_COMMENT.match(lines[i]):
        j = i + 1
        commands = 0
        shell = False
        while j < len(lines) and lines[j].strip():
            line = lines[j]
            if _BARE_COMMENT.match(line) or not _bare_command_line(line):
                commands = 0  # prose or a heading under the comment: the run ends before
                break
            shell = shell or bool(_SHELL_MARK.search(line))
            commands += 1
            j += 1
            while line.rstrip().endswith("\\") and j < len(lines):  # a continued command
                line = lines[j]
                j += 1
        if not commands or (j < len(lines) and lines[j].strip()):
            break
        pairs += 1
        marked = marked or shell
        end = j
        while j < len(lines) and not lines[j].strip():
            j += 1
        i = j
    return end if pairs >= 2 and marked else None


def _bare_command_line(line: str) -> bool:
    """A line that reads as one command (:data:`_BARE_COMMAND`), not code or prose."""
    words = line.split()
    return (
        bool(_BARE_COMMAND.match(line) or _PATH_COMMAND.match(line))
        and words[0] not in _CODE_WORDS
        and not (len(words) > 1 and words[1] == "=")
        and not line.rstrip().endswith((".", ":", ","))
        and "`" not in line
    )


def split_blocks(
    body: str, line_offset: int = 0
) -> tuple[list[Block], list[tuple[int, int, list[str]]]]:
    """Blocks of ``body`` (Markdown after any front matter) and the heading lines.

    ``line_offset`` is the number of source lines before ``body`` so spans point into
    the original file.
    """
    body, regions = _unwrap_regions(_unicode_indents(body))
    if "\n# " in body:
        body = "\n".join(_fence_bare_commands(body.split("\n")))
    tree = _tree(body)
    walker = _Walker(body, line_offset)
    walker.tags = [(start, end, name, []) for start, end, name in regions]
    walker.walk(tree.children)
    return walker.blocks, walker.heading_lines
