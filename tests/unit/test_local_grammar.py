"""The grammar the local model decodes under keeps every bounded number inside its
bounds: llama.cpp's converter ignores minimum/maximum, and a reply outside them is
refused by the client (a 135M model wrote `"confidence": 3.33`)."""

from __future__ import annotations

from engine.llm.providers.local_llama import grammar_schema
from engine.llm.schema import validate
from engine.llm.reflector import DIAGNOSIS_SCHEMA, POLICY_SCHEMA, PRESCRIPTION_SCHEMA


def _pairs(original, narrowed):
    """(original leaf, narrowed leaf) for every bounded field the narrowing changed."""
    if isinstance(original, dict):
        if original != narrowed and "enum" in narrowed and "enum" not in original:
            yield original, narrowed
            return
        for k, v in original.items():
            yield from _pairs(v, narrowed[k])
    elif isinstance(original, list):
        for a, b in zip(original, narrowed):
            yield from _pairs(a, b)


def test_a_bounded_number_can_only_be_written_inside_its_bounds():
    g = grammar_schema({"type": "number", "minimum": 0, "maximum": 1})
    assert "minimum" not in g and min(g["enum"]) == 0 and max(g["enum"]) == 1 and len(g["enum"]) == 21
    assert all(validate(v, {"type": "number", "minimum": 0, "maximum": 1}) is None for v in g["enum"])
    assert grammar_schema({"type": "integer", "minimum": 1, "maximum": 5}) == {"enum": [1, 2, 3, 4, 5]}


def test_unbounded_and_enumerated_fields_are_left_alone():
    for s in ({"type": "number"}, {"type": "number", "minimum": 0}, {"type": "string", "maxLength": 9},
              {"enum": ["a", "b"]}, {"type": "integer", "minimum": 0, "maximum": 10**6}):
        assert grammar_schema(s) == s


def test_every_value_the_reflectors_grammar_allows_passes_the_reflectors_schema():
    for schema in (DIAGNOSIS_SCHEMA, POLICY_SCHEMA, PRESCRIPTION_SCHEMA):
        pairs = list(_pairs(schema, grammar_schema(schema)))
        for original, narrowed in pairs:
            assert all(validate(v, original) is None for v in narrowed["enum"])
    assert list(_pairs(DIAGNOSIS_SCHEMA, grammar_schema(DIAGNOSIS_SCHEMA)))  # its confidence is narrowed
