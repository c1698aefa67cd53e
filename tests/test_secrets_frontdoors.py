"""Zero secrets served from a planted-secrets project, through every front door.

The project (tests/secrets_support.py) holds fake but well-formed credentials: AWS keys
in YAML, a private key in a .txt, tokens in JSON, Markdown, CLAUDE.md and code, a
basic-auth URL, a password column in a SoT CSV, a key in a file deleted from git
history, plus ``.env`` and ``id_rsa`` (refused by name). Each test drives a real door: the
CLI in a subprocess, hooks fed Claude Code hook JSON, the MCP SDK client over stdio, and
the SQLite files on disk, and asserts no secret (nor a 10-character piece of one) comes out.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import CHARTER, mcp_server_params, run_hook, tool_payload
from tests.secrets_support import leaks, make_secrets, plant

QUERIES = [
    "aws access key for the production invoices bucket",
    "deploy key private key rotation",
    "github token for CI",
    "slack bot token for deploy alerts and stripe refunds",
    "postgres connection for the invoice migrations",
    "gitlab token to publish packages",
    "service JWT in the invoice API client password",
    "password of account ACC-001 Acme Logistics",
    "old setup storage key and mirror token",
]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("planted") / "proj"
    root.mkdir()
    secrets = plant(root)
    return root, secrets


@pytest.fixture(scope="module")
def indexed(planted: tuple[Path, dict[str, str]]) -> tuple[Path, dict[str, str], dict[str, Any]]:
    import subprocess

    root, secrets = planted
    proc = subprocess.run(
        [*CHARTER, "index", "--json"], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert not leaks(proc.stdout + proc.stderr, secrets)
    return root, secrets, json.loads(proc.stdout)


def test_index_redacts_every_planted_secret_and_records_where(indexed) -> None:
    root, secrets, report = indexed
    assert {"history": report["history"]} == {"history": ["docs/old-setup.md"]}
    assert {p for p, _ in [(s["path"], s["reason"]) for s in report["skipped"]]} >= {
        ".env",
        "id_rsa",
    }
    assert set(report["redacted"]) == {
        "CLAUDE.md",
        "config/aws.yaml",
        "config/ci.json",
        "docs/old-setup.md",
        "docs/runbook.md",
        "notes/deploy-key.txt",
        "sot/accounts.csv",
        "src/client.py",
    }
    conn = sqlite3.connect(root / ".charter" / "search.db")
    try:
        dump = "\n".join(conn.iterdump())  # chunks, FTS shadow tables, records, ledger
        ledger = conn.execute("SELECT path, line, detector FROM redactions").fetchall()
    finally:
        conn.close()
    assert leaks(dump, secrets) == []
    assert ("notes/deploy-key.txt", 3, "private-key") in ledger
    assert ("docs/runbook.md", 10, "basic-auth-credentials") in ledger
    assert ("docs/old-setup.md", 5, "aws-access-key") in ledger
    assert ("sot/accounts.csv", 2, "credential-column") in ledger
    assert "[REDACTED:" in dump  # redacted in place, the text around it kept
    assert "Refunds go through Stripe with `[REDACTED:stripe-access-key]`" in dump


@pytest.mark.parametrize("mode", ["planning", "execution", "review"])
def test_cli_search_serves_no_secret(indexed, run_charter, mode: str) -> None:
    root, secrets, _ = indexed
    seen_paths: set[str] = set()
    for query in QUERIES:
        for extra in ([], ["--json"]):
            proc = run_charter("search", query, "--mode", mode, "-k", "10", *extra, cwd=root)
            assert proc.returncode == 0, proc.stderr
            assert leaks(proc.stdout + proc.stderr, secrets) == [], (query, extra)
            if extra:
                seen_paths |= {r["path"] for r in json.loads(proc.stdout)["results"]}
    if mode == "review":  # the deleted file and the secret-bearing files were served, clean
        assert {"docs/old-setup.md", "notes/deploy-key.txt", "config/aws.yaml"} <= seen_paths


def _built_with_scan_off(root: Path, tmp_path: Path, *command: str) -> Path:
    """A copy of ``root`` where ``charter <command>`` ran with the secret scan off; the
    scan is on again afterwards, as for a project upgraded from before the scan."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".charter"))
    toml = copy / "charter.toml"
    toml.write_text(toml.read_text() + "\n[secrets]\nenabled = false\n")
    proc = subprocess.run([*CHARTER, *command], cwd=copy, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    toml.write_text(toml.read_text().replace("enabled = false", "enabled = true"))
    return copy


def test_old_index_is_cleaned_on_the_way_out(planted, run_charter, tmp_path: Path) -> None:
    """An index written before the scan existed still serves redacted text."""
    root, secrets = planted
    copy = _built_with_scan_off(root, tmp_path, "index")
    proc = run_charter("search", "slack bot token deploy alerts", "--json", cwd=copy)
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout, secrets) == []
    assert "[REDACTED:slack-token]" in proc.stdout
    # and the next index run re-reads every file because the index predates the scan
    assert run_charter("index", cwd=copy).returncode == 0
    conn = sqlite3.connect(copy / ".charter" / "search.db")
    try:
        assert leaks("\n".join(conn.iterdump()), secrets) == []
    finally:
        conn.close()


def test_facts_check_never_shows_a_credential_column(indexed, run_charter) -> None:
    root, secrets, _ = indexed
    text = (
        "ACC-001 renews on 2026-01-31. ACC-002 password is 11112222 and renews 2026-03-15.\n"
        f"The Acme Logistics password is {secrets['csv_password'][:3]}.\n"
    )
    proc = run_charter("facts", "check", "-", "--json", cwd=root, stdin=text)
    assert proc.returncode in (0, 1), proc.stderr
    assert leaks(proc.stdout + proc.stderr, secrets) == []
    report = json.loads(proc.stdout)
    assert report["counts"]["verified"] >= 2  # the rest of the SoT still answers


def test_rules_context_and_compile_serve_no_secret(indexed, run_charter) -> None:
    root, secrets, _ = indexed
    proc = run_charter("compile", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout + proc.stderr, secrets) == []
    assert "secret redacted (gitlab-token)" in proc.stdout  # reported, without the value
    for task in ("publish the package to the registry", "tag the release build"):
        for extra in ([], ["--json"]):
            proc = run_charter("context", task, *extra, cwd=root)
            assert proc.returncode == 0, proc.stderr
            assert leaks(proc.stdout + proc.stderr, secrets) == []
    state = (root / ".charter" / "rules.json").read_text()
    assert leaks(state, secrets) == []
    assert "[REDACTED:gitlab-token]" in state


def test_graph_stores_and_serves_no_secret(indexed, run_charter) -> None:
    """The graph keeps every file's words for task context: a key in a config file or a
    source file must not become one of them (nor be served as a matched term)."""
    root, secrets, _ = indexed
    values = " ".join(v for v in secrets.values() if " " not in v and "\n" not in v)
    for task in QUERIES:
        proc = run_charter("task-context", task, "--json", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert leaks(proc.stdout + proc.stderr, secrets) == []
        # a task that quotes the values themselves: no stored term may match them
        proc = run_charter("task-context", f"{task} {values}", "--json", cwd=root)
        assert proc.returncode == 0, proc.stderr
        served = json.dumps(json.loads(proc.stdout)["nodes"])
        assert leaks(served, secrets) == []
    graph = root / ".charter" / "graph"
    stored = "".join(
        p.read_bytes().decode("latin-1") for p in sorted(graph.rglob("*")) if p.is_file()
    )
    assert stored and leaks(stored, secrets) == []


def test_hooks_inject_no_secret(indexed, run_charter) -> None:
    root, secrets, _ = indexed
    for source in ("startup", "compact"):
        proc = run_hook(run_charter, root, "SessionStart", source=source)
        assert proc.returncode == 0, proc.stderr
        text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "GitLab token [REDACTED:gitlab-token] only from CI" in text
        assert leaks(proc.stdout + proc.stderr, secrets) == []
    for prompt in ("Upload the release artifacts to the registry", "publish packages from CI"):
        proc = run_hook(run_charter, root, "UserPromptSubmit", prompt=prompt)
        assert proc.returncode == 0, proc.stderr
        assert leaks(proc.stdout + proc.stderr, secrets) == []


def test_hooks_redact_a_stale_compiled_state(planted, run_charter, tmp_path: Path) -> None:
    """Rules compiled with the scan off are cleaned by the hook on the way out."""
    root, secrets = planted
    copy = _built_with_scan_off(root, tmp_path, "compile")
    assert leaks((copy / ".charter" / "rules.json").read_text(), secrets)  # the probe is real
    # the config changed, so the hook recompiles; either way nothing leaks
    proc = run_hook(run_charter, copy, "SessionStart")
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout, secrets) == []


async def _mcp(root: Path, query: str, mode: str, extra: bool) -> list[Any]:
    from mcp import Client

    out: list[Any] = []
    async with Client(mcp_server_params(root)) as client:
        out.append(await client.call_tool("search", {"query": query, "mode": mode, "k_out": 10}))
        if extra:
            text = "ACC-002 password is 11112222; ACC-001 renews 2026-01-31"
            out.append(await client.call_tool("verify_facts", {"text": text}))
            out.append(await client.call_tool("get_constitution", {}))
            out.append(
                await client.call_tool("rules_for_task", {"task": "upload release artifacts"})
            )
    return out


#: One search per server session: the search engine is opened in the first call's thread
#: (concurrent calls in one session are the MCP threading tests' subject, not this one's).
MCP_CALLS = [
    ("old setup storage key and mirror token", "review", True),
    ("deploy key private key rotation aws access key", "review", False),
    ("github token slack bot token stripe refunds postgres", "review", False),
    ("service JWT password gitlab token", "review", False),
    ("password of account ACC-001 Acme Logistics", "execution", False),
]


def test_mcp_tools_serve_no_secret(indexed) -> None:
    root, secrets, _ = indexed
    results = [r for call in MCP_CALLS for r in anyio.run(_mcp, root, *call)]
    assert all(not r.is_error for r in results)
    payloads = [json.dumps(tool_payload(r)) for r in results]
    served = {r["path"] for p in payloads for r in json.loads(p).get("results", [])}
    assert {"docs/old-setup.md", "notes/deploy-key.txt", "sot/accounts.csv"} <= served
    assert any("[REDACTED:" in p for p in payloads)
    for payload in payloads:
        assert leaks(payload, secrets) == []


def test_doctor_reports_what_was_redacted_where(indexed, run_charter) -> None:
    root, secrets, _ = indexed
    proc = run_charter("doctor", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout, secrets) == []
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    secrets_check = checks["secrets"]
    assert secrets_check["status"] == "warn" and secrets_check["fix"]
    files = {f["path"]: f for f in secrets_check["detail"]["files"]}
    assert files["notes/deploy-key.txt"]["detectors"] == {"private-key": 1}
    assert files["docs/old-setup.md"]["origin"] == "git"
    assert files["CLAUDE.md"]["count"] >= 2
    text = run_charter("doctor", cwd=root)
    assert text.returncode == 0 and "sot/accounts.csv" in text.stdout
    assert leaks(text.stdout, secrets) == []


def test_doctor_does_not_count_ci_and_devcontainer_dev_defaults(repo: Path, run_charter) -> None:
    """A CI workflow's service containers, a dev container and a compose file set their
    database passwords to dev defaults (`POSTGRES_PASSWORD: postgres`): `charter doctor`
    reports only the one real password among them, not the defaults as leaks to rotate."""
    real = make_secrets(seed=4)["env_password"]
    files = {
        "charter.toml": '[embed]\nprovider = "hash"\n\n[hooks]\nwarm_worker = false\n',
        ".github/workflows/ci.yml": (
            "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
            "    services:\n      postgres:\n        image: postgres:16\n        env:\n"
            "          POSTGRES_USER: postgres\n          POSTGRES_PASSWORD: postgres\n"
            "      mysql:\n        image: mysql:8\n        env:\n"
            "          MYSQL_ROOT_PASSWORD: root\n"
            "    env:\n"
            "      DATABASE_URL: postgres://postgres:postgres@localhost:5432/app_test\n"
            "      SECRET_KEY_BASE: test\n"
            "    steps:\n      - run: bin/rails test\n"
        ),
        ".devcontainer/devcontainer.json": json.dumps(
            {
                "name": "app",
                "containerEnv": {
                    "POSTGRES_PASSWORD": "postgres",
                    "REDIS_PASSWORD": "changeme",
                    "SESSION_SECRET": "change-me-dev",
                },
            },
            indent=2,
        ),
        "compose.yaml": (
            "services:\n  db:\n    image: postgres:16\n    environment:\n"
            "      POSTGRES_PASSWORD: postgres123\n"
            "  minio:\n    environment:\n      MINIO_ROOT_PASSWORD: minioadmin\n"
            f"  worker:\n    environment:\n      DB_PASSWORD: {real}\n"
        ),
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    indexed = run_charter("index", "--json", cwd=repo)
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["redacted"] == {"compose.yaml": 1}
    proc = run_charter("doctor", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert real not in proc.stdout
    check = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}["secrets"]
    assert check["summary"].startswith("1 secret(s) redacted in 1 file(s)")
    assert [(f["path"], f["lines"]) for f in check["detail"]["files"]] == [("compose.yaml", [11])]
