"""Commands a rule forbids outright: read from the rule's words, matched against what a
Bash call would run, denied by the PreToolUse guardrails with the rule cited."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.rules.api import compile_project
from charter.rules.commands import (
    ANY_WORD,
    DESTRUCTIVE_GIT,
    GIT_WRITE_KIND,
    ForbiddenCommand,
    co_authored,
    commands_in,
    git_writes,
    parse_command,
    stages,
)
from charter.rules.model import Rule, Source
from charter.session.shell import analyse
from tests.conftest import (
    bash_decision,
    compiled_repo,
    expect_decisions,
    guard,
    guard_decision,
    guard_subprocess,
    write,
)


def _rule(text: str, scopes: list[str] | None = None, path: str = "AGENTS.md") -> Rule:
    return Rule(id="r-1", text=text, source=Source(path, 3, 3, ""), scopes=scopes or [])


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("Add packages with `uv add`, never with `pip install`.", ["pip install"]),
        ("NEVER run `make distclean`", ["make distclean"]),
        ("**FORBIDDEN**: `uv pip install`, `@latest` syntax", ["uv pip install"]),
        ("Use `pnpm add` instead of `npm install --save`.", ["npm install --save"]),
        ("Never run `knife cookbook upload` or `knife node` by hand.",
         ["knife cookbook upload", "knife node"]),
        ("`git push --force` is forbidden on this repository", []),  # "on": a condition
        ("`git push --force` is forbidden.", ["git push --force"]),
        ("`cargo publish` must never be run locally.", ["cargo publish"]),
        ("Do not run `bin/phpstan --no-progress`, run `composer analyse`.",
         ["bin/phpstan --no-progress"]),
        ("Do NOT run `pnpm test:e2e` directly. Use `mage e2e` (it builds first).",
         ["pnpm test:e2e"]),
        # conditions, scopes of the negation, and spans that are not commands
        ("Don't run destructive commands (`DROP`, `rm -rf`) against staging.", []),
        ("Never run `terraform apply` against production.", []),
        ("Never run `npm install` in the repo root; use the workspace.", []),
        ("`pnpm run lint` - checks style (don't cancel early)", []),
        ("Run `make test` before you push; never skip it.", []),
        ("Never use `eval`.", []),
        ("Don't forget to run `make fmt`.", []),
        ("You don't need to run `npm ci` here.", []),
        ("Never call `print(x)` in library code.", []),
        # an instruction to the agent, not a description of someone else
        ("You must never run `git push`.", ["git push"]),
        ("Agents must not run `npm publish`.", ["npm publish"]),
        ("The build never runs `make clean`.", []),
        ("CI must not run `npm publish`.", []),
        ("Never run `git branch -d` by hand instead of `tools/prune.sh --remove`.",
         ["git branch -d"]),  # after a negation, "instead of" names the command to use
        ("Never run `cargo build --workspace` from the repo root.", []),
        ("Don't run `pnpm build` yet; it fails until the schema lands.", []),
        ("Never run `git reset --hard` — always revert, for the audit trail.",
         ["git reset --hard"]),  # the reason after the dash sets no condition
        # a comma, then a clause with a subject of its own: the reason, not a condition
        ("Do not run `pnpm android`, there is no emulator on this machine.", ["pnpm android"]),
        ("Never run `expo prebuild --clean`, it wipes the native folders on every run.",
         ["expo prebuild --clean"]),
        ("Never run `git push --force` on main, it rewrites shared history.", []),
        ("Never run `npm publish`, in CI or elsewhere.", []),
        # what to do instead, after a dash, conditions nothing before it
        ("**Never use `pip install` or `uv pip`** — use `uv` for all dependency management",
         ["pip install", "uv pip"]),
        ("Never run `npm install` in the repo root — use the workspace.", []),
        ("Use `uv run` — never run `uv pip install` on the server.", []),
        ("Never run `git add -A` or `git add .` to stage a fix: it sweeps in every file.",
         ["git add -A", "git add ."]),
        ("Never run `npm install`, `next build`, or any heavy job locally.** All runs on CI.",
         ["npm install", "next build"]),
        ("Use `uv sync` instead of `pip install -r …`, and `uv add X` instead of `pip install X`.",
         ["pip install -r …", "pip install X"]),
        # an exception is a condition wherever it stands; "no exceptions" is not one
        ("In this folder do not use `zig build` (except to build the library as above).", []),
        ("Never run `make clean` unless the cache is corrupt.", []),
        ("Never run `make clean` other than in CI.", []),
        # a time in the work is a condition too: slow checks to leave for the gates
        ("Avoid `make typecheck` and `make test` between edits — both are slow.", []),
        ("Never run `make clean`: it deletes the cache, with no exceptions.", ["make clean"]),
        # an act forbidden in a sentence of its own, its command named in another
        ("**Agents never push.** This covers every path: `git push` and all its variants.",
         ["git push"]),
        ("Never commit. The user runs `git commit` after review.", ["git commit"]),
        # a bare act of git's is git's command, named or not
        ("Agents never push. Check with `git status` first.", ["git push"]),
        ("CI never pushes. Release tags come from `git push --tags` in CI.", []),
        ("Bots never push. The release job runs `git push`.", []),
        # code of the project's language, not a command a shell would run
        ("**Use positive boolean names** — `delivery_changed`, not `not delivery_unchanged`.",
         []),
        ("Never use `instance.count += 1; instance.save()` - this is NOT atomic.", []),
        ("Avoid `assert false` and other unreachable code", []),
        ("Type parameters with `ComponentProps<typeof C>` instead of `as const` workarounds",
         []),
        ("Prefer to prepend to lists `[new | list]` not `list ++ [new]`", []),
        ("Never write `socket |> assign(:x, 1) |> noreply`; use one `assign/3`.", []),
        ("Never run `git log main..` or `cd ..` here.", ["git log main..", "cd .."]),
    ],
)  # fmt: skip
def test_only_a_plain_prohibition_of_a_command_is_read(text: str, forbidden: list[str]) -> None:
    assert [c.command for c in commands_in(_rule(text))] == forbidden


def test_a_prohibition_of_destructive_git_commands_forbids_them() -> None:
    """ "Do not run destructive git commands." names no command, so it forbade none: a
    Symfony backend's agent rule let `git reset --hard` and `git push --force` run. The
    class is now the git commands that discard work or rewrite shared history; a
    condition ("unless asked") or someone else ("CI never …") forbids nothing."""
    rule = _rule("Do not run destructive git commands. Do not push unless explicitly requested.")
    everything = commands_in(rule)
    # the push waits for the user's consent: asked, not denied
    assert [(c.command, c.consent) for c in everything if c.consent] == [("git push", "user")]
    found = [c for c in everything if not c.consent]
    assert [c.command for c in found] == list(DESTRUCTIVE_GIT)

    def denied(argv: list[str]) -> bool:
        return any(c.matches(argv) for c in found)

    assert denied(["git", "reset", "--hard", "HEAD~1"])
    assert denied(["git", "push", "--force", "origin", "main"])
    assert denied(["git", "push", "-f"]) and denied(["git", "clean", "-fd"])
    assert denied(["git", "branch", "-D", "feature/x"])
    assert not denied(["git", "push", "origin", "main"])
    assert not denied(["git", "reset", "--soft", "HEAD~1"])
    assert not denied(["git", "status"]) and not denied(["git", "branch", "-d", "done"])
    assert [c.command for c in commands_in(_rule("Never use **destructive git operations**."))]
    for text in (
        "CI never runs destructive git commands.",
        "Destructive git commands lose work.",
    ):
        assert commands_in(_rule(text)) == [], text
    # the user's consent as the condition: put to the user, never denied outright
    asked = commands_in(_rule("Do not run destructive git commands unless the user asks."))
    assert [c.command for c in asked] == list(DESTRUCTIVE_GIT)
    assert {c.consent for c in asked} == {"user"}


def test_an_options_only_span_after_a_forbidden_command_is_forbidden_too() -> None:
    """ "Never use `git pull --rebase` / `-r` / `--rebase-merges`": the options-only spans
    after the command are the same act written another way, so `git pull -r` is denied
    too; a command without an option to replace names no alternative."""
    rule = _rule("Never use `git pull --rebase` / `-r` / `--rebase-merges`, or `git rebase`.")
    found = commands_in(rule)
    assert [c.command for c in found] == [
        "git pull --rebase",
        "git rebase",
        "git pull -r",
        "git pull --rebase-merges",
    ]

    def denied(argv: list[str]) -> bool:
        return any(c.matches(argv) for c in found)

    assert denied(["git", "pull", "-r", "upstream", "main"])
    assert not denied(["git", "pull"]) and not denied(["git", "push", "-r"])
    assert [c.command for c in commands_in(_rule("Never run `npm install` / `-g`."))] == [
        "npm install"
    ]


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # the agent the rule is written for is the one acting: no condition
        ("do not run `make phpunit-functional` automatically from agent actions.",
         ["make phpunit-functional"]),
        ("Do not run `npm run e2e` on your own.", ["npm run e2e"]),
        ("Never run `make seed` by the assistant.", ["make seed"]),
        # a place or a time the guardrail cannot see still is one
        ("Never run `make deploy` from production.", []),
        ("Do not run `make seed` in CI.", []),
        ("Never run `make reset` from the release branch.", []),
    ],
)  # fmt: skip
def test_the_agent_named_as_the_one_acting_sets_no_condition(
    text: str, forbidden: list[str]
) -> None:
    assert [c.command for c in commands_in(_rule(text))] == forbidden


def test_placeholders_end_the_command() -> None:
    assert parse_command("pip install PACKAGE") == ("pip", ("install", ANY_WORD), frozenset())
    assert parse_command("docker compose -p <project> up") == (
        "docker",
        ("compose", ANY_WORD),
        {"-p"},
    )
    assert parse_command("pip install -r ...") == ("pip", ("install", ANY_WORD), {"-r"})
    assert parse_command("npm test 2>&1") == ("npm", ("test",), frozenset())  # no slot
    assert parse_command("pip") is None
    assert parse_command("it's `odd") is None


def test_a_program_over_a_slot_for_its_arguments_is_the_program() -> None:
    """In "`pnpm dlx <tool>` (never `npx <tool>`)" the slot after the program stands for
    whatever it is given, so the rule forbids the program, not nothing (one word alone
    stays unread: it may be a keyword of the project's language)."""
    assert parse_command("npx <tool>") == ("npx", (ANY_WORD,), frozenset())
    assert parse_command("npx ...") == ("npx", (ANY_WORD,), frozenset())
    assert parse_command("npx FILE") is None
    rule = _rule("`pnpm dlx <tool>` (never `npx <tool>`)")
    assert [c.command for c in commands_in(rule)] == ["npx <tool>"]
    (npx,) = commands_in(rule)
    assert npx.matches(["npx", "tsc", "--noEmit"]) and npx.matches(["npx", None])
    assert not npx.matches(["npx"])  # the slot is a tool to run: none, nothing runs
    assert not npx.matches(["pnpm", "dlx", "tsc"])
    assert parse_command("return <value>") is None  # a keyword of the code


def test_a_slot_is_an_argument_the_command_must_be_given() -> None:
    """ "Do not run `npm install <package>`" forbids adding a package: the slot was where
    the command was cut, so the rule forbade `npm install` itself, which installs what
    the lock file holds (and what the project's build runs)."""
    rule = _rule("NEVER add dependencies. Do not run `npm install <package>` or `npm uninstall`.")
    # (its first sentence forbids every package manager's add: the next test but two)
    install, uninstall = [
        c
        for c in commands_in(rule)
        if c.command in ("npm install <package>", "npm uninstall") and "<package>" not in c.words
    ]
    assert install.matches(["npm", "install", "lodash"])
    assert install.matches(["npm", "install", "-D", "vitest"])
    assert not install.matches(["npm", "i", "x"])  # an alias no rule names
    assert not install.matches(["npm", "install"])
    assert not install.matches(["npm", "install", "--no-audit"])
    assert uninstall.matches(["npm", "uninstall", "lodash"])


def test_a_pipeline_is_no_command_of_its_first_stage() -> None:
    """ "(NOT `git show SHA | sed -n '80,200p'`)" beside "`git show SHA > .tmp/patch`,
    then `Read`" forbids piping into sed: read up to the placeholder, it forbade every
    `git show`, the very command the rule recommends; "`grep ... | head`" forbade any
    `grep`."""
    rule = _rule(
        "Reading a range of a git patch: `git show SHA > .tmp/patch`, then `Read` it "
        "(NOT `git show SHA | sed -n '80,200p'`); searching with a limit: `Grep` "
        "(NOT `grep ... | head`)"
    )
    assert commands_in(rule) == []
    assert parse_command("git show SHA | sed -n '80,200p'") is None
    assert parse_command("grep ... | head") is None


def _cmd(span: str, scopes: tuple[str, ...] = ()) -> ForbiddenCommand:
    parsed = parse_command(span)
    assert parsed is not None
    program, words, flags = parsed
    return ForbiddenCommand("r", "A.md:L1-L1", "rule", span, program, words, flags, scopes)


def test_a_command_matches_by_program_words_and_flags() -> None:
    rm = _cmd("rm -rf")
    assert rm.matches(["rm", "-rf", "build"])
    assert rm.matches(["rm", "-fr", "build"])
    assert rm.matches(["/bin/rm", "-r", "-f", "build"])
    assert not rm.matches(["rm", "-r", "build"])
    compile_ = _cmd("npm run compile")
    assert compile_.matches(["npm", "run", "compile", "--", "--watch"])
    assert not compile_.matches(["npm", "run", "compile-tests"])
    assert not compile_.matches(["npm", "run"])
    assert not compile_.matches(["echo", "npm", "run", "compile"])
    pip = _cmd("pip install")
    assert pip.matches(["pip3", "install", "x"]) and pip.matches(["pip3.12", "install", "x"])
    assert not pip.matches(["pipx", "install", "x"])
    assert _cmd("python3 -m venv").program == "python"
    pint = _cmd("vendor/bin/pint --test")
    assert pint.matches(["./vendor/bin/pint", "--test"])
    assert not pint.matches(["vendor/bin/pint"])
    discard = _cmd("git checkout --")
    assert discard.matches(["git", "checkout", "--", "app.py"])
    assert not discard.matches(["git", "checkout", "-b", "feature"])
    credentials = _cmd("rails credentials")
    assert credentials.matches(["bin/rails", "credentials:edit"])
    assert credentials.matches(["rails", "credentials"])
    assert not credentials.matches(["rails", "credentials_check"])
    assert not _cmd("pnpm test:e2e").matches(["pnpm", "test"])
    restart = _cmd("touch tmp/restart.txt")
    assert restart.matches(["touch", "../tmp/restart.txt"], "app")
    assert restart.matches(["touch", "./tmp/restart.txt"], "")
    assert not restart.matches(["touch", "../tmp/restart.txt"], None)
    push = _cmd("git push --force")
    assert push.matches(["git", "push", "origin", "main", "--force"])
    assert push.matches(["git", "push", "--force=true"])
    assert not push.matches([None, "push", "--force"])


def test_a_command_whose_word_ends_in_a_star_matches_what_the_star_stands_for() -> None:
    # "Call `task scaffold:*` (interactive mode)" under "DON'T" was listed as denied by
    # `compile` but matched only a literal `scaffold:*`: `task scaffold:adr` was allowed
    scaffold = _cmd("task scaffold:*")
    assert scaffold.matches(["task", "scaffold:adr"])
    assert scaffold.matches(["task", "scaffold:initiative", "--yes"])
    assert not scaffold.matches(["task", "scaffold"]) and not scaffold.matches(["task", "test"])
    assert _cmd("rm *").matches(["rm", "*"]) and not _cmd("rm *").matches(["rm", "build"])


def test_a_folder_scope_holds_only_where_the_command_runs() -> None:
    nested = _cmd("pip install", ("backend/**",))
    assert nested.matches(["pip", "install", "x"], "backend")
    assert nested.matches(["pip", "install", "x"], "backend/app")
    assert not nested.matches(["pip", "install", "x"], "")
    assert not nested.matches(["pip", "install", "x"], "backend-old")
    assert not nested.matches(["pip", "install", "x"], None)  # unknown directory
    kinds = _cmd("pip install", ("*.py", "src/**/*.py"))  # kinds of file, not a place
    assert kinds.matches(["pip", "install", "x"], None)


def test_a_dot_folder_scope_keeps_its_dot() -> None:
    """A rule scoped to dot folders (a Copilot file's ``applyTo: '.mise/**,
    .github/scripts/**'``) holds where the command runs in them: the dot is part of the
    folder's name, not a ``./`` to strip."""
    hidden = _cmd("type -p", (".mise/**", ".github/scripts/**", "./tools/**"))
    assert hidden.matches(["type", "-p", "cargo"], ".mise")
    assert hidden.matches(["type", "-p", "cargo"], ".mise/tasks")
    assert hidden.matches(["type", "-p", "cargo"], ".github/scripts")
    assert hidden.matches(["type", "-p", "cargo"], "tools")
    assert not hidden.matches(["type", "-p", "cargo"], "mise")
    assert not hidden.matches(["type", "-p", "cargo"], "")


def test_a_folder_glob_of_every_file_is_a_folder_scope() -> None:
    """`applyTo: "packages/kitten/**/*"` (Copilot's own example form) over "Avoid using
    `rspeedy dev` as the test server" denied `rspeedy dev` at the root and in every other
    package: `/**/*` read as a kind of file, which holds anywhere. It is every file of the
    folder, a place, as `packages/kitten/**` is."""
    kitten = _cmd("rspeedy dev", ("packages/kitten/**/*",))
    assert kitten.matches(["rspeedy", "dev"], "packages/kitten")
    assert kitten.matches(["rspeedy", "dev"], "packages/kitten/tests")
    assert not kitten.matches(["rspeedy", "dev"], "")
    assert not kitten.matches(["rspeedy", "dev"], "examples/react")
    assert _cmd("rspeedy dev", ("src/**/*.ts",)).matches(["rspeedy", "dev"], "")


def test_the_shell_reports_every_command_it_would_run(tmp_path: Path) -> None:
    (tmp_path / "backend").mkdir()
    cases = {
        "cd backend && pip install x": (("pip", "install", "x"), str(tmp_path / "backend")),
        "sudo env A=1 python3 -m pip install -U x": (("pip", "install", "-U", "x"), str(tmp_path)),
        "bash -c 'make distclean'": (("make", "distclean"), str(tmp_path)),
        "ls | xargs git rm": (("git", "rm"), str(tmp_path)),
        "(cd backend; npm run compile)": (("npm", "run", "compile"), str(tmp_path / "backend")),
        "echo $(make distclean)": (("make", "distclean"), str(tmp_path)),
        "timeout 60 npm publish": (("npm", "publish"), str(tmp_path)),
    }  # fmt: skip
    for command, want in cases.items():
        assert want in analyse(command, str(tmp_path), "/home/u").commands, command
    assert analyse("echo pip install", str(tmp_path), "/home/u").commands == [
        (("echo", "pip", "install"), str(tmp_path))
    ]


def test_a_command_run_through_a_project_runner_is_the_command(tmp_path: Path) -> None:
    # "Never: `python scripts/meta.py`" in a uv project: `uv run python scripts/meta.py`
    # runs it too, and was allowed; a runner's own command and options stay as they are
    cases = {
        "uv run python scripts/meta.py": ("python", "scripts/meta.py"),
        "poetry run -- pip install x": ("pip", "install", "x"),
        "cd backend && bundle exec rake db:drop": ("rake", "db:drop"),
        "pnpm exec vitest run": ("vitest", "run"),
        # a package's binary through its launcher
        "npx serverless deploy --stage dev": ("serverless", "deploy", "--stage", "dev"),
        "npx --yes -p serverless sls deploy": ("sls", "deploy"),
        "npm exec -- prisma migrate reset": ("prisma", "migrate", "reset"),
        "bunx wrangler deploy": ("wrangler", "deploy"),
        "yarn dlx serverless remove": ("serverless", "remove"),
    }
    (tmp_path / "backend").mkdir()
    for command, want in cases.items():
        assert want in [c for c, _ in analyse(command, str(tmp_path), "/home/u").commands], command
    assert [c for c, _ in analyse("uv run --with rich x.py", str(tmp_path), "/h").commands] == [
        ("uv", "run", "--with", "rich", "x.py")
    ]
    root = compiled_repo(
        tmp_path, {"AGENTS.md": "# Scripts\n\n- ❌ Never: `python scripts/meta.py`\n"}
    )
    assert _decision(_ask(root, "uv run python scripts/meta.py")) == "deny"
    assert _decision(_ask(root, "uv run python scripts/other.py")) == "allow"
    (tmp_path / "sls").mkdir()
    root = compiled_repo(tmp_path / "sls", {"AGENTS.md": "- Never run `serverless deploy`.\n"})
    assert _decision(_ask(root, "npx serverless deploy --stage dev")) == "deny"
    assert _decision(_ask(root, "npx serverless info")) == "allow"


def test_a_command_run_in_the_project_environment_is_the_command(tmp_path: Path) -> None:
    # a Haskell project whose rules say "Use `direnv exec . <command>` for builds and
    # tests": "Never run `cabal upload`" held for `cabal upload` and not for the form
    # the rules ask for; `opam exec --` and `nix develop -c` did the same
    (tmp_path / "pkg").mkdir()
    cases = {
        "direnv exec . cabal upload x.tar.gz": (("cabal", "upload", "x.tar.gz"), str(tmp_path)),
        "direnv exec pkg make distclean": (("make", "distclean"), str(tmp_path / "pkg")),
        "opam exec -- dune build": (("dune", "build"), str(tmp_path)),
        "nix develop .#ci --command git push --force": (
            ("git", "push", "--force"),
            str(tmp_path),
        ),
        "nix develop -c make distclean": (("make", "distclean"), str(tmp_path)),
    }
    for command, want in cases.items():
        assert want in analyse(command, str(tmp_path), "/home/u").commands, command
    assert [c for c, _ in analyse("direnv allow", str(tmp_path), "/h").commands] == [
        ("direnv", "allow")
    ]
    root = compiled_repo(tmp_path, {"AGENTS.md": "# Release\n\n- Never run `cabal upload`.\n"})
    assert _decision(_ask(root, "direnv exec . cabal upload dist/x.tar.gz")) == "deny"
    assert _decision(_ask(root, "direnv exec . cabal build")) == "allow"


RULES = """# Working here

## Dependencies
- Add packages with `uv add`, never with `pip install`.
- NEVER run `make distclean`: it deletes the downloaded fixtures.
- Never run `terraform destroy` against production.
"""


def _project(tmp_path: Path, config: str = "") -> Path:
    api_rules = "# API\n\n- Do not run `npm publish` yourself.\n"
    root = compiled_repo(
        tmp_path, {"CLAUDE.md": RULES, "services/api/AGENTS.md": api_rules}, config
    )
    (root / "services/api/src").mkdir(parents=True)
    return root


def _ask(root: Path, command: str, cwd: Path | None = None) -> dict[str, Any] | None:
    return guard(root, "Bash", {"command": command}, cwd)


_decision = guard_decision


def test_the_guardrail_denies_a_forbidden_command_citing_the_rule(tmp_path: Path) -> None:
    root = _project(tmp_path)
    out = _ask(root, "pip install requests")
    assert _decision(out) == "deny"
    assert out is not None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert "`pip install requests`" in reason
    assert "CLAUDE.md:L4-L4" in reason and "never with `pip install`" in reason
    assert "ask the user" in reason
    assert _decision(_ask(root, "make distclean")) == "deny"
    for allowed in ("uv add requests", "echo pip install", "make test", "terraform destroy"):
        assert _decision(_ask(root, allowed)) == "allow", allowed
    # a nested AGENTS.md's rule holds in its folder only
    assert _decision(_ask(root, "npm publish")) == "allow"
    assert _decision(_ask(root, "cd services/api && npm publish")) == "deny"
    assert _decision(_ask(root, "npm publish", cwd=root / "services/api/src")) == "deny"
    logged = (root / "artifacts/guardrails/audit.jsonl").read_text().splitlines()
    assert len(logged) == 4 and all(json.loads(x)["decision"] == "deny" for x in logged)


def test_ask_and_off_and_a_recompile_change_the_answer(tmp_path: Path) -> None:
    root = _project(tmp_path, "[session.guardrails]\nrule_commands = 'ask'\n")
    assert _decision(_ask(root, "pip install x")) == "ask"
    off = "[hooks]\nwarm_worker = false\n[session.guardrails]\nrule_commands = 'off'\n"
    write(root, "charter.toml", off)
    assert _decision(_ask(root, "pip install x")) == "allow"
    write(root, "charter.toml", "[hooks]\nwarm_worker = false\n")
    assert _decision(_ask(root, "pip install x")) == "deny"
    write(root, "CLAUDE.md", RULES.replace("never with `pip install`", "or `pip install`"))
    compile_project(Project.load(root))
    assert _decision(_ask(root, "pip install x")) == "allow"
    assert _decision(_ask(root, "make distclean")) == "deny"


def test_a_rule_file_edited_since_the_compile_holds_at_once(
    tmp_path: Path, run_charter: Any
) -> None:
    """A rule added (or dropped) mid-turn holds from the next tool call, in process and in
    a cold hook, not from the next prompt's recompile; the compiled state is not touched."""
    from charter.rules.stored import MANIFEST_FILE

    root = _project(tmp_path)
    manifest = Project.load(root).state_dir / MANIFEST_FILE
    before = manifest.read_bytes()
    assert _decision(_ask(root, "terraform destroy")) == "allow"
    write(root, "CLAUDE.md", RULES + "- Never run `terraform destroy`.\n")
    assert _decision(_ask(root, "terraform destroy")) == "deny"
    assert guard_subprocess(run_charter, root, "Bash", {"command": "terraform destroy"}) == "deny"
    assert _decision(_ask(root, "pip install x")) == "deny"
    write(root, "CLAUDE.md", RULES.replace("never with `pip install`", "or `pip install`"))
    assert _decision(_ask(root, "pip install x")) == "allow"
    assert _decision(_ask(root, "terraform destroy")) == "allow"
    # a nested file's rule still holds in its folder, and the compile was left as it was
    assert _decision(_ask(root, "cd services/api && npm publish")) == "deny"
    assert manifest.read_bytes() == before


def test_a_protected_write_outranks_a_rule(tmp_path: Path) -> None:
    root = _project(tmp_path)
    out = _ask(root, "pip install x > .git/config")
    assert out is not None
    assert ".git" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_hook_subprocess_and_compile_report(tmp_path: Path, run_charter: Any) -> None:
    root = _project(tmp_path)
    command = {"command": "sudo python3 -m pip install x"}
    assert guard_subprocess(run_charter, root, "Bash", command) == "deny"
    proc = run_charter("compile", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    listed = {(c["command"], c["rule"]) for c in json.loads(proc.stdout)["forbidden_commands"]}
    assert listed == {
        ("pip install", "CLAUDE.md:L4-L4"),
        ("make distclean", "CLAUDE.md:L5-L5"),
        ("npm publish", "services/api/AGENTS.md:L3-L3"),
    }


def test_a_state_compiled_before_the_prohibitions_file_is_read_from_the_rules(
    tmp_path: Path,
) -> None:
    """Compiled state written by an older Charter names no prohibitions file: the guardrail
    finds the commands in the rules themselves rather than enforcing none."""
    from charter.fileio import commit_files, read_committed
    from charter.rules.stored import MANIFEST_FILE, PROHIBITED_FILE, load_prohibitions
    from charter.session.guardrails import rule_prohibitions

    root = _project(tmp_path)
    project = Project.load(root)
    manifest = project.state_dir / MANIFEST_FILE
    listed = load_prohibitions(project)
    assert listed is not None
    want = ["pip install", "make distclean", "npm publish"]
    assert [c.command for c in listed.commands] == want
    committed = read_committed(manifest)
    assert committed is not None
    meta, files = committed
    del files[PROHIBITED_FILE]
    commit_files(manifest, files, {k: v for k, v in meta.items() if k != "files"})
    (project.state_dir / PROHIBITED_FILE).unlink()
    assert load_prohibitions(project) is None
    assert [c.command for c in rule_prohibitions(project).commands] == want
    assert _decision(_ask(root, "make distclean")) == "deny"


def test_a_rule_about_files_is_not_a_place() -> None:
    """Globs that name files (with one folder among them) say what the rule is about,
    not where a command runs; a location word in the sentence is a condition."""
    mixed = _cmd("kubectl apply", ("config/**", "src/**/*.java", "build.gradle.kts"))
    assert mixed.matches(["kubectl", "apply", "-f", "x.yaml"], "")
    assert not commands_in(_rule("Never `git add` anything under `data/`."))


def test_a_huge_rule_costs_bounded_work() -> None:
    """A rule that is a table of hundreds of spans, or one span of code pages long, is not
    a prohibition to enforce; the reader stays bounded on it."""
    listed = commands_in(_rule("Never run " + "`make a` or " * 5000 + "`make z`."))
    assert len(listed) == 32
    assert commands_in(_rule("Never run `" + "x " * 5000 + "`.")) == []


def test_doctor_names_what_the_rules_forbid(tmp_path: Path, run_charter: Any) -> None:
    root = _project(tmp_path)
    proc = run_charter("doctor", "--json", "--check", "rule prohibitions", cwd=root)
    assert proc.returncode == 0, proc.stderr
    (found,) = json.loads(proc.stdout)["checks"]
    assert found["status"] == "info"
    assert found["detail"]["commands"] == ["pip install", "make distclean", "npm publish"]
    assert "rule_commands" in found["fix"]
    write(root, "charter.toml", "[session.guardrails]\nrule_commands = 'off'\n")
    proc = run_charter("doctor", "--json", "--check", "rule prohibitions", cwd=root)
    (found,) = json.loads(proc.stdout)["checks"]
    assert found["status"] == "ok" and found["detail"] == {}


def test_an_option_an_act_must_not_take_is_read() -> None:
    """ "Never commit with `--no-verify`": the act is the word, any program's."""
    (found,) = commands_in(_rule("Never commit with `--no-verify`; fix the hook instead."))
    assert found.command == "commit --no-verify" and found.program == ""
    assert found.matches(["git", "commit", "--no-verify", "-m", "wip"])
    assert found.matches(["git", "commit", "-m", "wip", "--no-verify"])
    assert not found.matches(["git", "commit", "-m", "wip"])
    assert not found.matches(["git", "push", "--no-verify"])
    asked = commands_in(_rule("Never commit with `--no-verify` unless the user asks."))
    assert [(c.command, c.consent) for c in asked] == [("commit --no-verify", "user")]
    assert commands_in(_rule("Release builds never ship with `--debug`.")) == []


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (
            "**Never skip pre-commit hooks** (`--no-verify`) — fix the issue instead",
            ["--no-verify"],
        ),
        (
            "Do not skip, disable, or bypass these checks (e.g. `--no-verify`, commenting out "
            "linters) to make CI pass.",
            ["--no-verify"],
        ),
        # an act aimed at a target, a condition, a span before, or no prohibition: advice
        # (a force push to a branch is read as such: the test of pushes to a branch)
        ("Never force push to production (`--force`)", []),
        ("Never run tests in parallel (`-n auto`)", []),
        ("Never use `npm` directly (`--global` installs break CI)", []),
        ("Use `pytest` (`-x` stops at the first failure)", []),
    ],
)
def test_an_option_in_brackets_after_a_forbidden_act_is_forbidden(
    text: str, options: list[str]
) -> None:
    found = commands_in(_rule(text))
    assert [f.command for f in found] == options
    for f in found:  # any git command that carries the option: git's way to skip hooks
        assert f.program == "git" and f.words == ()
        assert f.matches(["git", "commit", *options, "-m", "wip"])
        assert not f.matches(["cargo", "publish", *options])
        assert not f.matches(["git", "commit", "-m", "wip"])


@pytest.mark.parametrize(
    ("text", "held"),
    [
        (
            "2. **NEVER** force-push (`--force`, `--force-with-lease`).",
            [("git", ("push",), ["--force"]), ("git", ("push",), ["--force-with-lease"])],
        ),
        (
            "- NEVER force-push (`--force`/`-f`). NEVER use `--no-verify` to skip hooks.",
            [
                ("git", ("push",), ["--force"]),
                ("git", ("push",), ["-f"]),
                ("git", (), ["--no-verify"]),  # git's option, held whatever else is named
            ],
        ),
        ("**Never amend commits** (`--amend`)", [("git", ("commit",), ["--amend"])]),
    ],
)
def test_an_option_in_brackets_is_the_option_of_the_command_its_act_names(
    text: str, held: list[tuple[str, tuple[str, ...], list[str]]]
) -> None:
    """ "NEVER force-push (`--force`/`-f`)" forbade `--force` and `-f` on any command, so
    `rm -rf build`, `cp -f` and `npm install --force` were denied: the option in brackets
    is the option of the command the act names (a force push is `git push`, amending is
    `git commit --amend`); an act that names none ("skip hooks") leaves a long option
    any program's and a one-letter one unread. On 8 public lines, 24 calls labelled
    before: 13 → 19 as labelled."""
    found = commands_in(_rule(text))
    assert [(f.program, f.words, sorted(f.flags)) for f in found] == held
    assert found[0].matches(["git", *found[0].words, *sorted(found[0].flags), "x"])
    for other in (["rm", "-rf", "build"], ["cp", "-f", "a", "b"], ["npm", "install", "--force"]):
        assert not any(f.matches(other) for f in found), other
    assert commands_in(_rule("Never skip hooks (`-n`).")) == []  # one letter: no command


def test_the_guardrail_denies_a_forbidden_option(tmp_path: Path) -> None:
    root = compiled_repo(tmp_path, {"AGENTS.md": "# Git\n\n- Never commit with `--no-verify`.\n"})
    out = _ask(root, "git add -A && git commit --no-verify -m wip")
    assert _decision(out) == "deny"
    assert _decision(_ask(root, "git commit -m wip")) == "allow"


def test_a_command_two_rules_forbid_is_listed_once_with_both(
    tmp_path: Path, run_charter: Any
) -> None:
    root = _project(tmp_path)
    write(root, "AGENTS.md", "# Agents\n\n- Do not run `make distclean` yourself.\n")
    proc = run_charter("compile", cwd=root, env={"COLUMNS": "400"})
    assert proc.returncode == 0, proc.stderr
    assert "`make distclean` (AGENTS.md:L3-L3, CLAUDE.md:L5-L5)" in proc.stdout
    proc = run_charter("doctor", "--json", "--check", "rule prohibitions", cwd=root)
    (found,) = json.loads(proc.stdout)["checks"]
    assert found["detail"]["commands"].count("make distclean") == 1


def test_a_one_word_program_the_rule_names_as_one_is_forbidden(tmp_path: Path) -> None:
    """ "**Never use `npx`.**" under a heading about running binaries was no command
    (one word is as often a keyword: `any`, `eval`), so the agent could run `npx`: a
    one-word span counts when the words after it or its section say it is a program."""

    def read(text: str, section: str) -> list[tuple[str, tuple[str, ...]]]:
        rule = Rule(id="r-1", text=text, source=Source("CLAUDE.md", 3, 3, section))
        return [(c.program, c.words) for c in commands_in(rule)]

    binaries = "Guide > Running node_modules binaries"
    assert read("**Never use `npx`.** It can fetch and run any package.", binaries) == [("npx", ())]
    assert read("Never use the `npx` command.", "Guide > Style") == [("npx", ())]
    assert read("Never use `npx`.", "Guide > Style") == []  # nothing says what it is
    assert read("Never use `any` types.", "Guide > Commands") == []  # a noun follows
    assert read("Never use `eval`.", "Guide > Code style") == []
    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Guide\n\n## Running node_modules binaries\n\n"
            "**Never use `npx`.** It can silently fetch and run arbitrary packages.\n\n"
            "## TypeScript\n\nNever use `any`.\n"
        },
    )
    assert guard_decision(guard(root, "Bash", {"command": "npx oxlint lib"})) == "deny"
    assert guard_decision(guard(root, "Bash", {"command": "node_modules/.bin/oxlint lib"})) == (
        "allow"
    )
    assert guard_decision(guard(root, "Bash", {"command": "yarn oxlint lib"})) == "allow"


def test_an_option_a_commands_comment_forbids_is_that_commands(tmp_path: Path) -> None:
    """A Rust workspace's quick reference: "cargo build  # build. never build with
    --release". The comment is plain text inside a code block, so its option had no code
    span and nothing was read; `cargo build --release` ran."""
    rules = (
        "# Guidelines\n\n## Quick Reference\n\n```bash\n"
        "cargo build                    # build. never build with --release\n"
        "cargo run -q --bin tursodb -- -q # run the interactive cli. never run with --release\n"
        "cargo test                     # rust unit/integration tests\n```\n"
    )
    root = compiled_repo(tmp_path, {"AGENTS.md": rules})
    from charter.rules.commands import forbidden_commands

    found = [c.command for c in forbidden_commands(compile_project(Project.load(root)).rules)]
    assert found == ["cargo build --release", "cargo run --release"], found

    assert bash_decision(root, "cargo build --release") == "deny"
    assert bash_decision(root, "cargo run --release --bin tursodb") == "deny"
    for allowed in ("cargo build", "cargo build -p core", "cargo test --release", "npm run x"):
        assert bash_decision(root, allowed) == "allow", allowed


def test_commands_written_without_code_marks_under_a_prohibition(tmp_path: Path) -> None:
    """A Terraform module's rules: "Agents must never run:" over "terraform apply" and
    "terraform destroy" as plain text. Only a code span was read as a command, so both
    ran. Items of a list under a prohibition that are commands of one program, written
    plainly, are shown as code and denied; a phrase ("the state subcommands by hand")
    and a command the rules allow are not."""
    rules = (
        "# Terraform\n\n## Commands\n\nAgents must never run:\n\n"
        "- terraform apply\n- terraform destroy -auto-approve\n"
        "- the state subcommands by hand\n\nDo not use:\n\n- global state\n- magic numbers\n"
    )
    root = compiled_repo(tmp_path, {"AGENTS.md": rules})
    from charter.rules.commands import forbidden_commands

    compiled = compile_project(Project.load(root)).rules
    assert [c.command for c in forbidden_commands(compiled)] == [
        "terraform apply",
        "terraform destroy -auto-approve",
    ]
    texts = {r.text for r in compiled}
    assert "Agents must never run: `terraform apply`" in texts, texts
    assert "Do not use: global state" in texts, texts

    assert bash_decision(root, "terraform apply") == "deny"
    assert bash_decision(root, "terraform destroy -auto-approve") == "deny"
    for allowed in ("terraform plan", "terraform destroy", "terraform fmt -check"):
        assert bash_decision(root, allowed) == "allow", allowed


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # German: the negation before the span, the verb first or last, "ist verboten"
        ("Niemals `git push --force` verwenden.", ["git push --force"]),
        ("Führe niemals `npm publish` aus.", ["npm publish"]),
        ("Verwende nicht `pip install`, sondern `uv add`.", ["pip install"]),
        ("`docker compose down -v` niemals ausführen.", ["docker compose down -v"]),
        ("`git push --force` ist verboten.", ["git push --force"]),
        ("Niemals `terraform apply` in Produktion ausführen.", []),  # "in": a condition
        ("Wenn Tests fehlschlagen, niemals `git commit --no-verify` verwenden.", []),
        ("Das Skript führt niemals `make clean` aus.", []),  # a description
        # Spanish: "no" only with the verb after it
        ("Nunca ejecutes `git push --force`.", ["git push --force"]),
        ("No uses `npm install`; usa `pnpm install`.", ["npm install"]),
        ("Usa `pnpm add` en lugar de `npm install`.", ["npm install"]),
        ("`rm -rf build` está prohibido.", ["rm -rf build"]),
        ("No `npm install` needed here.", []),
        ("Nunca ejecutes `terraform apply` en producción.", []),
        # Portuguese
        ("Não use `pip install`; use `poetry add`.", ["pip install"]),
        ("`npm publish` é proibido.", ["npm publish"]),
        ("Nunca rode `make deploy` sem aprovação.", []),
        # French: "ne … pas / jamais" around the verb
        ("N'utilisez jamais `git push --force`.", ["git push --force"]),
        ("Ne lancez pas `npm publish`.", ["npm publish"]),
        ("`rm -rf dist` est interdit.", ["rm -rf dist"]),
        ("Ne lancez jamais `make deploy` sans validation.", []),
        ("Le CI ne lance jamais `make clean`.", []),
        # Chinese: the verb written into the negation, no spaces
        ("不要运行 `git push --force`。", ["git push --force"]),
        ("禁止使用 `npm install`，请使用 `pnpm install`。", ["npm install"]),
        ("`git push --force` 是禁止的。", ["git push --force"]),
        ("在生产环境中不要运行 `terraform apply`。", []),
        ("不要运行 `make deploy`，除非得到批准。", []),
    ],
)  # fmt: skip
def test_a_prohibition_in_another_language_is_read_as_in_english(
    text: str, forbidden: list[str]
) -> None:
    assert [c.command for c in commands_in(_rule(text))] == forbidden


def test_the_guardrail_denies_what_a_german_rule_forbids(tmp_path: Path) -> None:
    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Regeln\n\n## Git\n\n- Führe niemals `git push --force` aus.\n"
            "- Abhängigkeiten mit `uv add` hinzufügen, niemals mit `pip install`.\n"
        },
    )
    out = _ask(root, "git push --force origin main")
    assert _decision(out) == "deny"
    assert out is not None
    assert "CLAUDE.md:L5-L5" in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert _decision(_ask(root, "pip install requests")) == "deny"
    assert _decision(_ask(root, "git push origin main")) == "allow"


def test_a_sentence_opening_with_a_capital_conjunction_still_forbids() -> None:
    # "And"/"But" opening the sentence stood before the negation as a word of its own
    # (the conjunctions were only read in lower case), so nothing was forbidden
    assert [
        c.command for c in commands_in(_rule("Build locally. And never run `npm publish`."))
    ] == ["npm publish"]
    assert [c.command for c in commands_in(_rule("But do not run `make distclean`."))] == [
        "make distclean"
    ]


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("嚴禁執行 `git push --force`", ["git push --force"]),
        ("不要執行 `npm install`，統一使用 pnpm", ["npm install"]),
        ("部署時不要執行 `pnpm build`", []),
    ],
)
def test_traditional_chinese_forbids_commands(text: str, forbidden: list[str]) -> None:
    assert [c.command for c in commands_in(_rule(text))] == forbidden


def test_a_list_joined_by_a_capitalised_or_forbids_every_entry() -> None:
    # "OR"/"AND" between two spans joined them only in lower case: the second was lost
    rule = _rule("NEVER run `git clean -fdx` OR `git reset --hard`")
    assert [c.command for c in commands_in(rule)] == ["git clean -fdx", "git reset --hard"]
    from charter.rules.edits import edits_in

    assert [e.path for e in edits_in(_rule("Do NOT edit `dist/` OR `build/`"))] == [
        "dist/",
        "build/",
    ]


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("Never run these: `git push --force`", ["git push --force"]),
        ("Do not use the following commands: `npm publish`", ["npm publish"]),
        ("Agents must not run any of these: `make distclean`", ["make distclean"]),
        # words before the colon that name a kind or set a condition still do
        ("Never run destructive commands: `rm -rf build`", []),
        ("Never run these in CI: `make release`", []),
        ("Never run these: `make clean` is the only way to reset.", []),
    ],
)  # fmt: skip
def test_a_prohibition_pointing_at_the_commands_after_its_colon(
    text: str, forbidden: list[str]
) -> None:
    # a release guide's "Never run these:" over a shell block, its commands shown each
    # after the lead-in: "these" stood between the negation and the span, so the
    # guardrail let `git push --force` run
    assert [c.command for c in commands_in(_rule(text))] == forbidden


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        (
            "Do NOT execute these unless explicitly requested: `git commit`, `npm publish`.",
            ["git commit", "npm publish"],
        ),
        (
            "Do not run `pipenv run pytest` unless the user explicitly asks you to.",
            ["pipenv run pytest"],
        ),
        ("Don't run `terraform apply` without the user's approval.", ["terraform apply"]),
        ("Never run `git push` without asking the user first.", ["git push"]),
        ("Never run `npm publish` without an explicit request from the user.", ["npm publish"]),
        ("Always ask the user before running `git reset --hard`.", ["git reset --hard"]),
        ("Only run `make deploy` when the user asks for it.", ["make deploy"]),
        ("Only run `make deploy` on request.", ["make deploy"]),
        # another condition stays one: the guardrail cannot see production or the cache
        ("Never run `terraform destroy` against production unless asked.", []),
        ("Never run `make clean` unless the cache is corrupt.", []),
        ("Never run `curl -k` without the request timeout.", []),
        ("Only use `make` in the root.", []),
        ("Ask the user which branch to use before you start.", []),
    ],
)
def test_a_prohibition_that_waits_for_the_user_is_put_to_the_user(
    text: str, asked: list[str]
) -> None:
    """The user's consent is the one condition the guardrail can meet: Claude Code asks
    before the call runs. What the sentence forbids without that condition is marked
    ``consent="user"`` (asked, not denied), and only that."""
    found = commands_in(_rule(text))
    assert [c.command for c in found] == asked, text
    assert all(c.consent == "user" and c.rule_text == text for c in found)


def test_the_guardrail_asks_for_what_waits_for_consent_and_denies_what_is_forbidden(
    tmp_path: Path, run_charter: Any
) -> None:
    """In the hook as Claude Code runs it: a command the rules hold until the user asks
    gets ``ask`` with the rule cited; one also forbidden outright is denied; one the user
    turned off is not held at all."""
    rules = (
        "# Rules\n\n"
        "- Do not run `git push` or `npm publish` unless the user explicitly asks.\n"
        "- Never run `npm publish`.\n"
    )
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})
    assert guard_subprocess(run_charter, root, "Bash", {"command": "git push origin x"}) == "ask"
    assert guard_subprocess(run_charter, root, "Bash", {"command": "npm publish"}) == "deny"
    assert guard_subprocess(run_charter, root, "Bash", {"command": "git status"}) == "allow"
    out = guard(root, "Bash", {"command": "cd sub && git push"})
    assert guard_decision(out) == "ask"
    assert out is not None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert "only when the user asks" in reason and "CLAUDE.md:L3-L3" in reason
    # rule_commands = "off" holds neither
    off = '[hooks]\nwarm_worker = false\n[session.guardrails]\nrule_commands = "off"\n'
    write(root, "charter.toml", off)
    assert guard_decision(guard(root, "Bash", {"command": "git push"})) == "allow"


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Never force push.", ""),
        ("Do not force-push commits.", ""),
        ("No force pushes.", ""),
        ("Force-pushing is forbidden.", ""),
        ("**Never** force-push.", ""),
        ("Never force-push without asking the user first.", "user"),
        ("IMPORTANT: NEVER force push, NEVER commit secrets.", ""),
        ("DO NOT force-push (git push --force)", ""),
        # a target the guardrail does not resolve, someone else, a hedge: advice (a
        # branch it does resolve: the test of pushes to a branch)
        ("Never force push to shared branches.", None),
        ("CI never force pushes.", None),
        ("Avoid force pushes where possible.", None),
        ("Don't force push or rebase public branches", None),
        ("Don't force push during review", None),
    ],
)
def test_a_force_push_forbidden_in_words_is_git_push_with_force(
    text: str, held: str | None
) -> None:
    """ "Never force push" names no command, but git's force push is three spellings of
    one: each is held (denied, or asked when the rule waits for the user)."""
    found = commands_in(_rule(text))
    if held is None:
        assert found == [], text
        return
    assert [c.command for c in found] == [
        "git push --force",
        "git push -f",
        "git push --force-with-lease",
    ]
    assert {c.consent for c in found} == {held}

    def stopped(argv: list[str]) -> bool:
        return any(c.matches(argv) for c in found)

    assert stopped(["git", "push", "--force", "origin", "main"])
    assert stopped(["git", "push", "-uf", "origin", "feature"])
    assert stopped(["git", "push", "--force-with-lease=main"])
    assert not stopped(["git", "push", "origin", "main"])
    assert not stopped(["git", "push", "--follow-tags"])


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Never push directly to `main`; every change goes through a reviewed PR.",
         [("main", "")]),
        ("Never push to main.", [("main", "")]),
        ("Do not commit or push to master.", [("master", "")]),
        ("Never push to main or master, it is protected.", [("main", ""), ("master", "")]),
        ("Never push to `main` without asking.", [("main", "user")]),
        ("Never: Force-push to `main` or any shared branch.", [("main", "force")]),
        ("Never force push to main (`--force`)", [("main", "force")]),
        # every reading opens alike: a modal before the negation, a label before all
        ("You must never push to `main`.", [("main", "")]),
        ("Git: agents should never force push to master.", [("master", "force")]),
        # a time, a condition, someone else, or no branch the hook can see: advice
        ("Never push to `main` after 5pm.", []),
        ("CI never pushes to `main`.", []),
        ("Don't force push to shared branches", []),
    ],
)  # fmt: skip
def test_a_push_to_a_branch_forbidden_in_words_is_read(
    text: str, held: list[tuple[str, str]]
) -> None:
    found = commands_in(_rule(text))
    got = [(c.branch, c.consent or ("force" if c.flags else "")) for c in found]
    assert list(dict.fromkeys(got)) == held, text


def _on_main(tmp_path: Path, rules: str) -> tuple[Path, list[str], Any]:
    """A compiled repository with ``rules`` and one commit on ``main``: its root, the git
    command to run in it, and the guardrail's decision on a Bash command there."""
    import subprocess

    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})
    git = ["git", "-C", str(root), "-c", "user.email=a@b.c", "-c", "user.name=n"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "branch", "-M", "main"], check=True)

    def decided(command: str) -> str:
        return guard_decision(guard(root, "Bash", {"command": command}))

    return root, git, decided


def test_a_push_is_held_where_it_goes(tmp_path: Path, run_charter: Any) -> None:
    """A push goes to the branch its refspec names (``main``, ``+main``, ``HEAD:main``,
    ``x:refs/heads/main``), or, when it names none, to the branch checked out, which
    the hook reads from the work tree's ``HEAD`` (a linked worktree's too). A push of
    another branch, or from another branch, passes."""
    import subprocess

    rules = "# Rules\n\n- Never push directly to `main`; open a pull request.\n"
    root, git, decided = _on_main(tmp_path, rules)

    for command in (
        "git push",
        "git push -u origin HEAD",
        "git push origin main",
        "git push origin +main",
        "git push origin feat:refs/heads/main",
    ):
        assert decided(command) == "deny", command
    assert decided("git push origin feature") == "allow"
    subprocess.run([*git, "switch", "-q", "-c", "feature"], check=True)
    assert decided("git push") == "allow"
    assert decided("git push origin HEAD:main") == "deny"
    out = guard(root, "Bash", {"command": "git push origin main"})
    assert out is not None
    assert "(a push to `main`)" in out["hookSpecificOutput"]["permissionDecisionReason"]
    # a linked worktree names its own HEAD through a `.git` file
    tree = tmp_path / "wt"
    subprocess.run([*git, "worktree", "add", "-q", "-b", "main-2", str(tree)], check=True)
    from charter.rules.commands import current_branch

    assert current_branch(tree) == "main-2"
    assert current_branch(root / "sub" / "dir") == "feature"
    # as Claude Code runs the hook
    assert (
        guard_subprocess(run_charter, root, "Bash", {"command": "git push origin main"}) == "deny"
    )


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("Never use `--no-verify`.", ["--no-verify"]),
        ("Never use `--no-verify` to bypass hooks", ["--no-verify"]),
        ("NEVER use `--no-verify` or `--no-gpg-sign`; hooks exist for a reason",
         ["--no-verify", "--no-gpg-sign"]),
        ("**Don't use `--add`** — it never deletes anything.", ["--add"]),
        ("Don't use `--home`: that's for testing only.", ["--home"]),
        # a qualifier, a condition, a target, one-letter options, a value, a command
        # named with it: not any program's option
        ("Do not use `--allow-no-checks` broadly.", []),
        ("Do not use `--update-goldens` by default.", []),
        ("Don't use `--statistics` unless you have a paid plan", []),
        ("Do not use `--ink-faint` for essential 10–12px text.", []),
        ("Don't use `-i`.", []),
        ("Do not use `--deployment-target agent_engine`.", []),
        ("Never use `git pull --rebase` / `--rebase-merges`.",
         ["git pull --rebase", "git pull --rebase-merges"]),
    ],
)  # fmt: skip
def test_long_options_forbidden_alone_are_any_programs(text: str, forbidden: list[str]) -> None:
    """ "Never use `--no-verify`" names no program: any command that carries the option
    does what the rule forbids (``git commit --no-verify``, ``git push --no-verify``)."""
    found = commands_in(_rule(text))
    assert [c.command for c in found] == forbidden, text
    alone = [c for c in found if c.command.startswith("--")]
    for c in alone:  # `--no-verify` is git's (its hooks): held on git only
        assert c.program == ("git" if c.command == "--no-verify" else "") and c.words == ()
    if text == "Never use `--no-verify`.":
        assert not alone[0].matches(["cargo", "publish", "--no-verify"])
        assert alone[0].matches(["git", "commit", "-m", "x", "--no-verify"])
        assert alone[0].matches(["git", "push", "--no-verify"])
        assert not alone[0].matches(["git", "commit", "-m", "x"])


@pytest.mark.parametrize(
    ("text", "consent", "scopes"),
    [
        ("Never add new dependencies.", "", ()),
        ("Do not install third-party packages without approval.", "user", ()),
        ("Ask before adding a new third-party dependency to `backend/` or `web/`.", "user",
         ("backend/**", "web/**")),
        ("Never add dependencies to `package.json`.", "", ()),
        ("You must never add new npm packages.", "", ()),
        # a condition, a hedge, someone else, a manner: advice
        ("Do not add dependencies unless necessary.", None, ()),
        ("Avoid adding new dependencies.", None, ()),
        ("CI never installs packages.", None, ()),
        ("Never add dependencies to `package.json` by hand.", None, ()),
    ],
)  # fmt: skip
def test_adding_a_dependency_forbidden_in_words_is_each_package_managers_add(
    text: str, consent: str | None, scopes: tuple[str, ...]
) -> None:
    """ "Ask before adding a dependency" names no command; each package manager's add
    command is what it means (``uv add``, ``npm install <package>``, ``cargo add`` …),
    held in the folders the rule names. Installing what the project already lists
    (``npm install``, ``pip install -r requirements.txt``, ``pip install -e .``) adds
    nothing."""
    found = commands_in(_rule(text))
    if consent is None:
        assert found == [], text
        return
    assert {c.consent for c in found} == {consent} and {c.scopes for c in found} == {scopes}

    def held(argv: list[str], cwd: str = "backend") -> bool:
        return any(c.matches(argv, cwd) for c in found)

    for argv in (
        ["uv", "add", "httpx"],
        ["npm", "install", "lodash"],
        ["npm", "i", "-D", "x"],
        ["pnpm", "add", "zod"],
        ["cargo", "add", "serde"],
        ["go", "get", "x.io/y"],
        ["pip", "install", "requests==2.32"],
        ["poetry", "add", "rich"],
    ):
        assert held(argv), argv
    for argv in (
        ["npm", "install"],
        ["npm", "ci"],
        ["pip", "install", "-r", "requirements.txt"],
        ["pip", "install", "-e", "."],
        ["npm", "install", "./local-pkg"],
        ["uv", "sync"],
        ["cargo", "build"],
    ):
        assert not held(argv), argv
    if scopes:
        assert not held(["uv", "add", "httpx"], "") and held(["uv", "add", "httpx"], "web/src")


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Do not commit.", [("git commit", "")]),
        ("- [ ] Do not commit or push", [("git commit", ""), ("git push", "")]),
        ("Never commit or push unless the user asks.",
         [("git commit", "user"), ("git push", "user")]),
        ("Do not commit, push, deploy, or change production state unless explicitly requested.",
         [("git commit", "user"), ("git push", "user")]),
        ("**NEVER COMMIT AND NEVER PUSH.**", [("git commit", ""), ("git push", "")]),
        ("Do not commit or push (the main loop does that).",
         [("git commit", ""), ("git push", "")]),
        ("You must never amend commits.", [("git commit --amend", "")]),
        ("Exact titles may change with the implementation. Do not push.", [("git push", "")]),
        # a contraction inside the list ("don't commit, I'll review") read as "do not" is
        ("**Don't commit and don't push.** The lead makes one commit after the reports.",
         [("git commit", ""), ("git push", "")]),
        ("Don't commit, I'll review and commit myself.", [("git commit", "")]),
        # an object, a time, a condition, someone else: not the bare act
        ("Never commit secrets.", []),
        ("Don't push until tests pass.", []),
        ("Otherwise, do not commit or push.", []),
        ("Do not commit or push to remote repositories.", []),
        ("CI never pushes.", []),
        ("- **Tone is always nudge, never push.**", []),
        # "Never commit." after a thing described is about that thing (its file)
        ("Agent wallet key. **Never commit. Testnet keys only.**", []),
        ("`.env` is ONLY for local environment. Never commit.", []),
    ],
)  # fmt: skip
def test_a_bare_git_act_forbidden_is_gits_command(text: str, held: list[tuple[str, str]]) -> None:
    """In a rule file "never commit" and "do not push" are git's: the act forbidden with
    no object (or "anything", "changes") is the command; asked for when the user's say-so
    is its condition."""
    found = commands_in(_rule(text))
    assert [(c.command, c.consent) for c in found] == held, text


@pytest.mark.parametrize(
    ("text", "section", "held"),
    [
        ("Keep dependencies minimal; ask before adding one.", "", True),
        ("The current set is deliberate and small. **Ask before adding one.**",
         "Dependencies", True),
        ("Still ask before adding a Composer or npm dependency.", "", True),
        ("- **stdlib only** unless a library is in `requirements.txt`; ask before adding new "
         "dependencies", "", True),
        # "one" with nothing about dependencies, and asks that are no consent: advice
        ("Keep functions small; ask before adding one.", "Style", False),
        ("Review security implications before adding new dependencies", "", False),
        ("Prefer standard library modules before adding new dependencies.", "", False),
    ],
)  # fmt: skip
def test_a_dependency_named_by_the_rule_or_its_heading_is_asked_for(
    text: str, section: str, held: bool
) -> None:
    """ "Ask before adding one" under a Dependencies heading, or after "Keep dependencies
    minimal", is about dependencies; the same words about functions are not."""
    rule = Rule(id="r-1", text=text, source=Source("AGENTS.md", 3, 3, section), scopes=[])
    found = [c for c in commands_in(rule) if c.command == "uv add"]
    assert bool(found) == held, text
    assert all(c.consent == "user" for c in found)


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # the command is the instrument of a negated act, said in two words ("install
        # packages", "resolve conflicts", "start the server")
        ("Never install packages with `pip install` directly — use `uv add`.",
         ["pip install"]),
        ("Never install dependencies with `npm install`; use `pnpm add`.", ["npm install"]),
        ("NEVER start the server with `python -m uvicorn app.main:app` — it crashes.",
         ["python -m uvicorn app.main:app"]),
        ("Never resolve conflicts with `git checkout --theirs`.", ["git checkout --theirs"]),
        # more than the act and its object, a condition, or an option: not read
        ("Don't worry about formatting with `black --check`.", []),
        ("Never deploy with `make deploy-prod` on Fridays.", []),
        ("Never format files with `prettier --write` on generated code.", []),
        ("NEVER run tests with `--all-features`.", []),
        # a negation said as a place: its "under" is no condition
        ("Under no circumstances run `kubectl delete namespace`.",
         ["kubectl delete namespace"]),
        ("**Under no circumstances run `darwin-rebuild switch`.** Report and stop.",
         ["darwin-rebuild switch"]),
        # "ever" inside the negation, "refrain from", "not allowed to"
        ("**Do not ever run `cargo build`** (I run release builds myself).", ["cargo build"]),
        ("Never, ever run `terraform destroy`.", ["terraform destroy"]),
        ("Please refrain from running `docker system prune`.", ["docker system prune"]),
        ("You are NOT allowed to run `git commit` or `git push`.", ["git commit", "git push"]),
        # ... with a condition, or said of someone else, still nothing
        ("In a team, refrain from running `terraform apply` before the state is in.", []),
        ("Contributors are not allowed to run `make release`.", []),
        # the way it is run between the command and "is forbidden"
        ("Running `terraform apply` locally is forbidden; CI applies plans.",
         ["terraform apply"]),
    ],
)  # fmt: skip
def test_a_command_forbidden_as_the_tool_of_an_act_or_in_other_words_of_negation(
    text: str, forbidden: list[str]
) -> None:
    assert [c.command for c in commands_in(_rule(text)) if not c.consent] == forbidden


@pytest.mark.parametrize(
    ("text", "branches"),
    [
        ("Never commit directly to `main`.", ["main"]),
        ("Work on a branch and open a PR into `main`; do not commit directly to `main`.",
         ["main"]),
        ("Never commit directly to main, create a feature branch.", ["main"]),
        ("Do not commit or push to master.", ["master"]),
        ("NEVER commit to main/master/develop.", ["main", "master", "develop"]),
        ("Never commit to `refs/heads/main` or `release`.", ["main", "release"]),
        # said as the way to work, with a condition, or of something else: no rule
        ("**Git: commit directly to `main`, linear history, no PRs.**", []),
        ("Commit directly to `main` for maintainer changes.", []),
        ("Never commit to `main` on Fridays.", []),
        ("Do not commit secrets to the repo.", []),
    ],
)  # fmt: skip
def test_a_commit_to_a_branch_is_read(text: str, branches: list[str]) -> None:
    held = [c.branch for c in commands_in(_rule(text)) if c.words == ("commit",)]
    assert held == branches


def test_a_commit_is_denied_only_on_the_branch_the_rule_names(tmp_path: Path) -> None:
    """ "Never commit directly to `main`": a `git commit` while `main` is checked out is
    denied, citing the rule; on a feature branch it passes."""
    import subprocess

    rules = "# Rules\n\n- Never commit directly to `main`; work on a feature branch.\n"
    root, git, decided = _on_main(tmp_path, rules)

    assert decided('git commit -m "fix: totals"') == "deny"
    assert decided('git add -A && git commit -am "wip"') == "deny"
    assert decided("git status") == "allow"
    out = guard(root, "Bash", {"command": 'git commit -m "x"'})
    assert out is not None
    assert "(a commit on `main`)" in out["hookSpecificOutput"]["permissionDecisionReason"]
    subprocess.run([*git, "switch", "-q", "-c", "feature"], check=True)
    assert decided('git commit -m "fix: totals"') == "allow"


@pytest.mark.parametrize(
    ("text", "section", "forbidden"),
    [
        # a label or heading about package managers says the one-word spans are programs
        ("Package manager: `pnpm` (not `npm`).", "Conventions", ["npm"]),
        ("Package manager: `pnpm` (never `npm` or `yarn`).", "", ["npm", "yarn"]),
        ("Always use `pnpm` (never `npm`/`yarn`).", "Package managers", ["npm", "yarn"]),
        # a condition, or no word saying what they are: nothing
        ("Package manager: `pnpm` (switch to `npm` if the user prefers).", "", []),
        ("Always use `pnpm` (never `npm`).", "Conventions", []),
        ("Never use `any` or `unknown`.", "TypeScript", []),
    ],
)
def test_a_label_or_heading_about_package_managers_names_programs(
    text: str, section: str, forbidden: list[str]
) -> None:
    rule = Rule(id="r-1", text=text, source=Source("AGENTS.md", 3, 3, section))
    assert [c.command for c in commands_in(rule) if not c.consent] == forbidden


def test_a_program_turned_down_for_one_the_rule_files_run_is_held(tmp_path: Path) -> None:
    """ "Use `pnpm`, not `npm`": the span chosen is a program because the rule files run
    it (a shell block of `pnpm` commands), so the one turned down is a program too, and
    any run of it is denied, citing the rule. One word alone says nothing: "use `tx`, not
    `db`" names no program the files run, and a file that runs `npm` itself for another
    part of the project ("use `uvicorn`, not `npm`" for its backend) chose for that part
    only."""
    rules = (
        "# Scripts\n\n```bash\npnpm dev     # dev server\npnpm test    # unit tests\n```\n\n"
        "# Conventions\n\n- Use `pnpm`, not `npm`.\n- Always use `tx`, not `db`, in handlers.\n"
        "- Use `uv`, not `pip`. All Python deps via `uv sync`.\n"
    )
    (tmp_path / "a").mkdir()
    root = compiled_repo(tmp_path / "a", {"AGENTS.md": rules})

    def decided(command: str) -> str:
        return guard_decision(guard(root, "Bash", {"command": command}))

    assert decided("npm install left-pad") == "deny"
    out = guard(root, "Bash", {"command": "npm run build"})
    assert out is not None
    assert "AGENTS.md:L" in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert decided("pip install requests") == "deny"
    for allowed in ("pnpm install", "uv sync", "db migrate"):
        assert decided(allowed) == "allow", allowed

    both = (
        "# Run\n\n```bash\ncd backend && uvicorn main:app --reload\n```\n\n"
        "```bash\ncd frontend && npm run dev\n```\n\n"
        "# Notes\n\n- Backend is Python - use `uvicorn`, not `npm`.\n"
        "- You can use `yarn` instead of `npm`.\n"
    )
    (tmp_path / "b").mkdir()
    root = compiled_repo(tmp_path / "b", {"CLAUDE.md": both})
    assert guard_decision(guard(root, "Bash", {"command": "npm run dev"})) == "allow"


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # the span chosen is a command: the one turned down is a program
        ("Use `bun test`, not `jest`.", ["jest"]),
        ("**Use `bun run test`, not `vitest`.** It loads the env.", ["vitest"]),
        # the command chosen runs the program itself (`python -m pip` is `pip` too)
        ("**Use `python -m pip`, not `pip`.** Plain `pip` may pick another Python.", []),
        ("Use `uv run python` instead of `python`.", []),
        # not an imperative, a condition, or a use after the span: nothing
        ("You can use `bun test` instead of `jest`.", []),
        ("On macOS, use `python3 -m pip` instead of `pip`.", []),
        ("Use `bun test` instead of `jest` for unit tests.", []),
        ("Prefer `bun test` over `jest`.", []),
    ],
)
def test_a_preference_for_a_command_turns_down_a_program(text: str, forbidden: list[str]) -> None:
    rule = Rule(id="r-1", text=text, source=Source("AGENTS.md", 3, 3, "Conventions"))
    assert [c.command for c in commands_in(rule) if not c.consent] == forbidden


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # a script says what it is: by its extension or by a path from here
        (
            "Call the build tool directly (do NOT use `Build.bat` — it breaks on paths).",
            ["Build.bat"],
        ),
        ("So **never run `./start.sh`** — it tears down the dev server.", ["./start.sh"]),
        ("Always use `task run` to start — never run `./bin/api` directly.", ["./bin/api"]),
        ("- Do not run `scripts/deploy.sh`.", ["scripts/deploy.sh"]),
        # what follows narrows when it may not run: a condition the hook cannot judge
        ("**Never run `./redrive.sh` in a loop.**", []),
        ("Do not run `scripts/rebuild.sh` for this pull flow.", []),
        ("Never run `./scripts/flash.sh` twice.", []),
        # no script: a parent folder, an edit
        ("Use the `@/` alias instead of `../../..`.", []),
        ("Never edit `deploy.sh` by hand.", []),
    ],
)
def test_a_script_a_rule_forbids_running_is_a_program(text: str, forbidden: list[str]) -> None:
    rule = Rule(id="r-1", text=text, source=Source("CLAUDE.md", 3, 3, "Notes"))
    assert [c.command for c in commands_in(rule) if not c.consent] == forbidden


def test_a_forbidden_script_is_denied_however_it_is_started(tmp_path: Path) -> None:
    """ "Never run `./scripts/reset-db.sh`.": denied run by its path from anywhere, or
    handed to a shell (``bash scripts/reset-db.sh``), which runs it all the same; other
    scripts run."""
    (tmp_path / "p").mkdir()
    root = compiled_repo(
        tmp_path / "p", {"CLAUDE.md": "# Notes\n\n- Never run `./scripts/reset-db.sh`.\n"}
    )

    def decided(command: str) -> str:
        return guard_decision(guard(root, "Bash", {"command": command}))

    for command in (
        "./scripts/reset-db.sh",
        "bash scripts/reset-db.sh --yes",
        "sh -e ./scripts/reset-db.sh",
        "cd scripts && ./reset-db.sh",
    ):
        assert decided(command) == "deny", command
    assert decided("./scripts/seed.sh") == "allow"
    assert decided("bash -c 'echo hi'") == "allow"


def test_a_shell_given_a_script_runs_it_as_a_program() -> None:
    """``bash x.sh`` is also reported as ``x.sh`` run: a rule about the script holds."""
    runs = [argv for argv, _ in analyse("bash -x scripts/x.sh prod", "/p", "/root").commands]
    assert ("scripts/x.sh", "prod") in runs and runs[0][0] == "bash"


def test_a_windows_shell_given_a_script_runs_it_as_a_program() -> None:
    """``cmd /c Build.bat`` (``cmd //c`` from Git Bash) and ``powershell -File x.ps1``
    run the script: a rule against it holds there too."""
    for command, script in (
        ("cmd /c Build.bat Editor Win64", ("Build.bat", "Editor", "Win64")),
        ('cmd.exe //c "Build.bat Editor Win64"', ("Build.bat", "Editor", "Win64")),
        ("powershell -ExecutionPolicy Bypass -File setup.ps1 -Force", ("setup.ps1", "-Force")),
    ):
        runs = [argv for argv, _ in analyse(command, "/p", "/root").commands]
        assert script in runs, (command, runs)
    assert [a for a, _ in analyse('pwsh -Command "Get-Item x"', "/p", "/root").commands] == [
        ("pwsh", "-Command", "Get-Item x")
    ]


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("**NEVER run build commands**", "deny"),
        ("NEVER run `flutter run` or any build commands. The user runs the app.", "deny"),
        ("- **Never run build commands** - the user has `npm run dev` running", "deny"),
        ("Do not run build commands yourself. The human runs the watcher.", "deny"),
        ("Assume a watch task is running — don't run build commands", "deny"),
        ("Don't run build commands unless specifically told to.", "ask"),
        ("**NEVER run build commands without explicit user permission**", "ask"),
        ("Prebuild is needed (the user runs it; do NOT run build commands unprompted).", "ask"),
        # a time, a place, a manner: a condition the hook cannot see
        ("Never run build commands from within the `vendor` directory itself.", ""),
        ("Never run build commands automatically after code changes", ""),
        ("Don't run build commands in the same terminal where the dev server runs", ""),
        ("Run the build at the end only. Don't run build commands in between.", ""),
        ("Never start coding, never run build commands until context is loaded.", ""),
        # build commands named, not forbidden
        ("Build commands: `npm run build`, `cargo build`.", ""),
        ("Run build commands from the repository root.", ""),
    ],
)
def test_build_commands_forbidden_as_a_class(text: str, decision: str) -> None:
    """ "Never run build commands" names no command, yet forbids every one that builds:
    the phrase is read as a span would be (negation, condition, the user's consent)."""
    found = [c for c in commands_in(_rule(text)) if c.kind == "build"]
    got = ("ask" if found[0].consent else "deny") if found else ""
    assert got == decision


@pytest.mark.parametrize(
    ("command", "held"),
    [
        ("python3 build.py", True),
        ("./build.sh --zip", True),
        ("bash build.sh", True),
        ("cd resources && npm run build", True),
        ("pnpm run build:admin", True),
        ("yarn build", True),
        ("npx vite build", True),
        ("cargo build --release", True),
        ("flutter build apk --release", True),
        ("cd ios && xcodebuild -workspace Runner.xcworkspace -scheme Runner", True),
        ("python -m build", True),
        ("make", True),
        ("make build", True),
        ("cmake --build out", True),
        ("./gradlew assembleDebug", True),
        ("composer run-script build", True),
        # not builds: tests, linters, running the app, code generation, installs
        ("flutter run -d ios", False),
        ("flutter test", False),
        ("flutter analyze", False),
        ("npm test", False),
        ("make test", False),
        ("dart run build_runner build --delete-conflicting-outputs", False),
        ("pip install build", False),
        ("python3 manage.py runserver", False),
        ("vendor/bin/phpunit -c phpunit.xml", False),
        ("cat build.py", False),
    ],
)
def test_build_commands_the_class_holds(tmp_path: Path, command: str, held: bool) -> None:
    """A class prohibition holds each command that builds, however it is started, and
    lets tests, linters, runs and installs through."""
    root = compiled_repo(
        tmp_path, {"CLAUDE.md": "# Rules\n\n**NEVER run build commands**\n\n- Use tabs.\n"}
    )
    decision = guard_decision(guard(root, "Bash", {"command": command}))
    assert decision == ("deny" if held else "allow"), command


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("**The agent MUST NEVER execute git write operations. PERIOD.**", ""),
        ("Do NOT use git commit, push, pull, or other write operations.", ""),
        ("**NEVER** run `git tag`, or any git commands that modify version control state", ""),
        ("Use only read-only Git commands, and respect repos that forbid Git entirely.", ""),
        ("Only use read-only git commands (status, log, diff).", ""),
        ("Use read-only Git commands for inspection unless the user requested a change.", "user"),
        # described, someone else's, a reason: nothing held
        ("The hook blocks git write operations outside the clones folder.", None),
        ("Merging stays deferred because it involves Git write operations.", None),
        ("Read-only git commands (`git status`, `git log`) are not affected.", None),
        ("The sandbox runs a short allowlist of build and read-only git commands.", None),
    ],
)  # fmt: skip
def test_git_commands_that_write_forbidden_as_a_class_are_held(text: str, held: str | None) -> None:
    """ "Never execute git write operations" and "use only read-only git commands" name no
    command: every git command that writes is held, read as a code span is (negation,
    condition, consent)."""
    found = [c for c in commands_in(_rule(text)) if c.kind == GIT_WRITE_KIND]
    if held is None:
        assert found == [], text
        return
    assert len(found) == 1 and found[0].consent == held, text
    assert found[0].matches(["git", "stash"]) and not found[0].matches(["git", "status"])


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("git -C sub commit -m x", True),
        ("git stash", True),
        ("git stash pop", True),
        ("git branch feat", True),
        ("git branch -D feat", True),
        ("git tag v1.0", True),
        ("git remote add origin u", True),
        ("git config user.name x", True),
        ("git checkout -b x", True),
        ("git worktree add ../x", True),
        ("git --no-pager log --oneline", False),
        ("git stash list", False),
        ("git branch -a", False),
        ("git tag -l v1*", False),
        ("git remote -v", False),
        ("git config user.name", False),
        ("git config --get user.name", False),
        ("git show HEAD", False),
        ("git lg", False),  # an alias: unknown, not held
        ("ls -la", False),
    ],
)
def test_which_git_commands_write(command: str, writes: bool) -> None:
    assert git_writes(command.split()) is writes


def test_the_guardrail_holds_every_git_write_and_lets_reads_pass(tmp_path: Path) -> None:
    rules = "# Git\n\n- **Never execute git write operations.** Read-only: status, log, diff.\n"
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})
    for command in ("git stash", "git merge feat", "cd sub && git cherry-pick abc"):
        out = guard(root, "Bash", {"command": command})
        assert guard_decision(out) == "deny", command
    for command in ("git status", "git log -3", "git diff HEAD~1", "git branch -a"):
        assert guard_decision(guard(root, "Bash", {"command": command})) == "allow", command


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("- **Never add Co-Authored-By lines.**", "any"),
        ("Commits: plain messages only. Never add Co-Authored-By lines or session links.", "any"),
        ("Never add Co-Authored-By, \"Generated with\", or Session trailers to a commit.", "any"),
        ("- NEVER add Co-Authored-By lines mentioning Claude or Anthropic", "ai"),
        ("Never add yourself (Claude) as a co-author on commits.", "ai"),
        ("Never add Co-Authored-By lines unless the user asks.", "user"),
        # a two-word label, "co-authoring" and "i.e." inside what it forbids
        ("- **Commit messages:** Do NOT include co-authoring information from coding agents "
         "(i.e. avoid \"Co-Authored-By: Claude\" attribution)", "ai"),
        # described, asked for, or someone else's: nothing held
        ("The agent adds a Co-Authored-By trailer to every commit.", None),
        ("Always add a Co-Authored-By trailer for pair-programmed commits.", None),
        ("CI never adds Co-Authored-By lines.", None),
    ],
)  # fmt: skip
def test_a_co_author_trailer_a_rule_forbids_is_held_on_the_commit(
    text: str, held: str | None
) -> None:
    """ "Never add Co-Authored-By lines" is among the commonest rules of public agent
    files, and Claude Code writes such a trailer into every commit message by default:
    the commit carrying one is held (one naming an AI assistant, when the rule says so)."""
    found = [c for c in commands_in(_rule(text)) if c.trailer]
    if held is None:
        assert found == [], text
        return
    assert len(found) == 1, text
    assert ("user" if found[0].consent else found[0].trailer) == held, text


def test_which_commit_messages_credit_a_co_author() -> None:
    claude = "Fix it\n\nCo-Authored-By: Claude <noreply@anthropic.com>"
    human = "Pair work\n\nCo-authored-by: Ana Lima <ana@example.com>"
    assert co_authored(["git", "commit", "-m", claude])
    assert co_authored(["git", "-C", "sub", "commit", "-am", claude])
    assert co_authored(["git", "commit", f"--message={human}"])
    assert co_authored(["git", "commit", "-m", "x", "--trailer", "Co-authored-by=Claude <a@b>"])
    assert co_authored(["git", "commit", "-m", claude], ai_only=True)
    assert not co_authored(["git", "commit", "-m", human], ai_only=True)
    assert not co_authored(["git", "commit", "-m", "Mention co-authored-by in the docs"])
    assert not co_authored(["git", "commit", "-F", "msg.txt"])
    assert not co_authored(["git", "commit", "-m", None])
    assert not co_authored(["git", "log", "--grep", "Co-authored-by: x"])


def test_the_guardrail_holds_a_commit_written_the_way_claude_code_writes_one(
    tmp_path: Path,
) -> None:
    """Claude Code commits with ``-m "$(cat <<'EOF' … EOF)"``: the shell analysis reads
    such a message as the constant it is, so the trailer in it is seen."""
    rules = "# Git\n\n- Never add Co-Authored-By lines to commits.\n"
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})
    heredoc = (
        "git add -A && git commit -m \"$(cat <<'EOF'\nFix the parser\n\n"
        'Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"'
    )
    out = guard(root, "Bash", {"command": heredoc})
    assert guard_decision(out) == "deny"
    assert (
        out is not None
        and "Co-Authored-By" in out["hookSpecificOutput"]["permissionDecisionReason"]
    )
    plain = "git commit -m \"$(cat <<'EOF'\nFix the parser\nEOF\n)\""
    assert guard_decision(guard(root, "Bash", {"command": plain})) == "allow"
    assert guard_decision(guard(root, "Bash", {"command": "git commit -F msg.txt"})) == "allow"


@pytest.mark.parametrize(
    ("text", "phrases"),
    [
        ("5. **NO WATERMARKS** - Never add \"Generated with Claude Code\" to commits",
         ["generated with claude code"]),
        ("3. **No AI Attribution**: Never add \"Generated with Claude Code\" to commits",
         ["generated with claude code"]),
        ("Do NOT add promotional text like \"Generated with Claude Code\" to commit messages",
         ["generated with claude code"]),
        # kept out of something else, or described: no commit held
        ("Never add \"TODO\" comments to production code.", []),

        ("The agent adds \"Generated with Claude Code\" to commits by default.", []),
    ],
)  # fmt: skip
def test_a_phrase_a_rule_keeps_out_of_commits_is_held(text: str, phrases: list[str]) -> None:
    found = [c.phrase for c in commands_in(_rule(text)) if c.phrase]
    assert found == phrases, text


def test_a_phrase_is_found_in_a_message_as_a_reader_sees_it(tmp_path: Path) -> None:
    """Claude Code writes "🤖 Generated with [Claude Code](https://claude.com/claude-code)":
    the rule's "Generated with Claude Code" is that line read without its link."""
    rules = (
        "# Git\n\n"
        '- **NEVER add `Co-Authored-By: Claude` or "Generated with Claude Code" to commits.**\n'
    )
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})
    linked = (
        "git commit -m \"$(cat <<'EOF'\nFix\n\n"
        '🤖 Generated with [Claude Code](https://claude.com/claude-code)\nEOF\n)"'
    )
    assert guard_decision(guard(root, "Bash", {"command": linked})) == "deny"
    human = "git commit -m 'Fix' -m 'Co-authored-by: Ana Lima <ana@example.com>'"
    assert guard_decision(guard(root, "Bash", {"command": human})) == "allow"
    # the rule keeps it out of commits, and out of pull requests only when it says so
    body = "gh pr create --title Fix --body '🤖 Generated with [Claude Code](https://x.y)'"
    assert guard_decision(guard(root, "Bash", {"command": body})) == "allow"
    write(
        root,
        "CLAUDE.md",
        '# Git\n\n- Don\'t add "Generated with Claude Code" to commit messages or PRs.\n',
    )
    compile_project(Project.load(root))
    assert guard_decision(guard(root, "Bash", {"command": body})) == "deny"
    assert guard_decision(guard(root, "Bash", {"command": "gh pr create --fill"})) == "allow"


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("You must NEVER use the mcp__peekaboo__analyze tool as it sends data out.",
         [("mcp__peekaboo__analyze", "")]),
        ("- Do not use `mcp__claude-in-chrome__*` tools.", [("mcp__claude-in-chrome__*", "")]),
        ("**NEVER apply migrations.** Do NOT use `mcp__supabase__apply_migration`.",
         [("mcp__supabase__apply_migration", "")]),
        ("Do not use mcp__github unless the user asks.", [("mcp__github", "user")]),
        # a purpose or a manner is a condition; a tool named in a description is no rule
        ("Do NOT use `mcp__pull__search` to fetch comments for one post.", []),
        ("Tool names of this host do not use `mcp__` naming.", []),
        # Claude Code's own tools an agent can do without, by name
        ("Do NOT use the WebFetch tool — it fails on most websites.", [("WebFetch", "")]),
        ("**⛔ DO NOT USE the WebFetch tool. EVER.**", [("WebFetch", "")]),
        ("To read GitHub data, do not use the WebFetch tool; use `gh`.", []),
        ("Do NOT use the WebFetch tool on example.com — it returns 403.", []),
        ("Do not use the Task tool for single-file lookups.", []),
        ("Never use the Write tool to create docs.", []),
    ],
)  # fmt: skip
def test_an_mcp_tool_a_rule_forbids_is_read(text: str, held: list[tuple[str, str]]) -> None:
    found = [(c.command, c.consent) for c in commands_in(_rule(text)) if c.kind == "tool"]
    assert found == held, text


def test_the_guardrail_holds_a_forbidden_mcp_tool_by_its_name(tmp_path: Path) -> None:
    """Claude Code sends every tool call to the PreToolUse hook, MCP tools too
    (``mcp__<server>__<tool>``): one a rule forbids is denied, a server's glob holds its
    every tool, and another server's tool passes."""
    rules = (
        "# Tools\n\n"
        "- Do NOT use `mcp__supabase__apply_migration`; the user deploys migrations.\n"
        "- Never use the mcp__claude-in-chrome__* tools.\n"
    )
    root = compiled_repo(tmp_path, {"CLAUDE.md": rules})
    out = guard(root, "mcp__supabase__apply_migration", {"name": "x", "query": "select 1"})
    assert guard_decision(out) == "deny"
    assert (
        out is not None and "CLAUDE.md:L3" in out["hookSpecificOutput"]["permissionDecisionReason"]
    )
    assert guard_decision(guard(root, "mcp__claude-in-chrome__navigate", {"url": "x"})) == "deny"
    assert guard_decision(guard(root, "mcp__supabase__list_tables", {})) == "allow"
    write(root, "CLAUDE.md", "# Web\n\n- Do NOT use the WebFetch tool — use `curl`.\n")
    compile_project(Project.load(root))
    fetch = {"url": "https://example.com", "prompt": "x"}
    assert guard_decision(guard(root, "WebFetch", fetch)) == "deny"
    assert guard_decision(guard(root, "WebSearch", {"query": "x"})) == "allow"


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Never commit `.env`. It is ignored by Git.", [(".env", "")]),
        ("1.7.15 Never commit `.env` file", [(".env", "")]),
        ("1. **Never Commit `.env`**: Always verify `.gitignore` excludes it.", [(".env", "")]),
        ("- Never commit .env, AWS keys, samconfig.toml, or node_modules.",
         [(".env", ""), ("samconfig.toml", "")]),
        ("Never commit `.env` unless the user asks.", [(".env", "user")]),
        # a span's underscores are no emphasis; a lead of a few words before a colon
        ("- Do not commit `catboost_info/` or `__pycache__/` directories.",
         [("catboost_info/", ""), ("__pycache__/", "")]),
        ("- **ALL LANES: do NOT commit `package-lock.json`.** It breaks CI.",
         [("package-lock.json", "")]),
        ("Never commit code that does not compile.", []),
        ("Never commit without running `make test`.", []),
    ],
)  # fmt: skip
def test_a_path_a_rule_forbids_committing_is_read(text: str, held: list[tuple[str, str]]) -> None:
    found = [(c.command, c.consent) for c in commands_in(_rule(text)) if c.kind == "commit-path"]
    assert found == held, text


def test_staging_a_forbidden_path_is_held_wherever_it_is_named(tmp_path: Path) -> None:
    assert stages(["git", "add", "-f", ".env"], "", ".env")
    assert stages(["git", "add", "../.env"], "web", ".env")
    assert stages(["git", "commit", ".env", "-m", "x"], "", ".env")
    assert not stages(["git", "commit", "-m", "add .env", "src/a.py"], "", ".env")
    assert not stages(["git", "add", ".env.example"], "", ".env")
    assert not stages(["git", "add", "."], "", ".env")  # what `.` stages is not read
    root = compiled_repo(tmp_path, {"AGENTS.md": "# Security\n\n- Never commit `.env`.\n"})
    assert guard_decision(guard(root, "Bash", {"command": "git add -f .env"})) == "deny"
    assert guard_decision(guard(root, "Bash", {"command": "git add src/app.py"})) == "allow"


def test_staging_everything_is_held_while_a_forbidden_file_waits_to_be_staged(
    tmp_path: Path,
) -> None:
    """An agent commits with `git add -A && git commit`: a `.env` the project does not
    ignore is swept in, and the rule "Never commit `.env`" is held on that too; once git
    ignores it, or from a folder that holds none, staging everything passes."""
    import subprocess

    root = compiled_repo(tmp_path, {"AGENTS.md": "# Security\n\n- Never commit `.env`.\n"})
    write(root, ".env", "TOKEN=x\n")
    write(root, "web/app.js", "x\n")

    def decided(command: str, cwd: Path = root) -> str:
        return guard_decision(guard(root, "Bash", {"command": command}, cwd=cwd))

    assert decided("git add -A && git commit -m wip") == "deny"
    assert decided("git add .") == "deny"
    assert decided("git add .", cwd=root / "web") == "allow"  # `.` is web/ there
    assert decided("git add web/app.js") == "allow"
    assert decided("git commit -am wip") == "allow"  # -a takes tracked files only
    write(root, ".gitignore", ".env\n")
    subprocess.run(["git", "-C", str(root), "add", ".gitignore"], check=True)
    assert decided("git add -A") == "allow"


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # advising paired with the act: the act is forbidden as by its verb alone
        ("Never run or suggest `pnpm run dev`, `pnpm run build` commands.",
         [("pnpm run dev", ""), ("pnpm run build", "")]),
        ("Do not suggest or run `lerna init`.", [("lerna init", "")]),
        ("NEVER suggest or use `yarn dev`, `yarn run dev`, or any dev server to test code.",
         [("yarn dev", ""), ("yarn run dev", "")]),
        ("**Never run or suggest `npx knex migrate:rollback`** unless the user "
         "explicitly approves and accepts losing data.",
         [("npx knex migrate:rollback", "user")]),
        # the project itself is where the guardrail guards: no condition
        ("Do not use `yarn` commands in this repository.", [("yarn", "")]),
        ("**IMPORTANT:** Do NOT run any `git commit` or `git push` commands in this project.",
         [("git commit", ""), ("git push", "")]),
        ("**Do NOT use `knex migrate:latest` in this project**, unless the user "
         "explicitly requests it and understands the risk.",
         [("knex migrate:latest", "user")]),
        # advice alone is no tool call; a condition or a kind still leaves it advice
        ("Do not recommend `pi install npm:x` in this repo.", []),
        ("Do not suggest or run `npm install -g cli` on top of a Homebrew install.", []),
        ("Do not suggest or run destructive commands such as `docker compose down -v`.", []),
        ("NEVER suggest or use `git pull origin main` on the production server.", []),
        # a part of the project is a place the guardrail does not see
        ("Never run `npm run build` in this project's `web/` folder.", []),
        ("Never run `npm run build` in this repository root.", []),
        ("Don't run `make deploy` in the project root.", []),
    ],
)  # fmt: skip
def test_advice_paired_with_the_act_and_this_project_set_no_condition(
    text: str, forbidden: list[tuple[str, str]]
) -> None:
    """A Prisma backend's CLAUDE.md said "**Never run or suggest `npx prisma migrate
    reset`** unless the user explicitly approves …" and "**Do NOT use `prisma db push` in
    this project**, unless the user …": neither was held, since "or suggest" stood between
    the negation and the command and "in this project" read as a place the guardrail
    cannot see. Both now are put to the user."""
    assert [(c.command, c.consent) for c in commands_in(_rule(text))] == forbidden


def test_run_or_suggest_lists_are_held_by_the_hook(tmp_path: Path) -> None:
    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Rules\n\n## Database\n\n"
            "1. **Never run or suggest `npx knex migrate:rollback`** unless the user\n"
            "   explicitly approves and accepts losing data.\n"
            "2. **Do NOT use `knex seed:run` in this project**, unless the user\n"
            "   explicitly requests it.\n\n"
            "Do NOT suggest or run:\n\n- `dropdb app`\n- `knex migrate:down`\n"
        },
    )

    expect_decisions(
        bash_decision,
        root,
        deny=[
            "dropdb app",
            "npx knex migrate:down",
        ],
        ask=[
            "npx knex migrate:rollback --all",
            "knex seed:run",
        ],
        allow=[
            "npx knex migrate:latest",
            "npm test",
        ],
    )


def test_a_command_named_through_its_package_launcher_is_held_however_it_is_launched(
    tmp_path: Path,
) -> None:
    """A Prisma backend's CLAUDE.md forbids `npx prisma migrate reset`: held as written,
    `npm exec prisma migrate reset`, `bunx prisma …` and a global `prisma migrate reset`
    ran, since the rule's program was `npx`. The act a launcher runs (a binary and its
    subcommand) is what is forbidden; a launcher and a binary alone (`npx tsc`) or a rule
    naming the act another way too keeps the launcher, and a version the launcher is
    given (`prisma@5`) is no other program."""
    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Rules\n\n"
            "- Do not run `npx knex migrate:rollback`.\n"
            "- NEVER run `pnpm dlx sequelize db:drop` (it wipes the shared database).\n"
            "- Do not run `npx tsc`.\n"
            "- Use `pnpm exec vitest run` instead of `npx vitest run`.\n"
        },
    )

    expect_decisions(
        bash_decision,
        root,
        deny=[
            "npx knex migrate:rollback --all",
            "npx --yes knex migrate:rollback",
            "bunx knex migrate:rollback",
            "npm exec knex migrate:rollback",
            "pnpm exec knex migrate:rollback",
            "knex migrate:rollback",
            "npx knex@3 migrate:rollback",
            "npx sequelize db:drop",
            "yarn dlx sequelize db:drop",
            "npx tsc --noEmit",  # held as written: the launcher named
            "npx vitest run",
        ],
        allow=[
            "npx knex migrate:latest",
            "pnpm exec tsc --noEmit",
            "pnpm exec vitest run",  # the launcher preferred
            "npm test",
        ],
    )


def test_a_package_manager_running_a_binary_by_name_is_that_binary(tmp_path: Path) -> None:
    """`pnpm prisma migrate reset`, `yarn prisma …` and `bun prisma …` run the project's
    `prisma` binary (pnpm falls back to `pnpm exec`, yarn and bun run a script or a
    binary), yet only `pnpm exec` and the launchers were read so: a rule against
    `prisma migrate reset` or `npx prisma migrate reset` let them through, and a rule
    against `pnpm prisma db seed` held no `npx prisma db seed`. The package manager's own
    commands (`pnpm test`, `pnpm install`, `yarn run test`) run no tool of that name.
    On 12 public rule lines, 40 calls labelled before: 21 → 40 as labelled."""
    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Rules\n\n"
            "- NEVER run `npx prisma migrate reset` to reset database.\n"
            "- **Never run `prisma db push`** — this bypasses migration history.\n"
            "- **NEVER run `pnpm prisma db seed`** - it can corrupt production\n"
            "- Never run `pnpm prisma <cmd>` directly — use `pnpm db:<cmd>`\n"
        },
    )

    expect_decisions(
        bash_decision,
        root,
        deny=[
            "pnpm prisma migrate reset",
            "yarn prisma migrate reset --force",
            "bun prisma migrate reset",
            "pnpm --filter api prisma migrate reset",
            "yarn run prisma db push",
            "npx prisma db seed",
            "pnpm exec prisma db seed",
            "pnpm prisma generate",  # held as written: `pnpm prisma` with any argument
        ],
        allow=[
            "pnpm test",
            "pnpm install",
            "yarn run test",
            "bun test",
            "pnpm db:generate",
            "npx prisma generate",
            "bun index.ts",
            "pnpm lint --fix",
        ],
    )
    commands = [c for c, _ in analyse("pnpm -C apps/api tsc --noEmit", str(root), "/h").commands]
    assert ("tsc", "--noEmit") in commands
    assert [c for c, _ in analyse("pnpm test", str(root), "/h").commands] == [("pnpm", "test")]


def test_a_boundaries_label_forbids_each_act_of_its_list(tmp_path: Path) -> None:
    """Many `AGENTS.md` files end with "Boundaries": "**Always:** …", "**Ask first:** …",
    "**Never:** …", each a list of acts. Only the first act after the label was read:
    "**Never:** work on `main`, push to `main`, …" held nothing, and "**Ask first:**
    commit, push, …" held nothing. Each act is now read as said alone after the label;
    an act with a condition stays advice, and a label whose list opens with a condition
    ("Never: in production, …") is left as written."""
    root = compiled_repo(
        tmp_path,
        {
            "AGENTS.md": "# Agent guide\n\n## Boundaries\n\n"
            "- **Always:** run `make lint` before calling work done; note API changes.\n"
            "- **Ask first:** changing the public schema; adding a dependency; commit,\n"
            "  push, or open a PR.\n"
            "- **Never:** work on `main`, push to `main`, edit `vendor/` (generated), or\n"
            "  run `make release` against production.\n"
            "- **Never:** in CI, run `make seed`, `make reset`.\n"
        },
    )
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-b", "feature/x"], check=True)

    expect_decisions(
        bash_decision,
        root,
        deny=[
            "git push origin main",
        ],
        ask=[
            "git push origin feature/x",  # "Ask first: … push"
            "git commit -m wip",
            "npm install left-pad",
        ],
        allow=[
            "npm install",
            "make release",  # "against production": advice
            "make seed",
            "make lint",
        ],
    )
    edit = {"file_path": str(root / "vendor" / "lib.go"), "old_string": "a", "new_string": "b"}
    assert guard_decision(guard(root, "Edit", edit)) == "deny"
    # the denial quotes the rule as written, not the acts as Charter read them
    held = guard(root, "Bash", {"command": "git push origin main"})
    reason = str(held["hookSpecificOutput"]["permissionDecisionReason"]) if held else ""
    assert "Never: work on `main`, push to `main`" in reason, reason


def test_a_heading_that_asks_for_approval_puts_its_commands_to_the_user(tmp_path: Path) -> None:
    """A Prisma backend's "## ⚠️ Dangerous Commands (FORBIDDEN unless explicitly
    approved)" over "Do NOT suggest or run:" and its list denied the commands, which the
    heading allows once the user approves; a "### Restricted Commands (Require Approval)"
    listing `terraform apply` held nothing. Under a heading that asks for approval the
    commands it forbids or lists are put to the user; elsewhere nothing changes."""
    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Ops guide\n\n"
            "## Dangerous Commands (FORBIDDEN unless explicitly approved)\n\n"
            "Do NOT suggest or run:\n\n- `knex migrate:rollback --all`\n- `dropdb app`\n\n"
            "## Infrastructure\n\n### Restricted Commands (Require Approval)\n\n"
            "**Destructive operations:**\n"
            "- `pulumi up` - deploys the stack\n"
            "- `pulumi destroy` - tears the stack down\n"
            "- `deployctl promote <release>`: promotes a release\n\n"
            "### Read-only commands\n\n- `pulumi preview` - shows the plan\n\n"
            "## Database\n\n- Never run `dropdb shared`.\n"
            "### Ask first (if unsure)\n\n- `pulumi refresh` - syncs the state\n"
        },
    )

    expect_decisions(
        bash_decision,
        root,
        deny=[
            "dropdb shared",  # no approval in its heading
        ],
        ask=[
            "npx knex migrate:rollback --all",
            "dropdb app",
            "pulumi up --yes",
            "pulumi destroy",
            "deployctl promote v1.2",
        ],
        allow=[
            "pulumi preview",
            "pulumi refresh",  # "(if unsure)": a condition of its own
        ],
    )


def test_a_label_naming_pull_requests_keeps_a_phrase_out_of_them_only() -> None:
    text = '- **Pull requests:** Do NOT add "Generated with Claude Code" or similar footers'
    found = [(c.program, c.phrase) for c in commands_in(_rule(text)) if c.phrase]
    assert found == [("gh", "generated with claude code")]


@pytest.mark.parametrize(
    ("text", "held"),
    [
        # home-assistant/iOS AGENTS.md: the user's review is what "autonomously" leaves out
        ("Autonomous contributions are not accepted: a human must review, understand, and "
         "be able to explain every change before it is submitted. Do not open issues or pull "
         "requests autonomously, and do not post comments on behalf of a user without their "
         "review.", {"gh pr create": "user", "gh issue create": "user"}),
        ("Do NOT open pull requests unless explicitly asked.", {"gh pr create": "user"}),
        ("Never create a pull request unless the user explicitly asks for one.",
         {"gh pr create": "user"}),
        ("Do not create pull requests, tags, or releases without explicit permission.",
         {"gh pr create": "user"}),
        ("Commit and push directly to `main`. Do NOT open pull requests.", {"gh pr create": ""}),
        ("Commit and push directly to main; never create a pull request.", {"gh pr create": ""}),
        ("Do not open pull requests, write the task log, or send notifications — `build` "
         "handles all of that.", {"gh pr create": ""}),
        # a target, a place, a purpose or a condition the guardrail cannot see
        ("It may be rebased at any time -- do not open pull requests against it.", {}),
        ("Do not open pull requests directly on the upstream repository for translation "
         "updates.", {}),
        ("NEVER create a pull request or mark a task complete without testing the code.", {}),
        ("Do not create pull requests for routine work unless explicitly requested.", {}),
        ('Per issue instructions: "Do not create pull requests yet"', {}),
        ("Daily runs do not create pull requests.", {}),
    ],
)  # fmt: skip
def test_a_rule_that_forbids_opening_pull_requests_holds_gh_pr_create(
    text: str, held: dict[str, str]
) -> None:
    """Round 82: "Do not open issues or pull requests autonomously" (Home Assistant's iOS
    app) and "Never create a pull request unless the user asks" held nothing. 28 labelled
    public lines: 10 -> 28 read as labelled."""
    found = {c.command: c.consent for c in commands_in(_rule(text)) if c.program == "gh"}
    assert found == held


def test_gh_pr_create_is_put_to_the_user_and_reading_prs_is_not(tmp_path: Path) -> None:
    root = compiled_repo(
        tmp_path,
        {
            "AGENTS.md": "# App\n\n## AI policy\n\nDo not open issues or pull requests "
            "autonomously, and do not post comments on behalf of a user without their review.\n"
        },
    )
    for command, decision in [
        ("gh pr create --fill", "ask"),
        ("gh issue create -t bug", "ask"),
        ("gh pr view 5486", "allow"),
        ("gh pr checks 5486", "allow"),
        ("gh issue list --label bug", "allow"),
        ("git push -u origin fix-widget", "allow"),
    ]:
        assert guard_decision(guard(root, "Bash", {"command": command})) == decision, command


@pytest.mark.parametrize(
    ("text", "held"),
    [
        # kyverno/kyverno AGENTS.md, its PR checklist
        ("Keep local-only artifacts untracked (for example, `.claude-*` folders).", [".claude-*"]),
        ("Never commit MCP credentials. The `.roo/` and `mcp/` directories are ignored and "
         "must stay untracked (verify with `git ls-files`).", [".roo/", "mcp/"]),
        ("Copy it to `.env` and fill it in; `.env` files are git-ignored and must stay "
         "untracked.", [".env"]),
        ("`git_message_brief.txt` must stay untracked and be truncated to `0` bytes after each "
         "commit", ["git_message_brief.txt"]),
        ("CH-02 needs the FR bulk collection, not these, and `data/raw/` must stay untracked.",
         ["data/raw/"]),
        ("Keep `.env.local` untracked.", [".env.local"]),
        # no path, a condition, or another act
        ("Both files MUST stay untracked after the bump (NOT staged in the commit).", []),
        ("Add this entry yourself if index data must stay untracked:", []),
        ("`build/` must stay untracked until the release is cut.", []),
        ("Keep local-only notes outside version control.", []),
    ],
)  # fmt: skip
def test_a_path_that_must_stay_untracked_is_not_committed(text: str, held: list[str]) -> None:
    """Round 82: kyverno's "Keep local-only artifacts untracked (for example, `.claude-*`
    folders)" held nothing, as "`data/raw/` must stay untracked" did not. 12 labelled
    public lines: 6 -> 12."""
    from charter.rules.commands import COMMIT_PATH_KIND

    found = [c.command for c in commands_in(_rule(text)) if c.kind == COMMIT_PATH_KIND]
    assert found == held


def test_git_add_of_an_untracked_artifact_is_denied(tmp_path: Path) -> None:
    root = compiled_repo(
        tmp_path,
        {"AGENTS.md": "# PRs\n\n- Keep local-only artifacts untracked (for example, "
         "`.claude-*` folders).\n"},
    )  # fmt: skip
    deny = guard_decision(guard(root, "Bash", {"command": "git add .claude-notes/plan.md"}))
    allow = guard_decision(guard(root, "Bash", {"command": "git add pkg/controller.go"}))
    assert (deny, allow) == ("deny", "allow")


def test_an_italic_negation_forbids_as_a_plain_one(tmp_path: Path) -> None:
    """ "Do *not* run `X`" and "Do _not_ …" are Markdown's emphasis on "not": shown
    without the marks, as bold is, they hold what "Do not" holds (public lines: a
    Jetson guide's "do *not* run `jetson_clocks`", Algorand's "*Never run `goal` as
    `root`* (e.g., do *not* run `sudo goal …`)"); a glob's star and a name's underscores
    stay as written."""
    from charter.rules.commands import forbidden_commands
    from charter.rules.compiler import load
    from charter.rules.edits import forbidden_edits

    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": "# Rules\n\n"
            "- Do *not* run `npm publish`.\n"
            "- Do _not_ run `npm version`.\n"
            "- Do *not* edit `build/` by hand.\n"
            "- *Never run `goal` as `root`* (e.g., do *not* run `sudo goal account list`).\n"
            "- Length prefixes are validated *before* allocating.\n"
            "- Each SDK folder has a _category_.json file; match *.ts and *.tsx files.\n"
        },
    )
    compiled = load(Project.load(root))
    assert compiled is not None
    assert sorted(c.command for c in forbidden_commands(compiled.rules)) == [
        "npm publish",
        "npm version",
        "sudo goal account list",
    ]
    assert [e.pattern for e in forbidden_edits(compiled.rules)] == ["build/"]
    texts = [r.text for r in compiled.rules]
    assert "Length prefixes are validated before allocating." in texts
    assert "Each SDK folder has a _category_.json file; match *.ts and *.tsx files." in texts


def test_a_rule_against_opening_prs_holds_gh_aliases_and_mcp_tools_that_open_them(
    tmp_path: Path,
) -> None:
    """`gh pr new` is the GitHub CLI's own alias of `gh pr create`, and an MCP server's
    `create_pull_request` opens one as well: a rule against opening pull requests holds
    them all, and nothing else of the host's (listing, merging, reviewing, issues)."""
    root = compiled_repo(
        tmp_path, {"AGENTS.md": "# Rules\n\n- Never open pull requests. The maintainers do.\n"}
    )
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("Bash", {"command": "gh pr create --fill"}, "deny"),
        ("Bash", {"command": "gh pr new --fill"}, "deny"),
        ("mcp__github__create_pull_request", {"title": "t", "head": "b"}, "deny"),
        ("mcp__gitlab__create_merge_request", {"title": "t"}, "deny"),
        ("Bash", {"command": "gh pr list"}, "allow"),
        ("Bash", {"command": "gh issue new --title x"}, "allow"),
        ("mcp__github__create_issue", {"title": "t"}, "allow"),
        ("mcp__github__merge_pull_request", {"pullNumber": 1}, "allow"),
        ("mcp__github__create_pull_request_review", {"pullNumber": 1}, "allow"),
    ]
    assert [guard_decision(guard(root, tool, body)) for tool, body, _ in calls] == [
        want for _, _, want in calls
    ]


def test_a_package_managers_folder_option_moves_where_its_call_runs(tmp_path: Path) -> None:
    """``pnpm --dir web X``, ``pnpm --cwd=web X`` and ``npm --prefix web run X`` run in
    ``web`` as ``pnpm -C web tsc`` did, so a nested AGENTS.md's rule holds them; ``yarn
    workspace web tool …`` runs ``tool``, ``yarn workspace web test``/``add`` are yarn's."""
    root = _project(tmp_path)
    for call in (
        "npm --prefix services/api publish",
        "npm --prefix=services/api publish",
    ):
        assert _decision(_ask(root, call)) == "deny", call
    # a rule may name the call with its folder option: held as written
    (tmp_path / "named").mkdir()
    named = compiled_repo(
        tmp_path / "named", {"CLAUDE.md": "- Never run `npm --prefix server run test:e2e`.\n"}
    )
    assert _decision(_ask(named, "npm --prefix server run test:e2e")) == "deny"
    assert _decision(_ask(named, "npm --prefix server run test")) == "allow"
    api = str(root / "services/api")
    for call in (
        "pnpm --dir services/api i",
        "pnpm --cwd=services/api i",
        "pnpm -C services/api i",
    ):
        assert analyse(call, str(root), "/h").commands[0][1] == api, call
    for call in ("npm --prefix services/web publish", "npm publish", "pnpm --dir . publish"):
        assert _decision(_ask(root, call)) == "allow", call
    ran = [
        c for c, _ in analyse("yarn workspace web prisma migrate reset", str(root), "/h").commands
    ]
    assert ("prisma", "migrate", "reset") in ran
    for own in ("yarn workspace web test", "yarn workspace web add zod"):
        assert len(analyse(own, str(root), "/h").commands) == 1, own


def test_no_verify_forbidden_alone_is_gits_hook_bypass(tmp_path: Path) -> None:
    """``--no-verify`` is git's way to skip hooks: forbidden alone or after an act that
    names no command ("Do NOT skip pre-commit hooks (`--no-verify`)"), it holds any git
    command carrying it, also when the rule names another command ("run `make check`
    … Never use `--no-verify`"), and no other program's option of that name."""
    root = compiled_repo(
        tmp_path,
        {
            "AGENTS.md": "# Guide\n\n"
            "- Before each commit run `make check` and include its output. Never use "
            "`--no-verify`, never amend pushed commits.\n"
            "- Never skip pre-commit or test hooks (`--no-verify`) unless the user asks.\n"
        },
    )
    for call in ("git commit --no-verify -m x", "git push --no-verify origin b"):
        assert _decision(_ask(root, call)) == "deny", call
    for call in ("git commit -m x", "make check", "cargo publish --no-verify"):
        assert _decision(_ask(root, call)) == "allow", call


@pytest.mark.parametrize(
    ("text", "held"),
    [
        # an act that names no command, in a rule that names none: whose option is unknown
        (
            "**Never:** work on `main`, push to `main`, bypass protection (`--admin`, "
            "`--force`), or force-merge.",
            [],
        ),
        ("Never bypass protection (`--admin`, force push, disabling rules).", []),
        # the one command the rule names is the one the option is of
        (
            "Merge with `gh pr merge --squash` once CI is green; never bypass branch "
            "protection (`--admin`).",
            [("gh", ("pr", "merge"), ["--admin"])],
        ),
    ],
)
def test_an_option_after_an_act_naming_no_command_is_the_rules_commands(
    text: str, held: list[tuple[str, tuple[str, ...], list[str]]]
) -> None:
    """ "bypass protection (`--admin`, `--force`)" held `--force` on any command (`npm
    install --force`, `cargo install --force` denied): an option in brackets after an act
    that names no command is the option of the one command the rule names, and when it
    names none, of no command the hook can tell (git's `--no-verify` aside)."""
    found = [
        (f.program, f.words, sorted(f.flags))
        for f in commands_in(_rule(text))
        if {"--admin", "--force"} & f.flags
    ]
    assert found == held


@pytest.mark.parametrize(
    ("call", "held"),
    [
        ("git commit -n -m wip", True),
        ("git commit -nm wip", True),
        ("git commit --no-verify -m wip", True),
        ("git commit -m -n", False),  # -n is the message
        ("git commit -mnew", False),  # the message "new", no -n
        ("git push -n", False),  # a dry run, not --no-verify
        ("git commit -m wip", False),
    ],
)
def test_commit_short_no_verify_is_held_as_no_verify(call: str, held: bool) -> None:
    """``git commit -n`` is git's short form of ``--no-verify`` for commit only."""
    import shlex

    for text in (
        "Never commit with `--no-verify`.",
        "- Never use `git commit --no-verify`",
        "Never use `--no-verify` to bypass hooks",
    ):
        cmds = commands_in(_rule(text))
        assert any(c.matches(shlex.split(call), "") for c in cmds) is held, text


@pytest.mark.parametrize(
    ("text", "force"),
    [
        ("Do not skip hooks (`--no-verify`) or force-push", True),
        ("Don't skip hooks or force-push.", True),
        ("Do not rewrite history or force-push to main", False),  # a target: advice
        ("If you are unsure, do not merge or force-push", False),  # a condition first
    ],
)
def test_force_push_as_last_act_of_an_or_list(text: str, force: bool) -> None:
    assert ("git push --force" in {c.command for c in commands_in(_rule(text))}) is force


@pytest.mark.parametrize(
    ("text", "force"),
    [
        ("Never force-push or rewrite history.", True),
        ("- Never force-push, amend, or rewrite published history", True),
        ("Do not force-push or push to main", False),  # a target after the last act
        ("Never force-push or merge without review", False),  # a condition after it
    ],
)
def test_force_push_first_in_an_or_list(text: str, force: bool) -> None:
    """An act before the last of an "or" list holds alone when nothing after the last
    act could set a condition or a target on it."""
    assert ("git push --force" in {c.command for c in commands_in(_rule(text))}) is force


@pytest.mark.parametrize(
    ("call", "held"),
    [
        ("git push -f origin topic", True),
        ("git push -uf origin topic", True),
        ("git push --force", True),
        ("git push -o ci.skip -f", True),
        ("git push -o f origin topic", False),  # "f" is the push option's value
        ("git push origin topic", False),
        ("git clean -f", False),  # not the push the rule is about
    ],
)
def test_push_short_force_is_held_as_force(call: str, held: bool) -> None:
    """``git push -f`` is git's short form of ``--force``: "Never pass `--force` when
    pushing" held `--force` and let `-f` through."""
    import shlex

    cmds = commands_in(_rule("Never pass `--force` when pushing."))
    assert any(c.matches(shlex.split(call), "") for c in cmds) is held


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Never create commits.", True),
        ("Do not make any commits yourself.", True),
        ("Agents never commit on their own.", True),
        ("Never create commits for release tags.", False),
        ("Never make commits larger than 400 lines.", False),
    ],
)
def test_commits_said_as_made_or_by_the_agent_are_git_commit(text: str, held: bool) -> None:
    assert ("git commit" in {c.command for c in commands_in(_rule(text))}) is held


def test_an_option_used_on_the_agents_own_is_forbidden_outright() -> None:
    """ "Agents never use `--no-verify` on their own": the one using it is the agent."""
    import shlex

    cmds = commands_in(_rule("Agents never use `--no-verify` on their own."))
    assert any(c.matches(shlex.split("git commit --no-verify -m x"), "") for c in cmds)


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Do not commit changes yourself - leave it to the user.", True),
        ("Do NOT commit anything yourself.", True),
        ("Never push your changes on your own.", True),
        ("Do not commit changes to the `dist/` folder", False),
        ("Do not commit changes before running tests.", False),
    ],
)
def test_bare_act_done_by_the_agent_itself(text: str, held: bool) -> None:
    """ "yourself" after a bare object says who acts: the act is still bare."""
    found = {c.command for c in commands_in(_rule(text))}
    assert bool(found & {"git commit", "git push"}) is held


@pytest.mark.parametrize(
    "rule",
    [
        "- Never run `npm --prefix server run test:e2e`.\n",
        "- Never run `npm run test:e2e --prefix server`.\n",
    ],
)
def test_a_folder_option_named_by_a_rule_is_where_the_call_runs(tmp_path: Path, rule: str) -> None:
    """A rule naming a call with npm's folder option holds that call run in that folder
    however it gets there: the option before or after the script, or ``cd`` first."""
    root = compiled_repo(tmp_path, {"CLAUDE.md": rule})
    (root / "server").mkdir()
    (root / "web").mkdir()
    for call in (
        "npm --prefix server run test:e2e",
        "npm run test:e2e --prefix server",
        "cd server && npm run test:e2e",
    ):
        assert _decision(_ask(root, call)) == "deny", call
    for call in (
        "npm run test:e2e",
        "npm --prefix web run test:e2e",
        "cd web && npm run test:e2e",
        "npm run test:e2e -- --prefix server",  # the script's own argument
        "npm --prefix server run test",
    ):
        assert _decision(_ask(root, call)) == "allow", call


@pytest.mark.parametrize(
    "text",
    [
        "We do not run `npm audit fix --force` blindly",
        "Don't blindly run `npm audit fix --force`",
    ],
)
def test_blindly_puts_the_command_to_the_user(text: str) -> None:
    """A manner ("blindly": without a look) is no outright ban: the user is asked."""
    found = [c for c in commands_in(_rule(text)) if c.command == "npm audit fix --force"]
    assert found and all(c.consent == "user" for c in found)


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("**NEVER use `--no-verify` flag when committing**", "git commit --no-verify"),
        ("Never use `--no-verify` when pushing.", "git push --no-verify"),
        ("Never use `--no-verify` when committing to main", ""),  # a target: advice
    ],
)
def test_an_option_forbidden_while_doing_a_git_act(text: str, held: str) -> None:
    found = [c.command for c in commands_in(_rule(text))]
    assert found == ([held] if held else [])
