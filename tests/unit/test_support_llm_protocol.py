"""Like against like on support: the offline prior methods carry no paper row of another
protocol, and the paper's LLM table (tab:cliapi_llm_text) has its own protocol, the
160-ticket stratified subset, run by a model and compared with its own rows only."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from ael_cli.main import main
from ael_cli.reproduce.evaluate import NOT_HERE
from ael_cli.reproduce.model import NEEDS_MODEL
from ael_cli.reproduce.tables import TABLES
from scenarios import make_scenario, spec_of
from scenarios.support.bank import ROUTES
from scenarios.support.spec import LLM_PROTOCOL_TABLE
from scenarios.support.stream import tickets

BY_KEY = {t.key: t for t in TABLES}


def test_the_offline_prior_rows_on_support_carry_no_paper_row_from_the_llm_table():
    spec = spec_of("support")
    assert spec.prior_methods and not set(spec.prior_methods) & set(spec.paper_table)
    stream = BY_KEY["support"]  # tab:cliapi_stream: the deterministic full stream
    assert not {r.selector for r in stream.rows} & set(spec.prior_methods)
    assert not stream.options.get("protocol") and not stream.needs_model
    # the LLM table's rows are compared only on its own protocol, with a model as the agent
    llm = BY_KEY["support-llm"]
    assert llm.label == "tab:cliapi_llm_text" and llm.options == {"protocol": "cliapi-llm"} and llm.needs_model
    assert all(r.llm for r in llm.rows)
    assert {r.selector: r.paper["overall"] for r in llm.rows} == \
        {s: v["overall"] for s, v in LLM_PROTOCOL_TABLE.items()}
    assert llm.unavailable("offline").startswith(NEEDS_MODEL) and not llm.unavailable("gemini")


def test_the_subset_is_40_tickets_of_each_regime_drawn_per_seed_in_stream_order():
    a, b = (make_scenario("support", seed, {"protocol": "cliapi-llm"}) for seed in (42, 123))
    assert a.n_episodes == 160 and a.protocol == "cliapi-llm" and make_scenario("support", 42).protocol == "full"
    assert [a.regime(t) for t in range(160)] == [g for g in range(4) for _ in range(40)]
    played = [a.ticket(t) for t in range(160)]
    stream = tickets(42)
    assert all(t["text"] == stream[t["stream_episode"]]["text"] and t["regime"] == stream[t["stream_episode"]]["regime"]
               for t in played)
    index = [t["stream_episode"] for t in played]
    assert index == sorted(index) and len(set(index)) == 160
    assert index != [b.ticket(t)["stream_episode"] for t in range(160)]  # each seed its own draw
    assert index == [make_scenario("support", 42, {"protocol": "cliapi-llm"}).ticket(t)["stream_episode"]
                     for t in range(160)]  # and the same draw every time


def test_memory_holds_only_the_subsets_tickets_and_the_table_is_what_that_memory_gives(session_factory):
    from scenarios.support.policies import INITIAL_POOL, ROUTE_AWARE

    session = session_factory("support", 42, "ts", scenario_options={"protocol": "cliapi-llm"})
    scenario = session.scenario
    checked = 0
    while session.t < 60:
        t = session.t
        for spec in (*INITIAL_POOL, ROUTE_AWARE):  # the real retrieval path on the session's own memory
            assert scenario.live_route(spec, session.memory, t) == _route(scenario, spec, t)
            checked += 1
        session.step()
    assert checked == 60 * 6
    contents = {e.content for e in session.memory.tiers["episodic"].entries}
    subset = {f"{scenario.ticket(t)['text']} -> {scenario.ticket(t)['gold_route']}" for t in range(60)}
    assert contents == subset


def _route(scenario, spec, t: int) -> str:
    return ROUTES[int(scenario.table.routes[t, scenario.table.column(spec)])]


def test_an_offline_protocol_run_shows_no_paper_row_and_says_which_tickets_it_played(tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["run", "support", "--protocol", "cliapi-llm", "--seeds", "42", "--selector", "ts,reflexion",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    # neither tab:cliapi_stream's rows (another protocol) nor the LLM table's (another agent)
    assert "paper (LLM)" not in printed and "  paper " not in printed
    runs = json.loads(out.read_text())["runs"]
    assert all(r["protocol"] == "cliapi-llm" and len(r["stream_episodes"]) == 160 and not r["paper_comparable"]
               for r in runs)
    assert main(["run", "support", "--protocol", "nope", "--seeds", "42"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "cliapi-llm" in err and len(err.strip().splitlines()) == 1


@pytest.mark.heavy
def test_a_model_plays_every_ticket_of_the_protocol_at_the_papers_temperature(gemini, tmp_path):
    out = tmp_path / "run.json"
    assert main(["run", "support", "--protocol", "cliapi-llm", "--agent", "gemini", "--seeds", "42",
                 "--selector", "ts+reflection", "--json", str(out), "--quiet"]) == 0
    run = json.loads(out.read_text())["runs"][0]
    assert len(gemini.requests) == 160  # one agent call a ticket (the offline reflector calls nothing)
    assert {r.body["generationConfig"]["temperature"] for r in gemini.requests} == {0.0}
    texts = {tickets(42)[i]["text"] for i in run["stream_episodes"]}
    assert all(json.loads(r.body["contents"][0]["parts"][0]["text"].split("\n", 1)[1])["ticket"] in texts
               for r in gemini.requests)


def test_reproduce_says_the_llm_table_needs_a_model_and_runs_nothing_offline(tmp_path):
    report = tmp_path / "report.md"
    assert main(["reproduce", "support-llm", "--out", str(tmp_path / "runs"), "--report", str(report),
                 "--quiet"]) == 0
    text = report.read_text()
    assert f"whole table ({NEEDS_MODEL})" in text and f"**{NEEDS_MODEL}" in text
    assert ": 0 runs in" in text


@pytest.mark.heavy
def test_reproduce_with_a_model_compares_the_protocol_with_its_own_paper_rows(gemini, tmp_path, monkeypatch):
    import ael_cli.reproduce.reproduce_command as command

    full = BY_KEY["support-llm"]
    small = dataclasses.replace(full, seeds=(42,), rows=tuple(r for r in full.rows if r.label in ("Stateless", "AEL")))
    monkeypatch.setattr(command, "TABLES", (small,))
    report = tmp_path / "report.md"
    assert main(["reproduce", "support-llm", "--agent", "gemini", "--out", str(tmp_path / "runs"),
                 "--report", str(report), "--workers", "1", "--quiet"]) == 0
    assert len(gemini.requests) == 2 * 160
    rows = {line.split(" | ")[0][2:]: line for line in report.read_text().splitlines()
            if line.startswith("| Stateless ") or line.startswith("| AEL ")}
    assert set(rows) == {"Stateless", "AEL"}
    assert rows["Stateless"].split(" | ")[1].startswith("0.512 → ")  # tab:cliapi_llm_text's own number
    assert rows["AEL"].split(" | ")[1].startswith("0.840 → ")
    assert all(NOT_HERE not in line and NEEDS_MODEL not in line for line in rows.values())


@pytest.mark.parametrize("selector", ["evotool", "factorminer"])
def test_the_prior_methods_hindsight_reads_the_subset(selector, session_factory):
    """EvoTool's blame and ordered answer and FactorMiner's fixers index the subset's table, not the stream's."""
    session = session_factory("support", 42, selector, scenario_options={"protocol": "cliapi-llm"})
    while session.t < 160:
        session.step()
    assert session.t == 160
    table = session.scenario.table
    assert table.routes.shape[0] == 160
    assert np.array_equal(table.gold, [ROUTES.index(session.scenario.ticket(t)["gold_route"]) for t in range(160)])


def test_a_protocol_session_saved_mid_run_resumes_on_its_subset_exactly(tmp_path):
    saved, whole, resumed = tmp_path / "s.json", tmp_path / "whole.json", tmp_path / "resumed.json"
    common = ["run", "support", "--protocol", "cliapi-llm", "--seeds", "42", "--selector", "evotool", "--quiet"]
    assert main([*common, "--json", str(whole)]) == 0
    assert main([*common, "--until", "90", "--save", str(saved)]) == 0
    assert main(["run", "support", "--resume", str(saved), "--json", str(resumed), "--quiet"]) == 0
    a, b = (json.loads(p.read_text())["runs"][0] for p in (whole, resumed))
    assert b["protocol"] == "cliapi-llm" and (a["overall"], a["regimes"]) == (b["overall"], b["regimes"])
    # a save of one protocol is refused by a world of the other, in one line
    from engine.errors import AELError

    state = make_scenario("support", 42, {"protocol": "cliapi-llm"}).state_dict()
    with pytest.raises(AELError, match="cliapi-llm protocol, not full"):
        make_scenario("support", 42).load_state_dict(state)


def test_the_protocols_model_settings_are_declared_on_the_spec_for_the_runner_to_read():
    """The runner applies a protocol's model settings from the spec (`llm_settings`), naming no world."""
    from scenarios import spec_of
    from scenarios.support.cliapi_protocol import LLM_SETTINGS

    spec = spec_of("support")
    assert spec.llm_settings_for({"protocol": "cliapi-llm"}) == LLM_SETTINGS == {"temperature": 0.0}
    assert spec.llm_settings_for({"protocol": "full"}) == {} and spec_of("synthetic").llm_settings_for({}) == {}
