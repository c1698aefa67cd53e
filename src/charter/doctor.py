"""``charter doctor``: a list of checks, each with a status and a hint on how to fix it.

A check is a function ``(project) -> CheckResult`` registered with :func:`check`; the CLI
runs them in registration order and prints a table (or ``--json``). A check that raises
reports ``fail`` with its one-line error instead of stopping the others, so one broken
part never hides what the rest would say. New checks (issue 11) add a function here or
register one from their capability.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from charter.config import Project
from charter.errors import CharterError, describe

STATUSES = ("ok", "info", "warn", "fail")


@dataclass
class CheckResult:
    """What one check found: ``ok`` | ``info`` | ``warn`` | ``fail``, a one-line summary,
    a hint that says how to fix it (empty when nothing to do) and machine-readable detail."""

    name: str
    status: str
    summary: str
    fix: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
            "fix": self.fix,
            "detail": self.detail,
        }


Check = Callable[[Project], CheckResult]
CHECKS: list[tuple[str, Check]] = []


def check(name: str) -> Callable[[Check], Check]:
    """Register a check under ``name`` (a later registration with the same name replaces it)."""

    def add(func: Check) -> Check:
        CHECKS[:] = [(n, f) for n, f in CHECKS if n != name]
        CHECKS.append((name, func))
        return func

    return add


def run_checks(project: Project, only: list[str] | None = None) -> list[CheckResult]:
    """Run every check, or the ``only`` ones; a name no check has is a user error, so a
    typo (``--check hooks``) cannot pass as an empty, all-clear report."""
    known = [name for name, _ in CHECKS]
    unknown = [name for name in only or [] if name not in known]
    if unknown:
        raise CharterError(
            f"unknown check {', '.join(repr(n) for n in unknown)} (one of: {', '.join(known)})"
        )
    out: list[CheckResult] = []
    for name, func in CHECKS:
        if only and name not in only:
            continue
        try:
            result = func(project)
        except Exception as exc:  # one broken check must not hide the others
            result = CheckResult(name, "fail", describe(exc))
        result.name = name
        out.append(result)
    return out


@check("config")
def _config(project: Project) -> CheckResult:
    where = str(project.config_path) if project.config_path else "defaults (no charter.toml)"
    pyproject = project.root / "pyproject.toml"
    if project.config_path is not None and project.config_path.name != "pyproject.toml":
        try:
            shadowed = "[tool.charter" in pyproject.read_text(encoding="utf-8", errors="replace")
        except OSError:
            shadowed = False
        if shadowed:  # charter.toml wins: the pyproject section is never read
            return CheckResult(
                "config",
                "warn",
                f"configuration loaded from {where}; [tool.charter] in pyproject.toml is ignored",
                "keep one: move its keys into charter.toml, or delete charter.toml",
            )
    return CheckResult("config", "ok", f"configuration loaded from {where}")


@check("index")
def _index(project: Project) -> CheckResult:
    from charter.search.store import DB_NAME, SearchStore

    db = project.state_dir / DB_NAME
    if not db.exists():
        return CheckResult(
            "index", "info", "no search index yet", fix="run `charter index` to build it"
        )
    with SearchStore(db, readonly=True) as store:
        stats = store.stats()
    return CheckResult(
        "index",
        "ok",
        f"{stats['documents']} documents, {stats['chunks']} chunks "
        f"({stats['deleted_documents']} deleted kept for review)",
        detail=stats,
    )


@check("secrets")
def _secrets(project: Project) -> CheckResult:
    """Secrets redacted from the index and from rule files: where and by which detector."""
    from charter.secretscan.report import redaction_report

    settings = project.settings.secrets
    if not settings.enabled:
        return CheckResult(
            "secrets",
            "warn",
            "secret scanning is off: secrets in files are stored and served as written",
            fix="set [secrets] enabled = true in charter.toml and run `charter index`",
        )
    files = redaction_report(project)
    if not files:
        return CheckResult(
            "secrets", "ok", "no secrets found in indexed files or rule files", detail={"files": []}
        )
    total = sum(f["count"] for f in files)
    return CheckResult(
        "secrets",
        "warn",
        f"{total} secret(s) redacted in {len(files)} file(s); never stored or served",
        fix=(
            "remove them from these files (and git history) and rotate them; for a false "
            'positive add the path glob, "sha256:<value hash>" or "re:<regex>" to '
            "[secrets] allow"
        ),
        detail={"files": files},
    )


@check("rule prohibitions")
def _prohibitions(project: Project) -> CheckResult:
    """What the PreToolUse guardrails hold the agent to from the rules' own words, so a
    user sees (and can switch off) a denial before the agent meets it."""
    from charter.rules.stored import load_prohibitions

    guard = project.settings.session.guardrails
    found = load_prohibitions(project)
    if found is None:
        return CheckResult(
            "rule prohibitions",
            "info",
            "no compiled rules yet (or compiled by an older Charter)",
            fix="run `charter compile` to see the commands and files your rules forbid",
        )
    # one rule file restating another's prohibition forbids the same thing once
    held = found.commands if guard.rule_commands != "off" else []
    commands = list(dict.fromkeys(c.command for c in held))
    edits = list(dict.fromkeys(e.path for e in found.edits))
    edits = edits if guard.rule_edits != "off" else []
    if not commands and not edits:
        return CheckResult("rule prohibitions", "ok", "no rule forbids a command or a file edit")
    named = [*dict.fromkeys(c.shown for c in held), *(f"`{e}`" for e in edits)]
    shown = ", ".join(named[:6])
    return CheckResult(
        "rule prohibitions",
        "info",
        f"{len(commands)} command(s) and {len(edits)} file path(s) the rules forbid are "
        f"denied or asked before they happen: {shown}",
        fix="a wrong reading: reword the rule, or set [session.guardrails] rule_commands / "
        'rule_edits = "ask" or "off"',
        detail={"commands": commands, "edits": edits},
    )


@check("rule references")
def _references(project: Project) -> CheckResult:
    """Markdown files the compiled rule files send the agent to that Charter does not
    compile: a pointer file ("Read `./context/00-agents.md`") hides its rules from Charter
    until the user lists them in ``rules.sources``. One under ``rules.exclude`` is not
    named: the user already chose to leave it out."""
    from charter.rules.pointers import POINTER_MAX_RULES, named_markdown
    from charter.rules.stored import load_rules, read_state

    state = read_state(project)
    stored = load_rules(project)
    if state is None or stored is None:
        return CheckResult(
            "rule references",
            "info",
            "no compiled rules yet (or compiled by an older Charter)",
            fix="run `charter compile` to see the Markdown files your rule files name",
        )
    sources = [str(s.get("path")) for s in state[0].get("sources", []) if isinstance(s, dict)]
    compiled = set(sources)
    counts: dict[str, int] = {}
    for rule in stored.rules:
        counts[rule.source.path] = counts.get(rule.source.path, 0) + 1
    pointers: dict[str, list[str]] = {}
    others: dict[str, list[str]] = {}
    for rel in sources:
        try:
            text = (project.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        named = named_markdown(project.root, rel, text, compiled, project.settings.rules.exclude)
        if named:
            small = counts.get(rel, 0) <= POINTER_MAX_RULES
            (pointers if small else others)[rel] = named
    if not pointers and not others:
        return CheckResult("rule references", "ok", "no rule file names a Markdown file left out")
    shown = "; ".join(
        f"{rel} → {', '.join(named[:3])}{' …' if len(named) > 3 else ''}"
        for rel, named in [*pointers.items(), *others.items()][:4]
    )
    return CheckResult(
        "rule references",
        "warn" if pointers else "info",
        f"rule files name Markdown files Charter does not compile: {shown}",
        fix="list the files that hold rules for the agent in [rules] sources (charter.toml)",
        detail={"pointer_files": pointers, "other_files": others},
    )
