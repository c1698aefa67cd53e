"""The act a task does besides its topic: bringing a third-party package in."""

from __future__ import annotations

from pathlib import Path

import pytest

from charter.rules.actions import adds_dependency
from tests.conftest import shards_by_setting, write


@pytest.mark.parametrize(
    "task",
    [
        "Pull in Pillow to make thumbnails of uploaded photos",
        "Let's pull in gl-matrix to speed up Mat4 multiplication",
        "Build a confirm-delete modal; maybe pull in a small JS modal library",
        "Add serde_yaml to the codegen crate as a dependency",
        "Use the marked package to render the changelog",
        "install axios for the new API client",
    ],
)
def test_a_task_bringing_a_package_in_is_read_as_adding_a_dependency(task: str) -> None:
    assert adds_dependency(task)


@pytest.mark.parametrize(
    "task",
    [
        "Pull in the latest changes from main before the release",
        "Add a retry button to the settings page",
        "Move the helpers into packages/core/utils",
        "Regenerate package-lock.json after the merge",
        "Fix the flaky login test",
    ],
)
def test_a_task_without_a_new_package_is_not(task: str) -> None:
    assert not adds_dependency(task)


RULES = """# Rules

## Frontend

- All user-visible strings must go through the i18n `t()` helper.
- Use CSS variables for spacing, never raw px values.

## Images

- Thumbnails are 256 px wide and stored as WebP next to the original.

## Process

- Avoid adding new dependencies unless absolutely necessary; ask first.
- Name test files `test_<module>.py`.
"""


def test_the_act_of_adding_a_package_lifts_the_rule_about_dependencies(repo: Path) -> None:
    # the task names the package and its use (images), the rule names the act
    write(repo, "CLAUDE.md", RULES)
    task = "Pull in Pillow to make thumbnails of uploaded photos"
    on, off = shards_by_setting(repo, task, "action_view", (0.5, 0.0))
    rule = next(text for text in on if "new dependencies" in text)
    assert on[rule].score > off[rule].score
