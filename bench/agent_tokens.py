"""What the model receives over a scripted Claude Code session, with and without Charter.

    .venv/bin/python bench/agent_tokens.py [--mode alone|charter|managed] [--prompts 8]
        [--project demo|rules|both] [--rules-file PATH] [--tool-search on|off] [--json]

Runs the real Claude Code CLI (``make claude-code``) in one process over N prompts
(``--input-format stream-json``, as an interactive session) against the scripted
Messages API server of ``tests/claude_e2e.py``, and counts, per request and in total,
the characters and cl100k tokens of what each request carries:

- ``rules_native``: the rule files Claude Code loads itself (its ``claudeMd`` context);
- ``charter_hooks``: Charter's hook context (SessionStart, UserPromptSubmit and, with
  ``--read``, PostToolUse of the read), split into ``charter_rules`` (the constitution,
  the per-prompt rules and the rules handed over with a file: what replaces the rule
  files) and ``charter_state`` (the rest: restored session state, plan, risks, track
  decisions, bound invariants — context Claude Code alone does not have at all);
- ``charter_tools``: Charter's MCP tools as the request carries them: whole definitions
  without tool search, only their names in the deferred-tools list with it;
- ``rules``: the three together (the rule tokens the session pays for);
- ``request``: everything (system prompt, messages, all tool definitions).

Modes: ``alone`` (Claude Code only), ``charter`` (``charter install claude-code`` with
``hooks.manage_rule_files = false``: Claude Code still loads the rule files and Charter
adds its context on top), ``managed`` (``charter install claude-code`` with its default,
managed rules: Charter becomes the one source of rule context).

Projects: a copy of the demo, and a git repository holding one larger real rule file
from the rules benchmark data (read at run time, never copied into this repo)
with the first N of its benchmark tasks as prompts.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.claude_e2e import (  # noqa: E402
    ClaudeSession,
    Reply,
    Request,
    ScriptedModel,
    install_claude_code,
)
from tests.conftest import copy_demo  # noqa: E402

from charter.tokens import count_tokens  # noqa: E402

RULES_DIR = Path("/work/shared/bench/rules")
DEMO_PROMPTS = [
    "Add an endpoint to export invoices as CSV",
    "Fix the flaky test in backend/tests/test_invoices.py",
    "Add a database migration for a new credit_notes table",
    "Speed up the invoice list page in the web app",
    "Log the Stripe webhook failures with enough context to debug them",
    "Add rate limiting to the password reset endpoint",
    "Write a regression test for the rounding bug in invoice totals",
    "Prepare the release notes and deploy the credit notes feature",
    "Review the error handling in the invoices service",
    "Rename the usage_events column amount to quantity",
]
TOML = "[hooks]\nwarm_worker = false\n"
HOOK_MARKERS = (
    "SessionStart hook additional context: ",
    "UserPromptSubmit hook additional context: ",
    "PostToolUse:Read hook additional context: ",
)


def _charter(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "charter", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )


def rules_project(
    target: Path, rules_file: Path, prompts: int, data: Path = RULES_DIR, config: str = ""
) -> tuple[Path, list[str]]:
    """A git repository with ``rules_file`` as its CLAUDE.md and its benchmark tasks."""
    target.mkdir(parents=True)
    (target / "CLAUDE.md").write_text(rules_file.read_text(encoding="utf-8"), encoding="utf-8")
    (target / "charter.toml").write_text(TOML + config, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    rel = rules_file.relative_to(data).as_posix() if rules_file.is_relative_to(data) else ""
    tasks = []
    task_file = data / "tasks.jsonl"
    if task_file.exists():
        for line in task_file.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("file") == rel:
                tasks.append(row["task"])
    return target, (tasks or DEMO_PROMPTS)[:prompts]


def largest_rules_file() -> Path:
    files = [p for p in RULES_DIR.glob("*/*") if p.suffix in (".md", ".mdc")]
    if not files:
        raise SystemExit(f"no rule files under {RULES_DIR}; pass --rules-file")
    return max(files, key=lambda p: (p.stat().st_size, p.as_posix()))


def _claude_md_text(text: str) -> str:
    """The ``claudeMd`` context block Claude Code builds from rule files ("" if none)."""
    if "# claudeMd" not in text:
        return ""
    return text.split("# claudeMd", 1)[1].split("</system-reminder>", 1)[0]


def _hook_text(text: str) -> str:
    parts = []
    for marker in HOOK_MARKERS:
        for chunk in text.split(marker)[1:]:
            parts.append(chunk.split("</system-reminder>", 1)[0])
    return "".join(parts)


RULE_BLOCKS = ("# Project constitution", "# Project rules for")


def split_hook_text(hooks: str) -> tuple[str, str]:
    """(rule blocks, everything else): a rule block is a constitution or per-prompt rules
    heading and its lines up to the next heading."""
    rules, other = [], []
    sink = other
    for line in hooks.splitlines(keepends=True):
        if line.startswith("#"):
            sink = rules if line.startswith(RULE_BLOCKS) else other
        sink.append(line)
    return "".join(rules), "".join(other)


_DEFERRED_CHARTER_TOOL = re.compile(r"^mcp__charter__\w+$", re.MULTILINE)


_RULE_FILE = re.compile(r"^In (\S.*):$")
_LOADED_FILE = re.compile(r"^Contents of (\S+) \(", re.MULTILINE)


def native_files(requests: list[Request], project: Path) -> list[str]:
    """The rule files Claude Code loaded itself, relative to the project."""
    found = set()
    root = project.resolve()
    for request in requests:
        for text in request.message_texts():
            for path in _LOADED_FILE.findall(_claude_md_text(text)):
                loaded = Path(path).resolve()
                if loaded.is_relative_to(root):
                    found.add(loaded.relative_to(root).as_posix())
    return sorted(found)


def rule_tokens_by_file(rule_blocks: str) -> dict[str, int]:
    """Tokens of Charter's rule blocks by the file each line cites ("" for headings and
    notes): which of them restate rule files Claude Code alone loads, and which bring
    rules it never shows (AGENTS.md, Cursor rules, ...)."""
    out: dict[str, int] = {}
    current = ""
    for line in rule_blocks.splitlines(keepends=True):
        if line.startswith("#"):
            current = ""
        match = _RULE_FILE.match(line.strip())
        if match:
            current = match.group(1)
        out[current] = out.get(current, 0) + count_tokens(line)
    return out


def measure(request: Request) -> dict[str, dict[str, int]]:
    texts = request.message_texts()
    native = "".join(_claude_md_text(t) for t in texts)
    hooks = "".join(_hook_text(t) for t in texts)
    hook_rules, hook_state = split_hook_text(hooks)
    tools = json.dumps(
        [
            t
            for t in request.body.get("tools", [])
            if str(t.get("name", "")).startswith("mcp__charter__")
        ],
        sort_keys=True,
    )
    tools = "" if tools == "[]" else tools
    # with tool search, a deferred tool costs its name in the list of deferred tools
    tools += "\n".join(_DEFERRED_CHARTER_TOOL.findall(request.all_text()))
    whole = request.all_text() + json.dumps(request.body.get("tools", []), sort_keys=True)
    parts = {
        "rules_native": native,
        "charter_hooks": hooks,
        "charter_rules": hook_rules,
        "charter_state": hook_state,
        "charter_tools": tools,
        "rules": native + hooks + tools,
        "request": whole,
    }
    return {k: {"chars": len(v), "tokens": count_tokens(v) if v else 0} for k, v in parts.items()}


def install(project: Path, mode: str) -> str | None:
    """Set the project up for ``mode``; a reason when that mode is not available."""
    if mode == "alone":
        return None
    if mode == "charter":
        config = project / "charter.toml"
        existing = config.read_text(encoding="utf-8") if config.exists() else ""
        line = "manage_rule_files = false\n"
        if "[hooks]\n" in existing:
            updated = existing.replace("[hooks]\n", "[hooks]\n" + line, 1)
        else:
            updated = existing + "\n[hooks]\n" + line
        config.write_text(updated, encoding="utf-8")
    args = ["install", "claude-code"]
    res = _charter(project, *args)
    if res.returncode != 0:
        return f"`charter {' '.join(args)}` failed: {res.stderr.strip().splitlines()[-1:]}"
    return None


def reads_once(project: Path, rel: str | None) -> list[Any]:
    """A script that has the model read ``rel`` once, on the first prompt, as an agent
    looks at code before changing it (none without ``rel``)."""
    if not rel:
        return []
    pending = [{"file_path": str(project / rel)}]

    def reply(body: dict[str, Any]) -> Reply | None:
        return Reply("Reading it.", "Read", pending.pop()) if pending else None

    return [reply]


def run_session(
    claude: Path,
    project: Path,
    prompts: list[str],
    home: Path,
    tool_search: bool,
    read: str | None = None,
) -> list[Request]:
    with ScriptedModel(reads_once(project, read)) as model:
        session = ClaudeSession(
            claude,
            project,
            home,
            model,
            path_prepend=[Path(sys.executable).parent],
            timeout=900,
            # Claude Code defers MCP tool definitions (tool search) against Anthropic's API
            # and turns that off for other base URLs such as this loopback server: say
            # which one to measure
            extra_env={"ENABLE_TOOL_SEARCH": "true" if tool_search else "false"},
        )
        run = session.stream(*prompts)
        if run.returncode != 0:
            raise SystemExit(f"claude failed ({run.returncode}): {run.stderr[-500:]}")
        return model.main_requests()


def bench(
    claude: Path,
    name: str,
    project: Path,
    prompts: list[str],
    mode: str,
    tool_search: bool,
    read: str | None = None,
) -> dict[str, Any]:
    reason = install(project, mode)
    if reason:
        return {"project": name, "mode": mode, "unavailable": reason}
    home = project.parent / f"home-{mode}"
    requests = run_session(claude, project, prompts, home, tool_search, read)
    per = [measure(r) for r in requests]
    by_file: dict[str, int] = {}
    for request in requests:
        hooks = "".join(_hook_text(t) for t in request.message_texts())
        for path, tokens in rule_tokens_by_file(split_hook_text(hooks)[0]).items():
            by_file[path] = by_file.get(path, 0) + tokens
    total = (
        {k: {u: sum(p[k][u] for p in per) for u in ("chars", "tokens")} for k in per[0]}
        if per
        else {}
    )
    return {
        "project": name,
        "mode": mode,
        "tool_search": tool_search,
        "prompts": len(prompts),
        "requests": len(per),
        "native_files": native_files(requests, project),
        "charter_rule_tokens_by_file": dict(sorted(by_file.items())),
        "total": total,
        "per_request": per,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["alone", "charter", "managed", "all"], default="all")
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--project", choices=["demo", "rules", "both"], default="both")
    parser.add_argument("--rules-file", type=Path, default=None)
    parser.add_argument(
        "--rules-data",
        type=Path,
        default=RULES_DIR,
        help="benchmark dir whose tasks.jsonl gives the rules file's prompts",
    )
    parser.add_argument("--config", default="", help="TOML appended to both projects' charter.toml")
    parser.add_argument(
        "--tool-search",
        choices=["on", "off"],
        default="on",
        help="on: MCP tools deferred, as Claude Code does against Anthropic's API (default); "
        "off: every definition in every request, as behind a proxy",
    )
    parser.add_argument(
        "--read",
        default=None,
        help="the model reads this project file on the first prompt (a tool call, so one "
        "more request in every mode), e.g. backend/app/invoices.py; the rule file's project "
        "gets a one-line stand-in at that path",
    )
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    args = parser.parse_args(argv)
    claude = install_claude_code()
    if claude is None:
        print(
            "agent_tokens: node/npm not found; the real Claude Code CLI is needed", file=sys.stderr
        )
        return 0
    modes = ["alone", "charter", "managed"] if args.mode == "all" else [args.mode]
    search = args.tool_search == "on"
    results = []
    with tempfile.TemporaryDirectory(prefix="charter-agent-tokens-") as tmp:
        for mode in modes:
            base = Path(tmp) / mode
            if args.project in ("demo", "both"):
                project = copy_demo(base / "demo", charter_toml=TOML + args.config)
                results.append(
                    bench(
                        claude,
                        "demo",
                        project,
                        DEMO_PROMPTS[: args.prompts],
                        mode,
                        search,
                        args.read,
                    )
                )
            if args.project in ("rules", "both"):
                rules_file = args.rules_file or largest_rules_file()
                project, prompts = rules_project(
                    base / "rules", rules_file, args.prompts, args.rules_data, args.config
                )
                label = f"rules:{rules_file.parent.name}/{rules_file.name}"
                if args.read and not (project / args.read).exists():
                    # the rule file's project has no code of its own: a one-line stand-in
                    # for the file the agent looks at (Claude Code alone loads nothing of it)
                    (project / args.read).parent.mkdir(parents=True, exist_ok=True)
                    (project / args.read).write_text("VALUE = 1\n", encoding="utf-8")
                results.append(bench(claude, label, project, prompts, mode, search, args.read))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"{'project':34} {'mode':8} {'req':>4} {'rule chars':>11} {'rule tok':>9} "
        f"{'native':>8} {'hooks':>8} {'tools':>8} {'request tok':>12}"
    )
    for r in results:
        if "unavailable" in r:
            print(f"{r['project']:34} {r['mode']:8} unavailable: {r['unavailable']}")
            continue
        t = r["total"]
        print(
            f"{r['project']:34} {r['mode']:8} {r['requests']:>4} {t['rules']['chars']:>11,} "
            f"{t['rules']['tokens']:>9,} {t['rules_native']['tokens']:>8,} "
            f"{t['charter_hooks']['tokens']:>8,} {t['charter_tools']['tokens']:>8,} "
            f"{t['request']['tokens']:>12,}"
        )
    by = {(r["project"], r["mode"]): r for r in results if "total" in r}
    for (project, mode), r in sorted(by.items()):
        alone = by.get((project, "alone"))
        if mode != "alone" and alone and alone["total"]["rules"]["tokens"]:
            ratio = r["total"]["rules"]["tokens"] / alone["total"]["rules"]["tokens"]
            t, base = r["total"], alone["total"]["rules"]["tokens"]
            rules_only = (t["rules_native"]["tokens"] + t["charter_rules"]["tokens"]) / base
            print(
                f"{project}: {mode} sends {ratio:.2f}x the rule tokens of Claude Code alone "
                f"(rule files and rule context only: {rules_only:.2f}x; session state "
                f"{t['charter_state']['tokens']:,}, tool definitions "
                f"{t['charter_tools']['tokens']:,} tokens)"
            )
            native = set(alone["native_files"])
            by_file = r["charter_rule_tokens_by_file"]
            others = sum(n for path, n in by_file.items() if path and path not in native)
            if mode == "managed" and others:
                same = (t["charter_rules"]["tokens"] - others) / base
                print(
                    f"{project}: {others:,} of the {t['charter_rules']['tokens']:,} rule-context "
                    f"tokens cite files Claude Code alone does not load; the rules of the "
                    f"files it loads ({', '.join(sorted(native))}), with every heading and "
                    f"note: {same:.2f}x"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
