"""Where a Bash command writes: a real shell parser (tree-sitter-bash), not regexes.

Guardrails must know the files a command changes before it runs. Text matching is easy
to fool (``cd .git && echo x > config``, ``bash -c '…'``, ``$(rm …)`` inside a string), so
the command is parsed and walked like a shell would run it: the working directory is
tracked through ``cd`` chains (and forgotten when it cannot be known), redirections,
``tee``, ``sed -i``, ``cp``/``mv``/``rm``/…, ``git`` commands that rewrite the working
tree, ``find -delete``/``-exec``, ``xargs``, nested ``bash -c`` strings, subshells and
command substitutions all report their targets. What cannot be resolved to concrete
paths (a variable, ``eval`` of a dynamic string, an interpreter one-liner that writes
somewhere computed) is reported as *unresolved*: the policy asks the user rather than
allowing it silently.

Limits (documented in docs/session.md): a program the parser does not know (``make``,
``npm run x``, ``python script.py``) may write anything; it is treated as not writing,
as any PreToolUse hook must, or every build would be blocked.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from charter.package_runners import binary_at, folder_option

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: Nested ``bash -c`` strings parsed at most this deep (a loop of them asks).
MAX_DEPTH = 6
#: Commands longer than this are not parsed: they ask.
MAX_COMMAND_CHARS = 100_000

_DEVICES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"}
_GLOB = re.compile(r"(?<!\\)[*?\[]")
_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_WINDOWS_DRIVE = re.compile(r"^([A-Za-z]):(/|$)")

SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "busybox"}
WRAPPERS = {
    "sudo",
    "doas",
    "nice",
    "nohup",
    "time",
    "timeout",
    "command",
    "builtin",
    "exec",
    "stdbuf",
    "ionice",
    "chronic",
    "caffeinate",
    "unbuffer",
    "env",
    "coproc",
    "busybox",  # busybox rm …: the applet
    "watch",  # watch -n 5 CMD: runs CMD again and again
}
#: Options of wrappers that take a value (the value is not the command).
_WRAPPER_VALUE_OPTS = {
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"},
    "doas": {"-u", "-C"},
    "nice": {"-n"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e"},
    "ionice": {"-c", "-n", "-p"},
    "env": {"-u", "-C", "-S", "--unset", "--chdir", "--split-string"},
    "watch": {"-n", "--interval", "-q", "--equexit"},
}
#: Project runners and the subcommand that runs a command in the project's environment
#: (``uv run python x.py``, ``poetry run pytest``, ``bundle exec rake``): the command is
#: also reported as run bare, as ``python -m pip`` is also ``pip``.
RUNNERS: dict[str, tuple[str, ...]] = {
    "uv": ("run",),
    "poetry": ("run",),
    "pipenv": ("run",),
    "pdm": ("run",),
    "hatch": ("run",),
    "rye": ("run",),
    "bundle": ("exec",),
    "pnpm": ("exec", "dlx"),
    "opam": ("exec",),  # opam exec -- dune build
    # a package's binary, installed or fetched: ``npm exec -- serverless deploy``
    "npm": ("exec", "x"),
    "yarn": ("exec", "dlx"),
    "bun": ("x",),
}
#: Launchers of a package's binary with no subcommand (``npx serverless deploy``), and
#: their options that take a value (``npx -p @scope/cli cli run``).
PACKAGE_LAUNCHERS = {"npx", "pnpx", "bunx"}
_LAUNCHER_VALUE_OPTS = {"-p", "--package"}
PYTHONS = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
INTERPRETERS = {"node", "nodejs", "deno", "bun", "perl", "ruby", "php", "Rscript", "lua"}
#: Commands that only read (never worth a second look). Anything else not listed as a
#: writer is an ordinary program: allowed (see the module docstring).
READERS = {
    "cat",
    "ls",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "head",
    "tail",
    "wc",
    "echo",
    "printf",
    "pwd",
    "which",
    "type",
    "file",
    "stat",
    "du",
    "df",
    "diff",
    "cmp",
    "less",
    "more",
    "tree",
    "sort",
    "uniq",
    "cut",
    "tr",
    "jq",
    "true",
    "false",
    "test",
    "[",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "date",
    "whoami",
    "id",
    "uname",
    "hostname",
    "env",
    "printenv",
    "ps",
    "sleep",
    "md5sum",
    "sha256sum",
    "column",
    "nl",
    "fd",
}


@dataclass(frozen=True)
class Target:
    """One path a command writes (absolute, normalised; symlinks resolved)."""

    path: str
    why: str
    recursive: bool = False  # the whole tree under ``path`` (rm -r, find -delete, chmod -R)
    tree: bool = False  # a tree-wide rewrite of unknown files under ``path`` (git checkout)
    link_source: bool = False  # the existing file a link points at


@dataclass
class Analysis:
    targets: list[Target] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    #: every simple command the shell would run, after wrappers (``sudo``, ``env`` …):
    #: its words (None where not a constant) and the directory it runs in (None: unknown)
    commands: list[tuple[tuple[str | None, ...], str | None]] = field(default_factory=list)

    @property
    def writes(self) -> bool:
        return bool(self.targets or self.unresolved)


@dataclass(frozen=True)
class Word:
    value: str | None  # None: not a constant (variable, substitution, ANSI-C string …)
    glob: bool = False
    node: Any = None


def _windows_script(name: str, rest: list[Word]) -> tuple[str | None, ...] | None:
    """The command Windows' ``cmd /c …`` or PowerShell's ``-File script …`` runs, as
    words; None for anything else (``cmd`` alone, ``powershell -Command …``)."""
    lower = name.lower()
    values = [w.value for w in rest]
    if lower == "cmd":
        for i, value in enumerate(values):
            if value is not None and value.lower() in ("/c", "//c", "/k", "//k"):
                words = values[i + 1 :]
                if len(words) == 1 and words[0] is not None:
                    words = list(words[0].split())  # cmd /c "Build.bat x y"
                return tuple(words) if words else None
        return None
    if lower in ("powershell", "pwsh"):
        for i, value in enumerate(values):
            if value is not None and value.lower() in ("-file", "-f") and i + 1 < len(values):
                return tuple(values[i + 1 :])
    return None


def to_posix(path: str) -> str:
    """Backslashes as slashes and ``C:/x`` as ``/c/x`` (Git Bash's view of a drive)."""
    text = path.replace("\\", "/")
    match = _WINDOWS_DRIVE.match(text)
    if match:
        text = "/" + match.group(1).lower() + text[2:]
    return text


def normalise(path: str, cwd: str, home: str) -> str:
    """An absolute, ``..``-free, symlink-resolved POSIX path for ``path`` seen from ``cwd``."""
    text = to_posix(path)
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    elif text.startswith("~"):  # ~user: somewhere outside the project
        text = "/home/" + text[1:]
    if not text.startswith("/"):
        text = posixpath.join(cwd, text)
    return os.path.realpath(posixpath.normpath(text))


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.S)


def word(node: Node) -> Word:
    """The constant value of a shell word, or None when it depends on run time."""
    kind = node.type
    text = (node.text or b"").decode("utf-8", "replace")
    if kind in ("word", "number"):
        glob = bool(_GLOB.search(text) or _BRACES.search(text))
        return Word(_unescape(text), glob, node)
    if kind == "raw_string":
        return Word(text[1:-1], False, node)
    if kind == "brace_expression":  # {1..3}: expanded by the target
        return Word(text, True, node)
    if kind == "string":
        parts = []
        for child in node.children:
            if child.type == '"':
                continue
            if child.type == "command_substitution":
                body = _cat_heredoc(child)
                if body is None:
                    return Word(None, False, node)
                parts.append(body)  # its text as written: no escapes of the string's
                continue
            if child.type != "string_content":
                return Word(None, False, node)
            text = (child.text or b"").decode("utf-8", "replace")
            parts.append(re.sub(r'\\([$`"\\\n])', r"\1", text))
        return Word("".join(parts), False, node)
    if kind == "concatenation":
        values = [word(c) for c in node.children]
        if any(v.value is None for v in values):
            return Word(None, False, node)
        # tree-sitter splits ``{a,b}`` into words; the braces expand when they are unquoted
        bare = "".join(
            (c.text or b"").decode("utf-8", "replace")
            if c.type in ("word", "brace_expression")
            else "\0"
            for c in node.children
        )
        glob = any(v.glob for v in values) or bool(_BRACES.search(bare))
        return Word("".join(v.value or "" for v in values), glob, node)
    return Word(None, False, node)


def _cat_heredoc(node: Node) -> str | None:
    """The text of ``$(cat <<'EOF' … EOF)``, a message written the way agents write one
    (Claude Code's commits), when it is constant: a quoted delimiter, or a body with no
    expansion. A command substitution drops the trailing newlines. None otherwise."""
    inner = [c for c in node.children if c.type not in ("$(", ")")]
    if len(inner) != 1 or inner[0].type != "redirected_statement":
        return None
    command, *redirects = inner[0].children
    name = command.child_by_field_name("name") if command.type == "command" else None
    if name is None or (name.text or b"") != b"cat" or command.named_child_count != 1:
        return None
    if len(redirects) != 1 or redirects[0].type != "heredoc_redirect":
        return None
    parts = {c.type: c for c in redirects[0].children}
    body, start = parts.get("heredoc_body"), parts.get("heredoc_start")
    if start is None or set(parts) - {"<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end"}:
        return None
    if body is None:
        return ""
    quoted = (start.text or b"")[:1] in (b"'", b'"') or b"\\" in (start.text or b"")
    if not quoted and body.named_child_count:
        return None  # $VAR, $(…) or `…` in an unquoted heredoc: known at run time only
    text = (body.text or b"").decode("utf-8", "replace")
    if "<<-" in parts:
        text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
    return text.rstrip("\n")


@dataclass
class _Ctx:
    cwd: str | None
    home: str
    depth: int = 0
    check_dirs: bool = True

    def copy(self) -> _Ctx:
        return _Ctx(self.cwd, self.home, self.depth, self.check_dirs)


class _Walker:
    def __init__(self, out: Analysis) -> None:
        self.out = out
        self.created: set[str] = set()  # directories made earlier in the same command

    # -- results --------------------------------------------------------------------------

    def ask(self, reason: str) -> None:
        if reason not in self.out.unresolved:
            self.out.unresolved.append(reason)

    def target(
        self,
        ctx: _Ctx,
        w: Word,
        why: str,
        *,
        recursive: bool = False,
        tree: bool = False,
        link_source: bool = False,
    ) -> None:
        value = w.value
        if value is None:
            self.ask(f"{why}: the path is not a constant ({_snippet(w)})")
            return
        posix = to_posix(value)
        if posix in _DEVICES or posix.startswith("/dev/fd/") or posix.startswith("/proc/self/fd"):
            return
        absolute = posix.startswith(("/", "~"))
        if not absolute and ctx.cwd is None:
            self.ask(f"{why}: {value!r} is relative to a directory that cannot be known")
            return
        cwd = ctx.cwd or "/"
        if w.glob and _BRACES.search(value):
            words = expand_braces(value)
            if words is None:
                self.ask(f"{why}: {value!r} expands to more than {MAX_BRACE_WORDS} paths")
                return
            if words != [value]:  # each word bash makes is a path of its own
                for one in words:
                    found = Word(one, bool(_GLOB.search(one) or _BRACES.search(one)), w.node)
                    self.target(
                        ctx, found, why, recursive=recursive, tree=tree, link_source=link_source
                    )
                return
        if w.glob:
            # The files a glob names are under its constant prefix; a glob whose last part
            # could name a protected file is reported as that file by the policy.
            head = _GLOB.split(_BRACES.split(posix)[0])[0]
            prefix = head.rsplit("/", 1)[0] if "/" in head else ""
            base = normalise(prefix or ".", cwd, ctx.home)
            self.out.targets.append(Target(base, f"{why} (glob {value!r})", tree=True))
            self.out.targets.append(
                Target(
                    posixpath.join(base, posix.rsplit("/", 1)[-1]),
                    f"{why} (glob {value!r})",
                    recursive,
                    tree,
                    link_source,
                )
            )
            return
        self.out.targets.append(
            Target(normalise(posix, cwd, ctx.home), why, recursive, tree, link_source)
        )

    # -- walking --------------------------------------------------------------------------

    def visit(self, node: Node, ctx: _Ctx) -> None:
        kind = node.type
        if node.has_error and kind == "program":
            self.ask("the command does not parse as shell")
        if kind in ("comment", "heredoc_body", "heredoc_end", "heredoc_start"):
            return
        if kind == "command":
            self.command(node, ctx)
        elif kind == "redirected_statement":
            self.redirected(node, ctx)
        elif kind == "pipeline":
            for child in node.children:  # each part runs in its own subshell
                self.visit(child, ctx.copy())
        elif kind in ("subshell", "command_substitution", "process_substitution"):
            inner = ctx.copy()
            for child in node.children:
                self.visit(child, inner)
        elif kind == "list":
            self.sequence(node, ctx)
        elif kind in (
            "if_statement",
            "while_statement",
            "for_statement",
            "c_style_for_statement",
            "case_statement",
            "function_definition",
        ):
            inner = ctx.copy()
            for child in node.children:
                self.visit(child, inner)
            if inner.cwd != ctx.cwd:
                ctx.cwd = None
        elif kind == "file_redirect":
            self.redirect(node, [ctx])
        elif kind in ("variable_assignment", "declaration_command", "unset_command"):
            for child in node.children:
                self.substitutions(child, ctx)
        else:
            for child in node.children:
                self.visit(child, ctx)

    def sequence(self, node: Node, ctx: _Ctx) -> None:
        conditional = False
        before = ctx.cwd
        for child in node.children:
            if child.type == "||":
                conditional = True
                continue
            if child.type in ("&&", ";", "&"):
                continue
            self.visit(child, ctx)
        if conditional and ctx.cwd != before:
            ctx.cwd = None

    def substitutions(self, node: Node, ctx: _Ctx) -> None:
        """Run every ``$(…)``, backtick and ``<(…)`` inside ``node`` (they execute first)."""
        if node.type in ("command_substitution", "process_substitution"):
            self.visit(node, ctx.copy())
            return
        for child in node.children:
            self.substitutions(child, ctx)

    def redirected(self, node: Node, ctx: _Ctx) -> None:
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c is not body]
        view = ctx.copy()
        if body is not None and body.type == "list":
            # tree-sitter binds ``cd x && echo > f`` as one redirected list; bash applies
            # the redirection to the last command, after the ones before it ran.
            parts = [c for c in body.children if c.is_named]
            conditional = any(c.type == "||" for c in body.children)
            before = ctx.cwd
            for part in parts[:-1]:
                self.visit(part, ctx)
            if conditional and ctx.cwd != before:
                ctx.cwd = None
            view = ctx.copy()
            if parts:
                self.visit(parts[-1], ctx)
        elif body is not None:
            self.visit(body, ctx)
        for red in redirects:
            self.redirect(red, [view])

    def redirect(self, node: Node, views: list[_Ctx]) -> None:
        if node.type == "heredoc_redirect":
            expands = True
            for child in node.children:
                if child.type == "heredoc_start":
                    # a quoted delimiter (<<'EOF', <<"EOF", <<\EOF) keeps the body literal
                    expands = not any(c in (child.text or b"") for c in b"'\"\\")
                if child.type in ("file_redirect", "heredoc_redirect"):
                    self.redirect(child, views)
                elif child.type == "heredoc_body":
                    if expands:  # $(…) and backticks in the body run before the command
                        body = (child.text or b"").decode("utf-8", "replace")
                        self.reparse(_double_quoted(body), [], views[0], "a here-document")
                elif child.type not in ("heredoc_body",):
                    self.substitutions(child, views[0])
            return
        if node.type != "file_redirect":
            self.substitutions(node, views[0])
            return
        op = ""
        dest: Node | None = None
        for child in node.children:
            if child.type in (">", ">>", "&>", "&>>", ">|", "<>", ">&", "<", "<&", "<&-", ">&-"):
                op = child.type
            elif child.type != "file_descriptor":
                dest = child
        if dest is None:
            return
        self.substitutions(dest, views[0])
        if op in ("<", "<&", "<&-", ">&-", ""):
            return
        w = word(dest)
        if op in (">&", "<&") and w.value is not None and (w.value.isdigit() or w.value == "-"):
            return
        for view in views:
            self.target(view, w, f"redirection {op}")

    # -- commands -------------------------------------------------------------------------

    def command(self, node: Node, ctx: _Ctx) -> None:
        args: list[Word] = []
        for child in node.children:
            self.substitutions(child, ctx)
            if child.type == "command_name":
                inner = child.children[0] if child.children else child
                args.append(word(inner))
            elif child.type in ("variable_assignment", "comment"):
                continue
            elif child.type in ("file_redirect", "heredoc_redirect"):
                self.redirect(child, [ctx])
            elif child.is_named and child.type != "herestring_redirect":
                args.append(word(child))
        if args:
            self.run(args, ctx, node)

    def run(self, args: list[Word], ctx: _Ctx, node: Node | None = None) -> None:
        """Dispatch one simple command by name (after unwrapping sudo, env, …)."""
        name_word = args[0]
        if name_word.value is None:
            self.ask(f"the command name is not a constant ({_snippet(name_word)})")
            return
        name = posixpath.basename(to_posix(name_word.value))
        if name.lower().endswith(".exe"):
            name = name[:-4]
        rest = args[1:]
        if name in WRAPPERS:
            inner = _unwrap(name, rest)
            if name == "env":
                chdir = _option_value(rest, ("-C", "--chdir"))
                if chdir is not None:
                    ctx = ctx.copy()
                    self._cd(ctx, chdir)
            if inner:
                self.run(inner, ctx, node)
            return
        folder = folder_option(name, [a.value for a in rest])
        if folder is not None:
            # ``pnpm --dir web install``, ``npm --prefix web run build``: the package
            # manager's call (and what it runs) runs in that folder, as after ``cd web``
            ctx = ctx.copy()
            at, value = folder
            self._cd(ctx, Word(value, rest[at].glob) if value is not None else Word(None))
        self.out.commands.append((tuple(a.value for a in args), ctx.cwd))
        if PYTHONS.match(name) and len(rest) > 1 and rest[0].value == "-m":
            # ``python -m pip install x`` runs the module as ``pip install x``
            self.out.commands.append((tuple(a.value for a in rest[1:]), ctx.cwd))
        if len(rest) > 1 and rest[0].value in RUNNERS.get(name, ()):
            inner = rest[2:] if rest[1].value == "--" else rest[1:]
            if inner and not (inner[0].value or "-").startswith("-"):
                self.run(inner, ctx, node)
                return
        if name in PACKAGE_LAUNCHERS:
            # ``npx --yes serverless deploy`` runs ``serverless deploy`` (also reported
            # as the launcher's own command, which a rule may name: "never `npx <tool>`")
            at = 0
            while at < len(rest) and (rest[at].value or "").startswith("-"):
                value = rest[at].value or ""
                at += 2 if value in _LAUNCHER_VALUE_OPTS else 1
                if value == "--":
                    break
            if at < len(rest) and rest[at].value is not None:
                self.run(rest[at:], ctx, node)
                return
        values = [a.value for a in rest]
        binary = binary_at(name, values)
        if binary is not None:
            # ``pnpm prisma migrate reset``, ``yarn run tsc``: the package manager runs
            # the binary it is given by name, as ``pnpm exec`` does (also reported as
            # the package manager's own call, which a rule may name)
            self.run(rest[binary:], ctx, node)
            return
        if name == "direnv" and len(rest) > 2 and rest[0].value == "exec":
            # direnv exec DIR CMD…: CMD runs in DIR with DIR's environment
            inner_ctx = ctx.copy()
            self._cd(inner_ctx, rest[1])
            self.run(rest[2:], inner_ctx, node)
            return
        if name == "nix" and rest and rest[0].value in ("develop", "shell"):
            # nix develop [INSTALLABLE] --command CMD…: CMD runs in the dev shell
            for i, a in enumerate(rest):
                if a.value in ("-c", "--command") and i + 1 < len(rest):
                    self.run(rest[i + 1 :], ctx, node)
                    return
        windows = _windows_script(name, rest)
        if windows is not None:
            # ``cmd /c Build.bat x`` (``cmd //c`` from Git Bash), ``powershell -File
            # x.ps1``: the script runs as a program would (a rule against it holds); what
            # it does inside stays unseen, as for ``bash x.sh``
            self.out.commands.append((windows, ctx.cwd))
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, name, rest, ctx, node)
        elif PYTHONS.match(name) or name in INTERPRETERS:
            self.interpreter(name, rest, ctx, node)
        elif name in SHELLS:
            self.shell(name, rest, ctx, node)
        elif name == "eval":
            self.reparse(" ".join(a.value or "" for a in rest), rest, ctx, "eval")
        elif name == "trap" and len(rest) > 1 and rest[0].value not in ("-", "", "--"):
            # trap 'CMD' SIGNAL…: CMD runs later, in this shell
            self.reparse(rest[0].value, rest[:1], ctx, "trap")

    def _cd(self, ctx: _Ctx, target: Word | None) -> None:
        if target is None:
            ctx.cwd = ctx.home
            return
        if target.value is None or target.glob or target.value == "-":
            ctx.cwd = None
            return
        base = ctx.cwd
        posix = to_posix(target.value)
        if base is None and not posix.startswith(("/", "~")):
            return
        new = normalise(posix, base or "/", ctx.home)
        if ctx.check_dirs and not os.path.isdir(new) and new not in self.created:
            ctx.cwd = None  # the cd may fail: later commands run who knows where
            return
        ctx.cwd = new

    def shell(self, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
        script: Word | None = None
        for i, a in enumerate(rest):
            if a.value is None:
                continue
            if a.value == "-c" or (
                a.value.startswith("-") and not a.value.startswith("--") and "c" in a.value[1:]
            ):
                if i + 1 < len(rest):
                    script = rest[i + 1]
                break
            if not a.value.startswith("-"):
                # ``bash script.sh prod``: a program we cannot see into, run as
                # ``script.sh prod`` would be (a rule against running it holds)
                self.out.commands.append((tuple(w.value for w in rest[i:]), ctx.cwd))
                return
        if script is None:
            body = _heredoc(node)
            if body is not None:
                self.reparse(body, [], ctx, f"{name} reading a here-document")
            return
        self.reparse(script.value, [script], ctx, f"{name} -c")

    def reparse(self, text: str | None, words: list[Word], ctx: _Ctx, why: str) -> None:
        if text is None or any(w.value is None for w in words):
            self.ask(f"{why} runs a string that is not a constant")
            return
        if ctx.depth >= MAX_DEPTH:
            self.ask(f"{why}: nested too deep to follow")
            return
        inner = ctx.copy()
        inner.depth += 1
        _analyse_into(text, inner, self.out)

    def interpreter(self, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
        code: str | None = None
        flags = {"-c"} if PYTHONS.match(name) else {"-e", "-E", "--eval", "-p", "--print", "-r"}
        inplace: list[Word] = []
        for i, a in enumerate(rest):
            value = a.value
            if value is None:
                continue
            if name == "perl" and value.startswith("-") and "i" in value.lstrip("-")[:3]:
                inplace = [w for w in rest[i + 1 :] if not (w.value or "").startswith("-")]
            if value in flags or (
                name == "perl" and value.startswith("-") and value.rstrip("i").endswith("e")
            ):
                if i + 1 < len(rest):
                    nxt = rest[i + 1]
                    if nxt.value is None:
                        self.ask(f"{name} runs code that is not a constant")
                        return
                    code = nxt.value
                break
            if value == "-" or not value.startswith("-"):
                if value != "-":
                    return  # ``python script.py``: a program
                break
        if code is None:
            code = _heredoc(node)
        if name == "perl" and inplace:
            # perl -pi -e CODE FILES: the files after the code are rewritten
            files = inplace[1:] if code is not None else inplace
            for w in files:
                self.target(ctx, w, "perl -i")
        if code is None:
            return
        for kind, path in _code_writes(name, code):
            if kind == "path" and path is not None:
                self.target(ctx, Word(path), f"{name} code writes")
            else:
                self.ask(f"{name} code may write files ({kind})")


def _snippet(w: Word) -> str:
    text = (w.node.text or b"").decode("utf-8", "replace") if w.node is not None else "?"
    return text[:60]


MAX_BRACE_WORDS = 256
_SEQUENCE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")


def _brace_parts(text: str) -> tuple[int, int, list[str]] | None:
    """The first ``{…}`` bash expands in ``text``: (start, end, the words inside)."""
    for start, char in enumerate(text):
        if char != "{":
            continue
        depth, commas = 0, [start]
        for end in range(start, len(text)):
            if text[end] == "{":
                depth += 1
            elif text[end] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif text[end] == "," and depth == 1:
                commas.append(end)
        else:
            return None  # no closing brace: nothing after it expands either
        if len(commas) > 1:
            bounds = [*commas, end]
            return start, end, [text[a + 1 : b] for a, b in itertools.pairwise(bounds)]
        seq = _SEQUENCE.fullmatch(text[start + 1 : end])
        if seq:
            return start, end, _sequence(*seq.groups())
    return None


def _sequence(first: str, last: str, step: str | None) -> list[str]:
    by = abs(int(step or 1)) or 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        a, b = int(first), int(last)
        if abs(b - a) // by > MAX_BRACE_WORDS:
            return [str(a)] * (MAX_BRACE_WORDS + 1)  # too many: the caller gives up
        return [str(n) for n in range(a, b + (1 if b >= a else -1), by if b >= a else -by)]
    if first.isalpha() and last.isalpha():
        a, b = ord(first), ord(last)
        return [chr(n) for n in range(a, b + (1 if b >= a else -1), by if b >= a else -by)]
    return [f"{first}..{last}"]


def expand_braces(text: str) -> list[str] | None:
    """The words bash's brace expansion makes of ``text`` (``a{b,c}`` → ``ab``, ``ac``;
    ``f{1..3}``), or None when there would be more than :data:`MAX_BRACE_WORDS`."""
    done: list[str] = []
    todo = [text]
    while todo:
        current = todo.pop()
        found = _brace_parts(current)
        if found is None:
            done.append(current)
            continue
        start, end, inner = found
        todo.extend(current[:start] + part + current[end + 1 :] for part in reversed(inner))
        if len(done) + len(todo) > MAX_BRACE_WORDS:
            return None
    return [w for w in done if w] or [text]  # bash drops the empty words ({,a} is a)


def _double_quoted(body: str) -> str:
    """``: "BODY"``: a command whose one word expands as the unquoted here-document
    ``body`` does (``$(…)``, backticks and ``$x`` expand; a ``"`` is a plain character)."""
    out = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            nxt = body[i + 1 : i + 2]
            out.append(char + nxt if nxt in ("$", "`", "\\", "\n") else "\\\\")
            i += 2 if nxt in ("$", "`", "\\", "\n") else 1
            continue
        out.append('\\"' if char == '"' else char)
        i += 1
    return ': "' + "".join(out) + '"'


def _heredoc(node: Node | None) -> str | None:
    """The here-document fed to ``node``'s command (``python - <<EOF … EOF``)."""
    if node is None:
        return None
    parent = node.parent
    if parent is None or parent.type != "redirected_statement":
        return None
    for child in parent.children:
        if child.type == "heredoc_redirect":
            for part in child.children:
                if part.type == "heredoc_body":
                    return (part.text or b"").decode("utf-8", "replace")
        if child.type == "herestring_redirect":
            inner = [c for c in child.children if c.is_named]
            return word(inner[-1]).value if inner else None
    return None


def _option_value(args: list[Word], names: tuple[str, ...]) -> Word | None:
    for i, a in enumerate(args):
        value = a.value or ""
        for name in names:
            if value == name and i + 1 < len(args):
                return args[i + 1]
            if name.startswith("--") and value.startswith(name + "="):
                return Word(value.split("=", 1)[1])
            if not name.startswith("--") and value.startswith(name) and len(value) > len(name):
                return Word(value[len(name) :])
    return None


def _unwrap(name: str, rest: list[Word]) -> list[Word]:
    """The command a wrapper runs (``sudo -u x rm f`` → ``rm f``)."""
    takes = _WRAPPER_VALUE_OPTS.get(name, set())
    i = 0
    if name == "timeout":
        while i < len(rest) and (rest[i].value or "").startswith("-"):
            i += 2 if rest[i].value in takes else 1
        return rest[i + 1 :]  # the duration
    while i < len(rest):
        value = rest[i].value
        if value is None:
            return rest[i:]
        if name == "env" and "=" in value and not value.startswith("-"):
            i += 1
            continue
        if value == "--":
            return rest[i + 1 :]
        if value.startswith("-") and name != "exec":
            i += 2 if value in takes else 1
            continue
        if name == "exec" and value.startswith("-"):
            i += 1
            continue
        return rest[i:]
    return []


def _operands(args: list[Word], value_opts: set[str] | frozenset[str] = frozenset()) -> list[Word]:
    """Arguments that are not options (``--`` ends options)."""
    out: list[Word] = []
    i = 0
    ended = False
    while i < len(args):
        a = args[i]
        value = a.value
        if not ended and value is not None:
            if value == "--":
                ended = True
                i += 1
                continue
            if value.startswith("-") and value != "-":
                i += 2 if value in value_opts else 1
                continue
        out.append(a)
        i += 1
    return out


def _flags(args: list[Word]) -> set[str]:
    """Single-letter flags (``-rf`` → r, f) and long options present."""
    out: set[str] = set()
    for a in args:
        value = a.value or ""
        if value == "--":
            break
        if value.startswith("--"):
            out.add(value.split("=", 1)[0])
        elif value.startswith("-") and len(value) > 1:
            out.update(value[1:])
    return out


# -- command handlers ---------------------------------------------------------------------


def _h_cd(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    if name == "popd":
        ctx.cwd = None
        return
    ops = _operands(rest)
    if len(ops) > 1:
        ctx.cwd = None
        return
    w._cd(ctx, ops[0] if ops else None)


def _h_each(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    """Commands whose every operand is written (rm, mkdir, touch, …)."""
    value_opts = {"truncate": {"-s", "-r", "--size", "--reference"}, "shred": {"-n", "-s"}}.get(
        name, set()
    )
    flags = _flags(rest)
    recursive = name in ("rm", "shred") and bool({"r", "R", "--recursive"} & flags)
    for op in _operands(rest, value_opts):
        w.target(ctx, op, name, recursive=recursive)
        if name == "mkdir" and w.out.targets:
            w.created.add(w.out.targets[-1].path)


def _h_mode(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    """chmod/chown/chgrp: the first operand is the mode or owner (unless --reference)."""
    flags = _flags(rest)
    ops = _operands(rest)
    if not any(f.startswith("--reference") for f in flags):
        ops = ops[1:]
    recursive = bool({"R", "--recursive"} & flags)
    for op in ops:
        w.target(ctx, op, name, recursive=recursive)


def _h_copy(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    """cp, mv, ln, install, rsync: the destination (and mv's sources, ln's link targets)."""
    value_opts = {"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "-g"}
    if name == "rsync":
        value_opts |= {"-e", "--rsh", "--exclude", "--include", "--filter", "-f"}
    target_dir = _option_value(rest, ("-t", "--target-directory"))
    ops = _operands(rest, value_opts)
    if name == "install" and "d" in _flags(rest):
        for op in ops:
            w.target(ctx, op, "install -d")
        return
    if target_dir is not None:
        dests, sources = [target_dir], ops
    elif ops:
        dests, sources = [ops[-1]], ops[:-1]
    else:
        return
    if name == "ln" and len(ops) == 1 and target_dir is None:
        dests, sources = [Word(".")], ops
    for d in dests:
        w.target(ctx, d, name)
    flags = _flags(rest)
    # a relative symbolic link target is read from the link's directory (not with -r)
    symbolic = name == "ln" and bool({"s", "--symbolic"} & flags)
    relative_to = _link_dir(ctx, dests[0], into=target_dir is not None or len(ops) == 1)
    for s in sources:
        if name == "mv":
            w.target(ctx, s, "mv (source removed)", recursive=True)
        elif name == "ln":
            if (
                symbolic
                and not {"r", "--relative"} & flags
                and s.value is not None
                and not to_posix(s.value).startswith(("/", "~"))
                and relative_to is not None
            ):
                s = Word(posixpath.join(relative_to, to_posix(s.value)), s.glob, s.node)
            w.target(ctx, s, "ln (link target)", link_source=True)
        elif name == "rsync" and "--remove-source-files" in _flags(rest):
            w.target(ctx, s, "rsync --remove-source-files", recursive=True)


def _link_dir(ctx: _Ctx, dest: Word, *, into: bool) -> str | None:
    """The directory a link made at ``dest`` lives in (``into``: ``dest`` is that
    directory, as with ``-t DIR`` or ``ln -s TARGET``), as a path from ``ctx.cwd``."""
    if dest.value is None or dest.glob:
        return None
    path = to_posix(dest.value)
    if into or path.endswith("/") or path in (".", ".."):
        return path
    known = ctx.check_dirs and ctx.cwd is not None
    if known and os.path.isdir(normalise(path, ctx.cwd or "/", ctx.home)):
        return path
    return posixpath.dirname(path) or "."


def _h_tee(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    for op in _operands(rest):
        w.target(ctx, op, "tee")


def _h_sed(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    inplace = any(
        (a.value or "").startswith(("-i", "--in-place"))
        or (
            (a.value or "").startswith("-")
            and not (a.value or "").startswith("--")
            and "i" in (a.value or "")[1:]
            and name == "sed"
        )
        for a in rest
    )
    if name == "awk" or name == "gawk":
        inplace = any(a.value == "inplace" for a in rest)
    if not inplace:
        if name in ("awk", "gawk"):
            program = next((a for a in _operands(rest, {"-f", "-v", "-F"})), None)
            text = program.value if program else None
            if text and re.search(r"system\s*\(|(print|printf)[^;{}]*>{1,2}\s*[\"$\w(]", text):
                w.ask("awk program writes files or runs commands")
        return
    has_script = any(a.value in ("-e", "--expression", "-f", "--file") for a in rest)
    if name in ("awk", "gawk"):
        ops = [a for a in _operands(rest, {"-f", "-v", "-F", "-i"}) if a.value != "inplace"]
    else:
        ops = _operands(rest, {"-e", "--expression", "-f", "--file", "-l"})
    files = ops if has_script else ops[1:]
    for op in files:
        w.target(ctx, op, f"{name} in place")


def _h_dd(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    for a in rest:
        if a.value is None:
            w.ask("dd with an argument that is not a constant")
        elif a.value.startswith("of="):
            w.target(ctx, Word(a.value[3:]), "dd of=")


def _h_output_opt(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    """curl -o, wget -O/-P, sort -o, unzip -d, tar -x (-C): files they create."""
    spec = {
        "curl": ("-o", "--output"),
        "wget": ("-O", "--output-document", "-P", "--directory-prefix"),
        "sort": ("-o", "--output"),
        "unzip": ("-d",),
        "tar": ("-C", "--directory"),
    }[name]
    dest = _option_value(rest, spec)
    if name == "tar":
        flags = _flags(rest)
        first = rest[0].value if rest and rest[0].value else ""
        extracting = (
            "x" in flags or "--extract" in flags or (not first.startswith("-") and "x" in first)
        )
        creating = "c" in flags or (not first.startswith("-") and "c" in first)
        if creating:
            archive = _tar_archive(rest)
            if archive is not None:
                w.target(ctx, archive, "tar -c archive")
        if not extracting:
            return
        w.target(ctx, dest or Word("."), "tar -x", tree=True)
        return
    if name == "unzip":
        w.target(ctx, dest or Word("."), "unzip", tree=True)
        return
    if dest is not None:
        tree = (
            name == "wget"
            and dest.value is not None
            and any((a.value or "") in ("-P", "--directory-prefix") for a in rest)
        )
        w.target(ctx, dest, f"{name} output", tree=tree)
    elif name == "curl" and any(a.value in ("-O", "--remote-name") for a in rest):
        w.target(ctx, Word("."), "curl -O", tree=True)


def _tar_archive(rest: list[Word]) -> Word | None:
    """The archive tar writes: ``-f X``, ``-fX``, ``--file=X``, ``-czf X`` or ``czf X``."""
    for i, a in enumerate(rest):
        value = a.value or ""
        if value.startswith("--file"):
            return _option_value([a, *rest[i + 1 : i + 2]], ("--file",))
        bundle = value[1:] if value.startswith("-") else (value if i == 0 else "")
        if bundle and "f" in bundle:
            tail = bundle[bundle.index("f") + 1 :]
            if tail and value.startswith("-") and not tail.isalpha():
                return Word(tail)  # -cfNAME
            return rest[i + 1] if i + 1 < len(rest) else None
    return None


_GIT_VALUE_OPTS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
_GIT_TREE = {
    "checkout",
    "switch",
    "merge",
    "rebase",
    "pull",
    "cherry-pick",
    "revert",
    "am",
    "apply",
    "stash",
    "clean",
    "read-tree",
    "checkout-index",
    "filter-branch",
    "filter-repo",
    "bisect",
    "sparse-checkout",
    "submodule",
}


def _h_git(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    i = 0
    git_ctx = ctx
    while i < len(rest):
        value = rest[i].value
        if value is None:
            w.ask("git with an option that is not a constant")
            return
        if value in ("-C",) and i + 1 < len(rest):
            git_ctx = git_ctx.copy()
            w._cd(git_ctx, rest[i + 1])
            i += 2
            continue
        if value.split("=", 1)[0] in ("--git-dir", "--work-tree"):
            w.ask("git with --git-dir/--work-tree writes where the policy cannot follow")
            return
        if value in _GIT_VALUE_OPTS:
            i += 2
            continue
        if value.startswith("-"):
            i += 1
            continue
        break
    if i >= len(rest):
        return
    sub = rest[i].value or ""
    args = rest[i + 1 :]
    flags = _flags(args)
    ops = _operands(args, {"-m", "-b", "-B", "-c", "-C", "-s", "-X", "-e", "--source", "-o"})
    after_dashdash = _after_dashdash(args)
    here = git_ctx
    if sub == "config":
        if {"--get", "--get-all", "--get-regexp", "-l", "--list", "--show-origin"} & flags or (
            len(ops) <= 1 and not {"--unset", "--unset-all", "--add", "--replace-all"} & flags
        ):
            return
        if {"--global", "--system"} & flags:
            w.target(here, Word("~/.gitconfig"), "git config --global")
        else:
            w.target(here, Word(_git_dir(here) + "/config"), "git config")
        return
    if sub == "init":
        w.target(here, Word((ops[0].value or ".") + "/.git" if ops else ".git"), "git init")
        return
    if sub in ("clone",) and len(ops) >= 2:
        w.target(here, ops[1], "git clone")
        return
    if sub in ("clone",) and len(ops) == 1 and ops[0].value:
        base = posixpath.basename(ops[0].value.rstrip("/")).removesuffix(".git")
        w.target(here, Word(base or "."), "git clone")
        return
    if sub == "worktree" and ops and ops[0].value == "add" and len(ops) > 1:
        w.target(here, ops[1], "git worktree add")
        return
    if sub == "rm" and "--cached" not in flags:
        for op in ops:
            w.target(here, op, "git rm")
        return
    if sub == "mv":
        for op in ops:
            w.target(here, op, "git mv")
        return
    if sub == "restore":
        if "--staged" in flags and "--worktree" not in flags and "W" not in flags:
            return
        for op in ops or [Word(".")]:
            w.target(here, op, "git restore", tree=not ops)
        return
    if sub == "reset":
        if {"--hard", "--merge", "--keep"} & flags:
            w.target(here, Word("."), f"git reset {' '.join(sorted(flags))}", tree=True)
        return
    if sub == "stash" and ops and ops[0].value in ("list", "show", "drop", "clear", "create"):
        return
    if sub == "apply" and {"--check", "--stat", "--numstat", "--summary", "--cached"} & flags:
        return
    if sub == "checkout" and after_dashdash:
        for op in after_dashdash:
            w.target(here, op, "git checkout --")
        return
    if sub == "bisect" and ops and ops[0].value in ("log", "visualize", "view"):
        return
    if sub == "submodule" and not (ops and ops[0].value in ("update", "add", "deinit")):
        return
    if sub == "clean":
        # deletes what git does not track under its pathspecs, with -x what it ignores
        # too: Charter's state and its untracked decisions go as with ``rm -rf``
        if {"n", "--dry-run"} & flags:
            return
        for op in ops or [Word(".")]:
            w.target(here, op, "git clean", recursive=True)
        return
    if sub in _GIT_TREE:
        w.target(here, Word("."), f"git {sub}", tree=True)


def _git_dir(ctx: _Ctx) -> str:
    """The ``.git`` of the repository ``ctx.cwd`` is in (``.git`` when none is found)."""
    if ctx.cwd is None:
        return ".git"
    here = ctx.cwd
    while True:
        if os.path.exists(posixpath.join(here, ".git")):
            return posixpath.join(here, ".git")
        parent = posixpath.dirname(here)
        if parent == here:
            return posixpath.join(ctx.cwd, ".git")
        here = parent


def _after_dashdash(args: list[Word]) -> list[Word]:
    for i, a in enumerate(args):
        if a.value == "--":
            return args[i + 1 :]
    return []


_FIND_VALUE = {
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-regex",
    "-iregex",
    "-type",
    "-maxdepth",
    "-mindepth",
    "-newer",
    "-perm",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-ctime",
    "-user",
    "-group",
    "-printf",
    "-wholename",
    "-iwholename",
    "-lname",
    "-ilname",
    "-samefile",
    "-inum",
    "-links",
    "-uid",
    "-gid",
    "-used",
    "-newermt",
    "-fstype",
}


def _h_find(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    starts: list[Word] = []
    i = 0
    while i < len(rest) and rest[i].value is not None:
        value = rest[i].value or ""
        if value.startswith(("-", "(", "!", ")")) and value not in ("-",):
            if value in ("-H", "-L", "-P"):
                i += 1
                continue
            break
        starts.append(rest[i])
        i += 1
    starts = starts or [Word(".")]
    expr = rest[i:]
    j = 0
    while j < len(expr):
        item = expr[j].value
        if item is None:
            j += 1
            continue
        value = item
        if value in _FIND_VALUE:
            j += 2
            continue
        if value == "-delete":
            for s in starts:
                w.target(ctx, s, "find -delete", recursive=True)
        elif value in ("-fprint", "-fprint0", "-fprintf", "-fls") and j + 1 < len(expr):
            w.target(ctx, expr[j + 1], f"find {value}")
        elif value in ("-exec", "-execdir", "-ok", "-okdir"):
            k = j + 1
            cmd: list[Word] = []
            while k < len(expr) and expr[k].value not in (";", "+", "\\;"):
                cmd.append(expr[k])
                k += 1
            if cmd:
                inner = _Walker(Analysis())
                inner.run(cmd, ctx.copy())
                w.out.commands.extend(inner.out.commands)
                if inner.out.writes:
                    for s in starts:
                        w.target(ctx, s, f"find {value} {cmd[0].value or ''}", recursive=True)
                    for t in inner.out.targets:
                        if "{}" not in t.path:
                            w.out.targets.append(t)
            j = k
        j += 1


_XARGS_VALUE = {"-I", "-i", "-n", "-P", "-d", "-L", "-l", "-a", "-E", "-e", "-s", "--delimiter"}


def _h_xargs(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    i = 0
    while i < len(rest):
        value = rest[i].value
        if value is None:
            w.ask("xargs with an argument that is not a constant")
            return
        if value in _XARGS_VALUE:
            i += 2
            continue
        if value.startswith("-"):
            i += 1
            continue
        break
    cmd = rest[i:] or [Word("echo")]
    inner = _Walker(Analysis())
    inner.run(cmd, ctx.copy())
    w.out.commands.extend(inner.out.commands)
    head = cmd[0].value or ""
    if inner.out.writes or posixpath.basename(head) in _WRITERS:
        w.ask(f"xargs {head} writes files named on its input")
        w.out.targets.extend(inner.out.targets)


_PARALLEL_VALUE = {
    "-j", "--jobs", "-S", "--sshlogin", "-N", "-n", "--max-args", "-d", "--delimiter",
    "-a", "--arg-file", "--delay", "--timeout", "--joblog", "--results", "--tmpdir",
    "-I", "--colsep", "-E", "--memfree", "--load", "--retries", "--halt", "--tagstring",
}  # fmt: skip
_PARALLEL_SOURCES = {":::", "::::", ":::+", "::::+"}


def _h_parallel(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    """GNU parallel: CMD runs once per argument after ``:::`` (checked as such); names
    read from a file or the input are not known: a writing CMD asks, as with xargs."""
    i = 0
    while i < len(rest) and rest[i].value not in _PARALLEL_SOURCES:
        value = rest[i].value
        if value is None:
            w.ask("parallel with an argument that is not a constant")
            return
        if not value.startswith("-"):
            break
        i += 2 if value in _PARALLEL_VALUE else 1
    words = rest[i:]
    cut = next((k for k, x in enumerate(words) if x.value in _PARALLEL_SOURCES), len(words))
    cmd, sources = words[:cut], words[cut:]
    constant = bool(sources) and all(
        x.value == ":::" for x in sources if x.value in _PARALLEL_SOURCES
    )
    args = [x for x in sources if x.value not in _PARALLEL_SOURCES]
    if not constant:
        inner = _Walker(Analysis())
        inner.run(cmd or [Word("echo")], ctx.copy())
        w.out.commands.extend(inner.out.commands)
        head = (cmd[0].value or "") if cmd else ""
        if inner.out.writes or posixpath.basename(head) in _WRITERS:
            w.ask(f"parallel {head} writes files named on its input")
            w.out.targets.extend(inner.out.targets)
        return
    for arg in args[:MAX_BRACE_WORDS]:
        if not cmd:  # parallel ::: "rm x" "rm y": each argument is a command
            w.reparse(arg.value, [arg], ctx, "parallel")
            continue
        if arg.value is not None and any("{}" in (x.value or "") for x in cmd):
            filled = [
                Word(x.value.replace("{}", arg.value), x.glob or arg.glob, x.node)
                if x.value is not None and "{}" in x.value
                else x
                for x in cmd
            ]
            w.run(filled, ctx, node)
        else:
            w.run([*cmd, arg], ctx, node)


def _h_patch(w: _Walker, name: str, rest: list[Word], ctx: _Ctx, node: Node | None) -> None:
    ops = _operands(rest, {"-p", "-i", "-d", "-o", "-r", "-B", "-D", "-F", "-V", "-z"})
    directory = _option_value(rest, ("-d", "--directory"))
    if ops:
        w.target(ctx, ops[0], "patch")
    else:
        w.target(ctx, directory or Word("."), "patch", tree=True)


_HANDLERS = {
    "cd": _h_cd,
    "pushd": _h_cd,
    "popd": _h_cd,
    "rm": _h_each,
    "rmdir": _h_each,
    "unlink": _h_each,
    "shred": _h_each,
    "mkdir": _h_each,
    "touch": _h_each,
    "truncate": _h_each,
    "mkfifo": _h_each,
    "chmod": _h_mode,
    "chown": _h_mode,
    "chgrp": _h_mode,
    "chattr": _h_mode,
    "setfacl": _h_mode,
    "cp": _h_copy,
    "mv": _h_copy,
    "ln": _h_copy,
    "install": _h_copy,
    "rsync": _h_copy,
    "tee": _h_tee,
    "sed": _h_sed,
    "gsed": _h_sed,
    "awk": _h_sed,
    "gawk": _h_sed,
    "dd": _h_dd,
    "curl": _h_output_opt,
    "wget": _h_output_opt,
    "sort": _h_output_opt,
    "unzip": _h_output_opt,
    "tar": _h_output_opt,
    "git": _h_git,
    "find": _h_find,
    "xargs": _h_xargs,
    "parallel": _h_parallel,
    "patch": _h_patch,
}
_WRITERS = set(_HANDLERS) - {"cd", "pushd", "popd", "curl", "sort", "find", "awk", "gawk"}


# -- interpreter one-liners ---------------------------------------------------------------

_PY_OPEN_LITERAL = re.compile(
    r"""\bopen\(\s*(?P<q>['"])(?P<path>[^'"]*)(?P=q)\s*"""
    r"""(?:,\s*(?:mode\s*=\s*)?(?P<mq>['"])(?P<mode>[^'"]*)(?P=mq))?"""
)
_PY_PATH_WRITE = re.compile(
    r"""\bPath\(\s*(?P<q>['"])(?P<path>[^'"]*)(?P=q)\s*\)\s*\.\s*"""
    r"""(write_text|write_bytes|touch|mkdir|unlink|rmdir|rename|replace|chmod|symlink_to|open\(\s*['"][wax])"""
)
_PY_RISKY = re.compile(
    r"\b(os\.(remove|unlink|rmdir|removedirs|makedirs|mkdir|rename|replace|chmod|chown|"
    r"symlink|link|truncate|system|popen|spawn\w*|exec\w*|write|open|mkfifo|utime)|shutil\.|"
    r"subprocess|write_text|write_bytes|\.touch\(|\.mkdir\(|\.unlink\(|\.rmdir\(|"
    r"\.rename\(|symlink_to|hardlink_to|\.chmod\(|to_csv|to_json|to_parquet|to_excel|"
    r"savefig|np\.save|\.save\(|\.dump\(|sqlite3\.connect|tarfile|zipfile|tempfile|"
    r"__import__|importlib|getattr\(|exec\(|eval\(|compile\(|pty\.|ctypes)"
)
_JS_RISKY = re.compile(
    r"(writeFile|appendFile|createWriteStream|unlink|rmSync|\brm\(|rmdir|mkdir|rename|"
    r"copyFile|cpSync|\bcp\(|symlink|truncate|chmod|chown|child_process|execSync|spawn|"
    r"\bexec\(|Deno\.(write|remove|mkdir|rename|create|run|Command)|Bun\.(write|spawn)|"
    r"\beval\(|Function\(|require\(\s*[^'\"]|import\(\s*[^'\"])"
)
_OTHER_RISKY = re.compile(
    r"(open\s*\(?[^;]*['\"]?\s*[>+]|unlink|rename|mkdir|rmdir|system|`|qx|exec|File\.|"
    r"FileUtils|IO\.write|file_put_contents|fopen|fwrite|chmod|symlink|eval)"
)


def _code_writes(name: str, code: str) -> list[tuple[str, str | None]]:
    """(``"path"``, literal path) for resolvable writes, (reason, None) for the rest."""
    found: list[tuple[str, str | None]] = []
    if PYTHONS.match(name):
        spans: list[tuple[int, int]] = []
        for m in _PY_OPEN_LITERAL.finditer(code):
            spans.append(m.span())
            mode = m.group("mode") or "r"
            if set(mode) & set("wax+"):
                found.append(("path", m.group("path")))
        for m in _PY_PATH_WRITE.finditer(code):
            spans.append(m.span())
            found.append(("path", m.group("path")))
        for m in re.finditer(r"\bopen\(", code):
            if any(a <= m.start() < b for a, b in spans):
                continue
            call = code[m.end() : m.end() + 200].split(")", 1)[0]
            if re.search(r"""['"][rbt]*[wax+][rwxabt+]*['"]|mode\s*=\s*[^'"]""", call):
                found.append(("open() with a computed path", None))
        stripped = code
        for a, b in sorted(spans, reverse=True):
            stripped = stripped[:a] + stripped[b:]
        risky_py = _PY_RISKY.search(stripped)
        if risky_py:
            found.append((risky_py.group(0).rstrip("(."), None))
        return found
    risky = _JS_RISKY if name in ("node", "nodejs", "deno", "bun") else _OTHER_RISKY
    hit = risky.search(code)
    if hit:
        found.append((hit.group(0)[:40], None))
    return found


# -- entry point --------------------------------------------------------------------------


def _analyse_into(command: str, ctx: _Ctx, out: Analysis) -> None:
    if len(command) > MAX_COMMAND_CHARS:
        out.unresolved.append(f"command longer than {MAX_COMMAND_CHARS} characters")
        return
    tree = _parser().parse(command.encode("utf-8", "surrogatepass"))
    _Walker(out).visit(tree.root_node, ctx)


def analyse(command: str, cwd: str | None, home: str, *, check_dirs: bool = True) -> Analysis:
    """Every path ``command`` writes when run in ``cwd`` (None: unknown directory).

    ``check_dirs``: a ``cd`` to a directory that does not exist makes the directory
    unknown (the ``cd`` may fail and later commands run elsewhere); benchmarks replaying
    other machines' sessions turn it off.
    """
    out = Analysis()
    _analyse_into(command, _Ctx(cwd, home, 0, check_dirs), out)
    return out
