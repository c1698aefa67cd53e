"""How rules are shown to agents: short lines grouped under the file they cite.

Every rule keeps its exact citation, ``path:Lstart-Lend``, but the path is written once
per file (``In CLAUDE.md:``) and each rule carries only its line range (``L13`` for one
line, ``L13-L15`` for several). A full path on every line cost 6-16 tokens a rule, as
much as a short rule itself: written once, the same budget holds more rules.

Long rules are cut at a sentence (or word) boundary once they pass ``max_tokens``; the
citation stays, so the agent can open the full rule. This keeps one verbose rule from
crowding several relevant ones out of the budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from charter.rules.model import Rule
from charter.tokens import count_many, count_tokens

#: A sentence ends at . ! or ? before a space, but not after an abbreviation that goes on
#: ("Do not use Django signals (e.g. `post_save`)" was cut to "… signals (e.g. …").
_SENTENCE = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bcf\.)(?<=[.!?])\s+", re.I)


def compact(text: str, max_tokens: int) -> str:
    """``text`` cut to about ``max_tokens`` tokens at a sentence end, else at a word (not
    inside a parenthesis it opens), with " …". A cut that would leave a label without
    what it labels ("Migration: …" for a path too long to fit) or a word or two keeps the
    text whole when it is at most twice the limit: such a line says less than nothing."""
    if max_tokens <= 0 or count_tokens(text) <= max_tokens:
        return text
    out = _longest(_SENTENCE.split(text), max_tokens)
    if not out:
        words = text.split()
        out = _longest(words, max_tokens - 1)
        if not out and words and _UNSPACED.search(words[0]):
            out = _leading_chars(text, max_tokens - 1)
        out = _outside_code(out)
        if out.count("(") > out.count(")"):
            # a cut inside a parenthesis ("… branched from (e.g. …"): before it
            out = _outside_code(out[: out.rindex("(")].rstrip(" ,;:—-")) or out
        # whether the cut says little is judged as before a prohibition's object is added
        plain = _with_its_object(out, words, 2 * max_tokens, prohibitions=False)
        out = _with_its_object(out, words, 2 * max_tokens)
        if out == " ".join(words):
            return text
        said_little = plain.endswith(":") or len(plain.split()) <= 2
        if said_little and count_tokens(text) <= 2 * max_tokens:
            return text
        out = _into_unspaced(out, words, max_tokens - 1)
    return out + " …"


#: Scripts written without spaces between words (Chinese, Japanese, Thai).
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Punctuation inside a Chinese or Japanese sentence, after which a cut reads cleanly; not
#: a colon, after which a cut leaves a label without what it labels ("Token依赖接口：如果…",
#: "Token-dependent endpoints: if …", was shown as "Token依赖接口： …").
_CJK_STOPS = "。！？；，、"


def _leading_chars(text: str, max_tokens: int) -> str:
    """The longest start of ``text`` within ``max_tokens``, cut between characters: a
    text whose first word alone is over the limit (Chinese and Japanese write a sentence
    without spaces, "回答時統一使用臺灣的繁體中文") was cut to nothing and shown as " …"
    (a URL or code span is never cut inside: the caller leaves those whole).
    Back at the last CJK punctuation in it when that keeps at least half."""
    if max_tokens <= 0:
        return ""
    lo, hi = 0, len(text)
    while lo < hi:  # a longer start never has fewer tokens
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    out = text[:lo]
    stop = max(out.rfind(c) for c in _CJK_STOPS)
    if stop + 1 >= len(out) // 2 and stop > 0:
        out = out[: stop + 1]
    return out.rstrip()


def _into_unspaced(out: str, words: list[str], max_tokens: int) -> str:
    """``out``, the first of ``words``, and as much of the next word as fits in
    ``max_tokens`` when that word is Chinese or Japanese: a clause of those scripts is one
    word between spaces, so a cut at words dropped all of it ("终端命令执行: 禁止使用阻塞终端
    等待用户输入的命令，…" was shown as its label, "终端命令执行: …"; "❌ 禁止在 `src`
    根目录直接创建业务模块文件", forbidding the root of `src`, as "❌ 禁止在 `src` …", all of
    `src`). The characters taken go back to the last CJK punctuation in them when that
    keeps half of them; a code span in the word is not cut into."""
    kept = out.split()
    if not kept or kept != words[: len(kept)] or len(kept) >= len(words):
        return out
    nxt = words[len(kept)]
    if not _UNSPACED.search(nxt[:1]):
        return out
    room = _leading_chars(f"{out} {nxt}", max_tokens)
    taken = room[len(out) + 1 :] if room.startswith(f"{out} ") else ""
    stop = max(taken.rfind(c) for c in _CJK_STOPS)
    if stop > 0 and stop + 1 >= len(taken) // 2:
        taken = taken[: stop + 1]
    taken = _outside_code(taken) if "`" in taken else taken
    return f"{out} {taken}" if taken and taken.count("`") % 2 == 0 else out


def _outside_code(out: str) -> str:
    """``out`` before the code span it was cut inside ("map to `(StatusCode," was shown as
    "map to ` …", a code span left open), else as it is."""
    if out.count("`") % 2 == 0:
        return out
    return out[: out.rindex("`")].rstrip(" ,;:—-") or out


#: words after which a cut leaves the sentence pointing at nothing ("can be found in …")
_LEADS_TO = frozenset({"at", "by", "from", "in", "into", "of", "on", "see", "to", "under", "via"})
#: verbs of the acts a rule forbids, whose object a cut must not drop when it is a code
#: span ("Never run or suggest …" said nothing of `npx prisma migrate reset`)
_ACTS_ON = frozenset(
    {"run", "use", "execute", "call", "invoke", "edit", "modify", "change", "touch", "delete",
     "remove", "commit", "push", "install", "suggest", "import", "write"}
)  # fmt: skip
#: a word the cut cannot shorten: a Markdown link, a URL, a code span
_WHOLE_WORD = re.compile(r"^(?:\[[^\]]*\]\([^)\s]*\)|https?://\S+|`[^`]+`)[.,;:)]*$")


def _with_its_object(out: str, words: list[str], limit: int, prohibitions: bool = True) -> str:
    """``out`` (the first words of ``words``) with the next word too when ``out`` ends on a
    label ("Where:") or a word that leads to what follows ("found in", "see") and that
    word is a link, URL or code span, within ``limit`` tokens. A link too long for the cut
    was dropped whole: "Where: [setup](docs/setup.md) | Use for: …" was shown as "Where:
    …", and "helpers can be found in [Dockerfile](Dockerfile)" as "… found in …"."""
    from charter.rules.negation import negated

    kept = out.split()
    if not kept or len(kept) >= len(words):
        return out
    # a prohibition cut before what it forbids says nothing: "Never run or suggest …",
    # "Do NOT suggest or run …" (of `npx prisma migrate reset`); its object is shown
    # (``prohibitions``), after the colon the cut left out ("run: `npx …`")
    forbids = prohibitions and negated(out)
    if forbids and kept[:-1] == words[: len(kept) - 1]:
        label = words[len(kept) - 1]
        if label != kept[-1] and label.rstrip(":：") == kept[-1]:
            kept[-1], out = label, f"{out}{label[len(kept[-1]) :]}"
    if kept != words[: len(kept)]:
        return out
    last = kept[-1].lower()
    if not (last.endswith((":", "：")) or last in _LEADS_TO or (forbids and last in _ACTS_ON)):
        return out
    nxt = words[len(kept)]
    if forbids and nxt.startswith("`") and nxt.count("`") == 1:
        # a code span of several words (`npx prisma migrate reset`): all of it
        end = next((i for i in range(len(kept) + 1, len(words)) if "`" in words[i]), None)
        if end is None:
            return out
        nxt = " ".join(words[len(kept) : end + 1])
    if not _WHOLE_WORD.match(nxt):
        return out
    longer = f"{out} {nxt}"
    return longer if count_tokens(longer) <= limit else out


def compact_keeping_directive(text: str, max_tokens: int) -> str:
    """:func:`compact`, but a cut that drops the sentence saying what is forbidden
    ("never", "do not", …) from an opening that forbids nothing ("Set `A` and `B` in the
    environment. Keep keys in a local file; never commit them. …" was shown as its first
    sentence) shows that sentence after the opening: "Set `A` and `B` in the environment.
    … Keep keys in a local file; never commit them. …". A rule's line is often all the
    agent reads of it (always loaded, or retrieved for a task); the line is then at most
    twice ``max_tokens``. A cut inside the opening shows the forbidding sentence alone
    ("… Do not change logic without maintainer approval."), within ``max_tokens``."""
    from charter.rules.annotate import polarity

    out = compact(text, max_tokens)
    kept = out.removesuffix(" …")
    if out == text or polarity(kept) == "never":
        return out
    whole = kept.endswith(tuple(".!?"))
    sentences = _SENTENCE.split(text)
    for pos, sentence in enumerate(sentences):
        before = " ".join(sentences[:pos])
        if polarity(sentence) != "never" or not pos:
            continue
        shown = compact(sentence, max_tokens)
        more = pos + 1 < len(sentences) and not shown.endswith(" …")
        if whole and before.startswith(kept):
            # right after the opening, nothing between them was left out
            gap = " " if before == kept else " … "
            return f"{kept}{gap}{shown}" + (" …" if more else "")
        if (
            not whole
            and before.startswith(kept.rstrip(" ,;:—-"))
            and polarity(shown.removesuffix(" …")) == "never"
        ):
            # the cut fell inside the opening: half a sentence that forbids nothing is
            # worth less than the sentence that forbids, shown alone
            return f"… {shown}" + (" …" if more else "")
        return out
    return out


def _longest(parts: list[str], max_tokens: int) -> str:
    """The longest run of ``parts`` from the start, joined by spaces, within
    ``max_tokens``. Every prefix is counted in one batch (one call into the tokenizer per
    cut, not one per part: compiling 500 rules cuts most of them twice, whole and brief).
    A prefix never has more tokens than a longer one (cl100k splits at spaces before
    merging), so the first prefix over the limit ends the run; and as every part is at
    least a token, no more than ``max_tokens`` parts can fit."""
    prefixes = [" ".join(parts[: n + 1]).strip() for n in range(min(len(parts), max_tokens + 1))]
    out = ""
    for prefix, tokens in zip(prefixes, count_many(prefixes), strict=True):
        if tokens > max_tokens:
            break
        out = prefix
    return out


def line_range(rule: Rule) -> str:
    """``L13`` for a one-line rule, ``L13-L15`` for a longer one."""
    src = rule.source
    if src.line_start == src.line_end:
        return f"L{src.line_start}"
    return f"L{src.line_start}-L{src.line_end}"


def render_rule_line(
    rule: Rule, max_tokens: int = 0, *, inline: bool = False, brief: str | None = None
) -> str:
    """``- [ID] text (Lstart-Lend)``, to sit under its file's header (``file_header``),
    or ``- [ID] text (path:Lstart-Lend)`` when ``inline``; content-derived ids are left
    out (noise). ``brief`` is the text already cut to ``max_tokens`` (the compile stores
    it for path-scoped rules, so a tool hook never loads the tokenizer)."""
    prefix = "" if rule.id.startswith("r-") else f"[{rule.id}] "
    cite = rule.source.cite() if inline else line_range(rule)
    # the cut keeps the sentence that says what is forbidden: a retrieved line is all the
    # agent reads of a rule as well ("Location tracking is critical. Do not change logic
    # without explicit maintainer approval." was shown, cut to a small file's brief, as
    # "Location tracking is critical. …")
    text = compact_keeping_directive(rule.text, max_tokens) if brief is None else brief
    return f"- {prefix}{text} ({cite})"


def render_pinned_line(rule: Rule, max_tokens: int = 0, *, inline: bool = False) -> str:
    """:func:`render_rule_line` for an always-loaded rule (cut the same way)."""
    return render_rule_line(rule, max_tokens, inline=inline)


def file_header(path: str) -> str:
    return f"In {path}:"


def render_grouped(
    rules: Iterable[Rule], line: Callable[[Rule], str], *, inline: bool = False
) -> str:
    """Rules under one header per file: files in the order they first appear (the
    caller's order: best first), rules in file order within each, so a list's items
    read in their document order. ``inline`` lines cite their own path: no headers,
    the caller's order."""
    if inline:
        return "\n".join(line(r) for r in rules)
    groups: dict[str, list[Rule]] = {}
    for rule in rules:
        groups.setdefault(rule.source.path, []).append(rule)
    out: list[str] = []
    for path, members in groups.items():
        out.append(file_header(path))
        members.sort(key=lambda r: (r.source.line_start, r.source.line_end, r.id))
        out.extend(line(r) for r in members)
    return "\n".join(out)


_HEADER = re.compile(r"In (.+):")
_RANGE = re.compile(r"^- .*\(L(\d+)(?:-L(\d+))?\)$")
_INLINE = re.compile(r"^- .*\((\S+):L(\d+)-L(\d+)\)$")


def citations(text: str) -> list[str]:
    """The full ``path:Lstart-Lend`` citation of every rule line in rendered ``text``,
    in order: what a reader gets from the file header and the line's range."""
    out: list[str] = []
    path = ""
    for line in text.splitlines():
        header = _HEADER.fullmatch(line)
        if header:
            path = header.group(1)
            continue
        whole = _INLINE.match(line)
        if whole:
            out.append(f"{whole.group(1)}:L{whole.group(2)}-L{whole.group(3)}")
            continue
        found = _RANGE.match(line)
        if path and found:
            start = found.group(1)
            out.append(f"{path}:L{start}-L{found.group(2) or start}")
    return out
