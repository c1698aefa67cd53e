"""``charter install claude-code``: Charter's hooks and MCP server, and managed rules.

- **Hooks** go into ``.claude/settings.json`` and the MCP server into ``.mcp.json``: files
  teams commit, so the command in them is portable — ``charter`` when it is on ``PATH``,
  else ``"$CLAUDE_PROJECT_DIR"/…`` when Charter is installed inside the project. Only
  when neither works do the hooks go to ``.claude/settings.local.json`` (machine-specific,
  not committed) with the absolute path.
- **Managed rules** (``hooks.manage_rule_files``, on by default): Charter becomes the one
  source of rule context. The rule files it compiles that Claude Code would also load
  itself (``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/rules/``)
  are listed in ``claudeMdExcludes``. Claude Code matches those entries against absolute
  paths, so they go into ``.claude/settings.local.json``. The user's own
  ``~/.claude/CLAUDE.md`` is never excluded; a project file listed in ``rules.exclude`` is
  not compiled by Charter and stays loaded by Claude Code, so nothing is injected twice.
- **Reversible.** The first install records the files as they were; ``--uninstall``
  puts each back byte for byte when nothing else changed it since (an edit followed by
  another install counts), and otherwise removes only Charter's own entries from it.
  Running install twice changes nothing. A file that is not valid JSON is reported,
  never overwritten.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charter.boundary import writable
from charter.errors import CharterError
from charter.fileio import atomic_write_text, locked, remove_stale_temps
from charter.integrations.agent_install import json_indent

HOOK_EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "Stop": "stop",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "PostToolUseFailure": "post-tool-use-failure",
    "PreCompact": "pre-compact",
    "SessionEnd": "session-end",
}
MARKER = " hook "


NATIVE_KINDS = {"claude", "claude-local", "claude-rules"}

#: The settings file that holds this machine's paths (``claudeMdExcludes``, and hooks
#: with an absolute command), relative to the project root.
LOCAL_SETTINGS = ".claude/settings.local.json"
LOCAL_NOT_IGNORED = (
    f"{LOCAL_SETTINGS} holds this machine's paths and git does not ignore it: "
    f"add `{LOCAL_SETTINGS}` to .gitignore so it is never committed"
)
#: A file git already tracks is never ignored: a .gitignore line alone does not help.
LOCAL_TRACKED = (
    f"{LOCAL_SETTINGS} holds this machine's paths and is committed to git (a .gitignore "
    f"line does not untrack it): run `git rm --cached {LOCAL_SETTINGS}` and add it to "
    ".gitignore"
)


def _git_status(root: Path, *args: str) -> int:
    """A git command's exit status in ``root`` (-1 when git could not run)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return -1
    return done.returncode


def _check_ignore(root: Path, rel: str) -> int:
    """``git check-ignore``'s exit status for ``rel``: 0 ignored, 1 not ignored, 128 not
    a repository (or git failed; -1 when git could not run)."""
    return _git_status(root, "check-ignore", "-q", "--", rel)


def git_would_commit(root: Path, rel: str) -> bool:
    """Whether ``git add -A`` in ``root`` would take ``rel``: inside a work tree and
    tracked or not ignored. Claude Code git-ignores ``settings.local.json`` only when it
    creates the file itself; the one Charter writes was left to a ``git add -A``. Outside
    git, or without git, False (nothing to warn about)."""
    return _check_ignore(root, rel) == 1


def git_tracks(root: Path, rel: str) -> bool:
    """Whether git tracks ``rel`` in the repository around ``root`` (outside git, or
    without git: False)."""
    return _git_status(root, "ls-files", "--error-unmatch", "--", rel) == 0


def local_settings_note(root: Path) -> str | None:
    """What to do so git never commits ``settings.local.json``: None when git would not,
    ``LOCAL_TRACKED`` when git already tracks it, else ``LOCAL_NOT_IGNORED``."""
    if not git_would_commit(root, LOCAL_SETTINGS):
        return None
    return LOCAL_TRACKED if git_tracks(root, LOCAL_SETTINGS) else LOCAL_NOT_IGNORED


def git_ignores(root: Path, rel: str) -> bool:
    """Whether the repository around ``root`` ignores ``rel`` (outside git: False)."""
    return _check_ignore(root, rel) == 0


#: Why a team would not get the MCP server from the repository.
MCP_IGNORED = (
    ".mcp.json is ignored by git in this repository: the MCP server is set up on this "
    "machine only (teammates get the hooks from .claude/settings.json, not the server)"
)
#: The files an install writes for the team to commit, and what each carries.
SHARED_FILES = {".claude/settings.json": "the hooks", ".mcp.json": "the MCP server"}


def ignored_shared_files(root: Path) -> list[str]:
    """The files an install writes for the team (``SHARED_FILES``) that git ignores here
    (a ``.claude`` or ``.*`` line in ``.gitignore``; a file git tracks is never ignored)."""
    return [rel for rel in SHARED_FILES if git_ignores(root, rel)]


def shared_ignored_note(ignored: list[str]) -> str:
    """What an install or doctor says when git ignores files teams commit."""
    if ignored == [".mcp.json"]:
        return MCP_IGNORED
    what = " and ".join(SHARED_FILES[rel] for rel in ignored)
    files = " and ".join(ignored)
    verb = "is" if len(ignored) == 1 else "are"
    # "the hooks are set up", "the MCP server is": the subject here is what the files hold
    held = "is" if ignored == [".mcp.json"] else "are"
    return (
        f"{files} {verb} ignored by git in this repository: {what} "
        f"{held} set up on this machine only (commit with `git add -f {' '.join(ignored)}`, "
        "or each teammate runs `charter install claude-code`)"
    )


def charter_executable() -> Path | None:
    exe = Path(sys.argv[0])
    if exe.name == "charter" and exe.exists():
        return exe.resolve()
    found = shutil.which("charter")
    return Path(found).resolve() if found else None


def charter_command(root: Path) -> tuple[str, bool]:
    """(command, portable): how the hooks start Charter, and whether that string may go
    into a file the team commits (no machine-specific path in it).

    Claude Code runs a hook command through a shell, so the path is shell-quoted: a
    virtualenv under ``~/My Projects/`` gave ``/home/me/My Projects/.venv/bin/charter hook
    …``, which the shell split at the space, and every hook failed.
    """
    exe = charter_executable()
    on_path = shutil.which("charter")
    if exe is None or (on_path and Path(on_path).resolve() == exe):
        return "charter", True
    try:
        rel = exe.relative_to(root.resolve()).as_posix()
    except ValueError:
        return shlex.quote(str(exe)), False
    return f'"$CLAUDE_PROJECT_DIR"/{shlex.quote(rel)}', True


def _mcp_entry(command: str) -> dict[str, Any]:
    if command.startswith('"$CLAUDE_PROJECT_DIR"'):
        # the MCP server starts without a shell: let one expand the project directory
        script = command.replace('"$CLAUDE_PROJECT_DIR"', '"${CLAUDE_PROJECT_DIR:-$PWD}"')
        return {"command": "sh", "args": ["-c", f"exec {script} mcp"]}
    return {"command": command, "args": ["mcp"]}


def native_rule_files(root: Path, exclude: list[str]) -> list[Path]:
    """Rule files Charter compiles that Claude Code would load itself (absolute paths).

    A file reached through a symlink (``CLAUDE.md -> AGENTS.md``, ``.claude/rules ->
    ../.agents/rules``) is listed under the name Claude Code opens and under the file it
    leads to, so the exclusion holds whichever of the two Claude Code compares. So is a
    ``CLAUDE.md`` that is not there yet where the repository git-ignores one beside an
    ``AGENTS.md`` Charter compiles (:func:`_ignored_links`).
    """
    out: list[Path] = []
    for named, resolved in _native_pairs(root, exclude) + _ignored_links(root, exclude):
        out += [p for p in dict.fromkeys((named, resolved)) if p not in out]
    return out


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root.resolve()).as_posix()


def _ignored_links(root: Path, exclude: list[str]) -> list[tuple[Path, Path]]:
    """(``CLAUDE.md`` to come, the ``AGENTS.md`` beside it) for each ``AGENTS.md`` Charter
    compiles whose folder has no ``CLAUDE.md`` yet but git-ignores one: the project makes
    it locally, a copy of or link to the ``AGENTS.md`` (a setup script or a SessionStart
    hook running ``ln -s AGENTS.md CLAUDE.md``), after the install ran. Excluded before it
    exists, Claude Code never loads it beside Charter's injection; a different file made
    there is a rule file Charter's next discovery compiles."""
    from charter.rules.sources import discover

    base = root.resolve()
    waiting: dict[str, Path] = {}
    for kind, path in discover(root, exclude):
        link = path.parent / "CLAUDE.md"
        if kind == "agents" and not (link.exists() or link.is_symlink()):
            waiting[link.absolute().relative_to(root.absolute()).as_posix()] = path
    if not waiting:
        return []
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "--stdin"],
            input="\n".join(waiting) + "\n",
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    ignored = set(done.stdout.splitlines()) if done.returncode in (0, 1) else set()
    return [(base / rel, path.resolve()) for rel, path in waiting.items() if rel in ignored]


def native_rule_names(root: Path, exclude: list[str]) -> list[str]:
    """The rule files of :func:`native_rule_files` by the name Claude Code opens, relative
    to the project (one per file, for messages that count them)."""
    base = root.resolve()
    return [named.relative_to(base).as_posix() for named, _ in _native_pairs(root, exclude)]


def _native_pairs(root: Path, exclude: list[str]) -> list[tuple[Path, Path]]:
    """(path as named under the resolved root, path resolved) of each native rule file."""
    from charter.rules.sources import discover

    base = root.resolve()
    return [
        (base / path.absolute().relative_to(root.absolute()), path.resolve())
        for kind, path in discover(root, exclude)
        if kind in NATIVE_KINDS
    ]


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise CharterError(f"{path} is not valid JSON ({exc}); not modified") from None
    if not isinstance(data, dict):
        raise CharterError(f"{path} must hold a JSON object; not modified")
    return data


def _is_ours(hook: Any) -> bool:
    """A hook Charter installed: ``PROGRAM hook EVENT`` where PROGRAM is ``charter`` (bare,
    an absolute path, or ``"$CLAUDE_PROJECT_DIR"/…/charter``) and EVENT one word. A user's
    command that merely contains "charter" and " hook " is the user's."""
    command = hook.get("command") if isinstance(hook, dict) else None
    if not isinstance(command, str):
        return False
    program, sep, event = command.strip().rpartition(MARKER)
    return (
        bool(sep)
        and program.replace('"', "").replace("'", "").rsplit("/", 1)[-1] == "charter"
        and re.fullmatch(r"[a-z][a-z-]*", event) is not None
    )


def _strip_ours(hooks: dict[str, Any]) -> None:
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not _is_ours(h)]
                if not inner and group["hooks"]:
                    continue
                group = {**group, "hooks": inner}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]


@dataclass
class InstallPlan:
    """What an install (or uninstall) writes: path → new text (None = delete)."""

    writes: dict[Path, str | None]
    notes: list[str]
    excluded: list[str]


def install_claude_code(
    root: Path,
    *,
    uninstall: bool = False,
    state_dir: Path | None = None,
    manage_rules: bool = True,
    rules_exclude: list[str] | None = None,
    dry_run: bool = False,
) -> list[str]:
    """Install (or remove) Charter in Claude Code's settings; returns what changed.

    Everything is read, planned and written under one lock in Charter's state directory
    (default ``ROOT/.charter``), so two installs at once cannot drop each other's entries.
    """
    state = state_dir or root / ".charter"
    with locked(state / "install"):
        backup = state / "install-claude-code.json"
        if uninstall:
            plan = _uninstall_plan(root, backup, rules_exclude or [], dry_run=dry_run)
        else:
            plan = _install_plan(root, manage_rules, rules_exclude or [], backup)
        lines = [*plan.notes]
        for path, text in plan.writes.items():
            old = _read(path)
            if old == text:
                continue
            verb = "remove" if text is None else ("update" if old is not None else "write")
            if not dry_run:
                # done, as the other agents' installers report it ("wrote .mcp.json"): an
                # imperative "write .mcp.json" read as a plan not carried out
                verb = {"remove": "removed", "update": "updated", "write": "wrote"}[verb]
            lines.append(f"{'would ' if dry_run else ''}{verb} {path.relative_to(root)}")
        if dry_run:
            return lines or ["already up to date"]
        for path in [*plan.writes, backup]:  # a killed install's temp files, in the user's repo
            remove_stale_temps(path.parent, [path.name])
        if uninstall:
            created = _load_record(backup).get("created_dirs")
            changed = _apply(plan)
            if backup.exists():
                backup.unlink()
            claude_dir = root / ".claude"
            if isinstance(created, list) and ".claude" in created and not claude_dir.is_symlink():
                with contextlib.suppress(OSError):  # not empty: the user's files stay
                    claude_dir.rmdir()
        else:
            _record(backup, root, plan)
            changed = _apply(plan)
            _record_written(backup, plan)
        return lines if changed else ["already up to date"]


def _files(root: Path) -> tuple[Path, Path, Path]:
    # never through a symlink that leads out of the project (a planted .claude -> ~/.claude)
    return (
        writable(root, root / ".claude" / "settings.json", what="hook settings"),
        writable(root, root / ".claude" / "settings.local.json", what="local settings"),
        writable(root, root / ".mcp.json", what="MCP config"),
    )


def _read(path: Path) -> str | None:
    """The file's exact text, line endings as they are: read as text, a Windows file's
    CRLF became LF, so an install rewrote it with LF and uninstall could not give its
    bytes back."""
    return path.read_bytes().decode("utf-8") if path.exists() else None


def _endings(text: str, like: str | None) -> str:
    """``text`` (written with LF) in the line endings of the file it replaces."""
    return text.replace("\n", "\r\n") if like is not None and "\r\n" in like else text


def _dump(data: dict[str, Any], like: str | None) -> str:
    """``data`` as the text of the file ``like`` held: its indentation, its line endings."""
    return _endings(json.dumps(data, indent=json_indent(like)) + "\n", like)


def _install_plan(
    root: Path, manage_rules: bool, rules_exclude: list[str], backup: Path
) -> InstallPlan:
    settings_path, local_path, mcp_path = _files(root)
    settings, local, mcp = _read_json(settings_path), _read_json(local_path), _read_json(mcp_path)
    command, portable = charter_command(root)
    notes: list[str] = []
    for data, path in ((settings, settings_path), (local, local_path)):
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict):
            raise CharterError(f"{path}: 'hooks' must be an object; not modified")
        _strip_ours(hooks)
        _set(data, "hooks", hooks)
    target = settings if portable else local
    if not portable:
        notes.append(
            f"charter is not on PATH nor inside the project: hooks go to {local_path.name} "
            f"with {command} (machine-specific, not for committing)"
        )
    hooks = target.setdefault("hooks", {})
    for event, name in HOOK_EVENTS.items():
        entry = {"type": "command", "command": f"{command} hook {name}", "timeout": 30}
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            where = settings_path if portable else local_path
            raise CharterError(f"{where}: 'hooks.{event}' must be a list; not modified")
        groups.append({"hooks": [entry]})
    servers = mcp.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise CharterError(f"{mcp_path}: 'mcpServers' must be an object; not modified")
    if portable:
        servers["charter"] = _mcp_entry(command)
    else:  # .mcp.json is committed: a machine path goes to Claude Code's local scope
        servers.pop("charter", None)
        notes.append(
            "MCP server not added to .mcp.json (a file teams commit) with a machine path: "
            f"run `claude mcp add --scope local charter -- {command} mcp` to add it for "
            "this machine only"
        )
    _set(mcp, "mcpServers", servers)
    excludes = local.get("claudeMdExcludes", [])
    if not isinstance(excludes, list):
        raise CharterError(f"{local_path}: 'claudeMdExcludes' must be a list; not modified")
    managed = [str(p) for p in native_rule_files(root, rules_exclude)] if manage_rules else []
    mine = _recorded_excludes(backup)
    kept = [e for e in excludes if e not in mine]
    new_excludes = kept + [m for m in managed if m not in kept]
    _set(local, "claudeMdExcludes", new_excludes)
    named = native_rule_names(root, rules_exclude) if manage_rules else []
    if named:
        notes.append(
            f"managed rules: Claude Code stops loading {len(named)} rule file(s) Charter "
            f"compiles ({', '.join(named)}); Charter injects their rules instead"
        )
    links = _ignored_links(root, rules_exclude) if manage_rules else []
    if links:
        notes.append(
            f"managed rules: {len(links)} CLAUDE.md file(s) the repository git-ignores beside "
            "an AGENTS.md Charter compiles are excluded before they exist (a local copy or "
            f"link made after this install): {', '.join(_rel(root, n) for n, _ in links)}"
        )
    writes: dict[Path, str | None] = {
        path: _text(path, data) if data or path.exists() else None
        for path, data in ((settings_path, settings), (local_path, local), (mcp_path, mcp))
    }
    if writes[local_path] is not None and (note := local_settings_note(root)):
        notes.append(note)
    ignored = ignored_shared_files(root) if portable else []
    if ignored:
        notes.append(shared_ignored_note(ignored))
    return InstallPlan(
        {p: t for p, t in writes.items() if t is not None or p.exists()}, notes, managed
    )


def _text(path: Path, data: dict[str, Any]) -> str:
    """``data`` as the file's text; an existing file that already holds exactly ``data``
    keeps its own bytes (no reformatting of a file Charter adds nothing to)."""
    old = _read(path)
    if old is not None:
        try:
            if json.loads(old or "{}") == data:
                return old
        except ValueError:
            pass
    return _dump(data, old)


def _set(data: dict[str, Any], key: str, value: Any) -> None:
    if value:
        data[key] = value
    else:
        data.pop(key, None)


def _recorded_excludes(record: Path) -> set[str]:
    """claudeMdExcludes entries an earlier install added (to replace, not duplicate)."""
    if not record.exists():
        return set()
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except ValueError:
        return set()
    return set(data.get("excluded", [])) if isinstance(data, dict) else set()


def _sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()


def _load_record(backup: Path) -> dict[str, Any]:
    if not backup.exists():
        return {}
    try:
        data = json.loads(backup.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _record(backup: Path, root: Path, plan: InstallPlan) -> None:
    """The files as they were before Charter touched them (read back by uninstall).

    Per file: the bytes from before the first install are kept while the file is still
    what Charter wrote; a file the user edited since has its recorded bytes dropped
    (stale: restoring them would undo the edits), so uninstall removes only Charter's
    entries from it. A file Charter has not written yet is recorded as it is now.

    The record is written ahead of the files, with the hash each is about to get
    (``pending``): an install killed between its writes leaves files that are either
    untouched or exactly what it meant to write, and the next install keeps the bytes
    recorded before it rather than recording Charter's own half-install as "before"."""
    data = _load_record(backup)
    if "before" not in data:
        data["created_dirs"] = [] if (root / ".claude").exists() else [".claude"]
    before = data.get("before") if isinstance(data.get("before"), dict) else {}
    written = data.get("written") if isinstance(data.get("written"), dict) else {}
    pending = data.get("pending") if isinstance(data.get("pending"), dict) else {}
    assert isinstance(before, dict) and isinstance(written, dict) and isinstance(pending, dict)
    for path in plan.writes:
        rel = str(path.relative_to(root))
        now = _read(path)
        ours = {written.get(str(path)), pending.get(str(path))} - {None}
        if not ours:
            before[rel] = now
        elif _sha(now) not in ours and not (rel in before and before[rel] == now):
            before.pop(rel, None)
    data["before"] = before
    data["pending"] = {str(path): _sha(text) for path, text in plan.writes.items()}
    atomic_write_text(backup, json.dumps(data, indent=2, sort_keys=True) + "\n")


def _record_written(backup: Path, plan: InstallPlan) -> None:
    data = _load_record(backup)
    written = data.get("written") if isinstance(data.get("written"), dict) else {}
    assert isinstance(written, dict)
    written.update({str(path): _sha(text) for path, text in plan.writes.items()})
    data["written"] = written
    data.pop("pending", None)
    data["excluded"] = plan.excluded
    atomic_write_text(backup, json.dumps(data, indent=2, sort_keys=True) + "\n")


def _apply(plan: InstallPlan) -> bool:
    changed = False
    for path, text in plan.writes.items():
        old = _read(path)
        if old == text:
            continue
        if text is None:
            path.unlink()
        else:
            atomic_write_text(path, text)
        changed = True
    return changed


def _uninstall_plan(
    root: Path, backup: Path, rules_exclude: list[str], *, dry_run: bool = False
) -> InstallPlan:
    """Per file: back to the recorded bytes when the file is still as Charter left it;
    else only Charter's own entries are removed (and a file left empty that did not exist
    before is deleted). Without a record (``.charter/`` removed), the claudeMdExcludes
    entries taken out are the rule files an install would have excluded, so Claude Code
    loads them again."""
    record = _load_record(backup)
    written = record.get("written") if isinstance(record.get("written"), dict) else {}
    before = record.get("before") if isinstance(record.get("before"), dict) else {}
    pending = record.get("pending") if isinstance(record.get("pending"), dict) else {}
    assert isinstance(written, dict) and isinstance(before, dict) and isinstance(pending, dict)
    if isinstance(record.get("excluded"), list):
        excluded = set(record["excluded"])
    else:
        excluded = {str(p) for p in native_rule_files(root, rules_exclude)}
    writes: dict[Path, str | None] = {}
    stripped: list[str] = []
    restored = 0
    for path in _files(root):
        rel = str(path.relative_to(root))
        now = _read(path)
        # still what Charter wrote, or what a killed install was writing
        ours = {written.get(str(path)), pending.get(str(path))} - {None}
        if rel in before and before[rel] == now:
            continue  # untouched (an install killed before it reached this file)
        if rel in before and _sha(now) in ours:
            writes[path] = before[rel]
            restored += 1
            continue
        if now is None:
            continue
        data = _read_json(path)
        original = json.dumps(data, sort_keys=True)
        hooks = data.get("hooks", {})
        if isinstance(hooks, dict):
            _strip_ours(hooks)
            _set(data, "hooks", hooks)
        excludes = data.get("claudeMdExcludes")
        if isinstance(excludes, list):
            _set(data, "claudeMdExcludes", [e for e in excludes if e not in excluded])
        servers = data.get("mcpServers")
        if path.name == ".mcp.json" and isinstance(servers, dict):
            servers.pop("charter", None)
            _set(data, "mcpServers", servers)
        if json.dumps(data, sort_keys=True) == original:
            continue  # nothing of Charter's in it: the user's bytes stay as they are
        stripped.append(rel)
        writes[path] = (
            None if not data and not isinstance(before.get(rel), str) else _dump(data, now)
        )
    notes = []
    # a dry run says what it would do: "restored" read as done when nothing was written
    removed, restore = ("would remove", "would restore") if dry_run else ("removed", "restored")
    if stripped:
        notes.append(
            f"{removed} Charter's entries from {', '.join(stripped)} (changed since install)"
            + (f"; {restore} the other files as recorded before install" if restored else "")
        )
    elif restored:
        notes.append(f"{restore} the settings recorded before install")
    return InstallPlan(writes, notes, [])
