"""Rewind, branch and explain (engine/timetravel.py, engine/explain.py; issue 31).

A rewind replays exactly: going back to any episode and stepping on gives the run
that was, to the last field of the save; a branch with no decision changed is the
same run; a branch with a decision flipped is the same run before the decision and
another run after it, where the decision mattered.
"""

from __future__ import annotations

import json

import pytest

import scenarios
from engine.errors import AELError
from engine.explain import explain, render
from engine.session import Session, SessionConfig


def new(name: str, seed: int = 42, options: dict | None = None, **kw) -> Session:
    return Session(SessionConfig(scenario=name, seed=seed, scenario_options=options or {}, **kw),
                   scenarios.make_scenario(name, seed, options or {}))


def comparable(s: Session) -> dict:
    """The save, without wall-clock times (never part of results) and the LLM ledger."""
    d = json.loads(json.dumps(s.to_dict()))
    for a in d["queue"]["audit"]:
        a.pop("at")
    for r in d["queue"]["rules"]:
        r.pop("at"), r.pop("revoked_at")
    d.pop("usage", None)
    return d


def reload(s: Session) -> Session:
    """The session as `ael-lab` loads it from a save: no checkpoint but its start."""
    return Session.from_dict(json.loads(json.dumps(s.to_dict())), scenarios.make_scenario)


def check_rewinds(s: Session, points: list[int]) -> dict:
    s.run()
    full = comparable(s)
    for n in points:
        s.rewind_to(n)
        assert s.t == n and s.timeline.reach(s) == len(full["history"])  # the run ahead is kept
        assert s.history == full["history"][:n]
        s.run()
        assert comparable(s) == full, f"rewind to {n} then on to the end is not the run"
    loaded = reload(s)
    loaded.branch(points[len(points) // 2], {})
    loaded.run()
    assert comparable(loaded) == full, "a branch with no decision changed is not the run"
    return full


@pytest.fixture(scope="module")
def support_run():
    s = new("support", episodes=1200)
    s.run()
    return s, comparable(s)


# ----------------------------------------------------------------- every world
def test_synthetic_rewinds_and_branches_replay_exactly():
    s = new("synthetic")
    full = check_rewinds(s, [0, 1, 14, 15, 99, 150, 207, 208])
    assert any(a["decision"] == "approve" for a in full["queue"]["audit"])


@pytest.mark.heavy
def test_support_rewind_and_unchanged_branch_replay_exactly(support_run):
    s, full = support_run
    for n in (0, 300, 919, 920, 1199):
        s.rewind_to(n)
        assert s.history == full["history"][:n] and s.timeline.reach(s) == 1200
        s.rewind_to(min(n + 260, 1200))  # forward again, along the run that was
        assert s.history == full["history"][:min(n + 260, 1200)]
        s.run()
        assert comparable(s) == full
    b = reload(s)
    b.branch(950, {})
    b.run()
    assert comparable(b) == full


@pytest.mark.heavy
def test_news_on_the_generated_corpus_replays_exactly(tmp_path):
    from tests.news_corpus import write_corpus

    data = str(write_corpus(tmp_path / "news"))
    s = new("news", options={"data": data})
    n = s.n_episodes
    check_rewinds(s, [0, 40, n // 2 + 1, n - 1])


@pytest.mark.heavy
def test_portfolio_offline_replays_exactly():
    s = new("portfolio", episodes=90)
    check_rewinds(s, [0, 33, 61, 89])


@pytest.mark.heavy
def test_checkpoints_stay_bounded_and_rewinds_stay_exact(monkeypatch):
    from engine import timetravel

    monkeypatch.setattr(timetravel, "MAX_CHECKPOINTS", 6)
    s = new("synthetic")
    s.timeline.budget_s = s.timeline.ratio = 0  # a checkpoint before every step, until thinned
    full = check_rewinds(s, [3, 77, 150, 201])
    assert 2 < len(s.timeline.checkpoints) <= 6 + 1 and 0 in s.timeline.checkpoints
    assert s.timeline.budget_s == 0  # doubled from 0: still every step, so thinning is what bounds it
    assert full["t"] == 208


def test_the_start_is_kept_as_it_was_stepped_from():
    s = new("synthetic", approval="auto")
    s.queue.mode = "reject"  # set after the session was built, before its first step (as an interface may)
    s.run()
    full = comparable(s)
    assert full["queue"]["audit"] and {a["decision"] for a in full["queue"]["audit"]} == {"reject"}
    for n in (0, 60):
        s.rewind_to(n)
        s.run()
        assert comparable(s) == full
    # a save rebuilds its start from its config, which says auto: the replay differs, and says so
    loaded = reload(s)
    with pytest.raises(AELError, match="replay differs from the run at episode"):
        loaded.rewind_to(100)
    assert comparable(loaded) == full  # and the session is as it was, not half replayed


def test_a_session_keeping_no_checkpoints_still_rewinds_exactly():
    s = new("synthetic")
    s.timeline.keep = False
    full = check_rewinds(s, [5, 180])
    assert full["t"] == 208


# ------------------------------------------------------- a decision flipped
@pytest.mark.heavy
def test_support_branch_with_the_first_proposal_rejected(support_run):
    s, full = support_run
    first = full["queue"]["audit"][0]
    assert first["decision"] == "approve" and first["who"].startswith("rule:")
    b = reload(s)
    assert b.branch(1000, {first["proposal_id"]: "reject"}) is None
    assert b.t == 1000
    e = first["episode"]
    assert b.history[:e + 1] == full["history"][:e + 1]  # identical before the decision
    flipped = [a for a in b.queue.audit if a.proposal_id == first["proposal_id"]]
    assert [(a.decision, a.who) for a in flipped] == [("reject", "human")] and "branch" in flipped[0].reason
    b.run()
    after = [i for i in range(e + 1, 1200) if b.history[i] != full["history"][i]]
    assert after, "rejecting the first proposal changed nothing after it"
    approved = [a["accepted"]["name"] for a in full["queue"]["audit"] if a["kind"] == "arm"
                and a["decision"] == "approve" and a["proposal_id"] == first["proposal_id"]]
    if approved:  # the arm it would have added is never played in the branch
        assert approved[0] not in {r["policy"] for r in b.history}
    # the branch goes back to the original when flipped back
    b.branch(1000, {first["proposal_id"]: "approve"})
    b.run()
    assert b.history == full["history"]


def test_reopen_undoes_a_decision_and_the_same_decision_gives_the_same_run(support_run):
    s, full = support_run
    b = reload(s)
    second = full["queue"]["audit"][1]
    b.reopen(second["proposal_id"])
    assert b.t == second["episode"] + 1
    assert [p.id for p in b.queue.pending] == [second["proposal_id"]] and "waiting" in b.blocked_reason
    assert b.history == full["history"][:b.t]
    b.decide(second["proposal_id"], "approve", reason="the same again")
    b.run()
    assert b.history == full["history"]
    with pytest.raises(AELError, match="no proposal #42"):
        b.reopen(42)


def test_deciding_as_the_original_did_keeps_the_run_ahead(support_run):
    """Issue 41: the same decision in other words (a person where a rule decided, another reason)
    is the run that was: the run ahead is still followed, no branch appears."""
    s, full = support_run
    b = reload(s)
    b.rewind_to(1200)  # the whole run is the run ahead
    second = full["queue"]["audit"][1]
    b.reopen(second["proposal_id"])
    assert b.timeline.tape is not None
    b.decide(second["proposal_id"], "approve", who="human", reason="decided again after an undo")
    b.step()
    assert b.timeline.tape is not None and b.timeline.reach(b) == 1200  # still on the run ahead
    b.run()
    assert b.history == full["history"]


def test_manual_decisions_are_replayed_at_their_boundary():
    s = new("synthetic", approval="manual")
    decisions = []
    while not s.done:
        s.run()
        for p in s.queue.pending:
            what = "reject" if len(decisions) % 2 else "approve"
            s.decide(p.id, what, reason=f"test {what}")
            decisions.append((p.id, what))
    assert decisions, "no proposal to decide in a manual synthetic run"
    full = comparable(s)
    s.rewind_to(40)
    s.rewind_to(s.n_episodes)  # forward again: the person's decisions made at their boundaries
    assert comparable(s) == full
    loaded = reload(s)
    loaded.rewind_to(loaded.n_episodes)
    assert comparable(loaded) == full
    first = min(a.episode for a in s.queue.audit)
    loaded.rewind_to(first)
    assert loaded.timeline.reach(loaded) == loaded.n_episodes  # the person's decisions kept the run ahead
    loaded.run()  # stepping on: at the first decision the session waits, as it did
    assert loaded.t == first + 1 and "waiting for a decision" in loaded.blocked_reason
    loaded.rewind_to(loaded.n_episodes)
    assert comparable(loaded) == full
    pid, what = decisions[0]
    other = "reject" if what == "approve" else "approve"
    s.rewind_to(first)
    s.run()
    s.decide(pid, other, reason="the other way, by hand")  # another decision than the run's: another run
    s.step()
    assert s.timeline.reach(s) == s.t and max(s.timeline.checkpoints) <= s.t
    e = next(a for a in s.queue.audit if a.proposal_id == pid).episode
    stopped = loaded.branch(s.n_episodes, {pid: other})
    assert loaded.history[:e + 1] == full["history"][:e + 1]
    assert stopped is None or "waiting for a decision" in stopped


# --------------------------------------------- prior methods and variants
@pytest.mark.parametrize("name,kw", [
    ("support", {"selector": "reflexion", "episodes": 300}),
    ("support", {"selector": "expel", "episodes": 300}),
    ("portfolio", {"selector": "evotool", "episodes": 60}),
    ("portfolio", {"selector": "ts+reflection", "episodes": 40, "variants": ["shuffled-reflection"]}),
    ("portfolio", {"selector": "ts+reflection", "episodes": 40, "variants": ["credit=fcc", "skills"]}),
    ("portfolio", {"selector": "ts+reflection", "episodes": 40, "variants": ["cold-start", "per-tool"]}),
])
def test_prior_methods_and_variants_replay_exactly(name, kw):
    s = new(name, **kw)
    check_rewinds(s, [0, 20, s.n_episodes - 7])


# ------------------------------------------------------------------- refusals
def test_refusals_are_one_clear_error(support_run):
    s, full = support_run
    b = reload(s)
    with pytest.raises(AELError, match="out of range"):
        b.rewind_to(1201)
    with pytest.raises(AELError, match="no proposal #99"):
        b.branch(1000, {99: "reject"})
    with pytest.raises(AELError, match="already approved"):
        b.branch(1000, {1: "approve"})
    assert comparable(b) == full  # a refused branch changes nothing


def test_a_branch_before_the_decision_replays_to_it_and_decides_there(support_run):
    """Issue 41: --at N before proposal K's decision (here #1, decided after 919) is the lab's way:
    replay to the decision, decide it otherwise there; the branch starts where it was decided."""
    s, full = support_run
    b = reload(s)
    assert b.branch(900, {1: "reject"}) is None
    assert b.t == 920 and b.history == full["history"][:920]
    assert [(a.proposal_id, a.decision) for a in b.queue.audit if a.proposal_id == 1] == [(1, "reject")]
    with pytest.raises(AELError, match=r"proposal #1 was already rejected \(after episode 919\)"):
        b.branch(920, {1: "reject"})  # spelled as a person writes it, not "rejectd"


# -------------------------------------------------------------------- explain
def test_explain_support_918_shows_the_ticket_and_what_was_retrieved(support_run):
    s, full = support_run
    ticket = scenarios.scenario_class("support").export_stream(42)[918]
    report = explain(s, 918)
    assert report["input"] == {"text": ticket["text"], "endpoint": ticket["endpoint"]}
    assert report["record"] == full["history"][918]
    assert report["policy"]["played"] == full["history"][918]["policy"]
    hits = report["retrievals"][0]["hits"]
    assert len(hits) == full["history"][918]["hits"] > 0 and all(h["content"] for h in hits)
    others = report["retrievals"][0]["other_policies"]
    arms_then = {p["arm"] for p in report["policy"]["posteriors"]}  # the pool at episode 918
    assert set(others) == arms_then - {report["policy"]["played"]}
    assert any(not o["same"] for o in others.values())
    text = render(report)
    assert ticket["text"] in text and ticket["endpoint"] in text
    assert comparable(s) == full  # explaining leaves the session where it was
    with pytest.raises(AELError, match="out of range"):
        explain(s, 1200)


def test_explain_input_of_every_world(tmp_path):
    s = new("synthetic", episodes=30)
    s.run()
    assert explain(s, 20)["input"]["pull"] == 20
    p = new("portfolio", episodes=20)
    p.run()
    report = explain(p, 18)
    seen = report["input"]
    assert seen["bar"] == 18 and set(seen["prices"]) == set(seen["tool_calls"]) == set(p.scenario.world.tickers)
    holdings = report["decided"]["holdings"]  # how it allocated (issue 41): each weight from the tools' calls
    assert {h["ticker"] for h in holdings} == set(p.scenario.world.tickers)
    weights = p.history[18]["info"]["weights"]
    assert all(abs(h["weight"] - weights[h["ticker"]]) < 1e-6 and h["calls"] for h in holdings)
    assert "the calls that moved it" in render(report)


# ------------------------------------------------------------------------ CLI
@pytest.mark.heavy
def test_cli_branch_then_resume_continues_the_branch(tmp_path, capsys, support_run):
    from ael_cli.main import main
    from engine.store.persistence import save_session

    s, full = support_run
    save = tmp_path / "s.json"
    save_session(s, save)
    out = tmp_path / "b.json"
    assert main(["branch", str(save), "--at", "950", "--save", str(out)]) == 0
    from engine.store.persistence import read_document

    kept = read_document(out)["timeline"]  # the run ahead, and the run it branched from (the lab's B)
    assert kept["tape"]["t"] == 1200 and kept["original"]["history"] == full["history"]
    assert main(["run", "support", "--resume", str(out), "--save", str(out), "--quiet"]) == 0

    resumed = read_document(out)["session"]
    assert resumed["history"] == full["history"]
    capsys.readouterr()
    for argv, msg in [(["--at", "1300"], "has run only to episode 1200"),
                      (["--at", "950", "--decide", "7=reject"], "no proposal #7"),
                      (["--at", "950", "--decide", "1=later"], "K=approve or K=reject")]:
        assert main(["branch", str(save), *argv, "--save", str(tmp_path / "x.json")]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1
    assert not (tmp_path / "x.json").exists()
    assert main(["explain", str(save), "--episode", "918", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["episode"] == 918


@pytest.mark.heavy
def test_explain_shows_a_models_calls_from_a_cassette(tmp_path, monkeypatch):
    from tests.fake_llm_server import FakeLLMServer

    key = "sk-ant-test-secret-0123456789"
    for name in ("ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    cassette = tmp_path / "calls.json"
    with FakeLLMServer("echo") as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        live = new("support", episodes=30, llm={"agent": "anthropic", "record": str(cassette)})
        live.run()
        with pytest.raises(AELError, match="played by a model"):
            live.rewind_to(10)  # a live model would be asked again
        live.llm.close()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replayed = new("support", episodes=30, llm={"agent": "anthropic", "replay": str(cassette)})
    replayed.run()
    assert replayed.history == live.history
    report = explain(replayed, 20)
    ticket = scenarios.scenario_class("support").export_stream(42)[20]
    calls = report["model_calls"]
    assert calls and any(ticket["text"] in m["content"] for m in calls[0]["prompt"])
    assert calls[0]["reply"] and calls[0]["usage"]["input_tokens"] > 0
    assert key not in json.dumps(report) and "Model call 1" in render(report)
    assert replayed.history == live.history  # explaining changed nothing


def test_a_saved_branch_that_rejected_an_auto_approved_proposal_goes_back_exactly():
    """In the branch a person rejected what the auto rule approved; loaded from its save, replaying
    that step must leave the proposal to the person again, not let the rule approve it."""
    s = new("synthetic")
    s.run()
    first = s.queue.audit[0]
    assert first.who.startswith("rule:") and first.decision == "approve"
    b = reload(s)
    b.branch(100, {first.proposal_id: "reject"})
    b.run(until=150)
    branch = comparable(b)
    loaded = reload(b)
    loaded.rewind_to(52)
    assert loaded.history == branch["history"][:52]
    loaded.rewind_to(150)
    assert comparable(loaded) == branch


@pytest.mark.heavy
def test_a_rule_decision_undone_and_decided_otherwise_is_replayed_as_the_person_decided():
    """Undo where a rule had approved (auto), reject by hand: going back before it and forward
    again gives the run with the rejection, and stepping on waits for the person there."""
    s = new("support", episodes=1200)
    s.run(until=1000)
    arm = next(a for a in s.queue.audit if a.kind == "arm")
    assert arm.who == "rule:auto-approve"
    s.reopen(arm.proposal_id)
    s.decide(arm.proposal_id, "reject", reason="by hand")
    s.run(until=1000)
    full = comparable(s)
    s.rewind_to(300)
    s.rewind_to(1000)  # forward along the run: the person's rejection, not the rule's approval
    assert comparable(s) == full
    s.rewind_to(300)
    s.run(until=1000)  # stepping on: the proposal waits for the person, as it did
    assert s.t == arm.episode + 1 and [p.id for p in s.queue.pending] == [arm.proposal_id]
    s.decide(arm.proposal_id, "reject", reason="by hand")
    s.run(until=1000)
    assert comparable(s) == full
