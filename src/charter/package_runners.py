"""What a JavaScript package manager runs when it is given a name that is none of its own
commands.

``pnpm prisma migrate reset``, ``yarn prisma migrate reset`` and ``bun prisma migrate
reset`` run the ``prisma`` binary of the project's dependencies (when no package script
has that name; a script named after a tool runs that tool), as ``npx prisma migrate
reset`` does: pnpm falls back to ``pnpm exec``, yarn and bun run a script or a binary
(``yarn run`` and ``bun run`` too). ``pnpm test`` and ``pnpm install`` are the package
manager's own commands, no tool named ``test`` or ``install``. Both the shell analysis
(:mod:`charter.session.shell`) and the rules' commands (:mod:`charter.rules.commands`)
read a call this way, so a rule against ``prisma migrate reset`` holds however it is
started. Generic: each package manager's own command names, from its documentation.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Each package manager's own commands and their aliases (pnpm also hands npm's registry
#: commands to npm; yarn lists classic's and berry's; bun's ``build`` is its bundler).
#: ``run``, ``test`` and ``start`` run a package script, never a binary of that name.
_PNPM = frozenset(
    {
        "add", "approve-builds", "audit", "bin", "c", "cat-file", "cat-index", "config",
        "create", "dedupe", "deploy", "dlx", "doctor", "env", "exec", "fetch",
        "find-hash", "help", "i", "ignored-builds", "import", "init", "install",
        "install-test", "it", "la", "licenses", "link", "list", "ll", "ln", "ls",
        "outdated", "pack", "patch", "patch-commit", "patch-remove", "prune", "publish",
        "rb", "rebuild", "recursive", "remove", "rm", "root", "run", "self-update",
        "server", "setup", "start", "store", "t", "test", "un", "uninstall", "unlink",
        "up", "update", "upgrade", "why", "catalog", "sbom", "login",
        "logout", "whoami", "version", "view", "info", "show", "search", "owner",
        "dist-tag", "deprecate", "unpublish", "access", "adduser", "bugs", "docs",
        "edit", "ping", "prefix", "profile", "pkg", "repo", "set-script", "star",
        "stars", "team", "token", "unstar", "restart", "stop",
    }
)  # fmt: skip
_YARN = frozenset(
    {
        "add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints",
        "create", "dedupe", "dlx", "exec", "explain", "generate-lock-entry", "global",
        "help", "import", "info", "init", "install", "licenses", "link", "list",
        "login", "logout", "node", "npm", "outdated", "owner", "pack", "patch",
        "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "run",
        "search", "set", "stage", "start", "tag", "team", "test", "unlink", "unplug",
        "up", "upgrade", "upgrade-interactive", "version", "versions", "why",
        "workspace", "workspaces",
    }
)  # fmt: skip
_BUN = frozenset(
    {
        "a", "add", "audit", "build", "c", "completions", "create", "discord", "exec",
        "feedback", "help", "i", "info", "init", "install", "link", "outdated",
        "patch", "patch-commit", "pm", "publish", "remove", "repl", "rm", "run",
        "test", "unlink", "update", "upgrade", "why", "x",
    }
)  # fmt: skip
OWN_COMMANDS: dict[str, frozenset[str]] = {"pnpm": _PNPM, "yarn": _YARN, "bun": _BUN}
#: The package managers' options before the name that take a value (``pnpm --filter api
#: prisma …``, ``yarn --cwd web …``, ``pnpm -C apps/api …``) and those that take none;
#: an option not listed here leaves the call unread (``bun -e CODE`` runs code).
VALUE_OPTIONS = frozenset({"--filter", "-F", "-C", "--dir", "--cwd"})
FLAG_OPTIONS = frozenset(
    {"-r", "--recursive", "-w", "--workspace-root", "-s", "--silent", "--bun", "--parallel",
     "--stream", "--if-present"}
)  # fmt: skip
#: The package managers that run a script or a binary whose name they are given
#: (``yarn run`` and ``bun run`` run a binary too; ``pnpm run`` only a script).
RUNS_BINARIES_ON_RUN = frozenset({"yarn", "bun"})


def binary_at(manager: str, args: Sequence[str | None]) -> int | None:
    """Where the binary a package manager is asked to run starts in ``args`` (the words
    after ``manager``), or None when it runs one of its own commands, a package script
    by a namespaced name (``db:reset``), a file (``bun index.ts``) or something unread.
    ``pnpm prisma migrate reset`` → 0 (``prisma migrate reset``); ``yarn run tsc`` → 1;
    ``yarn workspace web tsc`` → 2; ``pnpm test``, ``yarn workspace web add x`` → None."""
    own = OWN_COMMANDS.get(manager)
    if own is None:
        return None
    at = 0
    while at < len(args) and (args[at] or "").startswith("-"):
        option = args[at] or ""
        if option in VALUE_OPTIONS:
            at += 2
        elif option.split("=", 1)[0] in VALUE_OPTIONS or option in FLAG_OPTIONS:
            at += 1
        else:
            return None
    if manager == "yarn" and at + 1 < len(args) and args[at] == "workspace":
        at += 2  # ``yarn workspace web prisma migrate reset``: run as in that workspace
    if at < len(args) and args[at] == "run" and manager in RUNS_BINARIES_ON_RUN:
        at += 1
    elif at < len(args) and args[at] in own:
        return None
    if at >= len(args):
        return None
    name = args[at]
    if name is None or not name[:1].isalpha() or name in own:
        return None  # `yarn run test`: the package script, whatever else it may be
    if any(c in name for c in ":/\\.=$"):
        return None  # a namespaced script, a path or a file: not a binary's name
    return at


#: The folder options of each package manager: ``pnpm -C web``/``--dir web``/``--cwd web``,
#: ``yarn --cwd web``, ``bun --cwd web``, ``npm --prefix web`` (npm's ``-C`` too).
FOLDER_OPTIONS: dict[str, frozenset[str]] = {
    "pnpm": frozenset({"-C", "--dir", "--cwd"}),
    "yarn": frozenset({"--cwd"}),
    "bun": frozenset({"--cwd"}),
    "npm": frozenset({"--prefix", "-C"}),
}


def folder_option(manager: str, args: Sequence[str | None]) -> tuple[int, str | None] | None:
    """The folder a package manager's own call runs in, from its options before the
    command (``pnpm --dir web install``, ``pnpm --cwd=web build``, ``npm --prefix web run
    build``): (index in ``args`` of the word that holds it, the folder; None when not a
    constant), or None when no such option comes before the command's name. The last
    one given wins, as it does for the package manager."""
    options = FOLDER_OPTIONS.get(manager)
    if options is None:
        return None
    found: tuple[int, str | None] | None = None
    at = 0
    while at < len(args):
        option = args[at]
        if option is None or not option.startswith("-") or option == "--":
            break
        name, eq, value = option.partition("=")
        if option in options and at + 1 < len(args):
            found = (at + 1, args[at + 1])
            at += 2
            continue
        if eq and name in options:
            found = (at, value or None)
        elif option in VALUE_OPTIONS or (manager == "npm" and option in ("--workspace", "-w")):
            at += 1  # the option's value is no command
        at += 1
    if manager == "npm" and at + 1 < len(args) and args[at] in _NPM_SCRIPT_RUNS:
        # npm reads its own options after a script's name too (those for the script
        # follow ``--``): ``npm run test:e2e --prefix server`` runs in ``server``
        for after in range(at + 2, len(args)):
            option = args[after]
            if option is None or option == "--":
                break
            if option == "--prefix" and after + 1 < len(args):
                found = (after + 1, args[after + 1])
            elif option.startswith("--prefix="):
                found = (after, option.partition("=")[2] or None)
    return found


#: npm's commands that run a package script by name (its options may follow the name).
_NPM_SCRIPT_RUNS = frozenset({"run", "run-script", "rum", "urn"})


def without_folder(manager: str, args: Sequence[str | None]) -> list[str | None]:
    """``args`` without the folder option before the command and its value: ``npm
    --prefix web publish`` is ``npm publish`` run in ``web`` (see :func:`folder_option`)."""
    found = folder_option(manager, args)
    if found is None:
        return list(args)
    at = found[0]
    if at > 0 and args[at - 1] in FOLDER_OPTIONS[manager]:
        return [*args[: at - 1], *args[at + 1 :]]
    return [*args[:at], *args[at + 1 :]]
