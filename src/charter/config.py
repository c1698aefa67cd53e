"""Configuration: ``charter.toml`` or ``[tool.charter]`` in ``pyproject.toml``.

Every default from the seeds is a key here with the seed's value as its default, so a
project with no config file behaves exactly as the design documents describe, and
``charter init`` can write every default out where the user can see and change it.
Each capability owns the model of its own section (``charter.<capability>.settings``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charter.decisions.settings import DecisionsSettings, DriftSettings
from charter.errors import CharterError
from charter.graph.settings import GraphSettings
from charter.paths import CONFIG_FILE, STATE_DIR, find_root
from charter.records import Field, Record, RecordError
from charter.rules.settings import RulesSettings
from charter.search.settings import SearchSettings
from charter.secretscan.settings import SecretsSettings
from charter.session.settings import SessionSettings


class EmbedSettings(Record):
    """Which embedding provider turns text into vectors (rules, search and drift share it)."""

    provider: str = Field(
        default="minilm", description="minilm (bundled ONNX model) | hash | sentence-transformers"
    )
    model_path: str = Field(default="", description="local model dir for sentence-transformers")
    # 16 compiled 500 short rules ~5 % faster than 32, with byte-identical vectors
    batch_size: int = Field(
        default=16, ge=1, description="texts per model run (vectors do not depend on it)"
    )
    max_tokens: int = Field(default=256, ge=16, description="truncate inputs to this many tokens")


class HooksSettings(Record):
    warm_worker: bool = Field(default=True, description="keep a warm retrieval worker per session")
    worker_idle_seconds: int = Field(
        default=1800, ge=10, description="the warm worker exits after this many idle seconds"
    )
    timeout_seconds: float = Field(
        default=8.0, gt=0, description="give up and fail open after this"
    )
    max_memory_mb: int = Field(
        default=1024,
        ge=128,
        description="a hook or the warm worker above this memory gives up the request (fails open)",
    )
    manage_rule_files: bool = Field(
        default=True,
        description="install: Claude Code stops loading the rule files Charter compiles "
        "(claudeMdExcludes); Charter injects their rules instead",
    )


class Settings(Record):
    """The whole configuration, one section per capability."""

    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    rules: RulesSettings = Field(default_factory=RulesSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    decisions: DecisionsSettings = Field(default_factory=DecisionsSettings)
    drift: DriftSettings = Field(default_factory=DriftSettings)
    session: SessionSettings = Field(default_factory=SessionSettings)
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    secrets: SecretsSettings = Field(default_factory=SecretsSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)


def _find_root(start: Path) -> Path:
    return find_root(start)


def _load_raw(root: Path) -> tuple[dict[str, Any], Path | None]:
    path = root / CONFIG_FILE
    if path.is_file():
        return _read_toml(path), path
    if path.is_symlink() or path.exists():
        # a folder, a FIFO or a dangling link by that name: the user meant a config, and
        # running on the defaults in silence would drop every setting they wrote
        raise CharterError(f"{path}: not a regular file; {CONFIG_FILE} must be a TOML file")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject)
        tool = data.get("tool", {})
        section = tool.get("charter") if isinstance(tool, dict) else None
        if isinstance(section, dict):
            return section, pyproject
        if section is not None:  # `charter = 3` would otherwise be ignored in silence
            raise CharterError(f"{pyproject}: tool.charter: must be a table ([tool.charter])")
    return {}, None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        # "-sig": a byte-order mark (Windows editors write one) is no TOML statement, and
        # "Invalid statement (at line 1, column 1)" pointed at nothing the user could see
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise CharterError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise CharterError(
            f"invalid TOML in {path}: not UTF-8 (byte {exc.object[exc.start]:#04x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise CharterError(f"invalid TOML in {path}: {exc}") from None


def parse_settings(raw: dict[str, Any], source: str = "config", prefix: str = "") -> Settings:
    """The settings in ``raw``; the first problem is one error naming the file and the key
    as the user wrote it (``prefix`` is ``tool.charter.`` for a pyproject section)."""
    try:
        return Settings.model_validate(raw)
    except RecordError as exc:
        first = exc.errors()[0]
        where = prefix + ".".join(str(p) for p in first["loc"])
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise CharterError(f"{source}: {where}: {message}") from None


@dataclass
class Project:
    """A project root, its settings and where Charter keeps compiled state."""

    root: Path
    settings: Settings = field(default_factory=Settings)
    config_path: Path | None = None
    state_override: Path | None = None
    _state_checked: bool = field(default=False, init=False, repr=False, compare=False)

    @classmethod
    def load(cls, start: Path | str | None = None) -> Project:
        base = Path(start) if start is not None else Path.cwd()
        if not base.exists():
            raise CharterError(f"project path not found: {base}")
        if base.is_file():
            base = base.parent
        root = _find_root(base)
        raw, path = _load_raw(root)
        prefix = "tool.charter." if path is not None and path.name == "pyproject.toml" else ""
        settings = parse_settings(raw, str(path) if path else "config", prefix)
        return cls(root=root, settings=settings, config_path=path)

    @property
    def state_dir(self) -> Path:
        """``.charter`` under the root, refused (once checked) if it leads outside it."""
        if self.state_override is not None:
            return self.state_override
        path = self.root / STATE_DIR
        if not self._state_checked:
            from charter.boundary import check_state_dir

            check_state_dir(self.root, path)
            from charter.state_ignore import ensure_ignore_file

            ensure_ignore_file(path)
            self._state_checked = True
        return path

    @property
    def db_path(self) -> Path:
        return self.state_dir / "index.db"

    def rel(self, path: Path) -> str:
        """``path`` relative to the root, POSIX style (the form every citation uses)."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.resolve().as_posix()


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else _toml_value(key)


def _emit_table(name: str, model: Record, out: list[str], commented: bool = False) -> None:
    scalars: list[str] = []
    children: list[tuple[str, Record]] = []
    for key, info in type(model).model_fields.items():
        value = getattr(model, key)
        if isinstance(value, Record):
            children.append((f"{name}.{key}", value))
            continue
        if isinstance(value, dict) and value and all(isinstance(v, Record) for v in value.values()):
            for sub, sub_model in value.items():
                children.append((f"{name}.{key}.{_toml_key(sub)}", sub_model))
            continue
        if info.description:
            scalars.append(f"# {info.description}")
        dumped = value.model_dump() if isinstance(value, Record) else value
        line = f"{_toml_key(key)} = {_toml_value(dumped)}"
        scalars.append(f"# {line}" if commented else line)
    if scalars:
        out.append(f"[{name}]")
        out.extend(scalars)
        out.append("")
    for child_name, child in children:
        _emit_table(child_name, child, out, commented)


def render_default_config(*, commented: bool = False) -> str:
    """Every setting with its default, as TOML: as settings for the reference
    (docs/configuration.md), or ``commented`` for ``charter init``, whose file should pin
    only what the user changes: a default written out as a setting would stay at this
    version's value after an upgrade retunes it."""
    settings = Settings()
    head = (
        "# Charter configuration. Every key is shown with its default, commented out:\n"
        "# uncomment a key to change it; keys left as comments follow Charter's defaults."
        if commented
        else "# Charter configuration. Every key shows its default; delete what you don't change."
    )
    out = [head, ""]
    for key in type(settings).model_fields:
        _emit_table(key, getattr(settings, key), out, commented)
    return "\n".join(out).rstrip() + "\n"
