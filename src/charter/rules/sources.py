"""Find rule files of every agent format and read them with their front matter.

Each format says how its rules apply: Cursor's ``alwaysApply`` and Kiro's ``inclusion:
always`` put a file in the constitution; ``globs``/``paths``/``applyTo``/``fileMatch``
become repo scopes; a nested CLAUDE.md or AGENTS.md applies to its own subtree. CLAUDE.md
and GEMINI.md ``@path`` imports are followed up to ``max_import_depth`` levels.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charter.boundary import BoundaryError, inside_root
from charter.errors import CharterError
from charter.fileio import NotUtf8, read_text
from charter.paths import NOT_UTF8_NAME, shown_name, utf8_name

#: (kind, glob relative to the project root). Order is the stable discovery order; the
#: first pattern a path matches gives its kind, so the rules folders come first (an
#: ``AGENTS.md`` inside ``.roo/rules-code/`` is that mode's rules, not a nested file;
#: JetBrains Junie's ``.junie/AGENTS.md`` is the project's guidelines, not ``.junie``'s).
SOURCE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("cline-workflow", ".clinerules/workflows/**/*.md"),
    ("cline", ".clinerules/**/*.md"),
    ("cline", ".clinerules"),
    ("roo", ".roo/rules/**/*.md"),
    ("roo", ".roo/rules/**/*.txt"),
    ("roo", ".roorules"),
    ("roo-mode", ".roo/rules-*/**/*.md"),
    ("roo-mode", ".roo/rules-*/**/*.txt"),
    ("roo-mode", ".roorules-*"),
    # JetBrains Junie: its guidelines file, or an AGENTS.md in its folder (the project's
    # guidelines, not a nested AGENTS.md scoped to `.junie/`)
    ("junie", ".junie/guidelines.md"),
    ("junie", ".junie/AGENTS.md"),
    ("amazonq", ".amazonq/rules/**/*.md"),
    ("continue", ".continue/rules/**/*.md"),
    # Augment: its rules folder (front matter `type: always_apply | agent_requested |
    # manual`) and the workspace guidelines file it replaced, which it still imports
    ("augment", ".augment/rules/**/*.md"),
    ("augment", ".augment/rules/**/*.mdx"),
    ("augment", ".augment-guidelines"),
    ("zed", ".rules"),
    ("claude", "**/CLAUDE.md"),
    ("claude", ".claude/CLAUDE.md"),
    ("claude-local", "**/CLAUDE.local.md"),
    ("claude-rules", ".claude/rules/**/*.md"),
    ("agents", "**/AGENTS.md"),
    # the singular name Zed (and Amp before AGENTS.md) read at the root only: a nested
    # `AGENT.md` is as often a document about an agent as rules for one
    ("agent", "AGENT.md"),
    # the same file named in lower case at the root, as some projects write it: every
    # agent that opens `AGENTS.md` on a case-insensitive file system (macOS, Windows)
    # reads it; below the root `docs/agents.md` is as often a page about agents
    ("agents", "agents.md"),
    ("cursor", "**/.cursor/rules/**/*.mdc"),
    ("cursor", "**/.cursor/rules/**/*.md"),
    ("cursorrules", ".cursorrules"),
    ("copilot", ".github/copilot-instructions.md"),
    ("copilot-instructions", ".github/instructions/**/*.instructions.md"),
    ("gemini", "**/GEMINI.md"),
    ("kiro", ".kiro/steering/**/*.md"),
    ("windsurf", ".windsurf/rules/**/*.md"),
    ("windsurf", ".windsurfrules"),
    # Devin (its CLI and Devin Local): one rule a file in `.devin/rules/`, activated by a
    # `trigger:` as Windsurf's are (`always_on | glob | agent_decided | manual`)
    ("devin", ".devin/rules/**/*.md"),
    # Kilo Code (a Roo Code fork): its rules folder and legacy file, plus a mode's own
    # rules, loaded in the mode the user picks
    ("kilocode", ".kilocode/rules/**/*.md"),
    ("kilocode", ".kilocoderules"),
    ("kilocode-mode", ".kilocode/rules-*/**/*.md"),
    # Trae: `.trae/rules/*.md` (`project_rules.md` first), with Cursor's front matter
    # (`alwaysApply`, `globs`, `description`) in the newer files
    ("trae", ".trae/rules/**/*.md"),
    # Warp's project rules (`AGENTS.md` now, `WARP.md` still read): the root's, and a
    # subfolder's for its files, as an `AGENTS.md` is
    ("warp", "**/WARP.md"),
    # Qwen Code (a Gemini CLI fork): `QWEN.md` at the root and in folders, `@path` imports
    ("qwen", "**/QWEN.md"),
    # Crush reads its context file at the root
    ("crush", "CRUSH.md"),
    # Goose's hints: the root's, and a folder's for the work in it
    ("goose", "**/.goosehints"),
    # Firebase Studio's rules for its Gemini agent
    ("firebase-studio", ".idx/airules.md"),
    # Google Antigravity's workspace rules (`.agents/`, and the `.agent/` it read first),
    # activated by a `trigger:` as Windsurf's are; its workflows run when the user types
    # their name
    ("antigravity-workflow", ".agents/workflows/**/*.md"),
    ("antigravity-workflow", ".agent/workflows/**/*.md"),
    ("antigravity", ".agents/rules/**/*.md"),
    ("antigravity", ".agent/rules/**/*.md"),
)

#: Folders inside a rules folder that hold no rules: Cline keeps its hook scripts (and
#: their README) and its skills beside its rules and leaves both out of them.
NOT_RULES: tuple[str, ...] = (".clinerules/hooks/**", ".clinerules/skills/**")

#: Kinds of rule file the agent loads only when the user names it: a Cline workflow
#: (run as ``/release.md``), a Roo Code mode's rules (loaded in the mode the user picks).
ASKED_FOR_KINDS = frozenset(["cline-workflow", "roo-mode", "kilocode-mode", "antigravity-workflow"])

#: Default cap on one rule file (``rules.max_file_bytes``): Claude Code itself warns at
#: 40k characters, and Markdown parsing costs about a kilobyte of memory per byte on
#: hostile tables, so a larger "rule file" is a dump, not rules.
DEFAULT_MAX_RULE_BYTES = 256 * 1024

_PRUNE = {".git", "node_modules", ".venv", "venv", "__pycache__", ".charter", "dist", "build"}
_IMPORT = re.compile(r"(?<![\w`/])@(?P<path>(?:~/|\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)*)")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class SourceFile:
    """A rule file as read: its body (after front matter) and what the front matter says."""

    path: Path
    rel: str
    kind: str
    text: str
    body: str
    offset: int  # lines before ``body`` (front matter)
    meta: dict[str, Any] = field(default_factory=dict)
    always: bool = False
    #: the front matter says the file is loaded only when asked for or judged relevant
    #: (Cursor's ``alwaysApply: false``, Kiro's ``inclusion: manual``, Windsurf's
    #: ``trigger: model_decision``): a heading that reads "Security" or "Critical" in it
    #: does not make its rules always loaded
    on_demand: bool = False
    #: loaded only when the user names it (Kiro's ``inclusion: manual``, Windsurf's
    #: ``trigger: manual``, a Cursor rule with no ``alwaysApply``, ``globs`` or
    #: ``description``): none of its rules is one for every change
    manual: bool = False
    scopes: list[str] = field(default_factory=list)
    description: str = ""
    imported_from: str = ""
    #: ``(st_mtime_ns, st_size)`` taken *before* the text was read: a file rewritten while
    #: a compile reads it then no longer matches the compiled state's stamp, so the next
    #: reader recompiles instead of serving rules of a half-written file as fresh.
    stamp: tuple[int, int] | None = None
    #: what the compile should warn about the file as read (bytes that are not UTF-8)
    note: str = ""
    #: the file is written for another agent only (a Copilot instructions file with
    #: ``excludeAgent: coding-agent`` is for code review): no rule of it is a coding
    #: agent's, so the compile leaves it out and says so
    other_agent: str = ""


def _matches(rel: str, pattern: str) -> bool:
    """Glob match where ``**/`` may also match no directory at all."""
    variants = {pattern, pattern.replace("/**/", "/")}
    if pattern.startswith("**/"):
        variants |= {v[3:] for v in list(variants)}
    return any(fnmatch.fnmatch(rel, v) for v in variants)


def excluded(rel: str, exclude: list[str]) -> bool:
    """Does ``rules.exclude`` leave the project-relative path ``rel`` out, by its own
    name or by a folder it sits in (a folder's glob ends in ``/``, as the walk tests it)?
    One answer for the compile's walk and for the checks that name rule files."""
    if not exclude:
        return False
    parts = rel.split("/")
    folders = ["/".join(parts[:n]) + "/" for n in range(1, len(parts))]
    return any(fnmatch.fnmatch(p, g) for g in exclude for p in (rel, *folders))


def classify(rel: str) -> str | None:
    """The rule-file kind of a root-relative POSIX path, or None if it is not one."""
    if any(_matches(rel, pattern) for pattern in NOT_RULES):
        return None
    for kind, pattern in SOURCE_PATTERNS:
        if _matches(rel, pattern):
            return kind
    return None


#: The file that makes a folder an agent skill (Claude Code's and the open Agent Skills
#: format): an AGENTS.md beside it is the skill's own document.
SKILL_FILE = "SKILL.md"


def discover(
    root: Path, exclude: list[str] | None = None, refused: list[str] | None = None
) -> list[tuple[str, Path]]:
    """Every rule file under ``root``, as (kind, path), sorted by path.

    A symlinked directory is entered when its target lies inside the project (a canonical
    ``.agents/rules/`` linked as ``.claude/rules``, which Claude Code follows), once per
    target and never into its own ancestors (no loops); one that leads outside is left out,
    with a note in ``refused`` when rule files would sit under its name. A symlinked rule
    file whose target lies outside the project is left out the same way. A folder holding
    a ``SKILL.md`` is an agent skill and is not walked.
    """
    exclude = exclude or []
    found: dict[str, tuple[str, Path]] = {}
    base = root.resolve()
    entered: set[Path] = set()  # targets of symlinked folders already walked
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        if rel_dir and SKILL_FILE in filenames:
            # an agent skill (``.claude/skills/x/SKILL.md``): the agent loads its files
            # when the skill applies; they are its reference, not the project's rules
            dirnames[:] = []
            continue
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in _PRUNE
            and not excluded(f"{rel_dir}/{d}".lstrip("/") + "/", exclude)
            and _utf8_folder(Path(dirpath) / d, f"{rel_dir}/{d}".lstrip("/"), refused)
            and _enter(base, Path(dirpath), d, f"{rel_dir}/{d}".lstrip("/"), entered, refused)
        )
        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if excluded(rel, exclude):
                continue
            kind = classify(rel)
            if kind and not utf8_name(name):
                # a lone surrogate in a path stopped compile with a UnicodeEncodeError
                if refused is not None:
                    refused.append(f"rule file {shown_name(rel)}: {NOT_UTF8_NAME}")
                continue
            if kind:
                path = Path(dirpath) / name
                if path.is_symlink() or path.resolve() != base / rel:
                    try:
                        inside_root(base, path, what=f"rule file {rel}")
                    except BoundaryError as exc:
                        if refused is not None:
                            refused.append(str(exc))
                        continue
                found[rel] = (kind, path)
    return [found[k] for k in sorted(found)]


def _utf8_folder(path: Path, rel: str, refused: list[str] | None) -> bool:
    """Walk into the folder ``rel``? Not when its name is not UTF-8; then a note when a
    rule file sits in it (looked for among its first few thousand files), as its rules
    are not read."""
    if utf8_name(path.name):
        return True
    if refused is not None:
        seen = 0
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = [d for d in dirnames if d not in _PRUNE]
            inner = os.path.relpath(dirpath, path)
            for name in filenames:
                sub = name if inner == "." else f"{inner}/{name}"
                if classify(shown_name(f"{rel}/{sub}")):
                    refused.append(f"rule file {shown_name(f'{rel}/{sub}')}: {NOT_UTF8_NAME}")
                    return False
                seen += 1
            if seen > 5000:
                break
    return False


def _enter(
    base: Path, parent: Path, name: str, rel: str, entered: set[Path], refused: list[str] | None
) -> bool:
    """Walk into ``parent/name``? A real folder always; a symlinked one only inside the
    project, not into a folder the walk is already in (a loop), and once per target."""
    path = parent / name
    if not path.is_symlink():
        return True
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # dangling or a symlink loop
        return False
    if not target.is_dir():
        return False
    try:
        target.relative_to(base)
    except ValueError:
        if refused is not None and (classify(f"{rel}/x.md") or classify(f"{rel}/x.mdc")):
            refused.append(f"rule folder {rel} links outside the project {base}; refused")
        return False
    here = parent.resolve()
    if target == here or target in here.parents or target in entered:
        return False
    entered.add(target)
    return True


def configured_sources(
    root: Path, patterns: list[str], refused: list[str], unmatched: list[str] | None = None
) -> list[tuple[str, Path]]:
    """Files matched by ``rules.sources`` globs, each inside the project.

    A pattern that is absolute or climbs out with ``..`` is refused whole (with a note);
    a matched file that resolves outside (a symlink) is refused on its own. A pattern
    that matches no file (a misspelt name) is noted in ``unmatched``.
    """
    base = root.resolve()
    out: list[tuple[str, Path]] = []
    for pattern in patterns:
        parts = Path(pattern).parts
        if Path(pattern).is_absolute() or pattern.startswith("~") or ".." in parts:
            refused.append(
                f"rules.sources entry {pattern!r} is outside the project {base}; refused"
            )
            continue
        try:
            matches = sorted(base.glob(pattern))
        except (ValueError, NotImplementedError) as exc:
            refused.append(f"rules.sources entry {pattern!r}: {exc}")
            continue
        if unmatched is not None and not any(path.is_file() for path in matches):
            unmatched.append(f"rules.sources entry {pattern!r} matches no file; nothing read")
        for path in matches:
            if not path.is_file():
                continue
            try:
                inside_root(base, path, what=f"rules.sources file {path.relative_to(base)}")
            except BoundaryError as exc:
                refused.append(str(exc))
                continue
            out.append((kind_for_path(path, base), path))
    return out


def kind_for_path(path: Path, root: Path) -> str:
    """The kind of a file named explicitly (``charter compile PATH``); Markdown by default."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = path.name
    kind = classify(rel) or classify(path.name)
    if kind:
        return kind
    if path.suffix == ".mdc":
        return "cursor"
    if path.name.endswith(".instructions.md"):
        # Copilot's instructions format wherever it is kept (VS Code reads other folders
        # through `chat.instructionsFilesLocations`): its `applyTo` scopes the file
        return "copilot-instructions"
    return "markdown"


def _lenient_yaml(raw: str, name: str = "front matter") -> Any:
    """Cursor front matter is not strict YAML (``globs: *.ts`` is an alias in YAML).

    Both attempts go through :mod:`charter.safeyaml`, so a YAML bomb is refused.
    """
    import yaml  # loaded for files with front matter only: most hooks never need it

    from charter import safeyaml

    try:
        return safeyaml.load(raw, name=name)
    except yaml.YAMLError:
        fixed = []
        listing = False  # the lines under a glob key are its list's items
        for line in raw.splitlines():
            item = _LIST_ITEM.match(line)
            if listing and item:
                fixed.append(item.group(1) + _quoted(item.group(2).strip()))
                continue
            listing = False
            key, sep, value = line.partition(":")
            value = value.strip()
            if sep and key.strip() in _GLOB_KEYS:
                listing = not value
                if value.startswith("[") and value.endswith("]") and not re.search("['\"]", value):
                    # `[**/*.sql, db/*.yaml]`: each entry as a string
                    inner = _split_commas(value[1:-1])
                    value = "[" + ", ".join(_quoted(v.strip()) for v in inner if v.strip()) + "]"
                elif value:
                    value = _quoted(value)
                line = f"{key}: {value}"
            fixed.append(line)
        return safeyaml.load("\n".join(fixed), name=name)


#: Front-matter keys whose values are globs (``*`` opens an alias in YAML, ``{`` a map).
_GLOB_KEYS = frozenset({"globs", "applyTo", "fileMatchPattern", "paths"})
#: An entry of a block list: ``  - **/*.ts``.
_LIST_ITEM = re.compile(r"^(\s*-\s+)(\S.*)$")


def _quoted(value: str) -> str:
    """``value`` as a YAML string, unless it is one already."""
    if value.startswith(("'", '"')):
        return value
    return "'" + value.replace("'", "''") + "'"


def split_front_matter(text: str, rel: str) -> tuple[dict[str, Any], str, int]:
    """(metadata, body, lines of front matter) — a broken block is a one-line error."""
    if not text.startswith("---"):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, 0
    for idx in range(1, len(lines)):
        if lines[idx].strip() in ("---", "..."):
            import yaml

            raw = "\n".join(lines[1:idx])
            try:
                meta = _lenient_yaml(raw, f"{rel}: front matter") if raw.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f":{mark.line + 2}" if mark is not None else ""
                problem = getattr(exc, "problem", None) or "invalid YAML"
                raise CharterError(f"{rel}{where}: broken front matter: {problem}") from None
            if meta is None:
                meta = {}
            if not isinstance(meta, dict):
                raise CharterError(f"{rel}:2: broken front matter: expected key: value pairs")
            end = idx + 1
            repeated = _repeated_block(lines[end:], rel)
            if repeated is not None:
                # Cursor's "new rule" writes an empty block and a pasted rule brings its
                # own: the agent is not shown it as a rule. Cursor applies the first
                # block; the second's description still helps retrieval.
                second, used = repeated
                if not meta.get("description") and second.get("description"):
                    meta["description"] = second["description"]
                end += used
            return meta, "\n".join(lines[end:]), end
    raise CharterError(f"{rel}:1: broken front matter: no closing '---'")


#: Keys that make a ``---`` block right under the front matter a second front matter.
_FRONT_KEYS = frozenset(
    ["description", "globs", "alwaysApply", "applyTo", "paths", "inclusion", "trigger"]
)


def _repeated_block(lines: list[str], rel: str) -> tuple[dict[str, Any], int] | None:
    """A second front-matter block opening ``lines`` (after blank lines): its metadata
    and the lines it spans, or None."""
    import yaml

    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or lines[start].strip() != "---":
        return None
    for end in range(start + 1, min(len(lines), start + 50)):
        if lines[end].strip() in ("---", "..."):
            try:
                meta = _lenient_yaml("\n".join(lines[start + 1 : end]), f"{rel}: front matter")
            except yaml.YAMLError:
                return None
            if isinstance(meta, dict) and _FRONT_KEYS & {str(k) for k in meta}:
                return meta, end + 1
            return None
    return None


#: At most this many patterns from one glob's braces (``{a,b}{c,d}`` gives four).
_MAX_BRACE_PATTERNS = 64


def _split_commas(text: str) -> list[str]:
    """``text`` split at commas outside braces: ``*.{ts,tsx}, *.md`` is two globs."""
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        depth += (char == "{") - (char == "}" and depth > 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def _expand_braces(pattern: str) -> list[str]:
    """``src/**/*.{ts,tsx}`` as ``src/**/*.ts`` and ``src/**/*.tsx``.

    Cursor globs and Claude Code ``paths:`` use brace alternatives; the scope filter
    matches with :mod:`fnmatch`, which has none, so an unexpanded pattern never matched.
    """
    out = [pattern]
    while len(out) <= _MAX_BRACE_PATTERNS:
        for index, glob in enumerate(out):
            match = re.search(r"\{([^{}]*,[^{}]*)\}", glob)
            if match:
                head, tail = glob[: match.start()], glob[match.end() :]
                options = [f"{head}{option}{tail}" for option in match.group(1).split(",")]
                out[index : index + 1] = options
                break
        else:
            return out
    return [pattern]


def _scopes_of(value: Any, dropped: list[str] | None = None) -> list[str]:
    """Scope globs of a front-matter value: a list, or a string of comma-separated globs.

    A number is read as the name it spells (``2024``); ``null``, ``true``/``false``, a
    mapping or a nested list is no glob: it is left out and its YAML kind added to
    ``dropped`` (it was kept as Python's text of it, ``None``, a scope matching nothing).
    """
    if value is None or value == "":
        return []
    if isinstance(value, str):
        globs = _split_commas(value)
    else:
        globs = []
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                globs.append(item)
            elif isinstance(item, (int, float)) and not isinstance(item, bool):
                globs.append(str(item))
            elif dropped is not None:
                dropped.append(_YAML_KIND.get(type(item), type(item).__name__))
    return [g for glob in globs if glob.strip() for g in _expand_braces(glob.strip())]


_YAML_KIND = {type(None): "null", bool: "true/false", dict: "a mapping", list: "a list"}


def scope_globs(value: Any) -> list[str]:
    """Scope globs of ``value`` as front matter's are read; none for a glob of every file."""
    globs = _scopes_of(value)
    return [] if set(globs) & _EVERYWHERE else globs


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _apply_meta(src: SourceFile) -> None:
    dropped: list[str] = []

    _read_meta(src, lambda value: _scopes_of(value, dropped))
    if dropped:
        note = (
            f"{src.rel}: front-matter scope {', '.join(dropped)} is no glob; left out "
            "(write globs as strings)"
        )
        src.note = f"{src.note}; {note}" if src.note else note


def _read_meta(src: SourceFile, globs: Callable[[Any], list[str]]) -> None:
    meta = src.meta
    kind = src.kind
    src.description = str(meta.get("description") or "")
    if kind in ("cursor", "continue", "trae"):
        # Continue and Trae read Cursor's keys: `alwaysApply: false` loads the file when
        # its globs match or its description fits, and with neither only when named
        src.always = _truthy(meta.get("alwaysApply"))
        src.on_demand = "alwaysApply" in meta and not src.always
        src.scopes = globs(meta.get("globs"))
        src.manual = src.on_demand and not src.scopes and not src.description.strip()
    elif kind == "claude-rules":
        src.scopes = globs(meta.get("paths") or meta.get("globs"))
    elif kind == "cline":
        # Cline reads `paths:` as Claude Code does (globs; without it, every file)
        src.scopes = globs(meta.get("paths"))
    elif kind in ASKED_FOR_KINDS:
        src.on_demand = src.manual = True
    elif kind == "copilot-instructions":
        src.scopes = globs(meta.get("applyTo"))
        excluded = meta.get("excludeAgent")
        names = excluded if isinstance(excluded, list) else _split_commas(str(excluded or ""))
        if "coding-agent" in {str(name).strip().lower() for name in names}:
            src.other_agent = "code review"
    elif kind == "kiro":
        inclusion = str(meta.get("inclusion") or "always").lower()
        src.always = inclusion == "always"
        src.on_demand = not src.always
        src.manual = inclusion == "manual"
        src.scopes = globs(meta.get("fileMatchPattern") or meta.get("fileMatch"))
    elif kind == "augment":
        # `always_apply` is in every prompt; `agent_requested` is attached when its
        # description fits the task, `manual` only when the user @-mentions the file
        rule_type = str(meta.get("type") or "").strip().lower()
        src.always = rule_type == "always_apply"
        src.on_demand = rule_type in ("agent_requested", "manual")
        src.manual = rule_type == "manual"
    elif kind in ("windsurf", "devin", "antigravity"):
        trigger = str(meta.get("trigger") or "").lower()
        src.always = trigger == "always_on"
        src.on_demand = bool(trigger) and not src.always
        src.manual = trigger == "manual"
        # a canonical `.agents/rules/` that `.claude/rules` links to carries Claude
        # Code's `paths:` as well
        src.scopes = globs(
            meta.get("globs") or (meta.get("paths") if kind == "antigravity" else None)
        )
    if src.scopes and set(src.scopes) & _EVERYWHERE:
        src.scopes = []  # `globs: *`: every file, which is no scope at all
    if kind in FOLDER_KINDS:
        src.scopes = folder_scope(src.rel)
    folder = cursor_folder(src.rel) if kind == "cursor" else ""
    if folder:
        # a subfolder's own `.cursor/rules/` (Cursor reads them too): its rules apply to
        # that folder's files, its globs read from the folder, `alwaysApply` within it
        src.always = src.manual = False
        src.scopes = [f"{folder}/{glob.lstrip('/')}" for glob in src.scopes] or [f"{folder}/**"]


def cursor_folder(rel: str) -> str:
    """The folder a ``.cursor/rules/`` file below the root belongs to (``apps/web`` for
    ``apps/web/.cursor/rules/x.mdc``), "" for the project's own."""
    head, sep, _ = rel.partition("/.cursor/rules/")
    return head if sep and not rel.startswith(".cursor/") else ""


#: Globs that match every file of the project.
_EVERYWHERE = frozenset({"*", "**", "**/*", "./**", "./**/*", "/**", "/**/*"})


#: Kinds a nested copy of applies to its own folder (a ``backend/AGENTS.md``).
FOLDER_KINDS = frozenset(["claude", "claude-local", "agents", "gemini", "warp", "qwen", "goose"])


#: An agent's own settings folder, or the repository's (``.github``, where Copilot's
#: repository-wide instructions live): a rule file right inside it is its parent folder's.
_AGENT_FOLDERS = (".claude", ".gemini", ".github")


def folder_scope(rel: str) -> list[str]:
    """The scope a CLAUDE.md, AGENTS.md or GEMINI.md at ``rel`` has: its folder, or none
    at the root (``.claude/CLAUDE.md`` is the root's too, ``web/.claude/CLAUDE.md``
    ``web``'s; a deeper ``.claude/skills/x/`` is a folder like any other). So is a
    ``.gemini/GEMINI.md`` beside ``.gemini/settings.json``, and a ``.github/AGENTS.md``
    beside ``copilot-instructions.md``: no code lives in a settings folder, so scoped to
    it, its rules were filtered out of every task naming a file."""
    if "/" not in rel:
        return []
    parent = rel.rsplit("/", 1)[0]
    for folder in _AGENT_FOLDERS:
        if parent == folder or parent.endswith(f"/{folder}"):  # the folder's own settings
            parent = parent.removesuffix(folder).rstrip("/")
    return [f"{parent}/**"] if parent else []


def alias_scopes(src: SourceFile, aliases: list[tuple[str, str]]) -> None:
    """Folder scope of a file reached under several names (symlinks): the union of what
    each name applies to, none when any name is at the root.

    A root ``AGENTS.md`` that links to ``.agents/AGENTS.md`` (or ``docs/AGENTS.md``) is the
    project's main rule file, but it is read once, under its target's path; scoped to the
    target's folder, its rules were filtered out of every task that named a file.
    """
    if src.kind not in FOLDER_KINDS or len(aliases) < 2:
        return
    scopes: set[str] = set()
    for kind, rel in aliases:
        found = folder_scope(rel) if kind in FOLDER_KINDS else []
        if not found:
            src.scopes = []
            return
        scopes.update(found)
    src.scopes = sorted(scopes)


def load_source(
    path: Path, rel: str, kind: str, max_bytes: int = DEFAULT_MAX_RULE_BYTES
) -> SourceFile:
    """Read one rule file (at most ``max_bytes``; ``rules.max_file_bytes``)."""
    try:
        st = path.stat()
        stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
    except OSError:  # read_text names the problem
        stamp = None
    note = ""
    try:
        text = read_text(
            path,
            what="rule file",
            max_bytes=max_bytes,
            hint="rules.max_file_bytes",
            lenient=True,
            name=rel,
            regular_only=True,
        )
    except NotUtf8 as exc:
        text = exc.text
        note = (
            f"{rel}:{exc.line}: not valid UTF-8; the bytes that are not are read as U+FFFD "
            "(save the file as UTF-8)"
        )
    meta, body, offset = split_front_matter(text, rel)
    src = SourceFile(
        path=path,
        rel=rel,
        kind=kind,
        text=text,
        body=body,
        offset=offset,
        meta=meta,
        stamp=stamp,
        note=note,
    )
    _apply_meta(src)
    return src


def find_imports(src: SourceFile) -> list[tuple[int, str]]:
    """``@path`` imports of a CLAUDE.md: (1-based line, raw path), outside code."""
    found: list[tuple[int, str]] = []
    in_fence = False
    for number, line in enumerate(src.text.split("\n"), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or number <= src.offset:
            continue
        plain = re.sub(r"`[^`]*`", " ", line)
        for match in _IMPORT.finditer(plain):
            found.append((number, match.group("path").rstrip(".,;:)")))
    return found


def resolve_imports(
    src: SourceFile,
    root: Path,
    max_depth: int,
    depth: int = 0,
    *,
    refused: list[str] | None = None,
    warned: list[str] | None = None,
    max_bytes: int = DEFAULT_MAX_RULE_BYTES,
) -> list[SourceFile]:
    """Imported files of ``src`` (recursively), each read like a CLAUDE.md.

    An import must resolve inside the project or under ``~/.claude`` (which Claude Code
    reads anyway); any other target — ``@/etc/hosts``, ``@../../x.md``, a symlink out —
    is refused with a note naming the import and the file. With ``refused`` given, the
    note goes there and the other imports are still read; without it, it is raised.

    A relative import is read from the importing file's folder, as Claude Code reads it.
    One written from the project root in a file below it (``@.claude/rules/x.md`` in
    ``.claude/CLAUDE.md``) is not found there and Claude Code skips it without a word:
    with ``warned`` given, a note says so and how to write it, and the other imports are
    still read (a target missing everywhere is still an error).
    """
    if depth >= max_depth:
        return []
    out: list[SourceFile] = []
    rooted: list[tuple[int, str]] = []  # imports written from the root, not found
    for line, raw in find_imports(src):
        if raw.startswith("~/"):
            target = Path.home() / raw[2:]
        elif raw.startswith("/"):
            target = Path(raw)
        else:
            target = src.path.parent / raw
        looks_like_file = bool(re.search(r"\.(md|mdc|txt|markdown)$", raw))
        try:
            resolved = inside_root(
                root, target, what=f"{src.rel}:{line}: import @{raw}", allow_user=True
            )
        except BoundaryError as exc:
            if refused is None:
                raise
            if looks_like_file or target.exists():
                refused.append(str(exc))
            continue
        if not resolved.exists():
            if (
                warned is not None
                and looks_like_file
                and not raw.startswith(("~", "/"))
                and (root / raw).is_file()
                and src.path.parent.resolve() != root.resolve()
            ):
                rooted.append((line, raw))
                continue
            if looks_like_file:
                raise CharterError(f"{src.rel}:{line}: import @{raw} not found")
            continue
        if not resolved.is_file():
            continue
        try:
            rel = resolved.relative_to(root.resolve()).as_posix()
        except ValueError:
            rel = "~/" + resolved.relative_to(Path.home().resolve()).as_posix()
        try:
            child = load_source(resolved, rel, "claude-import", max_bytes)
        except CharterError as exc:
            raise CharterError(f"{src.rel}:{line}: unreadable import @{raw}: {exc}") from None
        child.imported_from = src.rel
        # a nested CLAUDE.md applies to its folder, and so does what it imports
        child.scopes = child.scopes or list(src.scopes)
        out.append(child)
        out.extend(
            resolve_imports(
                child,
                root,
                max_depth,
                depth + 1,
                refused=refused,
                warned=warned,
                max_bytes=max_bytes,
            )
        )
    if rooted and warned is not None:
        line, raw = rooted[0]
        hint = posixpath.relpath(raw, posixpath.dirname(src.rel) or ".")
        more = f" (and {len(rooted) - 1} more like it)" if len(rooted) > 1 else ""
        warned.append(
            f"{src.rel}:{line}: import @{raw}{more} is written from the project root: "
            f"Claude Code reads an import from the importing file's folder, finds nothing "
            f"there and skips it; write @{hint}"
        )
    return out
