"""Offline means offline: no key, no SDK, no socket."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from engine.errors import AELError
from engine.llm import LLMClient, LLMSettings, provider_status

SCHEMA = {"type": "object", "properties": {"route": {"type": "string", "enum": ["billing", "tech"]}},
          "required": ["route"]}
MESSAGES = [{"role": "user", "content": "Ticket: my invoice is wrong."}]


def offline_answer(messages, schema):
    return {"route": "billing"}


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(self, address):
        raise AssertionError(f"a socket tried to connect to {address!r}")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_the_offline_provider_answers_with_the_fallback_and_costs_nothing():
    result = LLMClient(LLMSettings(provider="offline")).complete_json(
        MESSAGES, SCHEMA, purpose="agent", fallback=offline_answer)
    assert result.data == {"route": "billing"}
    assert (result.provider, result.fallback, result.cost_usd, result.input_tokens) == ("offline", False, 0.0, 0)


def test_the_fallback_sees_the_callers_messages_not_the_schema_instruction():
    seen = []
    LLMClient(LLMSettings(provider="offline")).complete_json(
        MESSAGES, SCHEMA, purpose="agent", fallback=lambda m, s: seen.append((m, s)) or {"route": "tech"})
    assert seen == [(MESSAGES, SCHEMA)]


def test_the_offline_provider_without_a_fallback_says_so():
    with pytest.raises(AELError, match="no offline answer was given for 'agent'"):
        LLMClient(LLMSettings(provider="offline")).complete_json(MESSAGES, SCHEMA, purpose="agent")


@pytest.mark.parametrize("provider, variable", [("anthropic", "ANTHROPIC_API_KEY"),
                                                ("gemini", "GEMINI_API_KEY or GOOGLE_API_KEY")])
def test_no_key_raises_naming_the_variable_without_touching_the_network(provider, variable):
    client = LLMClient(LLMSettings(provider=provider), env={})
    with pytest.raises(AELError, match=f"no API key; set {variable}"):
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert client.ledger.records[-1].attempts == 1


def test_no_key_under_the_fallback_policy_falls_back_without_touching_the_network():
    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"), env={})
    result = client.complete_json(MESSAGES, SCHEMA, purpose="reflect", fallback=offline_answer)
    assert result.fallback and result.data == {"route": "billing"}
    assert "ANTHROPIC_API_KEY" in result.reason


def test_openai_compatible_needs_a_url_and_a_model():
    with pytest.raises(AELError, match="AEL_OPENAI_MODEL"):
        LLMClient(LLMSettings(provider="openai-compatible"), env={})
    client = LLMClient(LLMSettings(provider="openai-compatible", model="local"), env={})
    with pytest.raises(AELError, match="AEL_OPENAI_BASE_URL"):
        client.complete_json(MESSAGES, SCHEMA, purpose="agent")


def test_a_fallback_that_breaks_its_schema_is_a_bug_not_a_user_error():
    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"), env={})
    with pytest.raises(ValueError, match="broke its own schema"):
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect", fallback=lambda m, s: {"route": "?"})


def test_importing_the_engine_and_running_offline_loads_no_sdk():
    code = (
        "import sys, engine.llm as llm\n"
        "c = llm.LLMClient(llm.LLMSettings(provider='offline'))\n"
        "c.complete_json([{'role': 'user', 'content': 'x'}], {'type': 'object'}, purpose='p',"
        " fallback=lambda m, s: {})\n"
        "llm.provider_status({})\n"
        "sdks = ('anthropic', 'google.genai', 'google.auth', 'httpx', 'httpx2')\n"
        "loaded = [m for m in sys.modules if m in sdks or m.startswith(tuple(s + '.' for s in sdks))]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_provider_status_says_what_is_missing_without_importing_sdks():
    status = {s.provider: s for s in provider_status({"GOOGLE_API_KEY": "g-123456"})}
    assert status["offline"].usable
    assert status["gemini"].usable and status["gemini"].model == "gemini-2.5-flash-lite"
    assert not status["anthropic"].usable and status["anthropic"].why == "set ANTHROPIC_API_KEY"
    assert status["openai-compatible"].why == "set AEL_OPENAI_BASE_URL and AEL_OPENAI_MODEL"
