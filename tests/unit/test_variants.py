"""The variant plumbing (engine/variants/__init__.py): parsing, refusal where a variant has no
meaning, the hooks' effect on a run, and exact save/resume with variant state."""

from __future__ import annotations

import json

import pytest

from ael_cli.main import main
from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from engine.variants.session_variants import check_variants, parse_variant, split_variants
from scenarios import make_scenario


def run_state(s: Session) -> dict:
    """The session as saved, without wall-clock times (the audit log's "at")."""
    d = s.to_dict()
    for entry in d["queue"]["audit"] + d["queue"]["rules"]:
        entry.pop("at", None)
    return d


def portfolio(variants=(), selector="ts", episodes=40, seed=42) -> Session:
    c = SessionConfig(scenario="portfolio", seed=seed, selector=selector, episodes=episodes, variants=list(variants))
    return Session(c, make_scenario("portfolio", seed, {}))


def test_variant_texts_parse_and_print_back():
    assert parse_variant("no-tools").text == "no-tools"
    assert split_variants("planners,per-tool(k=4)") == ["planners", "per-tool(k=4)"]
    with pytest.raises(AELError, match="unknown variant 'nope'"):
        parse_variant("nope")
    with pytest.raises(AELError, match="takes no value"):
        parse_variant("no-tools=3")


def test_a_variant_is_refused_where_it_has_no_meaning_and_when_given_twice():
    with pytest.raises(AELError, match="no meaning for the support scenario"):
        check_variants(["no-tools"], "support")
    with pytest.raises(AELError, match="given twice"):
        check_variants(["no-tools", "no-tools"], "portfolio")
    with pytest.raises(AELError, match="no meaning for the synthetic"):
        Session(SessionConfig(scenario="synthetic", variants=["no-tools"]), make_scenario("synthetic", 42, {}))


@pytest.mark.parametrize("argv, words", [
    (["run", "support", "--variant", "no-tools"], "no meaning for the support scenario"),
    (["run", "portfolio", "--variant", "bogus"], "unknown variant 'bogus'"),
    (["run", "portfolio", "--variant", "per-tool(k=0)"], "variant per-tool: k: 0 is outside 1..100"),
    (["run", "portfolio", "--variant", "cold-start=bogus"], "variant cold-start: source: 'bogus' is not one of"),
    (["run", "portfolio", "--variant", "no-tools("], "unbalanced parentheses"),
    (["run", "portfolio", "--variant", ","], "give at least one variant"),
    (["run", "portfolio", "--variant", "planners,planners(alpha=2)"], "planners is given twice"),
])
def test_the_cli_refuses_a_bad_variant_in_one_line(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_no_tools_changes_what_the_agent_does_on_the_portfolio():
    plain, ablated = portfolio(), portfolio(["no-tools"])
    plain.run(), ablated.run()
    weights = [h["info"]["weights"] for h in ablated.history]
    assert all(len(set(w.values())) == 1 for w in weights)  # nothing to tilt on: equal weights
    assert [h["action"] for h in plain.history] != [h["action"] for h in ablated.history]
    assert ablated.history[-1]["variant"] == {"tools": []}


def test_the_prompt_of_a_model_without_tools_has_no_market_signals():
    from scenarios.portfolio.prompt import PromptContext, build_prompt

    ctx = PromptContext(tickers=["AAPL"], sectors={"AAPL": "Tech"}, bar_time="2025-01-02 10:30", bar=0, n_bars=10,
                        weights={"AAPL": 0.1}, cash=0.9, value=1.0, drawdown=0.0, recent_returns=[], regime="mixed",
                        signals={})
    assert "## Market Signals" not in build_prompt(ctx)


def test_the_variants_are_stored_in_the_config_and_a_save_resumes_exactly(tmp_path):
    whole = portfolio(["no-tools"], episodes=30)
    whole.run()
    half = portfolio(["no-tools"], episodes=30)
    half.run(until=12)
    save_session(half, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["session"]["config"]["variants"] == ["no-tools"]
    resumed = load_session(tmp_path / "s.json", make_scenario)
    resumed.run()
    assert resumed.to_dict()["history"] == whole.to_dict()["history"]


def test_a_save_whose_variant_is_meaningless_or_unknown_is_refused(tmp_path):
    s = portfolio(["no-tools"], episodes=20)
    s.run(until=5)
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    for variants, words in ((["bogus"], "unknown variant"), (["no-tools", "no-tools"], "given twice")):
        doc["session"]["config"]["variants"] = variants
        (tmp_path / "bad.json").write_text(json.dumps(doc))
        with pytest.raises(AELError, match=words):
            load_session(tmp_path / "bad.json", make_scenario)
    doc["session"]["config"]["variants"] = ["no-tools"]
    doc["session"]["variants"] = {"per-tool": {"arms": {}}}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(AELError, match="does not run"):
        load_session(tmp_path / "bad.json", make_scenario)


# ------------------------------------------------------------------ per-tool, cold-start, planners
def actions(s: Session) -> list[str]:
    return [h["action"] for h in s.history]


def test_per_tool_shows_k_tools_chosen_by_thompson_sampling_and_learns_from_ticker_returns():
    plain, s = portfolio(), portfolio(["per-tool(k=4)"])
    plain.run(), s.run()
    shown = [h["variant"]["tools"] for h in s.history if h["phase"] != "warmup"]
    assert all(len(tools) == 4 for tools in shown) and len({tuple(t) for t in shown}) > 1
    # the synthetic market has no static data: a tool with no reading never takes a slot
    assert not {t for tools in shown for t in tools} - set(s.scenario.tools_available(30))
    assert "get_fundamentals" not in s.scenario.tools_available(30)
    assert actions(plain) != actions(s)
    arms = s.variants.get("per-tool").arms
    learned = [tool for tool, (a, b) in arms.items() if a + b > 2]
    assert learned  # the tools shown learned from their per-ticker directions
    calls, realised = s.scenario.tool_verdicts(20)
    assert calls.shape == (len(s.scenario.world.tickers), 12) and realised.shape == (len(s.scenario.world.tickers),)


def test_cold_start_applies_the_rating_table_before_episode_0_and_changes_the_agent():
    plain, s = portfolio(), portfolio(["cold-start"])
    plain.run(until=15), s.run(until=15)
    state = s.variants.state_dict()["cold-start"]
    assert state["applied_at"] == 0 and state["source"] == "table"
    assert state["tool_ratings"]["score_composite_signal"] == 1 and state["tool_ratings"]["compute_momentum"] == 4
    assert state["tool_prior"]["score_composite_signal"] == [0, 3] and state["tool_prior"]["compute_momentum"] == [2, 0]
    differ = [h["episode"] for h, p in zip(s.history, plain.history) if h["info"]["weights"] != p["info"]["weights"]]
    assert differ and differ[0] < 15  # already in warm-up: the priors were there before episode 0


def test_cold_start_uniform_is_the_reference_answer_on_failure_and_seeds_the_other_variants():
    s, alone = portfolio(["per-tool", "planners", "cold-start"]), portfolio(["per-tool"])
    s.step(), alone.step()
    with_prior, without = s.variants.get("per-tool").arms, alone.variants.get("per-tool").arms
    assert [round(a - b, 9) for a, b in zip(with_prior["score_composite_signal"], without["score_composite_signal"])] == [0, 3]
    assert [round(a - b, 9) for a, b in zip(with_prior["compute_momentum"], without["compute_momentum"])] == [2, 0]
    planners = s.variants.get("planners")  # max(1, r - 2) synthetic updates: cot_reasoning 4, reflexion 1
    assert planners.arms["cot_reasoning"].pulls == 2 and planners.arms["reflexion"].pulls == 1
    u = portfolio(["cold-start=uniform"])
    u.step()
    assert set(u.variants.get("cold-start").tool_ratings.values()) == {3}


def test_cold_start_from_a_model_needs_one():
    with pytest.raises(AELError, match="name one"):
        portfolio(["cold-start=llm"])


def test_every_planner_rule_changes_how_the_agent_weighs_tools():
    import numpy as np

    from scenarios.portfolio.planners import RULES

    s = portfolio()
    s.run(until=30)
    world, views = s.scenario.world, {}
    for name in RULES:
        from engine.variants import AgentView

        alloc, _ = s.scenario.allocation(s.pool["none"], 30, s.memory, view=AgentView(planner=name))
        views[name] = tuple(np.round(alloc.signal, 6))
    assert len(set(views.values())) == len(RULES), views


def test_planners_are_chosen_by_linucb_on_a_varying_context_and_change_the_run():
    import numpy as np

    plain, s = portfolio(episodes=120), portfolio(["planners"], episodes=120)
    plain.run(), s.run()
    played = [h["variant"]["planner"] for h in s.history]
    assert set(played[:15]) == {"sequential"} and len(set(played[15:])) >= 3
    contexts = np.array([s.scenario.planner_context(t) for t in range(15, 120)])
    assert (contexts[:, 1:].std(axis=0) > 0.05).all()  # every feature but the bias moves
    assert actions(plain) != actions(s)
    state = s.variants.state_dict()["planners"]
    assert sum(a["pulls"] for a in state["arms"].values()) == state["n"] == 120


def test_a_planner_that_keeps_failing_gets_a_library_counter_planner():
    from engine.reflection import Reflection

    s = portfolio(["planners"], selector="ts+reflection", episodes=30)
    s.run(until=20)
    v = s.variants.get("planners")
    for _ in range(3):
        v.window = ["adaptive"] * 4
        r = v.reflected(s, Reflection(episode=s.t - 1, trigger="diagnose", diagnosis="bad day.",
                                      evidence={"mean_score": -0.3, "misled": ["compute_momentum",
                                                                               "compute_technicals"]}))
    assert "reversal" not in v.arms and v.outbox[0]["payload"]["rule"] == "reversal"   # proposed, not added
    from engine.proposers import queue_outboxes

    queue_outboxes(s, [])   # into the queue, where the approval mode (auto) approves it, audited
    assert s.queue.audit[-1].kind == "planner" and s.queue.audit[-1].who == "rule:auto-approve"
    assert "reversal" in v.arms and v.arms["reversal"].rule == "reversal"
    assert "Planner evolution" in r.diagnosis and "adaptive failed 3" in v.arms["reversal"].reason
    s.run()
    assert s.to_dict()["variants"]["planners"]["arms"]["reversal"]["added_at"] == 20


@pytest.mark.heavy
def test_reflection_grows_the_planner_pool_in_a_real_run():
    s = portfolio(["planners"], selector="ts+reflection", episodes=208)
    s.run()
    added = [n for n, a in s.variants.get("planners").arms.items() if a.added_at > 0]
    assert added and any(h["variant"]["planner"] in added for h in s.history)


@pytest.mark.heavy
@pytest.mark.parametrize("variants", [["planners", "per-tool", "cold-start"], ["no-tools", "planners"]])
def test_all_variants_save_and_resume_exactly(tmp_path, variants):
    whole = portfolio(variants, selector="ts+reflection", episodes=70)
    whole.run()
    for cut in (0, 9, 41):
        part = portfolio(variants, selector="ts+reflection", episodes=70)
        part.run(until=cut)
        save_session(part, tmp_path / "s.json")
        resumed = load_session(tmp_path / "s.json", make_scenario)
        assert run_state(resumed) == run_state(part)
        resumed.run()
        assert run_state(resumed) == run_state(whole)


@pytest.mark.parametrize("name, path, value, words", [
    ("per-tool", ("arms", "compute_momentum"), [0.0, 1.0], "greater than 0"),
    ("planners", ("n",), -1, "greater than or equal to 0"),
    ("planners", ("arms", "sequential", "b"), "x", "valid list"),
    ("cold-start", ("tool_ratings", "compute_momentum"), 9, "less than or equal to 5"),
])
def test_bad_variant_state_in_a_save_is_refused_in_one_line(tmp_path, name, path, value, words):
    s = portfolio(["planners", "per-tool", "cold-start"], episodes=30)
    s.run(until=20)
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    node = doc["session"]["variants"][name]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(AELError, match=words) as err:
        load_session(tmp_path / "bad.json", make_scenario)
    assert "\n" not in str(err.value) and f"variants.{name}" in str(err.value)


@pytest.mark.heavy
def test_cold_start_from_a_model_uses_its_ratings_and_falls_back_to_the_table(monkeypatch):
    from tests.fake_llm_server import FakeLLMServer, ok, server_error

    for name in ("ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret-0123456789")
    tools = ["get_price_history", "get_fundamentals", "get_analyst_data", "get_options_data", "get_earnings_data",
             "compute_technicals", "compute_quant_risk", "compute_momentum", "compute_correlations",
             "run_dcf_model", "score_risk", "score_composite_signal"]
    planners = ["sequential", "decompose", "adaptive", "cot_reasoning", "reflexion", "hypothesis_test"]
    rated = {"tools": {t: 5 if t == "score_composite_signal" else 2 for t in tools},
             "planners": {p: 4 for p in planners}}

    def session(server) -> Session:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        c = SessionConfig(scenario="portfolio", seed=42, selector="ts", episodes=5, variants=["cold-start=llm"],
                          llm={"reflector": "anthropic", "error_policy": "fallback", "max_retries": 0})
        return Session(c, make_scenario("portfolio", 42, {}))

    with FakeLLMServer("echo") as server:
        server.script(ok(rated))
        s = session(server)
        s.step()
    state = s.variants.state_dict()["cold-start"]
    assert state["source"] == "llm" and state["tool_ratings"]["score_composite_signal"] == 5
    assert state["tool_prior"]["score_composite_signal"] == [3, 0]
    assert s.usage.to_dict()["records"][0]["purpose"] == "variant.cold_start"
    with FakeLLMServer("echo") as server:
        server.script(server_error(500), server_error(500))
        s = session(server)
        s.step()
    state = s.variants.state_dict()["cold-start"]
    assert state["source"].startswith("table") and state["tool_ratings"]["score_composite_signal"] == 1


def test_run_labels_a_variant_row_and_a_resumed_session_keeps_its_variants(tmp_path, capsys):
    out, save = tmp_path / "out.json", tmp_path / "s.json"
    assert main(["run", "portfolio", "--episodes", "30", "--variant", "no-tools", "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["runs"][0]["selector"] == "ts+reflection · no-tools" and doc["paper_comparable"] is False
    assert main(["run", "portfolio", "--episodes", "30", "--variant", "no-tools", "--until", "10", "--save",
                 str(save), "--quiet"]) == 0
    assert main(["run", "portfolio", "--resume", str(save), "--variant", "planners", "--quiet"]) == 2
    assert "--variant: a resumed session keeps the settings" in capsys.readouterr().err


@pytest.mark.parametrize("until", [0, 31])
def test_rolling_back_a_failed_step_restores_the_variants_too(until):
    """A model call failing under the raise policy undoes the episode: the variants' state
    (cold start at episode 0, LinUCB, per-tool posteriors) is part of what comes back."""
    variants = ["cold-start", "planners", "per-tool"]
    s = portfolio(variants, selector="ts+reflection", episodes=60)
    s.run(until=until)
    before = json.dumps(run_state(s), sort_keys=True)
    cp = s._checkpoint()
    s.step(), s.step()
    assert json.dumps(run_state(s), sort_keys=True) != before
    s._rollback(cp)
    assert json.dumps(run_state(s), sort_keys=True) == before
    s.run()
    straight = portfolio(variants, selector="ts+reflection", episodes=60)
    straight.run()
    assert run_state(s) == run_state(straight)


def test_a_model_agent_sees_what_the_variants_show():
    from types import SimpleNamespace

    from engine.variants import AgentView
    from scenarios.portfolio.llm_allocator import prompt_context
    from scenarios.portfolio.prompt import build_prompt

    s = portfolio()
    s.run(until=20)

    def prompt(view: AgentView) -> str:
        return build_prompt(prompt_context(s.scenario, 20, SimpleNamespace(insight=None, view=view, prior=None), [], []))

    plain = prompt(AgentView())
    assert "## Market Signals" in plain and "momentum(" in plain and "## Selected Strategy" not in plain
    assert "## Market Signals" not in prompt(AgentView(tools=()))
    narrowed = prompt(AgentView(tools=("compute_technicals",), planner="cot_reasoning", notes=["When bearish, cut."]))
    assert "## Selected Strategy: cot_reasoning" in narrowed and "When bearish, cut." in narrowed
    signals = narrowed.split("## Market Signals")[1].split("##")[0]
    assert "technicals(" in signals and "momentum(" not in signals
