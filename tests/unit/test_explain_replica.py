"""Explaining through a replica (engine/explain_replica.py): the live session is only read,
the replica goes on from where it stands when that is the live run, and restores when not."""

from __future__ import annotations

import dataclasses
import json

import pytest

import scenarios
from engine.explain import _REPLICAS, basis, explain, replica_of
from engine.session import Session, SessionConfig


def new(name: str, **kw) -> Session:
    return Session(SessionConfig(scenario=name, seed=42, **kw), scenarios.make_scenario(name, 42, {}))


def fresh(s: Session) -> Session:
    """The session as a save gives it back: no checkpoint but its start, no replica yet."""
    return Session.from_dict(json.loads(json.dumps(s.to_dict())), scenarios.make_scenario)


def same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


@pytest.fixture
def synthetic_run() -> Session:
    s = new("synthetic")
    s.run()
    return s


def test_explaining_only_reads_the_live_session(synthetic_run, monkeypatch):
    s = synthetic_run
    before = json.dumps(s.to_dict(), default=str)
    for name in ("to_dict", "load_state", "step", "rewind_to"):  # a snapshot, a put-back, a replay
        monkeypatch.setattr(s, name, lambda *a, **k: pytest.fail("explain wrote to the live session"))
    report = explain(s, 150)
    monkeypatch.undo()
    assert report["episode"] == 150 and report["record"] == s.history[150]
    assert json.dumps(s.to_dict(), default=str) == before


def test_the_replica_goes_on_from_where_it_stands_and_says_the_same(synthetic_run):
    s = synthetic_run
    explain(s, 100)
    replica = replica_of(s, basis(s, 100))
    assert replica.session.t == 101
    nxt = explain(s, 101)
    assert replica.restored_from is None  # the next episode: no restore, no replay
    assert same(nxt, explain(fresh(s), 101))
    explain(s, 60)
    assert replica.restored_from is not None and replica.restored_from <= 60  # behind it: from a checkpoint


def test_after_the_live_run_changed_the_replica_restores(synthetic_run):
    s = synthetic_run
    explain(s, 120)  # the replica stands at 121
    s.rewind_to(110)
    a0 = s.pool["a0"]  # a change between steps that no audit entry holds: an arm in the pool, never played
    s.pool["a0_copy"] = dataclasses.replace(a0, name="a0_copy")
    s.run()
    replica = replica_of(s, basis(s, 125))
    report = explain(s, 125)
    assert replica.restored_from is not None and "a0_copy" in report["retrievals"][0]["other_policies"]
    _REPLICAS.pop(s)  # a new replica, from the live run's checkpoints (a save could not replay this change)
    assert same(report, explain(s, 125))


def test_after_a_branch_the_replica_follows_the_branch(synthetic_run):
    s = synthetic_run
    first = s.queue.audit[0]
    explain(s, first.episode + 30)
    s.branch(first.episode + 1, {first.proposal_id: "reject" if first.decision != "reject" else "approve"})
    s.run()
    n = first.episode + 40
    report = explain(s, n)
    _REPLICAS.pop(s)
    assert same(report, explain(s, n))  # as a new replica says it


def test_an_episode_explained_before_on_the_same_run_is_not_replayed(synthetic_run, monkeypatch):
    s = synthetic_run
    first = explain(s, 100)
    replica = replica_of(s, basis(s, 100))
    monkeypatch.setattr(replica, "move_to", lambda *a: pytest.fail("replayed again"))
    assert explain(s, 100) is first
    monkeypatch.undo()
    s.rewind_to(90)  # episodes 90 on are stepped again: new records, the report made again
    s.run()
    again = explain(s, 100)
    assert again is not first and same(again, first)


def test_an_episode_is_explained_beside_the_run_going_on():
    from concurrent.futures import ThreadPoolExecutor

    from engine.explain import explain_from

    reference = new("synthetic")
    reference.run()
    want = explain(reference, 50)
    s = new("synthetic")
    s.run(until=100)
    live = basis(s, 50)  # what the lab copies under the session's lock
    with ThreadPoolExecutor(1) as pool:
        explaining = pool.submit(explain_from, s, live, 50)
        s.run()  # the run goes on meanwhile, without waiting for the explanation
        report = explaining.result(timeout=60)
    assert same(report, want)
    assert s.history == reference.history  # and the run is the one it would have been
