"""``charter.records``: the typed records that settings and decisions are made of.

They replace pydantic models on every hook's path, so they must accept and refuse what
those models did: lax scalars from TOML and JSON, ``Literal`` choices, unions, nested
records, bounds, unknown keys; and report each problem with the key path a user wrote.
"""

from __future__ import annotations

import json
from typing import Literal

import pytest

from charter.config import Settings, parse_settings, render_default_config
from charter.errors import CharterError
from charter.records import Field, Record, RecordError, check, json_schema


class Inner(Record):
    """A nested record."""

    name: str = Field(..., min_length=1, pattern=r"^[a-z]+$")
    weight: float = Field(default=1.0, ge=0, le=2)


class Outer(Record):
    """A record holding every supported kind of field."""

    count: int = Field(default=3, gt=0, description="how many")
    flag: bool = False
    mode: Literal["a", "b"] = Field(default="a")
    tags: list[str] = Field(default_factory=list)
    table: dict[str, list[str]] = Field(default_factory=dict)
    inner: Inner = Field(default_factory=lambda: Inner(name="x"))
    many: dict[str, Inner] = Field(default_factory=dict)
    answer: str | list[str] | None = None

    @check("tags")
    def _no_blank(value: list[str]) -> list[str]:
        if any(not t.strip() for t in value):
            raise ValueError("blank tag")
        return value


def _first(data: dict[str, object]) -> dict[str, object]:
    with pytest.raises(RecordError) as caught:
        Outer.model_validate(data)
    return caught.value.errors()[0]


def test_defaults_are_fresh_per_instance() -> None:
    one, two = Outer(), Outer()
    one.tags.append("x")
    one.inner.weight = 2.0
    assert two.tags == [] and two.inner.weight == 1.0


def test_lax_scalars_are_coerced_as_pydantic_did() -> None:
    got = Outer.model_validate({"count": "7", "flag": "yes", "inner": {"name": "ab", "weight": 1}})
    assert got.count == 7 and got.flag is True
    assert got.inner.weight == 1.0 and isinstance(got.inner.weight, float)
    assert Outer(count=4.0).count == 4


@pytest.mark.parametrize(
    ("data", "loc", "kind"),
    [
        ({"count": 0}, ("count",), "greater_than"),
        ({"count": 2.5}, ("count",), "int_from_float"),
        ({"count": "many"}, ("count",), "int_parsing"),
        ({"count": "9" * 5000}, ("count",), "int_parsing"),
        ({"inner": {"name": "ok", "weight": float("nan")}}, ("inner", "weight"), "finite_number"),
        ({"mode": "c"}, ("mode",), "literal_error"),
        ({"tags": "x"}, ("tags",), "list_type"),
        ({"tags": ["ok", 3]}, ("tags", 1), "string_type"),
        ({"tags": ["ok", " "]}, ("tags",), "value_error"),
        ({"table": {"k": "v"}}, ("table", "k"), "list_type"),
        ({"inner": {"name": "AB"}}, ("inner", "name"), "string_pattern_mismatch"),
        ({"inner": {"name": ""}}, ("inner", "name"), "string_too_short"),
        ({"inner": {}}, ("inner", "name"), "missing"),
        ({"inner": 3}, ("inner",), "model_type"),
        ({"many": {"p": {"name": "ok", "weight": 3}}}, ("many", "p", "weight"), "less_than_equal"),
        ({"answer": 5}, ("answer",), "string_type"),
        ({"cuont": 1}, ("cuont",), "extra_forbidden"),
        ({"inner": {"name": "ok", "extra": 1}}, ("inner", "extra"), "extra_forbidden"),
    ],
)
def test_bad_input_names_the_key_path(data: dict[str, object], loc: tuple, kind: str) -> None:
    error = _first(data)
    assert (error["loc"], error["type"]) == (loc, kind), error


def test_union_keeps_the_type_it_was_given() -> None:
    assert Outer(answer=["a", "b"]).answer == ["a", "b"]
    assert Outer(answer="a").answer == "a"
    assert Outer(answer=None).answer is None


def test_dump_copy_and_equality() -> None:
    record = Outer(tags=["t"], many={"p": {"name": "ok"}})
    dumped = record.model_dump(mode="json")
    assert dumped["many"] == {"p": {"name": "ok", "weight": 1.0}}
    assert Outer.model_validate(dumped) == record
    assert record.model_dump_json() == json.dumps(dumped, separators=(",", ":"))
    shallow = record.model_copy(update={"count": 9})
    assert shallow.count == 9 and record.count == 3 and shallow.tags is record.tags
    deep = record.model_copy(deep=True)
    assert deep == record and deep.tags is not record.tags
    assert Outer.model_validate(record) is record


def test_json_schema_shape() -> None:
    schema = json_schema(Outer)
    props = schema["properties"]
    assert "required" not in schema
    assert props["count"] == {
        "default": 3,
        "description": "how many",
        "exclusiveMinimum": 0,
        "title": "Count",
        "type": "integer",
    }
    assert props["mode"]["enum"] == ["a", "b"]
    assert props["inner"] == {"$ref": "#/$defs/Inner", "title": "Inner"}
    assert schema["$defs"]["Inner"]["required"] == ["name"]
    assert props["answer"]["anyOf"][1] == {"items": {"type": "string"}, "type": "array"}


def test_settings_errors_stay_one_line_naming_file_and_key() -> None:
    with pytest.raises(CharterError, match=r"^charter.toml: rules.top_n: Input should be"):
        parse_settings({"rules": {"top_n": 0}}, "charter.toml")
    with pytest.raises(CharterError, match=r"graph.damping: Input should be less than 1"):
        parse_settings({"graph": {"damping": 1.0}}, "charter.toml")
    with pytest.raises(CharterError, match=r"search.index.skip_noise: unknown rule"):
        parse_settings({"search": {"index": {"skip_noise": ["bogus"]}}}, "charter.toml")


def test_written_defaults_read_back_to_the_defaults() -> None:
    import tomllib

    raw = tomllib.loads(render_default_config())
    assert parse_settings(raw, "charter.toml") == Settings()
    assert parse_settings(raw).model_dump(mode="json") == Settings().model_dump(mode="json")
