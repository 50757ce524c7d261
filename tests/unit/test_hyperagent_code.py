"""HyperAgent with a model, through the real Gemini SDK against the fake server: the model
writes allocate() code, it waits in the queue until a person approves it, it runs only in
the sandboxed worker, hostile code is refused or contained, and a save resumes exactly."""

from __future__ import annotations

import os

import numpy as np
import pytest

from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.prior.hyperagent_code import code_weights, feature_rows, scores_to_weights
from scenarios import make_scenario
from tests.conftest import new_session
from tests.fake_llm_server import FakeLLMServer, ok

SELECTOR = "hyperagent(generations=20,schedule=spread)"   # generations fall due at episodes 8 and 16
EPISODES = 20
GOOD = "def allocate(features):\n    return [0.5 - f.get('rsi', 0) for f in features]\n"
OTHER = "def allocate(features):\n    return [f.get('tech_score', 0) + 1.0 for f in features]\n"
HOSTILE_IMPORT = "import os\ndef allocate(features):\n    os.system('touch /tmp/x')\n    return []\n"
HOSTILE_LOOP = ("def allocate(features):\n    n = 0\n    for i in range(1000000):\n        for j in range(1000000):\n"
                "            n += 1\n    return [n for f in features]\n")


@pytest.fixture
def server(gemini):
    """The fake Gemini (conftest's `gemini`) under the name these tests use."""
    return gemini


def session(approval: str = "manual", **kw):
    llm = {"reflector": "gemini", **kw.pop("llm", {})}
    return new_session("portfolio", 42, SELECTOR, episodes=EPISODES, llm=llm, approval=approval, **kw)


def answer(code: str) -> object:
    return ok({"code": code, "rationale": "a change"})


@pytest.mark.heavy
def test_the_models_code_waits_for_a_person_and_runs_only_in_the_worker(server):
    server.script(answer(GOOD), answer(OTHER))
    s = session()
    s.run()
    assert s.t == 9 and s.queue.pending[0].kind == "allocator" and s.queue.pending[0].code
    assert "allocation code" in s.blocked_reason
    assert s.method.search.generations == [] and s.code_arms.worker is None   # nothing ran yet
    with pytest.raises(AELError, match="approved or rejected as it stands"):
        s.decide(1, "edit", edited={"code": OTHER})
    s.decide(1, "approve")
    gen = s.method.search.generations[0]
    assert gen.valid and gen.code == GOOD and gen.source == "llm" and gen.score is not None
    assert s.method.search.best_code == GOOD
    assert s.code_arms.worker.pid not in (None, os.getpid())   # scored in the sandbox
    audit = s.queue.audit[-1]
    assert audit.kind == "allocator" and audit.decision == "approve" and len(audit.code_sha256) == 64
    s.run()
    assert s.queue.pending[0].payload["code"] == OTHER
    s.decide(2, "reject", reason="not this one")
    s.run()
    second = s.method.search.generations[1]
    assert not second.valid and "rejected by human: not this one" in second.failure
    prompt = str(server.requests[0].body)
    assert "def allocate(features)" in prompt and "rsi" in prompt


def test_the_score_is_the_sharpe_of_the_codes_weights_computed_in_the_sandbox(server):
    server.script(answer(GOOD))
    s = session()
    s.run()
    s.decide(1, "approve")
    data = s.method.data
    z, r = data["features"][:9], data["next_returns"][:9]
    expected = [scores_to_weights([0.5 - row["rsi"] for row in feature_rows(z[i])]) @ r[i] for i in range(9)]
    from engine.prior.generation_search import sharpe_ddof1

    assert s.method.search.generations[0].score == pytest.approx(sharpe_ddof1(np.array(expected)))
    # frozen at test, the approved code allocates, again in the worker
    w = code_weights(s.code_arms, GOOD, data["features"][12])
    shown = s.method.advise(None, 12, s.rng, learning=False)
    assert list(shown.extra["weights"].values()) == pytest.approx(list(w))


def test_in_batch_modes_code_is_rejected_unless_allow_code_auto(server):
    server.script(answer(GOOD), answer(OTHER))
    s = session("auto")
    s.run()
    assert s.t == EPISODES and not s.queue.pending
    assert [a.who for a in s.queue.audit] == ["rule:code-needs-a-person"] * 2
    assert all(not g.valid and "rule:code-needs-a-person" in g.failure for g in s.method.search.generations)
    server.script(answer(GOOD))
    t = session("auto", allow_code_auto=True)
    t.run(until=10)
    assert t.method.search.best_code == GOOD and t.queue.audit[0].who == "rule:auto-approve"


@pytest.mark.parametrize("hostile, why", [(HOSTILE_IMPORT, "imports are not allowed"),
                                          (HOSTILE_LOOP, "did not finish")])
def test_hostile_code_is_refused_before_anyone_is_asked(server, hostile, why):
    server.script(answer(hostile))
    s = session()
    s.run(until=10)
    gen = s.method.search.generations[0]
    assert not gen.valid and why in gen.failure and not s.queue.proposals


def test_a_model_that_does_not_answer_falls_back_to_the_offline_move(monkeypatch):
    offline = new_session("portfolio", 42, SELECTOR, episodes=EPISODES)
    offline.run()
    with FakeLLMServer("fail") as dead:
        monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", dead.url)
        s = session(llm={"error_policy": "fallback", "max_retries": 0})
        s.run()
    gens = s.method.search.generations
    assert [g.source for g in gens] == ["fallback", "fallback"]
    assert [g.theta for g in gens] == [g.theta for g in offline.method.search.generations]


@pytest.mark.heavy
def test_a_save_resumes_exactly_and_its_approved_code_is_quarantined_again(server, tmp_path):
    server.script(answer(GOOD), answer(OTHER))
    whole = session()
    whole.run()
    whole.decide(1, "approve")
    whole.run()
    whole.decide(2, "approve")
    whole.run()

    server.script(answer(GOOD), answer(OTHER))
    part = session()
    part.run()
    save_session(part, tmp_path / "pending.json")         # a proposal pending
    part = load_session(tmp_path / "pending.json", make_scenario)
    assert part.method.pending is not None and not part.code_arms.quarantined
    part.decide(1, "approve")
    part.run(until=12)
    save_session(part, tmp_path / "approved.json")        # approved code in the state
    part = load_session(tmp_path / "approved.json", make_scenario)
    assert set(part.code_arms.quarantined) == {"hyperagent best", "hyperagent incumbent"}
    with pytest.raises(AELError, match="quarantined"):
        part.step()
    part.review_code_arm("hyperagent best", "admit")
    part.review_code_arm("hyperagent incumbent", "admit")
    part.run()
    part.decide(2, "approve")
    part.run()
    assert part.history == whole.history
    assert part.method.state_dict() == whole.method.state_dict()
    assert [a.decision for a in part.queue.audit if a.kind == "allocator"] == ["approve", "admit", "admit", "approve"]


def test_rejecting_loaded_code_plays_the_parametric_allocator(server, tmp_path):
    server.script(answer(GOOD))
    s = session()
    s.run()
    s.decide(1, "approve")
    save_session(s, tmp_path / "s.json")
    s = load_session(tmp_path / "s.json", make_scenario)
    s.review_code_arm("hyperagent best", "reject")
    s.review_code_arm("hyperagent incumbent", "reject")
    assert s.method.search.best_code == "" and s.method.search.incumbent_code == ""
    assert not s.method.saved_code()


def test_code_admitted_after_a_load_is_quarantined_again_by_the_next_load(server, tmp_path):
    server.script(answer(GOOD))
    s = session()
    s.run()
    s.decide(1, "approve")
    save_session(s, tmp_path / "a.json")
    s = load_session(tmp_path / "a.json", make_scenario)
    s.review_code_arm("hyperagent best", "admit")
    s.review_code_arm("hyperagent incumbent", "reject")
    save_session(s, tmp_path / "b.json")   # the audit's admit and reject (no proposal behind them) load again
    s = load_session(tmp_path / "b.json", make_scenario)
    assert list(s.code_arms.quarantined) == ["hyperagent best"]
    assert [(a.decision, a.proposal_id) for a in s.queue.audit] == [("approve", 1), ("admit", 0), ("reject", 0)]


def test_a_tampered_save_is_refused_with_one_line(server, tmp_path):
    import json

    server.script(answer(GOOD))
    s = session()
    s.run()
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    doc["session"]["method"]["pending"]["run_this"] = True
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(AELError, match="pending"):
        load_session(tmp_path / "bad.json", make_scenario)


def test_the_cli_rejects_the_models_code_unless_allow_code_auto(server, tmp_path):
    import json

    from ael_cli.main import main

    out = tmp_path / "o.json"
    server.script(answer(GOOD), answer(OTHER))
    assert main(["run", "portfolio", "--seeds", "42", "--episodes", str(EPISODES), "--quiet", "--selector", SELECTOR,
                 "--reflector", "gemini", "--json", str(out), "--save", str(tmp_path / "s.json")]) == 0
    saved = json.loads((tmp_path / "s.json").read_text())["session"]
    gens = saved["method"]["search"]["generations"]
    assert [g["valid"] for g in gens] == [False, False]
    assert all("rule:code-needs-a-person" in g["failure"] for g in gens)
