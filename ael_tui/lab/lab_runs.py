"""`LabRuns`: the lab's run keys, the compare view's (`RunControls`) and three more: a
step pressed during a step queues one more episode, e each reflection, and the tour's
run to its next moment. It also words what the lab says when a run stops (the screen
decides what opens then: a card, a decision, the results)."""

from __future__ import annotations

import ael_lab.run_events as ev

from ael_tui.lab.session_host import RunOutcome, SessionHost
from ael_tui.widgets.run_controls import RunControls

RUN_ACTIONS = {"step": "step", "run_window": "window", "run_reflection": "reflection",
               "run_each_reflection": "each_reflection", "run_phase": "phase", "tour": "tour"}


class LabRuns(RunControls):
    RUN_KEYS = frozenset(RUN_ACTIONS)
    host: SessionHost

    def allows(self, action: str) -> bool | None:
        if action == "step" and self.host.running == "step":
            return True  # queued: every press counts
        return super().allows(action)

    def step(self) -> None:
        """One episode; pressed during a step, one more after it (a press is never dropped)."""
        if self.host.queue_step():
            self.post_message(self.Changed())
            return
        self.start("step")

    # ------------------------------------------------- what a stopped run says
    def say_suspended(self, outcome: RunOutcome) -> None:
        """The code policies the run suspended, one warning each."""
        for e in outcome.events:
            if isinstance(e, ev.CodeArmSuspended):
                self.notify(f"Its arm is no longer sampled: {e.reason}", severity="warning", timeout=10,
                            title=f"Code policy {e.arm!r} suspended")

    def say_stopped(self, outcome: RunOutcome) -> None:
        """The one line a run's end deserves: refused, finished, a reflection (or none that
        proposed anything); a run stopped by a decision or a moment says it in what opens."""
        o = outcome
        if o.reason == "refused":
            self.notify(o.message, severity="error")
        elif o.reason == "finished":
            n = self.host.read(lambda s: s.n_episodes)
            self.notify(f"The run is finished ({n} episodes).{self.passed(o)}", title="Finished")
        elif o.reason == "reflected":
            n, diagnosis = self.host.read(
                lambda s: (len(s.reflections), s.reflections[-1].diagnosis if s.reflections else ""))
            short = diagnosis if len(diagnosis) <= 160 else diagnosis[:159] + "…"
            decided = "applied by the approval mode or a standing rule" if o.mode == "reflection" else \
                "nothing to decide"
            self.app.notify(f"{short}\n{decided.capitalize()}.{self.passed(o)}", title=f"Reflection #{n}",
                            timeout=8, kind="reflection")
        elif o.reason == "reached" and o.mode == "reflection" and o.silent:
            self.app.notify(f"No reflection proposed anything.{self.passed(o)}", title="Run", kind="reflection")

    def passed(self, o: RunOutcome) -> str:
        """" Passed N silent reflections on the way (…)." for a run that passed some, else ""."""
        if not o.silent:
            return ""
        each = self.app.key_for("lab.each_reflection")
        return (f" Passed {o.silent} silent reflection{'s' if o.silent != 1 else ''} on the way "
                f"({each} stops at each; R lists them).")
