"""The lab screen: every panel of a running session, and the keys that drive it.

Engine work runs in one thread worker (`_run_engine`) through the session
host; this screen never steps the session itself. Panels are redrawn from a
timer (~8 Hz) and only when the host's version has moved: cheap panels at
once, plots and the memory table at most a few times a second.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState, get_current_worker

from engine.errors import AELError

from ..actions import bindings_for
from ..host import RUN_MODES, RunOutcome, SessionHost
from ..views import (evidence_episodes, memory_entry, memory_rows, posterior_rows, progress_data, proposal_notes,
                     status_of, window_stats)
from ..widgets.episodes import EpisodeLog
from ..widgets.memory import MemoryPanel
from ..widgets.posteriors import DensityPlot, PosteriorTable
from ..widgets.progress import ProgressChart
from ..widgets.reflection import ReflectionPanel
from ..widgets.status import StatusBar
from .approval import ApprovalScreen, Decision, ProposalContext
from .dialogs import ConfirmScreen, PromptScreen, SettingsAnswer, SettingsScreen
from .load import LoadScreen
from .views import AuditScreen, ReflectionsScreen

TICK = 1 / 8            # how often the screen looks for changes
PLOT_EVERY = 0.25       # plots redraw at most this often while running
MEMORY_EVERY = 0.5      # the memory table too (it can hold hundreds of rows)
RUN_ACTIONS = {"step": "step", "run_window": "window", "run_reflection": "reflection", "run_phase": "phase"}
PAST = {"approve": "approved", "edit": "approved as edited", "reject": "rejected",
        "always": "approved (and every later one of its kind will be)"}


class LabScreen(Screen):
    ACTION_SCOPE = "lab"
    BINDINGS = bindings_for("lab")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (42, "-tall")]

    class RunStopped(Message):
        def __init__(self, outcome: RunOutcome) -> None:
            super().__init__()
            self.outcome = outcome

    def __init__(self, host: SessionHost) -> None:
        super().__init__()
        self.host = host
        self._drawn = -1
        self._plots_drawn = -1
        self._plots_at = 0.0
        self._memory_drawn = -1
        self._memory_at = 0.0
        self._status_key: Any = None
        self._bindings_state: Any = None

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with VerticalScroll(id="lab-body"):
            with Horizontal(id="row-bandit", classes="lab-row"):
                with Vertical(id="posteriors-box", classes="panel"):
                    yield PosteriorTable(id="posteriors")
                yield DensityPlot(id="density", classes="panel")
            with Horizontal(id="row-progress", classes="lab-row"):
                yield ProgressChart(id="progress", classes="panel")
                with VerticalScroll(id="reflection-box", classes="panel"):
                    yield ReflectionPanel(id="reflection")
            with Horizontal(id="row-memory", classes="lab-row"):
                yield MemoryPanel(id="memory", classes="panel")
                yield EpisodeLog(id="log", classes="panel")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        titles = {"#posteriors-box": "Posteriors", "#density": "Beta densities", "#progress": "Progress",
                  "#reflection-box": "Reflection", "#memory": "Memory", "#log": "Episodes"}
        for selector, title in titles.items():
            self.query_one(selector).border_title = title
        for widget in self.query("Input"):
            widget.cursor_blink = self.app.cursor_blink_enabled
        self._bindings_state = (False, bool(self.host.session.queue.pending))
        self.set_interval(TICK, self._tick)
        self.redraw(force=True)
        with self.host.lock:
            reason = self.host.session.blocked_reason if self.host.session.queue.pending else None
        if reason:
            self.notify(f"{reason} (press d)", severity="warning", title="Decision pending")

    def on_unmount(self) -> None:
        self.host.pause()  # let the engine thread end with the screen

    def on_resize(self) -> None:
        self._plots_drawn = -1
        self.call_after_refresh(self.redraw, True)

    # --------------------------------------------------------------- redraws
    def _tick(self) -> None:
        while self.host.notices:
            severity, message = self.host.notices.popleft()
            self.notify(message, severity=severity)  # type: ignore[arg-type]
        self.redraw()

    def redraw(self, force: bool = False) -> None:
        """Bring the panels up to the session; skipped this tick if the engine holds the lock."""
        host = self.host
        if not host.lock.acquire(timeout=0.02):
            return
        try:
            s = host.session
            v = host.version
            now = time.monotonic()
            status = status_of(s)
            key = (v, host.running, host.settings.delay, host.settings.autosave_every)
            if force or key != self._status_key:
                self.query_one(StatusBar).show(status, RUN_MODES.get(host.running or ""), host.settings.delay,
                                               host.settings.autosave_every)
                self._status_key = key
            if force or v != self._drawn:
                rows = posterior_rows(s)
                self.query_one(PosteriorTable).show(rows)
                self.query_one(EpisodeLog).show(s.history)
                self.query_one(ReflectionPanel).show(s.reflections, s.insight, proposal_notes(s).get(
                    len(s.reflections) - 1, []))
                self.query_one(MemoryPanel).set_counts(s.memory.counts(), s.memory.cap_per_tier)
                self._drawn = v
            sized = self.query_one(DensityPlot).size.width > 0  # before the first layout a plot has no size
            if sized and (force or (v != self._plots_drawn and now - self._plots_at >= PLOT_EVERY)):
                self.query_one(DensityPlot).show(posterior_rows(s), status.frozen)
                self.query_one(ProgressChart).show(progress_data(s))
                self._plots_drawn, self._plots_at = v, now
            if force or (v != self._memory_drawn and now - self._memory_at >= MEMORY_EVERY):
                self._show_memory()
                self._memory_drawn, self._memory_at = v, now
        finally:
            host.lock.release()

    def _show_memory(self) -> None:
        panel = self.query_one(MemoryPanel)
        panel.show_rows(memory_rows(self.host.session, panel.tier, panel.needle))

    def on_memory_panel_need_rows(self, event: MemoryPanel.NeedRows) -> None:
        with self.host.lock:
            self._show_memory()

    def on_memory_panel_entry_highlighted(self, event: MemoryPanel.EntryHighlighted) -> None:
        with self.host.lock:
            entry = memory_entry(self.host.session, event.tier, event.entry_id)
        self.query_one(MemoryPanel).show_entry(entry)

    # --------------------------------------------------------------- running
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        running = self.host.running is not None
        if action in RUN_ACTIONS:
            return None if running else True
        if action == "pause":
            return True if running else None
        if action == "decide":
            return True if self.host.session.queue.pending else None
        return True

    def _sync_bindings(self, running: bool) -> None:
        """Refresh the footer only when what it shows changes (a refresh re-lays the screen)."""
        state = (running, bool(self.host.session.queue.pending))
        if state != self._bindings_state:
            self._bindings_state = state
            self.refresh_bindings()

    def _start(self, mode: str) -> None:
        reason = self.host.begin(mode)
        if reason:
            self.notify(reason, severity="warning", title="Not stepping")
            return
        if mode != "step":  # one episode is over before a dimmed footer could be seen
            self._sync_bindings(True)
        self.redraw()
        self._run_engine(mode)

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False)
    def _run_engine(self, mode: str) -> RunOutcome:
        worker = get_current_worker()
        outcome = self.host.run(mode, cancelled=lambda: worker.is_cancelled)
        self.post_message(self.RunStopped(outcome))
        return outcome

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "engine" and event.state == WorkerState.ERROR:
            self.host.running = None
            self._sync_bindings(False)
            self.redraw(force=True)
            self.notify(f"the engine failed (a bug): {event.worker.error!r}", severity="error", timeout=15)

    def on_lab_screen_run_stopped(self, message: RunStopped) -> None:
        o = message.outcome
        self.host.running = None
        self._sync_bindings(False)
        self.redraw(force=True)
        if o.reason == "refused":
            self.notify(o.message, severity="error")
        elif o.reason == "finished":
            self.notify(f"The run is finished ({self.host.session.n_episodes} episodes).", title="Finished")
        elif o.reason == "reflected":
            with self.host.lock:
                reflections = self.host.session.reflections
                n, diagnosis = len(reflections), reflections[-1].diagnosis if reflections else ""
            short = diagnosis if len(diagnosis) <= 160 else diagnosis[:159] + "…"
            self.notify(f"{short}\nNothing to decide: no proposal.", title=f"Reflection #{n}", timeout=8)
        elif o.reason == "blocked":
            if self.host.session.queue.mode == "manual" and self.host.session.queue.pending:
                self.action_decide()
            else:
                self.notify(o.message, severity="warning")

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
        self.host.settings.faster()
        self.redraw()

    def action_slower(self) -> None:
        self.host.settings.slower()
        self.redraw()

    # ------------------------------------------------------------- decisions
    def action_decide(self) -> None:
        if any(isinstance(screen, ApprovalScreen) for screen in self.app.screen_stack):
            return
        with self.host.lock:
            s = self.host.session
            pending = s.queue.pending
            if not pending:
                self.notify("Nothing is waiting for a decision.")
                return
            p = pending[0]
            reflection = s.reflections[p.reflection] if 0 <= p.reflection < len(s.reflections) else None
            ctx = ProposalContext(p, reflection, window_stats(s, p), len(pending), evidence_episodes(s, p.evidence))
        self.app.push_screen(ApprovalScreen(ctx, partial(self._validate, p)), partial(self._decided, p.id))

    def _validate(self, proposal, edited: dict[str, Any]) -> dict[str, Any]:
        with self.host.lock:
            return self.host.session.validate_edit(proposal, edited)

    def _decided(self, pid: int, decision: Decision | None) -> None:
        if decision is None:
            self.notify(f"Proposal #{pid} stays pending; stepping waits for a decision (d opens it).",
                        severity="warning", title="Later")
            return
        try:
            if decision.action == "always":
                self.host.decide(pid, "approve", reason=decision.reason, standing=True)
            elif decision.action == "edit" and decision.edited == self.host.session.queue.get(pid).payload:
                decision = Decision("approve", reason=decision.reason)  # an edit that changed nothing
                self.host.decide(pid, "approve", reason=decision.reason)
            elif decision.action == "edit":
                self.host.decide(pid, "edit", edited=decision.edited, reason=decision.reason)
            else:
                self.host.decide(pid, decision.action, reason=decision.reason)
        except AELError as err:
            self.notify(str(err), severity="error", title=f"Proposal #{pid}")
            return
        finally:
            self._sync_bindings(False)
            self.redraw(force=True)
        self.notify(f"Proposal #{pid} {PAST[decision.action]}.", title="Decided")
        if self.host.session.queue.pending:
            self.call_after_refresh(self.action_decide)

    def action_audit(self) -> None:
        with self.host.lock:
            audit = list(self.host.session.queue.audit)
        self.app.push_screen(AuditScreen(audit, show_times=self.app.show_times))

    def action_reflections(self) -> None:
        with self.host.lock:
            s = self.host.session
            reflections, notes = list(s.reflections), proposal_notes(s)
        self.app.push_screen(ReflectionsScreen(reflections, notes))

    # ---------------------------------------------------------------- memory
    def action_focus_filter(self) -> None:
        self.query_one(MemoryPanel).focus_filter()

    def action_next_tier(self) -> None:
        self.query_one(MemoryPanel).next_tier()

    # ------------------------------------------------------------- sessions
    def action_settings(self) -> None:
        st = self.host.settings

        def done(answer: SettingsAnswer | None) -> None:
            if answer is not None:
                st.autosave_every, st.delay = answer.autosave_every, answer.delay
                self.redraw()

        self.app.push_screen(SettingsScreen(st.autosave_every, st.delay, str(self.host.autosave_path())), done)

    def action_save(self) -> None:
        with self.host.lock:
            default = str(self.host.default_save_path())
        self.app.push_screen(
            PromptScreen("Save the session as", value=default, placeholder="saves/name.json", ok="Save",
                         hint="A JSON file; written atomically (the old file stays whole if anything fails).",
                         input_id="save-path"),
            self._save_named)

    def _save_named(self, text: str | None) -> None:
        if not text or not text.strip():
            return
        path = Path(text.strip()).expanduser()
        if path.exists():
            def confirmed(yes: bool | None) -> None:
                if yes:
                    self._write(path)

            self.app.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?", yes="Overwrite", no="Keep it"),
                                 confirmed)
        else:
            self._write(path)

    def _write(self, path: Path) -> None:
        try:
            self.host.save(path)
        except AELError as err:
            self.notify(str(err), severity="error", title="Not saved")
            return
        self.notify(f"Saved episode {self.host.session.t} to {path}", title="Saved")

    def action_load(self) -> None:
        self.host.pause()

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.app.open_saved_session(path)

        self.app.push_screen(LoadScreen(self.host.settings.saves_dir), chosen)

    def action_new_session(self) -> None:
        self.host.pause()
        self.app.show_start(self.host.session.config)
