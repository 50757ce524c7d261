"""The lab's run keys: which are on, a step pressed during a step, and what the lab
says and opens when a run stops (a reflection, a decision, a tour moment, the end)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from engine import events as ev

from ael_tui.lab.session_host import RunOutcome
from ael_tui.run_loop import RUN_KEYS_AFTER

if TYPE_CHECKING:
    from ael_tui.lab.lab_view import LabView
    from ael_tui.lab.session_host import SessionHost

RUN_ACTIONS = {"step": "step", "run_window": "window", "run_reflection": "reflection",
               "run_each_reflection": "each_reflection", "run_phase": "phase", "tour": "tour"}


class LabRuns:
    """Mixed into the lab screen (`host`, `view`, `redraw`, `_show_footer`, `compact`, `_start` of
    RunControls, and the decision and tour mixins' `action_decide`, `action_results`, `_show_card`)."""

    host: SessionHost
    view: LabView | None
    _run_note: str
    _footer_state: tuple[bool, bool] | None
    RUN_KEYS = frozenset(RUN_ACTIONS)  # RunControls says why one cannot start while a run goes

    class RunStopped(Message):
        def __init__(self, outcome: RunOutcome) -> None:
            super().__init__()
            self.outcome = outcome

    def action_run_each_reflection(self) -> None:
        self._start("each_reflection")

    def action_step(self) -> None:
        if self.host.queue_step():  # a step is running: it runs one more episode
            self.redraw()
            return
        self._start("step")

    def _bindings_changed(self, running: bool) -> None:
        """As RunControls says; the redraw that follows takes a view, which carries what the
        footer depends on (`LabView.footer_state`), and `watch_view` refreshes it if it changed."""
        if running:
            self.host.settings.clock.later(self.set_timer, RUN_KEYS_AFTER, self._show_run_keys)

    def _show_run_keys(self) -> None:
        if self.host.run_keys_due:
            self._show_footer((True, self.view is not None and self.view.decision_waits))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """False hides a key from the footer (and turns it off): the run keys while a run
        goes, pause while none does, decide with nothing pending, panels on a big screen."""
        running = self.host.running
        if action == "step" and running == "step":
            return True  # queued: every press counts
        if action in RUN_ACTIONS:
            return running is None
        if action == "pause":
            return running is not None
        if action == "decide":
            return self.view is not None and self.view.decision_waits
        if action == "next_panels":
            return self.compact
        return True

    def why_not(self, action: str, key: str) -> str | None:
        """What a key hidden by `check_action` says when pressed (RunControls.on_key)."""
        if action == "decide":
            return "Nothing is waiting for a decision."
        if action == "next_panels":
            return (f"Every panel is in view: {self.app.key_for('lab.panels')} pages through them only on a small "
                    "terminal (below 120 columns or 42 rows).")
        return super().why_not(action, key)  # type: ignore[misc]

    def on_lab_runs_run_stopped(self, message: RunStopped) -> None:
        o = message.outcome  # the host has cleared `running` already
        for e in o.events:
            if isinstance(e, ev.CodeArmSuspended):
                self.notify(f"Its arm is no longer sampled: {e.reason}", severity="warning", timeout=10,
                            title=f"Code policy {e.arm!r} suspended")
        self.show_notices()
        if o.mode != "step":
            self._footer_state = None  # the view that follows refreshes the footer, whatever else did meanwhile
        self.redraw(force=o.mode != "step")  # one step: its numbers now, the charts on their throttle
        if o.reason == "refused":
            self.notify(o.message, severity="error")
        elif o.reason == "finished":
            if self.host.tour is not None and self.host.tour.cards:
                self._show_card()
            else:
                self.action_results()  # the end of the last phase: this run beside the baselines
            n = self.host.read(lambda s: s.n_episodes)
            self.notify(f"The run is finished ({n} episodes).{self._passed(o)}", title="Finished")
        elif o.reason == "reached" and o.mode == "phase":
            self.action_results()  # the end of a phase
        elif o.reason == "reflected":
            n, diagnosis = self.host.read(
                lambda s: (len(s.reflections), s.reflections[-1].diagnosis if s.reflections else ""))
            short = diagnosis if len(diagnosis) <= 160 else diagnosis[:159] + "…"
            decided = "applied by the approval mode or a standing rule" if o.mode == "reflection" else \
                "nothing to decide"
            self.app.notify(f"{short}\n{decided.capitalize()}.{self._passed(o)}", title=f"Reflection #{n}",
                            timeout=8, kind="reflection")
        elif o.reason == "reached" and o.mode == "reflection" and o.silent:
            self.app.notify(f"No reflection proposed anything.{self._passed(o)}", title="Run", kind="reflection")
        elif o.reason == "moment":
            self._show_card()
        elif o.reason == "blocked":
            self._run_note = self._passed(o).strip()  # said in the dialog: a notice would cover it
            # (a proposal waits in manual mode, or where a person decided it in the run stepped along again)
            manual_pending = self.host.read(lambda s: bool(s.queue.pending))
            if self.host.tour is not None and self.host.tour.cards:
                self._show_card()  # the card first; t on it opens the decision
            elif manual_pending:
                self.action_decide()
            else:
                self.notify(o.message, severity="warning")

    def _passed(self, o: RunOutcome) -> str:
        if not o.silent:
            return ""
        each = self.app.key_for("lab.each_reflection")
        return (f" Passed {o.silent} silent reflection{'s' if o.silent != 1 else ''} on the way "
                f"({each} stops at each; R lists them).")
