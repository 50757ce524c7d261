"""Retrieval policies are validated specs; a bad one is refused naming the field."""

import pytest

from engine.errors import AELError
from engine.policies import PAPER_POLICIES, PolicySpec


def test_the_papers_five_policies_in_arm_order():
    assert [p.name for p in PAPER_POLICIES] == [
        "none", "recent_window", "full_detailed", "compressed", "aggressive_learner"]
    by = {p.name: p for p in PAPER_POLICIES}
    assert by["none"].retrieves_nothing
    assert (by["recent_window"].tiers, by["recent_window"].k, by["recent_window"].format) == (
        ("episodic",), 5, "sliding_window")
    assert (by["compressed"].tiers, by["compressed"].k, by["compressed"].token_budget) == (
        ("semantic", "procedural"), 6, 300)
    assert (by["aggressive_learner"].k, by["aggressive_learner"].token_budget) == (8, 500)


def test_round_trip_through_dict_is_identity():
    for p in PAPER_POLICIES:
        assert PolicySpec.from_dict(p.to_dict()) == p


@pytest.mark.parametrize("raw,field", [
    ({"name": ""}, "name"),
    ({"name": "x y"}, "name"),
    ({"name": "x", "tiers": ["episodic", "dreams"]}, "tiers"),
    ({"name": "x", "tiers": "episodic"}, "tiers"),
    ({"name": "x", "k": -1}, "k"),
    ({"name": "x", "k": 2.5}, "k"),
    ({"name": "x", "k": 10_000}, "k"),
    ({"name": "x", "order": "random"}, "order"),
    ({"name": "x", "format": "llm_summary"}, "format"),
    ({"name": "x", "format": "ranked_truncate"}, "token_budget"),
    ({"name": "x", "filters": [{"value": 1}]}, "filters"),
    ({"name": "x", "vote_share": 1.5}, "vote_share"),
    ({"name": "x", "fallback": "x"}, "fallback"),
    ({"name": "x", "colour": "red"}, "colour"),
])
def test_an_invalid_spec_is_refused_naming_the_bad_field(raw, field):
    with pytest.raises(AELError, match=f"'{field}'"):
        PolicySpec.from_dict(raw)


def test_fallback_must_name_a_known_policy_when_the_pool_is_given():
    with pytest.raises(AELError, match="no policy named 'ghost'"):
        PolicySpec.from_dict({"name": "x", "fallback": "ghost"}, known_policies={"none"})
    assert PolicySpec.from_dict({"name": "x", "fallback": "none"}, {"none"}).fallback == "none"


def test_not_an_object():
    with pytest.raises(AELError, match="JSON object"):
        PolicySpec.from_dict(["name"])
