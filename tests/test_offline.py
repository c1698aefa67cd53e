"""Charter's main jobs never reach for the network, even with no caches at all.

Each command runs as the installed ``charter`` script with ``HOME`` pointing at an
empty directory (no model cache, no optimised-graph cache), proxies pointing nowhere,
and a ``sitecustomize`` that records every Python-level network attempt through the
interpreter's audit events (``socket.getaddrinfo``, and ``socket.connect`` to anything
but a Unix socket) and refuses it. Nothing of Charter's is replaced: the audit hook only
watches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import copy_demo

CHARTER = Path(sys.executable).with_name("charter")

SITECUSTOMIZE = """
import os, socket, sys

_LOG = os.environ["CHARTER_TEST_NET_LOG"]


def _watch(event, args):
    if event == "socket.getaddrinfo" or (
        event == "socket.connect" and args[0].family != socket.AF_UNIX
    ):
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"{event} {args[1:]!r} {' '.join(sys.argv)[:200]}\\n")
        raise OSError("network refused by the offline test")


sys.addaudithook(_watch)
"""

JOBS: list[list[str]] = [
    ["compile"],
    ["index"],
    ["search", "how are invoices exported"],
    ["context", "Add an endpoint to export invoices as CSV"],
    ["drift", "check", "artifact.md"],
    ["graph", "build"],
    ["task-context", "fix invoice total rounding"],
    ["capsule"],
    ["session", "init"],
    ["session", "compact"],
    ["session", "recover"],
    ["doctor"],
]


def test_the_main_jobs_run_offline_with_an_empty_home(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "proj")
    (root / "artifact.md").write_text("We will store amounts as floats.\n", encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    home = tmp_path / "empty home"
    home.mkdir()
    log = tmp_path / "network.log"
    env = {
        "PATH": f"{CHARTER.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(home),
        "PYTHONPATH": str(site),
        "CHARTER_TEST_NET_LOG": str(log),
        **{k: "http://127.0.0.1:9" for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
        **{k: "http://127.0.0.1:9" for k in ("http_proxy", "https_proxy", "all_proxy")},
    }
    # the watch works: a lookup from Python under this environment is seen and refused
    probe = "import socket; socket.getaddrinfo('example.com', 80)"
    control = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert control.returncode != 0 and "refused by the offline test" in control.stderr
    assert "socket.getaddrinfo" in log.read_text(encoding="utf-8")
    log.unlink()
    for args in JOBS:
        done = subprocess.run(
            [str(CHARTER), *args], cwd=root, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode in (0, 1), (args, done.stderr)  # 1: drift found, as it should
        assert "Traceback" not in done.stderr, (args, done.stderr)
    hook = {
        "session_id": "offline",
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Add a database migration for a new credit_notes table",
    }
    answered = subprocess.run(
        [str(CHARTER), "hook", "user-prompt-submit"],
        input=json.dumps(hook),
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answered.returncode == 0 and "Alembic" in answered.stdout, answered.stderr
    # the bundled model really ran (no silent fall back to the hash embedder)
    assert any((home / ".cache" / "charter").glob("minilm-*")), sorted(home.rglob("*"))
    assert not log.exists(), log.read_text(encoding="utf-8")
    # onnxruntime's telemetry client stayed off: it keeps a device id here once it runs
    # (and, in a long-lived process, posts to Microsoft's event collector)
    assert not (home / ".cache" / "Microsoft").exists(), sorted(home.rglob("*"))
