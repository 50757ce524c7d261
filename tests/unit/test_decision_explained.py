"""How the agent decided, explained (issue 41 item 1; engine/decision.py).

Support seed 42 with manual approvals, played past the first proposals: at episode 918
three of the five nearest tickets say `timeout_config`, but their share of the weight is
0.485 < 0.5, so the router answers its default `backend_error`; at 941 `route_aware`'s own
vote is too weak (below its 0.67) and it acts as its fallback `compressed`. The agent
itself reports each vote it took; the text and the JSON say so.
"""

from __future__ import annotations

import json

import pytest

import scenarios
from engine.decision import Vote, Voter, chain, lines
from engine.explain import explain, render
from engine.session import Session, SessionConfig


def new(name: str, approval: str = "auto", options: dict | None = None, **kw) -> Session:
    return Session(SessionConfig(scenario=name, seed=42, approval=approval, scenario_options=options or {}, **kw),
                   scenarios.make_scenario(name, 42, options or {}))


@pytest.fixture(scope="module")
def support_manual():
    """Support seed 42, manual approvals, every proposal approved as it came, to episode 942; and
    episode 918 explained while route_aware waited for its decision (after episode 919)."""
    s = new("support", approval="manual")
    while s.t < 942:
        if s.queue.pending and not hasattr(s, "explained_waiting"):
            s.explained_waiting = explain(s, 918)
        for p in list(s.queue.pending):
            s.decide(p.id, "approve")
        s.step()
    return s


def test_the_arm_being_decided_is_a_column_beside_the_pools(support_manual):
    report = support_manual.explained_waiting
    assert report["proposed"] == ["route_aware"]
    others = report["retrievals"][0]["other_policies"]
    assert others["route_aware"]["proposed"] and not others["full_detailed"]["proposed"]
    head = next(line for line in render(report, 200).splitlines() if "compressed (played) │" in line)
    assert "route_aware (proposed)" in head and "class_balanced" in head  # in one row with the pool's
    later = explain(support_manual, 918)  # decided since: nothing waits, no such column
    assert later["proposed"] == [] and "route_aware" not in later["retrievals"][0]["other_policies"]


def test_918_says_the_vote_was_too_weak_and_the_default_answered(support_manual):
    report = explain(support_manual, 918)
    decided = report["decided"]
    (vote,) = decided["votes"]
    assert vote["policy"] == "compressed" and vote["threshold"] == 0.5 and vote["default"] == "backend_error"
    assert [v["label"] for v in vote["voters"]].count("timeout_config") == 3 and len(vote["voters"]) == 5
    assert vote["leader"] == "timeout_config" and round(vote["share"], 3) == 0.485 and not vote["confident"]
    assert abs(sum(vote["shares"].values()) - 1) < 1e-9
    assert decided["answer"] == "backend_error" == report["record"]["info"]["route"]
    text = render(report)
    assert "share 0.485 < 0.5: too weak a vote, so the default backend_error" in text
    assert "timeout_config         weight 1.255  share 0.485" in text
    json.dumps(report)  # the JSON form (`--json`) carries the same record


def test_941_route_aware_acts_as_its_fallback_compressed(support_manual):
    report = explain(support_manual, 941)
    decided = report["decided"]
    assert report["record"]["policy"] == "route_aware" and decided["acted_as"] == "compressed"
    own, fallback = decided["votes"]
    assert own["policy"] == "route_aware" and own["threshold"] == 0.67 and not own["confident"]
    assert own["fallback"] == "compressed" and fallback["policy"] == "compressed"
    assert decided["answer"] == fallback["answer"] == report["record"]["info"]["route"]
    text = render(report)
    assert "Retrieval 2 by compressed" in text  # the fallback's read, shown
    from engine.explain import _REPLICAS

    replica = _REPLICAS[support_manual].session  # watched, the episode used up nothing more than unwatched
    assert replica.t == support_manual.t == 942 and replica.memory.to_dict() == support_manual.memory.to_dict()
    assert "Policy played: route_aware (acting as its fallback compressed" in text
    assert "too weak a vote, so it acts as its fallback compressed" in text


def test_the_header_names_what_the_policy_filtered_on_and_entries_show_their_endpoint(support_manual):
    first = explain(support_manual, 918)["retrievals"][0]
    assert "no filter" in first["reads"] and "endpoint" not in first["reads"]  # compressed reads by text only
    aware = explain(support_manual, 941)["retrievals"][0]
    assert "with the query's endpoint (/v1/chat/completions)" in aware["reads"]
    text = render(explain(support_manual, 918))
    assert "Retrieval 1 by compressed: the 10 most similar to the query, no filter" in text
    assert "for endpoint=" not in text
    assert "e908 [episodic, ep 908] score 0.455 (similarity) endpoint=/v1/responses route=timeout_config" in text


def test_the_side_by_side_comes_before_the_entries_and_long_lists_fold(support_manual):
    s = support_manual
    played = {r["episode"]: r["policy"] for r in s.history}
    n = next(t for t in range(300, 942) if played[t] == "full_detailed")  # 200 entries retrieved
    text = render(explain(s, n), 160)
    table = text.index("full_detailed (played) │")
    assert text.index("What each policy would have retrieved") < table < text.index("score ")
    assert "… 188 more entries (--json has them all)" in text
    assert len(text.splitlines()) < 120  # not 400 lines of entries above the table


def test_a_vote_in_words():
    voters = (Voter("e1", 1, "a", 0.5), Voter("e2", 2, "b", 0.3), Voter("e3", 3, "b", 0.3))
    weak = Vote("p", voters, "dflt", False, "dflt", threshold=0.6)
    assert weak.leader == "b" and round(weak.share, 3) == 0.545
    assert weak.reason() == "2 of 3 voters say b, share 0.545 < 0.6: too weak a vote, so the default dflt"
    strong = Vote("p", voters, "b", True, "dflt", threshold=0.5)
    assert strong.reason().endswith("≥ 0.5: b")
    empty = Vote("p", (), "dflt", False, "dflt", threshold=0.5, fallback="q")
    assert empty.reason() == "nothing retrieved to vote: it acts as its fallback q"
    d = chain("p", [empty, Vote("q", voters, "b", True, "dflt", threshold=0.5)])
    assert d.acted_as == "q" and d.answer == "b"
    assert "  Answer: b" in lines(d.to_dict()) and "its fallback q" in d.how


def test_the_synthetic_world_says_there_is_no_agent_choice():
    # the portfolio's allocation: tests/unit/test_timetravel.py, the stream's vote: test_stream_world.py
    # (each builds its world already)
    syn = new("synthetic", episodes=30)
    syn.run()
    assert "the bandit's draw chose the arm" in explain(syn, 20)["decided"]["how"]
