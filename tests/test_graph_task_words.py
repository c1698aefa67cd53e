"""What a task's words say in task context: its action verb and the files' tests edges."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import api
from charter.graph.query import clause_verbs, parse_task
from tests.conftest import write


def test_the_verb_each_clause_starts_on_is_the_action() -> None:
    """Real commit subjects and bodies: the word after a commit's ``type(scope):`` and
    after a bullet is the action; a name written there is not."""
    assert clause_verbs("feat: make content retries configurable") == ["make"]
    assert clause_verbs("fix(server): retry Postgres connection") == ["retry"]
    body = "Add share link\n- Include destination parameter\n- Fix animation. Set a toast"
    assert clause_verbs(body) == ["add", "include", "fix", "set"]
    assert clause_verbs("Please add tests covering the parser") == ["add"]
    assert clause_verbs("retries") == []  # a lone word names the thing
    assert parse_task("Update `HttpClient` config").actions == ["updat"]
    assert parse_task("make_user breaks on empty names").actions == []


def _shop(root: Path) -> Project:
    write(root, "src/shop/__init__.py", "")
    write(root, "src/shop/cart.py", "def cart_total(items):\n    return sum(items)\n")
    write(root, "src/shop/user.py", "def make_user(name):\n    return {'make': name}\n")
    write(
        root,
        "tests/test_cart.py",
        "from shop.cart import cart_total\n\ndef test_total():\n    assert cart_total([]) == 0\n",
    )
    return Project.load(root)


def test_the_action_is_a_weak_term_and_not_shown_beside_the_subject(tmp_path: Path) -> None:
    """ "feat: make content retries configurable" (a real commit) ranked files for "make"
    and listed it among their matched terms; the file the task changes is what its other
    words name."""
    result = api.task_context(_shop(tmp_path), "feat: make the cart total configurable")
    by_path = {n["path"]: n for n in result["nodes"] if n["type"] == "source"}
    assert result["nodes"][0]["path"] == "src/shop/cart.py"
    assert "make" not in by_path["src/shop/cart.py"]["matched_terms"]
    user = by_path.get("src/shop/user.py")
    assert user is None or user["score"] < by_path["tests/test_cart.py"]["score"]


def test_a_test_file_says_which_ranked_file_it_tests(tmp_path: Path) -> None:
    """The source↔test edge exists; the why column said only "matches task terms"."""
    result = api.task_context(_shop(tmp_path), "Fix the cart total rounding")
    test = next(n for n in result["nodes"] if n["path"] == "tests/test_cart.py")
    assert "tests src/shop/cart.py" in test["reasons"]
    source = next(n for n in result["nodes"] if n["path"] == "src/shop/cart.py")
    assert not any(r.startswith("tests ") for r in source["reasons"])
