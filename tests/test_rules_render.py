"""How rules are written for agents: grouped under their file, every rule still cited
``path:Lstart-Lend``, and the tokens that saves buy more rules in the same budget."""

from __future__ import annotations

import hashlib
from pathlib import Path

from charter.config import Project
from charter.rules.api import task_context
from charter.rules.render import compact
from charter.tokens import count_tokens
from tests.conftest import write

CLAUDE = """# Rules

## Database

- Every schema change needs a reversible Alembic migration.
- Add an index for each foreign key column.
- Never edit a migration that has been merged;
  write a new one instead.

## Testing

- Mock external HTTP calls in unit tests with respx.
- Name test files `test_<module>.py`.
"""

CURSOR = """---
description: Database conventions
alwaysApply: false
---
- Wrap every multi-table write in one database transaction.
- Use `SELECT ... FOR UPDATE` when a read decides a later write.
"""

TASK = "add a database migration that writes to two tables"


def _project(repo: Path, style: str | None = None) -> Project:
    write(repo, "CLAUDE.md", CLAUDE)
    write(repo, ".cursor/rules/database-conventions.mdc", CURSOR)
    if style:
        write(repo, "charter.toml", f'[rules]\ncitation_style = "{style}"\n')
    return Project.load(repo)


def _cited(result: dict) -> list[str]:
    return [
        f"{s['rule']['source']['path']}:L{s['rule']['source']['line_start']}"
        f"-L{s['rule']['source']['line_end']}"
        for s in result["shards"]
    ]


def test_grouped_policy_cites_every_rule_once_per_file(repo: Path) -> None:
    from charter.rules.render import citations

    result = task_context(_project(repo), TASK, budget=1000)
    text = result["policy_text"]
    cited = citations(text)
    assert sorted(_cited(result)) == sorted(c for c in cited if c in _cited(result))
    assert set(_cited(result)) <= set(cited)
    # each file's path is written once, as a header, not on every line
    for path in {c.split(":L")[0] for c in cited}:
        assert text.count(f"In {path}:") == 1
        assert f"({path}:" not in text
    # a two-line rule keeps its range; a one-line rule is cited by its line
    assert "(L7-L8)" in text and "(L5)" in text


def test_inline_style_puts_the_path_on_every_line(repo: Path) -> None:
    from charter.rules.render import citations

    result = task_context(_project(repo, "inline"), TASK, budget=1000)
    text = result["policy_text"]
    assert "In CLAUDE.md:" not in text
    assert "(CLAUDE.md:L7-L8)" in text
    assert set(_cited(result)) <= set(citations(text))


def test_grouped_costs_fewer_tokens_and_fits_more_rules(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    grouped = task_context(_project(repo), TASK, budget=1000)
    inline = task_context(_project(other, "inline"), TASK, budget=1000)
    assert [s["rule"]["text"] for s in grouped["shards"]] == [
        s["rule"]["text"] for s in inline["shards"]
    ]
    assert grouped["tokens"] < inline["tokens"]
    # at every budget grouped holds at least as many rules, and more at some
    counts = []
    for budget in range(20, inline["tokens"] + 20, 10):
        fewer = task_context(_project(other, "inline"), TASK, budget=budget)
        more = task_context(_project(repo), TASK, budget=budget)
        assert count_tokens(more["policy_text"]) == more["tokens"]
        counts.append((len(more["shards"]), len(fewer["shards"])))
    assert all(g >= i for g, i in counts) and any(g > i for g, i in counts), counts


def test_grouped_policy_is_byte_stable(repo: Path) -> None:
    project = _project(repo)
    first = task_context(project, TASK, budget=1000)["policy_text"]
    again = task_context(Project.load(repo), TASK, budget=1000)["policy_text"]
    assert hashlib.sha256(first.encode()).digest() == hashlib.sha256(again.encode()).digest()


def test_citations_read_both_styles_and_paths_with_spaces() -> None:
    from charter.rules.render import citations

    grouped = "For this task:\nIn docs/team rules.md:\n- Keep it short. (L3)\n- Two lines. (L5-L6)"
    assert citations(grouped) == ["docs/team rules.md:L3-L3", "docs/team rules.md:L5-L6"]
    inline = "- Keep it short. (CLAUDE.md:L3-L3)"
    assert citations(inline) == ["CLAUDE.md:L3-L3"]
    assert citations("- a line with no header (L3)") == []


def test_an_always_loaded_line_keeps_the_sentence_that_forbids() -> None:
    """A security heading's one rule, "Set `A` and `B`; `C` is optional. Keep keys in a
    local file; never commit them. …", was the constitution's one line, cut to its first
    sentence: the agent never read "never commit them". An always-loaded line now shows
    the first forbidding sentence after the opening, as a retrieved line does, and a line
    whose opening already forbids stays as it was."""
    from charter.rules.compiler import build_constitution
    from charter.rules.model import Rule, Source

    text = (
        "Set `APP_SIGNING_KEY_VALUE`, `PRIMARY_STORE_URL` in the env; `TRACE_ENDPOINT` optional. "
        "Keep keys in a local file; never commit them. Throttling can be turned off with "
        "`NO_THROTTLE=1` for soak runs."
    )
    opening = "Never log request bodies in production handlers. " + text
    rules = [
        Rule(id=f"r-{n}", text=t, source=Source("AGENTS.md", n, n, "Security"), constitution=True)
        for n, t in ((1, text), (2, opening))
    ]
    shown = build_constitution(rules, 60, 100, 28).text
    assert "optional. Keep keys in a local file; never commit them. … (L1)" in shown
    assert "Never log request bodies in production handlers. … (L2)" in shown
    from charter.rules.render import render_rule_line

    # a retrieved line is all the agent reads of its rule too: cut the same way
    assert "never commit them" in render_rule_line(rules[0], 28)


def test_a_cut_inside_the_opening_shows_the_forbidding_sentence_alone() -> None:
    """A small file's brief line is cut to a few words: when the cut falls inside an
    opening that forbids nothing, the line showed half of it ("Location tracking is
    critical to …") and not the prohibition. It now shows the forbidding sentence alone,
    within the cut; one whose negation the cut would drop stays as it was."""
    from charter.rules.render import compact_keeping_directive

    text = (
        "Location tracking is critical to the product and every change to it is "
        "reviewed with care. Do not change its logic without maintainer approval. See docs."
    )
    assert compact_keeping_directive(text, 12) == (
        "… Do not change its logic without maintainer approval. …"
    )
    # the forbidding sentence cut before its negation says nothing: the cut as it was
    late = (
        "Set `A` and `B` in the environment for local runs. Keys must stay in a local "
        "file that git ignores, and are never committed."
    )
    assert compact_keeping_directive(late, 6) == "Set `A` and …"


def test_a_sentence_written_without_spaces_is_cut_between_characters() -> None:
    # Chinese and Japanese write a sentence as one "word": no word fitted the cut, and
    # the rule was shown as " …", its text gone
    rule = (
        "回答一律使用繁體中文，程式碼註解一律使用英文撰寫，提交訊息遵循 Conventional Commits 規範"
    )
    cut = compact(rule, 8)
    assert cut.endswith(" …") and len(cut) > 2
    assert rule.startswith(cut.removesuffix(" …"))
    # at the last comma when that keeps half of what fits
    longer = compact(rule, 20)
    assert longer.removesuffix(" …").endswith("，")
    # a URL that does not fit is still never cut inside
    assert not compact("https://example.com/" + "a" * 200 + " is the page", 5).startswith("h")


def test_a_cut_goes_into_a_chinese_clause_after_a_label_or_span() -> None:
    # Trae's Chinese rules: a clause after a label or a code span is one "word" between
    # spaces, so the cut at words dropped all of it: "❌ 禁止在 `src` 根目录直接创建…"
    # (not in the root of `src`) was shown as "❌ 禁止在 `src` …" (not in `src`), and a
    # labelled rule as its label alone, "终端命令执行: …"; a cut back at a colon left a label
    forbids = "❌ 禁止在 `src` 根目录直接创建业务模块文件"
    cut = compact(forbids, 20)
    assert cut.startswith("❌ 禁止在 `src` 根目录") and cut.endswith(" …")
    labelled = "终端命令执行: 禁止使用阻塞终端等待用户输入的命令，所有命令必须能自动执行完成。"
    assert compact(labelled, 14).startswith("终端命令执行: 禁止")
    label = "接口说明：如果接口逻辑中通过请求头获取token进行身份验证，则跳过白名单测试步骤"
    assert compact(label, 10).startswith("接口说明：如果")
    # a cut stays within the limit (a short text is shown whole), and English is cut at
    # words as before
    for text in (forbids, labelled, label):
        for limit in (10, 14, 20):
            cut = compact(text, limit)
            assert cut == text or count_tokens(cut.removesuffix(" …")) <= limit
    english = "Never create business module files directly in the root of `src`; use `src/module`."
    assert compact(english, 10) == "Never create business module files directly in the root …"


def test_an_identifier_with_double_underscores_keeps_them(tmp_path: Path) -> None:
    """Markdown reads `__` as strong emphasis only at a word's edge: the compile took
    "mcp__peekaboo__analyze" for emphasis and showed the agent "mcppeekabooanalyze", a
    tool that does not exist. Bold written either way is still removed."""
    from charter.rules.api import compile_project
    from tests.conftest import compiled_repo

    root = compiled_repo(
        tmp_path,
        {
            "CLAUDE.md": (
                "# Tools\n\n"
                "- You must NEVER use the mcp__peekaboo__analyze tool.\n"
                "- __Always__ name helpers in snake__case **carefully**.\n"
            )
        },
    )
    texts = [r.text for r in compile_project(Project.load(root)).rules]
    assert "You must NEVER use the mcp__peekaboo__analyze tool." in texts
    assert "Always name helpers in snake__case carefully." in texts


def test_a_cut_prohibition_keeps_the_code_span_it_forbids() -> None:
    """A Prisma backend's CLAUDE.md lists "Do NOT suggest or run:" over
    `npx prisma migrate reset`; the compiled item, retrieved for a migration task, was
    shown "Do NOT suggest or run …" (the cut fell inside the span, and the colon went with
    it), and "Never run or suggest `npx …` unless the user approves …" as "Never run or
    suggest …": lines that name nothing. A prohibition cut before its object now shows the
    object when it is a code span (up to twice the cut); other rules cut as before."""
    from charter.rules.render import compact_keeping_directive

    listed = "Do NOT suggest or run: `npx knex migrate:rollback --all`"
    consent = (
        "Never run or suggest `npx knex migrate:rollback` unless the user explicitly "
        "approves and accepts that data is lost."
    )
    for cut in (10, 12):
        assert compact_keeping_directive(listed, cut) == listed
        assert compact_keeping_directive(consent, cut).startswith(
            "Never run or suggest `npx knex migrate:rollback` "
        )
    assert compact("Never edit `src/generated/api/client_types.ts` by hand after a sync.", 6) == (
        "Never edit `src/generated/api/client_types.ts` …"
    )
    # no prohibition: the cut stays where it fell
    assert compact("Run `uv run alembic upgrade head --sql > plan.sql` before merging.", 4) == (
        "Run …"
    )


def test_a_lead_in_pinned_without_its_items_is_left_to_retrieval() -> None:
    """ "Pre-commit checklist (required for code changes):" always loaded while its items
    are not says nothing alone: it is not pinned (retrieved with its items instead); a
    lead-in pinned with an item of its own stays."""
    from charter.rules.compiler import build_constitution
    from charter.rules.model import Rule, Source

    def rule(rid: str, text: str, line: int, pinned: bool, kind: str = "item") -> Rule:
        src = Source("AGENTS.md", line, line, "Workflow")
        return Rule(id=rid, text=text, source=src, constitution=pinned, kind=kind)

    lone = [
        rule("a", "Never push to main.", 1, True),
        rule("b", "Pre-commit checklist (required for code changes):", 3, True, "paragraph"),
        rule("c", "Run `make lint`.", 4, False),
        rule("d", "Run `make test`.", 5, False),
    ]
    c = build_constitution(lone, 100, 0)
    assert c.rule_ids == ["a"] and "checklist" not in c.text and "b" in c.overflow_ids
    assert not c.truncated
    lone[2].constitution = True
    assert build_constitution(lone, 100, 0).rule_ids == ["a", "b", "c"]
