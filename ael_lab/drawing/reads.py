"""What the pictures need of a session, read once (under the host's lock) into plain
lists: the arm played, the reward and the metric of every episode, the regimes, the
arms in pool order (their colours are the posteriors table's) and the decisions."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from engine.session import Session
from engine.shown_text import shown


APPROVED, REJECTED, NEW_ARM = "approved", "rejected", "new arm"


@dataclass(frozen=True)
class Decision:
    episode: int      # the first episode it could change
    kind: str         # APPROVED, REJECTED or NEW_ARM
    text: str         # "#2 arm route_aware", for a tooltip or an SVG title


@dataclass
class PictureData:
    name: str                               # the selector (a compare view's column)
    n: int                                  # episodes in the run, played or not
    arms: list[str]                         # pool order: arm i has the posteriors table's colour i
    policies: list[str]                     # the arm played, per episode played
    rewards: list[float]
    metric: str                             # "accuracy" or "reward": what `values` hold
    values: list[float]
    regimes: list[int | None]
    regime_names: list[str]
    decisions: list[Decision] = field(default_factory=list)

    @property
    def played(self) -> int:
        return len(self.policies)

    def data(self) -> PictureData:
        return self

    @cached_property  # (a PictureData is made once per picture and not changed)
    def regime_starts(self) -> list[tuple[int, str]]:
        """(first episode, name) of each run of one regime."""
        return regime_starts(self.regimes, self.regime_names)


def regime_starts(regimes: list, names: list[str]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    prev: object = object()
    for t, g in enumerate(regimes):
        if g != prev and g is not None:
            named = isinstance(g, int) and 0 <= g < len(names)
            out.append((t, names[g] if named else str(g)))
        prev = g
    return out


def decisions_of(session: Session) -> list[Decision]:
    """Approved and rejected proposals (the audit log; an engine's drop is neither) and the
    arms that joined the pool, each at the first episode it could change."""
    out = []
    for a in session.queue.audit:
        kind = APPROVED if a.decision in ("approve", "edit", "admit") else \
            REJECTED if a.decision in ("reject", "suspend") else None
        if kind is not None:
            out.append(Decision(a.episode + 1, kind, f"#{a.proposal_id} {a.kind} {a.decision} by {a.who}"))
    out += [Decision(i["episode"], NEW_ARM, f"new arm {i['arm']}") for i in session.injections]
    return sorted(out, key=lambda d: d.episode)


def picture_data(session: Session, name: str | None = None) -> PictureData:
    return picture_source(session, list(session.history), name).data()


@dataclass(eq=False)
class PictureSource:
    """What the pictures need, read under the lock cheaply (the history is a copy of the
    list the view holds anyway), the per-episode lists made only when a picture is drawn:
    a chart repaints at most four times a second, a step comes far more often."""

    name: str
    n: int
    arms: list[str]
    history: list[dict]
    metric: str
    regime_names: list[str]
    decisions: list[Decision]
    _data: PictureData | None = None

    @property
    def played(self) -> int:
        return len(self.history)

    # what the strip reads, each list made when first asked for (the strip needs no rewards)
    @cached_property
    def policies(self) -> list[str]:
        return [r["policy"] for r in self.history]

    @cached_property
    def regimes(self) -> list:
        return [r.get("regime") for r in self.history]

    @cached_property
    def regime_starts(self) -> list[tuple[int, str]]:
        return regime_starts(self.regimes, self.regime_names)

    def data(self) -> PictureData:
        if self._data is None:
            h = self.history
            rewards = [float(r["reward"]) for r in h]
            values = [float(bool(r["correct"])) for r in h] if self.metric == "accuracy" else rewards
            self._data = PictureData(self.name, self.n, self.arms, self.policies, rewards, self.metric,
                                     values, self.regimes, self.regime_names, self.decisions)
        return self._data


def picture_source(session: Session, history: list[dict], name: str | None = None) -> PictureSource:
    """`history`: a copy of the session's, taken under the same lock."""
    return PictureSource(name or session.config.selector, max(session.n_episodes, len(history)),
                         [a.name for a in session.selector.arms], history, metric_name(session),
                         [shown(n) for n in session.scenario.regime_names], decisions_of(session))


def metric_name(session: Session) -> str:
    """'accuracy' where episodes are right or wrong and the reward is not the same thing, else 'reward'."""
    h = session.history
    if h and h[-1].get("correct") is not None and session.config.scenario != "synthetic":
        return "accuracy"
    return "reward"
