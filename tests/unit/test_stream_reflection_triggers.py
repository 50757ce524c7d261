"""The stream reflector's candidates beyond --meta columns (issue 39), on a world made of
lists: each trigger makes its candidate replayed, the same bar judges it, and a reflection
that proposes nothing says what it tried once, and again only when that changes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from engine.memory import MemoryStore
from engine.reflection import NOTHING_PROPOSED, ReflectionContext
from scenarios.stream.policies import BALANCED_NEAREST, INITIAL_POOL, MEMORY_ARMS, RECENT_SIMILAR
from scenarios.stream.reflector import StreamReflector
from scenarios.stream.signals import first_seen

T = 449  # the reflection after episode 449: slow window 425–449, trailing window 400–449


@dataclass
class ListWorld:
    """Labels by row, and which episodes each policy's replay gets right (by policy name)."""
    labels: list[str]
    fixes: dict[str, set[int]] = field(default_factory=dict)
    candidates: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.first_seen = first_seen(self.labels)

    def counterfactuals(self, specs, episodes):
        return [np.array([u in self.fixes.get(s.name, set()) for u in episodes]) for s in specs]


def records(world: ListWorld, predicted=lambda t, label: label, voters=lambda t: [t - 1] * 5,
            failing=range(420, 450), wrong_guess=None) -> list[dict]:
    """One record per row; a failure guesses the row before's label (so every label is answered
    somewhere) unless `wrong_guess` says otherwise."""
    out = []
    for t, label in enumerate(world.labels):
        wrong = t in failing
        guess = (wrong_guess or (lambda u: world.labels[u - 1]))(t) if wrong else predicted(t, label)
        out.append({"episode": t, "phase": "train", "policy": "compressed", "reward": 0.0 if wrong else 1.0,
                    "correct": not wrong, "info": {"predicted": guess, "label": label, "voters": voters(t)}})
    return out


def context(world: ListWorld, history: list[dict], t: int = T) -> ReflectionContext:
    return ReflectionContext(episode=t, window=history[t - 24:t + 1], trailing=history[t - 49:t + 1],
                             history=history[:t + 1], pool=list(INITIAL_POOL), posteriors=[], memory=MemoryStore(),
                             side_info={}, previous=[], scenario=world)


def steady(n: int = 450) -> list[str]:
    """Four labels in turn: no new label, no shift."""
    return ["abcd"[t % 4] for t in range(n)]


def reflector() -> StreamReflector:
    return StreamReflector(cadence=25, window=50, threshold=0.5)


def test_labels_new_to_memory_make_it_replay_a_recency_window_and_propose_it():
    labels = steady(425) + [f"new{t % 3}" for t in range(425, 450)]
    world = ListWorld(labels, fixes={"recent_similar": set(range(425, 445))})
    r = reflector().reflect(context(world, records(world)))
    assert "new labels" in r.evidence["triggers"] and "3 labels new to memory" in r.evidence["triggers"]["new labels"]
    assert r.policy["name"] == "recent_similar" and r.evidence["candidate_fixes"] == 20
    assert "recent_similar" in r.rationale and "fixes 20 of the 25 failures" in r.rationale


def test_a_shift_in_label_shares_makes_it_replay_the_recency_window():
    # a-d nearly always, e-h now and then; then e-h only: no label is new, their shares shift
    labels = ["efgh"[t // 25 % 4] if t % 25 == 0 else "abcd"[t % 4] for t in range(400)] + \
        ["efgh"[t % 4] for t in range(400, 450)]
    world = ListWorld(labels, fixes={"recent_similar": set(range(425, 445))})
    r = reflector().reflect(context(world, records(world)))
    assert list(r.evidence["triggers"]) == ["share shift"]
    assert r.policy["name"] == "recent_similar"


def test_a_starved_label_makes_it_replay_class_balance():
    labels = steady()
    world = ListWorld(labels, fixes={"balanced_nearest": set(range(425, 445))})
    # the vote never answers "d" over the trailing window: it is starved
    history = records(world, predicted=lambda t, label: "a" if label == "d" else label, wrong_guess=lambda t: "a")
    r = reflector().reflect(context(world, history))
    assert "d is the truth" in r.evidence["triggers"]["starved label"]
    assert r.policy["name"] == "balanced_nearest" and r.regime_label == "starved-label"


def test_disagreeing_neighbours_make_it_replay_the_prototypes():
    labels = steady()
    world = ListWorld(labels, fixes={"prototypes_knn": set(range(425, 445))})
    history = records(world, voters=lambda t: [t - 1, t - 2, t - 3, t - 4, t - 5])  # four labels among five
    held = reflector().reflect(context(world, history))  # the pool holds the prototypes' arms: named, not replayed
    assert "neighbours disagree" in held.evidence["triggers"] and held.policy is None
    assert held.evidence["held_by_pool"] == ["prototypes", "prototypes_knn"]
    ctx = context(world, history)
    ctx.pool = [p for p in ctx.pool if p not in MEMORY_ARMS]  # a pool without them (a session that removed them)
    r = reflector().reflect(ctx)
    assert r.evidence["fixes_by_candidate"] == {"prototypes": 0, "prototypes_knn": 20}
    assert r.policy["name"] == "prototypes_knn" and r.regime_label == "disagreeing-neighbours"


def test_no_trigger_no_candidate_and_the_same_bar_for_a_trigger_candidate():
    world = ListWorld(steady(425) + [f"new{t % 3}" for t in range(425, 450)],
                      fixes={"recent_similar": {425, 426, 427, 428}})  # 4 < 5: below the bar
    r = reflector().reflect(context(world, records(world)))
    assert r.policy is None and r.evidence[NOTHING_PROPOSED]["tried"] == {"recent_similar": 4}
    assert "no candidate fixes at least 5" in r.evidence[NOTHING_PROPOSED]["why"]
    quiet = ListWorld(steady())
    r = reflector().reflect(context(quiet, records(quiet)))
    assert r.evidence["triggers"] == {} and "no trigger fired" in r.diagnosis


def test_a_candidate_the_pool_holds_is_not_replayed():
    world = ListWorld(steady(425) + [f"new{t % 3}" for t in range(425, 450)],
                      fixes={"recent_similar": set(range(425, 445))})
    ctx = context(world, records(world))
    ctx.pool.append(RECENT_SIMILAR)
    r = reflector().reflect(ctx)
    assert r.policy is None and r.evidence["held_by_pool"] == ["recent_similar"]


def test_nothing_proposed_is_said_once_then_again_only_when_what_it_tries_changes():
    labels = steady(425) + [f"new{t % 3}" for t in range(425, 475)]
    world = ListWorld(labels, fixes={"recent_similar": {425, 426}})
    history = records(world, failing=range(420, 475))
    refl = reflector()
    first = refl.reflect(context(world, history))
    assert first is not None and first.evidence[NOTHING_PROPOSED]["tried"] == {"recent_similar": 2}
    assert refl.reflect(context(world, history, t=474)) is None  # the same: not said again
    saved = refl.state_dict()
    assert saved["said"] == ["below the bar", "recent_similar"]
    again = reflector()
    again.load_state_dict(saved)
    assert again.reflect(context(world, history, t=474)) is None  # a resumed run does not say it again
    # a starved label adds class balance to what it tries: news, said
    starving = records(world, failing=range(420, 475), wrong_guess=lambda t: "a")
    for r in starving[425:475]:
        r["info"]["label"] = "d"
    told = again.reflect(context(world, starving, t=474))
    assert told is not None and set(told.evidence[NOTHING_PROPOSED]["tried"]) == {"recent_similar", "balanced_nearest"}


def test_after_accuracy_recovers_the_same_nothing_is_news_again():
    labels = steady(425) + [f"new{t % 3}" for t in range(425, 500)]
    world = ListWorld(labels, fixes={"recent_similar": {425, 426}})
    refl = reflector()
    trouble = records(world)
    assert refl.reflect(context(world, trouble)) is not None and refl.said
    recovered = records(world, failing=())
    assert not refl.should_reflect(context(world, recovered, t=474))  # accuracy 1.0: the gate's metric closes it
    assert refl.said == []
    again = records(world, failing=range(470, 500))
    assert refl.should_reflect(context(world, again, t=499))
    assert refl.reflect(context(world, again, t=499)) is not None  # the same candidates, said again


def test_a_proposal_resets_what_was_said():
    world = ListWorld(steady(425) + [f"new{t % 3}" for t in range(425, 450)],
                      fixes={"recent_similar": set(range(425, 445))})
    refl = reflector()
    refl.said = ["below the bar", "recent_similar"]
    assert refl.reflect(context(world, records(world))).policy["name"] == "recent_similar"
    assert refl.said == []


@pytest.mark.parametrize("said", [["luck"], None])
def test_the_said_state_loads_through_the_save_schema(said):
    from engine.store.session_schema import ReflectorState

    state = {**reflector().state_dict(), "said": said}
    assert ReflectorState.model_validate(state).said == said
    assert BALANCED_NEAREST.per_group == "label"
