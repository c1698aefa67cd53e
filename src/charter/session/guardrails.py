"""PreToolUse guardrails: allowed tools and write scopes, failing closed.

Policy (``[session.guardrails]``):

- ``allowed_tools``: globs over tool names (``mcp__*`` included); anything else is denied.
- Write scopes follow the active track's phase. *Planning* (the track has a SPEC.md and
  its PLAN.md does not pass the evaluator yet): writes only under ``planning_scopes``
  (``docs/``, ``artifacts/``), the seed's policy. *Executing* (PLAN.md passes): writes
  within the paths SPEC.md's ``## Scope`` declares, plus the planning scopes. *Unscoped*
  (no SPEC.md, e.g. the track created from the git branch on first use): only the
  always-protected rules, so a user who never wrote a spec is never blocked from coding.
- Always protected: anything outside the project root (except scratch dirs such as
  ``/tmp``), ``.git/``, ``.charter/`` (and ``protected``), secret files.

Paths are normalised before any check (``~``, ``..``, backslashes, symlinks resolved).
Bash commands go through :mod:`charter.session.shell`; a write that cannot be resolved
gets ``ask``. A blocked call is denied with the reason and one JSONL audit line. Any
error, including a broken config, denies writes with a clear reason (fail closed);
read-only tools still pass, so the agent can read its way out.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import posixpath
import re
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charter.config import Project
from charter.errors import describe
from charter.rules.agent_tools import AGENT_TOOLS
from charter.rules.commands import (
    DEPENDENCY_ADDS,
    ForbiddenCommand,
    current_branch,
    first_violation,
)
from charter.rules.edits import ForbiddenEdit, first_edit_violation
from charter.rules.stored import Prohibitions
from charter.state_ignore import ensure_local_dir

if TYPE_CHECKING:
    from charter.secretscan.settings import SecretsSettings

#: Tools that never write: they pass even when the guardrails themselves fail.
READ_ONLY_TOOLS = {
    "Read",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "TodoRead",
    "Task",
    "Agent",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
    "TaskOutput",
    "ExitPlanMode",
    "EnterPlanMode",
    "BashOutput",
    "KillShell",
    "KillBash",
    "NotebookRead",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "AskUserQuestion",
    "Skill",
    "SlashCommand",
    "ToolSearch",
}
FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
SHELL_TOOLS = {"Bash"}
#: Tools whose input is a patch that names the files it writes: Codex's ``apply_patch``
#: (its only file-editing tool; the hook gets the patch text as ``command``).
PATCH_TOOLS = {"apply_patch": "command"}
_PATCH_TARGET = re.compile(
    r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)[ \t]*$", re.M
)
#: Names of other tools (MCP servers, plugins) that write the path in their input.
_WRITING_TOOL = re.compile(
    r"(write|edit|create|delete|remove|move|rename|patch|replace|insert|mkdir|upload|save)",
    re.I,
)
_PATH_KEYS = ("file_path", "path", "notebook_path", "filename", "destination", "target")
#: Names a glob could expand to that the policy protects (dot names need a dot pattern).
_GLOB_PROBES = (".git", ".charter", ".env", ".env.local", "id_rsa", "server.pem", "server.key")
EVALUATOR_CACHE = "session/evaluator.json"
_ASK_USER = "if the change is needed, ask the user to make it"
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class Policy:
    """Everything a decision needs, resolved once per call (cheap: a few stats)."""

    root: str
    home: str
    phase: str  # unscoped | planning | executing
    track: str | None
    scopes: tuple[str, ...]
    protected: tuple[str, ...]
    secrets: tuple[str, ...]
    scratch: tuple[str, ...]
    allowed_tools: tuple[str, ...]
    phase_note: str = ""
    phase_hint: str = ""  # what the agent can do about a write outside the scope
    check_dirs: bool = True
    #: commands and files the compiled rules forbid outright, and what to do on one
    #: (deny | ask; none listed when the setting is off)
    commands: tuple[ForbiddenCommand, ...] = ()
    rule_commands: str = "deny"
    edits: tuple[ForbiddenEdit, ...] = ()
    rule_edits: str = "deny"
    #: a write whose new text holds a secret (deny | ask | off), and the scanner's
    #: settings (``[secrets]``: detectors, allow-list)
    secret_content: str = "ask"
    secrets_settings: SecretsSettings | None = None


@dataclass
class Verdict:
    decision: str  # allow | ask | deny
    reason: str = ""
    targets: list[str] = field(default_factory=list)
    #: the targets whose text the call edits (a file tool's, a shell ``sed -i``'s), which
    #: "do not edit X" forbids; a build's redirection, a removal or a copy is not among them
    edited: list[str] = field(default_factory=list)
    #: a rule holds the call until the user asks for it: the words (the act, the package,
    #: the file) whose mention in the user's current prompt is that ask
    consent: tuple[str, ...] = ()


# -- the policy ---------------------------------------------------------------------------


def _realpath(path: str) -> str:
    return os.path.realpath(path)


def build_policy(project: Project) -> Policy:
    """The project's policy now: settings plus the active track's phase."""
    from charter.session.tracks import Tracks

    settings = project.settings.session
    g = settings.guardrails
    root = _realpath(str(project.root))
    track = Tracks(project.root, settings).active()
    phase, note, hint = "unscoped", "", ""
    scopes: tuple[str, ...] = ()
    if track is not None:
        track_dir = project.root / settings.tracks_dir / track
        spec_path = track_dir / "SPEC.md"
        if spec_path.is_file():
            passed, summary, spec_scope = evaluation_verdict(project, track)
            base = (*g.planning_scopes, settings.tracks_dir.rstrip("/") + "/")
            spec = f"{settings.tracks_dir.rstrip('/')}/{track}/SPEC.md"
            if passed:
                phase, scopes = "executing", (*spec_scope, *base)
                note = f"track {track} is executing (PLAN.md passes the evaluator)"
                hint = f"if the path belongs to this track, add it to {spec}'s `## Scope` first"
            else:
                phase, scopes = "planning", base
                note = (
                    f"track {track} is planning: its PLAN.md does not pass "
                    f"`charter session evaluate` yet ({summary})"
                )
                hint = f"finish the plan first (run `charter session evaluate`; scope: {spec})"
    dirs = [*g.scratch_dirs, tempfile.gettempdir()]
    scratch = tuple(dict.fromkeys(_realpath(os.path.expanduser(d)) for d in dirs if d))
    return Policy(
        root=root,
        home=os.path.expanduser("~"),
        phase=phase,
        track=track,
        scopes=tuple(_scope(s) for s in scopes if _scope(s)),
        protected=tuple(p.strip("/") for p in g.protected if p.strip("/")),
        secrets=tuple(s.lower() for s in g.secret_files),
        scratch=scratch,
        allowed_tools=tuple(g.allowed_tools),
        phase_note=note,
        phase_hint=hint,
        **_prohibitions(project, g.rule_commands, g.rule_edits),
        rule_commands=g.rule_commands,
        rule_edits=g.rule_edits,
        secret_content=g.secret_content,
        secrets_settings=getattr(project.settings, "secrets", None),
    )


def _prohibitions(project: Project, commands: str, edits: str) -> dict[str, Any]:
    if commands == "off" and edits == "off":
        return {}
    found = rule_prohibitions(project)
    return {
        "commands": tuple(found.commands) if commands != "off" else (),
        "edits": tuple(found.edits) if edits != "off" else (),
    }


#: per project: (stamp of the compiled rules' manifest, what they forbid, the rule files'
#: stamps when they were compiled)
_PROHIBITIONS: dict[str, tuple[tuple[int, int, int], Prohibitions, dict[str, Any]]] = {}
#: per project: (the rule files' stamps now, what they forbid as they are now), for rule
#: files edited since the last compile
_EDITED: dict[str, tuple[tuple[tuple[str, int, int], ...], Prohibitions]] = {}


def rule_prohibitions(project: Project) -> Prohibitions:
    """The commands and files the rules forbid outright. The last compile's, re-read only
    when a compile committed new rules; but a rule file edited since (by the user, or by
    the agent asked to add a rule) is read again at once, without embedding anything, so
    "never run X" added mid-turn holds X from the next tool call, not from the next
    prompt's recompile. No compiled rules (none yet, torn, another version): none."""
    from charter.rules.stored import MANIFEST_FILE, load_prohibitions, load_rules, prohibitions_of

    manifest = project.state_dir / MANIFEST_FILE
    try:
        info = manifest.stat()
    except OSError:
        return Prohibitions([], [])
    stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
    key = str(project.state_dir)
    cached = _PROHIBITIONS.get(key)
    if cached is None or cached[0] != stamp:
        found = load_prohibitions(project)
        if found is None:  # compiled before the prohibitions had their own file
            stored = load_rules(project)
            found = prohibitions_of(stored.rules) if stored is not None else Prohibitions([], [])
        cached = (stamp, found, _compiled_stamps(manifest))
        _PROHIBITIONS[key] = cached
        _EDITED.pop(key, None)
    return _as_edited(project, key, cached[1], cached[2])


def _compiled_stamps(manifest: Path) -> dict[str, Any]:
    """Each compiled rule file's (mtime, size) as the last compile read it."""
    try:
        stamps = json.loads(manifest.read_text(encoding="utf-8")).get("stamps", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return stamps if isinstance(stamps, dict) else {}


def _as_edited(
    project: Project, key: str, stored: Prohibitions, compiled: dict[str, Any]
) -> Prohibitions:
    """``stored``, or what the rule files forbid as they are now if one changed since."""
    now: list[tuple[str, int, int]] = []
    changed = False
    for path, was in sorted(compiled.items()):
        try:
            st = os.stat(path)
            current = (path, st.st_mtime_ns, st.st_size)
        except OSError:
            current = (path, -1, -1)
        now.append(current)
        changed = changed or list(current[1:]) != list(was if isinstance(was, list) else [])
    if not changed:
        return stored
    stamps = tuple(now)
    seen = _EDITED.get(key)
    if seen is not None and seen[0] == stamps:
        return seen[1]
    from charter.rules.compiler import prohibitions_now

    try:
        found = prohibitions_now(project)
    except Exception:  # an unreadable edit keeps the compiled rules' holds
        return stored
    _EDITED[key] = (stamps, found)
    return found


def _scope(entry: str) -> str:
    """A SPEC ``## Scope`` bullet as a path or glob: its first token, without backticks."""
    text = entry.strip().strip("`").strip()
    token = text.split()[0].strip("`,;:") if text.split() else ""
    token = token.removeprefix("./").lstrip("/")
    return token


def scope_matches(rel: str, scope: str, *, tree: bool = False) -> bool:
    """Whether ``rel`` (relative to the root) lies in ``scope`` (a dir, file or glob)."""
    if scope in ("", ".", "**", "*") and not tree:
        return scope != ""
    if _GLOB_CHARS.search(scope):
        if tree:  # a directory-wide write is in a glob scope only if it is under its prefix
            prefix = _GLOB_CHARS.split(scope)[0].rsplit("/", 1)[0]
            return (
                bool(prefix)
                and scope.endswith("**")
                and (rel == prefix or rel.startswith(prefix + "/"))
            )
        from charter.search.discover import glob_regex

        return bool(glob_regex(scope).match(rel))
    bare = scope.rstrip("/")
    return rel == bare or rel.startswith(bare + "/")


def _inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def _check_target(policy: Policy, path: str, why: str, flags: dict[str, bool]) -> tuple[str, str]:
    """("allow"|"ask"|"deny"|"deny-scope", reason) for one written path; "deny-scope" is
    a write outside the track's scope, which a rule's own prohibition outranks (its
    hint, widen the scope, would only lead to the rule's denial)."""
    if path in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"):
        return "allow", ""
    name = posixpath.basename(path)
    globbed = bool(_GLOB_CHARS.search(name))
    if not _inside(path, policy.root):
        # Scratch space is writable, except beside the project itself (``../x`` of a
        # project that happens to live under /tmp is still an escape).
        beside = _inside(path, posixpath.dirname(policy.root))
        if not beside and any(_inside(path, s) for s in policy.scratch):
            return "allow", ""
        elsewhere = (
            " (a neighbour of the project is not scratch space)"
            if beside
            else f", or under a scratch directory ({', '.join(policy.scratch)})"
        )
        return "deny", (
            f"{why}: {path} is outside the project root ({policy.root}); write inside the "
            f"project{elsewhere}; {_ASK_USER}"
        )
    rel = posixpath.relpath(path, policy.root) if path != policy.root else ""
    shown = rel or "."
    parts = [p.casefold() for p in rel.split("/")] if rel else []
    for prot in policy.protected:
        prot_l = prot.casefold()
        if rel.casefold() == prot_l or rel.casefold().startswith(prot_l + "/"):
            return "deny", (
                f"{why}: {rel} is protected ({prot}/ is never written by the agent); {_ASK_USER}"
            )
        if flags.get("recursive") and (rel == "" or prot_l.startswith(rel.casefold() + "/")):
            if why.startswith("git ") and prot_l.strip("/") == ".git":
                continue  # git's own work-tree commands (git clean) never delete .git
            return "deny", (
                f"{why}: {shown} contains the protected {prot}/; limit it to the paths you "
                "mean (a subdirectory, the files by name)"
            )
    if ".git" in parts[:-1] or (parts and parts[-1] == ".git"):
        return "deny", f"{why}: {rel} is inside a git directory; {_ASK_USER}"
    if globbed:
        for probe in _GLOB_PROBES:
            if probe.startswith(".") and not name.startswith("."):
                continue  # bash globs never match dot names without a leading dot
            if fnmatch.fnmatchcase(probe, name) and (
                _is_secret(probe, policy.secrets)
                or (
                    posixpath.dirname(path) == policy.root
                    and probe.strip(".") in {p.strip(".") for p in policy.protected}
                )
            ):
                return "deny", (
                    f"{why}: the glob {rel} can match the protected {probe}; name the files instead"
                )
    elif _is_secret(name.casefold(), policy.secrets):
        return "deny", (
            f"{why}: {rel} is a secret file (never written by the agent; "
            f"[session.guardrails] secret_files); {_ASK_USER}"
        )
    if flags.get("link_source") or policy.phase == "unscoped":
        return "allow", ""
    if any(scope_matches(rel, s, tree=flags.get("tree", False)) for s in policy.scopes):
        return "allow", ""
    where = ", ".join(policy.scopes)
    if flags.get("tree"):
        return "ask", f"{why} may rewrite files under {shown}; {policy.phase_note}; " + (
            f"writes go only to {where}"
        )
    return "deny-scope", (
        f"{why}: {shown} is outside the write scope ({where}); {policy.phase_note}; "
        f"{policy.phase_hint}"
    )


def _is_secret(name: str, secrets: tuple[str, ...]) -> bool:
    from charter.secretscan.settings import is_env_template

    name = name.casefold()
    if is_env_template(name):
        return False
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in secrets)


def _tool_allowed(policy: Policy, tool: str) -> bool:
    return any(fnmatch.fnmatchcase(tool, pattern) for pattern in policy.allowed_tools)


def decide(policy: Policy, tool: str, tool_input: dict[str, Any], cwd: str) -> Verdict:
    """The verdict for one tool call under ``policy`` (pure: no files written)."""
    from charter.session.shell import analyse, normalise

    if not _tool_allowed(policy, tool):
        return Verdict(
            "deny",
            f"tool {tool} is not in [session.guardrails] allowed_tools "
            f"({', '.join(policy.allowed_tools)})",
        )
    if tool.startswith("mcp__") or tool in AGENT_TOOLS:
        ruled_tool = _ruled_tool(policy, tool)
        if ruled_tool is not None:
            return ruled_tool
    cwd = normalise(cwd or policy.root, policy.root, policy.home)
    checks: list[tuple[str, str, dict[str, bool]]] = []
    asks: list[str] = []
    ruled, held = "", ""  # why a rule forbids the command, if one does, and the decision
    consent: tuple[str, ...] = ()
    if tool in FILE_TOOLS:
        raw = tool_input.get(FILE_TOOLS[tool])
        if not isinstance(raw, str) or not raw.strip():
            return Verdict("deny", f"{tool} without a {FILE_TOOLS[tool]}: cannot check the write")
        unread = _text_not_a_string(tool, tool_input)
        if unread:
            return Verdict("deny", f"{tool} whose {unread} is not text: cannot check the write")
        checks.append((normalise(raw, cwd, policy.home), tool, {}))
    elif tool in PATCH_TOOLS:
        patch = tool_input.get(PATCH_TOOLS[tool])
        paths = _PATCH_TARGET.findall(patch) if isinstance(patch, str) else []
        if not paths:
            return Verdict("deny", f"{tool} without a file header: cannot check the write")
        checks += [(normalise(p, cwd, policy.home), tool, {}) for p in paths]
    elif tool in SHELL_TOOLS:
        command = tool_input.get("command")
        if not isinstance(command, str):
            return Verdict("deny", "Bash without a command string: cannot check it")
        analysis = analyse(command, cwd, policy.home, check_dirs=policy.check_dirs)
        for t in analysis.targets:
            flags = {"recursive": t.recursive, "tree": t.tree, "link_source": t.link_source}
            checks.append((t.path, t.why, flags))
        asks.extend(analysis.unresolved)
        held, ruled, consent = _ruled_command(policy, analysis.commands)
    elif tool not in READ_ONLY_TOOLS and _WRITING_TOOL.search(tool.rsplit("__", 1)[-1]):
        for key in _PATH_KEYS:
            raw = tool_input.get(key)
            if isinstance(raw, str) and raw.strip():
                checks.append((normalise(raw, cwd, policy.home), f"{tool} {key}", {}))
    denies: list[str] = []
    outside_scope: list[str] = []
    targets: list[str] = []
    for path, why, flags in checks:
        decision, reason = _check_target(policy, path, why, flags)
        targets.append(path)
        if decision == "deny":
            denies.append(reason)
        elif decision == "deny-scope":
            outside_scope.append(reason)
        elif decision == "ask":
            asks.append(reason)
    if denies:
        more = f" (+{len(denies) - 1} more)" if len(denies) > 1 else ""
        return Verdict("deny", denies[0] + more, targets)
    if ruled:
        return Verdict(held, ruled, targets, consent=consent)
    hand = [path for path, why, _ in checks if _hand_edit(why)]
    held, edited, asked_for = _ruled_edit(policy, hand)
    if edited:
        return Verdict(held, edited, targets, hand, consent=asked_for)
    if outside_scope:
        more = f" (+{len(outside_scope) - 1} more)" if len(outside_scope) > 1 else ""
        return Verdict("deny", outside_scope[0] + more, targets)
    leaked = _secret_written(policy, tool, tool_input, targets)
    if leaked:
        return Verdict(policy.secret_content, leaked, targets)
    if asks:
        more = f" (+{len(asks) - 1} more)" if len(asks) > 1 else ""
        return Verdict("ask", f"cannot verify this write: {asks[0]}{more}", targets, hand)
    return Verdict("allow", "", targets, hand)


#: The key of the text each file tool writes (MultiEdit's are inside ``edits``).
_TEXT_KEYS = {"Write": "content", "Edit": "new_string", "NotebookEdit": "new_source"}


def _text_not_a_string(tool: str, tool_input: dict[str, Any]) -> str:
    """The key of a file tool's text when it is there but not a string ("" otherwise).

    A ``Write`` whose ``content`` was a list (a harness's bug, or a crafted call) was
    read as no text, so a token inside it passed the secret check unseen."""
    key = _TEXT_KEYS.get(tool)
    if key is not None:
        value = tool_input.get(key)
        return key if value is not None and not isinstance(value, str) else ""
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if edits is None:
            return ""
        if not isinstance(edits, list):
            return "edits"
        for edit in edits:
            text = edit.get("new_string") if isinstance(edit, dict) else edit
            if text is not None and not isinstance(text, str):
                return "edits' new_string"
    return ""


def _written_text(tool: str, tool_input: dict[str, Any]) -> str:
    """The new text a file tool puts into its file (only what it adds)."""
    if tool == "Write":
        value = tool_input.get("content")
        return value if isinstance(value, str) else ""
    if tool == "Edit":
        value = tool_input.get("new_string")
        return value if isinstance(value, str) else ""
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list):
            return ""
        return "\n".join(str(e.get("new_string", "")) for e in edits if isinstance(e, dict))
    if tool == "NotebookEdit":
        value = tool_input.get("new_source")
        return value if isinstance(value, str) else ""
    if tool in PATCH_TOOLS:
        patch = tool_input.get(PATCH_TOOLS[tool])
        if not isinstance(patch, str):
            return ""
        return "\n".join(
            line[1:] for line in patch.splitlines() if line.startswith("+") and line[1:2] != "+"
        )
    return ""


def _secret_written(
    policy: Policy, tool: str, tool_input: dict[str, Any], targets: list[str]
) -> str:
    """Why the write puts a secret into a file ("" when it does not).

    A secret file is refused by its name; a key pasted into ``src/config.js`` or a
    token into ``.cargo/config.toml`` is found only by what is written. The scanner is
    the one that keeps secrets out of what Charter stores and serves (precise token
    formats, private keys, the quoted ``password = "..."`` rule; placeholders and the
    ``[secrets] allow`` list pass), so the agent is held to the same standard."""
    if policy.secret_content == "off" or tool not in _HAND_EDITS:
        return ""
    text = _written_text(tool, tool_input)
    if not text.strip():
        return ""
    from charter.secretscan.apply import text_kind
    from charter.secretscan.scanner import could_hold_secret, scanner_for

    if not could_hold_secret(text):
        return ""
    target = targets[0] if targets else ""
    rel = os.path.relpath(target, policy.root) if _inside(target, policy.root) else target
    kind = "code" if os.path.splitext(rel)[1] not in ("", ".md", ".txt", ".rst") else "prose"
    scanner = scanner_for(policy.secrets_settings)
    lines = text.split("\n")
    deadline = time.monotonic() + _SECRET_SCAN_SECONDS
    # the first secret is enough: the text is read in blocks, and a large generated file
    # full of credential words is read for at most a moment (the tool call is waiting)
    for start in range(0, len(lines), _SECRET_BLOCK_LINES):
        if time.monotonic() > deadline:
            break
        block = "\n".join(lines[start : start + _SECRET_BLOCK_LINES])
        if not could_hold_secret(block):
            continue
        found = scanner.redact(block, path=rel, kind=text_kind(kind, rel)).findings
        if found:
            return (
                f"the text written to {rel} holds what looks like a secret "
                f"({found[0].detector}, line {start + found[0].line} of the new text): "
                f"keep secrets in the environment or a secret store, not in files "
                f"([session.guardrails] secret_content); {_ASK_USER}"
            )
    return ""


#: Lines of written text scanned at a time for a secret (a private key block is ~30).
_SECRET_BLOCK_LINES = 200
#: How long one write is read for secrets at most.
_SECRET_SCAN_SECONDS = 0.5


def _invocations(
    policy: Policy, commands: list[tuple[tuple[str | None, ...], str | None]]
) -> list[tuple[tuple[str | None, ...], str | None]]:
    """Each simple command's argv with the directory it runs in, relative to the
    project (None: outside it, or unknown)."""
    invocations = []
    for argv, cwd in commands:
        rel = None
        if cwd is not None and _inside(cwd, policy.root):
            rel = posixpath.relpath(cwd, policy.root) if cwd != policy.root else ""
        invocations.append((argv, rel))
    return invocations


def _consent_words(rule: ForbiddenCommand, ran: Sequence[str | None]) -> tuple[str, ...]:
    """What the user names when they ask for what ``rule`` holds: the command's last
    word ("push", "publish", "pytest"), what its slots were given (the package added),
    or its options' names ("no-verify")."""
    if rule.trailer:  # "unless the user asks" for a co-author: naming the trailer asks
        return ("co-author", "co-authored-by", "coauthor")
    given = [a for a in ran[1:] if a is not None and not a.startswith("-")]
    words = [w for w in rule.words if not w.startswith("<")]
    if (rule.program, rule.words) in DEPENDENCY_ADDS:  # "add httpx": the package, not "add"
        return tuple(dict.fromkeys(given[len(words) :]))
    slots = given[len(rule.words) - 1 :] if any(w.startswith("<") for w in rule.words) else []
    found = ([words[-1]] if words else []) + slots + [f.lstrip("-") for f in rule.flags]
    return tuple(dict.fromkeys(w for w in found if len(w) > 1))


def pending_files(root: Path) -> list[tuple[str, bool]]:
    """(project-relative path, tracked) of the changed tracked files and the untracked,
    not ignored, files of the git work tree at ``root`` (two ``git ls-files``; none when
    git cannot tell)."""
    import subprocess

    found: list[tuple[str, bool]] = []
    for option, tracked in (("--modified", True), ("--others", False)):
        try:
            out = subprocess.run(
                ["git", "-C", str(root), "ls-files", "-z", "--exclude-standard", option],
                capture_output=True,
                timeout=3,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return []
        if out.returncode != 0:
            return []
        found += [(p, tracked) for p in out.stdout.decode("utf-8", "replace").split("\0") if p]
    return found


def _ruled_tool(policy: Policy, tool: str) -> Verdict | None:
    """The verdict on calling the MCP tool ``tool`` when a rule forbids it ("Do NOT use
    `mcp__supabase__apply_migration`"), None when none does: denied (``rule_commands``),
    or asked when the rule waits for the user's consent."""
    hits = [c for c in policy.commands if c.matches_tool(tool)]
    if not hits:
        return None
    rule = next((c for c in hits if not c.consent), hits[0])
    text = rule.rule_text if len(rule.rule_text) <= 240 else rule.rule_text[:239] + "…"
    if rule.consent:
        return Verdict(
            "ask",
            f"a project rule allows the tool {tool} only when the user asks for it "
            f'({rule.cite}: "{text}"). Call it only if the user confirms',
            consent=(tool, tool.rsplit("__", 1)[-1]),
        )
    return Verdict(
        policy.rule_commands,
        f'a project rule forbids the tool {tool} ({rule.cite}: "{text}"). '
        "Follow the rule; if it does not apply here, ask the user",
    )


def _ruled_command(
    policy: Policy, commands: list[tuple[tuple[str | None, ...], str | None]]
) -> tuple[str, str, tuple[str, ...]]:
    """(decision, why) when a rule forbids one of ``commands``, ("", "") when none does.
    A rule that forbids outright wins over one that waits for the user's consent, which
    is asked for (``ask``) whatever ``rule_commands`` says, unless that is ``off``."""
    if not policy.commands:
        return "", "", ()
    invocations = list(_invocations(policy, commands))
    branches: dict[str | None, str | None] = {}

    def branch_of(cwd_rel: str | None) -> str | None:
        """The branch checked out where a push or commit runs (read once per
        directory)."""
        if cwd_rel not in branches:
            here = Path(policy.root, cwd_rel) if cwd_rel is not None else None
            branches[cwd_rel] = current_branch(here) if here is not None else None
        return branches[cwd_rel]

    waiting: list[list[tuple[str, bool]]] = []

    def pending() -> list[tuple[str, bool]]:
        """The project's changed and untracked (not ignored) files, read once: what
        `git add -A` would stage, for a rule that forbids committing some of them."""
        if not waiting:
            waiting.append(pending_files(Path(policy.root)))
        return waiting[0]

    outright = [c for c in policy.commands if not c.consent]
    hit = first_violation(outright, invocations, branch_of, pending)
    decision = policy.rule_commands
    if hit is None:
        asked = [c for c in policy.commands if c.consent]
        hit = first_violation(asked, invocations, branch_of, pending)
        decision = "ask"
    if hit is None:
        return "", "", ()
    rule, ran = hit
    shown = " ".join(a if a is not None else "…" for a in ran)
    text = rule.rule_text if len(rule.rule_text) <= 240 else rule.rule_text[:239] + "…"
    onto = "a commit on" if rule.words == ("commit",) else "a push to"
    what = f"`{shown[:120]}`" + (f" ({onto} `{rule.branch}`)" if rule.branch else "")
    if rule.consent:
        return (
            decision,
            f"a project rule allows {what} only when the user asks for it "
            f'({rule.cite}: "{text}"). Run it only if the user confirms',
            _consent_words(rule, ran),
        )
    return (
        decision,
        f'a project rule forbids {what} ({rule.cite}: "{text}"). '
        "Follow the rule; if it does not apply here, ask the user to run the command",
        (),
    )


#: The writes a rule against editing a file holds: the agent's own file tools. A build or
#: generator the shell runs rewrites its output; that is what such rules ask for.
_HAND_EDITS = frozenset({*FILE_TOOLS, *PATCH_TOOLS})

#: How a shell command rewrites a file's text in place, as :mod:`charter.session.shell`
#: names its targets: ``sed -i``, ``awk -i inplace``, ``perl -i``. "Do not edit `dist/`
#: by hand" is broken by ``sed -i … dist/x.js`` as much as by an Edit. A redirection or
#: ``tee`` is not counted: it is how a build writes the output it owns (``make build >
#: dist/app.js``), and a copy, move or removal is no edit of the text.
_SHELL_EDIT = re.compile(r"^(?:\S+ in place|perl -i)\b")


def _hand_edit(why: str) -> bool:
    """Whether a target was written as an edit of its text (a file tool or a shell edit)."""
    return why in _HAND_EDITS or bool(_SHELL_EDIT.match(why))


def _ruled_edit(policy: Policy, paths: list[str]) -> tuple[str, str, tuple[str, ...]]:
    """(decision, why) when a rule forbids editing one of ``paths``, ("", "") when none
    does; as for commands, a rule waiting for the user's consent asks."""
    if not policy.edits:
        return "", "", ()
    inside = [
        posixpath.relpath(p, policy.root)
        for p in paths
        if p != policy.root and _inside(p, policy.root)
    ]
    root = str(policy.root)
    hit = first_edit_violation([e for e in policy.edits if not e.consent], inside, root)
    decision = policy.rule_edits
    if hit is None:
        hit = first_edit_violation([e for e in policy.edits if e.consent], inside, root)
        decision = "ask"
    if hit is None:
        return "", "", ()
    rule, rel = hit
    text = rule.rule_text if len(rule.rule_text) <= 240 else rule.rule_text[:239] + "…"
    if rule.consent:
        named = (posixpath.basename(rel), rule.path.strip("/").rsplit("/", 1)[-1])
        return (
            decision,
            f"a project rule allows editing `{rel}` only when the user asks for it "
            f'({rule.cite}: "{text}"). Edit it only if the user confirms',
            tuple(dict.fromkeys(w for w in named if w and "*" not in w)),
        )
    if rule.created:
        return (
            decision,
            f"a project rule forbids creating a new file directly in `{rule.pattern}` "
            f'(`{rel}`; {rule.cite}: "{text}"). Put it where the rule says (a subfolder); '
            "if it does not apply here, ask the user",
            (),
        )
    return (
        decision,
        f'a project rule forbids editing `{rel}` ({rule.cite}: "{text}"). '
        "Change what the rule points to instead (its source or generator); if it does not "
        "apply here, ask the user",
        (),
    )


def _user_forbidden(
    project: Project, payload: dict[str, Any], policy: Policy, verdict: Verdict, decision: str
) -> Verdict:
    """``verdict``, or ``decision`` (ask | deny) when the user told this session not to
    edit one of its targets (:mod:`charter.session.forbidden`)."""
    from charter.session.forbidden import user_forbidden_edits
    from charter.session.service import Session

    session_id = str(payload.get("session_id") or "")
    if not session_id or not (project.state_dir / "session.db").is_file():
        return verdict
    inside = [
        posixpath.relpath(p, policy.root)
        for p in verdict.edited
        if p != policy.root and _inside(p, policy.root)
    ]
    if not inside:
        return verdict
    session = Session(project)
    try:
        track = policy.track or session.tracks.current()
        forbidden = user_forbidden_edits(session, session_id, track)
    except (sqlite3.Error, OSError):
        # the journal is busy or unreadable: the user's words are a courtesy check, the
        # protected paths above were checked, so the call is not denied for it
        return verdict
    finally:
        session.close()
    for rel in inside:
        for edit in reversed(forbidden):  # the newest words first
            if edit.matches(rel):
                words = edit.words if len(edit.words) <= 240 else edit.words[:239] + "…"
                return Verdict(
                    decision,
                    f'the user told this session not to edit `{rel}` ("{words}"). '
                    "Leave it alone; if the change is needed there, ask the user",
                    verdict.targets,
                )
    return verdict


def _asked_for(
    project: Project, payload: dict[str, Any], policy: Policy, verdict: Verdict
) -> Verdict:
    """``verdict`` (held until the user asks), or allow when the user's current prompt
    asks for it: names one of ``verdict.consent`` ("commit and push", "add httpx") in a
    sentence that does not negate it. Only the prompt of this turn counts, as a rule
    "unless explicitly requested" means; a journal that cannot be read leaves the
    question to the user."""
    from charter.rules.negation import clauses, negated

    text = _newest_prompt(project, payload, policy)
    if not text:
        return verdict
    wanted = {w.lower() for w in verdict.consent}
    for start, end in clauses(text):
        sentence = _for_the_agent(text[start:end])
        said = set(re.findall(r"[\w./@+-]+", sentence.lower()))
        said |= {w.rstrip(".,;:!?") for w in said}
        said |= {part for w in said for part in w.split("/") if part}  # "db/schema.rb"
        if wanted & said and not negated(sentence):
            return Verdict("allow", "", verdict.targets, verdict.edited)
    return verdict


def _newest_prompt(project: Project, payload: dict[str, Any], policy: Policy) -> str:
    """The user's prompt of this turn (in the session or the sessions it resumed, on the
    active track); ``""`` when there is none or the journal cannot be read."""
    from charter.session.journal import resumed_chain
    from charter.session.service import Session, session_key

    session_id = str(payload.get("session_id") or "")
    if not session_id or not (project.state_dir / "session.db").is_file():
        return ""
    try:
        session = Session(project)
        try:
            track = policy.track or session.tracks.current()
            journal = session.journal
            chain = resumed_chain(journal, track, session_key(session_id))
            prompts = [
                e
                for sid in chain
                for e in journal.events(session=sid, track=track, kinds=("prompt",))
            ]
        finally:
            session.close()
    except (sqlite3.Error, OSError):
        return ""
    if not prompts:
        return ""
    return str(max(prompts, key=lambda e: e.seq).data.get("text") or "")


#: Git's act as a verb the user says to the agent: at the start of a clause, or after
#: words that ask or allow ("go ahead and commit", "yes commit", "you can push now",
#: "can you commit that?"); not a noun ("fix the commit message") nor someone's act
#: ("did you commit?", "I'll commit").
_ACT_ASKED = re.compile(
    r"(?:^|[,;:—–(]\s*|\b(?:and|then|please|pls|now|just|ok|okay|yes|ahead|can|could|"
    r"may|to|go)\s+|\b(?:can|could|would|will)\s+you\s+(?:please\s+)?)"
    r"(?P<act>commit|push|rebase|amend)\b",
    re.IGNORECASE,
)


def _prompt_asks_act(text: str, command: str) -> bool:
    """Whether the user's prompt asks for the git act that ``command`` is (``git commit``
    for "go ahead and commit"), in a sentence that does not negate it."""
    from charter.rules.commands import GIT_ACTS
    from charter.rules.negation import clauses, negated

    acts = {verb for verb, commands in GIT_ACTS.items() if command in commands}
    if not acts:
        return False
    for start, end in clauses(text):
        sentence = text[start:end].strip()
        for match in _ACT_ASKED.finditer(sentence):
            if match.group("act").lower() in acts and not negated(sentence):
                return True
    return False


#: A part of a sentence in which the user says they will do something themselves ("…, I
#: will build it myself", "then I'll push", "let me deploy"): what it names is the user's
#: own act, no request that the agent do it. "I want you to push" asks the agent.
_USERS_OWN = re.compile(
    r"^\W*(?:(?:and|then|but|so|after\s+that|afterwards)\W+)*"
    r"(?:i\s*(?:'ll|will|shall|can|am\s+going\s+to|'m\s+going\s+to|would\s+rather"
    r"|'d\s+rather|prefer\s+to|plan\s+to|intend\s+to)\b"
    r"|let\s+me\s+(?!know\b|see\b))"
    r"|\bmyself\b",
    re.I,
)
_PARTS = re.compile(r"[,;:]|\s[-\u2013\u2014]\s|\s(?=(?:and|then|but|so)\s+(?:i|let)\b)", re.I)


def _for_the_agent(sentence: str) -> str:
    """``sentence`` without the parts in which the user says they will do something
    themselves, so a word naming the act there is no consent for the agent to do it."""
    parts = _PARTS.split(sentence.replace("\u2019", "'"))
    return " ".join(p for p in parts if not _USERS_OWN.search(p))


_RANK = {"allow": 0, "ask": 1, "deny": 2}


def _user_forbidden_command(
    project: Project,
    payload: dict[str, Any],
    policy: Policy,
    verdict: Verdict,
    decision: str,
    command: object,
) -> Verdict:
    """``verdict``, or ``decision`` (ask | deny) when the user told this session not to
    run one of the simple commands of ``command`` (every command of a pipeline or
    ``&&`` chain, as a rule's are checked; :mod:`charter.session.forbidden_commands`).

    Nothing marked (most sessions): one indexed read of the journal. The journal cannot
    be read: the call is asked, not let through (the guardrails fail closed)."""
    from charter.session.forbidden_commands import user_forbidden_commands
    from charter.session.service import Session
    from charter.session.shell import analyse, normalise

    session_id = str(payload.get("session_id") or "")
    if not session_id or not isinstance(command, str):
        return verdict
    if not (project.state_dir / "session.db").is_file():
        return verdict  # no session journaled here yet: the user has said nothing
    try:
        session = Session(project)
        try:
            track = policy.track or session.tracks.current()
            forbidden = user_forbidden_commands(session, session_id, track)
        finally:
            session.close()
    except (sqlite3.Error, OSError) as exc:
        return Verdict(
            "ask",
            f"cannot read what the user told this session not to run ({type(exc).__name__}: "
            f"{exc}); {verdict.reason or 'check the command with the user'}",
            verdict.targets,
        )
    if not forbidden:
        return verdict
    cwd = normalise(str(payload.get("cwd") or policy.root), policy.root, policy.home)
    analysis = analyse(command, cwd, policy.home, check_dirs=policy.check_dirs)
    asked = _newest_prompt(project, payload, policy)
    for argv, rel in _invocations(policy, analysis.commands):
        for held in reversed(forbidden):  # the newest words first
            if held.matches(argv, rel):
                if asked and _prompt_asks_act(asked, held.command.command):
                    # "don't commit anything — I'll review first", then "looks good, go
                    # ahead and commit": this turn's prompt asks for git's act again
                    continue
                shown = " ".join(a if a is not None else "…" for a in argv)
                words = held.words if len(held.words) <= 240 else held.words[:239] + "…"
                if _RANK[decision] < _RANK[verdict.decision]:
                    return verdict
                return Verdict(
                    decision,
                    f'the user told this session not to run `{shown[:120]}` ("{words}"). '
                    "Do not run it; if it is needed, ask the user",
                    verdict.targets,
                )
    return verdict


# -- the evaluator verdict, cached by content ---------------------------------------------

_VERDICTS: dict[str, tuple[bool, str, tuple[str, ...]]] = {}


def _digest(project: Project, track: str) -> str:
    from charter.decisions.store import DecisionStore

    settings = project.settings.session
    h = hashlib.sha256(b"charter.evaluator/1\0")
    h.update(json.dumps(project.settings.drift.model_dump(), sort_keys=True).encode())
    track_dir = project.root / settings.tracks_dir / track
    store = DecisionStore(project.state_dir)
    for path in (track_dir / "SPEC.md", track_dir / "PLAN.md", store.path):
        h.update(b"\0" + path.name.encode() + b"\0")
        try:
            if not path.is_file():  # a FIFO or device would block or never end
                raise FileNotFoundError(path)
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<missing>")
    try:
        info = store.history_path.stat()
        h.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
    except OSError:
        h.update(b"<no history>")
    return h.hexdigest()


def evaluation_verdict(project: Project, track: str) -> tuple[bool, str, tuple[str, ...]]:
    """(passed, one-line summary, SPEC scope) for the track, cached by the sha256 of
    PLAN.md + SPEC.md + the bound decisions (in memory and under ``.charter/``).

    The evaluation reads the files again after the key was taken, so a verdict is cached
    only when the key is the same afterwards: a plan saved during the evaluation must not
    leave the new plan's verdict under the old plan's key (it would be served if the old
    bytes ever came back)."""
    key = _digest(project, track)
    hit = _VERDICTS.get(key)
    if hit is not None:
        return hit
    cache_path = project.state_dir / EVALUATOR_CACHE
    try:
        stored = json.loads(cache_path.read_text(encoding="utf-8"))
        if not isinstance(stored, dict):
            stored = {}
    except (OSError, ValueError):
        stored = {}
    entry = stored.get(key)
    if isinstance(entry, dict) and isinstance(entry.get("passed"), bool):
        result = (entry["passed"], str(entry.get("summary", "")), tuple(entry.get("scope", [])))
    else:
        from charter.session.evaluator import evaluate
        from charter.session.service import Session

        session = Session(project)
        try:
            evaluation = evaluate(session, track)
        finally:
            session.close()
        result = (evaluation.passed, evaluation.summary(), tuple(evaluation.scope))
        if _digest(project, track) != key:
            return result  # the inputs changed while they were read: answer, do not cache
        stored = {k: v for k, v in list(stored.items())[-15:]}
        stored[key] = {"passed": result[0], "summary": result[1], "scope": list(result[2])}
        try:
            from charter.fileio import atomic_write_text

            atomic_write_text(cache_path, json.dumps(stored, sort_keys=True) + "\n")
        except OSError:
            pass  # the cache is an optimisation; the verdict stands
    if len(_VERDICTS) > 64:
        _VERDICTS.clear()
    _VERDICTS[key] = result
    return result


# -- config freshness (the warm worker outlives edits of charter.toml) --------------------

_CONFIG_STAMPS: dict[str, tuple[Any, Project]] = {}


def _config_stamp(root: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for name in ("charter.toml", "pyproject.toml"):
        try:
            info = (root / name).stat()
            out.append((name, info.st_mtime_ns, info.st_size))
        except OSError:
            out.append((name, 0, -1))
    return tuple(out)


def current_project(project: Project) -> Project:
    """``project``, reloaded when its config file changed since we last saw it (a broken
    config raises: the caller fails closed)."""
    key = str(project.root)
    stamp = _config_stamp(project.root)
    seen = _CONFIG_STAMPS.get(key)
    if seen is None:
        _CONFIG_STAMPS[key] = (stamp, project)
        return project
    if seen[0] == stamp:
        return seen[1]
    fresh = Project.load(project.root)
    _CONFIG_STAMPS[key] = (stamp, fresh)
    return fresh


# -- the hook -----------------------------------------------------------------------------


def _output(decision: str, reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": f"Charter guardrails: {reason}",
        }
    }


def fail_closed_output(payload: dict[str, Any], reason: str) -> dict[str, Any] | None:
    """The answer when the guardrails cannot run: deny writes, let read-only tools pass."""
    tool = str(payload.get("tool_name") or "") if isinstance(payload, dict) else ""
    if tool in READ_ONLY_TOOLS:
        return None
    return _output(
        "deny",
        f"guardrails failed closed ({reason}); the call was not checked, so it is denied: "
        "`charter doctor` shows what to fix in the setup (a call too large or malformed to "
        "read: retry it smaller or simpler)",
    )


def _event_time(payload: dict[str, Any]) -> str:
    """The time of the newest transcript entry (never the wall clock: audits replay)."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        return ""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 65536))
            tail = handle.read()
    except OSError:
        return ""
    for raw in reversed(tail.splitlines()):
        match = re.search(rb'"timestamp"\s*:\s*"([^"]{1,64})"', raw)
        if match:
            return match.group(1).decode("utf-8", "replace")
    return ""


def audit(project: Project, payload: dict[str, Any], verdict: Verdict, policy: Policy) -> None:
    """One JSON line per blocked (or asked) call, appended under a lock."""
    from charter.fileio import append_line
    from charter.session.capture import portable

    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    assert isinstance(tool_input, dict)
    subject = tool_input.get("command") or tool_input.get("file_path") or ""
    entry = {
        "time": _event_time(payload),
        "session_id": str(payload.get("session_id") or ""),
        "tool_use_id": str(payload.get("tool_use_id") or ""),
        "tool": str(payload.get("tool_name") or ""),
        "decision": verdict.decision,
        "reason": portable(project.root, verdict.reason),
        "subject": portable(project.root, str(subject))[:500],
        "targets": [
            posixpath.relpath(t, policy.root) if _inside(t, policy.root) else t
            for t in verdict.targets[:20]
        ],
        "track": policy.track,
        "phase": policy.phase,
    }
    path = project.root / project.settings.session.guardrails.audit_log
    ensure_local_dir(project.root, path.parent)  # this machine's log: hidden from git
    append_line(path, json.dumps(entry, ensure_ascii=False, sort_keys=True))


def pre_tool_use_output(project: Project, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's answer: None lets the call through; otherwise deny or ask, with why."""
    try:
        project = current_project(project)
        g = project.settings.session.guardrails
        if not g.enabled:
            return None
        tool = payload.get("tool_name")
        if not isinstance(tool, str) or not tool:
            return _output("deny", "the hook input names no tool_name")
        tool_input = payload.get("tool_input")
        if tool_input is None:
            tool_input = {}
        if not isinstance(tool_input, dict):
            return fail_closed_output(payload, "tool_input is not an object")
        policy = build_policy(project)
        verdict = decide(policy, tool, tool_input, str(payload.get("cwd") or project.root))
        if verdict.decision == "ask" and verdict.consent:
            verdict = _asked_for(project, payload, policy, verdict)
        if verdict.decision == "allow" and verdict.edited and g.user_edits != "off":
            verdict = _user_forbidden(project, payload, policy, verdict, g.user_edits)
        if verdict.decision != "deny" and tool in SHELL_TOOLS and g.user_commands != "off":
            verdict = _user_forbidden_command(
                project, payload, policy, verdict, g.user_commands, tool_input.get("command")
            )
        if verdict.decision == "allow":
            return None
        try:
            audit(project, payload, verdict, policy)
        except OSError as exc:
            return _output("deny", f"{verdict.reason} (and the audit log failed: {describe(exc)})")
        return _output(verdict.decision, verdict.reason)
    except Exception as exc:  # fail closed: never let an unchecked write through
        return fail_closed_output(payload, describe(exc))
