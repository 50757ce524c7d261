"""A small JSON-schema subset: enough to pin down what a model must answer.

Supported keywords: `type` (object, string, number, integer, boolean, array,
null, or a list of these), `properties`, `required`, `additionalProperties`
(a boolean only), `enum`, `minimum`, `maximum`, `items`, `maxLength` (of a
string, in characters), `maxItems`, and the annotations `description` and
`title`. The caps bound what a model may send back, and a grammar-constrained
local model cannot ramble past them. Anything else is refused by `check_schema`, so a
schema never silently promises more than the validator checks.

Conventions: `integer` excludes booleans and floats (even 3.0); `number`
accepts integers and floats but not booleans, NaN or infinities.
"""

from __future__ import annotations

import math
from typing import Any

TYPES = ("object", "string", "number", "integer", "boolean", "array", "null")
KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "enum", "minimum",
    "maximum", "items", "maxLength", "maxItems", "description", "title",
})


class SchemaError(ValueError):
    """A value does not match its schema; the message names the path."""


def check_schema(schema: Any, path: str = "$") -> None:
    """Refuse a schema that uses keywords or shapes outside the subset.

    Raises `ValueError`: a bad schema is a bug in the caller, not something
    a user can fix.
    """
    if not isinstance(schema, dict):
        raise ValueError(f"schema {path}: must be an object")
    unknown = sorted(set(schema) - KEYWORDS)
    if unknown:
        raise ValueError(f"schema {path}: unsupported keyword {unknown[0]!r}")
    for name in _types(schema):
        if name not in TYPES:
            raise ValueError(f"schema {path}: unknown type {name!r}")
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        raise ValueError(f"schema {path}: enum must be a non-empty list")
    for bound in ("minimum", "maximum"):
        if bound in schema and not _is_number(schema[bound]):
            raise ValueError(f"schema {path}: {bound} must be a number")
    for cap in ("maxLength", "maxItems"):
        if cap in schema and (not isinstance(schema[cap], int) or isinstance(schema[cap], bool) or schema[cap] < 0):
            raise ValueError(f"schema {path}: {cap} must be a non-negative integer")
    if "additionalProperties" in schema and not isinstance(schema["additionalProperties"], bool):
        raise ValueError(f"schema {path}: additionalProperties must be true or false")
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise ValueError(f"schema {path}: properties must be an object")
    for key, sub in props.items():
        check_schema(sub, f"{path}.{key}")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ValueError(f"schema {path}: required must be a list of names")
    if "items" in schema:
        check_schema(schema["items"], f"{path}[]")


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> None:
    """Raise `SchemaError` naming the first place `value` breaks `schema`."""
    types = _types(schema)
    if types and not any(_has_type(value, t) for t in types):
        raise SchemaError(f"{path}: expected {' or '.join(types)}, got {_type_name(value)}")
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        allowed = ", ".join(repr(o) for o in schema["enum"])
        raise SchemaError(f"{path}: {value!r} is not one of {allowed}")
    if _is_number(value):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaError(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaError(f"{path}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):
        raise SchemaError(f"{path}: a string of {len(value)} characters is over maxLength {schema['maxLength']}")
    if isinstance(value, list) and len(value) > schema.get("maxItems", len(value)):
        raise SchemaError(f"{path}: {len(value)} items are over maxItems {schema['maxItems']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                raise SchemaError(f"{path}: missing required field {key!r}")
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                raise SchemaError(f"{path}: unexpected field {extra[0]!r}")
        for key, sub in props.items():
            if key in value:
                validate(value[key], sub, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], f"{path}[{i}]")


def example_for(schema: dict[str, Any]) -> Any:
    """A value that satisfies `schema`: the first enum option, the lower bound,
    one example item, every declared property. Used by the offline fake server
    to answer any request generically."""
    if "enum" in schema:
        return schema["enum"][0]
    types = _types(schema) or ["object"]
    kind = types[0]
    if kind == "object":
        return {key: example_for(sub) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [example_for(schema["items"])] if "items" in schema and schema.get("maxItems", 1) > 0 else []
    if kind in ("number", "integer"):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        value: float = lo if lo is not None else (min(0, hi) if hi is not None else 0)
        return math.ceil(value) if kind == "integer" else float(value)
    if kind == "string":
        return "example"[:schema.get("maxLength", 7)]
    if kind == "boolean":
        return False
    return None


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    if t is None:
        return []
    return [t] if isinstance(t, str) else list(t)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _has_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return _is_number(value)  # number


def _same(a: Any, b: Any) -> bool:
    # JSON's 1 and true are different values; Python's == says they are equal.
    return type(a) is type(b) and a == b or (_is_number(a) and _is_number(b) and a == b)


def _type_name(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _has_type(value, name):
            return name
    return type(value).__name__
