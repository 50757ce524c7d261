"""A proposal previewed before it is decided: the slow window replayed with and without it.

`preview(session, pid)` takes a session paused at pending proposal `pid` back to the start
of the window the reflection looked at (engine/timetravel.py) and replays it episode by
episode with the engine's own step. Before each episode it takes the session's state,
applies the proposal there through the engine's own decision path (`Session.decide`: an
arm joins the pool and the bandit, an insight is injected, a method's or variant's
proposal goes to its owner) and steps the episode once, then puts the state back and steps
the episode as it really went (checked against the run's record). So each episode is seen
twice from the same state and the same generator:

- an arm: played in place of the policy the bandit chose (the bandit's draws are made as
  in the run, over the arms it had, so nothing but the retrieval policy differs);
- an insight, a planner, allocation code: the arm the bandit chose, now with the proposal
  in force (a fresh insight, as if approved just before the episode).

Each episode is replayed alone, from the run's own state, so every difference is the
proposal's and not the drift of a bandit that learnt from earlier differences. The session
and its timeline are put back exactly as they were (`Timeline.preserved`).

How this relates to the reflection's figure ("would have fixed 8 of 22 failures"): the
support and stream reflectors count the window's failures that the candidate gets right
*and every current policy misses*, from the world's precomputed counterfactual column. The
replay's `fixed` is every failure the candidate gets right when played in the chosen
policy's place, so it holds the reflector's episodes (`reflector_fixed`, from the
proposal's evidence) and also failures some other current policy might have fixed too;
`broken` is what the figure does not count at all. Both are kept and shown.

Code proposals are not previewed: running model-written code before a person has read it
is what the code review exists to prevent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .approvals import Proposal
from .errors import AELError

if TYPE_CHECKING:
    from .session import Session


@dataclass(frozen=True)
class Replayed:
    """One episode of the window, as it went and as it would have gone with the proposal."""

    episode: int
    policy: str                  # the policy the bandit chose in the run
    played_with: str             # the policy played in the replay with the proposal
    action: str                  # the agent's decision in the run
    action_with: str
    result: str
    result_with: str
    reward: float
    reward_with: float
    correct: bool
    correct_with: bool

    @property
    def decision_changed(self) -> bool:
        return self.action != self.action_with

    @property
    def fixed(self) -> bool:
        return not self.correct and self.correct_with

    @property
    def broken(self) -> bool:
        return self.correct and not self.correct_with


@dataclass
class Preview:
    proposal: int
    kind: str
    window: tuple[int, int]       # first and last episode replayed
    episodes: list[Replayed] = field(default_factory=list)
    reflector_fixed: list[int] = field(default_factory=list)  # the reflection's own count (evidence)
    # the world says right or wrong (`correct` in its records): else (the portfolio's returns) fixed
    # and broken mean nothing, and the replay is told by reward, better or worse
    graded: bool = True

    @property
    def fixed(self) -> list[Replayed]:
        return [r for r in self.episodes if r.fixed]

    @property
    def broken(self) -> list[Replayed]:
        return [r for r in self.episodes if r.broken]

    @property
    def changed(self) -> list[Replayed]:
        """Episodes where the agent's decision (its action) would have been another."""
        return [r for r in self.episodes if r.decision_changed]

    @property
    def better(self) -> list[Replayed]:
        return [r for r in self.episodes if r.reward_with > r.reward]

    @property
    def worse(self) -> list[Replayed]:
        return [r for r in self.episodes if r.reward_with < r.reward]

    @property
    def reward_change(self) -> float:
        """The window's reward with the proposal minus as it went."""
        return sum(r.reward_with - r.reward for r in self.episodes)

    @property
    def failures(self) -> int:
        return sum(not r.correct for r in self.episodes)

    def to_dict(self) -> dict[str, Any]:
        return {"proposal": self.proposal, "kind": self.kind, "window": list(self.window),
                "failures": self.failures, "fixed": [r.episode for r in self.fixed],
                "broken": [r.episode for r in self.broken], "changed": [r.episode for r in self.changed],
                "reflector_fixed": self.reflector_fixed, "graded": self.graded,
                "better": [r.episode for r in self.better], "worse": [r.episode for r in self.worse],
                "episodes": [asdict(r) for r in self.episodes]}


def correct(record: dict[str, Any]) -> bool:
    """Right as the reflectors count it: `correct` when the world says, else reward ≥ 0.5."""
    c = record.get("correct")
    return bool(c) if c is not None else float(record.get("reward", 0.0)) >= 0.5


def window_of(session: "Session", p: Proposal) -> tuple[int, int]:
    """The episodes the reflection looked at: its evidence's slow window when it names one,
    else the session's slow window ending at the proposal; never the warm-up (no retrieval)."""
    named = p.evidence.get("slow_window") if isinstance(p.evidence, dict) else None
    if isinstance(named, (list, tuple)) and len(named) == 2 and all(isinstance(v, int) for v in named):
        start, end = named
    else:
        end = p.episode
        start = end + 1 - session.slow_window
    return max(start, session.warmup, 0), min(end, session.t - 1)


def preview(session: "Session", pid: int, should_stop: Callable[[], bool] | None = None) -> Preview:
    """The window of pending proposal `pid` replayed with and without it (see the module's doc).
    `should_stop()` ends it early with an AELError (a dialog closed); the session is put back."""
    p = session.queue.get(pid)
    if p.status != "pending":
        raise AELError(f"proposal #{pid} was already decided ({p.status}): only a pending one is previewed")
    if p.code or p.payload.get("code"):
        raise AELError(f"proposal #{pid} is Python code: it runs only after a person has reviewed it, "
                       "so it is not replayed before")
    start, end = window_of(session, p)
    if end < start:
        raise AELError(f"proposal #{pid} has no episode after the warm-up to replay")
    run = [dict(r) for r in session.history[start:end + 1]]
    out = Preview(pid, p.kind, (start, end), reflector_fixed=sorted(
        int(e) for e in (p.evidence.get("fixed_episodes") or []) if isinstance(e, int)),
        graded=any(r.get("correct") is not None for r in run))
    stop = should_stop or (lambda: False)
    timeline = session.timeline
    with timeline.preserved(session):
        # to the nearest checkpoint, then along the run to the window, so a stop is heard on the way
        # too (a loaded save has only its start: that is every episode before the window)
        session.rewind_to(max(k for k in timeline.checkpoints if k <= start))
        while session.t < start:
            if stop():
                raise AELError("preview stopped")
            timeline.step_along(session)
        for e, was in zip(range(start, end + 1), run):
            if stop():
                raise AELError("preview stopped")
            with_it = _step_with(session, p)
            timeline.step_along(session)  # as it went, with any decision made after it
            now = session.history[-1]
            # the timeline replays exactly; this says so if it ever did not
            if now != was or len(session.history) != session.t:
                raise AELError(f"replay differs from the run at episode {e}: the preview cannot be trusted")
            out.episodes.append(Replayed(
                episode=e, policy=was["policy"], played_with=with_it["policy"], action=str(was["action"]),
                action_with=str(with_it["action"]), result=str(was["result"]), result_with=str(with_it["result"]),
                reward=float(was["reward"]), reward_with=float(with_it["reward"]),
                correct=correct(was), correct_with=correct(with_it)))
    return out


class _Unrecorded:
    """Stands in for the timeline during the step with the proposal: that step is not part of
    the run, so it takes no checkpoint and is not compared with the run's tape."""

    def before_step(self, s: "Session") -> None:
        pass

    def after_step(self, s: "Session") -> None:
        pass

    def person_decided(self, p: Proposal) -> bool:
        return False  # a proposal made in this step is not the run's: the rules decide it, as they would


def _step_with(session: "Session", p: Proposal) -> dict[str, Any]:
    """Episode session.t stepped with proposal p approved just before it; the session is
    put back as it was before the call. Returns the episode's record."""
    timeline = session.timeline
    snap = timeline.snapshot(session)
    try:
        q = session.queue
        copy = Proposal(**{**asdict(p), "id": len(q.proposals) + 1, "status": "pending"})
        q.proposals.append(copy)
        session.decide(copy.id, "approve", who="preview", reason="preview of the proposal")
        if p.kind == "arm":
            _play_instead(session, p.payload["name"])
        session.timeline = _Unrecorded()  # type: ignore[assignment]
        try:
            session.step()
        finally:
            session.timeline = timeline
        return dict(session.history[-1])
    finally:
        timeline.put_back(session, snap)


def _play_instead(session: "Session", name: str) -> None:
    """For this session's next choice: the bandit draws over the arms it had (the generator
    moves as in the run) and the new arm `name` is played in place of the one it chose."""
    selector = session.selector
    real = selector.select
    index = selector.index(name)

    def select(rng, oracle=None, skip=frozenset()):
        arm = selector.arms.pop(index)
        try:
            real(rng, oracle, skip)
        finally:
            selector.arms.insert(index, arm)
        return index

    selector.select = select  # type: ignore[method-assign]  # gone with this selector object at put_back
