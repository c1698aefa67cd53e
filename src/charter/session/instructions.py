"""The user's standing instructions: what they said that must survive compaction.

Users type instructions into prompts ("use pnpm", "don't touch the API", "textual, not
curses") between pasted logs, code and IDE context. Compaction summaries lose them; the
hand-off here keeps them verbatim where short and bounded where long:

1. Pasted material is removed: fenced code, IDE tags, and lines that read as machine
   output (log/trace prefixes, mostly symbols or digits, very long unbroken tokens).
2. A short remainder is kept whole. A long one is split into sentences, and those that
   carry a directive (a modal, a negation, an imperative marker from the small generic
   lists below) are kept in their order; the lead sentence always stays, since users
   state the task's frame first.
3. Newest first, no repeats, within the caller's budget.

The marker lists are generic grammar words of the languages users most often write
prompts in (English, Spanish, Portuguese, French, German, Chinese, Japanese); they name
no project content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"```.*?(```|\Z)", re.DOTALL)
_TAGGED = re.compile(
    r"<(ide_selection|ide_opened_file|system-reminder|local-command-stdout|bash-stdout|"
    r"bash-stderr|command-message)>.*?(</\1>|\Z)",
    re.DOTALL,
)
_COMMAND = re.compile(
    r"<command-name>(.*?)</command-name>\s*(?:<command-args>(.*?)</command-args>)?", re.DOTALL
)
_LOG_LINE = re.compile(
    r"^\s*(\d{1,4}[-/:.]\d{1,2}[-/:.]\d{1,4}|\[\d|\d+\s*\||at\s+\S+\(|File \"|Traceback|"
    r"[A-Z]{3,}\s*[:\]|]|\$ |>>> |>\s|\+\+\+|---|@@|#\d+\s)"
)
_SENTENCE = re.compile(r"(?<=[.!?。！？;；])\s+|(?<=[。！？；])|\n+")
_DIRECTIVE = re.compile(
    r"\b(must|never|always|only|don'?t|do not|should|shouldn'?t|avoid|prefer|instead|"
    r"make sure|keep|use|without|not|no|please|"
    r"debe|nunca|siempre|solo|sólo|usa|usar|utiliza|evita|sin|no|en vez|en lugar|"
    r"deve|nunca|sempre|apenas|não|"
    r"doit|jamais|toujours|seulement|utilise|pas|"
    r"muss|niemals|immer|nur|nicht|kein)\b|"
    r"不要|别|必须|务必|一定|只|只能|不能|不用|禁止|尽量|请|用|改为|保持|避免|"
    r"しない|しないで|必ず|だけ|使って|禁止",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Instruction:
    text: str
    via: str  # prompt | feedback
    time: str


def _is_machine_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return True
    if _LOG_LINE.match(stripped):
        return True
    letters = sum(1 for c in stripped if c.isalpha())
    if len(stripped) >= 12 and letters / len(stripped) < 0.45:
        return True
    longest = max((len(tok) for tok in stripped.split()), default=0)
    return longest > 60 and not any("\u3000" <= c <= "\u9fff" for c in stripped)


def clean(text: str) -> str:
    """The user's own words in a prompt: no fences, IDE context or machine output."""
    text = _COMMAND.sub(lambda m: f"{m.group(1).strip()} {(m.group(2) or '').strip()}", text)
    text = _TAGGED.sub(" ", text)
    text = _FENCE.sub(" ", text)
    kept = [line.strip() for line in text.splitlines() if not _is_machine_line(line)]
    return "\n".join(kept)


def condense(text: str, max_chars: int) -> str:
    """Verbatim when short; else the lead sentence plus the directive sentences."""
    flat = " ".join(text.split())
    if len(flat) <= max_chars:
        return flat
    sentences = [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
    if not sentences:
        return flat[:max_chars]
    chosen = [sentences[0]] + [s for s in sentences[1:] if _DIRECTIVE.search(s)]
    out: list[str] = []
    used = 0
    for sentence in chosen:
        sentence = " ".join(sentence.split())
        if len(sentence) > max_chars:
            sentence = sentence[: max_chars - 1].rstrip() + "…"
        if used + len(sentence) > max_chars * 2:
            break
        out.append(sentence)
        used += len(sentence) + 1
    return " ".join(out)


def standing(raw: list[tuple[str, str, str]], max_chars: int) -> list[Instruction]:
    """(text, via, time) in arrival order → instructions newest first, condensed, unique."""
    out: list[Instruction] = []
    seen: set[str] = set()
    for text, via, time in reversed(raw):
        body = condense(clean(text), max_chars) if via == "prompt" else " ".join(text.split())
        key = body.casefold()
        if not body or key in seen:
            continue
        seen.add(key)
        out.append(Instruction(body, via, time))
    return out
