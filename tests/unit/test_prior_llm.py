"""The prior methods with a model, through the real Gemini SDK against the fake server:
the critic's prompt carries the episode's facts, its answer is kept only where it names
what the world knows, a failing model falls back to the deterministic critic (the same
run as offline), and an LLM agent reads the method's memory in its prompt."""

from __future__ import annotations

import json

import pytest

from ael_cli.main import main
from engine.store.persistence import load_session
from scenarios import make_scenario
from tests.fake_llm_server import FakeLLMServer, ok


@pytest.fixture(autouse=True)
def gemini_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key-do-not-leak")


def run(server, monkeypatch, tmp_path, scenario: str, selector: str, episodes: int, *argv) -> dict:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    out = tmp_path / "o.json"
    assert main(["run", scenario, "--selector", selector, "--seeds", "42", "--episodes", str(episodes), "--quiet",
                 "--json", str(out), "--save", str(tmp_path / "s.json"), *argv]) == 0
    return json.loads(out.read_text())["runs"][0]


def test_the_support_critic_asks_with_the_facts_and_keeps_only_words_of_the_ticket(tmp_path, monkeypatch):
    answers = [ok({"critique": f"note {i}", "route": "auth_env", "tokens": ["nonsense_word"]}) for i in range(6)]
    with FakeLLMServer("echo") as server:
        server.script(*answers)
        r = run(server, monkeypatch, tmp_path, "support", "reflexion", 6, "--reflector", "gemini")
        prompts = [json.dumps(q.body) for q in server.requests]
    assert r["llm"]["by_purpose"]["prior.reflexion"]["calls"] == 6
    assert "Facts of the ticket just resolved" in prompts[0] and "gold" in prompts[0]
    s = load_session(tmp_path / "s.json", make_scenario)
    critiques = s.method.critiques
    assert [c["text"] for c in critiques] == [f"#{i} note {i}" for i in range(6)]
    assert all(c["source"] == "llm" for c in critiques)
    # the model cannot relabel the ticket or bring words it does not hold
    assert [c["route"] for c in critiques] == [s.scenario.ticket(i)["gold_route"] for i in range(6)]
    assert all(c["salient"] and "nonsense_word" not in c["salient"] for c in critiques)


def test_the_portfolio_critic_keeps_known_tools_and_sectors_only(tmp_path, monkeypatch):
    answer = {"critique": "lean on momentum", "trust": ["momentum", "astrology"], "distrust": [],
              "overweight": ["Energy", "Moon"], "underweight": []}
    with FakeLLMServer("echo") as server:
        server.script(*[ok(answer) for _ in range(20)])
        run(server, monkeypatch, tmp_path, "portfolio", "meta-reflexion", 20, "--reflector", "gemini")
    s = load_session(tmp_path / "s.json", make_scenario)
    raw = s.method.raw[-1]
    assert raw["text"].endswith("lean on momentum") and raw["source"] == "llm"
    assert raw["advice"]["trust"] == ["compute_momentum"] and raw["advice"]["over"] == ["Energy"]
    assert {r["text"] for r in s.method.rules} >= {"RULE: trust momentum", "RULE: overweight Energy"}


def test_a_failing_model_falls_back_to_the_offline_critic(tmp_path, monkeypatch):
    offline = tmp_path / "off.json"
    assert main(["run", "support", "--selector", "expel", "--seeds", "42", "--episodes", "40", "--quiet",
                 "--json", str(offline)]) == 0
    with FakeLLMServer("fail") as server:
        r = run(server, monkeypatch, tmp_path, "support", "expel", 40, "--reflector", "gemini",
                "--error-policy", "fallback", "--llm-retries", "0")
    a = json.loads(offline.read_text())["runs"][0]
    assert a["overall"] == r["overall"] and a["regimes"] == r["regimes"]
    s = load_session(tmp_path / "s.json", make_scenario)
    assert {x["record"]["source"] for x in s.method.lessons} == {"fallback"}


def test_an_llm_agent_reads_the_method_memory_in_its_prompt(tmp_path, monkeypatch):
    with FakeLLMServer("echo") as server:
        run(server, monkeypatch, tmp_path, "support", "reflexion", 4, "--agent", "gemini")
        prompts = [json.dumps(q.body) for q in server.requests]
    assert "#0 " in prompts[1] and "#2 " in prompts[3]  # the critiques of the tickets before


def test_an_llm_allocator_reads_the_method_memory_under_the_reference_headings(tmp_path, monkeypatch):
    with FakeLLMServer("echo") as server:
        run(server, monkeypatch, tmp_path, "portfolio", "reflexion", 18, "--agent", "gemini", "--warmup", "15")
        prompts = [json.dumps(q.body) for q in server.requests]
    assert "## Recent Allocation Lessons" in prompts[-1] and "bar 16: return" in prompts[-1]
