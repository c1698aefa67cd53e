"""What the model receives inside the real Codex CLI and Gemini CLI, with and without Charter.

    .venv/bin/python bench/agent_cli_tokens.py [--agent codex|gemini|both] [--prompts 4]
        [--json]

Runs the pinned CLI (``make codex`` / ``make gemini-cli``) in a copy of the demo project
over N prompts (one ``codex exec`` / ``gemini -p`` per prompt, each resuming the
session) against the scripted model server of ``tests/agent_e2e.py``, once alone and
once after ``charter install AGENT``, and counts in cl100k tokens, summed over the main
requests of the session:

- ``charter_rules``: Charter's constitution and per-prompt rule blocks as the model got
  them (Codex: developer messages; Gemini CLI: ``<hook_context>`` blocks);
- ``charter_state``: the rest of Charter's hook context (session state, plan, risks,
  bound decisions);
- ``request``: everything the request carries (instructions, messages, tool
  definitions), for scale.

Neither CLI loads the demo's CLAUDE.md on its own (Codex reads AGENTS.md, Gemini CLI
GEMINI.md), so "alone" has no rule context: what Charter adds is the whole of it. The
scripted replies never change, so counts are deterministic for given CLI and Charter
versions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.agent_tokens import DEMO_PROMPTS, RULE_BLOCKS, TOML, _charter  # noqa: E402
from tests.agent_e2e import (  # noqa: E402
    CodexSession,
    GeminiSession,
    Request,
    ScriptedServer,
    developer_texts,
    hook_contexts,
    install_agent,
)
from tests.conftest import copy_demo  # noqa: E402

from charter.tokens import count_tokens  # noqa: E402


def charter_texts(agent: str, request: Request) -> list[str]:
    """Charter's hook context in one request, block by block."""
    if agent == "gemini":
        return hook_contexts(request)
    return [t for t in developer_texts(request) if "(Charter;" in t.split("\n", 1)[0]]


def split(text: str) -> tuple[str, str]:
    """(rule context, the rest) of one hook context: a rule block starts at a rule
    heading and runs to the next top-level heading."""
    rules: list[str] = []
    rest: list[str] = []
    for block in ("\n" + text).split("\n# ")[1:]:
        block = "# " + block
        (rules if block.startswith(RULE_BLOCKS) else rest).append(block)
    return "\n".join(rules), "\n".join(rest)


def run(agent: str, prompts: list[str], charter: bool) -> dict[str, Any]:
    binary = install_agent(agent)
    if binary is None:
        raise SystemExit("node/npm not found: the CLI benchmarks need Node")
    with tempfile.TemporaryDirectory() as tmp:
        project = copy_demo(Path(tmp) / "demo", charter_toml=TOML)
        if charter:
            res = _charter(project, "install", agent)
            if res.returncode != 0:
                raise SystemExit(res.stderr)
        with ScriptedServer() as server:
            cls = CodexSession if agent == "codex" else GeminiSession
            session = cls(
                binary,
                project,
                Path(tmp) / "home",
                server,
                path_prepend=[Path(sys.executable).parent],
            )
            for prompt in prompts:
                done = session.prompt(prompt)
                if done.returncode != 0:
                    raise SystemExit(f"{agent} failed: {done.stderr[-500:]}")
            requests = server.main_requests()
    totals = {"requests": len(requests), "charter_rules": 0, "charter_state": 0, "request": 0}
    for request in requests:
        for text in charter_texts(agent, request):
            rules, rest = split(text)
            totals["charter_rules"] += count_tokens(rules)
            totals["charter_state"] += count_tokens(rest)
        totals["request"] += count_tokens(json.dumps(request.body))
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--agent", choices=("codex", "gemini", "both"), default="both")
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    prompts = DEMO_PROMPTS[: args.prompts]
    agents = ("codex", "gemini") if args.agent == "both" else (args.agent,)
    rows = []
    for agent in agents:
        for charter in (False, True):
            rows.append({"agent": agent, "charter": charter, **run(agent, prompts, charter)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| agent | mode | requests | Charter rule context | Charter state | whole requests |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        mode = "charter" if row["charter"] else "alone"
        print(
            f"| {row['agent']} | {mode} | {row['requests']} | {row['charter_rules']:,} | "
            f"{row['charter_state']:,} | {row['request']:,} |"
        )


if __name__ == "__main__":
    main()
