"""Retrieval with the real embedding model: relevance, filters, contradictions, budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from charter.config import Project
from charter.embed.registry import rules_embedder_for
from charter.rules.api import task_context
from charter.rules.compiler import compile_rules
from charter.rules.intent import classify
from charter.rules.render import citations
from charter.rules.retrieve import Retriever, Shard, task_head, task_views
from charter.tokens import count_tokens
from tests.conftest import shards_by_setting, write

RULES = """# Rules

## Database

- Every schema change needs a reversible Alembic migration.
- Add an index for each foreign key column.

## Frontend

- All user-visible strings must go through the i18n `t()` helper.
- Use CSS variables for spacing, never raw px values.

## Testing

- Mock external HTTP calls in unit tests with respx.
- Name test files `test_<module>.py`.

## Deployment

- Deploy to production only from the main branch via the release pipeline.
"""


def _retriever(root: Path) -> Retriever:
    project = Project.load(root)
    compiled = compile_rules(project)
    return Retriever(compiled, project.settings.rules, rules_embedder_for(project.settings))


def test_relevant_rules_rank_first(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    r = _retriever(repo)
    result = r.retrieve("Add a new column to the invoices table", top=2)
    texts = " ".join(s.rule.text for s in result.shards)
    assert "migration" in texts
    result = r.retrieve("Translate the labels on the settings page", top=1)
    assert "i18n" in result.shards[0].rule.text
    assert result.shards[0].reasons


def test_scope_filter_uses_named_files(repo: Path) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Keep handlers thin and delegate to services.\n")
    write(repo, "web/AGENTS.md", "# Web\n\n- Keep React components thin and use hooks.\n")
    r = _retriever(repo)
    scoped = "Keep React components thin and use hooks."
    backend = r.retrieve("keep things thin", ["api/handlers.py"], top=5)
    assert scoped not in [s.rule.text for s in backend.shards]
    web = r.retrieve("keep things thin", ["web/src/App.tsx"], top=5)
    assert scoped in [s.rule.text for s in web.shards]
    unnamed = r.retrieve("keep things thin", top=5)
    assert scoped in [s.rule.text for s in unnamed.shards]


def test_contradiction_keeps_higher_priority_whatever_the_order(repo: Path) -> None:
    write(
        repo,
        "CLAUDE.md",
        "# Rules\n\n## Logging\n\n"
        "- Always use f-strings in log calls. priority:40\n"
        "- Never use f-strings in log calls. priority:90\n",
    )
    r = _retriever(repo)
    for task in ("always use f-strings in log calls", "never use f-strings in log calls"):
        result = r.retrieve(task, top=5)
        kept = [s.rule.text for s in result.shards]
        assert kept == ["Never use f-strings in log calls."], task
        assert len(result.dropped) == 1 and "contradicts" in result.dropped[0]["reason"]


def test_budget_limits_policy_tokens(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    project = Project.load(repo)
    small = task_context(project, "write tests for the database layer", budget=30)
    large = task_context(project, "write tests for the database layer", budget=400)
    assert len(small["shards"]) < len(large["shards"])
    assert small["tokens"] <= large["tokens"]
    cited = citations(large["policy_text"])
    for shard in large["shards"]:
        src = shard["rule"]["source"]
        assert f"{src['path']}:L{src['line_start']}-L{src['line_end']}" in cited


def test_intent_classification() -> None:
    assert classify("Fix the crash when saving an invoice").name == "bug-fix"
    assert classify("Write unit tests for the parser").name == "testing"
    assert classify("Refactor the billing module").name == "refactor"
    assert classify("Deploy the release to production").name == "deployment"
    assert classify("Sanitize input to prevent XSS").name == "security"
    general = classify("hello there")
    assert general.name == "general" and general.confidence == 0.0
    assert 0 < classify("Fix the failing test").confidence <= 1


def test_real_model_is_semantic(repo: Path) -> None:
    project = Project.load(repo)
    emb = rules_embedder_for(project.settings)
    assert emb.name.startswith("charter-rules-minilm")
    v = emb.embed(["fix the login bug", "authentication problem at sign in", "kubernetes helm"])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)


def test_rules_sharing_a_topic_are_not_contradictions(repo: Path) -> None:
    write(
        repo,
        "CLAUDE.md",
        "# Rules\n\n## Strings\n\n"
        "- All strings visible to the user need to be externalized using the nls module.\n"
        "- Externalized strings must not use string concatenation; use placeholders.\n",
    )
    r = _retriever(repo)
    result = r.retrieve("show a localized notification with a count", top=5)
    assert len(result.shards) == 2 and result.dropped == []


def test_shard_contradicting_the_constitution_is_dropped(repo: Path) -> None:
    """Constitution vectors are embedded on demand; the conflict is still caught."""
    write(
        repo,
        "CLAUDE.md",
        "# Rules\n\n## Security\n\n- Never log request bodies in API handlers.\n\n"
        "## Logging\n\n- Always log request bodies in API handlers.\n"
        "- Use structured logging with a request id.\n",
    )
    project = Project.load(repo)
    compiled = compile_rules(project)
    const_id = compiled.constitution.rule_ids[0]
    row = [r.id for r in compiled.rules].index(const_id)
    assert not compiled.vectors[row].any()  # deferred at compile time
    r = Retriever(compiled, project.settings.rules, rules_embedder_for(project.settings))
    result = r.retrieve("log request bodies in the API handlers", top=5)
    texts = [s.rule.text for s in result.shards]
    assert "Always log request bodies in API handlers." not in texts
    assert any(const_id in d["reason"] for d in result.dropped)
    assert r.vector(compiled.rules[row]).any()


def test_domain_boost_lifts_rules_sharing_the_tasks_domain(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    task = "add fixtures for the flaky parser tests"
    off, on = shards_by_setting(repo, task, "domain_boost", (0.0, 0.04), top=50)
    mock_rule = "Mock external HTTP calls in unit tests with respx."
    deploy_rule = "Deploy to production only from the main branch via the release pipeline."
    assert abs(on[mock_rule].score - off[mock_rule].score - 0.04) < 1e-5
    assert any(r.startswith("domain testing") for r in on[mock_rule].reasons)
    assert abs(on[deploy_rule].score - off[deploy_rule].score) < 1e-5


def test_lexical_stems_meet_across_plural_and_singular() -> None:
    from charter.rules.lexical import tokenize

    pairs = [
        ("dataclass", "dataclasses"),
        ("class", "classes"),
        ("cache", "caches"),
        ("cache", "caching"),
        ("process", "processes"),
        ("rule", "rules"),
    ]
    for a, b in pairs:
        assert tokenize(a) == tokenize(b), (a, b)
    assert tokenize("status") == ["status"]


PROCEDURE = """# Rules

## Adding an endpoint

1. Define the request and response types in the shared api-types package.
2. Implement the service logic in the backend module.
3. Add the REST controller and register its route.
4. Update the settings page in the web app to call the endpoint.

## UI labels

- Use title-style capitalization for command labels and menu items.
- Don't capitalize prepositions of four or fewer letters.

## Other

""" + "".join(
    f"- Keep module {name} free of circular imports with its neighbours.\n"
    for name in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
)


def _procedure_retriever(repo: Path) -> tuple[Retriever, dict[str, int]]:
    """A retriever over :data:`PROCEDURE`, and each candidate rule's position by text."""
    write(repo, "CLAUDE.md", PROCEDURE)
    project = Project.load(repo)
    r = Retriever(
        compile_rules(project), project.settings.rules, rules_embedder_for(project.settings)
    )
    return r, {rule.text: p for p, rule in enumerate(r.rules[i] for i in r.candidates)}


def test_procedures_and_small_sections_are_completed(repo: Path) -> None:
    r, pos = _procedure_retriever(repo)
    steps = [t for t in pos if r.rules[r.candidates[pos[t]]].kind == "step"]
    fillers = [t for t in pos if "circular imports" in t][:5]

    def make(p: int) -> Shard:
        return Shard(r.rules[r.candidates[p]], 0.1, [])

    ranked = steps[1:] + fillers  # three of four steps, then unrelated rules
    chosen = [Shard(make(pos[t]).rule, 0.9 - i / 20, []) for i, t in enumerate(ranked)]
    budget = r.cost_of(chosen, tiered=True)  # as shown: the best whole, the rest brief
    allowed = np.ones(len(r.candidates), dtype=bool)
    done = r._complete_groups(chosen, make, allowed, budget)
    texts = [sh.rule.text for sh in done]
    assert set(steps) <= set(texts)
    assert fillers[-1] not in texts  # the lowest-scored shard made room
    assert r.cost_of(done, tiered=True) <= budget
    assert any("completes a numbered procedure" in sh.reasons for sh in done)

    off = r.settings.model_copy(update={"complete_procedures": False, "complete_sections_up_to": 0})
    r_off = Retriever(r.compiled, off, r.embedder)
    same = r_off._complete_groups(list(chosen), make, allowed, budget)
    assert [sh.rule.text for sh in same] == [sh.rule.text for sh in chosen]

    label = "Use title-style capitalization for command labels and menu items."
    one = [Shard(make(pos[label]).rule, 0.9, [])]
    labels = [sh.rule.text for sh in r._complete_groups(one, make, allowed, 10_000)]
    assert "Don't capitalize prepositions of four or fewer letters." in labels


def test_security_heavy_small_file_stays_within_the_budget(repo: Path) -> None:
    """The automatic constitution cap scales with the budget, so a ~1k-token file whose
    security section alone is a third of it still gets about a quarter of its tokens."""
    lines = ["# Rules", "", "## Security", ""]
    lines += [
        f"- Never expose internal identifiers or secrets in errors of public endpoint {i}; "
        "log the details server-side instead."
        for i in range(14)
    ]
    lines += ["", "## Conventions", ""]
    lines += [
        f"- Keep module {i} small, focused and covered by tests; follow its existing patterns."
        for i in range(30)
    ]
    write(repo, "CLAUDE.md", "\n".join(lines) + "\n")
    project = Project.load(repo)
    result = task_context(project, "add a feature flag for the new caching layer")
    whole = count_tokens((repo / "CLAUDE.md").read_text())
    assert result["constitution"]["truncated"]
    assert result["tokens"] <= 0.26 * whole


def test_tiny_file_floor_and_strict_cap(repo: Path) -> None:
    """On a file of a few hundred tokens a quarter is two or three rules: the shard floor
    (default 100 tokens) shows more; ``budget_min_shard_tokens = 0`` makes the quarter a
    strict cap."""
    lines = ["# Rules", "", "## Commands", "", "```bash"]
    lines += [f"make target-{i}  # builds part {i} of the project" for i in range(6)]
    lines += ["```", "", "## Style", ""]
    lines += [f"- Keep helper {i} pure; no I/O inside it." for i in range(5)]
    write(repo, "CLAUDE.md", "\n".join(lines) + "\n")
    whole = count_tokens((repo / "CLAUDE.md").read_text())
    assert whole < 400  # a quarter of it is under the floor
    task = "build part 3 and keep the helpers pure"
    floor = task_context(Project.load(repo), task)
    assert floor["tokens"] > 0.25 * whole and len(floor["shards"]) >= 4
    write(repo, "charter.toml", "[rules]\nbudget_min_shard_tokens = 0\n")
    strict = task_context(Project.load(repo), task)
    assert strict["shards"] and strict["tokens"] <= 0.25 * whole


def test_content_free_prompts_get_no_rules_and_tasks_still_do(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    r = _retriever(repo)
    for reply in ("yes", "OK, go ahead!", "try again please", "Thanks — looks good."):
        result = r.retrieve(reply)
        assert result.gated and result.shards == [], reply
        assert result.to_dict()["gated"] is True
        assert result.dropped[0]["reason"].startswith("no task")
    for task in (
        "Add a column to invoices",
        "Deploy the hotfix",
        "continue with the migration",
        "再试一下",
    ):
        result = r.retrieve(task)
        assert not result.gated and result.shards, task
    r.settings.content_gate = False
    assert r.retrieve("yes").shards  # the gate is what empties the list


def test_content_words_drop_only_conversational_filler() -> None:
    from charter.rules.gate import CONTENT_FREE, content_words
    from charter.rules.lexical import tokenize

    filler = frozenset(w for r in CONTENT_FREE for w in tokenize(r))
    assert content_words(tokenize("yes, please continue"), filler) == []
    assert content_words(tokenize("yes, and rename the invoice table"), filler) == tokenize(
        "rename invoice table"
    )


def test_task_views_split_compound_tasks_only() -> None:
    assert task_views("Fix the typo") == []
    assert task_views("Add a column to the invoices table") == []
    assert task_views(
        "Add a column to the invoices table, and translate the settings page labels"
    ) == ["Add a column to the invoices table", "translate the settings page labels"]
    # fragments under three words are not asks of their own
    assert task_views("Add title, body and date fields to the post form") == []


def test_each_ask_of_a_compound_task_finds_its_rules(repo: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    project = Project.load(repo)
    compiled = compile_rules(project)
    embedder = rules_embedder_for(project.settings)
    task = (
        "Refactor the invoice PDF layout and its page header and footer styles, "
        "and make sure the new strings are translatable"
    )
    on = Retriever(compiled, project.settings.rules, embedder).retrieve(task, top=3)
    off_settings = project.settings.rules.model_copy(update={"clause_views": 0.0})
    off = Retriever(compiled, off_settings, embedder).retrieve(task, top=3)
    assert "i18n" in on.shards[0].rule.text
    # the ask about strings is matched on its own, not diluted by the layout work (the
    # general model lost 0.05 of the score to the dilution; the rules model, which reads
    # the whole task better, still gains from the view)
    assert on.shards[0].score > off.shards[0].score


def test_task_head_is_the_ask_before_its_topic() -> None:
    assert task_head("Write the design doc for moving the link state into the store") == (
        "Write the design doc"
    )
    assert task_head("Review the pull request that adds sound options to alerts") == (
        "Review the pull request"
    )
    # too short a head, or too short a topic, is no split
    assert task_head("Fix it for the admin users in staging") is None
    assert task_head("Add a retry button to the page") is None
    assert task_head("Rename the settings module") is None


def test_the_head_lifts_a_rule_about_the_kind_of_work(repo: Path) -> None:
    # a rule about how prose is written names the work ("design docs"), not the topic;
    # the whole task's embedding leans to the topic's words
    text = RULES + (
        "\n## Writing\n\n- Design docs and notes are plain and factual: state the why in "
        "one line.\n"
    )
    write(repo, "CLAUDE.md", text)
    task = "Write a design doc for moving the deploy pipeline to blue-green releases"
    assert task_head(task) == "Write a design doc"
    on, off = shards_by_setting(repo, task, "head_view", (0.5, 0.0))
    rule = next(text for text in on if "plain and factual" in text)
    assert on[rule].score > off[rule].score


def test_a_rule_the_file_repeats_is_shown_once(repo: Path) -> None:
    repeated = "- Run `make check` before every commit.\n"
    text = RULES.replace("## Testing\n\n", "## Testing\n\n" + repeated)
    text += "\n## Commands\n\n" + repeated
    write(repo, "CLAUDE.md", text)
    r = _retriever(repo)
    both = [x for x in r.rules if "make check" in x.text]
    assert len(both) == 2  # two rules, two citations
    result = r.retrieve("run the checks before I commit the test changes", top=5)
    shown = [s.rule for s in result.shards if "make check" in s.rule.text]
    assert len(shown) == 1


LEAD_IN = """# Rules

## Database

- Keep transactions short; never hold a row lock across a network call.
- Every new table gets a tenant_id column and a row-level security policy.

To add a migration:

1. Generate the revision with alembic autogenerate and a message saying what changes.
2. Delete unrelated diffs that autogenerate picked up from the generated file.
3. Run the upgrade, downgrade, upgrade round trip locally.

## Frontend

- Use CSS variables for spacing, never raw px values.
"""


def test_a_lead_in_is_never_shown_without_its_items(repo: Path) -> None:
    """ "To add a migration:" alone says nothing: when it ranks but none of its steps
    make the cut, it is left out and the next rule takes its place."""
    write(repo, "CLAUDE.md", LEAD_IN)
    r = _retriever(repo)
    lead = next(rule for rule in r.compiled.rules if rule.text == "To add a migration:")
    task = "To add a migration"
    for top in (1, 2, 3, 4):
        result = r.retrieve(task, top=top)
        ids = {sh.rule.id for sh in result.shards}
        assert len(result.shards) == top
        if lead.id in ids:  # never alone: at least one of its steps came with it
            assert any(sh.rule.kind == "step" for sh in result.shards), top
    one = r.retrieve(task, top=1)
    assert one.shards[0].rule.id != lead.id
    assert {"rule_id": lead.id, "reason": "a lead-in without its items"} in one.dropped


def test_a_budget_shows_the_best_rules_whole_and_the_rest_brief(repo: Path) -> None:
    """Below a task's best ``full_rules`` the policy shows each rule's brief line (cut at
    ``brief_rule_tokens``, cited): the best rules keep every clause and the budget reaches
    more rules. ``brief_rule_tokens = max_rule_tokens`` shows every rule alike."""
    lines = ["# Rules", "", "## Billing", ""]
    lines += [
        f"- Invoice rule {i}: amounts are integer cents in the billing service, rounding "
        f"happens once at the end, and the ledger entry {i} is written in the same "
        "transaction as the invoice row it describes."
        for i in range(40)
    ]
    write(repo, "CLAUDE.md", "\n".join(lines) + "\n")
    task = "Fix rounding of invoice amounts in the billing ledger"
    budget = 400

    def shown_lines(policy: str, shards: list[Shard]) -> dict[str, str]:
        rows = policy.splitlines()
        return {
            sh.rule.id: next(x for x in rows if x.endswith(f"(L{sh.rule.source.line_start})"))
            for sh in shards
        }

    r = _retriever(repo)
    tiered = r.retrieve(task, budget=budget)
    best = sorted(tiered.shards, key=lambda sh: -sh.score)
    whole = {sh.rule.id for sh in best[: r.settings.full_rules]}
    assert len(whole) == 3
    for rid, line in shown_lines(tiered.policy_text, tiered.shards).items():
        assert line == (r.lines[rid] if rid in whole else r.brief_lines[rid])
        assert rid in whole or len(line) < len(r.lines[rid])
    assert count_tokens(tiered.policy_text) <= budget + r.header_tokens
    assert len(citations(tiered.policy_text)) == len(tiered.shards)

    write(repo, "charter.toml", "[rules]\nbrief_rule_tokens = 28\n")
    alike = _retriever(repo).retrieve(task, budget=budget)
    for rid, line in shown_lines(alike.policy_text, alike.shards).items():
        assert line == r.lines[rid]
    assert len(tiered.shards) > len(alike.shards)


def test_a_small_files_budget_cuts_its_brief_lines_shorter_to_reach_more_rules(
    repo: Path,
) -> None:
    """A small rule file's quarter held three or four rules of 20-28 tokens, so a task that
    needs five of its rules got three. Its brief lines are cut shorter (down to
    ``brief_floor_tokens``) so the budget reaches ``brief_min_rules`` of them, its best
    rule still whole; ``brief_min_rules = 0`` keeps the old lines."""
    lines = ["# Billing", ""]
    lines += [
        f"- Invoice rule {i}: amounts are integer cents in the billing service, rounding "
        f"happens once at the end, and ledger entry {i} is written with its invoice row."
        for i in range(14)
    ]
    write(repo, "CLAUDE.md", "\n".join(lines) + "\n")
    task = "Fix rounding of invoice amounts in the billing ledger"

    write(repo, "charter.toml", "[rules]\nbrief_min_rules = 0\n")
    before = _retriever(repo)
    old = before.retrieve(task)
    write(repo, "charter.toml", "")
    r = _retriever(repo)
    new = r.retrieve(task)

    budget = r.default_budget()
    assert budget < 200  # a small file: a quarter of 14 rules
    assert len(new.shards) > len(old.shards) + 2
    assert count_tokens(new.policy_text) <= max(budget, r.settings.budget_min_shard_tokens) + (
        r.header_tokens
    )
    assert len(citations(new.policy_text)) == len(new.shards)
    whole = r.full_ids(new.shards)
    assert len(whole) == 1
    for sh in new.shards:
        shown = r.line(sh.rule.id, whole)
        if sh.rule.id in whole:
            assert shown == r.lines[sh.rule.id]
        else:
            assert shown.endswith(f"… (L{sh.rule.source.line_start})")
            assert count_tokens(shown) < count_tokens(before.line(sh.rule.id, set()))


def test_a_brief_line_keeps_the_sentence_that_forbids(repo: Path) -> None:
    """A small file's brief lines are cut to the gist of each rule: "Card tokenisation is
    critical. Do not change its logic without explicit maintainer approval." was shown as
    "Card tokenisation is critical. …", the prohibition the task needed gone. A cut that
    drops the sentence that forbids, from an opening that forbids nothing, shows it after
    the opening."""
    lines = ["# Billing", ""]
    lines += [
        f"- Invoice rule {i}: amounts are integer cents in the billing service, rounding "
        f"happens once at the end, and ledger entry {i} is written with its invoice row."
        for i in range(14)
    ]
    lines += [
        "- Card tokenisation is critical. Do not change its logic without explicit "
        "maintainer approval."
    ]
    write(repo, "CLAUDE.md", "\n".join(lines) + "\n")
    r = _retriever(repo)
    rule = next(x for x in r.compiled.rules if x.text.startswith("Card tokenisation"))
    assert "Do not change its logic" in r.brief_lines.get(rule.id, r.lines[rule.id])
    shown = r.retrieve("Refactor card tokenisation in the billing service").policy_text
    assert "Do not change its logic" in shown


SECTIONED = """# Rules

## Release notes

- Write release notes in the past tense.
- Never add full stops to Markdown list items.
- Link each entry to its pull request.

## Database

- Every migration is reversible.
- Never edit a migration that has been merged.

## Logging

- Log with the structured logger, never print.
"""


def test_a_rule_is_lifted_toward_the_best_of_its_section(repo: Path) -> None:
    write(repo, "CLAUDE.md", SECTIONED)
    project = Project.load(repo)
    compiled = compile_rules(project, write=False)
    settings = project.settings.rules.model_copy(update={"relative_cutoff": 0.0})
    embedder = rules_embedder_for(project.settings)
    retriever = Retriever(compiled, settings, embedder)
    cand = [retriever.rules[i] for i in retriever.candidates]
    section = {r.text: r.source.section for r in cand}
    # the gap to the best other rule of one's section: none for the best and for a rule
    # alone in its section
    score = np.linspace(0.9, 0.3, len(cand)).astype(np.float32)
    gap = retriever._section_gap(score)
    for pos, rule in enumerate(cand):
        mates = [
            p for p, r in enumerate(cand) if p != pos and r.source.section == rule.source.section
        ]
        best = max((score[p] for p in mates), default=-1.0)
        assert gap[pos] == max(best - score[pos], 0.0)
    # fully lifted, the best rule's section comes first whole, whichever section it is
    full = Retriever(compiled, settings.model_copy(update={"section_lift": 1.0}), embedder)
    shown = [s.rule.text for s in full.retrieve("Add release notes for 4.3.1", top=3).shards]
    assert len({section[t] for t in shown}) == 1 and len(shown) == 3
    # the best rule itself has no gap: its section is the one lifted (its mates tie with it)
    off = Retriever(compiled, settings.model_copy(update={"section_lift": 0.0}), embedder)
    assert off.retrieve("Add release notes for 4.3.1", top=3).shards[0].rule.text in shown


IAC = """# Infrastructure guidelines

## Commands

- `terraform fmt -recursive` formats every module before a commit.
- `terraform validate` checks one configuration.
- `terraform plan -var-file=secrets.tfvars` plans with the secret variables.

## Style

- Add lifecycle rules to prevent accidental resource destruction.
- Define outputs in `outputs.tf` with meaningful descriptions.
- Production changes need a second reviewer on the plan.
- The database module pins its engine version.
"""


def test_a_match_on_the_projects_common_word_alone_is_weak_lexical_evidence(
    repo: Path,
) -> None:
    write(repo, "CLAUDE.md", IAC)
    project = Project.load(repo)
    compiled = compile_rules(project, write=False)
    embedder = rules_embedder_for(project.settings)
    settings = project.settings.rules.model_copy(update={"relative_cutoff": 0.0})
    task = "Make sure the production database can never be deleted by a terraform run"

    def lexical(ceiling: float) -> dict[str, float]:
        r = Retriever(compiled, settings.model_copy(update={"lexical_ceiling": ceiling}), embedder)
        out = {}
        for shard in r.retrieve(task, top=10).shards:
            lx = [x for x in shard.reasons if x.startswith("lexical ")]
            out[shard.rule.text] = float(lx[0].split()[1]) if lx else 0.0
        return out

    # normalised by the best match, "terraform" alone is a perfect lexical match ...
    assert max(lexical(0.0).values()) == 1.0
    # ... against what a rule holding every task word would score, it is a weak one
    weak = lexical(1.25)
    assert 0 < max(weak.values()) < 0.6
    # and a rule holding every word of the task keeps a strong lexical match
    full = Retriever(compiled, settings.model_copy(update={"lexical_ceiling": 1.25}), embedder)
    best = full.retrieve("define outputs in outputs.tf with meaningful descriptions", top=1)
    assert "outputs" in best.shards[0].rule.text
    lx = [float(x.split()[1]) for x in best.shards[0].reasons if x.startswith("lexical ")]
    assert lx and lx[0] > 0.75, best.shards[0].reasons


def test_lexical_scores_of_many_rules_fit_in_memory_and_keep_their_values() -> None:
    """The rules' BM25 was a dense rules × words matrix: 6,000 rules of distinct words
    took a gigabyte, and the prompt hook stopped at its memory cap with no rules. The
    weights are now kept per word; the scores are bit for bit the dense formula's."""
    import tracemalloc

    from charter.rules.lexical import BM25, tokenize

    docs = [f"Always call helper{i} before writing module m{i}" for i in range(6000)]
    tracemalloc.start()
    bm25 = BM25(docs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100 * 2**20, peak
    assert int(np.argmax(bm25.scores("edit module m42 and call helper42"))) == 42

    small = ["Use Req for HTTP requests", "Never use HTTPoison or Tesla", "Req Req retries", ""]
    k1, b = 1.2, 0.75
    vocab: dict[str, int] = {}
    for doc in small:
        for t in tokenize(doc):
            vocab.setdefault(t, len(vocab))
    tf = np.zeros((len(small), len(vocab)), dtype=np.float32)
    for i, doc in enumerate(small):
        for t in tokenize(doc):
            tf[i, vocab[t]] += 1
    lengths = tf.sum(axis=1)
    df = (tf > 0).sum(axis=0)
    idf = np.log(1 + (len(small) - df + 0.5) / (df + 0.5)).astype(np.float32)
    denom = tf + k1 * (1 - b + b * lengths[:, None] / max(float(lengths.mean()), 1e-9))
    weights = (tf * (k1 + 1) / np.where(denom == 0, 1, denom)).astype(np.float32)
    sparse = BM25(small)
    for query in ("req http", "httpoison tesla req", "retries", "nothing here"):
        cols = sorted({vocab[t] for t in tokenize(query) if t in vocab})
        dense = (weights[:, cols] * idf[cols]).sum(axis=1).astype(np.float32)
        assert np.array_equal(sparse.scores(query), dense), query


def test_a_selection_takes_one_entry_of_a_file_tree(repo: Path) -> None:
    # A tree's entries are alike: once one matched, its siblings ranked next to it and
    # filled the budget in place of the rules on how to do the work.
    write(
        repo,
        "CLAUDE.md",
        "# Rules\n\n## Layout\n\n```\n"
        "src/\n"
        "├── parsers/      # Schedule and parameter parsing helpers\n"
        "├── loaders/      # YAML loading with the safe loader\n"
        "├── builders/     # Translates the YAML config into DAG objects\n"
        "├── settings/     # Runtime settings and environment variable handling\n"
        "```\n\n"
        "## Parsing\n\n"
        "- Every new YAML key needs a schema entry and a parser test.\n",
    )
    r = _retriever(repo)
    result = r.retrieve("Parse a new YAML key for the schedule", top=5)
    kinds = [s.rule.kind for s in result.shards]
    assert kinds.count("entry") == 1
    assert any("schema entry" in s.rule.text for s in result.shards)


def test_a_tree_entry_that_only_just_makes_the_cut_is_left_out(repo: Path) -> None:
    # An entry says where code lives, not how to change it: below the best few it took
    # the room of a rule on the work itself.
    write(
        repo,
        "CLAUDE.md",
        "# Rules\n\n## Migrations\n\n"
        "- Every schema change needs a reversible Alembic migration.\n"
        "- Name each migration after the table it changes.\n"
        "- Run the migration up and down locally before opening a pull request.\n"
        "- Never edit a migration that has been merged to main.\n"
        "- Keep data backfills out of schema migrations.\n"
        "- Add an index for each new foreign key column in the migration.\n\n"
        "## Layout\n\n```\n"
        "app/\n"
        "├── models/       # SQLAlchemy table models\n"
        "├── static/       # Images and stylesheets\n"
        "├── templates/    # Jinja page templates\n"
        "```\n",
    )
    r = _retriever(repo)
    task = "Write a reversible migration that adds a column to the invoices table"
    assert [rule.kind for rule in r.rules].count("entry") == 3
    chosen = r.retrieve(task, top=8).shards
    # the six rules on migrations come first; no entry follows them in
    assert len(chosen) == 6
    assert all(s.rule.kind != "entry" for s in chosen)


def test_a_small_section_pushes_out_only_lower_scored_rules(repo: Path) -> None:
    # completing a section evicted the lowest-scored shard even when it scored above the
    # rule that came in: a better match left for a weaker one of the section
    r, pos = _procedure_retriever(repo)
    label = "Use title-style capitalization for command labels and menu items."
    other = "Don't capitalize prepositions of four or fewer letters."
    fillers = [t for t in pos if "circular imports" in t][:7]
    allowed = np.ones(len(r.candidates), dtype=bool)
    chosen = [Shard(r.rules[r.candidates[pos[label]]], 0.9, [])] + [
        Shard(r.rules[r.candidates[pos[t]]], 0.8 - i / 40, []) for i, t in enumerate(fillers)
    ]
    budget = r.cost_of(chosen, tiered=True)

    def scored(value: float) -> Callable[[int], Shard]:
        return lambda p: Shard(r.rules[r.candidates[p]], value, [])

    weaker = [sh.rule.text for sh in r._complete_groups(list(chosen), scored(0.5), allowed, budget)]
    assert other not in weaker and set(fillers) <= set(weaker)
    stronger = r._complete_groups(list(chosen), scored(0.66), allowed, budget)
    texts = [sh.rule.text for sh in stronger]
    assert other in texts and fillers[-1] not in texts
    assert r.cost_of(stronger, tiered=True) <= budget


def test_a_section_rule_that_cannot_fit_evicts_nothing(repo: Path) -> None:
    # the shards scoring below a section's rule were evicted one by one to make room and,
    # when the rule still did not fit, stayed evicted: budget spent on nothing
    r, pos = _procedure_retriever(repo)
    label = "Use title-style capitalization for command labels and menu items."
    fillers = [t for t in pos if "circular imports" in t][:7]
    allowed = np.ones(len(r.candidates), dtype=bool)
    chosen = [Shard(r.rules[r.candidates[pos[label]]], 0.9, [])] + [
        Shard(r.rules[r.candidates[pos[t]]], 0.8 - i / 40, []) for i, t in enumerate(fillers)
    ]
    budget = r.cost_of(chosen[:3], tiered=True)  # room the two weakest fillers cannot free
    done = r._complete_groups(
        list(chosen), lambda p: Shard(r.rules[r.candidates[p]], 0.7, []), allowed, budget
    )
    assert [sh.rule.text for sh in done] == [sh.rule.text for sh in chosen]
