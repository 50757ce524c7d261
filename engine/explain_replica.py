"""A second session that replays the live run, so explaining an episode never touches it.

Explaining episode n means standing at the start of n and stepping it once more. Done
on the live session, that costs a snapshot of the whole session before and a reload
after (most of an explanation's time on a portfolio), and it must stop the run. A
`Replica` is a session of the same world and configuration that follows the live run
through the live timeline's checkpoints and its tape (engine/timetravel.py): it
restores the nearest checkpoint at or before n and replays to n, exactly as a rewind
would, and after the explanation it stands at n + 1. The next explanation goes on from
there when it can (the inspector is often asked for the next episode, or one a little
further on) instead of restoring again, and an episode explained before on the same run
is not replayed at all.

Going on from where the replica stands is only right while it stands on the live run:
its history is the live run's to that point, so are its decisions, and no change a
person made between steps (each one forces a checkpoint) lies at or before it that it
did not restore. Otherwise it restores.

`Basis.of(session)` is what the live session must give (call it under the lock that
guards the session): a copy of its tape and its checkpoints (each checkpoint is an
immutable saved state, shared). The replay itself then needs no lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import AELError
from .timetravel import Checkpoint, Tape, comparable

if TYPE_CHECKING:
    from .session import Session

KEPT_REPORTS = 32  # explanations kept per session (the inspector reopens the episodes a person looks at)


@dataclass(frozen=True)
class Basis:
    """The live run as a replica follows it: its tape (the run to its furthest episode) and checkpoints."""

    tape: Tape
    checkpoints: dict[int, Checkpoint]
    config: dict[str, Any]         # the live session's configuration (a replica is built from it)
    world: type                    # the live session's scenario class
    proposed: tuple = ()           # the arms waiting for a decision now (PolicySpecs): a column beside the pool's

    @classmethod
    def of(cls, s: "Session") -> "Basis":
        tl = s.timeline
        tl.check_replayable(s)  # a live model would be asked again: refused before anything is built
        tape = tl.tape if tl.tape is not None and tl.tape.t >= s.t else Tape.of(s)
        return cls(tape.copy(), dict(tl.checkpoints),
                   s.config.to_dict(), type(s.scenario), proposed_arms(s))

    def forced_up_to(self, t: int) -> dict[int, Checkpoint]:
        return {k: cp for k, cp in self.checkpoints.items() if k <= t and cp.forced}


def proposed_arms(s: "Session") -> tuple:
    """The arms the pending proposals would add (a proposal that is no valid policy is left out)."""
    from .policies import PolicySpec

    out = []
    for p in s.queue.pending:
        if p.kind == "arm" and not p.code and p.payload.get("name") not in s.pool:  # code runs only sandboxed
            try:
                out.append(PolicySpec.from_dict(p.payload))
            except AELError:
                continue
    return tuple(out)


class Replica:
    """A session of the live one's world and configuration, moved along the live run."""

    def __init__(self, basis: Basis) -> None:
        from .session import Session, SessionConfig

        self.config = basis.config
        config = SessionConfig.from_dict(basis.config)
        self.session = Session(config, basis.world(config.seed, **config.scenario_options))
        self.session.timeline.keep = False  # its own checkpoints would cost a save each; the live run's serve
        self.lock = threading.Lock()        # one explanation at a time on it
        self._forced: dict[int, Checkpoint] = {}  # the forced checkpoints it stands on (restored or replayed past)
        self.restored_from: int | None = None     # the checkpoint of the last move (None: it went on), for tests
        self._reports: OrderedDict[int, tuple[dict, dict]] = OrderedDict()  # episode -> (its record, report)

    def explained(self, basis: Basis, n: int) -> dict[str, Any] | None:
        """The report of episode n made earlier on this run, if any. A record is a new object
        whenever its episode is stepped again (a rewind, a branch, a replay), and whatever
        changes the run before n steps n again: the same record object means the same run."""
        kept = self._reports.get(n)
        if kept is None or n >= len(basis.tape.history) or kept[0] is not basis.tape.history[n]:
            return None
        if kept[1].get("proposed", []) != [p.name for p in basis.proposed]:
            return None  # another arm waits for a decision now: its column is another
        self._reports.move_to_end(n)
        return kept[1]

    def keep(self, basis: Basis, n: int, report: dict[str, Any]) -> None:
        self._reports[n] = (basis.tape.history[n], report)
        while len(self._reports) > KEPT_REPORTS:
            self._reports.popitem(last=False)

    def move_to(self, basis: Basis, n: int) -> "Session":
        """The replica at the start of episode n of the live run in `basis` (call with `lock`)."""
        s = self.session
        start = max(k for k in basis.checkpoints if k <= n)
        self.restored_from = None if self._stands_on(basis, start, n) else start
        s.timeline.follow(s, basis.tape, basis.checkpoints, n, self.restored_from)
        if s.t != n:
            raise AELError(f"episode {n} cannot be replayed: {s.blocked_reason or 'the replay stopped short'}")
        self._forced = basis.forced_up_to(n)
        return s

    def _stands_on(self, basis: Basis, start: int, n: int) -> bool:
        """Whether going on from where the replica stands gives the live run at n."""
        s, r = self.session, self.session.t
        if not start <= r <= n or (start == r and basis.checkpoints[r].forced):
            return False  # behind the nearest checkpoint (restoring is shorter), or a change a person made there
        mine, theirs = self._forced, basis.forced_up_to(r)
        if mine.keys() != theirs.keys() or any(mine[k] is not theirs[k] for k in mine):
            return False  # the live run was changed, or branched, before here
        history = basis.tape.history
        if len(history) < r or any(a is not b and a != b for a, b in zip(s.history, history)):
            return False
        audit = basis.tape.audit
        return len(s.queue.audit) <= len(audit) and all(
            comparable(a) == comparable(b) for a, b in zip(s.queue.audit, audit))
