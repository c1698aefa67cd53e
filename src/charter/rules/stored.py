"""The compiled rules as stored in ``.charter/``, read without numpy or the model.

A file tool's hook (PostToolUse) needs only the rules' text, sources and scopes to hand
over the rules of the path the agent touched; importing numpy to read the vectors beside
them would cost every cold tool call ~100 ms. The compiler owns the layout and writes it;
this module names the files and reads the rule half.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from charter.fileio import TornState, read_committed
from charter.rules.model import Rule

if TYPE_CHECKING:
    from charter.config import Project
    from charter.rules.commands import ForbiddenCommand
    from charter.rules.edits import ForbiddenEdit

#: bump when parsing or state layout changes (4: stop-23 parsing fixes; 5: stop-26 list
#: lead-ins and headings over code, and the rules' lines as shown stored with their costs;
#: 6: vectors from the bundled rules model; 7: stop-40 parsing fixes; 8: each rule's score of
#: applying to every change; 9: stop-41 parsing fixes: items under a prohibition shown with
#: it, bare command lists under a lead-in, bold "scope:" labels, "never edit" paths; 10: titled
#: groups under a forbidding heading; 11: one statement per line without markers or stops;
#: 12: Chinese and Japanese prohibitions and obligations; 13: what to do instead after a
#: dash, leave to edit; 14: a line's cost counts its newline as joined, shell blocks keep
#: the commands around an if/loop, a lead-in and its one command are one rule; 15: a
#: constitution marker read past a heading's emoji or outline number; 16: an "Example:"
#: line stays with the rule before it; 17: a command's `|| { … }` failure handler is no
#: script, an item's code kept beside its plain sub-list, a framed banner in a code block
#: is no rule, an escaped alert marker; 18: quoted items shown with their lead-in; 19: an
#: unbracketed id needs a separator ("UTF-8 encoding" keeps its first word), a lead-in
#: over the parts of one thing is one rule with them; 20: a paragraph under a heading that
#: forbids is shown after it; 21: a one-word entry of a lead-in's checklist is kept; 22:
#: an action named under an "Ask first" heading or a lead-in is shown after it, "never edit
#: generated files: `a`, `b`" forbids editing `a` and `b`, a command's introducing comment
#: is shown without its colon, a bare lead-in is no rule for every change; 23: rules
#: about reviews carry the review intent; 24: a short label over bare commands is one rule
#: with them; 25: a heading marks the constitution past a short label ("IMPORTANT: Always
#: …"), an always-loaded line keeps the sentence that forbids; 26: a file its front matter
#: loads on demand is not pinned by its headings, a drawing outside a fence is no rules;
#: 27: an @word inside the sentence is no domain tag, a bold lead-in over bare commands or
#: one that forbids reads as the plain one, a line that only dates the file is no rule;
#: 28: a shell comment drawn as a divider is only its label, a Kiro ``#[[file:x]]`` is
#: shown as the path, a subfolder's ``.cursor/rules/`` and unquoted globs in a
#: front-matter list are read, "`X` is generated … — never edit it" forbids editing `X`;
#: 29: Roo Code's rules folders and Cline's workflows are read (loaded by name: the
#: sources say "manual"), Cline's hooks and skills folders and a template's unfilled
#: "[slot]" line are no rules, a quoted argument over several lines is one command;
#: 30: a command shown with the comment above it cites that comment's line too; 31: a
#: bare fence left open to the end of the file is a stray closer, not code; 32: a
#: rule's brief keeps the link, URL or code span its label or "found in" points at;
#: 33: Junie's ``.junie/guidelines.md`` is read, a command's slot (`<package>`) is an
#: argument it must be given, a pipeline span forbids no command of its first stage;
#: 34: a bold name over a list item's sub-items is their section, not a rule, a copy in a
#: nested folder's file folds into the outer folder's, a root ``agents.md`` is read;
#: 35: a small file's brief lines are cut shorter so its budget reaches
#: ``brief_min_rules`` of them; 36: a plain label over sub-items is read before each,
#: a lone mark is no word of a lead-in, plain-text commands under a prohibition are
#: commands; 37: a rule stated in a file and in a generated copy of it is cited in the
#: file, a fence with no language under a commands heading lists its commands; 38: a
#: ``.gemini/GEMINI.md`` is its parent folder's, "Agents never push." forbids the
#: `git push` the same rule names; 39: prohibitions written in German, Spanish,
#: Portuguese, French or Chinese are read; 40: a callout of any type atop a quote is shown
#: as its word, "> [!CRITICAL]" no longer left as "[", a subshell over several lines of a
#: shell block is one command; 41: Augment's ``.augment/rules/`` and
#: ``.augment-guidelines`` are read; 42: actions named under a bold title ("**Common
#: Issues**:") are shown after it; 43: Devin's ``.devin/rules/`` are read, an exported
#: lead-in's citation comment is no word of its items, "Do not run destructive git
#: commands." forbids them; 44: a type annotation in a rule's code ("api_key:
#: Optional[str] = None") is no secret to redact, a "?" inside a flow mapping's plain
#: scalar is part of it in front matter, "do not run `X` … from agent actions" forbids
#: `X`; 45: a comment carried over two lines above a command is one note, cited from
#: its first line; 46: a paragraph after code in a list item is the lead-in of the code
#: after it, a rule of its own, not joined to the item's first sentence; a heading that
#: reports problems, "Critical Issues", or is marked done, "(COMPLETED)", pins nothing;
#: "This file provides guidance to …", the file's preamble, is no rule; 47: a preamble
#: may qualify what the file holds, "THIS FILE CONTAINS MANDATORY INSTRUCTIONS …", and a
#: line of "Label: value" fields with the file's version or date is its stamp, no rule;
#: emphasis is no word when an item is read for an instruction, so "do **not** commit"
#: instructs and the item's sub-items are rules of their own)
#: 48: a "## Core Mandates" / "## Mandates" section is a constitution marker by default (the
#: heading Gemini CLI's system prompt gives its rules, copied into GEMINI.md files)
#: 49: a "Files matching `GLOB`" heading (APM's compiled AGENTS.md) scopes the sections
#: under it; a "Required Tools" heading lists prerequisites, not the constitution; an
#: ``*.instructions.md`` named in ``rules.sources`` keeps its ``applyTo``
#: 50: a tag named in words alone on its line (``</SIMULATION ANALYSIS>``) is a section,
#: no longer part of the rule above it
#: 51: a "What NOT to Test" heading is read before its items ("What to Test" before the
#: items that name things), a cut never leaves a code span open, and a file's sources
#: entry carries the share of its rules folded into another file's copy (``folded``),
#: which the budget no longer counts
#: 52: a short label naming a file in a code span ("Model (`models.py`)") is read before
#: each of its sub-items; a ```markdown fence's "#" and "---" lines are no comments, so
#: an example rule file is no rule
#: 53: a table of contents' entry, only links to the page's own headings
#: (``[Error Handling](#11-error-handling)``), is navigation, no rule
#: 54: a numbered heading of three words or more over a paragraph ("### 6. `x` Must Be a
#: Multiple of `y`" over why) leads the paragraph's rule and starts its citation
#: 55: "patch" is a verb of editing ("Do not patch a `*.sops.yaml` document directly"),
#: so such a rule's path is a forbidden edit in ``rules.prohibited.json``
#: 56: a rule file saved as UTF-16 or UTF-32 with a byte-order mark is read, no longer
#: an error ("binary, not text") that compiled none of its rules
#: 57: a bold title over a list that only names what it holds ("**Key Files:**") is the
#: items' section, no longer a rule of its own shown alone
#: 58: "changes to" says an edit ("Do not make changes to `X`", "Do not suggest or apply
#: changes to `X`"), so such a rule's path is a forbidden edit in ``rules.prohibited.json``
#: 59: a rule in a script written without spaces (Chinese, Japanese) whose first
#: "word" is over a cut is cut between characters, no longer to nothing: its stored
#: brief and shown lines (" …" before) change
#: 60: a negation followed only by a place takes the edit verb of the clause before it
#: ("Only edit X in `A`, never in `B`"): `B` is a forbidden edit in
#: ``rules.prohibited.json``
#: 61: a sentence opening with a capitalised conjunction ("And never run `X`", "But do
#: not edit `Y`") forbids what it names: the conjunction was read as a word before the
#: negation, so ``rules.prohibited.json`` lacked it
#: 62: a verbless one-line subtitle saying what the file holds and for which agent
#: ("Project-specific instructions for Claude Code.") is the file's preamble, no rule
#: 63: Traditional Chinese negations and verbs ("請勿修改 `X`", "不要執行 `Y`") are read
#: like the simplified ones: ``rules.prohibited.json`` gains what they forbid
#: 64: a list of spans joined by a capitalised "OR"/"AND" ("NEVER run `a` OR `b`")
#: forbids every entry, no longer the first alone, in ``rules.prohibited.json``
#: 65: a shell block under a prohibition ("Never run these:", "❌ Don't:", a heading
#: "### Avoid") gives each command shown after it (no longer alone, as one to run, with
#: the lead-in a rule of its own), and a negation pointing past a colon at what follows
#: ("Never run these: `X`") forbids `X` in ``rules.prohibited.json``; a Cursor link to
#: a file, ``[src/db/](mdc:src/db/)``, is shown as its path (rule texts and ids change)
#: 66: the things a folder holds, named before it ("never edit the migrations in
#: `core/migrations/`"), stand for the folder: ``rules.prohibited.json`` gains the path
#: 67: the items under a bold title that asks ("**What is NOT a breaking change:**" over
#: "Page deletions") are shown after it, not alone (rule texts and ids change)
#: 68: a "Required Parameters" / "Required fields" / "Required arguments" heading lists
#: an interface's inputs: its items are no longer constitution rules
#: 69: a lead-in of who and a modal only ("Agents **must**:", "You should not:") is no
#: rule of its own, only its items' context (fewer rules)
#: 70: an HTML comment inside a code span ("Add `<!-- markdownlint-disable -->` at the
#: end") is the rule's text, not dropped as a comment (rule texts and ids change)
#: 71: an options-only span after a forbidden command ("`git pull --rebase` / `-r`") is
#: that command with the option: ``rules.prohibited.json`` gains `git pull -r`
#: 72: a line indented with no-break (or other Unicode) spaces starts its own block, no
#: longer continuing the paragraph above (run-on rules split; rule texts and ids change)
#: 73: a rule that only sends the agent to another compiled rule file ("See `AGENTS.md`
#: for the shared project instructions." in a CLAUDE.md) is no rule of its own
#: 74: a forbidden edit keeps the folders of its rule's path scopes (a path in an
#: `applyTo: "packages/web/**"` rule is read relative to `packages/web/` too)
#: 75: a "label:" line after a line that needs what follows ("disclosed through an" over
#: "`Assisted-by:` commit message trailer.") continues that sentence, no longer a rule
#: of its own (rule texts and ids change)
#: 76: the items of a list right under a one-verb heading ("## Remove", "## Keep") that
#: do not instruct by themselves are shown after it ("Remove: Doc comments that …")
#: 77: a glob with no folder and no extension (`ai-*`) is a forbidden edit only when the
#: rule calls it files ("`zz_generated*` files"); "NEVER touch `ai-*`" names apps
#: 78: a comma before a clause with a subject of its own ("…, there is no emulator on
#: this machine", "…, it wipes `ios/` on every run") gives the reason: its words set no
#: condition on the command or file forbidden before it
#: 79: an ``AGENTS.md``, ``CLAUDE.md`` or ``GEMINI.md`` right inside ``.github/`` (beside
#: Copilot's repository-wide instructions) is the repository's, no longer scoped to
#: ``.github/**`` (rule scopes change)
#: 80: a run of Claude Code ``@path`` imports of rule files compiled here, each with at
#: most a short label ("@.claude/rules/dsp.md ← WDF implementation rules"), is no rule
#: of its own: the imported files' rules are compiled one by one
#: 81: the one command of a list item whose lead-in heads sub-items ("**Run build
#: verification**:" over `npm run build`, then "- Build MUST succeed") is a rule shown
#: after the lead-in; it was dropped (new rules; the sub-items' citations change)
#: 82: a span holding a word of operator marks only (`list ++ [new]`, `x |> f`) is code
#: of the project's language, no command the rules forbid; a lead-in that only points
#: at its list ("**ALWAYS** follow these security guidelines:") is no rule of its own;
#: the items under a "When to Verify Dark Mode" heading are read after it, and the short
#: sub-items of an item ending in a colon with it, however long it is
#: 83: a line that calls a credential word with one quoted value and no parentheses
#: (Groovy's ``storePassword "x"``, Elixir's ``@secret "x"``) has its value redacted
#: 84: a front-matter scope that is no glob (``null``, ``true``, a mapping) is left out with
#: a note; it was kept as Python's text of it (``None``), a scope matching nothing
#: 85: a prohibition whose one condition is the user's consent ("unless the user asks",
#: "without approval", "ask before running `X`") is read without it and marked
#: ``consent: "user"`` in ``rules.prohibited.json`` (the guardrail asks); "never force
#: push" forbids git's force pushes, "never push directly to `main`" a push to that
#: branch (``branch``), "never use `--no-verify`" that long option on any command
#: 86: a rule file (or a folder holding one) whose name is not UTF-8 is left out with a
#: note; compile stopped on it with a UnicodeEncodeError
#: 87: a passive prohibition forbids editing its subject ("The `.godot/` directory is
#: generated and should not be edited manually")
#: 88: a command that is the tool of a negated act ("never install packages with `pip
#: install`"), and "under no circumstances run `X`"
#: 89: "do not ever run", "never, ever run", "refrain from running", "you are not allowed
#: to run `X`"
#: 90: "Running `X` locally is forbidden" (the way the act is done before "is
#: forbidden"); "Running `scripts/x.sh` is forbidden" no longer forbids editing the script
#: 91: "never commit directly to `main`": a `git commit` while that branch is checked out
#: 92: a rule's "leave `X` alone", "hands off `X`", "treat `X` as read-only"
#: 93: "`X` is generated. Do not edit it." (what X is, then the prohibition as a sentence
#: of its own), and "Everything under `X` …", a label or a list number before the path
#: 94: a label or heading about package managers makes a one-word span a program
#: ("Package manager: `pnpm` (never `npm` or `yarn`)")
#: 95: "Use `pnpm`, not `npm`": the program turned down for one the rule files run
#: 96: a script named by its file ("do NOT use `Build.bat`", "never run `./start.sh`")
#: 97: a prohibition in an aside after the paths ("`public/` (do not edit)")
#: 98: "never run build commands": every command that builds, held as a class
#: 99: a retrieved or brief line's cut keeps the sentence that forbids, as a pinned one's
#: 100: every entry of a lead-in's list of paths ("Never modify: `a`; `b`"), a bold title
#: that forbids over a heading's items
#: 101: a brief cut inside an opening that forbids nothing shows the forbidding sentence alone
#: 102: a table row whose other cell forbids editing ("(don't edit manually)") holds its path
#: 103: git commands that write, forbidden as a class ("never execute git write operations")
#: 104: Warp, Qwen Code, Crush, Goose, Trae, Kilo Code and Firebase Studio rule files
#: 105: "between" is a condition of a command's prohibition ("Avoid `make test` between edits")
#: 106: a Co-Authored-By trailer a rule forbids, held on the commit
#: 107: a quoted phrase a rule keeps out of commits ("Generated with Claude Code"), held
#: 108: the same kept out of pull requests (gh pr create/edit) when the rule says so
#: 109: Google Antigravity's rules and workflows (.agents/, .agent/)
#: 110: an MCP tool a rule forbids, held by name; `__` inside a word is no emphasis
#: 111: Claude Code's own tools a rule forbids (WebFetch, WebSearch, …), held by name
#: 112: a path a rule forbids committing ("Never commit `.env`"), held on git add/commit
#: 113: a contraction inside a list of git's acts ("Don't commit and don't push.")
#: 114: each line of a short fence under a heading that forbids ("## NEVER Use")
#: 115 (round 77): "never run or suggest `X`" forbids `X`;
#: "in this project" / "in this repository" is no condition; `npx prisma migrate reset` is
#: held as the act it launches; a cut prohibition keeps the code span it forbids;
#: "*Bad*: `…`" / "*Good*: `…`" sub-items are read with the rule they illustrate;
#: "Never: A; B; C" / "Ask first: A; B" forbid each act of the list; a heading that asks
#: for approval puts its commands to the user; a heading's closing bracket ("(CRITICAL)")
#: marks the constitution
#: 116 (round 80): a heading over code is a rule of its own only with three words past its
#: outline number, a Chinese or Japanese word two characters ("### 11.1 目录结构" names a tree)
#: 117 (round 80): a brief cut goes into a Chinese or Japanese clause after a label or
#: a code span ("终端命令执行: …" showed the label alone), and never back to a colon
#: 118 (round 80): Chinese constitution markers ("## 安全规范", "### 禁止行为", "## 强制规则")
#: 119 (round 80): a list item's label over its one command is one rule ("Install
#: dependencies: `pnpm install`", Warp's generated WARP.md)
#: 120: a label naming commit messages or pull requests says where a phrase is kept out of
#: 121: a committed path's own underscores kept (`__pycache__/`); a lead before a colon opens it
#: 122 (round 83): `pnpm prisma migrate reset` is the `prisma` act; an option in brackets
#: is the option of the command its act names ("force-push (`--force`)": `git push`)
#: 123 (round 83): a sentence that only reports something absent ("No Cursor rules found") is
#: no rule
#: 124 (round 83): a shell script written without its fence ("# Run all tests" over
#: `pytest`, a CRUSH.md) is read as the fence it lost, its comments no headings
#: 125 (round 83): a new file directly in a folder a rule keeps for its subfolders ("Do not
#: create new files directly in `docs/` root") is a prohibition of its own
#: 126 (round 82): a file a rule forbids editing may be named by its pattern ("files
#: matching `zz_generated.*`", "files named `x.go`") or joined with its kind ("or content in
#: `pkg/client/`"); a glob without a folder is every file of that name
#: 127 (round 82): a rule that forbids opening pull requests or issues holds `gh pr create`
#: (`gh issue create`); "autonomously" is the user's consent left out, as "unprompted" is
#: 128 (round 82): a paragraph that only says the rules around it apply everywhere ("These
#: apply to every change, even if you don't load the matching skill:") is no rule
#: 129 (round 82): a path a rule says must stay untracked ("Keep local-only artifacts
#: untracked (for example, `.claude-*` folders)") is not committed
#: 130 (round 82): a file a rule forbids editing that another rule asks the agent to edit
#: (Home Assistant iOS: "Add new strings to `…/en.lproj/Localizable.strings`" beside "do not
#: edit `.strings` files manually") is held by neither
#: 131 (round 84): "never hand-edit `CHECKS.json` or otherwise force a failure to disappear"
#: holds the file (a "to" completing a verb of trying or causing is no purpose); "do not
#: write `np.random.seed` outside `common/seeding.py`" holds nothing ("outside" is a condition)
#: 132 (round 84): a folder declared read-only ("`third_party/` is read-only; wrap vendored
#: code …", "Legacy / read-only: everything inside `ABI/`, `DCI/`") is held
#: 133 (round 84): emphasis of a few words ("Do *not* run `X`", "Do _not_ …") is shown
#: without its marks, as bold is, and forbids what the plain words forbid
#: 134 (round 85): ``--no-verify`` forbidden alone (or after an act that names no
#: command) is git's: held on git commands only, also when the rule names another command
#: 135 (round 85): a long option in brackets after an act that names no command ("bypass
#: protection (`--admin`, `--force`)") is the one command's the rule names, else unread
#: 136 (round 85): a new-file prohibition keeps the files its rule names as the only ones
#: the folder may hold ("Only `main.dart` and `firebase_options.dart` are allowed there")
#: 137 (round 87): force-push as the last act of a prohibition's "or" list ("Do not skip
#: hooks (`--no-verify`) or force-push") is held
#: 138 (round 87): a bare git act's object followed by who acts ("Do not commit changes
#: yourself - leave it to the user") is held as the bare act
#: 139 (round 87): "blindly" is a manner the user's answer settles ("We do not run `npm
#: audit fix --force` blindly": asked, not denied); "from X" after a path is who writes it
#: ("Never write to `app.duckdb` from Streamlit"): no edit held
#: 140 (round 87): an index entry linking a rule file compiled here with a short summary
#: ("[Configs](.claude/rules/configs.md) — how configs are loaded") is no rule
#: 141 (round 87): a lead-in pinned without any of its items is left out of the
#: constitution (retrieved with its items per task)
#: 142 (round 87): a long option forbidden while doing git's act ("NEVER use `--no-verify`
#: flag when committing") is held on that act's command
#: 143: every act of an "or" list forbidden when nothing after the last one sets a
#: condition ("Never force-push or rewrite history"), "create commits" and "on their own"
#: read as committing by the agent
#: 144 (round 89): each annotated entry of a file tree drawn in a fence ("contrib/   #
#: Docker configs") is a rule of its own (kind ``entry``), cited from its line
#: 145: a domain stem written as a whole word ("pr ", "log ", "ui ", "ci ") no longer
#: tags words it begins ("prefer", "login", "uint", "city").
#: 146: "spec", "auth", "import", "rest" and "fast" tag their own words only, not
#: "specific", "author", "important", "restart" or "FastAPI".
#: 147: a rule alone in its section, right under the heading, is cited from the
#: heading's line (the heading is its title).
STATE_VERSION = 147
STATE_FILE = "rules.json"
VECTORS_FILE = "rules.npy"
MANIFEST_FILE = "rules.meta.json"
#: the commands and files the rules forbid (:mod:`charter.rules.commands`,
#: :mod:`charter.rules.edits`), for the PreToolUse hook
PROHIBITED_FILE = "rules.prohibited.json"


class StoredRules(NamedTuple):
    rules: list[Rule]
    constitution_ids: list[str]
    #: path-scoped rules' text cut to ``rules.max_rule_tokens`` at compile time
    briefs: dict[str, str]
    #: candidate rules' scores of applying to every change (:mod:`charter.rules.general`)
    general: dict[str, float]
    #: the files loaded only when the user asks for them by name (a Cline workflow)
    asked_for: frozenset[str] = frozenset()


@dataclass
class Constitution:
    hash: str
    text: str
    rule_ids: list[str]
    truncated: bool
    overflow_ids: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "text": self.text,
            "rule_ids": self.rule_ids,
            "truncated": self.truncated,
            "overflow_ids": self.overflow_ids,
        }


def stored_constitution(project: Project) -> Constitution | None:
    """The last compile's constitution alone, or None when there is no usable compiled
    state. Pinning it at session start needs neither the vectors nor the parser: a cold
    SessionStart that finds a fresh compile imports no numpy and no rule grammar."""
    state = read_state(project)
    if state is None:
        return None
    try:
        c = state[0]["constitution"]
        return Constitution(
            str(c["hash"]),
            str(c["text"]),
            [str(x) for x in c["rule_ids"]],
            bool(c["truncated"]),
            [str(x) for x in c["overflow_ids"]],
        )
    except (KeyError, TypeError):
        return None


def read_state(project: Project) -> tuple[dict[str, Any], dict[str, bytes]] | None:
    """The last compile's ``rules.json`` (parsed, this version's) and every committed file's
    bytes; None when there is no usable compiled state (none yet, torn, another version)."""
    try:
        committed = read_committed(project.state_dir / MANIFEST_FILE)
    except TornState:
        return None
    if committed is None:
        return None
    _, files = committed
    try:
        data = json.loads(files[STATE_FILE].decode("utf-8"))
    except (KeyError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
        return None
    return data, files


def load_rules(project: Project) -> StoredRules | None:
    """The last compile's rules and constitution ids; None when there is no usable
    compiled state: the caller goes without."""
    state = read_state(project)
    if state is None:
        return None
    data = state[0]
    try:
        rules = [Rule.from_state(r) for r in data["rules"]]
        briefs = data.get("briefs")
        briefs = {str(k): str(v) for k, v in briefs.items()} if isinstance(briefs, dict) else {}
        sources = data.get("sources")
        asked_for = frozenset(
            str(s["path"])
            for s in (sources if isinstance(sources, list) else [])
            if isinstance(s, dict) and s.get("manual")
        )
        return StoredRules(
            rules, list(data["constitution"]["rule_ids"]), briefs, general_of(data), asked_for
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def general_of(data: dict[str, Any]) -> dict[str, float]:
    """The stored scores of applying to every change; empty when absent or malformed."""
    raw = data.get("general")
    if not isinstance(raw, dict):
        return {}
    return {str(k): float(v) for k, v in raw.items() if isinstance(v, (int, float)) and v == v}


class Prohibitions(NamedTuple):
    """What the compiled rules forbid outright: commands to run, files to edit."""

    commands: list[ForbiddenCommand]
    edits: list[ForbiddenEdit]

    def to_json(self) -> dict[str, Any]:
        return {
            "commands": [c.to_dict() for c in self.commands],
            "edits": [e.to_dict() for e in self.edits],
        }


def prohibitions_of(rules: list[Rule]) -> Prohibitions:
    from charter.rules.commands import forbidden_commands
    from charter.rules.edits import forbidden_edits

    return Prohibitions(forbidden_commands(rules), forbidden_edits(rules))


def load_prohibitions(project: Project) -> Prohibitions | None:
    """What the last compile's rules forbid, read from its own small file (a tool call's
    hook must not parse every rule); None when the compiled state predates that file or
    there is none: the caller reads the rules instead."""
    from charter.fileio import read_committed_file
    from charter.rules.commands import ForbiddenCommand
    from charter.rules.edits import ForbiddenEdit

    try:
        data = read_committed_file(project.state_dir / MANIFEST_FILE, PROHIBITED_FILE)
        if data is None:
            return None
        body = json.loads(data.decode("utf-8"))
        return Prohibitions(
            [ForbiddenCommand.from_dict(d) for d in body["commands"]],
            [ForbiddenEdit.from_dict(d) for d in body["edits"]],
        )
    except (TornState, ValueError, KeyError, TypeError, AttributeError):
        return None
