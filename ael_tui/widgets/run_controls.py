"""`RunControls`: the run keys every stepping screen shares (lab and compare), as one
object that owns them. It starts a run of its host in one thread worker (which checks
cancellation, so pause is immediate), pauses it, changes the speed, says why a run key
cannot act now, and tells its screen what happened by messages: `Stepped` (a step of a
longer run is done: the panels follow), `Changed` (what the status shows: a run began,
the speed), `RunKeysDue` (a longer run's keys belong in the footer), `Stopped(outcome)`
(the run is over; the host has cleared `running`) and `Failed` (the engine raised: a bug).

It draws nothing (`display: none`). Its screen keeps the `BINDINGS` (Textual looks a key
up only in the focused widget and its ancestors, and this one is never focused, so
bindings of its own would not fire) and each of the screen's actions hands over to it
in one line."""

from __future__ import annotations

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker

from ael_tui.actions import key_label
from ael_tui.widgets.run_loop import RUN_KEYS_AFTER, RunLoop, RunOutcome


class RunControls(Widget):
    DEFAULT_CSS = "RunControls { display: none; }"

    RUN_KEYS: frozenset[str] = frozenset({"step", "run_window", "run_reflection", "run_phase"})
    """The actions that start a run (off while one goes)."""

    class Stepped(Message):
        """A step of a longer run is done (posted from the engine's thread: the host's
        `on_step`); a newer one replaces one still queued, so a fast run never floods the
        screen."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, RunControls.Stepped)

    class Changed(Message):
        """What the status shows changed (a run began, the speed): the screen redraws."""

    class RunKeysDue(Message):
        """A longer run has gone on for RUN_KEYS_AFTER: the footer shows its keys (pause)."""

    class Stopped(Message):
        """The run is over (the host has cleared `running`); `outcome` says how and why."""

        def __init__(self, outcome: RunOutcome) -> None:
            super().__init__()
            self.outcome = outcome

    class Failed(Message):
        """The engine raised while running (a bug, said already): the screen redraws."""

    def __init__(self, host: RunLoop, scope: str, *, id: str | None = None) -> None:
        """`scope`: the screen's scope in actions.py, whose pause key the texts name."""
        super().__init__(id=id)
        self.host = host
        self.scope = scope

    def on_mount(self) -> None:
        self.listen()

    def on_unmount(self) -> None:
        if self.host.on_step == self._stepped:
            self.host.on_step = None

    def listen(self) -> None:
        """Hear of the host's steps (again: a comparison reopened after another screen)."""
        self.host.on_step = self._stepped

    def _stepped(self) -> None:
        self.post_message(self.Stepped())  # from the engine's thread: post_message is thread-safe

    # ------------------------------------------------ which keys act now, and why not
    def allows(self, action: str) -> bool | None:
        """For the screen's `check_action`: a run key only at rest, pause only while a run
        goes; None for an action that is not a run key."""
        running = self.host.running
        if action in self.RUN_KEYS:
            return running is None
        if action == "pause":
            return running is not None
        return None

    def why_not(self, action: str, key: str) -> str | None:
        """What a run key or pause says when it cannot act now (Escape at rest says nothing:
        it is everyone's way out of something)."""
        running = self.host.running
        pause = self.app.key_for(f"{self.scope}.pause")
        if action == "pause":
            return None if running or key == "escape" else "Nothing is running: there is nothing to pause."
        if running and action in self.RUN_KEYS:
            return f"{self.host._already(running).capitalize()}: {pause} pauses it, then {key_label(key)} runs."
        return None

    # ------------------------------------------------------------------ running
    def start(self, mode: str) -> None:
        """Run the host in `mode` in the engine's worker, or say why it cannot start."""
        reason = self.host.begin(mode)
        if reason:
            self.notify(reason, severity="warning", title="Not stepping")
            return
        if mode != "step":  # one episode is over before a changed footer or status could be seen
            # the run's keys from a timer, not a view: an LLM's episode may hold the session
            # for seconds, and pause must show
            self.host.settings.clock.later(self.set_timer, RUN_KEYS_AFTER, self._run_keys_due)
            self.post_message(self.Changed())
        self._run_engine(mode)

    def _run_keys_due(self) -> None:
        if self.host.run_keys_due:
            self.post_message(self.RunKeysDue())

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False)
    def _run_engine(self, mode: str):
        worker = get_current_worker()
        outcome = self.host.run(mode, cancelled=lambda: worker.is_cancelled)
        self.post_message(self.Stopped(outcome))
        return outcome

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "engine" and event.state == WorkerState.ERROR:  # the host cleared `running`
            self.post_message(self.Failed())
            self.notify(f"the engine failed (a bug): {event.worker.error!r}", severity="error", timeout=15)

    def pause(self) -> None:
        self.host.pause()

    def faster(self) -> None:
        before = self.host.settings.delay
        if self.host.settings.faster() == before:
            self.notify("Already the fastest: no delay between episodes.", title="Speed", timeout=3)
        self.post_message(self.Changed())

    def slower(self) -> None:
        before = self.host.settings.delay
        if self.host.settings.slower() == before:
            self.notify(f"Already the slowest: {before:g} s between episodes.", title="Speed", timeout=3)
        self.post_message(self.Changed())
