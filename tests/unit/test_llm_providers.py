"""The real SDKs (anthropic, google-genai) and plain HTTP against the fake server:
success, retries, timeouts, bad replies, the error policy, and keys that stay secret."""

from __future__ import annotations

import json

import pytest

from engine.errors import AELError
from engine.llm import LLMClient, LLMSettings

from tests.fake_llm_server import (FakeLLMServer, cut_off, error, hang, not_json, ok, rate_limited,
                                   schema_invalid, server_error, trickle)

PROVIDERS = ("anthropic", "gemini", "openai-compatible")
KEYS = {"anthropic": "sk-ant-test-KEY-0123456789", "gemini": "gm-test-KEY-9876543210",
        "openai-compatible": "sk-oa-test-KEY-5555555555"}
SCHEMA = {
    "type": "object",
    "properties": {
        "regime": {"type": "string", "enum": ["calm", "storm"]},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["regime", "confidence"],
}
GOOD = {"regime": "storm", "confidence": 0.8}
MESSAGES = [{"role": "system", "content": "You diagnose regimes."},
            {"role": "user", "content": "Window 3: 7 of 10 losses. Which regime?"}]


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """Nothing from the machine's environment may reach the SDKs."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS",
                 "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
                 "OPENAI_API_KEY", "AEL_OPENAI_BASE_URL", "AEL_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def env_for(server: FakeLLMServer) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": server.url,
        "GEMINI_API_KEY": KEYS["gemini"], "GOOGLE_GEMINI_BASE_URL": server.url,
        "OPENAI_API_KEY": KEYS["openai-compatible"], "AEL_OPENAI_BASE_URL": server.url,
        "AEL_OPENAI_MODEL": "gpt-4o-mini",
    }


def client_for(provider: str, server: FakeLLMServer, sleeps: list[float] | None = None, **settings) -> LLMClient:
    settings.setdefault("timeout_s", 2.0)
    return LLMClient(LLMSettings(provider=provider, **settings), env=env_for(server),
                     sleep=(sleeps.append if sleeps is not None else lambda s: None))


def offline_answer(messages, schema):
    return {"regime": "calm", "confidence": 0.1}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_valid_reply_comes_back_parsed_with_tokens_and_cost(provider, server):
    server.script(ok(GOOD))
    result = client_for(provider, server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD
    assert (result.provider, result.attempts, result.fallback) == (provider, 1, False)
    assert result.input_tokens > 0 and result.output_tokens > 0
    assert result.cost_usd > 0  # every default model is in the price table


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_schema_travels_in_the_system_prompt_and_echo_mode_answers_it(provider, server):
    result = client_for(provider, server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == {"regime": "calm", "confidence": 0.0}
    assert "<json-schema>" in server.requests[0].raw


def test_gemini_is_asked_for_json_and_given_the_temperature(server):
    client_for("gemini", server, temperature=0.7).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    config = server.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["temperature"] == 0.7


def test_anthropic_gets_no_temperature_which_its_current_api_rejects(server):
    client_for("anthropic", server, temperature=0.7).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    body = server.requests[0].body
    assert "temperature" not in body
    assert body["messages"] == [MESSAGES[1]]
    assert body["system"].startswith("You diagnose regimes.")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_429_is_retried_after_the_servers_retry_after(provider, server):
    sleeps: list[float] = []
    server.script(rate_limited(retry_after=7), ok(GOOD))
    result = client_for(provider, server, sleeps).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD
    assert result.attempts == 2
    assert sleeps == [7.0]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_500_is_retried_with_exponential_backoff(provider, server):
    sleeps: list[float] = []
    server.script(server_error(500), server_error(503), ok(GOOD))
    result = client_for(provider, server, sleeps, backoff_base_s=0.5).complete_json(
        MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD
    assert result.attempts == 3
    assert sleeps == [0.5, 1.0]


def test_retry_after_is_capped_by_backoff_max(server):
    sleeps: list[float] = []
    server.script(rate_limited(retry_after=3600), ok(GOOD))
    client_for("anthropic", server, sleeps, backoff_max_s=5.0).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert sleeps == [5.0]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_retries_stop_after_max_retries_and_raise_one_clear_line(provider, server):
    server.script(*[server_error(500)] * 5)
    client = client_for(provider, server, max_retries=2)
    with pytest.raises(AELError) as caught:
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect")
    message = str(caught.value)
    assert "'reflect'" in message and "HTTP 500" in message and "3 attempts" in message
    assert "\n" not in message
    assert len(server.requests) == 3


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_401_is_not_retried(provider, server):
    server.script(error(401, "invalid key"), ok(GOOD))
    with pytest.raises(AELError, match="HTTP 401"):
        client_for(provider, server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert len(server.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_hung_server_times_out_and_the_retry_succeeds(provider, server):
    server.script(hang(5), ok(GOOD))
    result = client_for(provider, server, timeout_s=0.15).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD
    assert result.attempts == 2


def test_a_server_that_keeps_hanging_fails_with_a_timeout(server):
    server.script(hang(5), hang(5))
    client = client_for("anthropic", server, timeout_s=0.15, max_retries=1)
    with pytest.raises(AELError, match="timeout"):
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_non_json_reply_is_retried_once_with_the_error_quoted(provider, server):
    server.script(not_json("Sure! The regime is storm."), ok(GOOD))
    result = client_for(provider, server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD
    assert result.attempts == 2
    follow_up = json.dumps(server.requests[1].body)
    assert "rejected: not valid JSON" in follow_up
    assert "Sure! The regime is storm." in follow_up  # the bad answer is shown back as the model's turn


def test_a_schema_error_is_quoted_by_path(server):
    server.script(ok({"regime": "storm", "confidence": 3}), ok(GOOD))
    client_for("openai-compatible", server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    follow_up = server.requests[1].body["messages"][-1]["content"]
    assert "$.confidence: 3 is above the maximum 1" in follow_up


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_cut_off_at_max_tokens_says_so(provider, server):
    server.script(cut_off(), cut_off())
    with pytest.raises(AELError, match="cut off at max_tokens=64"):
        client_for(provider, server, max_tokens=64).complete_json(MESSAGES, SCHEMA, purpose="reflect")


def test_a_fenced_json_reply_is_accepted_without_a_retry(server):
    server.script(ok("```json\n" + json.dumps(GOOD) + "\n```"))
    result = client_for("anthropic", server).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD and result.attempts == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_schema_invalid_twice_falls_back_under_the_fallback_policy(provider, server):
    server.script(schema_invalid(), schema_invalid())
    client = client_for(provider, server, error_policy="fallback")
    result = client.complete_json(MESSAGES, SCHEMA, purpose="reflect", fallback=offline_answer)
    assert result.fallback is True
    assert result.data == {"regime": "calm", "confidence": 0.1}
    assert "missing required field 'regime'" in result.reason
    assert result.attempts == 2 and result.input_tokens > 0  # the failed attempts still cost
    assert client.ledger.totals().fallbacks == 1


def test_schema_invalid_twice_raises_under_the_raise_policy(server):
    server.script(schema_invalid(), schema_invalid())
    client = client_for("gemini", server, error_policy="raise")
    with pytest.raises(AELError, match=r"'reflect' failed .*rejected twice, last: \$: missing required field"):
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect", fallback=offline_answer)
    assert client.ledger.records[-1].reason.startswith("the reply was rejected twice")


def test_the_fallback_policy_without_a_fallback_still_raises(server):
    server.script(schema_invalid(), schema_invalid())
    client = client_for("anthropic", server, error_policy="fallback")
    with pytest.raises(AELError, match="no offline fallback"):
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_key_is_sent_but_never_leaks(provider, server, tmp_path):
    key = KEYS[provider]
    server.script(error(401, f"invalid api key {key} for this account"))
    client = client_for(provider, server, error_policy="raise")
    with pytest.raises(AELError) as caught:
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert key in json.dumps(server.requests[0].headers)  # it did go out, in a header
    assert key not in json.dumps(server.requests[0].body)
    assert key not in str(caught.value) and "[redacted]" in str(caught.value)
    assert key not in json.dumps(client.ledger.to_dict())
    assert key not in repr(client.settings) and key not in " ".join(server.log)


def test_an_openai_compatible_server_without_a_key_gets_no_auth_header(server):
    env = {k: v for k, v in env_for(server).items() if k != "OPENAI_API_KEY"}
    client = LLMClient(LLMSettings(provider="openai-compatible"), env=env)
    client.complete_json(MESSAGES, SCHEMA, purpose="agent")
    assert not any(k.lower() == "authorization" for k in server.requests[0].headers)


@pytest.mark.heavy
def test_nothing_listening_is_a_connection_error_after_retries():
    with FakeLLMServer() as gone:
        url = gone.url
    env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": url}
    client = LLMClient(LLMSettings(provider="anthropic", max_retries=1), env=env, sleep=lambda s: None)
    with pytest.raises(AELError, match="could not connect"):
        client.complete_json(MESSAGES, SCHEMA, purpose="reflect")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_that_trickles_in_is_given_up_at_the_deadline_and_retried(provider, server):
    import time

    server.script(trickle(30), ok(GOOD))
    start = time.monotonic()
    result = client_for(provider, server, timeout_s=0.2).complete_json(MESSAGES, SCHEMA, purpose="reflect")
    assert result.data == GOOD and result.attempts == 2
    assert time.monotonic() - start < 5  # the deadline is 2 x 0.2 + 1 s; each read alone never timed out


# ----------------------------------------------------------------------------- SDKs imported before a fork
def test_the_sdks_a_sweeps_runs_name_are_imported_once_and_a_missing_one_is_left_to_the_run(monkeypatch):
    import engine.llm.providers as providers

    monkeypatch.setattr(providers, "SDK_MODULES", {"anthropic": "json", "gemini": "no_such_sdk_module_here"})
    configs = [{}, {"agent": "offline", "reflector": "offline"}, {"agent": "anthropic", "reflector": "gemini"},
               {"agent": "anthropic", "reflector": "offline"}]
    assert providers.import_sdks(configs) == ["json"]
    assert providers.import_sdks([{}, {"agent": "offline"}]) == []


def test_a_local_sweep_imports_the_sdks_in_its_parent_before_the_workers_start(monkeypatch):
    from ael_cli.sweep import engines
    from ael_lab.batch import RunTask
    from engine.session import SessionConfig

    order = []
    monkeypatch.setattr(engines, "import_sdks", lambda llms: order.append(("import", list(llms))))
    monkeypatch.setattr(engines, "run_all", lambda *a, **kw: order.append(("fork", len(a[1]))))
    tasks = [RunTask(SessionConfig("support", seed, llm={"agent": "anthropic"})) for seed in (1, 2)]
    engines.run_local(tasks, 2, lambda i, out: None)
    assert order == [("import", [{"agent": "anthropic"}] * 2), ("fork", 2)]
