"""`ael-lab run` against a misbehaving provider, for every backend and both error policies.

Each fault hits the fourth request of a 12-episode support run (agent and
reflector on the same backend, a reflection every 5 episodes), after three
good answers, and must end in: the right exit code, one line a person can act
on (never a traceback), nothing lost (`--save` holds the episodes done, the
cassette the calls made) and no key in any file written or line shown.
"""

from __future__ import annotations

import json

import pytest

import engine.llm.client as llm_client
from ael_cli.main import main
from tests.fake_llm_server import FakeLLMServer, echo, ok, rate_limited, raw_body

BACKENDS = ("anthropic", "gemini", "openai-compatible")
KEYS = {"anthropic": ("ANTHROPIC_API_KEY", "sk-ant-fault-KEY-0123456789"),
        "gemini": ("GEMINI_API_KEY", "gm-fault-KEY-9876543210"),
        "openai-compatible": ("OPENAI_API_KEY", "sk-oa-fault-KEY-5555555555")}
URL_PASSWORD = "url-pass-SECRET-4242"  # in the openai-compatible --llm-url's userinfo
EPISODES, FAULT_AT = 12, 3  # requests 0-2 are agent.route for episodes 0-2


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY",
                 "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI", "OPENAI_API_KEY",
                 "AEL_OPENAI_BASE_URL", "AEL_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def sleeps(monkeypatch) -> list[float]:
    """Backoff and Retry-After waits are recorded, not slept."""
    waited: list[float] = []
    monkeypatch.setattr(llm_client, "_sleep", waited.append)
    return waited


def point_at(backend: str, url: str, monkeypatch) -> list[str]:
    """Key in the environment, the URL where this backend reads it; the flags to add."""
    name, key = KEYS[backend]
    monkeypatch.setenv(name, key)
    if backend == "anthropic":
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        return []
    if backend == "gemini":
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", url)
        return []
    with_userinfo = url.replace("http://", f"http://me:{URL_PASSWORD}@")
    return ["--llm-url", with_userinfo, "--agent-model", "local-model", "--reflector-model", "local-model"]


def run(backend, policy, url, monkeypatch, tmp_path):
    argv = ["run", "support", "--seeds", "42", "--episodes", str(EPISODES), "--reflect-every", "5", "--quiet",
            "--agent", backend, "--reflector", backend, "--error-policy", policy, "--llm-retries", "1",
            "--save", str(tmp_path / "s.json"), "--json", str(tmp_path / "out.json"),
            "--record", str(tmp_path / "tape.json"), *point_at(backend, url, monkeypatch)]
    return main(argv)


def saved(tmp_path) -> dict:
    return json.loads((tmp_path / "s.json").read_text())["session"]


def recorded_replies(tmp_path) -> int:
    entries = json.loads((tmp_path / "tape.json").read_text())["entries"].values()
    return sum("reply" in o for e in entries for o in e["outcomes"])


def secrets_of(backend: str) -> list[str]:
    """The secrets a run of `backend` is given: its key, and the URL's password where the
    URL has one. (Secrets an earlier test gave stay scrubbed in this process, which must
    not decide whether this test passes.)"""
    return [KEYS[backend][1]] + ([URL_PASSWORD] if backend == "openai-compatible" else [])


def assert_no_secret_anywhere(tmp_path, err: str, backend: str) -> None:
    for path in tmp_path.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for secret in secrets_of(backend):
                assert secret not in text, f"{secret} in {path.name}"
    for secret in secrets_of(backend):
        assert secret not in err


def lines_of(err: str) -> tuple[list[str], list[str]]:
    """(warnings, other lines); every line is the program's own, never a traceback."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert all(line.startswith("ael-lab: ") for line in lines), lines
    warnings = [line for line in lines if line.startswith("ael-lab: warning: ")]
    return warnings, [line for line in lines if line not in warnings]


FAULTS = {
    "empty 200": raw_body(b""),
    "non-JSON 200": raw_body("<html><body>502 Bad Gateway</body></html>"),
    "wrong envelope": raw_body('{"status": "ok", "data": {"answer": "billing"}}'),
    "10 MB reply": ok({"route": "billing", "reason": "x" * (10 * 2 ** 20)}),
    "Retry-After 3600": rate_limited(3600),
}


def assert_outcome(policy, code, tmp_path, err, backend) -> None:
    warnings, others = lines_of(err)
    assert len(others) == 1, others
    session = saved(tmp_path)
    if policy == "raise":
        assert code == 2
        assert "agent.route" in others[0] and "session saved at episode 3" in others[0]
        assert len(others[0]) < 800  # one short line, whatever the reply held
        assert session["t"] == FAULT_AT and len(session["history"]) == FAULT_AT
        assert recorded_replies(tmp_path) == FAULT_AT
    else:
        assert code == 0
        assert session["t"] == EPISODES
        agents = [h["info"]["agent"] for h in session["history"]]
        assert agents[FAULT_AT] == "fallback" and agents.count("fallback") == 1
        assert "1 of 16 LLM calls were answered offline after failing (agent.route 1)" in others[0]
    assert_no_secret_anywhere(tmp_path, err, backend)


@pytest.mark.parametrize("policy", ["raise", "fallback"])
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unreadable_or_refused_reply_ends_in_the_error_policy_with_one_line(
        backend, fault, policy, monkeypatch, tmp_path, capsys, sleeps):
    with FakeLLMServer() as server:
        server.script(*[echo()] * FAULT_AT, FAULTS[fault], FAULTS[fault])  # the call and its one retry
        code = run(backend, policy, server.url, monkeypatch, tmp_path)
    err = capsys.readouterr().err
    assert_outcome(policy, code, tmp_path, err, backend)
    if fault == "Retry-After 3600":
        assert sleeps == [30.0]  # honoured up to the cap, and said so
        assert any("Retry-After" in w and "3600 s" in w for w in lines_of(err)[0])
    if fault == "10 MB reply":
        assert (tmp_path / "s.json").stat().st_size < 200_000


@pytest.mark.parametrize("policy", ["raise", "fallback"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_key_quoted_in_a_successful_reply_reaches_no_file_and_no_later_prompt(
        backend, policy, monkeypatch, tmp_path, capsys):
    with FakeLLMServer() as server:
        # every free-text field of every answer (reasons, diagnoses, insights) repeats what it was sent
        server.script(*[echo(quote=f"key {KEYS[backend][1]} password {URL_PASSWORD}")] * 40)
        code = run(backend, policy, server.url, monkeypatch, tmp_path)
        bodies = [r.raw for r in server.requests]
    err = capsys.readouterr().err
    assert code == 0 and lines_of(err) == ([], [])
    session = saved(tmp_path)
    assert session["t"] == EPISODES and session["insight"] is not None
    assert "[redacted]" in session["insight"]["insight"]  # the insight quoted them; prompts carry it on
    assert any("[redacted]" in body for body in bodies[FAULT_AT:])
    assert not any(secret in body for body in bodies for secret in secrets_of(backend))
    assert_no_secret_anywhere(tmp_path, err, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dead_endpoint_under_fallback_opens_the_breaker_and_finishes_with_few_attempts(
        backend, monkeypatch, tmp_path, capsys):
    with FakeLLMServer() as gone:
        url = gone.url
    code = run(backend, "fallback", url, monkeypatch, tmp_path)
    err = capsys.readouterr().err
    warnings, others = lines_of(err)
    assert code == 0
    assert len(warnings) == 1 and "5 calls in a row failed" in warnings[0] and "circuit breaker open" in warnings[0]
    assert len(others) == 1 and "14 of 14 LLM calls were answered offline" in others[0]
    llm = json.loads((tmp_path / "out.json").read_text())["runs"][0]["llm"]
    # the first call and its retry, four single attempts, then nothing: the other 9 calls never went out
    # (a diagnosis that fell back asks for no prescription: 12 routes + 2 diagnoses)
    assert (llm["calls"], llm["fallbacks"], llm["attempts"]) == (14, 14, 6)
    assert saved(tmp_path)["t"] == EPISODES
    assert_no_secret_anywhere(tmp_path, err, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dead_endpoint_under_raise_stops_at_once_with_one_line(backend, monkeypatch, tmp_path, capsys):
    with FakeLLMServer() as gone:
        url = gone.url
    assert run(backend, "raise", url, monkeypatch, tmp_path) == 2
    err = capsys.readouterr().err
    warnings, others = lines_of(err)
    assert warnings == [] and len(others) == 1 and "could not connect" in others[0]
    assert saved(tmp_path)["t"] == 0
    assert_no_secret_anywhere(tmp_path, err, backend)
