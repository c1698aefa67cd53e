"""The compiled rules as stored in ``.charter/``, read without numpy or the model.

A file tool's hook (PostToolUse) needs only the rules' text, sources and scopes to hand
over the rules of the path the agent touched; importing numpy to read the vectors beside
them would cost every cold tool call ~100 ms. The compiler owns the layout and writes it;
this module names the files and reads the rule half.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

from charter.fileio import TornState, read_committed
from charter.rules.model import Rule

if TYPE_CHECKING:
    from charter.config import Project

STATE_VERSION = 4  # bump when parsing or state layout changes (4: stop-23 parsing fixes)
STATE_FILE = "rules.json"
VECTORS_FILE = "rules.npy"
MANIFEST_FILE = "rules.meta.json"


class StoredRules(NamedTuple):
    rules: list[Rule]
    constitution_ids: list[str]
    #: path-scoped rules' text cut to ``rules.max_rule_tokens`` at compile time
    briefs: dict[str, str]


def load_rules(project: Project) -> StoredRules | None:
    """The last compile's rules and constitution ids; None when there is no usable
    compiled state (none yet, torn, another version): the caller goes without."""
    try:
        committed = read_committed(project.state_dir / MANIFEST_FILE)
    except TornState:
        return None
    if committed is None:
        return None
    try:
        data = json.loads(committed[1][STATE_FILE].decode("utf-8"))
        if data.get("version") != STATE_VERSION:
            return None
        rules = [Rule.from_state(r) for r in data["rules"]]
        briefs = data.get("briefs")
        briefs = {str(k): str(v) for k, v in briefs.items()} if isinstance(briefs, dict) else {}
        return StoredRules(rules, list(data["constitution"]["rule_ids"]), briefs)
    except (OSError, ValueError, KeyError, TypeError):
        return None
