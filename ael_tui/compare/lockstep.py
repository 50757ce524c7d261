"""Several selectors on one stream, stepped in lockstep: the compare view's host.

`CompareHost` is UI-free, like `SessionHost`, and runs the same loop (`RunLoop`):
one session per selector, all on the same scenario and seed (one shared scenario
instance where the scenario allows it), with approvals automatic. A step of the
loop is one lockstep round, every unfinished session by one episode, so all
sessions are always at the same episode, except that a shorter one may have
finished; `reflection` stops when any session reflected.

The host also keeps a timeline of what happened, in words (regime changes,
reflections, insights, new arms), for the view to list.
"""

from __future__ import annotations

from dataclasses import dataclass

import ael_lab.run_events as ev
from ael_lab import AELError
from ael_lab.runs import Session, StopOn, run_target

from ael_lab.extend import MAX_SELECTORS, build_compare  # noqa: F401 - the compare view's sessions
from ael_tui.config import LabSettings
from ael_tui.widgets.run_loop import RunLoop

DEFAULT_SELECTORS = ("ts", "ts+reflection", "oracle")


def default_selectors(available: list[str]) -> list[str]:
    """Those of ts, ts+reflection and oracle the scenario offers (else its first three)."""
    chosen = [s for s in DEFAULT_SELECTORS if s in available]
    return chosen if len(chosen) >= 2 else list(available[:3])


@dataclass
class TimelineEntry:
    episode: int
    selector: str | None     # None: about the stream (a regime change), not one selector
    kind: str                # regime, reflection, insight, arm, phase
    text: str


class CompareHost(RunLoop):
    def __init__(self, sessions: dict[str, Session], settings: LabSettings | None = None):
        if not sessions:
            raise AELError("compare: no sessions")
        super().__init__(settings)
        self.sessions = sessions
        self.timeline: list[TimelineEntry] = []
        first = next(iter(sessions.values()))
        self._last_regime = first.history[-1].get("regime") if first.history else None
        for name, s in sessions.items():  # what happened before the host took over (a resumed comparison)
            for r in s.reflections:
                self.timeline.append(TimelineEntry(r.episode, name, "reflection", f"reflected: {r.diagnosis}"))
            for i in s.injections:
                self.timeline.append(TimelineEntry(i["episode"], name, "arm", f"new arm {i['arm']}"))
        self.timeline.sort(key=lambda e: e.episode)

    # ------------------------------------------------------------- state
    @property
    def names(self) -> list[str]:
        return list(self.sessions)

    @property
    def lead(self) -> Session:
        """The session that sets targets: the first one (they share stream and phases)."""
        return next(iter(self.sessions.values()))

    @property
    def t(self) -> int:
        return max(s.t for s in self.sessions.values())

    @property
    def done(self) -> bool:
        return all(s.done for s in self.sessions.values())

    def target(self, mode: str) -> tuple[int, StopOn]:
        """The engine's target of `mode` for the lead session, at the comparison's
        episode and over its longest stream (a shorter session may have finished)."""
        return run_target(self.lead, mode, t=self.t, n_episodes=max(x.n_episodes for x in self.sessions.values()))

    # ----------------------------------------------------------- running
    def _cannot_begin(self, mode: str) -> str | None:
        return "the comparison is finished" if self.done else None

    def step_all(self) -> list[ev.Event]:
        """One lockstep round: one episode of every unfinished session (call under the lock)."""
        out: list[ev.Event] = []
        for name, s in self.sessions.items():
            if s.done:
                continue
            events = s.step()
            self._note(name, s, events)
            out.extend(events)
        return out

    # the run loop's hooks: a step is one lockstep round
    @property
    def position(self) -> int:
        return self.t

    def _stopped_before(self, mode: str) -> tuple[str, str] | None:
        return ("finished", "") if self.done else None

    def _advance(self, mode: str) -> list[ev.Event]:
        return self.step_all()

    # ---------------------------------------------------------- timeline
    def _note(self, name: str, s: Session, events: list[ev.Event]) -> None:
        add = self.timeline.append
        for e in events:
            if isinstance(e, ev.EpisodeDone) and s is self.lead:
                regime = e.record.get("regime")
                if regime is not None and regime != self._last_regime:
                    if self._last_regime is not None:
                        names = list(s.scenario.regime_names)
                        label = names[regime] if isinstance(regime, int) and 0 <= regime < len(names) else regime
                        add(TimelineEntry(e.episode, None, "regime", f"regime {label} begins (nobody is told)"))
                    self._last_regime = regime
            elif isinstance(e, ev.PhaseChanged) and s is self.lead:
                add(TimelineEntry(e.episode, None, "phase",
                                  f"{e.phase} phase" + (": learning frozen" if e.frozen else "")))
            elif isinstance(e, ev.Reflected):
                add(TimelineEntry(e.episode, name, "reflection", f"reflected: {e.diagnosis}"))
            elif isinstance(e, ev.InsightApplied):
                add(TimelineEntry(e.episode, name, "insight", f"insight applied: {e.insight}"))
            elif isinstance(e, ev.ArmAdded):
                add(TimelineEntry(e.episode, name, "arm", f"new arm {e.arm} joins the pool (approved automatically)"))
