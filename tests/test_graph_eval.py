"""``charter eval localize`` on a real bare mirror: cold checkout, Charter beside BM25."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.eval.checkout import checkout
from tests.conftest import commit_all, write


def _mirror(tmp_path: Path) -> tuple[Path, str]:
    src = tmp_path / "src"
    write(src, "shop/cart.py", "def add_item(cart, item):\n    cart.append(item)\n")
    write(src, "shop/pricing.py", "def apply_discount(total, code):\n    return total * 0.9\n")
    write(src, "tests/test_pricing.py", "from shop.pricing import apply_discount\n")
    subprocess.run(["git", "init", "-q", str(src)], check=True)
    commit = commit_all(src, "x")
    mirrors = tmp_path / "mirrors"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(src), str(mirrors / "acme+shop" / "repo")],
        check=True,
    )
    return mirrors, commit


def test_checkout_writes_the_commit_tree(tmp_path: Path) -> None:
    mirrors, commit = _mirror(tmp_path)
    target = tmp_path / "work"
    assert checkout(mirrors / "acme+shop" / "repo", commit, target) == 3
    assert (target / "shop/pricing.py").read_text().startswith("def apply_discount")
    head = subprocess.run(
        ["git", "-C", str(target), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    assert head.stdout.strip() == commit


def test_eval_localize_cli(tmp_path: Path, run_charter: Callable[..., Any]) -> None:
    mirrors, commit = _mirror(tmp_path)
    data = tmp_path / "data"
    task = {
        "id": "acme__shop-1",
        "repo": "acme/shop",
        "base_commit": commit,
        "task": "apply_discount ignores the discount code",
        "gold_files": ["shop/pricing.py"],
    }
    write(data, "tasks.jsonl", json.dumps(task) + "\n")
    done = run_charter(
        "eval",
        "localize",
        "--data",
        str(data),
        "--mirrors",
        str(mirrors),
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == []
    assert report["tasks"][0]["charter_rank"] == 1
    assert report["overall"]["charter"]["acc@1"] == 1.0
    assert set(report["overall"]["bm25"]) == {"acc@1", "acc@5", "acc@10", "recall@10", "mrr"}
    missing = run_charter(
        "eval",
        "localize",
        "--data",
        str(tmp_path / "nope"),
        "--mirrors",
        str(mirrors),
        cwd=tmp_path,
    )
    assert missing.returncode != 0
    assert missing.stderr.startswith("charter: error:") and "nope" in missing.stderr
