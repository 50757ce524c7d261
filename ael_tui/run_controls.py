"""The run keys every stepping screen shares (lab and compare), and the one
worker they run the engine in: each key asks `_start(mode)`, which runs the
host in a thread worker (checking cancellation, so pause is immediate) and
posts the screen's own `RunStopped` message when it ends."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.worker import Worker, WorkerState, get_current_worker

from engine.errors import AELError

from ael_tui.actions import SaysWhy, key_label
from ael_tui.files.exports import export_history
from ael_tui.run_loop import RUN_KEYS_AFTER


class RunControls(SaysWhy):
    """Mixed into a Screen that has `host` (begin/run/pause/settings/running),
    `redraw(force=...)`, a nested `RunStopped(outcome)` message,
    `_exported_sessions()` (selector -> session, what `x` writes), `ACTION_SCOPE`
    and `RUN_KEYS` (the actions that start a run)."""

    RUN_KEYS: frozenset[str] = frozenset({"step", "run_window", "run_reflection", "run_phase"})

    # ------------------------------------------------ keys that cannot act now (SaysWhy.on_key)
    def why_not(self, action: str, key: str) -> str | None:
        """A run key during a run, pause with nothing running (Escape excepted)."""
        running = self.host.running
        pause = self.app.key_for(f"{self.ACTION_SCOPE}.pause")
        if action == "pause":
            # Escape is everyone's way out of something: at rest in this screen it just means nothing
            return None if running or key == "escape" else "Nothing is running: there is nothing to pause."
        if running and action in self.RUN_KEYS:
            return f"{self.host._already(running).capitalize()}: {pause} pauses it, then {key_label(key)} runs."
        return None

    def _bindings_changed(self, running: bool) -> None:
        """The footer's keys depend on whether a run is going: a run gets them once it has
        gone on for RUN_KEYS_AFTER (from a timer, not a view: an LLM's episode may hold the
        session for seconds, and pause must show), and its end puts them back (the steady
        footer rebuilds only if it showed the run's)."""
        if running:
            self.host.settings.clock.later(self.set_timer, RUN_KEYS_AFTER, self._show_run_keys)
        else:
            self.refresh_bindings()

    def _show_run_keys(self) -> None:
        if self.host.run_keys_due:
            self.refresh_bindings()

    def _start(self, mode: str) -> None:
        reason = self.host.begin(mode)
        if reason:
            self.notify(reason, severity="warning", title="Not stepping")
            return
        if mode != "step":  # one episode is over before a changed footer or status could be seen
            self._bindings_changed(True)
            self.redraw()
        self._run_engine(mode)

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False)
    def _run_engine(self, mode: str):
        worker = get_current_worker()
        outcome = self.host.run(mode, cancelled=lambda: worker.is_cancelled)
        self.post_message(self.RunStopped(outcome))
        return outcome

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "engine" and event.state == WorkerState.ERROR:  # the host cleared `running`
            self._bindings_changed(False)
            self.redraw(force=True)
            self.notify(f"the engine failed (a bug): {event.worker.error!r}", severity="error", timeout=15)

    def action_step(self) -> None:
        self._start("step")

    def action_run_window(self) -> None:
        self._start("window")

    def action_run_reflection(self) -> None:
        self._start("reflection")

    def action_run_phase(self) -> None:
        self._start("phase")

    def action_pause(self) -> None:
        self.host.pause()

    def action_faster(self) -> None:
        before = self.host.settings.delay
        if self.host.settings.faster() == before:
            self.notify("Already the fastest: no delay between episodes.", title="Speed", timeout=3)
        self.redraw()

    def action_slower(self) -> None:
        before = self.host.settings.delay
        if self.host.settings.slower() == before:
            self.notify(f"Already the slowest: {before:g} s between episodes.", title="Speed", timeout=3)
        self.redraw()

    def _export_to(self, text: str | None) -> None:
        """Write NAME.csv and NAME.json for the answer of the export prompt (None: cancelled)."""
        if not text or not text.strip():
            return
        try:
            base = self.host.settings.place(Path(text.strip()).expanduser(), "export")
            if base.parent == self.host.settings.place(self.host.settings.exports_dir, "export"):
                base.parent.mkdir(parents=True, exist_ok=True)
            with self.host.lock:
                csv_path, json_path = export_history(self._exported_sessions(), base)
        except AELError as err:
            self.notify(str(err), severity="error", title="Not exported")
            return
        self.notify(f"{csv_path}\n{json_path}", title="Exported")
