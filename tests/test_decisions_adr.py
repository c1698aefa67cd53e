"""`charter decisions import --adr`: accepted MADR / Nygard ADRs bind through the store.

Real files in a temporary repository and the real decision store (hash-chained history,
lock); the ADRs are invented, written in the two formats' own section names.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

Run = Callable[..., subprocess.CompletedProcess[str]]

MADR = """---
status: accepted
date: 2026-03-02
---
# Use PostgreSQL as the system of record

## Context and Problem Statement

Orders, invoices and stock need one durable store. Which database holds them?

## Considered Options

* PostgreSQL
* MongoDB
* DynamoDB

## Decision Outcome

Chosen option: "PostgreSQL", because the team already runs it and needs transactions.

### Consequences

* Good, because reports can join across tables.
"""

NYGARD = """# 7. Message broker for domain events

## Status

Accepted

## Context

Services publish domain events that several consumers read.

## Options

- **RabbitMQ**: operations already run it.
- **Kafka**: replayable log, one more cluster to run.

## Decision

We will publish domain events on RabbitMQ, one exchange per bounded context.

## Consequences

Consumers bind their own queues.
"""

PROPOSED = """# 8. Cache layer

* Status: proposed

## Considered Options

* Redis
* Memcached

## Decision Outcome

Chosen option: "Redis", because it is already deployed.
"""

SUPERSEDED = """# 3. Queue for background jobs

## Status

Accepted

Superseded by [9. Background jobs in the database](0009-jobs-in-db.md)

## Considered Options

1. Celery
2. RQ

## Decision

Chosen option: option 1 "Celery", because we know it.
"""

NO_OPTION = """# 10. Error handling

## Status

Accepted

## Alternatives Considered

- **Bare 500 errors**: pages on-call.
- **422 for business errors**: misleads clients.

## Decision

Business errors raise status-coded exceptions; 422 is reserved for payload validation.
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    folder = root / "docs" / "adr"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _import(run: Run, repo: Path, *args: str) -> dict:
    res = run("decisions", "import", "--adr", *args, "--json", cwd=repo)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _rows(out: dict) -> dict[str, dict]:
    return {Path(r["path"]).name: r for r in out["adrs"]}


def _bound(run: Run, repo: Path) -> dict[str, dict]:
    res = run("decisions", "list", "--json", "--binding", cwd=repo)
    assert res.returncode == 0, res.stderr
    return {e["id"]: e for e in json.loads(res.stdout)["pgc_clarifications"]}


def test_madr_and_nygard_bind_with_answer_excluded_and_provenance(
    repo: Path, run_charter: Run
) -> None:
    folder = _write(repo, {"0001-use-postgresql.md": MADR, "0007-message-broker.md": NYGARD})
    out = _import(run_charter, repo, str(folder))
    rows = _rows(out)
    madr, nygard = rows["0001-use-postgresql.md"], rows["0007-message-broker.md"]
    assert (madr["outcome"], madr["id"], madr["answer"]) == (
        "bound",
        "ADR-0001-use-postgresql",
        "PostgreSQL",
    )
    assert madr["excluded"] == ["MongoDB", "DynamoDB"]
    # the citation is the project-relative path and the line of "Chosen option" (front
    # matter counted)
    assert f"{madr['path']}:{madr['line']}" == "docs/adr/0001-use-postgresql.md:19"
    assert (nygard["outcome"], nygard["answer"], nygard["excluded"]) == (
        "bound",
        "RabbitMQ",
        ["Kafka"],
    )
    assert nygard["line"] == 18

    bound = _bound(run_charter, repo)
    pg = bound["ADR-0001-use-postgresql"]
    assert pg["text"] == "Use PostgreSQL as the system of record"
    assert (pg["priority"], pg["binding_reason"]) == ("must", "must_answered")
    assert pg["user_answer_label"] == "PostgreSQL"
    assert bound["ADR-0007-message-broker"]["text"] == "Message broker for domain events"

    res = run_charter("decisions", "invariants", "--json", cwd=repo)
    statements = {i["id"]: i["statement"] for i in json.loads(res.stdout)["invariants"]}
    assert "Excluded: MongoDB, DynamoDB" in statements["ADR-0001-use-postgresql"]
    # the statement's topic is the record's, not its kind and number ("Adr 0001 use …")
    assert statements["ADR-0001-use-postgresql"].startswith("Use postgresql: ")

    res = run_charter("decisions", "history", "--json", cwd=repo)
    (line,) = json.loads(res.stdout)["history"]
    assert line["op"] == "import"
    assert "ADR-0001-use-postgresql ← docs/adr/0001-use-postgresql.md:19" in line["reason"]
    assert run_charter("decisions", "verify", cwd=repo).returncode == 0

    res = run_charter("drift", "check", "-", cwd=repo, stdin="Let's store orders in MongoDB.")
    assert res.returncode == 1 and "ADR-0001-use-postgresql" in res.stdout


def test_proposed_and_superseded_are_skipped_and_no_option_is_unreadable(
    repo: Path, run_charter: Run
) -> None:
    folder = _write(
        repo,
        {
            "0003-job-queue.md": SUPERSEDED,
            "0008-cache.md": PROPOSED,
            "0010-errors.md": NO_OPTION,
            "README.md": "# Decisions\n\nThe ADRs of this project.\n",
        },
    )
    out = _import(run_charter, repo, str(folder))
    rows = _rows(out)
    assert rows["0003-job-queue.md"]["outcome"] == "skipped"
    assert rows["0003-job-queue.md"]["status"] == "superseded"
    assert "Superseded by" in rows["0003-job-queue.md"]["note"]
    assert (rows["0008-cache.md"]["outcome"], rows["0008-cache.md"]["status"]) == (
        "skipped",
        "proposed",
    )
    assert rows["0010-errors.md"]["outcome"] == "unreadable"
    assert "names none of the 2 listed options" in rows["0010-errors.md"]["note"]
    assert rows["README.md"]["outcome"] == "skipped"
    assert out["changed"] == []
    assert _bound(run_charter, repo) == {}


def test_a_prose_record_in_an_adr_folder_is_not_called_no_adr(repo: Path, run_charter: Run) -> None:
    """A Django app's ADRs state the decision in the title and argue it in prose (a
    ``**Tags:**`` line, no Status, no Decision section, no options): import said "not an
    ADR" of every file in ``docs/adr/``. Nothing can be bound from it; the row says so,
    and that search still serves it."""
    folder = _write(
        repo,
        {
            "0001-gift-cards-remain-bearer-instruments.md": (
                "# Gift cards remain bearer instruments\n\n**Tags:** gift card, security\n\n"
                "A gift card is a bearer instrument: whoever holds the code can spend it.\n"
            )
        },
    )
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["0001-gift-cards-remain-bearer-instruments.md"]
    assert row["outcome"] == "skipped"
    assert "not an ADR" not in row["note"] and "no choice to bind" in row["note"]
    assert _bound(run_charter, repo) == {}


def test_reimport_is_idempotent_and_a_changed_choice_is_not_rebound(
    repo: Path, run_charter: Run
) -> None:
    folder = _write(repo, {"0001-use-postgresql.md": MADR})
    adr = folder / "0001-use-postgresql.md"
    preview = _import(run_charter, repo, str(adr), "--dry-run")
    assert [r["outcome"] for r in preview["adrs"]] == ["would bind"]
    assert not (repo / ".charter" / "decisions" / "history.jsonl").exists()
    assert _import(run_charter, repo, str(adr))["changed"] == ["ADR-0001-use-postgresql"]
    history = repo / ".charter" / "decisions" / "history.jsonl"
    before = history.read_text(encoding="utf-8")

    again = _import(run_charter, repo, str(folder))
    assert again["changed"] == [] and again["counts"] == {"unchanged": 1}
    assert history.read_text(encoding="utf-8") == before

    adr.write_text(MADR.replace('Chosen option: "PostgreSQL"', 'Chosen option: "MongoDB"'))
    dry = _import(run_charter, repo, str(folder), "--dry-run")
    changed = _import(run_charter, repo, str(folder))
    for out in (dry, changed):
        (row,) = out["adrs"]
        assert row["outcome"] == "renegotiate" and out["changed"] == []
        assert "renegotiate ADR-0001-use-postgresql --answer mongodb" in row["note"]
    assert history.read_text(encoding="utf-8") == before
    assert _bound(run_charter, repo)["ADR-0001-use-postgresql"]["user_answer"] == "postgresql"

    # superseded after it was bound: reported with how to revoke it, never revoked silently
    adr.write_text(MADR.replace("status: accepted", "status: superseded by ADR-0012"))
    out = _import(run_charter, repo, str(folder))
    assert "--answer undecided" in out["retired"]["ADR-0001-use-postgresql"]
    assert _bound(run_charter, repo)["ADR-0001-use-postgresql"]["binding"] is True


def test_a_prose_adr_without_adr_flag_is_still_refused(repo: Path, run_charter: Run) -> None:
    adr = _write(repo, {"0001-use-postgresql.md": MADR}) / "0001-use-postgresql.md"
    res = run_charter("decisions", "import", str(adr), cwd=repo)
    assert res.returncode == 2 and "--adr" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_an_implemented_adr_is_in_force_and_binds(repo: Path, run_charter: Run) -> None:
    # "Implemented" says the decision was accepted and delivered; it was skipped as if
    # proposed. One implemented but partly superseded still never binds.
    implemented = NYGARD.replace("\nAccepted\n", "\nImplemented (#8423); graduated from RFC 12\n")
    partly = NYGARD.replace("\nAccepted\n", "\nImplemented; decision 2 is superseded by 0009\n")
    folder = _write(repo, {"0007-message-broker.md": implemented, "0008-broker-b.md": partly})
    rows = _rows(_import(run_charter, repo, str(folder)))
    assert (
        rows["0007-message-broker.md"]["outcome"],
        rows["0007-message-broker.md"]["answer"],
    ) == (
        "bound",
        "RabbitMQ",
    )
    assert rows["0008-broker-b.md"]["outcome"] == "skipped"
    assert rows["0008-broker-b.md"]["status"] == "superseded"


def test_a_status_line_under_a_date_line_is_read(repo: Path, run_charter: Run) -> None:
    """ "Date: 2026-02-06" over "Status: Superseded" with no blank line between is one
    Markdown paragraph: its first line was read as the only field, so every such ADR was
    reported "no Status found", a superseded one as unreadable instead of skipped."""
    header = "# 0006: Message broker for domain events\nDate: 2026-02-06\nStatus: {}\n\n"
    body = NYGARD.split("## Status\n\nAccepted\n", 1)[1]
    folder = _write(
        repo,
        {
            "0006-broker.md": header.format("Superseded") + body,
            "0007-broker.md": header.format("Accepted") + body,
        },
    )
    rows = _rows(_import(run_charter, repo, str(folder)))
    assert (rows["0006-broker.md"]["outcome"], rows["0006-broker.md"]["status"]) == (
        "skipped",
        "superseded",
    )
    assert (rows["0007-broker.md"]["outcome"], rows["0007-broker.md"]["answer"]) == (
        "bound",
        "RabbitMQ",
    )


def test_an_agents_md_in_the_adr_folder_is_no_record(repo: Path, run_charter: Run) -> None:
    """The ADR folder's own AGENTS.md (how to write one, with the template's "Status:
    `Proposed` | `Accepted` | `Superseded`") was read as a record and reported as a
    superseded decision."""
    guide = "# ADRs\n\n## Template\n\n- Status: `Proposed` | `Accepted` | `Superseded`\n"
    folder = _write(repo, {"0007-message-broker.md": NYGARD, "AGENTS.md": guide})
    rows = _rows(_import(run_charter, repo, str(folder)))
    assert rows["AGENTS.md"]["outcome"] == "skipped"
    assert rows["AGENTS.md"]["status"] is None
    assert "rule file" in rows["AGENTS.md"]["note"]
    assert rows["0007-message-broker.md"]["outcome"] == "bound"


def test_an_option_marked_chosen_in_the_list_names_the_answer(repo: Path, run_charter: Run) -> None:
    """ "- **Files (JSON/CSV)** ✅ Chosen" in the alternatives, the Decision section in its
    own words ("Use **file-based storage**"): the ADR was unreadable ("names none of the 4
    listed options") though the list says which one was taken. A mark the Decision
    section contradicts still binds nothing."""
    adr = (
        "# ADR-007: Data storage\n\n**Status:** Accepted\n\n## Decision\n\n"
        "Use **file-based storage** with JSON/CSV formats.\n\n"
        "## Alternatives Considered\n\n"
        "- **Files (JSON/CSV)** ✅ Chosen\n- **SQLite**: Overkill for the data volume\n"
        "- **PostgreSQL**: Requires installation and setup\n- In-memory only (no persistence)\n"
    )
    plain = adr.replace("**Files (JSON/CSV)** ✅ Chosen", "Direct calls ✔")
    plain = plain.replace("file-based storage", "direct method calls")
    contradicted = adr.replace("file-based storage", "SQLite")
    folder = _write(
        repo,
        {"ADR-007-storage.md": adr, "ADR-012-calls.md": plain, "ADR-013-db.md": contradicted},
    )
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["ADR-007-storage.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Files (JSON/CSV)")
    assert row["excluded"] == ["SQLite", "PostgreSQL", "In-memory only (no persistence)"]
    assert row["line"] == 11  # the marked item
    assert (rows["ADR-012-calls.md"]["outcome"], rows["ADR-012-calls.md"]["answer"]) == (
        "bound",
        "Direct calls",
    )
    assert rows["ADR-013-db.md"]["outcome"] == "unreadable"
    assert "marks 'Files (JSON/CSV)'" in rows["ADR-013-db.md"]["note"]


def test_options_numbered_as_headings_are_the_considered_options(
    repo: Path, run_charter: Run
) -> None:
    """ "### Option 1: SQLite (✅ Chosen)" and "### Option 2: PostgreSQL (❌ Not Chosen)"
    under "## Rationale", the Decision section "We will use SQLite with WAL mode": the ADR
    was unreadable ("no 'Considered Options' list"). Headings that number the options are
    its options, named without their marks; "### Alternative N" headings (often only the
    rejected ones) are not, and a single option heading gives no choice."""
    adr = (
        "# ADR-001: Security database\n\n**Status**: Accepted\n\n## Decision\n\n"
        "**We will use SQLite with WAL mode as the security database.**\n\n"
        "## Rationale\n\n### Option 1: SQLite (✅ Chosen)\n\n#### Advantages\n\n- No server\n\n"
        "### Option 2: PostgreSQL (❌ Not Chosen)\n\n- Needs a server\n"
    )
    alternatives = adr.replace("### Option", "### Alternative")
    single = adr.replace("### Option 2: PostgreSQL (❌ Not Chosen)", "### PostgreSQL")
    folder = _write(
        repo, {"ADR-001-db.md": adr, "ADR-002-alt.md": alternatives, "ADR-003-one.md": single}
    )
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["ADR-001-db.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "SQLite")
    assert row["excluded"] == ["PostgreSQL"]
    assert row["line"] == 7  # the Decision section's sentence
    assert rows["ADR-002-alt.md"]["outcome"] == "unreadable"
    assert rows["ADR-003-one.md"]["outcome"] == "unreadable"


def test_options_given_a_sub_heading_each_are_the_considered_options(
    repo: Path, run_charter: Run
) -> None:
    """ "## Alternatives Considered" over "### Config-based Default" and "### Hardcoded
    Account (Selected)", each with "**Pros:**"/"**Cons:**" bullets: the first option's
    bullets were read as the options list ("names none of the 3 listed options", and a
    Decision naming "Pros" would have bound it). A list inside a sub-section is the
    option's own; the sub-headings are the options, named without number, brackets or
    mark. "### Alternative N" headings count only when one is marked as taken, and a
    "## Decision: <title>" heading is the Decision section."""
    adr = (
        "# 0039. Default registry\n\n## Status\nAccepted\n\n## Context\nImages.\n\n"
        "## Alternatives Considered\n\n### No Default (Strict Requirement)\n"
        "*   **Pros:** Account-agnostic.\n*   **Cons:** Friction.\n\n"
        "### 2. Config-based Default\n*   **Pros:** Flexible.\n*   **Cons:** Setup step.\n\n"
        "### Hardcoded Account (Selected)\n*   **Pros:** Works.\n*   **Cons:** Hardcoded.\n\n"
        "## Decision\nKeep the account as the default value in all scripts.\n"
    )
    numbered = adr.replace("### No Default", "### Option 1: No Default")
    alternatives = (
        adr.replace("### No Default (Strict Requirement)", "### [Alternative 1: Raw Output]")
        .replace("### 2. Config-based Default", "### [Alternative 2: File Descriptors]")
        .replace(
            "### Hardcoded Account (Selected)", "### [Alternative 3: Logging Module (Selected)]"
        )
    )
    rejected_only = alternatives.replace(" (Selected)", "")
    titled = (
        "# ADR 0028: Reference resolution\n\n## Status\nAccepted\n\n"
        "## Considered Options\n- Positional detection\n- Explicit flags\n\n"
        "## Decision: Explicit Resolution Policy\nWe use explicit flags only.\n"
    )
    folder = _write(
        repo,
        {
            "0039-registry.md": adr,
            "0040-numbered.md": numbered,
            "0041-logging.md": alternatives,
            "0042-rejected.md": rejected_only,
            "0028-resolution.md": titled,
        },
    )
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["0039-registry.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Hardcoded Account")
    assert row["excluded"] == ["No Default (Strict Requirement)", "Config-based Default"]
    assert rows["0040-numbered.md"]["answer"] == "Hardcoded Account"
    assert rows["0040-numbered.md"]["excluded"][0] == "No Default (Strict Requirement)"
    row = rows["0041-logging.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Logging Module")
    assert row["excluded"] == ["Raw Output", "File Descriptors"]
    assert rows["0042-rejected.md"]["outcome"] == "unreadable"
    row = rows["0028-resolution.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Explicit flags")


def test_a_numbered_or_prose_option_item_is_named_by_its_own_words(
    repo: Path, run_charter: Run
) -> None:
    """ "- Option #2: Caches per service" bound the answer "Option #2" (excluded "Option
    #1", "Option #3"), which no text ever names; and an option written as prose bound its
    reason too ("… as it may make the Acme Platform seem inconsistent. Once set …"), so
    every text naming the product was flagged as reviving it. The number and the reason
    are not the option's name."""
    numbered = (
        "# 60. Cache layout\n\n## Status\n\nAccepted\n\n## Considered Options\n\n"
        "- Option #1: One global cache for all services\n- Option #2: Caches per service\n"
        "- Option 3 - Caches per service operation\n\n## Decision Outcome\n\n"
        'The "Option #2 Caches per service" was preferred over the other options.\n'
    )
    prose = (
        "# 39. Plugin names\n\n## Status\n\nAccepted\n\n## Considered Options\n\n"
        "1. Clone each function when it is added to a plugin\n"
        "2. Leave as is and do not support this use case as it may make the behavior of"
        " the Acme Platform seem inconsistent. Once set the name cannot change.\n\n"
        "## Decision Outcome\n\nChosen option: 1\n"
    )
    folder = _write(repo, {"0060-cache.md": numbered, "0039-names.md": prose})
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["0060-cache.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Caches per service")
    assert row["excluded"] == ["One global cache for all services", "Caches per service operation"]
    row = rows["0039-names.md"]
    assert row["excluded"] == ["Leave as is and do not support this use case"]


def test_an_unfilled_template_title_and_a_comment_block_are_read_past(
    repo: Path, run_charter: Run
) -> None:
    """A record that kept the template's "# {short title …}" bound that placeholder as
    its question; a record holding an HTML comment (``<!-- markdownlint-disable -->``)
    crashed the whole import with RecursionError. The file's own name titles the first;
    the comment is no content of the second."""
    placeholder = (
        "---\nstatus: accepted\n---\n\n# {short title of solved problem and solution}\n\n"
        "## Considered Options\n\n- Clone each function\n- Add a factory parameter\n\n"
        '## Decision Outcome\n\nChosen option: "Clone each function"\n'
    )
    comment = (
        "# Use the Maria connector\n\n## Status\n\nAccepted\n\n"
        "## Considered Options\n\n* Use Maria connector\n* Use My connector\n\n"
        '## Decision Outcome\n\nChosen option: "Use Maria connector"\n\n'
        "<!-- markdownlint-disable-file MD024 -->\n"
    )
    folder = _write(repo, {"0039-set-plugin-name.md": placeholder, "0004-maria.md": comment})
    rows = _rows(_import(run_charter, repo, str(folder)))
    assert rows["0004-maria.md"]["outcome"] == "bound"
    row = rows["0039-set-plugin-name.md"]
    assert row["outcome"] == "bound"
    assert row["question"] == "Set plugin name"


def test_an_madr_record_without_a_status_binds_its_chosen_option(
    repo: Path, run_charter: Run
) -> None:
    """MADR leaves ``status`` optional, and folders of MADR records often carry none: a
    record whose Decision Outcome names its chosen option is a decision taken (63 of one
    real folder's 72 records were reported unreadable). A record with neither a status nor
    a chosen option still binds nothing."""
    madr = (
        "---\nparent: Decision Records\n---\n# Use Crowdin for translations\n\n"
        "## Considered Options\n\n* Use Crowdin\n* Use Lingohub\n\n"
        '## Decision Outcome\n\nChosen option: "Use Crowdin", because it is free.\n'
    )
    open_question = (
        "# Pick a chat tool\n\n## Considered Options\n\n* Slack\n* Matrix\n\n"
        "## Decision Outcome\n\nWe will decide after the pilot.\n"
    )
    folder = _write(repo, {"0001-crowdin.md": madr, "0002-chat.md": open_question})
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["0001-crowdin.md"]
    assert (row["outcome"], row["answer"], row["excluded"]) == (
        "bound",
        "Use Crowdin",
        ["Use Lingohub"],
    )
    assert "status" in row["note"]
    assert rows["0002-chat.md"]["outcome"] != "bound"


def test_an_option_is_named_before_its_dash_link_or_example(repo: Path, run_charter: Run) -> None:
    """A MADR option list item names its option and then says more: after a spaced dash
    ("Plain files – no database at all"), a link ("listed at https://…") or an example
    ("e.g., `[A] Use gradle`", "(e.g., \"# 2. Title\")"). The whole item bound as the
    option's name, so its description, the link's "github" / "com" (kept in the option's
    id) and the example's words matched every commit naming them. And a chosen option
    quoted with the other quotes inside ("Include 'Consulted' of RACI") was cut at the
    inner quote, so the import called it ambiguous."""
    named = (
        "# Record format\n\n## Status\n\nAccepted\n\n## Considered Options\n\n"
        "* Plain files – no database at all\n"
        "* Hosted wiki - see https://wiki.example.org/formats\n"
        "* Other formats listed at https://github.com/example/formats\n"
        "* Assign an identifier to an option, e.g., `[A] Use gradle as build tool`\n"
        '* Number each heading (e.g., "# 2. Use plain files")\n\n'
        '## Decision Outcome\n\nChosen option: "Plain files", because they diff well.\n'
    )
    quoted = (
        "# Roles\n\n## Status\n\nAccepted\n\n## Considered Options\n\n"
        '* Include "Consulted" and "Informed" of RACI\n'
        "* Include all fields of RACI\n"
        '* Include in section "More Information"\n\n'
        "## Decision Outcome\n\n"
        "Chosen option: \"Include 'Consulted' and 'Informed' of RACI\", because it is short.\n"
    )
    folder = _write(repo, {"0001-format.md": named, "0002-roles.md": quoted})
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["0001-format.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Plain files")
    assert row["excluded"] == [
        "Hosted wiki",
        "Other formats listed",
        "Assign an identifier to an option",
        "Number each heading",
    ]
    row = rows["0002-roles.md"]
    assert (row["outcome"], row["answer"]) == (
        "bound",
        'Include "Consulted" and "Informed" of RACI',
    )
    assert row["excluded"] == [
        "Include all fields of RACI",
        'Include in section "More Information"',
    ]
    bound = _bound(run_charter, repo)
    ids = [c["id"] for c in bound["ADR-0001-format"]["choices"]]
    assert not [i for i in ids if "github" in i or "http" in i]


def test_a_decision_that_opens_with_an_option_number_binds_that_option(
    repo: Path, run_charter: Run
) -> None:
    """A Nygard ADR lists numbered options and decides "Option 1 - We will use the
    cluster accounts …": the import called it unreadable ("the Decision section names
    none of the 3 listed options"), though the number names one."""
    text = (
        "# 49. Where user resources live\n\nDate: 2026-06-05\n\n## Status\n\n✅ Accepted\n\n"
        "## Options\n\n"
        "1. Use the team accounts - Fewer accounts, apps sit next to their resources.\n"
        "2. Use a new shared resources account - More overhead, blast radius is large.\n"
        "3. Use new per team resources accounts - Much more overhead, good isolation.\n\n"
        "## Decision\n\n"
        "Option 1 - We will use the team accounts for resources. This balances blast radius"
        " and keeping apps close to their resources.\n"
    )
    folder = _write(repo, {"049-resources.md": text})
    row = _rows(_import(run_charter, repo, str(folder)))["049-resources.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "Use the team accounts")
    assert row["excluded"] == [
        "Use a new shared resources account",
        "Use new per team resources accounts",
    ]


def test_options_that_differ_only_in_a_symbol_are_distinct(repo: Path, run_charter: Run) -> None:
    # "… the character `§`" and "… the character `%`" slug alike, yet are two options:
    # the ADR binds, each option keeps an id of its own, and every rejected one is excluded
    adr = MADR.replace(
        "* PostgreSQL\n* MongoDB\n* DynamoDB\n",
        "* PostgreSQL\n* Mark with the character `§`\n* Mark with the character `%`\n",
    )
    folder = _write(repo, {"0001-use-postgresql.md": adr})
    row = _rows(_import(run_charter, repo, str(folder)))["0001-use-postgresql.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "PostgreSQL"), row
    assert row["excluded"] == ["Mark with the character §", "Mark with the character %"]
    entry = _bound(run_charter, repo)["ADR-0001-use-postgresql"]
    assert entry["user_answer_label"] == "PostgreSQL"
    res = run_charter("decisions", "invariants", "--json", cwd=repo)
    (statement,) = [i["statement"] for i in json.loads(res.stdout)["invariants"]]
    assert "Excluded: Mark with the character §, Mark with the character %" in statement


YAML_RECORD = """number: 4
title: "Redis for player session state"
category: architecture
status: accepted
decision: >
  Keep each player's session state in Redis, keyed by session id, so any game server
  instance can pick up a reconnecting player.
rationale: >
  Instances come and go behind the load balancer.
rejected_alternatives:
  - alternative: "Memcached"
    reason: "No persistence; a restart drops every session"
  - alternative: "In-process cache (sticky sessions)"
    reason: "A crashed instance loses its players"
"""


def test_yaml_decision_records_bind_their_title_over_the_rejected_alternatives(
    repo: Path, run_charter: Run
) -> None:
    """Decision records written as one YAML mapping each (title, decision, rejected
    alternatives) were not read at all: ``--adr`` on their folder listed only its
    README, and importing one without ``--adr`` said "no decisions found". The title
    states the choice taken; the alternatives rejected by name are excluded."""
    chosen = (
        "title: Protobuf over WebSocket\ndecision: Clients speak protobuf frames.\n"
        "chosen_option: Protobuf frames\nalternatives:\n  - JSON text frames\n  - MessagePack\n"
    )
    folder = _write(
        repo,
        {
            "004-redis-session-state.yaml": YAML_RECORD,
            "005-wire-format.yml": chosen,
            "006-matchmaking.yaml": YAML_RECORD.replace("accepted", "proposed"),
            "007-logging.yaml": "title: Structured logs\ndecision: Log JSON lines.\n",
            "settings.yaml": "retention_days: 30\n",
        },
    )
    rows = _rows(_import(run_charter, repo, str(folder)))
    row = rows["004-redis-session-state.yaml"]
    assert (row["outcome"], row["answer"], row["excluded"]) == (
        "bound",
        "Redis for player session state",
        ["Memcached", "In-process cache"],  # the gloss in brackets is no part of the name
    )
    assert f"{row['path']}:{row['line']}" == "docs/adr/004-redis-session-state.yaml:5"
    wire = rows["005-wire-format.yml"]
    assert (wire["outcome"], wire["answer"], wire["excluded"]) == (
        "bound",
        "Protobuf frames",
        ["JSON text frames", "MessagePack"],
    )
    assert "status" in wire["note"]  # none given: naming what it rejected, it is taken
    assert (rows["006-matchmaking.yaml"]["outcome"], rows["006-matchmaking.yaml"]["status"]) == (
        "skipped",
        "proposed",
    )
    assert rows["007-logging.yaml"]["outcome"] == "unreadable"
    assert rows["settings.yaml"]["outcome"] == "skipped"
    assert set(_bound(run_charter, repo)) == {
        "ADR-004-redis-session-state",
        "ADR-005-wire-format",
    }
    res = run_charter(
        "drift", "check", "-", cwd=repo, stdin="I'll move the session store to Memcached."
    )
    assert res.returncode == 1 and "ADR-004-redis-session-state" in res.stdout


def test_a_yaml_decision_record_without_adr_says_how(repo: Path, run_charter: Run) -> None:
    folder = _write(repo, {"004-redis-session-state.yaml": YAML_RECORD})
    res = run_charter("decisions", "import", str(folder / "004-redis-session-state.yaml"), cwd=repo)
    assert res.returncode != 0
    assert "charter decisions import --adr" in res.stderr


def test_a_schema_fields_status_is_not_the_records_and_active_is_in_force(
    repo: Path, run_charter: Run
) -> None:
    """A design record's table schema ("- `status`: string (`pending`, `active`)") was
    read as the record's own status, so it was skipped as "status 'string (pending,
    active)'"; and "**Status:** ✅ Active design" was skipped as not in force."""
    schema = (
        "# Accounts table\n\n## Schema\n\n- **Attributes:**\n"
        "  - `email`: string\n  - `status`: string (`pending`, `active`, `disabled`)\n\n"
    )
    body = NYGARD.split("## Status\n\nAccepted\n", 1)[1]
    active = "# Message broker for domain events\n\n**Status:** ✅ Active design\n\n" + body
    folder = _write(repo, {"0001-accounts.md": schema + body, "0002-broker.md": active})
    rows = _rows(_import(run_charter, repo, str(folder)))
    accounts = rows["0001-accounts.md"]
    assert accounts["outcome"] == "unreadable" and "no Status" in accounts["note"], accounts
    assert (rows["0002-broker.md"]["outcome"], rows["0002-broker.md"]["answer"]) == (
        "bound",
        "RabbitMQ",
    )


EXCLUDE_TITLE = """# Exclude draft invoices from the monthly totals

- Status: accepted

## Considered Options

- **Filter on the status field**: every query must remember it.
- **A separate drafts table**: drafts never reach the totals.

## Decision Outcome

Chosen option: "A separate drafts table", because the totals cannot see them.
"""


def test_an_adr_titled_as_an_exclusion_binds_its_chosen_option_as_the_choice(
    repo: Path, run_charter: Run
) -> None:
    # "Exclude X from Y" states what was decided; it does not ask what is out of scope.
    # Read as an exclusion question, the chosen option was stored as the excluded item
    # and every text following the ADR was flagged as reintroducing it.
    folder = _write(repo, {"0004-exclude-drafts.md": EXCLUDE_TITLE})
    row = _rows(_import(run_charter, repo, str(folder)))["0004-exclude-drafts.md"]
    assert (row["outcome"], row["answer"]) == ("bound", "A separate drafts table")
    entry = _bound(run_charter, repo)["ADR-0004-exclude-drafts"]
    assert entry["binding_reason"] == "must_answered"

    res = run_charter("decisions", "invariants", "--json", cwd=repo)
    (inv,) = json.loads(res.stdout)["invariants"]
    assert "Excluded: Filter on the status field" in inv["statement"]
    assert "Excluded: A separate drafts table" not in inv["statement"]

    follows = "I moved the draft invoices into the separate drafts table."
    res = run_charter("drift", "check", "-", "--no-semantic", cwd=repo, stdin=follows)
    assert res.returncode == 0, res.stdout
    # a second import changes nothing (the stored form is the one it writes)
    again = _rows(_import(run_charter, repo, str(folder)))["0004-exclude-drafts.md"]
    assert again["outcome"] == "unchanged"


BOLD_CHOSEN = """# Move the plugin sources to their own repository

- Status: accepted

## Considered Options

- Keep the plugin sources in-tree and maintain one build file per plugin release.
- Move the plugin sources to a separate repository with release branches frozen at
  each published build, and a main branch for current work.

## Decision Outcome

Chosen option: **separate repository with release branches**, hosted at
<https://example.org/plugins>. This repository keeps the loader and the published
artefacts.
"""


def test_a_bold_chosen_option_naming_part_of_one_option_binds_it(
    repo: Path, run_charter: Run
) -> None:
    # the bold words are the choice (the rest of the line says where and what stays);
    # they name one option by a phrase of its own words, not by its first words
    folder = _write(repo, {"0009-plugin-repo.md": BOLD_CHOSEN})
    row = _rows(_import(run_charter, repo, str(folder)))["0009-plugin-repo.md"]
    assert row["outcome"] == "bound", row["note"]
    assert row["answer"].startswith("Move the plugin sources to a separate repository")
    assert row["excluded"][0].startswith("Keep the plugin sources in-tree")


def test_unreadable_adrs_end_with_how_to_bind_them(repo: Path, run_charter: Run) -> None:
    # a folder of Nygard records that name one choice each in prose read as rows of
    # "unreadable" and "bound 0"; the user is told what binds one
    folder = _write(repo, {"0010-errors.md": NO_OPTION, "0001-use-postgresql.md": MADR})
    res = run_charter("decisions", "import", "--adr", str(folder), cwd=repo)
    assert res.returncode == 0, res.stderr
    tail = " ".join(res.stdout.split()[-60:])
    assert "Considered Options" in tail and "charter decisions add" in tail
    # nothing to say when every ADR was read
    again = _write(repo / "other", {"0001-use-postgresql.md": MADR})
    res = run_charter("decisions", "import", "--adr", str(again), "--dry-run", cwd=repo)
    assert "charter decisions add" not in res.stdout


def test_an_adr_listing_only_the_alternatives_it_rejected_binds_its_title_when_asked(
    repo: Path, run_charter: Run
) -> None:
    """Nygard ADRs state the choice in the title and the Decision's prose and list only the
    alternatives they turned down, each marked ("### mattn/go-sqlite3" over "- **Rejected**:
    …", "**Keep the PVC** — rejected: …", a "## Rejected alternatives" section). Every one
    was "unreadable" with a note that did not say what it had read. By default it still
    binds nothing (the title is a reading, and a folder of them in a project's everyday
    words floods drift), but the note names what it rejected and ``--titles`` binds the
    title as the choice taken, as a YAML record's is; only what is marked rejected is
    excluded, and a Decision that names a rejected alternative no longer makes it the
    choice."""
    by_heading = """# ADR-001: Pure Go SQLite Driver

**Status:** Accepted

## Context

Two drivers exist: a cgo binding of the C library, and a pure Go port.

## Decision

Use `modernc.org/sqlite` as the SQLite driver.

## Alternatives Considered

### mattn/go-sqlite3
- Faster writes (native C)
- Requires CGO and a C compiler
- **Rejected**: Build complexity outweighs performance benefits

### Deferred: a key-value store
- Revisit when presets outgrow one table
"""
    by_list = """# 12. Grafana runs stateless

## Status

Accepted

## Decision

Dashboards come from code; Grafana keeps no volume. We rejected `Keep the PVC` below.

## Alternatives considered

- **Keep the PVC** — rejected: state drifts from the dashboards in git.
- **External database for Grafana now** — deferred until alerting needs it.
- **Nightly volume backups**. Restores are never tested. Rejected.
"""
    by_section = """# ADR 0053: Inert control guard

## Status

Accepted

## Decision

The worker records an `inert` signal and the desktop excludes inert controls.

## Alternatives rejected

- Treating inert as hidden would remove useful operator review context.
- Treating inert as disabled would blur different recovery behavior.
- The legacy visibility probe (ADR 0041): it misses inherited state.
"""
    # the Decision names two listed options, one of them marked rejected: the other one
    # is the choice taken, bound as any listed option is (no --titles needed)
    one_left = """# Wiki platform

## Status

Accepted

## Decision Outcome

We use **GitBook**: as easy to edit as Confluence, and synced with the repository.

## Options Considered

- **Confluence** — rejected: content leaves version control.
- **GitBook**
- **Notion** — rejected: no review before publishing.
"""
    handles = """# 5. Retries

## Status

Accepted

## Decision

Failed deliveries go to a dead-letter queue after three attempts.

## Alternatives Considered

- **Drop rejected messages**: rejected messages are lost for good.
- **Retry forever**: blocks the partition.
"""
    cons = """# 31. Frontend interactions

## Status

Accepted

## Considered Options

### 1. React
**❌ Cons:**
- Requires JSON APIs

### 2. htmx and Alpine.js
**❌ Cons:**
- Two libraries

## Decision

Adopt the lighter option for server-rendered pages.
"""
    folder = _write(
        repo,
        {
            "001-sqlite-pure-go.md": by_heading,
            "0012-grafana-stateless.md": by_list,
            "0053-inert-guard.md": by_section,
            "0060-wiki.md": one_left,
            "0005-retries.md": handles,
            "0031-frontend.md": cons,
        },
    )
    rows = _rows(_import(run_charter, repo, str(folder), "--dry-run"))
    sqlite = rows["001-sqlite-pure-go.md"]
    assert sqlite["outcome"] == "unreadable"
    assert "mattn/go-sqlite3" in sqlite["note"] and "--titles" in sqlite["note"]
    # before: "the Decision section names none of the listed options" bound it as the
    # choice, so drift flagged the stateless Grafana it decided on
    assert rows["0012-grafana-stateless.md"]["outcome"] == "unreadable"
    wiki = rows["0060-wiki.md"]
    assert (wiki["outcome"], wiki["answer"], wiki["excluded"]) == (
        "would bind",
        "GitBook",
        ["Confluence", "Notion"],
    )
    # "rejected" as a word of what an option handles, and a cross over its drawbacks,
    # mark nothing
    assert rows["0005-retries.md"]["outcome"] == "unreadable"
    assert rows["0031-frontend.md"]["outcome"] == "unreadable"

    rows = _rows(_import(run_charter, repo, str(folder), "--titles"))
    sqlite = rows["001-sqlite-pure-go.md"]
    assert (sqlite["outcome"], sqlite["answer"], sqlite["excluded"]) == (
        "bound",
        "Pure Go SQLite Driver",
        ["mattn/go-sqlite3"],  # the deferred heading is not marked rejected
    )
    assert "title" in sqlite["note"]
    assert f"{sqlite['path']}:{sqlite['line']}" == "docs/adr/001-sqlite-pure-go.md:9"
    grafana = rows["0012-grafana-stateless.md"]
    assert (grafana["outcome"], grafana["answer"], grafana["excluded"]) == (
        "bound",
        "Grafana runs stateless",
        ["Keep the PVC", "Nightly volume backups"],
    )
    inert = rows["0053-inert-guard.md"]
    assert inert["excluded"] == [  # named up to the sentence's verb, without a reference
        "Treating inert as hidden",
        "Treating inert as disabled",
        "The legacy visibility probe",
    ]
    assert rows["0005-retries.md"]["outcome"] == "unreadable"
    assert rows["0031-frontend.md"]["outcome"] == "unreadable"

    def drift(text: str) -> subprocess.CompletedProcess[str]:
        return run_charter("drift", "check", "-", "--no-semantic", cwd=repo, stdin=text)

    res = drift("Switch the storage layer to mattn/go-sqlite3 for faster writes.")
    assert res.returncode == 1 and "ADR-001-sqlite-pure-go" in res.stdout
    assert drift("Bump modernc.org/sqlite to v1.49.1 and keep CGO_ENABLED=0.").returncode == 0
    assert drift("Document why we do not use mattn/go-sqlite3.").returncode == 0


CHAPTER = """# 9. Architecture Decisions

The decisions that shaped the toolkit, each with its context, decision and consequences.

## ADR-001: Protobuf Schemas for All Messages

**Status**: Accepted

**Context**:
Messages cross process boundaries and must evolve compatibly.

**Decision**:
Define every message in a `.proto` schema and generate the classes.

**Consequences**:
- **Positive**:
  - One contract per message
- **Negative**:
  - A generation step in the build

## ADR-002: Guice Injection Instead of Dagger or Pico

**Status**: Accepted

**Context**:
Modules need their collaborators wired. Common options are Dagger and Pico.

**Decision**:
Use Guice modules to wire every service.

**Consequences**:
- **Positive**:
  - Plain Java modules
- **Negative**:
  - Reflection at startup

## ADR-003: Redis Cache

**Status**: Superseded

**Decision**:
Cache sessions in Redis.

## ADR-004: Event Store Layout

| Property | Value |
| :--- | :--- |
| **Date** | 2026-04-03 |
| **Status** | Deferred |

### Decision (sketched, not yet ratified)

One stream per aggregate.

## ADR-005: Metrics Namespace

**Status:** Accepted

**Decision.**
Prefix every metric with the service name.

## ADR-006: Audit Log Retention

| Property | Value |
| :--- | :--- |
| **Status** | Accepted |

### Decision

Keep audit logs for one year.

## Decision Process

**ADR Template**:
```markdown
## ADR-XXX: [Title]

**Status**: [Proposed | Accepted]

**Decision**:
[What was decided?]
```
"""


#: a chapter record's id: its number and its words (the words give the invariant a topic)
GUICE = "ADR-002-guice-injection-instead-of-dagger-or-pico"


def test_a_chapter_of_records_is_read_record_by_record(repo: Path, run_charter: Run) -> None:
    """An arc42 "Architecture Decisions" chapter keeps every record in one file: one
    ``## ADR-001: …`` section each, its fields written as bold labels alone on their line
    (``**Decision**:``). The whole file was one record, with the first record's status and
    "no 'Decision' or 'Decision Outcome' section" although every record has one. Each
    section is now a record of its own (its own status, also from a property table's
    ``| **Status** | Deferred |`` row, id and line; ``**Decision.**`` as well as
    ``**Decision**:`` is a field label); one whose title names
    the alternatives it turned down ("X Instead of Y or Z") binds them as excluded with
    ``--titles``, and the template in a code fence is no record."""
    folder = _write(repo, {"09_architecture_decisions.md": CHAPTER})
    chapter = folder / "09_architecture_decisions.md"
    rows = _import(run_charter, repo, str(chapter), "--dry-run")["adrs"]
    lines = chapter.read_text().split("\n")
    decisions = [
        n + 1 for n, line in enumerate(lines) if line in ("**Decision**:", "**Decision.**")
    ]
    decisions.append(lines.index("Keep audit logs for one year.") - 1)
    assert [(r["outcome"], r["line"]) for r in rows] == [
        ("unreadable", decisions[0]),
        ("unreadable", decisions[1]),
        ("skipped", lines.index("## ADR-003: Redis Cache") + 1),
        ("skipped", lines.index("## ADR-004: Event Store Layout") + 1),
        ("unreadable", decisions[3]),
        ("unreadable", decisions[-1]),
    ]
    assert "Considered Options" in rows[0]["note"]
    assert "Dagger, Pico" in rows[1]["note"] and "--titles" in rows[1]["note"]
    assert "Superseded" in rows[2]["note"]
    # a property table's status row; a bold "**Decision.**" label
    assert "Deferred" in rows[3]["note"]
    assert all("Considered Options" in r["note"] for r in rows[4:])

    out = _import(run_charter, repo, str(chapter), "--titles")
    bound = [r for r in out["adrs"] if r["outcome"] == "bound"]
    assert [(r["id"], r["answer"], r["excluded"]) for r in bound] == [
        (GUICE, "Guice Injection", ["Dagger", "Pico"])
    ]
    entry = _bound(run_charter, repo)[GUICE]
    assert entry["text"] == "Guice Injection Instead of Dagger or Pico"
    # a commit reintroducing a turned-down alternative is drift; one using the choice is not
    res = run_charter(
        "drift", "check", "-", "--json", cwd=repo, stdin="Wire the billing services with Dagger."
    )
    found = json.loads(res.stdout)
    assert found["verdict"] == "fail", res.stdout
    assert "Guice injection instead of dagger or pico:" in found["findings"][0]["message"]
    res = run_charter(
        "drift", "check", "-", "--json", cwd=repo, stdin="Bind the mailer in a Guice module."
    )
    assert json.loads(res.stdout)["verdict"] == "pass", res.stdout
    # the record superseded later is reported for revoking under its own id
    text = chapter.read_text()
    head = text.index("## ADR-002")
    chapter.write_text(
        text[:head] + text[head:].replace("Accepted", "Superseded by ADR-007", 1), "utf-8"
    )
    out = _import(run_charter, repo, str(chapter), "--titles")
    assert GUICE in out["retired"], out["retired"]


def test_a_folder_of_rfcs_says_what_would_bind_one(repo: Path, run_charter: Run) -> None:
    """An ``rfcs/`` folder (a proposal and its alternatives per file, no status: merged
    means accepted) read as rows of "skipped" and "bound 0", and nothing said what binds
    one. The summary now says how to record a decision one of them took."""
    rfc = """# RFC 1234 - 2026-01-05 - Config Reload API

One paragraph description of the change.

## Proposal

Reload the configuration through an HTTP endpoint.

## Alternatives

### Reload on SIGHUP only

Signals are not available on every platform.
"""
    folder = repo / "rfcs"
    folder.mkdir()
    (folder / "2026-01-05-1234-reload-api.md").write_text(rfc, encoding="utf-8")
    res = run_charter("decisions", "import", "--adr", str(folder), "--dry-run", cwd=repo)
    assert res.returncode == 0, res.stderr
    tail = " ".join(res.stdout.split())
    assert "1 skipped; would bind 0" in tail
    assert "state no status and no decision" in tail and "charter decisions add" in tail
    # said only when nothing else was: a folder that binds says nothing of the kind
    (folder / "0001-use-postgresql.md").write_text(MADR, encoding="utf-8")
    res = run_charter("decisions", "import", "--adr", str(folder), "--dry-run", cwd=repo)
    assert "state no status and no decision" not in " ".join(res.stdout.split())


def test_a_decision_written_inline_after_its_bold_label_is_the_decision(tmp_path: Path) -> None:
    """Compact ADRs and decision logs write each field on one line: "**Decision:** We will
    use **PydanticAI**.", "*   **Decision:** Use a Monorepo with **NPM Workspaces**.".
    Only a bold label alone on its line was read as a field, so such records had "no
    'Decision' or 'Decision Outcome' section" and a log of them was one record. The text
    after the label is now read as a Decision section, cited at the label's line, every
    later line keeping its number. On 9 records of 4 public files, labelled before: 1 → 9
    found at their line."""
    from charter.decisions.adr import read_adr_records

    adr = tmp_path / "0007-package-manager.md"
    adr.write_text(
        "# ADR-0007: Package manager\n\n**Status**: Accepted\n\n## Considered Options\n\n"
        "- npm\n- pnpm\n- yarn\n\n"
        "**Decision**: Use pnpm, because its store saves disk space.\n"
        "**Consequences**: CI caches the store.\n"
    )
    (one,) = read_adr_records(adr)
    assert (one.outcome, one.answer, one.line) == ("accepted", "pnpm", 11)

    log = tmp_path / "decisions.md"
    log.write_text(
        "# Architecture Decision Log\n\n"
        "## [ADR-003] Cloudflare Ecosystem\n"
        "*   **Status:** Accepted\n"
        "*   **Decision:** Use Cloudflare Durable Objects.\n"
        "*   **Consequences:**\n    *   Minimal DevOps.\n\n"
        "## [ADR-004] Monorepo Structure\n"
        "*   **Status:** Accepted\n"
        "*   **Context:** The client and server must share schemas.\n"
        "*   **Decision:** Use a Monorepo with **NPM Workspaces**.\n"
    )
    records = read_adr_records(log)
    assert [r.line for r in records] == [5, 12]
    assert all("Considered Options" in r.note for r in records)  # found; nothing to bind
    # a status stays a line of its own: a proposal is still skipped as one
    proposal = tmp_path / "0001-topology.md"
    proposal.write_text(
        "# ADR-001: Topology\n\n**Status:** Proposed\n\n"
        "**Context:** One node.\n**Decision:** We will use 1 VM.\n"
    )
    assert [(r.outcome, r.status) for r in read_adr_records(proposal)] == [("skipped", "proposed")]
