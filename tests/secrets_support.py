"""A project with planted, well-formed but fake credentials in every place they hide.

Built in code from a seeded RNG, so no credential-shaped string is committed in a
fixture file (that would trip secret scanners on this repository) and every run plants
the same values. ``plant`` returns the secret values; tests assert none of them, nor a
distinctive piece of one, comes out of any front door.
"""

from __future__ import annotations

import base64
import json
import random
import string
import subprocess
from pathlib import Path

ALNUM = string.ascii_letters + string.digits


def _rand(rng: random.Random, n: int, chars: str = ALNUM) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def _jwt(rng: random.Random) -> str:
    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    body = part({"sub": _rand(rng, 10, string.digits), "role": "deployer"})
    return f"{header}.{body}.{_rand(rng, 43, ALNUM + '-_')}"


def _private_key(rng: random.Random) -> tuple[str, list[str]]:
    lines = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(6)]
    block = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])
    return block, lines


def make_secrets(seed: int = 9) -> dict[str, str]:
    rng = random.Random(seed)
    return {
        "aws_key_id": "AKIA" + _rand(rng, 16, string.ascii_uppercase + string.digits),
        "aws_secret": _rand(rng, 40, ALNUM + "/+"),
        "github": "ghp_" + _rand(rng, 36),
        "slack": "xoxb-"
        + _rand(rng, 12, string.digits)
        + "-"
        + _rand(rng, 13, string.digits)
        + "-"
        + _rand(rng, 24, string.ascii_lowercase + string.digits),
        "stripe": "sk_live_" + _rand(rng, 24),
        "gitlab": "glpat-" + _rand(rng, 20),
        "gitlab_local": "glpat-" + _rand(rng, 20),
        "db_password": "Pg-" + _rand(rng, 14),
        "csv_password": _rand(rng, 6) + "#" + _rand(rng, 5, string.digits),
        "csv_numeric_password": _rand(rng, 8, "123456789"),
        "jwt": _jwt(rng),
        "history_aws_key_id": "AKIA" + _rand(rng, 16, string.ascii_uppercase + string.digits),
        "history_token": "ghp_" + _rand(rng, 36),
        "env_password": _rand(rng, 20),
        "code_password": "Zq" + _rand(rng, 12) + "!",
    }


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def plant(root: Path, *, seed: int = 9, config: str = "") -> dict[str, str]:
    """Write the planted project into ``root`` (a git repo is created) and return the
    secret values, including each line of the private key's body."""
    rng = random.Random(seed + 1)
    s = make_secrets(seed)
    key_block, key_lines = _private_key(rng)
    files = {
        "charter.toml": '[embed]\nprovider = "hash"\n\n[hooks]\nwarm_worker = false\n' + config,
        # AWS keys in a YAML config
        "config/aws.yaml": (
            "production:\n"
            f"  aws_access_key_id: {s['aws_key_id']}\n"
            f"  aws_secret_access_key: {s['aws_secret']}\n"
            "  region: eu-west-1\n"
            "  bucket: acme-invoices\n"
        ),
        # a private key pasted into a text note
        "notes/deploy-key.txt": (
            "Deploy key for the invoices bucket (rotate yearly).\n\n"
            f"{key_block}\n\nAsk ops before rotating the deploy key.\n"
        ),
        # a token in JSON
        "config/ci.json": json.dumps(
            {"ci": {"owner": "acme", "github_token": s["github"], "branch": "main"}}, indent=2
        )
        + "\n",
        # tokens and a basic-auth URL in Markdown docs
        "docs/runbook.md": (
            "# Runbook\n\n## Alerts\n\n"
            f"Post deploy alerts to Slack with the bot token `{s['slack']}`.\n"
            f"Refunds go through Stripe with `{s['stripe']}` in production.\n\n"
            "## Database\n\n"
            f"Connect with postgres://deploy:{s['db_password']}@db.internal:5432/invoices "
            "and run the invoice migrations from the deploy host.\n"
        ),
        # a token in the agent's own rule file (constitution and shards)
        "CLAUDE.md": (
            "# Project rules\n\n## Security\n\n"
            "- Never commit credentials; the CI reads them from the vault.\n"
            f"- Publish packages with the GitLab token {s['gitlab']} only from CI.\n\n"
            "## Release\n\n"
            f"- Release builds upload artifacts using token {s['gitlab_local']} to the registry.\n"
            "- Tag every release with the version number from pyproject.toml.\n"
        ),
        # a JWT and a password in code
        "src/client.py": (
            '"""Invoice API client."""\n\n'
            f'SERVICE_JWT = "{s["jwt"]}"\n'
            f'password = "{s["code_password"]}"\n\n\n'
            "def fetch_invoices(client):\n"
            '    """Fetch every invoice for the deploy report."""\n'
            '    return client.get("/invoices")\n'
        ),
        # a password column in a SoT CSV
        "sot/accounts.csv": (
            "account_id,client,password,renewal\n"
            f"ACC-001,Acme Logistics,{s['csv_password']},2026-01-31\n"
            f"ACC-002,Globex,{s['csv_numeric_password']},2026-03-15\n"
        ),
        # blocked by name before a byte is read
        ".env": f"DB_PASSWORD={s['env_password']}\n",
        "id_rsa": key_block + "\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    # a key in a file that was committed, then deleted from the working tree
    old = root / "docs" / "old-setup.md"
    old.write_text(
        "# Old setup\n\n## Storage\n\n"
        f"The invoices bucket was reached with key {s['history_aws_key_id']}.\n\n"
        f"Mirror pushes used {s['history_token']} for the deploy mirror.\n",
        encoding="utf-8",
    )
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "initial")
    _git(root, "rm", "-q", "docs/old-setup.md")
    _git(root, "commit", "-qm", "drop old setup notes")
    out = dict(s)
    for n, line in enumerate(key_lines):
        out[f"private_key_line_{n}"] = line
    return out


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    """Names of the secrets whose value, or a distinctive 10-character piece of it,
    occurs in ``text`` (a half-redacted token counts as a leak)."""
    found = []
    for name, value in secrets.items():
        pieces = {value}
        if len(value) >= 20:
            pieces |= {value[i : i + 10] for i in range(4, len(value) - 10, 6)}
        if any(p in text for p in pieces):
            found.append(name)
    return found
