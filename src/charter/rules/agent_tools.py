"""The agent's tools a rule forbids calling: an MCP tool by its name ("Do not use
`mcp__supabase__apply_migration`") or one of Claude Code's own tools an agent can do
without ("Do NOT use the WebFetch tool"), held as a
:class:`charter.rules.commands.ForbiddenCommand` of :data:`TOOL_KIND`.
"""

from __future__ import annotations

import re

from charter.rules.command_reading import _NEGATION, COMMAND_READING
from charter.rules.negation import clauses, forbidden_spans

#: An MCP tool a rule forbids the agent to call ("You must NEVER use the
#: mcp__peekaboo__analyze tool", "Do not use `mcp__claude-in-chrome__*` tools"): Claude
#: Code names each MCP tool ``mcp__<server>__<tool>``, a name nothing else has, so the
#: call is held by its name. Read as a code span is (negation, condition, consent).
TOOL_KIND = "tool"
_MCP_TOOL = re.compile(r"(?<![`\w])(mcp__[\w-]+(?:__[\w*-]+)?\*?)(?![`\w])")


#: Claude Code's own tools a rule may forbid by name ("Do NOT use the WebFetch tool — it
#: fails on most sites"): those an agent can do without. A rule against Read, Write,
#: Edit or Bash is read as about how to use them, never as a ban on the tool.
AGENT_TOOLS = ("WebFetch", "WebSearch", "TodoWrite", "Task", "Agent")
#: A tool named bare: the unambiguous names alone, "Task" and "Agent" only as "the Task
#: tool" (both are English words).
_AGENT_TOOL = re.compile(
    r"(?<![`\w])(WebFetch|WebSearch|TodoWrite)(?![`\w])|(?<![`\w])(Task|Agent)(?=\s+tool\b)"
)


def _mcp_tools(text: str) -> list[str]:
    """The MCP tool names (or server globs), and Claude Code's own tools of
    :data:`AGENT_TOOLS`, that a sentence of ``text`` forbids calling."""
    if "mcp__" not in text and not any(t in text for t in AGENT_TOOLS):
        return []
    found: list[str] = []
    for start, end in clauses(text):
        clause = text[start:end]
        lead = re.split(rf"\b{_NEGATION}\b", clause, maxsplit=1, flags=re.IGNORECASE)[0]
        if _LEAD_CONDITION.match(lead):
            continue  # "To access GitHub, do not use the WebFetch tool": for that only
        marked = _MCP_TOOL.sub(r"`\1`", clause)
        marked = _AGENT_TOOL.sub(lambda m: f"`{m.group(0)}`", marked)
        found += [
            span
            for span in forbidden_spans(marked, COMMAND_READING)
            if span in AGENT_TOOLS
            or (re.fullmatch(r"mcp__[\w-]+(?:__[\w*-]*)?\*?", span) and span.rstrip("_*") != "mcp")
        ]
    return list(dict.fromkeys(found))


#: Words before a prohibition that say when or what for ("To access GitHub
#: information, do not use …", "When offline, never call …"): its condition.
_LEAD_CONDITION = re.compile(
    r"^\W*(?:to|when|whenever|for|if|while|during|before|after|in|on|with|unless)\s+\w+.*,",
    re.IGNORECASE,
)
