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
(``backend/app/alembic``, ``src/gen/``) is read as one; an absolute path inside the
project is read relative to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: A bare path in prose: words joined by ``/`` (not part of a URL or a code span).
_BARE_PATH = re.compile(
    r"(?<![`\w/:.])((?:\.{0,2}/)?[\w.@-]+(?:/[\w.@*-]+)+/?|[\w.@-]+/)(?![`\w/])"
)
#: Sentences longer than this are pasted text, not an instruction.
_MAX_SENTENCE = 400


@dataclass(frozen=True)
class UserForbiddenEdit:
    pattern: str  # project-relative; a folder ends with /
    words: str  # the user's sentence
    time: str

    def matches(self, rel: str) -> bool:
        from charter.rules.edits import _path_matches

        return _path_matches(rel.strip("/"), self.pattern)


def _relative(token: str, root: str) -> str:
    if root and (token == root or token.startswith(root.rstrip("/") + "/")):
        return token[len(root.rstrip("/")) :].lstrip("/") or "."
    return token


def forbidden_in(text: str, root: str = "") -> list[tuple[str, str]]:
    """(path pattern, sentence) for each path ``text`` forbids editing."""
    from charter.rules.edits import EDIT_READING, parse_path
    from charter.rules.negation import SPAN, clauses, forbidden_spans

    out: list[tuple[str, str]] = []
    for start, end in clauses(text):
        sentence = text[start:end].strip()
        if not sentence or len(sentence) > _MAX_SENTENCE:
            continue
        outside = [m.span() for m in SPAN.finditer(sentence)]

        def quote(m: re.Match[str], outside: list[tuple[int, int]] = outside) -> str:
            if any(a <= m.start() < b for a, b in outside):
                return m.group(0)
            return f"`{_relative(m.group(1), root)}`"

        quoted = _BARE_PATH.sub(quote, sentence)
        for span in forbidden_spans(quoted, EDIT_READING):
            pattern = parse_path(_relative(span, root))
            if pattern is not None:
                if (Path(root) / pattern).is_dir() and not pattern.endswith(("/", "*")):
                    pattern += "/"
                out.append((pattern, " ".join(sentence.split())))
    return out


def user_forbidden_edits(session: object, session_id: str, track: str) -> list[UserForbiddenEdit]:
    """What the user of ``session_id`` (and the sessions it resumed) forbade editing on
    ``track``, oldest first. The prompts were read when they were captured
    (``forbids`` in the event, :mod:`charter.session.capture`): this runs before every
    file tool, so it reads only the rows so marked."""
    from charter.session.journal import resumed_chain
    from charter.session.service import Session, session_key

    assert isinstance(session, Session)
    if not session_id:
        return []
    journal = session.journal
    chain = resumed_chain(session.journal, track, session_key(session_id))
    events = sorted(
        (
            e
            for sid in chain
            for e in journal.events(
                session=sid, track=track, kinds=("prompt", "instruction"), having="forbids"
            )
        ),
        key=lambda e: e.seq,
    )
    found: list[UserForbiddenEdit] = []
    for e in events:
        for pair in e.data.get("forbids") or []:
            if isinstance(pair, list) and len(pair) == 2:
                found.append(UserForbiddenEdit(str(pair[0]), str(pair[1]), e.time))
    return found
