"""A secret written into a file by the agent's file tools, found by what is written.

A Slack token written into ``src/config.js`` and AWS keys into ``.cargo/config.toml``
went through (users' pass fifty-nine): the guardrails knew secret files only by their
names. The new text of a Write, Edit, MultiEdit, NotebookEdit or apply_patch is now read
by the scanner that keeps secrets out of what Charter stores and serves, and a secret in
it asks the user (``[session.guardrails] secret_content``), naming the detector and the
line, never the value. Ordinary code, placeholders and reads from the environment pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_session_guardrails import NO_WORKER, _hook, decision, make_project, payload

# format-valid, made up; split so no scanner of this repository takes them for real ones
SLACK = "xoxb-" + "2048151412-2048151413-" + "Hj3kL9mNpQ2rS5tU7vW1xY3z"
AWS_ID = "AKIA" + "J3X5QW7ZP2L4M6N8"
GITHUB = "ghp_" + "4Xy7Qw9Ez2Rt5Ui8Op1As3Df6Gh0Jk2Lm4Nb"
STRIPE = "sk_live_" + "51HqZ2bKx9Yp3Lm7Nq4Rt8Vw2Xy5Zb"

SECRET_WRITES = [
    (
        "Write",
        {"file_path": "{root}/src/config.js", "content": f"export const slack = '{SLACK}';\n"},
    ),
    (
        "Edit",
        {
            "file_path": "{root}/.cargo/config.toml",
            "old_string": "[aws]\n",
            "new_string": f'[aws]\naccess_key_id = "{AWS_ID}"\n',
        },
    ),
    (
        "MultiEdit",
        {
            "file_path": "{root}/src/app/keys.py",
            "edits": [{"old_string": "x = 1", "new_string": f'GITHUB = "{GITHUB}"'}],
        },
    ),
    (
        "apply_patch",
        {
            "command": (
                f'*** Begin Patch\n*** Update File: src/a.py\n+KEY = "{STRIPE}"\n*** End Patch'
            )
        },
    ),
    (
        "NotebookEdit",
        {"notebook_path": "{root}/nb.ipynb", "new_source": f"token = '{GITHUB}'"},
    ),
]

HARMLESS_WRITES = [
    (
        "Write",
        {
            "file_path": "{root}/src/app/db.py",
            "content": "import os\nPW = os.environ['DB_PASSWORD']\n",
        },
    ),
    (
        "Write",
        {"file_path": "{root}/docs/setup.md", "content": "Set `API_KEY` in your environment.\n"},
    ),
    ("Write", {"file_path": "{root}/.env.example", "content": "API_KEY=changeme\nDB_PASSWORD=\n"}),
    (
        "Edit",
        {
            "file_path": "{root}/src/app/main.py",
            "old_string": "a",
            "new_string": "token = get_token()",
        },
    ),
    (
        "Write",
        {
            "file_path": "{root}/src/app/hash.py",
            "content": "SHA = 'e3b0c44298fc1c149afbf4c8996fb924'\n",
        },
    ),
]


def _decide(run_charter: Any, root: Path, tool: str, tool_input: dict[str, Any]) -> tuple[str, str]:
    res = _hook(run_charter, root, payload(root, tool, tool_input))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout) if res.stdout.strip() else None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"] if out else ""
    return decision(out), reason


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("secrets"), "unscoped")


@pytest.mark.parametrize(("tool", "tool_input"), SECRET_WRITES)
def test_a_secret_written_by_a_file_tool_asks(
    root: Path, run_charter: Any, tool: str, tool_input: dict[str, Any]
) -> None:
    verdict, reason = _decide(run_charter, root, tool, tool_input)
    assert verdict == "ask", reason
    assert "looks like a secret" in reason and "secret_content" in reason
    for value in (SLACK, AWS_ID, GITHUB, STRIPE):
        assert value not in reason  # the detector and line, never the value


@pytest.mark.parametrize(("tool", "tool_input"), HARMLESS_WRITES)
def test_ordinary_writes_pass(
    root: Path, run_charter: Any, tool: str, tool_input: dict[str, Any]
) -> None:
    assert _decide(run_charter, root, tool, tool_input) == ("allow", "")


def test_the_setting_and_the_allow_list(tmp_path: Path, run_charter: Any) -> None:
    write_secret = SECRET_WRITES[0]
    deny = make_project(
        tmp_path / "d", "unscoped", NO_WORKER + '[session.guardrails]\nsecret_content = "deny"\n'
    )
    assert _decide(run_charter, deny, *write_secret)[0] == "deny"
    off = make_project(
        tmp_path / "o", "unscoped", NO_WORKER + '[session.guardrails]\nsecret_content = "off"\n'
    )
    assert _decide(run_charter, off, *write_secret)[0] == "allow"
    allowed = make_project(
        tmp_path / "a", "unscoped", NO_WORKER + '[secrets]\nallow = ["src/config.js"]\n'
    )
    assert _decide(run_charter, allowed, *write_secret)[0] == "allow"


WRONG_TYPED_TEXT = [
    ("Write", {"file_path": "{root}/src/config.js", "content": [f"slack = '{SLACK}'"]}),
    ("Edit", {"file_path": "{root}/a.py", "old_string": "a", "new_string": {"k": GITHUB}}),
    ("MultiEdit", {"file_path": "{root}/a.py", "edits": [{"old_string": "a", "new_string": 7}]}),
    ("MultiEdit", {"file_path": "{root}/a.py", "edits": "GITHUB = 1"}),
    ("NotebookEdit", {"notebook_path": "{root}/nb.ipynb", "new_source": [GITHUB]}),
]


@pytest.mark.parametrize(("tool", "tool_input"), WRONG_TYPED_TEXT)
def test_a_write_whose_text_is_not_a_string_is_denied(
    root: Path, run_charter: Any, tool: str, tool_input: dict[str, Any]
) -> None:
    # a `content` sent as a list was read as no text at all: the token inside it passed
    # the secret check unseen (users' pass sixty-nine); the guardrail fails closed
    verdict, reason = _decide(run_charter, root, tool, tool_input)
    assert verdict == "deny" and "is not text: cannot check the write" in reason, reason
    assert GITHUB not in reason and SLACK not in reason
