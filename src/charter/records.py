"""Typed records validated from plain data: the settings sections and the decision records.

Why not pydantic: every cold hook process loads the settings, and the Stop hook the
decision records too. Importing pydantic and building its validators for the nine
settings sections cost about 150 ms of a cold Stop hook whose whole budget is 300 ms,
for a small part of what pydantic does. This module does that part with the standard
library: fields declared with annotations and ``Field(...)``, lax coercion of scalars
the way pydantic's lax mode does it (``"5"`` to 5, 1 to 1.0), ``Literal`` choices,
unions, lists, string-keyed dicts, nested records, bounds, unknown keys refused, and
errors that carry the key path. ``dataclass_transform`` tells type checkers how the
constructors look. The MCP server still uses pydantic, through the MCP SDK.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import re
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Literal, Union, dataclass_transform

_MISSING: Any = object()


class FieldInfo:
    """One declared field: its type, default and constraints."""

    __slots__ = (
        "annotation",
        "default",
        "default_factory",
        "description",
        "ge",
        "gt",
        "le",
        "lt",
        "min_length",
        "pattern",
    )

    def __init__(
        self,
        default: Any = _MISSING,
        default_factory: Callable[[], Any] | None = None,
        *,
        description: str | None = None,
        ge: float | None = None,
        gt: float | None = None,
        le: float | None = None,
        lt: float | None = None,
        min_length: int | None = None,
        pattern: str | None = None,
    ) -> None:
        self.annotation: Any = None
        self.default = _MISSING if default is Ellipsis else default
        self.default_factory = default_factory
        self.description = description
        self.ge, self.gt, self.le, self.lt = ge, gt, le, lt
        self.min_length = min_length
        self.pattern = re.compile(pattern) if pattern is not None else None

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def get_default(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        if isinstance(self.default, list | dict | set):
            return copy.deepcopy(self.default)
        return self.default


def Field(
    default: Any = _MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    **constraints: Any,
) -> Any:
    """A field's default (``...`` for required) and constraints (``description``, ``ge``,
    ``gt``, ``le``, ``lt``, ``min_length``, ``pattern``: see :class:`FieldInfo`), in a
    record class body."""
    return FieldInfo(default, default_factory, **constraints)


class RecordError(ValueError):
    """Input that does not fit a record; ``errors()`` lists each problem's key path."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self._errors = errors
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        super().__init__(f"{where}: {first['msg']}")

    def errors(self) -> list[dict[str, Any]]:
        """``{"loc": (...), "msg": str, "type": str}`` per problem, in field order."""
        return list(self._errors)


def check(*names: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Mark a function in a record's body as the extra check of fields ``names``: it gets
    the coerced value and returns it (or another), or raises ``ValueError``."""

    def mark(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        func.__record_checks__ = names  # type: ignore[attr-defined]
        return staticmethod(func)  # type: ignore[return-value]

    return mark


class FieldProblem(ValueError):
    """What :meth:`Record._check_record` raises: a value that is valid on its own but not
    with the record's other fields, reported under ``field``'s key path."""

    def __init__(self, field: str, msg: str) -> None:
        super().__init__(msg)
        self.field, self.msg = field, msg


class _Invalid(Exception):
    def __init__(self, msg: str, kind: str) -> None:
        self.msg, self.kind = msg, kind


_TRUE = {"true", "t", "yes", "y", "on", "1"}
_FALSE = {"false", "f", "no", "n", "off", "0"}
_INT = re.compile(r"[+-]?\d+")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _Invalid("Input should be a valid boolean", "bool_parsing")


def _to_int(value: Any) -> int:
    if isinstance(value, int):  # bool included, as pydantic's lax mode does
        return int(value)
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise _Invalid(
            "Input should be a valid integer, got a number with a fractional part",
            "int_from_float",
        )
    if isinstance(value, str) and _INT.fullmatch(value.strip()):
        try:
            return int(value.strip())
        except ValueError:  # more digits than Python converts
            raise _Invalid("Input should be a valid integer", "int_parsing") from None
    raise _Invalid("Input should be a valid integer", "int_parsing")


def _to_float(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise _Invalid("Input should be a valid number", "float_parsing")


def _literal_text(options: tuple[Any, ...]) -> str:
    shown = [repr(o) for o in options]
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " or " + shown[-1]


def _coerce(tp: Any, value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]]) -> Any:
    """``value`` as type ``tp``; problems are appended to ``errors`` (``_MISSING`` back)."""
    try:
        return _coerce_or_raise(tp, value, loc, errors)
    except _Invalid as bad:
        errors.append({"loc": loc, "msg": bad.msg, "type": bad.kind})
        return _MISSING


def _coerce_or_raise(
    tp: Any, value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]]
) -> Any:
    if tp is Any:
        return value
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, Record):
        if isinstance(value, tp):
            return value
        if not isinstance(value, Mapping):
            raise _Invalid(
                f"Input should be a valid dictionary or instance of {tp.__name__}", "model_type"
            )
        return tp._build(value, loc, errors)
    if origin is Literal:
        options = typing.get_args(tp)
        for option in options:
            if value == option and type(value) is type(option):
                return option
        raise _Invalid(f"Input should be {_literal_text(options)}", "literal_error")
    if origin in (Union, types.UnionType):
        arms = typing.get_args(tp)
        if value is None and type(None) in arms:
            return None
        for arm in arms:  # an arm the value already is wins (pydantic's smart mode)
            if isinstance(arm, type) and arm is not type(None) and type(value) is arm:
                return value
        first: _Invalid | None = None
        for arm in arms:
            if arm is type(None):
                continue
            trial: list[dict[str, Any]] = []
            try:
                out = _coerce_or_raise(arm, value, loc, trial)
            except _Invalid as bad:
                first = first or bad
                continue
            if not trial:
                return out
        if first is not None:
            raise first
        raise _Invalid("Input does not match any allowed type", "union_tag_invalid")
    if origin is list:
        if not isinstance(value, list | tuple):
            raise _Invalid("Input should be a valid list", "list_type")
        (item,) = typing.get_args(tp) or (Any,)
        return [_coerce(item, v, (*loc, i), errors) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, Mapping):
            raise _Invalid("Input should be a valid dictionary", "dict_type")
        key_tp, value_tp = typing.get_args(tp) or (Any, Any)
        return {
            _coerce(key_tp, k, (*loc, k), errors): _coerce(value_tp, v, (*loc, k), errors)
            for k, v in value.items()
        }
    if tp is bool:
        return _to_bool(value)
    if tp is int:
        return _to_int(value)
    if tp is float:
        return _to_float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _Invalid("Input should be a valid string", "string_type")
        return value
    if tp is type(None):
        if value is not None:
            raise _Invalid("Input should be None", "none_required")
        return None
    raise TypeError(f"records: unsupported field type {tp!r}")


def _bounds(info: FieldInfo, value: Any) -> None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            raise _Invalid("Input should be a finite number", "finite_number")
        for limit, ok, words, kind in (
            (info.ge, lambda v, lim: v >= lim, "greater than or equal to", "greater_than_equal"),
            (info.gt, lambda v, lim: v > lim, "greater than", "greater_than"),
            (info.le, lambda v, lim: v <= lim, "less than or equal to", "less_than_equal"),
            (info.lt, lambda v, lim: v < lim, "less than", "less_than"),
        ):
            if limit is not None and not ok(value, limit):
                raise _Invalid(f"Input should be {words} {limit}", kind)
    if isinstance(value, str):
        if info.min_length is not None and len(value) < info.min_length:
            plural = "" if info.min_length == 1 else "s"
            raise _Invalid(
                f"String should have at least {info.min_length} character{plural}",
                "string_too_short",
            )
        if info.pattern is not None and not info.pattern.search(value):
            raise _Invalid(
                f"String should match pattern '{info.pattern.pattern}'", "string_pattern_mismatch"
            )


def _dump(value: Any, mode: str) -> Any:
    if isinstance(value, Record):
        return value.model_dump(mode=mode)
    if isinstance(value, list | tuple):
        return [_dump(v, mode) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v, mode) for k, v in value.items()}
    return value


@dataclass_transform(kw_only_default=True, field_specifiers=(Field,))
class Record:
    """A record class: annotated fields with ``Field(...)`` defaults; unknown keys refused.

    Construction validates (``Section(k_in=5)``), as does ``model_validate(dict)``;
    assignment does not. ``model_dump``, ``model_dump_json`` and ``model_copy`` behave as
    their pydantic namesakes do for these types.
    """

    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    _checks: ClassVar[dict[str, list[Callable[[Any], Any]]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: dict[str, FieldInfo] = {}
        for base in reversed(cls.__mro__[1:]):
            if issubclass(base, Record):
                fields.update(base.model_fields)
        hints = typing.get_type_hints(cls)
        for name in inspect.get_annotations(cls):
            if name.startswith("_") or typing.get_origin(hints[name]) is ClassVar:
                continue
            declared = cls.__dict__.get(name, _MISSING)
            info = declared if isinstance(declared, FieldInfo) else FieldInfo(declared)
            info.annotation = hints[name]
            fields[name] = info
            if name in cls.__dict__:
                delattr(cls, name)  # instances hold the values
        cls.model_fields = fields
        checks: dict[str, list[Callable[[Any], Any]]] = {}
        for attr in cls.__dict__.values():
            func = getattr(attr, "__func__", None)
            for name in getattr(func, "__record_checks__", ()):
                checks.setdefault(name, []).append(func)  # type: ignore[arg-type]
        cls._checks = checks

    def __init__(self, **data: Any) -> None:
        errors: list[dict[str, Any]] = []
        self._fill(data, (), errors)
        if errors:
            raise RecordError(errors)

    @classmethod
    def _build(
        cls, data: Mapping[str, Any], loc: tuple[Any, ...], errors: list[dict[str, Any]]
    ) -> Any:
        record = cls.__new__(cls)
        record._fill(data, loc, errors)
        return record

    @classmethod
    def _prepare(cls, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """The input as the fields should read it (pydantic's ``mode="before"`` validator):
        a record whose defaults depend on the input's keys fills them in here, so a key the
        user left out keeps its documented default. Identity unless overridden."""
        return data

    def _check_record(self) -> None:
        """Checks across fields, run once each field is valid on its own (pydantic's
        ``mode="after"`` validator); raise :class:`FieldProblem` naming the field at fault.
        Nothing to check unless overridden."""

    def _fill(
        self, data: Mapping[str, Any], loc: tuple[Any, ...], errors: list[dict[str, Any]]
    ) -> None:
        fields = type(self).model_fields
        data = type(self)._prepare(data)
        before = len(errors)
        for name, info in fields.items():
            where = (*loc, name)
            if name not in data:
                if info.is_required():
                    errors.append({"loc": where, "msg": "Field required", "type": "missing"})
                    continue
                self.__dict__[name] = info.get_default()
                continue
            seen = len(errors)
            value = _coerce(info.annotation, data[name], where, errors)
            if len(errors) == seen:
                try:
                    _bounds(info, value)
                    for func in type(self)._checks.get(name, ()):
                        value = func(value)
                except _Invalid as bad:
                    errors.append({"loc": where, "msg": bad.msg, "type": bad.kind})
                except ValueError as exc:
                    errors.append({"loc": where, "msg": str(exc), "type": "value_error"})
            self.__dict__[name] = value
        for key in data:
            if key not in fields:
                errors.append(
                    {
                        "loc": (*loc, key),
                        "msg": "Extra inputs are not permitted",
                        "type": "extra_forbidden",
                    }
                )
        if len(errors) == before:  # a cross-field check reads only valid fields
            try:
                self._check_record()
            except FieldProblem as bad:
                errors.append({"loc": (*loc, bad.field), "msg": bad.msg, "type": "value_error"})

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        """A record from a mapping (an instance of the class is returned as it is)."""
        if isinstance(data, cls):
            return data
        if not isinstance(data, Mapping):
            raise RecordError(
                [
                    {
                        "loc": (),
                        "msg": f"Input should be a valid dictionary or instance of {cls.__name__}",
                        "type": "model_type",
                    }
                ]
            )
        errors: list[dict[str, Any]] = []
        record = cls._build(data, (), errors)
        if errors:
            raise RecordError(errors)
        return record

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        """Plain data, nested records as dicts, fields in declaration order."""
        return {name: _dump(self.__dict__[name], mode) for name in type(self).model_fields}

    def model_dump_json(self) -> str:
        """Compact JSON of ``model_dump`` (the bytes pydantic's ``model_dump_json`` wrote)."""
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy with ``update`` applied (not validated, as pydantic's is not)."""
        clone = type(self).__new__(type(self))
        state = copy.deepcopy(self.__dict__) if deep else dict(self.__dict__)
        state.update(update or {})
        clone.__dict__.update(state)
        return clone

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        for name in type(self).model_fields:
            yield name, self.__dict__[name]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self)
        return f"{type(self).__name__}({inner})"


def _title(name: str) -> str:
    return name.replace("_", " ").title()


def _schema_of(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, Record):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # placeholder against recursion
            defs[tp.__name__] = _object_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if origin is Literal:
        options = list(typing.get_args(tp))
        out: dict[str, Any] = {"enum": options}
        kinds = {type(o) for o in options}
        if kinds == {str}:
            out["type"] = "string"
        return out
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema_of(arm, defs) for arm in typing.get_args(tp)]}
    if origin is list:
        (item,) = typing.get_args(tp) or (Any,)
        return {"items": _schema_of(item, defs), "type": "array"}
    if origin is dict:
        _, value_tp = typing.get_args(tp) or (Any, Any)
        return {"additionalProperties": _schema_of(value_tp, defs), "type": "object"}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if tp in simple:
        return {"type": simple[tp]}
    if tp is type(None):
        return {"type": "null"}
    return {}


def _object_schema(cls: type[Record], defs: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, info in cls.model_fields.items():
        prop = _schema_of(info.annotation, defs)
        if info.is_required():
            required.append(name)
        elif info.default_factory is None:
            prop["default"] = info.default
        if info.description:
            prop["description"] = info.description
        for key, value in (
            ("minimum", info.ge),
            ("exclusiveMinimum", info.gt),
            ("maximum", info.le),
            ("exclusiveMaximum", info.lt),
            ("minLength", info.min_length),
            ("pattern", info.pattern.pattern if info.pattern is not None else None),
        ):
            if value is not None:
                prop[key] = value
        prop["title"] = _title(name)
        properties[name] = prop
    out: dict[str, Any] = {
        "additionalProperties": False,
        "properties": properties,
        "title": cls.__name__,
        "type": "object",
    }
    if cls.__doc__:
        out["description"] = inspect.cleandoc(cls.__doc__)
    if required:
        out["required"] = required
    return out


def json_schema(cls: type[Record]) -> dict[str, Any]:
    """A JSON Schema of ``cls``: the shape pydantic generates for the same fields."""
    defs: dict[str, Any] = {}
    schema = _object_schema(cls, defs)
    if defs:
        schema["$defs"] = defs
    return schema
