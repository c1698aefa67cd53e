"""Files the user told this session not to edit, read from their own words.

"Never touch the backend/app/alembic folder, I write the migrations myself": recovery
gives the sentence back after a compaction, but an agent may still reach for the folder.
The PreToolUse guardrails (``[session.guardrails] user_edits``, ``ask`` by default: the
user may since have changed their mind) stop a file tool's write there, quoting the user.

The words are read exactly like a rule file's (:mod:`charter.rules.edits`: a negation,
a verb of editing, a path, no condition), from the prompts (and the words typed when
rejecting a tool call) as each is journaled on the active track (the sessions it resumed
included), so the guardrail before a file tool reads only the prompts so marked. Users
seldom put a path in backticks, so a bare token with a ``/`` in it
(``backend/app/alembic``, ``src/gen/``) is read as one, and so is a bare file name: the
file at the project's root (``platformio.ini``), else that name anywhere in the tree
(``dispatch.lua`` is ``**/dispatch.lua``); an absolute path inside the project is read
relative to it. "Leave Cargo.toml alone" (untouched, as is) and "hands off src/gen/"
forbid the edit too, with no negation and no verb of editing.

The user may change their mind: a later sentence that asks for an edit there ("now update
backend/app/alembic/env.py", "you can edit the alembic folder again": an editing verb
governs the path, no negation, no condition) lifts the earlier words for what it names,
the whole folder or the one file (``permits`` in the event).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: A bare path in prose: words joined by ``/`` (not part of a URL or a code span).
_BARE_PATH = re.compile(
    r"(?<![`\w/:.])((?:\.{0,2}/)?[\w.@-]+(?:/[\w.@*-]+)+/?|[\w.@-]+/)(?![`\w/])"
)
#: A bare file name in prose (``platformio.ini``, ``package.json``): the file at the
#: project's root, else the name anywhere below it ("Node.js" then matches no edit).
_BARE_NAME = re.compile(
    r"(?<![`\w/:.@-])([\w@-][\w.@-]*\.[A-Za-z][A-Za-z0-9]{0,9})(?![`\w/@-]|\.\w)"
)
#: A capitalised word with no extension (``Makefile``, ``Dockerfile``, ``LICENSE``): a
#: file's name only when the project has a file of that name at its root.
_BARE_ROOT_FILE = re.compile(r"(?<![`\w/:.@-])([A-Z][\w-]*)(?![`\w/@-]|\.\w)")
#: Sentences longer than this are pasted text, not an instruction.
_MAX_SENTENCE = 400


@dataclass(frozen=True)
class UserForbiddenEdit:
    pattern: str  # project-relative; a folder ends with /
    words: str  # the user's sentence
    time: str
    #: paths under ``pattern`` the user later asked to edit after all
    allowed: tuple[str, ...] = ()

    def matches(self, rel: str) -> bool:
        from charter.rules.edits import _path_matches

        rel = rel.strip("/")
        if any(_path_matches(rel, p) for p in self.allowed):
            return False
        return _path_matches(rel, self.pattern)


def _relative(token: str, root: str) -> str:
    if root and (token == root or token.startswith(root.rstrip("/") + "/")):
        return token[len(root.rstrip("/")) :].lstrip("/") or "."
    return token


def forbidden_in(text: str, root: str = "") -> list[tuple[str, str]]:
    """(path pattern, sentence) for each path ``text`` forbids editing."""
    from charter.rules.edits import EDIT_READING, parse_path
    from charter.rules.negation import forbidden_spans

    out: list[tuple[str, str]] = []
    for said, sentence in _quoted_sentences(text, root):
        for span in forbidden_spans(sentence, EDIT_READING) + _left_alone(sentence):
            pattern = parse_path(_relative(span, root))
            if pattern is not None:
                out.append((_folder_if_dir(pattern, root), said))
    return out


def _left_alone(sentence: str) -> list[str]:
    """The paths the sentence tells the agent to leave alone, read as a rule's are
    (:func:`charter.rules.edits.left_alone_spans`)."""
    from charter.rules.edits import left_alone_spans

    return left_alone_spans(sentence)


def _quoted_sentences(text: str, root: str) -> list[tuple[str, str]]:
    """The sentences of ``text`` short enough to be an instruction, as the user wrote
    them and with bare paths in backticks (relative to ``root``) for the rule reader."""
    from charter.rules.negation import SPAN, clauses

    out = []
    for start, end in clauses(text):
        sentence = text[start:end].strip()
        if not sentence or len(sentence) > _MAX_SENTENCE:
            continue
        outside = [m.span() for m in SPAN.finditer(sentence)]

        def quote(m: re.Match[str], outside: list[tuple[int, int]] = outside) -> str:
            if any(a <= m.start() < b for a, b in outside):
                return m.group(0)
            return f"`{_relative(m.group(1), root)}`"

        def quote_name(m: re.Match[str], outside: list[tuple[int, int]] = outside) -> str:
            if any(a <= m.start() < b for a, b in outside):
                return m.group(0)
            if (Path(root) / m.group(1)).is_file():
                return f"`{m.group(1)}`"
            # "don't touch dispatch.lua" of a file deeper in the tree: the name wherever
            # it is (an edit is checked against it, so "Node.js" matches no edit)
            return f"`**/{m.group(1)}`"

        quoted = _BARE_PATH.sub(quote, sentence)
        if root:
            outside = [m.span() for m in SPAN.finditer(quoted)]
            quoted = _BARE_NAME.sub(quote_name, quoted)
            outside = [m.span() for m in SPAN.finditer(quoted)]

            def quote_root_file(m: re.Match[str], outside: list[tuple[int, int]] = outside) -> str:
                inside = any(a <= m.start() < b for a, b in outside)
                if inside or not (Path(root) / m.group(1)).is_file():
                    return m.group(0)
                return f"`./{m.group(1)}`"  # "./": a path although it has no extension

            quoted = _BARE_ROOT_FILE.sub(quote_root_file, quoted)
        out.append((" ".join(sentence.split()), quoted))
    return out


def _folder_if_dir(pattern: str, root: str) -> str:
    if root and (Path(root) / pattern).is_dir() and not pattern.endswith(("/", "*")):
        return pattern + "/"
    return pattern


def permitted_in(text: str, root: str = "") -> list[tuple[str, str]]:
    """(path pattern, sentence) for each path ``text`` asks or allows the agent to edit:
    an editing verb governs it across the same bridge words a prohibition's cue crosses
    ("update the `x/`", "you can edit anything under `x/`"), and its clause holds no
    negation and no condition ("before you touch `x/`, ask me" permits nothing)."""
    from charter.rules.edits import EDIT_READING, parse_path
    from charter.rules.negation import SPAN, clause_start, negated

    out: list[tuple[str, str]] = []
    for said, sentence in _quoted_sentences(text, root):
        for m in SPAN.finditer(sentence):
            before = sentence[: m.start()]
            clause = before[clause_start(before) :]
            words = re.findall(r"[a-z']+", clause.lower())
            crossed = set()
            for word in reversed(words):
                if word not in EDIT_READING.bridge:
                    break
                crossed.add(word)
            if not crossed & EDIT_READING.verbs or negated(sentence):
                continue
            if EDIT_READING.conditions & set(words):
                continue
            pattern = parse_path(_relative(m.group(1), root))
            if pattern is not None:
                out.append((_folder_if_dir(pattern, root), said))
    return out


def _lift(found: list[UserForbiddenEdit], permitted: str) -> list[UserForbiddenEdit]:
    """``found`` after the user asked to edit ``permitted``: a prohibition the permission
    covers whole is gone; one that covers the permitted path keeps the rest."""
    from charter.rules.edits import _path_matches

    out = []
    for edit in found:
        if _path_matches(edit.pattern.strip("/*"), permitted) or (
            edit.pattern.strip("/") == permitted.strip("/")
        ):
            continue
        if edit.matches(permitted.strip("/")) or _path_matches(permitted.strip("/"), edit.pattern):
            edit = UserForbiddenEdit(
                edit.pattern, edit.words, edit.time, (*edit.allowed, permitted)
            )
        out.append(edit)
    return out


def user_forbidden_edits(session: object, session_id: str, track: str) -> list[UserForbiddenEdit]:
    """What the user of ``session_id`` (and the sessions it resumed) forbade editing on
    ``track`` and has not since asked to edit, oldest first. The prompts were read when
    they were captured (``forbids`` and ``permits`` in the event,
    :mod:`charter.session.capture`): this runs before every file tool, so it reads only
    the rows so marked."""
    from charter.session.journal import resumed_chain
    from charter.session.service import Session, session_key

    assert isinstance(session, Session)
    if not session_id:
        return []
    journal = session.journal
    chain = resumed_chain(session.journal, track, session_key(session_id))

    def marked(key: str) -> list[Any]:
        return [
            e
            for sid in chain
            for e in journal.events(
                session=sid, track=track, kinds=("prompt", "instruction"), having=key
            )
        ]

    forbidding = marked("forbids")
    if not forbidding:
        return []  # most sessions: one indexed read, nothing to lift
    found: list[UserForbiddenEdit] = []
    for e in sorted(forbidding + marked("permits"), key=lambda e: e.seq):
        for pair in e.data.get("forbids") or []:
            if isinstance(pair, list) and len(pair) == 2:
                found.append(UserForbiddenEdit(str(pair[0]), str(pair[1]), e.time))
        for pair in e.data.get("permits") or []:
            if isinstance(pair, list) and len(pair) == 2 and found:
                found = _lift(found, str(pair[0]))
    return found
