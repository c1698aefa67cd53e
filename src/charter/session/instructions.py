"""The user's standing instructions: what they said that must survive compaction.

Users type instructions into prompts ("use pnpm", "don't touch the API", "textual, not
curses") between pasted logs, tracebacks, diagrams and code. Compaction summaries lose
them; recovery gives them back, chosen like this:

1. **The user's own words.** IDE context and command echoes are removed; each line is
   stripped of decoration (box drawing, table bars, bullets, emphasis) and dropped when it
   reads as machine output: log and trace prefixes, shell prompts, mostly symbols or
   digits, lines mostly made of long unbroken tokens (one URL or path in a sentence is a
   word of it; several are a traceback), code, runs of markup tags, and every line a
   process tagged (the same bracketed tag starting three lines or more). Words typed on
   the same line as pasted output are kept. Fenced blocks are judged line by line, more
   strictly, because users paste specs there as well as logs; one whose lines mostly
   read as output (two or more log or trace lines among them) is output whole. Where
   something was left out, the words on either side are joined with " … ".
   A prompt of conversational words only ("continue", "yes", "ok, go ahead") is no
   instruction: it nudged the agent in the moment.
2. **Units.** A short prompt (``instruction_max_chars``) is one unit, kept verbatim. A
   long one is split into its lines and sentences.
3. **Choice within the budget.** Units are ranked by how directive they are (a modal, a
   negation, an imperative marker: the small generic lists below), short prompts count as
   directive, then by recency; the best are taken until the budget is spent, and shown
   grouped by prompt, newest first, each prompt's units in their original order.

The marker lists are generic grammar words of the languages prompts are most often
written in (English, Spanish, Portuguese, French, German, Chinese, Japanese); they name
no project content.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

_TAGGED = re.compile(
    r"<(ide_selection|ide_opened_file|system-reminder|local-command-stdout|bash-stdout|"
    r"bash-stderr|command-message|command-args)>.*?(</\1>|\Z)",
    re.DOTALL,
)
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
#: Box drawing, block elements, table bars and emphasis: layout, not words.
_DECORATION = re.compile(r"[\u2500-\u259f\u25a0-\u25ff|*]+")
#: A code span: its bars and stars are the user's words ("`grep -E 'a|b'`").
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
#: Stars of a path's glob, not emphasis: beside a slash (``data/*.rda``, ``src/**``) or
#: a single one before a file's extension with no word before it (``*.lock``; bold
#: ``**.env**`` is emphasis).
_GLOB_STAR = re.compile(r"(?<=/)\*+|\*+(?=/)|(?<![\w*])\*(?!\*)(?=\.\w)")


def _undecorated(line: str) -> str:
    """``line`` with its layout (:data:`_DECORATION`) blanked, outside code spans and
    globs: "never edit data/*.rda by hand" was restored as "data/ .rda"."""
    parts = _CODE_SPAN.split(line)
    for i in range(0, len(parts), 2):
        out, last = [], 0
        for m in _GLOB_STAR.finditer(parts[i]):
            start, end = m.span()
            out.append(_DECORATION.sub(" ", parts[i][last:start]))
            out.append(parts[i][start:end])
            last = end
        out.append(_DECORATION.sub(" ", parts[i][last:]))
        parts[i] = "".join(out)
    return "".join(parts)


_LOG_PREFIX = re.compile(
    r"^(\d{1,4}[-/:.]\d{1,2}[-/:.]\d{1,4}|\[\d|\d+\s*[|:]\s|at\s+\S+[(:]|File \"|Traceback|"
    r"(INFO|DEBUG|WARN|WARNING|ERROR|FATAL|TRACE|CRITICAL)\b[:\s\]]|\$\s|>>>\s|\+\+\+|---|@@|"
    r"\S+@\S+:\S*\$|[A-Za-z]:\\|/\S+/\S+:\d+|npm (ERR|error|warn)|error(\[\w+\])?:|warning:)",
    re.IGNORECASE,
)
_CODE_LINE = re.compile(
    r"[;{}]\s*$|^\s*(def|class|import|from|return|const|let|var|function|if|for|while|"
    r"export|async|await|public|private|fn|use|package)\b.*[(:{=;]|=>|==|!=|\)\s*:\s*$"
)
#: A token this long is a hash, a blob or a path rather than a word.
_LONG_TOKEN = 40
#: Three or more markup tags in a row (a pasted view, template or page): code, even when
#: the user's own words surround it on the same line.
_MARKUP_RUN = re.compile(r"(?:(?:<!--.{0,500}?-->|<[^<>\n]{1,500}>)\s*){3,}")
#: A URL or a file path: long, but a word of the sentence it sits in.
_LOCATOR = re.compile(r"[\W]*(?:\w+://|[A-Za-z]:[\\/]|~?\.{0,2}/)\S*[\\/]\S*[\\/]")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")
_CLAUSE = re.compile(r"(?<=[,:，、：])\s*")
#: Where quoted or bracketed output ends and starts inside a log line.
_OUTPUT_QUOTES = re.compile(r"[\"()\[\]]")
_DIRECTIVE = re.compile(
    r"\b(must|never|always|only|don'?t|do not|should|shouldn'?t|avoid|prefer|instead|"
    r"make sure|keep|use|without|not|no|please|need|needs|want|all|every|each|any|"
    r"debe|debes|nunca|siempre|solo|sólo|usa|usar|utiliza|evita|sin|no|en vez|en lugar|"
    r"tienes que|hay que|quiero|necesito|todas?|todos|cada|deve|sempre|apenas|não|"
    r"doit|jamais|toujours|seulement|tous|toutes|chaque|jede[rs]?|alle|"
    r"utilise|pas|muss|niemals|immer|nur|nicht|kein)\b|"
    r"不要|别|必须|务必|一定|只|只能|不能|不用|不需要|禁止|尽量|请|改为|改成|保持|避免|需要|希望|所有|每个|都|"
    r"しない|しないで|必ず|だけ|使って|禁止",
    re.IGNORECASE,
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class Instruction:
    text: str
    via: str  # prompt | feedback
    time: str


def _human(line: str, *, fenced: bool) -> str:
    """The line's words without decoration, or "" when it reads as machine output."""
    core = " ".join(_undecorated(line).split()).strip(" -•·:")
    if not core:
        return ""
    if _LOG_PREFIX.match(line.strip()) or _LOG_PREFIX.match(core):
        # the user's words typed on after (or between) pasted output on the same line:
        # the longest stretch between quotes and brackets that reads as prose
        spans = [" ".join(s.split()) for s in _OUTPUT_QUOTES.split(core)]
        spans = [
            s for s in spans if len(s) >= 40 and len(s.split()) >= 5 and not _LOG_PREFIX.match(s)
        ]
        if not spans:
            return ""
        return _human(max(spans, key=len), fenced=fenced)
    letters = sum(1 for c in core if c.isalpha())
    if letters < 2 or letters / len(core) < (0.6 if fenced else 0.45):
        return ""
    # a line mostly made of long unbroken tokens (hashes, base64, minified code) is
    # output; one URL or path inside a sentence is not
    # (several: a traceback's or a listing's paths)
    long_toks = [tok for tok in core.split() if len(tok) > _LONG_TOKEN]
    locators = [tok for tok in long_toks if _LOCATOR.match(tok)]
    long_chars = sum(len(tok) for tok in long_toks if len(locators) > 1 or tok not in locators)
    if 2 * long_chars > len(core.replace(" ", "")) and not _CJK.search(core):
        return ""
    if _CODE_LINE.search(line):
        return ""
    if fenced and len(core.split()) < 3 and not _CJK.search(core):
        return ""
    return core


#: A bracketed tag a process writes before its lines: ``(APIServer pid=36443)``,
#: ``[worker-2]``, ``web_1 |``.
_PROCESS_TAG = re.compile(r"\([^()\n]{1,60}\)|\[[^\[\]\n]{1,60}\]|\b[\w.-]{1,40}\s+\|")
#: Lines a tag must start before it counts as a process's, not the user's.
_TAG_REPEATS = 3
#: Untagged lines between two tagged ones that are still the same output (wrapped lines).
_TAG_GAP = 3


def _without_process_output(lines: list[str]) -> list[str]:
    """``lines`` less the output of a process the user pasted.

    A process that logs tags every line it writes (its name, pid, container); a person
    typing does not start three lines with the same bracketed tag. Such lines go, with
    the wrapped lines between them, and a line that runs on into a tag keeps only the
    words before it ("look at what the client says: (APIServer pid=7) File …").
    """
    starts: dict[str, int] = {}
    for line in lines:
        m = _PROCESS_TAG.match(line.strip())
        if m:
            starts[m.group(0)] = starts.get(m.group(0), 0) + 1
    tags = {tag for tag, n in starts.items() if n >= _TAG_REPEATS}
    if not tags:
        return lines
    tagged = [i for i, line in enumerate(lines) if any(line.strip().startswith(t) for t in tags)]
    drop = set(tagged)
    for a, b in itertools.pairwise(tagged):
        if b - a - 1 <= _TAG_GAP:
            drop.update(range(a + 1, b))
    out = []
    for i, line in enumerate(lines):
        if i in drop:
            continue
        cut = min((line.find(t) for t in tags if t in line), default=-1)
        out.append(line[:cut] if cut >= 0 else line)
    return out


def _marked_lines(text: str) -> list[tuple[str, bool]]:
    """The user's own lines of a prompt, each with whether something was left out just
    before it (pasted output, code): the words on either side of it are not one
    sentence. A fenced block whose lines mostly read as output (two or more of them log
    or trace lines) is output as a whole: its stray line ("Process `X` terminated with
    an error exit status (1)") is the log's, not the user's."""
    text = _COMMAND.sub(lambda m: f"{m.group(1).strip()} ", text)
    text = _TAGGED.sub(" ", text)
    text = _MARKUP_RUN.sub(" … ", text)
    out: list[tuple[str, bool]] = []
    gap = False  # a line was left out since the last one kept
    block: list[tuple[str, bool]] = []  # the open fenced block's kept lines
    dropped = logs = 0
    fenced = False
    for line in [*_without_process_output(text.splitlines()), None]:
        if line is None or line.strip().startswith("```"):
            if fenced:  # the block closes (or the prompt ends inside it)
                if logs >= 2 and len(block) < dropped:
                    gap, block = True, []
                out.extend(block)
                block, dropped, logs = [], 0, 0
            fenced = not fenced
            continue
        kept = _human(line, fenced=fenced)
        if kept:
            (block if fenced else out).append((kept, gap))
            gap = False
        elif line.strip():
            gap = True
            dropped += fenced
            logs += fenced and bool(_LOG_PREFIX.match(line.strip()))
    return out


def human_lines(text: str) -> list[str]:
    """The lines of a prompt that are the user's own words."""
    return [line for line, _ in _marked_lines(text)]


def clean(text: str) -> str:
    return "\n".join(human_lines(text))


@dataclass
class _Unit:
    prompt: int  # 0 = newest
    order: int
    text: str
    score: float
    via: str
    time: str


def _reply_words() -> frozenset[str]:
    from charter.rules.gate import CONTENT_FREE

    return frozenset(w for reply in CONTENT_FREE for w in re.findall(r"[a-z']+", reply))


def content_free(text: str) -> bool:
    """A prompt of conversational words only ("continue", "yes", "ok, go ahead"): it
    answers or nudges the agent in the moment and asks for nothing that outlives it (the
    prompt hook adds no rules for it either). Another script's letters are left in: the
    word list is English."""
    if any(ch.isalpha() and not ch.isascii() for ch in text):
        return False
    words = re.findall(r"[a-z']+", text.lower())
    return bool(words) and set(words) <= _reply_words()


def _units(index: int, text: str, via: str, time: str, short: int) -> list[_Unit]:
    if via != "prompt":
        body = " ".join(text.split())
        return [_Unit(index, 0, body, 3.0, via, time)] if body else []
    marked = _marked_lines(text)
    whole = " ".join(line for line, _ in marked)
    if not whole or content_free(whole):
        return []
    if len(whole) <= short:
        joined = "".join(
            (" … " if gap else " ") + line if n else line for n, (line, gap) in enumerate(marked)
        )
        return [_Unit(index, 0, joined, 3.0, via, time)]
    units: list[_Unit] = []
    order = 0
    for line, gap in marked:
        order += 1 if gap and units else 0  # left-out output between: joined with " … "
        for sentence in _pieces(line, short):
            if len(sentence) < 4:
                continue
            score = 2.0 if _DIRECTIVE.search(sentence) else 0.0
            score += 1.0 if not units else 0.0  # the lead sentence frames the request
            units.append(_Unit(index, order, sentence, score, via, time))
            order += 1
    return units


def _pieces(line: str, short: int) -> list[str]:
    """Sentences of at most ``short`` characters (long ones split at clauses)."""
    out: list[str] = []
    for sentence in _SENTENCE.split(line):
        sentence = sentence.strip()
        if len(sentence) <= short:
            out.append(sentence)
            continue
        current = ""
        for clause in _CLAUSE.split(sentence):
            if current and len(current) + len(clause) + 1 > short:
                out.append(current)
                current = ""
            current = f"{current} {clause}".strip() if current else clause
            while len(current) > short:
                out.append(current[:short])
                current = current[short:]
        if current:
            out.append(current)
    return out


def standing(
    raw: list[tuple[str, str, str]],
    short_chars: int,
    budget_tokens: int,
    count: Callable[[list[str]], list[int]],
) -> list[Instruction]:
    """(text, via, time) in arrival order → the instructions to keep, newest first."""
    units: list[_Unit] = []
    seen: set[str] = set()
    for index, (text, via, time) in enumerate(reversed(raw)):
        for unit in _units(index, text, via, time, short_chars):
            key = unit.text.casefold()
            if key in seen:
                continue
            seen.add(key)
            units.append(unit)
    if not units:
        return []
    costs = count([u.text for u in units])
    # Round robin over prompts, newest first: every prompt gives its best unit before any
    # prompt gives its second, so one long pasted document cannot crowd out the rest.
    queues: dict[int, list[int]] = {}
    for i in sorted(
        range(len(units)), key=lambda i: (units[i].prompt, -units[i].score, units[i].order)
    ):
        queues.setdefault(units[i].prompt, []).append(i)
    chosen: set[int] = set()
    left = budget_tokens
    depth = 0
    while any(len(q) > depth for q in queues.values()):
        for prompt in sorted(queues):
            queue = queues[prompt]
            if depth < len(queue) and costs[queue[depth]] + 2 <= left:
                chosen.add(queue[depth])
                left -= costs[queue[depth]] + 2
        depth += 1
    by_prompt: dict[int, list[_Unit]] = {}
    for i in sorted(chosen, key=lambda i: (units[i].prompt, units[i].order)):
        by_prompt.setdefault(units[i].prompt, []).append(units[i])
    out = []
    for prompt in sorted(by_prompt):
        parts = by_prompt[prompt]
        text = parts[0].text
        for previous, unit in itertools.pairwise(parts):
            text += (" " if unit.order == previous.order + 1 else " … ") + unit.text
        out.append(Instruction(text, parts[0].via, parts[0].time))
    return out
