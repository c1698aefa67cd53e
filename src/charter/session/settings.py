"""Settings of tiered session state (seed 002).

The seed's paths are the defaults here, never constants in code: a team that keeps its
plans elsewhere changes a key, and recovery follows.
"""

from __future__ import annotations

from typing import Literal

from charter.records import Field, Record
from charter.secretscan.settings import SECRET_FILE_GLOBS

DEFAULT_CORE = [
    "CLAUDE.md",
    "docs/context/CONTEXT_CORE.md",
    "docs/context/ROLES.md",
    "docs/context/GUARDRAILS.md",
]


#: What a guardrail does with a call one of its checks catches: refuse it, ask the user,
#: or let it through (the check is off).
HeldCall = Literal["deny", "ask", "off"]


class GuardrailSettings(Record):
    """PreToolUse policy: which tools may run and where writes may land."""

    enabled: bool = Field(default=True, description="enforce guardrails in the PreToolUse hook")
    allowed_tools: list[str] = Field(
        default_factory=lambda: ["*"],
        description="globs over tool names (mcp__* included); default all",
    )
    planning_scopes: list[str] = Field(
        default_factory=lambda: ["docs/", "artifacts/"],
        description="where writes may land while the active track is planning",
    )
    protected: list[str] = Field(
        default_factory=lambda: [".git/", ".charter/"],
        description="never writable (plus secret files and anything outside the project)",
    )
    secret_files: list[str] = Field(
        default_factory=lambda: [
            *SECRET_FILE_GLOBS,
            "id_ecdsa*",
            "credentials",
            "credentials.*",
            "*.credentials",
        ],
        description="file-name globs never written by the agent (secrets)",
    )
    scratch_dirs: list[str] = Field(
        default_factory=lambda: ["/tmp", "/var/tmp"],
        description="outside the project but writable (scratch space; the system temp "
        "dir is always added)",
    )
    audit_log: str = Field(
        default="artifacts/guardrails/audit.jsonl", description="one JSON line per blocked call"
    )
    rule_commands: HeldCall = Field(
        default="deny",
        description='a Bash command a compiled rule forbids outright ("never run `dune '
        'clean`", "use `uv add` instead of `pip install`"; no condition such as '
        '"against production"): deny it citing the rule, ask the user, or off (off also '
        "drops what a rule holds until the user asks, which is always asked)",
    )
    rule_edits: HeldCall = Field(
        default="deny",
        description='a file a compiled rule forbids editing ("do not edit `dist/` '
        'directly", "never edit `db/schema.rb` by hand"), written by the agent\'s file '
        "tools or rewritten in place by a shell command (sed -i, perl -i): deny it citing "
        "the rule, ask the user, or off",
    )
    user_edits: HeldCall = Field(
        default="ask",
        description='a file the user told this session not to edit ("never touch '
        "backend/migrations/\"), written by the agent's file tools or rewritten in place by "
        "a shell command (sed -i, perl -i): ask the user (who may have changed their mind), "
        "deny it quoting them, or off",
    )
    secret_content: HeldCall = Field(
        default="ask",
        description="a write by the agent's file tools (Write, Edit, MultiEdit, "
        "NotebookEdit, apply_patch) whose new text holds a secret, found by content "
        "(a cloud key, a token, a private key; [secrets] settings and allow-list apply): "
        "ask the user, deny it, or off. The reason names the detector and line, never "
        "the value",
    )
    user_commands: HeldCall = Field(
        default="ask",
        description='a Bash command the user told this session not to run ("never run '
        '`deno publish`", "don\'t run npm publish, I release by hand"; no condition such '
        'as "in CI"): ask the user (who may have changed their mind), deny it quoting '
        "them, or off",
    )


class RetentionSettings(Record):
    """How much session history is kept (``charter session prune``).

    The journal, checkpoint history, transient folders, inject-once records and audit log
    all grow with every session; a user who runs an agent daily for months would carry
    them all. What a restore still reads is never pruned, whatever these say."""

    keep_sessions: int = Field(
        default=20,
        ge=1,
        description="per track, the newest N sessions keep their journal events and "
        "transient folder (the session a checkpoint names, the newest plan and decisions "
        "or risks not yet compacted are always kept)",
    )
    keep_checkpoints: int = Field(
        default=20,
        ge=1,
        description="per track, checkpoint history files kept (latest.json always)",
    )
    injected_days: int = Field(
        default=30,
        ge=1,
        description="inject-once records of conversations not seen for this many days are dropped",
    )
    audit_max_entries: int = Field(
        default=10000, ge=100, description="the guardrails audit log keeps its newest N entries"
    )
    auto_prune: bool = Field(
        default=True, description="prune at SessionStart, at most once a day (never on a tool call)"
    )


class SessionSettings(Record):
    core_files: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CORE),
        description="core tier, always loaded, in this order",
    )
    context_dir: str = Field(default="docs/context", description="the seed's deliverables")
    tracks_dir: str = Field(default="docs/tracks", description="one folder per track")
    active_track_file: str = Field(
        default="docs/tracks/ACTIVE_TRACK", description="names the active track"
    )
    sessions_dir: str = Field(
        default="artifacts/sessions", description="transient tier, one folder per session id"
    )
    checkpoints_dir: str = Field(
        default="artifacts/checkpoints", description="latest.json and history per track"
    )
    work_log_max_bytes: int = Field(
        default=65536, ge=1024, description="work_log.md rolling window"
    )
    test_output_max_bytes: int = Field(
        default=8192, ge=256, description="tail of the last test run"
    )
    recent_diff_max_bytes: int = Field(default=32768, ge=1024, description="bounded git diff")
    recover_budget_tokens: int = Field(
        default=2600,
        ge=200,
        description="tokens of recovered context (with constitution and invariants); "
        "Claude Code shows at most 10,000 characters of hook context",
    )
    recover_max_share: float = Field(
        default=0.06,
        gt=0,
        le=1,
        description="recovered context is at most this share of the conversation the "
        "compaction replaced (estimated from its words), so a short session is not "
        "restored at nearly its own size",
    )
    recover_min_tokens: int = Field(
        default=400, ge=100, description="the recovered context may always use this many tokens"
    )
    instruction_max_chars: int = Field(
        default=400,
        ge=40,
        description="a prompt up to this long is kept verbatim; longer ones are cut to "
        "their lead and directive sentences",
    )
    core_writes: Literal["propose", "auto"] = Field(
        default="propose",
        description="new global invariants: propose (a reviewable file) or auto "
        "(appended to CONTEXT_CORE.md)",
    )
    guardrails: GuardrailSettings = Field(default_factory=GuardrailSettings)
    retention: RetentionSettings = Field(default_factory=RetentionSettings)
