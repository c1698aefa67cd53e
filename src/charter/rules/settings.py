"""Settings of the rules engine (seed 000, ADR-G002); defaults are the seed's."""

from __future__ import annotations

from typing import Literal

from charter.records import Field, Record

DEFAULT_CONSTITUTION_MARKERS = [
    r"^#+\s*(safety|security|invariant|constitution|critical|non[- ]?negotiable|always)",
    r"^#+\s*(must|never|always|required|mandatory|(core\s+)?mandates?\b)",
    # the same words in Chinese (Trae's and Qwen Code's rule files are often written in
    # it): safety/security, forbidden/never, must, mandatory rules, non-negotiable,
    # always, invariant, red line; "强制" alone is no marker ("强制类型转换", a type cast)
    r"^#+\s*(安全|禁止|严禁|嚴禁|绝不|絕不|必须|必須|始终|始終|总是|總是|不变量|不變量|红线|紅線"
    r"|[强強]制(要求|规则|規則|规范|規範|执行|執行|约束|約束)|不可(协商|協商|妥协|妥協|违反|違反))",
]


class RulesSettings(Record):
    sources: list[str] = Field(
        default_factory=list,
        description="extra rule files or globs to compile besides the discovered ones",
    )
    exclude: list[str] = Field(
        default_factory=lambda: ["node_modules/**", ".venv/**", "vendor/**", ".git/**"],
        description="globs never searched for rule files",
    )
    constitution_markers: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CONSTITUTION_MARKERS),
        description="section headers whose rules form the always-loaded constitution",
    )
    embed_model: Literal["rules", "general"] = Field(
        default="rules",
        description="bundled model that embeds rules and tasks: rules (fine-tuned to rank a "
        "rule file's rules for a task) | general (the sentence model search uses); other "
        "embed providers use their one model",
    )
    max_constitution_lines: int = Field(default=60, ge=1, description="cap on constitution text")
    max_constitution_tokens: int = Field(
        default=0, ge=0, description="token cap on the constitution (0 = automatic, see below)"
    )
    constitution_budget_share: float = Field(
        default=0.3, gt=0, le=1, description="automatic cap: this share of the policy budget"
    )
    constitution_min_tokens: int = Field(
        default=100, ge=0, description="automatic cap never goes below this many tokens"
    )
    constitution_priority_boost: int = Field(default=100, description="added to constitution rules")
    selection: str = Field(
        default="budget",
        description="budget (fill a token budget) | top_n (the seed's fixed count)",
    )
    top_n: int = Field(
        default=5, ge=1, description="shards per task when selection = top_n or --top"
    )
    budget_fraction: float = Field(
        default=0.25,
        gt=0,
        le=1,
        description="policy budget as a fraction of all rule files' tokens",
    )
    budget_tokens: int = Field(
        default=0, ge=0, description="fixed policy token budget (0 = use fraction)"
    )
    budget_max_tokens: int = Field(
        default=2500, ge=1, description="upper bound of the policy budget"
    )
    budget_min_shard_tokens: int = Field(
        default=100,
        ge=0,
        description="shards always get at least this many tokens (on a file under 400 "
        "tokens this is more than a quarter of it; 0 = the budget is a strict cap)",
    )
    hook_budget_fraction: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="lean prompt hook: the new rules one prompt adds fill at most this share "
        "of the rule files' tokens (0 = the retrieval budget; rules stay reachable through "
        "rules_for_task)",
    )
    citation_style: Literal["grouped", "inline"] = Field(
        default="grouped",
        description="grouped: rules under one `In path:` header per file, each with its "
        "(Lstart-Lend); inline: every rule line ends (path:Lstart-Lend)",
    )
    hook_relative_cutoff: float = Field(
        default=0.45,
        ge=0,
        le=1,
        description="the prompt hook adds only rules scoring at least this share of the best "
        "rule's score (0 = fill the retrieval budget); what it leaves stays reachable "
        "through rules_for_task",
    )
    path_rules_max_tokens: int = Field(
        default=500,
        ge=0,
        description="when the agent reads or changes a file, the rules scoped to its path "
        "(nested AGENTS.md, Cursor globs, `paths:`) not yet in the conversation arrive with "
        "the tool's result, up to about this many tokens (0 = off)",
    )
    step_rules_max_tokens: int = Field(
        default=400,
        ge=0,
        description="when the agent is about to commit, push, merge, rebase, tag or open a "
        "pull request, the rules naming that step not yet in the conversation arrive "
        "before the command runs, up to about this many tokens (0 = off)",
    )
    code_rules_max_tokens: int = Field(
        default=300,
        ge=0,
        description="when the agent first reads or changes a source file in a conversation, "
        "the rules most likely to apply to every change (formatting, naming, type safety, "
        "process; scored by a small bundled model) arrive with the tool's result, best "
        "first, up to about this many tokens, once until the next compaction (0 = off)",
    )
    code_rules_min_score: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="the least score (the model's probability that a rule applies to every "
        "change) a rule needs to arrive with the first source file",
    )
    max_rule_tokens: int = Field(
        default=28,
        ge=8,
        description="rule text in policy is cut at this many tokens (citation kept)",
    )
    full_rules: int = Field(
        default=3,
        ge=0,
        description="a task's best rules (by score) shown up to max_rule_tokens; the rest "
        "of a budgeted selection up to brief_rule_tokens",
    )
    brief_rule_tokens: int = Field(
        default=20,
        ge=8,
        description="rules of a budgeted selection below its best full_rules are cut at this "
        "many tokens, citation kept (set it to max_rule_tokens to show all alike)",
    )
    brief_min_rules: int = Field(
        default=12,
        ge=0,
        description="a budget too small to show this many brief lines (a small rule file's "
        "quarter) cuts them shorter, down to brief_floor_tokens, and shows only its best rule "
        "whole: more of the task's rules, each cited for its full text (0 = off)",
    )
    brief_floor_tokens: int = Field(
        default=10,
        ge=4,
        description="the shortest a brief line is cut to for brief_min_rules (the gist of a "
        "rule: about seven words)",
    )
    complete_procedures: bool = Field(
        default=True,
        description="when half or more of a numbered procedure's steps are chosen, add the "
        "rest (lowest-scored shards make room)",
    )
    complete_sections_up_to: int = Field(
        default=3,
        ge=0,
        description="when one of the best few shards sits in a section of at most this many "
        "rules, add the others (0 = off)",
    )
    complete_from_top: int = Field(
        default=5, ge=1, description="how many of the best shards may pull in their small section"
    )
    content_gate: bool = Field(
        default=True,
        description="return no shards for a prompt with no task in it, only conversational "
        "words (yes, continue, try again, looks good)",
    )
    min_score: float = Field(default=0.0, description="shards scoring below this are not returned")
    relative_cutoff: float = Field(
        default=0.0, ge=0, le=1, description="drop shards scoring below this fraction of the best"
    )
    intent_boost: float = Field(
        default=0.05, description="added when a shard's intents match the task"
    )
    domain_boost: float = Field(
        default=0.04,
        description="added when a shard shares a domain inferred from the task's words",
    )
    risk_boost_critical: float = Field(default=0.10, description="added for critical-risk shards")
    risk_boost_high: float = Field(default=0.05, description="added for high-risk shards")
    feedback_weight: float = Field(
        default=0.4, ge=0, description="pseudo-relevance feedback: mix the top rules into the query"
    )
    section_lift: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description=(
            "a rule is lifted by this share of the gap to the best score of another rule in "
            "its section: a task's rules sit together (budgeted selection only, not the "
            "prompt hook's relative cut)"
        ),
    )
    feedback_top: int = Field(
        default=5, ge=1, description="rules used for pseudo-relevance feedback"
    )
    clause_views: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description=(
            "a task of several clauses is also matched clause by clause: the share of the "
            "dense score that comes from its best-matching clause (0 = the whole task only)"
        ),
    )
    head_view: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description=(
            "a task is also matched by its head, the words before its first preposition "
            "or relative word ('Write the design doc' | 'for …'): a rule closes this share "
            "of its gap to the head's cosine (0 = off)"
        ),
    )
    action_view: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description=(
            "a task that brings a third-party package in is also matched by that act said "
            "plainly ('add a new dependency'): a rule closes this share of its gap to the "
            "act's cosine (0 = off)"
        ),
    )
    kind_prior: float = Field(
        default=3.0,
        ge=0,
        description=(
            "weight of the learned lift a kind of task (its intent) gives the rules it "
            "usually needs beyond its words, a bug fix's regression test (0 = off)"
        ),
    )
    directive_boost: float = Field(
        default=0.05, description="added to rules that instruct rather than describe"
    )
    lexical_weight: float = Field(default=0.5, ge=0, description="weight of the BM25 component")
    lexical_ceiling: float = Field(
        default=1.25,
        ge=0,
        description=(
            "BM25 is divided by the larger of the best rule's score and this share of the "
            "score a rule holding every task word once would get (0 = the best rule's)"
        ),
    )
    dense_weight: float = Field(default=1.0, ge=0, description="weight of the cosine component")
    max_import_depth: int = Field(default=5, ge=0, description="levels of @path imports followed")
    max_file_bytes: int = Field(
        default=256 * 1024,
        ge=1024,
        description="rule files (and imports) larger than this are skipped with a note",
    )
