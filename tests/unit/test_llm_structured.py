"""Structured output on every provider: the reply's JSON schema travels in the
provider's own field (the fake server refuses a request without it), a server
that refuses a form of it is asked in the next form, and a run counts how many
replies parsed and fitted on the first try."""

from __future__ import annotations

import pytest

from engine.llm.setup import LLMConfig, LLMRuntime

from tests.fake_llm_server import FakeLLMServer, not_json, ok, schema_invalid, sent_schema, server_error
from tests.unit.test_llm_providers import GOOD, MESSAGES, PROVIDERS, SCHEMA, client_for, clean_environment  # noqa: F401

API = {"anthropic": "anthropic", "gemini": "gemini", "openai-compatible": "openai"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_request_carries_the_schema_in_the_providers_own_field(provider):
    with FakeLLMServer() as server:  # require_schema: a request without it is a 400
        server.script(ok(GOOD))
        result = client_for(provider, server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
        assert result.data == GOOD and not result.fallback
        assert server.missing_schema == 0
        assert [sent_schema(API[provider], r.body) for r in server.requests] == [SCHEMA]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_is_still_validated_after_structured_output(provider):
    # a server may ignore the schema it was sent: the repair round still catches the shape
    with FakeLLMServer() as server:
        server.script(schema_invalid(), ok(GOOD))
        result = client_for(provider, server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
        assert result.data == GOOD and result.repaired
        assert all(sent_schema(API[provider], r.body) == SCHEMA for r in server.requests)


def test_the_fake_server_refuses_a_request_without_the_schema():
    # the check itself can fail: a plain JSON-mode request (no schema) is refused
    import httpx2

    with FakeLLMServer() as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                "response_format": {"type": "json_object"}}
        answer = httpx2.post(server.url + "/v1/chat/completions", json=body, timeout=5)
        assert answer.status_code == 400 and server.missing_schema == 1


def test_anthropic_answers_through_the_forced_tool():
    with FakeLLMServer() as server:
        server.script(ok(GOOD))
        client_for("anthropic", server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
        body = server.requests[0].body
        assert body["tool_choice"] == {"type": "tool", "name": "answer"}
        # and a text reply (a proxy that ignores tools) is still read, then repaired
        server.script(not_json(), ok(GOOD))
        result = client_for("anthropic", server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
        assert result.data == GOOD and result.repaired


def test_a_server_that_refuses_openais_form_is_asked_in_llama_cpps():
    with FakeLLMServer(reject_formats=("json_schema",)) as server:
        client = client_for("openai-compatible", server)
        first = client.complete_json(MESSAGES, SCHEMA, purpose="reflect")
        second = client.complete_json(MESSAGES, SCHEMA, purpose="reflect")
        forms = [r.body["response_format"]["type"] for r in server.requests]
        # one refused request, then the form that works, which is kept for the next call
        assert forms == ["json_schema", "json_object", "json_object"]
        assert server.requests[1].body["response_format"]["schema"] == SCHEMA
        assert (first.attempts, second.attempts, first.fallback, first.repaired) == (1, 1, False, False)


def test_plain_json_mode_is_the_last_resort():
    with FakeLLMServer(reject_formats=("json_schema", "json_object"), require_schema=False) as server:
        result = client_for("openai-compatible", server, max_retries=0,
                            error_policy="fallback").complete_json(MESSAGES, SCHEMA, purpose="reflect",
                                                                   fallback=lambda m, s: GOOD)
        assert [r.body["response_format"] for r in server.requests][-1] == {"type": "json_object"}
        assert len(server.requests) == 3 and result.fallback  # every form refused: a failure like any other


def test_an_outage_is_not_mistaken_for_a_refused_form():
    with FakeLLMServer() as server:
        server.script(server_error(500), ok(GOOD))
        result = client_for("openai-compatible", server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
        assert result.data == GOOD and result.attempts == 2
        assert [r.body["response_format"]["type"] for r in server.requests] == ["json_schema", "json_schema"]


def test_the_run_summary_has_the_first_try_and_after_repair_shares():
    with FakeLLMServer() as server:
        server.script(schema_invalid(), ok(GOOD), ok(GOOD), ok(GOOD), ok(GOOD))
        runtime = LLMRuntime(LLMConfig(reflector="openai-compatible", reflector_model="m", base_url=server.url,
                                       timeout_s=2.0))
        for _ in range(4):
            runtime.reflector.complete_json(MESSAGES, SCHEMA, purpose="reflect")
        summary = runtime.summary()
        assert (summary["calls"], summary["first_try"], summary["repaired"]) == (4, 3, 1)
        assert summary["first_try_ok_share"] == 0.75 and summary["after_repair_ok_share"] == 1.0
        assert summary["by_purpose"]["reflect"]["first_try_ok_share"] == 0.75
    assert LLMRuntime(LLMConfig()).summary()["first_try_ok_share"] is None  # no calls: no share
