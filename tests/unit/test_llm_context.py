"""Prompts that fit a small local model, one repair round, and error lines a placeholder
key cannot mangle: the issue's llama.cpp run, against the fake server playing a
2,048-token model."""

from __future__ import annotations

import json
import socket

import pytest

import engine.llm.client as llm_client
from ael_cli.main import main
from engine.llm import LLMClient, LLMSettings
from engine.llm.context import estimate_tokens, fit
from tests.fake_llm_server import FakeLLMServer, ok, schema_invalid

SCHEMA = {"type": "object", "required": ["regime", "confidence"],
          "properties": {"regime": {"type": "string"}, "confidence": {"type": "number"}}}


@pytest.fixture(autouse=True)
def placeholder_key(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                 "AEL_OPENAI_BASE_URL", "AEL_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "x")  # local servers accept any key
    monkeypatch.setattr(llm_client, "_sleep", lambda s: None)


def the_issues_run(url: str, tmp_path, *extra: str) -> tuple[int, dict]:
    save = tmp_path / "s.json"
    code = main(["run", "support", "--seeds", "42", "--episodes", "200", "--reflector", "openai-compatible",
                 "--reflector-model", "SmolLM2-135M", "--llm-url", url + "/v1", "--error-policy", "fallback",
                 "--trigger", "paper", "--quiet", "--save", str(save), "--json", str(tmp_path / "o.json"), *extra])
    return code, json.loads(save.read_text())["session"]


@pytest.mark.parametrize("how", ["the server reports it", "--llm-context", "the default for unknown servers"])
def test_the_issues_run_against_a_2048_token_server_makes_no_request_over_the_context(how, tmp_path):
    with FakeLLMServer(context_tokens=2048, report_context=how == "the server reports it") as server:
        extra = ["--llm-context", "2048"] if how == "--llm-context" else []
        code, session = the_issues_run(server.url, tmp_path, *extra)
        sent = [r.body for r in server.requests if r.method == "POST"]
    records = session["usage"]["records"]
    assert code == 0 and server.over_context == 0
    assert records and not any(r["fallback"] for r in records)
    assert all(body["max_tokens"] == 512 for body in sent)  # a quarter of the window for the answer
    trimmed = [r["trimmed"] for r in records if r["trimmed"]]
    # the diagnosis drops episodes; the prescription, whose schema types a policy, the newest pool entries
    assert any("window_episodes" in t for t in trimmed)
    assert all(("window_episodes" in t or t.startswith("pool ")) and "tokens)" in t for t in trimmed)
    llm = json.loads((tmp_path / "o.json").read_text())["runs"][0]["llm"]
    assert llm["trimmed"] == len(trimmed) and llm["first_try"] == llm["calls"]


def test_without_fitting_the_same_run_would_have_been_refused(tmp_path):
    # the user claims a large window: prompts go whole and the server refuses them
    with FakeLLMServer(context_tokens=2048) as server:
        code, session = the_issues_run(server.url, tmp_path, "--llm-context", "100000")
    records = session["usage"]["records"]
    assert code == 0 and server.over_context > 0
    refused = [r["reason"] for r in records if r["fallback"]]
    assert refused and "This model's maximum context length is 2048 tokens" in refused[0]  # unmangled by key "x"
    assert "[redacted]" not in json.dumps(session)


def test_a_trimmed_run_replays_identically_with_no_network(tmp_path, monkeypatch):
    tape = tmp_path / "tape.json"
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    argv = ["run", "support", "--seeds", "42", "--episodes", "60", "--reflector", "openai-compatible",
            "--reflector-model", "m", "--trigger", "paper", "--quiet"]
    with FakeLLMServer(context_tokens=2048) as server:
        assert main([*argv, "--llm-url", server.url, "--record", str(tape), "--json", str(first)]) == 0
        url = server.url
    assert json.loads(tape.read_text())["meta"] == {"context_tokens": {"openai-compatible": 2048}}
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    assert main([*argv, "--llm-url", url, "--replay", str(tape), "--json", str(second)]) == 0
    assert second.read_bytes() == first.read_bytes()


def test_a_reply_of_the_wrong_shape_is_repaired_once_and_counted():
    with FakeLLMServer() as server:
        server.script(schema_invalid({"task": "echoed the task"}), ok({"regime": "storm", "confidence": 0.7}))
        client = LLMClient(LLMSettings(provider="openai-compatible", model="m", base_url=server.url), env={})
        result = client.complete_json([{"role": "user", "content": "Which regime?"}], SCHEMA, purpose="reflect")
        repair = server.requests[1].body["messages"]
    assert result.repaired and result.data == {"regime": "storm", "confidence": 0.7}
    assert "missing required field 'regime'" in repair[-1]["content"] and repair[-2]["role"] == "assistant"
    totals = client.ledger.totals()
    assert (totals.calls, totals.repaired, totals.fallbacks) == (1, 1, 0)


def test_fit_cuts_the_longest_list_first_and_keeps_each_lists_head():
    items = {"episodes": [f"episode line {i} " * 5 for i in range(60)], "rules": ["a rule"] * 3}

    def build(n):
        return [{"role": "user", "content": json.dumps({k: v[:n[k]] for k, v in items.items()})}]

    messages, cut = fit(build, {k: len(v) for k, v in items.items()}, budget=300)
    kept = json.loads(messages[0]["content"])
    assert estimate_tokens(messages) <= 300
    assert cut == {"episodes": (60, len(kept["episodes"]))} and kept["rules"] == items["rules"]
    assert kept["episodes"] == items["episodes"][:len(kept["episodes"])]


def _no_network(self, address):
    raise AssertionError(f"tried to open a connection to {address}")
