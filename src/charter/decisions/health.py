"""``charter doctor``'s view of the bound decisions: whether any are recorded, whether
their hash-chained history verifies, and whether the Stop hook checks replies against
them."""

from __future__ import annotations

from charter.config import Project
from charter.doctor import CheckResult, check
from charter.errors import CharterError


@check("decisions")
def decisions_check(project: Project) -> CheckResult:
    from charter.decisions.service import load_decisions, store_for

    if not store_for(project).exists():
        return CheckResult(
            "decisions",
            "info",
            "no decisions recorded",
            "record the decisions agents must keep with `charter decisions import FILE` "
            "(a Markdown or YAML intake form, see docs/decisions.md)",
        )
    try:
        decisions = load_decisions(project)
    except CharterError as exc:
        return CheckResult(
            "decisions",
            "fail",
            str(exc),
            "run `charter decisions verify`; `charter decisions restore` puts back the last "
            "recorded file",
        )
    entries = decisions.pgc_clarifications
    bound = decisions.binding_entries()
    open_ids = [e.id for e in entries if not e.resolved]
    on_stop = project.settings.drift.on_stop
    summary = (
        f"{len(entries)} recorded, {len(bound)} bound, history verified; "
        f"Stop hook: drift.on_stop = {on_stop}"
    )
    detail = {
        "recorded": len(entries),
        "bound": [e.id for e in bound],
        "unanswered": open_ids,
        "on_stop": on_stop,
    }
    if bound and on_stop == "off":
        return CheckResult(
            "decisions",
            "warn",
            summary + " (replies are not checked)",
            'set [drift] on_stop = "warn" (or "block") in charter.toml',
            detail,
        )
    if open_ids:
        shown = ", ".join(open_ids[:3]) + (", ..." if len(open_ids) > 3 else "")
        return CheckResult(
            "decisions",
            "info",
            f"{summary}; {len(open_ids)} unanswered ({shown}), which bind nothing",
            "answer them with `charter decisions answer ID VALUE`",
            detail,
        )
    return CheckResult("decisions", "ok", summary, "", detail)
