"""Per-machine files the hooks write outside ``.charter/`` stay out of ``git status``.

A new user who installs the hooks, works one session and runs ``git add -A`` must not
commit that session's test output, diff and work log, nor the guardrail audit log: they
belong to one machine, like ``.charter/``'s caches.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import hook_payload, untracked, write


def test_session_files_and_audit_log_are_not_offered_to_git(repo: Path, run_charter) -> None:
    write(repo, "charter.toml", "[hooks]\nwarm_worker = false\n")
    write(repo, "src/app.py", "print('hello')\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    before = untracked(repo)
    payloads = [
        ("session-start", "SessionStart", {"source": "startup"}),
        (
            "post-tool-use",
            "PostToolUse",
            {
                "tool_name": "Bash",
                "tool_input": {"command": "pytest -q"},
                "tool_response": {"stdout": "1 failed in 0.1s", "stderr": "", "interrupted": False},
            },
        ),
        (
            "pre-tool-use",
            "PreToolUse",
            {"tool_name": "Write", "tool_input": {"file_path": "/etc/hosts", "content": "x"}},
        ),
    ]
    for command, event, extra in payloads:
        proc = run_charter("hook", command, cwd=repo, stdin=hook_payload(event, repo, **extra))
        assert proc.returncode == 0, proc.stderr
    sessions = repo / "artifacts" / "sessions"
    assert any(p.name == "test_output.txt" for p in sessions.rglob("*"))  # written, kept
    audit = repo / "artifacts" / "guardrails" / "audit.jsonl"
    assert json.loads(audit.read_text().splitlines()[-1])["decision"] == "deny"
    new = sorted(p for p in untracked(repo) if p not in before)
    assert not [p for p in new if p.startswith(("artifacts/sessions/", "artifacts/guardrails/"))]
