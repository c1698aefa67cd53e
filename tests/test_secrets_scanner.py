"""The secret scanner: each detector, redaction in place, records, allow-list, no false
positives on this repository's own prose and code, and no import cost on clean text.

Credentials are built in code (tests/secrets_support.py) so none is committed here.
"""

from __future__ import annotations

import hashlib
import string
import subprocess
import sys
from pathlib import Path

import pytest

from charter.errors import CharterError
from charter.search.chunks import Chunk, ParsedDoc
from charter.search.parse import parse_file
from charter.secretscan.apply import scrub_parsed, text_kind
from charter.secretscan.scanner import Scanner, could_hold_secret, is_placeholder
from charter.secretscan.settings import SecretsSettings
from tests.secrets_support import leaks, make_secrets

REPO = Path(__file__).resolve().parents[1]
S = make_secrets(seed=3)


@pytest.mark.parametrize(
    ("line", "kind", "secret", "detector"),
    [
        (f"aws_access_key_id = {S['aws_key_id']}", "config", "aws_key_id", "aws-access-key"),
        (f"Bot token `{S['slack']}` posts alerts.", "prose", "slack", "slack-token"),
        (f"refunds: {S['stripe']}", "prose", "stripe", "stripe-access-key"),
        (f"clone with {S['github']} today", "prose", "github", "github-token"),
        (f"publish with {S['gitlab']}.", "prose", "gitlab", "gitlab-token"),
        (f'JWT = "{S["jwt"]}"', "code", "jwt", "json-web-token"),
        (f"url: https://ci:{S['db_password']}@db.example.org/x", "prose", "db_password", None),
        (f'password = "{S["code_password"]}"', "code", "code_password", "secret-keyword"),
        (f"password: {S['csv_password']}", "config", "csv_password", "secret-keyword"),
    ],
)
def test_each_detector_redacts_in_place(line: str, kind: str, secret: str, detector) -> None:
    out = Scanner().redact(f"before\n{line}\nafter", kind=kind)
    assert leaks(out.text, {secret: S[secret]}) == []
    assert out.text.startswith("before\n") and out.text.endswith("\nafter")
    assert out.text.count("\n") == 2  # line numbers never move
    assert [f.line for f in out.findings] == [2]
    if detector:
        assert out.findings[0].detector == detector
        assert f"[REDACTED:{detector}]" in out.text
    again = Scanner().redact(out.text, kind=kind)  # idempotent: a mark is never re-redacted
    assert again.text == out.text and again.findings == []


@pytest.mark.parametrize(
    ("token", "detector"),
    [
        ("sk-ant-api03-" + S["github"] + S["slack"].replace("-", "_"), "anthropic-api-key"),
        ("sk-proj-" + S["aws_secret"].replace("/", "_").replace("+", "-"), "openai-api-key"),
        ("AIza" + S["github"][4:39], "google-api-key"),
        ("hf_" + S["github"][4:38], "huggingface-token"),
    ],
)
def test_newer_token_formats(token: str, detector: str) -> None:
    out = Scanner().redact(f"export it: {token} now", kind="prose")
    assert out.text == f"export it: [REDACTED:{detector}] now"
    header = Scanner().redact(f'curl -H "Authorization: Bearer {S["jwt"][::-1]}"', kind="code")
    assert header.findings and S["jwt"][::-1] not in header.text


def test_basic_auth_keeps_user_and_host() -> None:
    out = Scanner().redact(f"postgres://deploy:{S['db_password']}@db.internal:5432/app")
    assert out.text == "postgres://deploy:[REDACTED:basic-auth-credentials]@db.internal:5432/app"


def _key(lines: int = 4) -> tuple[str, list[str]]:
    import base64
    import random

    rng = random.Random(5)
    body = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(lines)]
    return "\n".join(
        ["-----BEGIN OPENSSH PRIVATE KEY-----", *body, "-----END OPENSSH PRIVATE KEY-----"]
    ), body


def test_private_key_blocks_whole_open_escaped_and_split() -> None:
    block, body = _key()
    secrets = {f"l{i}": b for i, b in enumerate(body)}
    scanner = Scanner()
    whole = scanner.redact(f"intro\n{block}\noutro")
    assert leaks(whole.text, secrets) == [] and "intro" in whole.text and "outro" in whole.text
    assert whole.text.count("\n") == block.count("\n") + 2
    assert [(f.line, f.detector) for f in whole.findings] == [(2, "private-key")]
    escaped = block.replace("\n", "\\n")  # a key inside a JSON string
    assert leaks(scanner.redact(f'{{"key": "{escaped}"}}', kind="config").text, secrets) == []
    no_end = "\n".join(block.split("\n")[:-1])  # the chunk ends before END
    assert leaks(scanner.redact(no_end + "\nnext paragraph").text, secrets) == []
    tail = "\n".join(block.split("\n")[2:])  # the chunk starts inside the block
    assert leaks(scanner.redact(tail).text, secrets) == []


def test_records_redact_credential_columns_and_detected_values() -> None:
    csv = (
        "id,client,db_password,apiKey,token_count,notes\n"
        f"A-1,Acme,{S['csv_numeric_password']},k-{S['code_password']},1200,"
        f"uses {S['github']}\n"
    )
    parsed = parse_file(csv, "csv", "sot/a.csv")
    found = scrub_parsed(parsed, "sot/a.csv", "csv", Scanner())
    record = parsed.chunks[0].record
    assert record is not None
    assert record["db_password"] == "[REDACTED:credential-column]"
    assert record["apiKey"] == "[REDACTED:credential-column]"
    assert record["token_count"] == "1200"  # about tokens, not a token
    assert record["notes"] == "uses [REDACTED:github-token]"
    assert record["client"] == "Acme"
    assert leaks(parsed.chunks[0].text, S) == []
    assert {r.detector for r in found} == {"credential-column", "github-token"}
    assert {r.line for r in found} == {2}


def test_column_names_match_by_word() -> None:
    scanner = Scanner()
    for name in ("password", "DB_PASSWORD", "userPassword", "api-key", "client_secret", "PIN"):
        assert scanner.credential_column(name), name
    for name in (
        "token_count",
        "max_tokens",
        "author",
        "password_policy",
        "keynote",
        "pinned",
        "from_secret",  # a CI step's `from_secret: kube_token_prod` names the secret
        "fromSecret",
    ):
        assert not scanner.credential_column(name), name


def test_allow_list_by_path_hash_and_regex() -> None:
    line = f"token: {S['github']}"
    digest = hashlib.sha256(S["github"].encode()).hexdigest()
    for allow, path in (
        (["docs/examples/**"], "docs/examples/a.md"),
        ([f"sha256:{digest}"], "x.md"),
        (["re:^ghp_"], "x.md"),
    ):
        out = Scanner(SecretsSettings(allow=allow)).redact(line, path=path)
        assert out.text == line, allow
    assert Scanner(SecretsSettings(allow=["docs/examples/**"])).redact(line, path="a.md").findings
    with pytest.raises(CharterError, match=r"secrets\.allow"):
        Scanner(SecretsSettings(allow=["re:("]))


def test_disabled_scanner_changes_nothing() -> None:
    line = f"key {S['aws_key_id']}"
    assert Scanner(SecretsSettings(enabled=False)).redact(line).text == line
    doc = ParsedDoc([Chunk("text", 1, 1, "", "", line)])
    assert scrub_parsed(doc, "a.txt", "text", Scanner(SecretsSettings(enabled=False))) == []


PROSE_AND_CODE = [
    "Passwords must be at least 12 characters; never share a secret in chat.",
    "Set the token: see docs/secrets.md and export ${API_TOKEN} before running.",
    'api_key = os.environ["API_KEY"]',
    "password = get_password(user)",
    "if password == confirm_password: save(user)",
    "The secret_key setting names the env var holding it (default SECRET_KEY).",
    "Tokens per second rose from 1200 to 4800 after caching (p50 85 ms).",
    "See https://github.com/org/repo/blob/main/docs/setup.md#L10-L20 for setup.",
    "sha256 = 3f786850e387550fdab836ed7e6dc881de23001b (commit e83c5163316f89bf)",
    "UUID 123e4567-e89b-12d3-a456-426614174000 identifies the tenant.",
    "password: required",
    "auth_token: <your token here>",
    # test fixtures and docs whose dummy value names its own kind (a real test suite
    # had 422 of these flagged, each asking for a rotation)
    "provider = GoogleProvider(api_key='your-api-key')",
    "client = AsyncOpenAI(api_key='test-key', base_url=base_url)",
    'assert provider.client.api_key == "dashscope-api-key"',
    "export OPENAI_API_KEY=your-api-key",
    'session = login(user, password="test-password")',
]


def _flags_nothing(text: str) -> None:
    """``text`` draws no finding read as any kind of file."""
    for kind in ("prose", "code", "config"):
        assert Scanner().redact(text, kind=kind).findings == [], kind


@pytest.mark.parametrize("text", PROSE_AND_CODE)
def test_no_false_positive_on_ordinary_prose_and_code(text: str) -> None:
    _flags_nothing(text)


def test_no_false_positive_on_this_repository() -> None:
    """Our own docs, source and demo project hold no secret: nothing may be flagged."""
    scanner = Scanner()
    flagged = []
    suffixes = {".md": "markdown", ".py": "python", ".yaml": "yaml", ".csv": "csv"}
    for base in ("docs", "src", "examples/demo-project"):
        for path in sorted((REPO / base).rglob("*")):
            kind = suffixes.get(path.suffix)
            if kind is None or not path.is_file():
                continue
            rel = path.relative_to(REPO).as_posix()
            result = scanner.redact(path.read_text(encoding="utf-8"), kind=text_kind(kind, rel))
            flagged += [f"{rel}:{f.line} {f.detector}" for f in result.findings]
    assert flagged == []


def test_a_type_annotation_in_a_notes_code_block_is_no_secret() -> None:
    # a journal's Python excerpt: in prose the unquoted value was cut at the first space
    # and its closing "]" stripped as the sentence's, so "Optional[str" was a secret
    _flags_nothing("    api_key: Optional[str] = None")
    _flags_nothing(
        '    ss_api_key: Optional[str] = typer.Option(None, "--ss-api-key", '
        'envvar="SEMANTIC_SCHOLAR_API_KEY"),'
    )
    _flags_nothing("    auth_token: dict[str, str] = {}")
    # a bracket that closes the sentence around a value is still not part of it
    out = Scanner().redact("(or use SMTP_PASSWORD=x9LkT7qP2zW4)", kind="prose")
    assert out.text == "(or use SMTP_PASSWORD=[REDACTED:secret-keyword])"


def test_clean_text_never_imports_detect_secrets() -> None:
    """The pre-filter keeps detect-secrets (0.1 s to import) off the path of clean text."""
    code = (
        "import sys\n"
        "from charter.secretscan.scanner import Scanner, could_hold_secret, is_placeholder\n"
        "text = 'Never commit secrets. Use type hints on public functions. Tokens: 1200.'\n"
        "assert Scanner().redact(' '.join([text] * 50)).findings == []\n"
        "print('detect_secrets' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert could_hold_secret(f"x {S['aws_key_id']}") and not could_hold_secret("plain words")


def test_minified_long_line_is_scanned_in_windows() -> None:
    line = ("a" * 3000) + f" {S['stripe']} " + ("b=1;" * 2000)
    out = Scanner().redact(line)
    assert leaks(out.text, {"stripe": S["stripe"]}) == []
    assert len(out.text) < len(line)


def test_ci_expressions_are_references_not_secrets(tmp_path: Path) -> None:
    """A GitHub Actions workflow names its credentials by expression (``${{ secrets.X }}``,
    ``${VAR:-}``): nothing there is a secret, while a literal token in the same file is."""
    workflow = tmp_path / ".github" / "workflows" / "release.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(
        "name: release\n"
        "jobs:\n"
        "  release:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - uses: actions/create-github-app-token@v1\n"
        "        with:\n"
        "          private-key: ${{ secrets.APP_PRIVATE_KEY }}\n"
        "      - uses: actions/checkout@v4\n"
        "        with:\n"
        "          token: ${{ steps.app-token.outputs.token }}\n"
        "      - run: make publish\n"
        "        env:\n"
        "          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n"
        "          DB_PASSWORD: ${DB_PASSWORD:-}\n"
        "      - run: make mirror\n"
        "        with:\n"
        f"          token: {S['github']}\n",
        encoding="utf-8",
    )
    rel = workflow.relative_to(tmp_path).as_posix()
    parsed = parse_file(workflow.read_text(encoding="utf-8"), "yaml", rel)
    found = scrub_parsed(parsed, rel, "yaml", Scanner())
    assert [r.line for r in found] == [18]
    text = "\n".join(chunk.text for chunk in parsed.chunks)
    assert "${{ secrets.APP_PRIVATE_KEY }}" in text
    assert "${{ steps.app-token.outputs.token }}" in text
    assert leaks(text, S) == []


#: Credentials CI services, dev containers and compose files set to values anyone can
#: read: each a dev default or placeholder, none a secret to rotate.
PLACEHOLDER_LINES = [
    "POSTGRES_PASSWORD: postgres",
    "MYSQL_ROOT_PASSWORD: root",
    "MYSQL_PASSWORD: secret",
    'REDIS_PASSWORD: "changeme"',
    "MINIO_ROOT_PASSWORD: minioadmin",
    "KEYCLOAK_ADMIN_PASSWORD: admin",
    "SECRET_KEY_BASE: test",
    "PG_PASSWORD: postgres123",
    "DEV_PASSWORD: devpassword",
    "ADMIN_PASSWORD: P@ssw0rd",
    "SMTP_PASSWORD: xxxxxx",
    'MASKED_PASSWORD: "********"',
    'DB_PASSWORD: "<your-password>"',
    "API_KEY: abcdefghijklmnop",
    '"DB_PASSWORD": "app_user",',
    "DATABASE_URL: postgres://postgres:postgres@localhost:5432/app_test",
    "OTHER_URL: mysql://app:password@127.0.0.1/app",
]


@pytest.mark.parametrize("line", PLACEHOLDER_LINES)
def test_placeholder_and_dev_default_credentials_are_not_secrets(line: str) -> None:
    _flags_nothing(line)


#: Real-looking values under the same keys stay secrets (user and key names included).
REAL_LINES = [
    (f"POSTGRES_PASSWORD: {S['env_password']}", "env_password"),
    (f"MYSQL_ROOT_PASSWORD: '{S['csv_password']}'", "csv_password"),
    (f'ADMIN_PASSWORD = "{S["code_password"]}"', "code_password"),
    (f"DATABASE_URL: postgres://postgres:{S['db_password']}@db:5432/app", "db_password"),
    (f"SECRET_KEY_BASE: {hashlib.sha256(b'k').hexdigest()}", ""),
]


@pytest.mark.parametrize(("line", "secret"), REAL_LINES)
def test_real_values_under_placeholder_keys_stay_secrets(line: str, secret: str) -> None:
    out = Scanner().redact(line, kind="config")
    assert len(out.findings) == 1, out
    assert leaks(out.text, {secret: S[secret]} if secret else {"hex": line.split()[-1]}) == []


def test_a_collection_key_with_a_mode_is_no_secret_but_one_credential_is() -> None:
    """GitHub Actions passes a caller's secrets on with ``secrets: inherit``: a key naming
    many credentials and a one-word mode. The singular key with the same word, and the
    plural key with a generated value, stay findings."""
    workflow = "jobs:\n  call:\n    uses: ./.github/workflows/deploy.yml\n    secrets: inherit\n"
    assert Scanner().redact(workflow, kind="config").findings == []
    assert len(Scanner().redact("secret: inherit", kind="config").findings) == 1
    generated = "secrets: " + S["env_password"]
    assert len(Scanner().redact(generated, kind="config").findings) == 1


def test_placeholder_rule_spares_generated_secrets() -> None:
    """Generated credentials of every common shape are never taken for placeholders."""
    import random
    import string

    rng = random.Random(7)
    shapes = {
        "alnum": string.ascii_letters + string.digits,
        "hex": "0123456789abcdef",
        "symbols": string.ascii_letters + string.digits + "!#%&*+-",
    }
    for name, chars in shapes.items():
        for length in (10, 16, 32):
            values = ["".join(rng.choice(chars) for _ in range(length)) for _ in range(300)]
            kept = [v for v in values if is_placeholder(v, "DB_PASSWORD: ")]
            assert kept == [], (name, length, kept[:3])
    assert not is_placeholder("48213957", "password")  # a numeric one too
    assert is_placeholder("12345678", "password") and is_placeholder("postgres", "")


def test_a_credential_column_of_dev_defaults_is_kept() -> None:
    scanner = Scanner()
    assert scanner.redact_value("password", "postgres") == ("postgres", None)
    assert scanner.redact_value("SESSION_SECRET", "change-me") == ("change-me", None)
    # a weak password a person chose is still a leaked credential
    assert scanner.redact_value("password", "sunshine")[1] == "credential-column"
    assert scanner.redact_value("password", S["csv_numeric_password"])[1] == "credential-column"


def test_translation_catalogs_name_strings_not_credentials() -> None:
    """A locale file's ``"password": "Passwort"`` is the word on a login form: a
    Go/Vue app's 72 catalogs drew 333 redactions before. The keyword rule is off in a
    catalog (by its folder or its format), the same line elsewhere is still a secret, and
    a credential of a known format is found in a catalog too."""
    catalog = '{\n  "password": "Passwort",\n  "secret": "Geheimnis"\n}\n'
    for path in (
        "frontend/src/i18n/lang/de-DE.json",
        "locales/de/translation.json",
        "src/assets/pt_BR.json",
        "lib/l10n/app_de.arb",
    ):
        out = Scanner().redact(catalog, path=path, kind=text_kind("json", path))
        assert out.text == catalog and not out.findings, path
    for path in ("config/settings.json", "en.json", "deploy/values.yaml"):
        out = Scanner().redact(catalog, path=path, kind=text_kind("json", path))
        assert "Passwort" not in out.text and "Geheimnis" not in out.text, path
    token = S["github"]
    leaked = Scanner().redact(f'{{"token": "{token}"}}\n', path="locales/de.json", kind="config")
    assert token not in leaked.text and leaked.findings


def test_a_catalog_read_as_records_draws_no_credential_column_findings() -> None:
    """A Rails locale file is indexed as records (one per key path): ``password: New
    Password`` is a field named like a credential, and the column rule took the label for
    one. Off in catalogs, as the keyword rule is; the same record elsewhere is still
    redacted, and a token in a catalog still is."""
    catalog = (
        "en:\n  passwords:\n    edit:\n      password: New Password\n"
        "      password_confirmation: Confirm new password\n"
    )
    rel = "config/locales/views/passwords/en.yml"
    parsed = parse_file(catalog, "yaml", rel)
    assert parsed.chunks and any(c.record for c in parsed.chunks)
    assert scrub_parsed(parsed, rel, "yaml", Scanner()) == []
    assert "New Password" in "\n".join(c.text for c in parsed.chunks)
    other = "config/settings/admin.yml"
    parsed = parse_file(catalog, "yaml", other)
    assert [r.detector for r in scrub_parsed(parsed, other, "yaml", Scanner())]
    token = S["github"]
    parsed = parse_file(f"en:\n  token: {token}\n", "yaml", rel)
    assert scrub_parsed(parsed, rel, "yaml", Scanner())
    assert token not in "\n".join(c.text for c in parsed.chunks)


def test_a_password_the_file_shows_as_a_user_or_image_name_is_a_dev_default() -> None:
    """A CI workflow's database service: ``MYSQL_USER: mariadb``, ``MYSQL_PASSWORD:
    mariadb``, ``image: mariadb:11.7``. The password is the user and image name, shown in
    the open in the same file: no secret, neither as a record field nor as a line. A
    generated value there, or the same word in a file that does not show it, still is."""
    workflow = (
        "jobs:\n  test:\n    services:\n      db:\n        image: mariadb:11.7\n"
        "        env:\n          MYSQL_USER: mariadb\n          MYSQL_PASSWORD: mariadb\n"
        "    env:\n      DB_USERNAME: root\n      DB_PASSWORD: mariadb\n"
    )
    rel = ".github/workflows/test.yml"
    parsed = parse_file(workflow, "yaml", rel)
    assert scrub_parsed(parsed, rel, "yaml", Scanner()) == []
    real = workflow.replace("MYSQL_PASSWORD: mariadb", f"MYSQL_PASSWORD: {S['env_password']}")
    parsed = parse_file(real, "yaml", rel)
    assert len(scrub_parsed(parsed, rel, "yaml", Scanner())) == 1
    assert S["env_password"] not in "\n".join(c.text for c in parsed.chunks)
    alone = "env:\n  DB_PASSWORD: mariadb\n"
    assert scrub_parsed(parse_file(alone, "yaml", rel), rel, "yaml", Scanner())


def test_the_whole_text_pass_finds_every_line_the_line_filter_would() -> None:
    """``redact`` runs the per-line pre-filter only on lines one scan of the whole text
    marks: every line the filter passes must be marked, or a secret would be skipped.
    Checked on every planted secret's line among plain ones, on this repository's
    sources and on lines of random characters that favour the filter's triggers."""
    import random

    from charter.secretscan.scanner import candidate_lines

    texts = ["\n".join(["plain words", v, "x = 1", f"key: {v}", "", v]) for v in S.values()]
    texts += [p.read_text(encoding="utf-8") for p in sorted((REPO / "src").rglob("*.py"))]
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "_+=:/@'\"= \n-.keyAKIAxoxPASS"
    texts += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(3000)
    ]
    missed = []
    for text in texts:
        marked = candidate_lines(text)
        missed += [
            line
            for i, line in enumerate(text.split("\n"))
            if could_hold_secret(line) and i not in marked
        ]
    assert missed == []
    assert len(candidate_lines("a\nb\npassword = 'x1'\nc")) == 1


def test_a_key_that_names_a_secret_holds_none() -> None:
    # Kubernetes manifests name their TLS and volume secrets: `secretName` is the name of
    # a Secret object, not its value; `password_hint` and `token_type` are about one
    scanner = Scanner()
    for line in (
        "      secretName: demo-jaeger-tls",
        "  secret_name: prod-db",
        "  token_type: Bearer",
        'password_hint = "x9Lk2pQ"',
    ):
        result = scanner.redact(line, kind="config")
        assert result.findings == [] and result.text == line, line
    for line in ("  password: hunter2xyz9", 'db_password = "x9Lk2pQ77"', "SECRET_KEY=x9Lk2pQ77"):
        assert scanner.redact(line, kind="config").findings, line


# Helm values and Kubernetes manifests name where a secret lives on every other line
# (users' pass sixty-one: 45 of 1,015 files of a Helm chart monorepo asked when written);
# none of these holds one.
_NAMES_NOT_SECRETS = [
    ("secretStore: vault-backend", "config"),  # an External Secrets store
    ('  adminSecret: "keycloak-admin"', "config"),  # a Secret object, by name
    ("  tlsSecret: grafana.example.org-tls", "config"),
    ('  existingMasterKeySecret: "search-meili-config"', "config"),
    ("    - secretKey: apiKey", "config"),  # the key inside the Secret
    ("    - secretKey: accessKeyId", "config"),
    ("    - secretKey: client-id", "config"),
    ("    - secretKey: username", "config"),
    ("    - secretKey: accesskey", "config"),
    ("  updater.io/app.pull-secret: pullsecret:argocd/ghcr-pull", "config"),
    ("Credentials live in the manager's secret `prod/codeintel/env`; see below.", "prose"),
    ('#OPENAI_API_KEY: "user_provided"', "config"),  # a placeholder value
    ("  apiKey: sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "config"),  # filler
    ("""  --secret-string '{"apiKey":"sk-xxxx"}'""", "prose"),
]


@pytest.mark.parametrize(("line", "kind"), _NAMES_NOT_SECRETS)
def test_the_name_or_place_of_a_secret_is_no_secret(line: str, kind: str) -> None:
    found = Scanner().redact(line + "\n", path="values.yaml" if kind == "config" else "a.md",
                             kind=kind).findings  # fmt: skip
    assert found == [], line


@pytest.mark.parametrize(
    "text",
    [
        "k: |\n  -----BEGIN OPENSSH PRIVATE KEY-----\n  ...\n  -----END OPENSSH PRIVATE KEY-----\n",
        '"private_key": "-----BEGIN PRIVATE KEY-----\\nYOUR_PRIVATE_KEY\\n'
        '-----END PRIVATE KEY-----\\n",\n',
    ],
)
def test_a_private_key_block_with_a_placeholder_body_is_no_key(text: str) -> None:
    assert Scanner().redact(text, path="a.yaml", kind="config").findings == []


@pytest.mark.parametrize(
    "text",
    [
        # a GitHub Actions input holding JSON (pulumi/actions' ``config-map``)
        'config-map: |\n  {\n    "region": {"value": "${{ env.REGION }}", "secret": false}\n  }\n',
        '{"token": null}\n',
        "opts = {'password': None}\n",
        "creds: [secret: false]\n",
    ],
)
def test_a_placeholder_value_closed_by_its_bracket_is_no_secret(text: str) -> None:
    """``"secret": false}``: the brace closes the object, the value is ``false``."""
    assert Scanner().redact(text, path="ci.yaml", kind="config").findings == [], text
    assert Scanner().redact_value("config-map", text, kind="config")[1] is None, text


def test_a_real_value_closed_by_its_bracket_is_still_a_secret() -> None:
    line = '{"password": "' + S["csv_password"] + '"}\n'
    assert Scanner().redact(line, path="ci.yaml", kind="config").findings, line


def test_real_looking_values_beside_those_names_are_still_secrets() -> None:
    key = S["aws_key_id"]
    for line in (
        f"  adminSecret: {S['csv_password']}",
        f"  clientSecret: {S['csv_password']}",
        f"  AWS_ACCESS_KEY_ID: {key}",
        "  k: |\n    -----BEGIN RSA PRIVATE KEY-----\n    "
        + hashlib.sha256(b"x").hexdigest()
        + "\n    -----END RSA PRIVATE KEY-----",
    ):
        assert Scanner().redact(line + "\n", path="values.yaml", kind="config").findings, line


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (f'        storePassword "{S["code_password"]}"', "code"),  # Groovy Gradle DSL
        (f"        keyPassword '{S['code_password']}'", "code"),
        (f'  @secret "{S["code_password"]}"', "code"),  # an Elixir module attribute
        (f'  password "{S["code_password"]}"', "code"),  # Ruby
        (f'keyPassword "{S["code_password"]}"', "prose"),
    ],
)
def test_a_credential_call_without_parentheses_is_a_secret(line: str, kind: str) -> None:
    """``storePassword "x"`` (no ``=``, no parentheses, no ``;``) passed the keyword rule
    unredacted; it names a credential and gives its value as surely as ``password = "x"``."""
    out = Scanner().redact(line, kind=kind)
    assert leaks(out.text, {"code_password": S["code_password"]}) == []
    assert [f.detector for f in out.findings] == ["secret-keyword"]


@pytest.mark.parametrize(
    "line",
    [
        '        keyPassword System.getenv("KEY_PASSWORD")',
        '        storePassword "${keystorePassword}"',
        '  @token_ttl "3600"',
        '  @secret_name "prod-db-credentials"',
        '  @doc "Returns the api key for a project"',
        '  token "abc"',
    ],
)
def test_a_call_naming_a_credential_without_its_value_is_no_secret(line: str) -> None:
    assert Scanner().redact(line, kind="code").findings == []
