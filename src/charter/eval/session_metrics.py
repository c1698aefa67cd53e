"""Label semantics and metrics of the session replay benchmark (shared/bench/session).

Pure functions: given a point's labels and what Charter gave back at that point (the
recover JSON and the visible text), say what was recovered. The definitions follow the
benchmark README so the numbers are comparable with its scorer:

- plan fidelity: the recovered plan equals the labelled one, in order, on content and
  status after whitespace normalisation (the unordered variant compares multisets);
- edited files: found in ``edited_files`` (relative, or absolute under the project) or
  named in the visible text;
- test runs: same whitespace-normalised command and same outcome (a label ``unknown``
  matches any outcome; a recovered command ending in ``…`` matches as a prefix of at
  least 40 characters);
- user constraints: every key term occurs in the visible text, case-insensitively and
  whitespace-normalised, with ASCII word edges kept (``Rich`` does not match ``enriched``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

ELLIPSIS = "\u2026"
MIN_PREFIX = 40
_WS = re.compile(r"\s+")
_WORD = "A-Za-z0-9_"


def norm_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


def tokens_of(text: str) -> int:
    """The benchmark's token estimate: characters / 4, rounded up."""
    return (len(text) + 3) // 4


# -- plan ------------------------------------------------------------------------------


def _plan_items(plan: Any) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    if not isinstance(plan, list):
        return items
    for item in plan:
        if isinstance(item, dict):
            items.append(
                (norm_ws(str(item.get("content", ""))), norm_ws(str(item.get("status", ""))))
            )
    return items


def plan_scores(labelled: Any, recovered: Any) -> tuple[int | None, int | None]:
    """(ordered, unordered) fidelity as 1/0; (None, None) when nothing is labelled."""
    gold = _plan_items(labelled)
    if not gold:
        return None, None
    got = _plan_items(recovered)
    return int(got == gold), int(sorted(got) == sorted(gold))


# -- edited files ----------------------------------------------------------------------


def _norm_file(path: str) -> str:
    path = path.replace("\\", "/").strip()
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/")


def _names_file(text: str, rel: str) -> bool:
    """Whether ``text`` names ``rel`` as a whole path (not as part of a longer name)."""
    pattern = rf"(?<![\w.-]){re.escape(rel)}(?![\w/-])(?!\.\w)"
    return re.search(pattern, text) is not None


def edited_found(labelled: Sequence[str], recovered: Any, visible: str, project: str) -> list[bool]:
    """For each labelled file (relative to the project), whether it was recovered."""
    root = _norm_file(project)
    have: set[str] = set()
    if isinstance(recovered, list):
        for item in recovered:
            path = item.get("path") if isinstance(item, dict) else item
            if not isinstance(path, str):
                continue
            path = _norm_file(path)
            if path.startswith(root + "/"):
                path = path[len(root) + 1 :]
            have.add(path)
    text = visible.replace("\\", "/")
    return [(_norm_file(f) in have) or _names_file(text, _norm_file(f)) for f in labelled if f]


# -- test runs -------------------------------------------------------------------------


def _command_matches(gold: str, got: str) -> bool:
    gold_n, got_n = norm_ws(gold), norm_ws(got)
    if gold_n == got_n:
        return True
    if got_n.endswith(ELLIPSIS):
        prefix = got_n[: -len(ELLIPSIS)].rstrip()
        return len(prefix) >= MIN_PREFIX and gold_n.startswith(prefix)
    return False


def tests_found(labelled: Sequence[dict[str, Any]], recovered: Any) -> list[bool]:
    runs = [r for r in recovered if isinstance(r, dict)] if isinstance(recovered, list) else []
    found = []
    for gold in labelled:
        command, outcome = str(gold.get("command", "")), str(gold.get("outcome", ""))
        found.append(
            any(
                _command_matches(command, str(run.get("command", "")))
                and (outcome == "unknown" or str(run.get("outcome", "")) == outcome)
                for run in runs
            )
        )
    return found


# -- user constraints ------------------------------------------------------------------


def term_in(term: str, text_norm: str) -> bool:
    """Whether ``term`` occurs in ``text_norm`` (already lower-cased, whitespace-normalised)."""
    needle = norm_ws(term).lower()
    if not needle:
        return True
    head = f"(?<![{_WORD}])" if needle[0].isascii() and needle[0].isalnum() else ""
    tail = f"(?![{_WORD}])" if needle[-1].isascii() and needle[-1].isalnum() else ""
    return re.search(head + re.escape(needle) + tail, text_norm) is not None


def constraints_found(constraints: Iterable[dict[str, Any]], visible: str) -> dict[str, bool]:
    """For each constraint id, whether all its key terms occur in the visible text."""
    text_norm = norm_ws(visible).lower()
    return {
        str(c.get("id")): all(term_in(str(t), text_norm) for t in c.get("key_terms") or [])
        for c in constraints
    }


def constraints_in_force(
    point: dict[str, Any], hand: Sequence[dict[str, Any]], lines_of: dict[str, int]
) -> list[dict[str, Any]]:
    """Hand-labelled constraints that hold at ``point``.

    The labels list them per point (``user_constraints``); for labels without that list, a
    constraint holds when its message came before the point and the message that revoked
    it (found by uuid in ``lines_of``) did not.
    """
    by_id = {str(c.get("id")): c for c in hand}
    if isinstance(point.get("user_constraints"), list):
        return [by_id[i] for i in map(str, point["user_constraints"]) if i in by_id]
    line = int(point.get("line") or 0)
    held = []
    for c in hand:
        if int(c.get("message_line") or 0) >= line:
            continue
        revoked = c.get("revoked_by_uuid")
        if revoked and lines_of.get(str(revoked), math.inf) < line:
            continue
        held.append(c)
    return held


# -- pooling ---------------------------------------------------------------------------


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]
