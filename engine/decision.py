"""How the agent decided an episode, as the agent itself reports it (`ael-lab explain`, the inspector).

An agent that votes over retrieved items (support, news, stream) reports each vote it
took: who voted, with what weight, each answer's share, the share the winner needed
and the default it falls back on when the vote is too weak; an arm with a fallback
policy reports its own vote and then the fallback's. An agent that allocates (the
portfolio) reports each ticker's signal from the tools' calls and the weight it got.

The scenario's agent fills `Outcome.decided` with a `Decision` when the episode is
watched (`AgentContext.explain`): the same code that picks the answer counts the
vote and says so, and the view only prints it (`lines`). Nothing here is saved.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

EPS = 1e-9


@dataclass(frozen=True)
class Voter:
    """One retrieved entry that voted: its answer and its weight (its similarity to the query),
    and the fields of the entry a person checks (a ticket's endpoint)."""

    entry: str
    episode: int
    label: str
    weight: float
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Vote:
    """One weighted vote. `threshold` is the share of the total weight the leading answer needs
    (None: the plurality wins whatever its share); below it the answer is `default`."""

    policy: str
    voters: tuple[Voter, ...]
    answer: str
    confident: bool
    default: str
    threshold: float | None = None
    note: str = ""  # why there was no vote at all, when there was none
    fallback: str | None = None  # the policy acted as when this vote is too weak (instead of the default)

    @property
    def weak_answer(self) -> str:
        """What a too-weak vote gives: the fallback policy's vote, else the default."""
        return f"it acts as its fallback {self.fallback}" if self.fallback else f"the default {self.default}"

    @property
    def total(self) -> float:
        return sum(v.weight for v in self.voters)

    @property
    def weights(self) -> dict[str, float]:
        """Each answer's summed weight, in the order its best voter ranks."""
        out: dict[str, float] = {}
        for v in self.voters:
            out[v.label] = out.get(v.label, 0.0) + v.weight
        return out

    @property
    def shares(self) -> dict[str, float]:
        total = self.total
        return {k: (w / total if total > 0 else 0.0) for k, w in self.weights.items()}

    @property
    def leader(self) -> str | None:
        """The answer with the most weight (ties: the one of the highest-ranked voter)."""
        weights = self.weights
        if not weights:
            return None
        best = max(weights.values())
        return next(k for k, w in weights.items() if w >= best - EPS)

    @property
    def share(self) -> float:
        leader = self.leader
        return self.shares[leader] if leader is not None else 0.0

    def reason(self) -> str:
        """The vote's outcome in words, the threshold and the default named."""
        leader = self.leader
        if leader is None or self.total <= 0:
            why = self.note or "nothing retrieved to vote"
            return f"{why}: {self.weak_answer}"
        counted = sum(1 for v in self.voters if v.label == leader)
        head = f"{counted} of {len(self.voters)} voters say {leader}, share {self.share:.3f}"
        if self.threshold is None:
            return f"{head}: the plurality wins, {self.answer}"
        if self.confident:
            return f"{head} ≥ {self.threshold:g}: {self.answer}"
        return f"{head} < {self.threshold:g}: too weak a vote, so {self.weak_answer}"

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "voters": [asdict(v) for v in self.voters],
                "weights": self.weights, "shares": self.shares, "total": self.total,
                "leader": self.leader, "share": self.share, "threshold": self.threshold,
                "default": self.default, "fallback": self.fallback, "confident": self.confident,
                "answer": self.answer,
                "reason": self.reason()}


@dataclass(frozen=True)
class Holding:
    """One ticker of an allocation: its signal from the tools' calls and the weight it got.
    `calls` are the tools that moved the signal most: (tool, sub-score, reliability, pull)."""

    ticker: str
    signal: float
    weight: float
    calls: tuple[tuple[str, float, float, float], ...] = ()


@dataclass(frozen=True)
class Decision:
    """How the agent reached its action. `votes` in the order taken (an arm's vote, then its
    fallback's); `holdings` for an allocation; `how` the one line that sums it up."""

    how: str
    answer: str
    votes: tuple[Vote, ...] = ()
    acted_as: str | None = None          # the policy whose vote gave the answer, when not the one played
    holdings: tuple[Holding, ...] = ()
    notes: tuple[str, ...] = ()          # what else bore on it (an exposure cut, a model's reply)

    def to_dict(self) -> dict[str, Any]:
        return {"how": self.how, "answer": self.answer, "acted_as": self.acted_as,
                "votes": [v.to_dict() for v in self.votes],
                "holdings": [asdict(h) for h in self.holdings], "notes": list(self.notes)}


def chain(played: str, votes: list[Vote]) -> Decision:
    """A decision by votes taken in turn (an arm's own, then its fallback's when its own was too weak)."""
    last = votes[-1]
    steps = [f"{v.policy}'s vote: {v.reason()}" for v in votes]
    acted_as = last.policy if last.policy != played else None
    return Decision(how="; then ".join(steps), answer=last.answer, votes=tuple(votes), acted_as=acted_as)


def plurality(policy: str, ranked: list[tuple[Any, float]], answer: str, default: str,
              note: str = "", label: str = "label") -> Vote:
    """A plurality vote (no threshold) of memory entries, given best first with their weights
    (the k-NN agents of news and stream). An entry's other metadata (up to three fields)
    is shown beside its vote."""
    voters = tuple(Voter(e.id, e.episode, str(e.metadata[label]), weight,
                         {k: _short(v) for k, v in list((k, v) for k, v in e.metadata.items() if k != label)[:3]})
                   for e, weight in ranked)
    return Vote(policy, voters, answer, bool(voters), default, None, note)


def _short(value: Any, width: int = 40) -> Any:
    text = str(value)
    return value if len(text) <= width else text[: width - 1] + "…"


FOLDED = 8  # voters and holdings shown in the text form (--json has them all)


def lines(decided: dict[str, Any], folded: int = FOLDED) -> list[str]:
    """A decision (its `to_dict`) as text lines."""
    out = [f"How it decided: {decided['how']}"]
    if decided.get("acted_as"):
        out.append(f"  (the answer is {decided['acted_as']}'s: the played arm acted as its fallback)")
    for v in decided.get("votes", []):
        out.append(f"  Vote of {v['policy']} ({len(v['voters'])} voters, weight = similarity; "
                   + (f"the leader needs share ≥ {v['threshold']:g}, else "
                      + (f"its fallback {v['fallback']})" if v.get("fallback") else f"the default {v['default']})")
                      if v["threshold"] is not None else f"the plurality wins; with no voter, {v['default']})"))
        for label, share in sorted(v["shares"].items(), key=lambda kv: -kv[1]):
            out.append(f"    {label:<22} weight {v['weights'][label]:.3f}  share {share:.3f}"
                       + ("  ◀ leads" if label == v["leader"] else ""))
        for voter in v["voters"][:folded]:
            extra = "".join(f" {k}={val}" for k, val in voter["fields"].items())
            out.append(f"      {voter['entry']} ep {voter['episode']} → {voter['label']} {voter['weight']:.3f}{extra}")
        if len(v["voters"]) > folded:
            out.append(f"      … {len(v['voters']) - folded} more voters (--json has them all)")
        if len(decided["votes"]) > 1:
            out.append(f"    → {v['reason']}")
    holdings = decided.get("holdings", [])
    if holdings:
        out.append("  ticker  signal  weight  the calls that moved it (tool sub-score × reliability)")
        for h in holdings[:max(folded, 12)]:
            calls = ", ".join(f"{tool} {score:+.2f}×{rel:.2f}" for tool, score, rel, _ in h["calls"])
            out.append(f"  {h['ticker']:<7} {h['signal']:+.3f}  {h['weight']:.1%}  {calls}")
    for note in decided.get("notes", []):
        out.append(f"  {note}")
    out.append(f"  Answer: {decided['answer']}")
    return out
