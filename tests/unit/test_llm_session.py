"""LLM agents and reflectors inside real sessions, against the fake server on 127.0.0.1."""

import json
import socket

import pytest

from ael_cli.main import main
from tests.fake_llm_server import FakeLLMServer

KEY = "sk-ant-test-secret-0123456789"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY",
                 "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OPENAI_API_KEY", "AEL_OPENAI_BASE_URL",
                 "AEL_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def anthropic_at(monkeypatch):
    def point(server):
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    return point


def run(*argv):
    return main(["run", "support", "--seeds", "42", "--episodes", "120", "--quiet", *argv])


def test_agent_and_reflector_through_the_anthropic_sdk_count_calls_and_tokens(tmp_path, anthropic_at):
    out = tmp_path / "out.json"
    with FakeLLMServer("echo") as server:
        anthropic_at(server)
        assert run("--agent", "anthropic", "--reflector", "anthropic", "--json", str(out)) == 0
        sent = len(server.requests)
    r = json.loads(out.read_text())["runs"][0]
    llm = r["llm"]
    assert llm["by_purpose"]["agent.route"]["calls"] == 120
    assert llm["calls"] == sent and llm["fallbacks"] == 0 and r["agent_fallbacks"] == 0
    assert llm["input_tokens"] > 0 and llm["output_tokens"] > 0 and llm["cost_usd"] > 0
    assert any(p.startswith("reflect.") for p in llm["by_purpose"])
    assert KEY not in out.read_text()


def test_a_failing_server_under_the_fallback_policy_completes_marks_every_fallback_and_equals_offline(
        tmp_path, anthropic_at):
    offline, failing, save = tmp_path / "offline.json", tmp_path / "failing.json", tmp_path / "s.json"
    assert run("--json", str(offline)) == 0
    with FakeLLMServer("fail") as server:
        anthropic_at(server)
        assert run("--agent", "anthropic", "--reflector", "anthropic", "--error-policy", "fallback",
                   "--llm-retries", "0", "--json", str(failing), "--save", str(save)) == 0
    a, b = json.loads(offline.read_text())["runs"][0], json.loads(failing.read_text())["runs"][0]
    assert (a["overall"], a["regimes"], a["sharpe"], a["injections"]) == (b["overall"], b["regimes"], b["sharpe"],
                                                                          b["injections"])
    assert b["agent_fallbacks"] == 120 and b["llm"]["fallbacks"] == b["llm"]["calls"] > 120
    session = json.loads(save.read_text())["session"]
    assert all(h["info"]["agent"] == "fallback" for h in session["history"])
    assert all(r["source"] == "fallback" for r in session["reflections"])
    assert all(a["source"] == "fallback" for a in session["queue"]["audit"])
    assert KEY not in save.read_text()


def test_raise_policy_stops_with_one_line_and_the_saved_session_resumes(tmp_path, anthropic_at, capsys):
    save = tmp_path / "s.json"
    with FakeLLMServer("fail") as server:
        anthropic_at(server)
        assert run("--agent", "anthropic", "--llm-retries", "0", "--save", str(save)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "agent.route" in err and KEY not in err
    saved = json.loads(save.read_text())["session"]
    assert saved["t"] == 0 and saved["history"] == []  # the failed episode was undone


def test_a_recorded_run_replays_to_identical_json_with_no_network(tmp_path, anthropic_at, monkeypatch):
    tape, first, second = tmp_path / "tape.json", tmp_path / "a.json", tmp_path / "b.json"
    with FakeLLMServer("echo") as server:
        anthropic_at(server)
        assert run("--agent", "anthropic", "--reflector", "anthropic", "--record", str(tape),
                   "--json", str(first)) == 0
    assert KEY not in tape.read_text()
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    assert run("--agent", "anthropic", "--reflector", "anthropic", "--replay", str(tape),
               "--json", str(second)) == 0
    assert second.read_bytes() == first.read_bytes()


def test_replaying_a_request_the_cassette_lacks_fails_clearly(tmp_path, anthropic_at, capsys):
    tape = tmp_path / "tape.json"
    with FakeLLMServer("echo") as server:
        anthropic_at(server)
        assert main(["run", "support", "--seeds", "42", "--episodes", "5", "--agent", "anthropic",
                     "--record", str(tape), "--quiet"]) == 0
    assert run("--agent", "anthropic", "--replay", str(tape)) == 2
    assert "holds no answer" in capsys.readouterr().err


def test_without_any_key_the_default_path_never_touches_the_network(monkeypatch, tmp_path):
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    assert main(["run", "support", "--seeds", "42", "--episodes", "200", "--quiet"]) == 0
    assert main(["run", "synthetic", "--seeds", "1", "--quiet"]) == 0


def test_bad_llm_flags_are_one_line_errors(capsys):
    assert run("--agent", "gpt9") == 2
    assert "--agent: 'gpt9' is not one of" in capsys.readouterr().err
    assert run("--agent", "anthropic", "--record", "a", "--replay", "b") == 2
    assert "choose one" in capsys.readouterr().err
    assert run("--error-policy", "pray") == 2


def _no_network(self, address):
    raise AssertionError(f"tried to open a connection to {address}")
