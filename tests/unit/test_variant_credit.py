"""credit=uniform|fcc|llm-fcc: the formulas, the counterfactual replay and their effect on the bandit."""

import json

import pytest

from ael_cli.main import main
from engine import credit as cr
from engine.store.persistence import load_session, read_document, save_session
from scenarios import make_scenario
from tests.conftest import new_session


def _values(f):
    return {s: float(f(s)) for s in cr.coalitions()}


def test_there_are_eight_coalitions_and_shapley_is_exact():
    assert len(cr.coalitions()) == 8
    # additive game: each module's value is its own contribution
    add = _values(lambda s: 1.0 * ("planner" in s) + 2.0 * ("tools" in s) - 0.5 * ("memory" in s))
    assert cr.shapley(add) == pytest.approx({"planner": 1.0, "tools": 2.0, "memory": -0.5})
    # a pure interaction: only the full coalition earns 3, shared equally
    glove = _values(lambda s: 3.0 if len(s) == 3 else 0.0)
    assert cr.shapley(glove) == pytest.approx({m: 1.0 for m in cr.MODULES})
    # tools and memory are complements, planner is a dummy; efficiency holds
    game = _values(lambda s: 2.0 if {"tools", "memory"} <= s else (0.5 if "tools" in s else 0.0))
    phi = cr.shapley(game)
    assert phi["planner"] == 0.0 and phi["tools"] == pytest.approx(1.25) and phi["memory"] == pytest.approx(0.75)
    full = frozenset(cr.MODULES)
    assert sum(phi.values()) == pytest.approx(game[full] - game[frozenset()])
    assert cr.counterfactual(game) == {"planner": 0.0, "tools": 2.0, "memory": 1.5}


def test_fcc_combines_its_parts_with_the_papers_weights():
    game = _values(lambda s: 2.0 if {"tools", "memory"} <= s else (0.5 if "tools" in s else 0.0))
    parts = cr.fcc_credit({"planner": 0.5, "tools": -1.0, "memory": 0.2}, game)
    m = parts["memory"]
    assert m["counterfactual"] == pytest.approx(1.5 / 3.5) and m["shapley"] == pytest.approx(0.75 / 2.0)
    assert m["combined"] == pytest.approx(0.2 * 0.2 + 0.3 * 1.5 / 3.5 + 0.5 * 0.75 / 2.0)
    other = _values(lambda s: 2.0 if {"tools", "memory"} <= s else (0.33 if "tools" in s else 0.0))
    # Shapley tools 1.165, memory 0.835: normalised 0.5825 and 0.4175, in steps of 0.05
    assert cr.offline_llm_credit(other) == {"planner": 0.0, "tools": 0.6, "memory": 0.4}
    assert cr.memory_reward({"memory": 1.0}) == 1.0 and cr.memory_reward({"memory": -1.0}) == 0.0


def _stepwise(variants, n=60):
    s = new_session("portfolio", seed=42, selector="ts", episodes=n, variants=variants)
    seen = []
    while not s.done:
        s.step()
        v = s.variants.get("credit")
        if v.last_episode == s.t - 1 and v.last_values:
            seen.append((s.history[-1], dict(v.last_values), {m: dict(p) for m, p in v.last.items()}))
    return s, seen


def test_the_replay_reproduces_the_bar_as_played_and_the_bandit_gets_the_memory_credit():
    s, seen = _stepwise(["credit=fcc"])
    assert len(seen) == 60  # every learning bar, warm-up included (the bandit is credited then too)
    for record, values, parts in seen:
        assert len(values) == 8
        assert values["planner+tools+memory"] == pytest.approx(record["score"], abs=1e-12)
        assert record.get("credited", record["reward"]) == pytest.approx(cr.memory_reward(
            {"memory": parts["memory"]["combined"]}))
        if record["policy"] == "none":  # memory at its baseline already: it contributes nothing
            assert parts["memory"]["shapley"] == 0.0 and parts["memory"]["counterfactual"] == 0.0
    # without a planner variant the planner plays its baseline, so its Shapley value is 0 ...
    assert all(p["planner"]["shapley"] == 0.0 for _, _, p in seen)
    # ... while tools and memory do matter on some bars
    assert any(p["tools"]["shapley"] != 0.0 for _, _, p in seen)
    assert any(p["memory"]["shapley"] != 0.0 for _, _, p in seen)


@pytest.mark.parametrize("mode", ["uniform", "fcc", "llm-fcc"])
def test_each_mode_changes_what_the_agent_does(mode):
    plain = new_session("portfolio", seed=42, selector="ts", episodes=80)
    plain.run()
    credited = new_session("portfolio", seed=42, selector="ts", episodes=80, variants=[f"credit={mode}"])
    credited.run()
    assert [r["policy"] for r in plain.history] != [r["policy"] for r in credited.history]
    assert any(a["action"] != b["action"] for a, b in zip(plain.history, credited.history))


@pytest.mark.heavy
def test_credit_saves_and_resumes_exactly(tmp_path):
    # 110 of the 208 bars: saved at 77, well past warm-up (15) and many slow windows (4) on either side
    whole = new_session("portfolio", seed=42, selector="ts+reflection", variants=["credit=llm-fcc"], episodes=110)
    whole.run()
    half = new_session("portfolio", seed=42, selector="ts+reflection", variants=["credit=llm-fcc"], episodes=110)
    half.run(until=77)
    save_session(half, tmp_path / "s.json")
    assert read_document(tmp_path / "s.json")["session"]["variants"]["credit"]["n"] == 77
    resumed = load_session(tmp_path / "s.json", make_scenario)
    resumed.run()
    assert resumed.history == whole.history
    assert resumed.variants.get("credit").state_dict() == whole.variants.get("credit").state_dict()


def test_a_saved_credit_out_of_range_is_refused_in_one_line(tmp_path, capsys):
    s = new_session("portfolio", seed=42, selector="ts", episodes=30, variants=["credit=fcc"])
    s.run(until=20)
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    doc["session"]["variants"]["credit"]["last"]["memory"]["shapley"] = 7.0
    (tmp_path / "s.json").write_text(json.dumps(doc))
    assert main(["run", "portfolio", "--resume", str(tmp_path / "s.json"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "variants.credit" in err


def test_llm_fcc_asks_the_model_through_the_llm_layer(tmp_path, gemini):
    out, save, server = tmp_path / "o.json", tmp_path / "s.json", gemini
    # the fake server echoes each schema's lower bound: -1 for every module
    assert main(["run", "portfolio", "--episodes", "24", "--quiet", "--selector", "ts+reflection",
                 "--variant", "credit=llm-fcc", "--reflector", "gemini", "--json", str(out),
                 "--save", str(save)]) == 0
    prompts = [json.dumps(r.body) for r in server.requests]
    run = json.loads(out.read_text())["runs"][0]
    assert run["llm"]["by_purpose"]["credit.llm-fcc"]["calls"] == 24
    assert any("No memory retrieved" in p or "Memory retrieved" in p for p in prompts)
    state = read_document(save)["session"]["variants"]["credit"]
    assert state["source"] == "llm" and state["last"]["memory"]["model"] == -1.0
    assert state["last"]["memory"]["combined"] == pytest.approx(
        max(-1.0, 0.2 * state["last"]["memory"]["structural"] - 0.8))


def test_replayed_credit_is_refused_with_a_model_agent_in_one_line(capsys, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key")
    assert main(["run", "portfolio", "--episodes", "5", "--quiet", "--variant", "credit=fcc", "--agent", "gemini"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "replay the offline allocator" in err
