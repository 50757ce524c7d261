"""The variant plumbing (engine/variants.py): parsing, refusal where a variant has no
meaning, the hooks' effect on a run, and exact save/resume with variant state."""

from __future__ import annotations

import json

import pytest

from ael_tui.cli import main
from engine.errors import AELError
from engine.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from engine.variants import check_variants, parse_variant, split_variants
from scenarios import make_scenario


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
