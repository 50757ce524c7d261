"""The portfolio's LLM allocator through the real Gemini SDK against the fake server."""

import json

import pytest

from ael_cli.main import main
from tests.fake_llm_server import FakeLLMServer, ok

TICKERS = ["AAPL", "NVDA", "JNJ", "UNH", "JPM", "GS", "XOM", "PG", "CAT", "NEE"]


@pytest.fixture(autouse=True)
def gemini_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key-do-not-leak")


def run(server, monkeypatch, out, *argv):
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    return main(["run", "portfolio", "--seeds", "42", "--episodes", "30", "--quiet", "--json", str(out), *argv])


def test_the_allocator_prompt_carries_signals_and_the_fixed_template_and_its_answer_is_used(tmp_path, monkeypatch):
    out = tmp_path / "o.json"
    answer = {**{t: 0.05 for t in TICKERS}, "cash": 0.5}
    with FakeLLMServer("echo") as server:
        server.script(*[ok(answer) for _ in range(15)])  # the bars after the 15-bar warm-up
        assert run(server, monkeypatch, out, "--agent", "gemini", "--warmup", "15") == 0
        prompts = [json.dumps(r.body) for r in server.requests]
    r = json.loads(out.read_text())["runs"][0]
    assert r["llm"]["by_purpose"]["agent.allocate"]["calls"] == 30 and r["agent_fallbacks"] == 0
    assert "## Market Signals" in prompts[0] and '\\"AAPL\\": <weight>, \\"NVDA\\": <weight>' in prompts[0]
    assert "gm-test-key-do-not-leak" not in out.read_text()


def test_a_failing_server_with_fallback_allocates_exactly_as_offline(tmp_path, monkeypatch):
    offline, failing = tmp_path / "off.json", tmp_path / "fail.json"
    assert main(["run", "portfolio", "--seeds", "42", "--episodes", "30", "--quiet", "--json", str(offline)]) == 0
    with FakeLLMServer("fail") as server:
        assert run(server, monkeypatch, failing, "--agent", "gemini", "--reflector", "gemini",
                   "--error-policy", "fallback", "--llm-retries", "0") == 0
    a, b = json.loads(offline.read_text())["runs"][0], json.loads(failing.read_text())["runs"][0]
    assert a["phases"] == b["phases"] and a["overall"] == b["overall"]
    assert b["agent_fallbacks"] == 30


def test_the_llm_allocator_shows_an_insight_only_while_the_offline_agent_reads_it():
    from types import SimpleNamespace

    from engine.variants import AgentView

    from scenarios import make_scenario
    from scenarios.portfolio.agent import read_advice
    from scenarios.portfolio.llm_allocator import prompt_context

    scenario = make_scenario("portfolio", 42, {})
    tools = scenario.world.tools

    def applied(ago: int, confidence: float = 0.8) -> dict:  # an insight applied `ago` bars before bar 0
        return {"insight": "Cut risk.", "regime_label": "bearish", "confidence": confidence, "episode": -ago}

    def agent(insight: dict) -> SimpleNamespace:  # what prompt_context reads of an AgentContext
        return SimpleNamespace(insight=insight, view=AgentView(), prior=None)

    ages = range(12)
    shown = [a for a in ages if prompt_context(scenario, 0, agent(applied(a)), [], []).insight]
    offline = [a for a in ages if read_advice(applied(a), 0, tools, scenario.config).exposure < 1]
    assert shown == offline == [0, 1, 2, 3]  # the day after the reflection, not every later bar
    assert not any(prompt_context(scenario, 0, agent(applied(a, 0.3)), [], []).insight
                   for a in ages)
