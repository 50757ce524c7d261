"""The JSON-schema subset the client validates replies against."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.llm import SchemaError, check_schema, example_for, validate
from engine.llm.prompt import parse_json

REFLECTION = {
    "type": "object",
    "properties": {
        "diagnosis": {"type": "string"},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "k": {"type": "integer", "minimum": 1, "maximum": 50},
        "tiers": {"type": "array", "items": {"type": "string", "enum": ["episodic", "semantic", "procedural"]}},
        "new_policy": {"type": ["object", "null"], "properties": {"name": {"type": "string"}}},
        "act": {"type": "boolean"},
    },
    "required": ["diagnosis", "confidence"],
    "additionalProperties": False,
}


def test_a_matching_object_passes():
    validate({"diagnosis": "drift", "confidence": 0.5, "k": 3, "tiers": ["semantic"],
              "new_policy": None, "act": True}, REFLECTION)


@pytest.mark.parametrize("value, message", [
    ([], "$: expected object, got array"),
    ({"confidence": 0.5}, "$: missing required field 'diagnosis'"),
    ({"diagnosis": "x", "confidence": 1.5}, "$.confidence: 1.5 is above the maximum 1"),
    ({"diagnosis": "x", "confidence": -0.1}, "$.confidence: -0.1 is below the minimum 0"),
    ({"diagnosis": "x", "confidence": "high"}, "$.confidence: expected number, got string"),
    ({"diagnosis": "x", "confidence": True}, "$.confidence: expected number, got boolean"),
    ({"diagnosis": "x", "confidence": 0.5, "k": 2.5}, "$.k: expected integer, got number"),
    ({"diagnosis": "x", "confidence": 0.5, "k": True}, "$.k: expected integer, got boolean"),
    ({"diagnosis": "x", "confidence": 0.5, "tiers": ["semantic", "cosmic"]}, "$.tiers[1]: 'cosmic' is not one of"),
    ({"diagnosis": "x", "confidence": 0.5, "new_policy": {"name": 3}}, "$.new_policy.name: expected string"),
    ({"diagnosis": "x", "confidence": 0.5, "extra": 1}, "$: unexpected field 'extra'"),
])
def test_a_mismatch_is_named_by_its_path(value, message):
    with pytest.raises(SchemaError) as caught:
        validate(value, REFLECTION)
    assert str(caught.value).startswith(message)


def test_enum_tells_true_from_one():
    with pytest.raises(SchemaError):
        validate(True, {"enum": [1, 2]})
    validate(1, {"enum": [1, 2]})


@pytest.mark.parametrize("schema, problem", [
    ({"type": "object", "pattern": "x"}, "unsupported keyword 'pattern'"),
    ({"type": "decimal"}, "unknown type 'decimal'"),
    ({"enum": []}, "enum must be a non-empty list"),
    ({"type": "object", "properties": {"a": {"type": "number", "minimum": "0"}}}, "$.a: minimum must be a number"),
    ({"type": "array", "items": {"oneOf": []}}, "$[]: unsupported keyword 'oneOf'"),
    ({"type": "string", "maxLength": -1}, "maxLength must be a non-negative integer"),
    ({"type": "array", "maxItems": 2.5}, "maxItems must be a non-negative integer"),
])
def test_a_schema_outside_the_subset_is_refused(schema, problem):
    with pytest.raises(ValueError, match=problem.replace("$", r"\$").replace("[", r"\[").replace("]", r"\]")):
        check_schema(schema)


def test_length_caps_bound_strings_and_lists():
    schema = {"type": "object", "properties": {"why": {"type": "string", "maxLength": 5},
                                               "tags": {"type": "array", "maxItems": 2}}}
    validate({"why": "short", "tags": [1, 2]}, schema)
    with pytest.raises(SchemaError, match=r"\$\.why: a string of 6 characters is over maxLength 5"):
        validate({"why": "longer"}, schema)
    with pytest.raises(SchemaError, match=r"\$\.tags: 3 items are over maxItems 2"):
        validate({"tags": [1, 2, 3]}, schema)


def test_json_parsing_refuses_nan_and_names_the_problem():
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json('{"x": NaN}')
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json("The answer is 42")
    assert parse_json('```json\n{"x": 1}\n```') == {"x": 1}
    assert parse_json('```\n{"x": 1}```') == {"x": 1}
    assert parse_json('{"why": "two\nlines"}') == {"why": "two\nlines"}  # a raw line break in a string


def schemas(depth: int = 3):
    """Random schemas inside the subset, bounds consistent."""
    leaf = st.one_of(
        st.just({"type": "string"}),
        st.integers(0, 9).map(lambda n: {"type": "string", "maxLength": n}),
        st.just({"type": "boolean"}),
        st.just({"type": "null"}),
        st.builds(lambda lo, span: {"type": "integer", "minimum": lo, "maximum": lo + span},
                  st.integers(-50, 50), st.integers(0, 10)),
        st.builds(lambda lo: {"type": "number", "minimum": lo}, st.floats(-5, 5)),
        st.lists(st.text(max_size=5), min_size=1, max_size=3).map(lambda xs: {"type": "string", "enum": xs}),
    )
    return st.recursive(leaf, lambda inner: st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, inner),
        st.builds(lambda items, n: {"type": "array", "items": items, "maxItems": n}, inner, st.integers(0, 2)),
        st.dictionaries(st.text("abcxyz", min_size=1, max_size=4), inner, max_size=4).map(
            lambda props: {"type": "object", "properties": props, "required": sorted(props),
                           "additionalProperties": False}),
    ), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(schemas())
def test_the_example_for_any_schema_satisfies_it(schema):
    check_schema(schema)
    validate(example_for(schema), schema)


def test_a_reply_nested_too_deeply_is_a_parse_error_not_a_crash():
    from engine.llm.prompt import parse_json

    with pytest.raises(ValueError, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000)
