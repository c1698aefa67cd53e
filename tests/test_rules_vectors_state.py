"""``rules.npy`` is as deterministic as ``rules.json``, whichever path filled it.

A compile embeds the shards and the constitution's overflow in one model pass, reuses
cached vectors on a recompile, and leaves pinned constitution rules as zero rows (they
are embedded on demand). Each path must give the same bytes: the first compile of a
fresh checkout, a recompile served from the vector cache, and a compile in a fresh copy
of the same files; a pinned rule's vector, when finally needed, equals its vector from
a compile that embeds every rule (``embed_constitution``, as lint does).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import numpy as np

from charter.config import Project
from charter.rules.compiler import compile_rules
from tests.conftest import write

RULES = (
    "# Critical rules\n\n"
    + "".join(
        f"- Never change the exported schema of table number {i} without a migration.\n"
        for i in range(30)
    )
    + (
        "\n## Style\n\n- Use snake_case for Python functions.\n"
        "- Keep modules under 400 lines.\n\n## Testing\n\n"
        "- Mock external HTTP calls in unit tests.\n"
        "- Run `make test` before every push; CI runs the same target.\n"
    )
)


def _digests(root: Path) -> tuple[str, str]:
    state = root / ".charter"
    return tuple(  # type: ignore[return-value]
        hashlib.sha256((state / name).read_bytes()).hexdigest()
        for name in ("rules.json", "rules.npy")
    )


def test_rules_npy_identical_cold_cached_and_copied(repo: Path, tmp_path: Path) -> None:
    write(repo, "CLAUDE.md", RULES)
    first = compile_rules(Project.load(repo))
    c = first.constitution
    assert c.truncated and c.overflow_ids and c.rule_ids  # both kinds of member rule
    assert first.report.embedded == len(first.rules) - len(c.rule_ids)
    cold = _digests(repo)

    cached = compile_rules(Project.load(repo))  # every vector from the cache
    assert cached.report.embedded == 0 and cached.report.reused == first.report.embedded
    assert _digests(repo) == cold

    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".charter"))
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    compile_rules(Project.load(copy))
    assert _digests(copy) == cold

    vectors = np.load(repo / ".charter" / "rules.npy")
    rows = {r.id: i for i, r in enumerate(first.rules)}
    pinned = [rows[i] for i in c.rule_ids]
    embedded = [i for i in range(len(first.rules)) if i not in set(pinned)]
    assert not vectors[pinned].any()
    assert np.allclose(np.linalg.norm(vectors[embedded], axis=1), 1.0, atol=1e-5)

    every = tmp_path / "every"
    shutil.copytree(copy, every, ignore=shutil.ignore_patterns(".charter"))
    full = compile_rules(Project.load(every), embed_constitution=True, write=False)
    assert np.array_equal(full.vectors[embedded], vectors[embedded])
    assert np.allclose(np.linalg.norm(full.vectors[pinned], axis=1), 1.0, atol=1e-5)
