"""Settings of the secret scanner: on by default, with an allow-list for false positives.

Secrets are found by content (detect-secrets' precise plugins) in every chunk before it
is stored or served; the allow-list is the user's way to keep a value that only looks
like a credential (a documented example key, a test fixture) without turning the scan off.
"""

from __future__ import annotations

from charter.records import Field, Record

#: File names that hold credentials whatever their content (the name-based half of secret
#: detection): search never indexes them and the agent's writes never land in them.
#: Each capability's default list starts from these and adds its own.
SECRET_FILE_GLOBS = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
)


#: Words that mark a committed template of an environment file (``.env.example``,
#: ``.env.local.sample``, ``example.env``): it lists the variables a project needs with
#: placeholder values, rule files ask agents to keep it current ("add every new variable
#: to .env.example"), and its content is still scanned and redacted like any file's.
ENV_TEMPLATE_WORDS = frozenset({"example", "sample", "template", "tmpl", "dist"})


def is_env_template(name: str) -> bool:
    """An environment file's committed template, by its name (keys and certificates
    never are: an ``id_rsa.example`` is still a key)."""
    parts = name.lower().split(".")
    return "env" in parts and not ENV_TEMPLATE_WORDS.isdisjoint(parts)


class SecretsSettings(Record):
    """``[secrets]`` in charter.toml."""

    enabled: bool = Field(
        default=True, description="redact secrets found by content before storing or serving"
    )
    allow: list[str] = Field(
        default_factory=list,
        description=(
            'false positives kept as written: a path glob ("docs/examples/**"), '
            '"sha256:<hex of the value>" or "re:<regex matching the value>"'
        ),
    )
    high_entropy: bool = Field(
        default=False,
        description="also flag quoted high-entropy strings (noisy on prose; see docs)",
    )
    credential_columns: list[str] = Field(
        default_factory=lambda: [
            "password",
            "passwd",
            "pwd",
            "passphrase",
            "secret",
            "token",
            "api_key",
            "apikey",
            "private_key",
            "access_key",
            "secret_key",
            "client_secret",
            "credential",
            "credentials",
            "auth",
            "authorization",
            "pin",
        ],
        description="SoT columns/keys whose values are always redacted (matched by word)",
    )
