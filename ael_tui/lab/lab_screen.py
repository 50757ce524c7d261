"""The lab screen: every panel of a running session, and the keys that drive it.

Engine work runs in one thread worker (`RunControls._run_engine`) through the session
host; this screen never steps the session itself. Panels are redrawn from a
timer (~8 Hz) and only when the host's version has moved: cheap panels at
once, plots and the memory table at most a few times a second.

Below 120 columns or 42 rows the screen takes the class `-compact` and shows
one group of panels at a time (bandit, progress, memory, episodes), chosen
with the tabs or v; lab.tcss does the layout. The guided tour (t) runs to the next key
moment the session's events show (`TourGuide`) and explains it on a card.
"""

from __future__ import annotations

import gc
import time
from functools import partial
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Tab, Tabs

from engine import events as ev
from engine.errors import AELError

from ael_tui.actions import bindings_for
from ael_tui.compare.lockstep import CompareHost, build_compare, default_selectors
from ael_tui.lab.session_host import RUN_MODES, RunOutcome, SessionHost
from ael_tui.files.opening import selectors_of
from ael_tui.tour.guide import TourGuide
from ael_tui.readouts import (evidence_episodes, memory_entry, memory_rows, posterior_rows, progress_data, proposal_notes, status_of, window_stats)
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.memory.memory_panel import MemoryPanel
from ael_tui.memory.method_memory import method_label, method_tables
from ael_tui.lab.posteriors import DensityPlot, PosteriorTable
from ael_tui.lab.progress_chart import ProgressChart
from ael_tui.lab.reflection_panel import ReflectionPanel
from ael_tui.lab.status_bar import StatusBar
from ael_tui.lab.variant_panels import PlannerPanel, ToolPanel
from ael_tui.variant_readouts import planner_view, tool_rows
from ael_tui.decisions.approval import ApprovalScreen, BatchDecision, Decision, ProposalContext
from ael_tui.decisions.code_review import CodeReviewScreen, MethodCode
from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.dialogs import CompareSetupScreen, ConfirmScreen, PromptScreen, SettingsAnswer, SettingsScreen
from ael_tui.files.load_dialog import LoadScreen
from ael_tui.run_controls import RunControls
from ael_tui.tour.tour_card import TourCardScreen
from ael_tui.lab.records import AuditScreen, EpisodeScreen, ReflectionsScreen, ResultsScreen, RulesScreen

TICK = 1 / 8            # how often the screen looks for changes
PLOT_EVERY = 0.25       # plots redraw at most this often while running
MEMORY_EVERY = 0.25     # the memory table too
SLOW_AFTER = 0.02       # plots and memory table are redrawn this long after the numbers (a frame
                        # goes out every 1/60 s, so the numbers are on screen first)
RUN_ACTIONS = {"step": "step", "run_window": "window", "run_reflection": "reflection",
               "run_each_reflection": "each_reflection", "run_phase": "phase", "tour": "tour"}
PAGES = ("bandit", "progress", "memory", "episodes")
COMPACT_BELOW = (120, 42)  # columns, rows: below either, one group of panels at a time
PAST = {"approve": "approved", "edit": "approved as edited", "reject": "rejected",
        "always": "approved (and every later one of its kind will be)"}


def settle_heap() -> None:
    """Move what a loaded session and the interface hold (long-lived) out of the garbage
    collector's sight. A full collection walks every object, 60-80 ms with a 1,200-episode
    session; it would land in the middle of a step now and then. Unfreezing first lets a
    previous session be collected."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class LabScreen(RunControls, Screen):
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
        self._compare: CompareHost | None = None
        self._slow_pending = False
        self._run_note = ""  # what the run that opened a proposal passed on its way
        self.page = PAGES[0]

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Tabs(Tab("Bandit", id="page-bandit"), Tab("Progress", id="page-progress"),
                   Tab("Memory", id="page-memory"), Tab("Episodes", id="page-episodes"), id="lab-pages")
        with VerticalScroll(id="lab-body"):
            with Horizontal(id="row-bandit", classes="lab-row"):
                with Vertical(id="posteriors-box", classes="panel"):
                    yield PosteriorTable(id="posteriors")
                yield DensityPlot(id="density", classes="panel")
            with Horizontal(id="row-variants", classes="lab-row"):  # only for a session running these variants
                with VerticalScroll(id="planners-box", classes="panel"):
                    yield PlannerPanel(id="planners")
                with VerticalScroll(id="tools-box", classes="panel"):
                    yield ToolPanel(id="tools")
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
                  "#reflection-box": "Reflection", "#memory": "Memory", "#log": "Episodes",
                  "#planners-box": "Planners (LinUCB)", "#tools-box": "Tools"}
        for selector, title in titles.items():
            self.query_one(selector).border_title = title
        for widget in self.query("Input"):
            widget.cursor_blink = self.app.cursor_blink_enabled
        self._show_variant_panels()
        self._bindings_state = (False, self._decision_waits())
        self.set_interval(TICK, self._tick)
        self.redraw(force=True)
        # after the first frame: computing it holds the interpreter and would delay that frame
        self.call_after_refresh(self._prepare)
        self.call_after_refresh(settle_heap)
        with self.host.lock:
            reason = self.host.session.blocked_reason if self.host.session.queue.pending else None
        if reason:
            self.notify(f"{reason} (press {self.app.key_for('lab.decide')})", severity="warning",
                        title="Decision pending")
        if self.host.session.code_arms.quarantined:
            self.call_after_refresh(self.action_decide)  # code from a file: a person looks before anything runs

    def _show_variant_panels(self) -> None:
        """The variants' row, and in it the panels of the variants this session runs."""
        v = self.host.session.variants
        planners, tools = v.get("planners") is not None, bool(v.get("per-tool") or v.get("cold-start"))
        self.set_class(planners or tools, "-variants")
        self.query_one("#planners-box").display = planners
        self.query_one("#tools-box").display = tools

    def _decision_waits(self) -> bool:
        """A proposal, or a quarantined code arm from a loaded file, waits for a person."""
        s = self.host.session
        return bool(s.queue.pending or s.code_arms.quarantined)

    @work(thread=True, group="prepare", exit_on_error=False)
    def _prepare(self) -> None:
        self.host.prepare()

    def on_unmount(self) -> None:
        self.host.pause()  # let the engine thread end with the screen
        try:
            self.host.session.llm.flush()  # a recording cassette keeps every call
        except Exception as err:  # noqa: BLE001 (never fail a quit over it)
            self.app.log.warning(f"cassette flush failed: {err!r}")

    def on_resize(self, event) -> None:
        width, height = event.size
        compact = width < COMPACT_BELOW[0] or height < COMPACT_BELOW[1]
        if compact != self.has_class("-compact"):
            self.set_class(compact, "-compact")
            # the palette hint docks over the keys' right end, which a narrow footer reaches
            self.query_one(Footer).show_command_palette = not compact
            self.refresh_bindings()
        self.show_page(self.page)
        self._plots_drawn = -1
        self.call_after_refresh(self.redraw, True)

    # ----------------------------------------------------------- pages
    @property
    def compact(self) -> bool:
        return self.has_class("-compact")

    def show_page(self, page: str) -> None:
        """Which group of panels a compact screen shows (the others keep their state)."""
        self.page = page
        for p in PAGES:
            self.set_class(p == page, f"-page-{p}")
        tabs = self.query_one("#lab-pages", Tabs)
        if tabs.active != f"page-{page}":
            tabs.active = f"page-{page}"
        self._plots_drawn = -1

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        if event.tabs.id == "lab-pages" and event.tab is not None and event.tab.id:
            page = event.tab.id.removeprefix("page-")
            if page != self.page:
                self.show_page(page)
                self.call_after_refresh(self.redraw, True)

    def action_next_panels(self) -> None:
        self.show_page(PAGES[(PAGES.index(self.page) + 1) % len(PAGES)])
        self.call_after_refresh(self.redraw, True)

    # --------------------------------------------------------------- redraws
    def _tick(self) -> None:
        while self.host.notices:
            severity, message = self.host.notices.popleft()
            self.notify(message, severity=severity)  # type: ignore[arg-type]
        self.redraw()

    def redraw(self, force: bool = False) -> None:
        """Bring the panels up to the session; skipped this tick if the engine holds the lock.

        The cheap panels (status, posteriors, episode log, reflection, memory counts)
        are updated at once. The plots and the memory table, at most every PLOT_EVERY
        and MEMORY_EVERY seconds, are drawn SLOW_AFTER later, after the next frame, so
        a step shows its numbers without waiting for them; `force` draws everything now."""
        host = self.host
        if not host.lock.acquire(timeout=0.02):
            return
        try:
            s = host.session
            v = host.version
            now = time.monotonic()
            status = status_of(s)
            running = RUN_MODES.get(host.running or "")
            if running and host.queued_steps:
                running += f" (+{host.queued_steps} queued)"
            key = (v, running, host.settings.delay, host.settings.autosave_every)
            if force or key != self._status_key:
                self.query_one(StatusBar).show(status, running, host.settings.delay,
                                               host.settings.autosave_every)
                self._status_key = key
            if force or v != self._drawn:
                self.query_one(PosteriorTable).show(posterior_rows(s))
                self.query_one(EpisodeLog).show(s.history)
                self.query_one(ReflectionPanel).show(s.reflections, s.insight, proposal_notes(s).get(
                    len(s.reflections) - 1, []), s.reflector.outlook(s.t) if s.reflector is not None else "")
                self.query_one(MemoryPanel).set_counts(s.memory.counts(), s.memory.cap_per_tier)
                if self.has_class("-variants"):
                    self.query_one(PlannerPanel).show(planner_view(s))
                    self.query_one(ToolPanel).show(tool_rows(s))
                self._drawn = v
            plots = force or (v != self._plots_drawn and now - self._plots_at >= PLOT_EVERY)
            memory = force or (v != self._memory_drawn and now - self._memory_at >= MEMORY_EVERY)
            if force:
                self._draw_slow(True, True)
            elif (plots or memory) and not self._slow_pending:
                # a timer, not call_after_refresh: the frame with the new numbers (due within
                # one screen update, 1/60 s) goes out before the plots are rebuilt and rendered
                self._slow_pending = True
                self.set_timer(SLOW_AFTER, partial(self._draw_slow_later, plots, memory))
        finally:
            host.lock.release()

    def _draw_slow_later(self, plots: bool, memory: bool) -> None:
        self._slow_pending = False
        if self.host.lock.acquire(timeout=0.02):  # else the next tick tries again
            try:
                self._draw_slow(plots, memory)
            finally:
                self.host.lock.release()

    def _draw_slow(self, plots: bool, memory: bool) -> None:
        """The plots and the memory table (call with the lock held). A plot with no
        size yet (before the first layout, or on a hidden page) is left for later."""
        s, v, now = self.host.session, self.host.version, time.monotonic()
        if plots:
            density, progress = self.query_one(DensityPlot), self.query_one(ProgressChart)
            if density.size.width > 0:
                density.show(posterior_rows(s), s.frozen)
            if progress.size.width > 0:
                progress.show(progress_data(s))
            if density.size.width > 0 or progress.size.width > 0:
                self._plots_drawn, self._plots_at = v, now
        if memory:
            self._show_memory()
            self._memory_drawn, self._memory_at = v, now

    def _show_memory(self) -> None:
        panel = self.query_one(MemoryPanel)
        panel.set_method(method_label(self.host.session))
        if panel.tier == "method":  # a prior method's own memory (its memory_view)
            panel.show_method(method_tables(self.host.session))
            return
        panel.show_method(None)
        panel.show_rows(memory_rows(self.host.session, panel.tier, panel.needle))

    def on_episode_log_open(self, event: EpisodeLog.Open) -> None:
        self.app.push_screen(EpisodeScreen(event.record))

    def on_memory_panel_need_rows(self, event: MemoryPanel.NeedRows) -> None:
        with self.host.lock:
            self._show_memory()

    def on_memory_panel_entry_highlighted(self, event: MemoryPanel.EntryHighlighted) -> None:
        with self.host.lock:
            entry = memory_entry(self.host.session, event.tier, event.entry_id)
        self.query_one(MemoryPanel).show_entry(entry)

    # --------------------------------------------------------------- running
    def action_run_each_reflection(self) -> None:
        self._start("each_reflection")

    def action_step(self) -> None:
        if self.host.running == "step":
            self.host.queue_step()  # the step in progress runs one more episode
            self.redraw()
            return
        self._start("step")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """False hides a key from the footer (and turns it off): the run keys while a run
        goes, pause while none does, decide with nothing pending, panels on a big screen."""
        running = self.host.running is not None
        if action == "step" and self.host.running == "step":
            return True  # queued: every press counts
        if action in RUN_ACTIONS:
            return not running
        if action == "pause":
            return running
        if action == "decide":
            return self._decision_waits()
        if action == "next_panels":
            return self.compact
        return True

    def _bindings_changed(self, running: bool) -> None:
        self._sync_bindings(running)

    def _sync_bindings(self, running: bool) -> None:
        """Refresh the footer only when what it shows changes (a refresh re-lays the screen)."""
        state = (running, self._decision_waits())
        if state != self._bindings_state:
            self._bindings_state = state
            self.refresh_bindings()

    def on_lab_screen_run_stopped(self, message: RunStopped) -> None:
        o = message.outcome
        self.host.running = None
        for e in o.events:
            if isinstance(e, ev.CodeArmSuspended):
                self.notify(f"Its arm is no longer sampled: {e.reason}", severity="warning", timeout=10,
                            title=f"Code policy {e.arm!r} suspended")
        self._sync_bindings(False)
        self.redraw(force=o.mode != "step")  # one step: its numbers now, the plots right after
        if o.reason == "refused":
            self.notify(o.message, severity="error")
        elif o.reason == "finished":
            if self.host.tour is not None and self.host.tour.cards:
                self._show_card()
            else:
                self.action_results()  # the end of the last phase: this run beside the baselines
            self.notify(f"The run is finished ({self.host.session.n_episodes} episodes).{self._passed(o)}",
                        title="Finished")
        elif o.reason == "reached" and o.mode == "phase":
            self.action_results()  # the end of a phase
        elif o.reason == "reflected":
            with self.host.lock:
                reflections = self.host.session.reflections
                n, diagnosis = len(reflections), reflections[-1].diagnosis if reflections else ""
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
            if self.host.tour is not None and self.host.tour.cards:
                self._show_card()  # the card first; t on it opens the decision
            elif self.host.session.queue.mode == "manual" and self.host.session.queue.pending:
                self.action_decide()
            else:
                self.notify(o.message, severity="warning")

    def _passed(self, o: RunOutcome) -> str:
        if not o.silent:
            return ""
        each = self.app.key_for("lab.each_reflection")
        return (f" Passed {o.silent} silent reflection{'s' if o.silent != 1 else ''} on the way "
                f"({each} stops at each; R lists them).")

    # ------------------------------------------------------------- decisions
    def action_decide(self) -> None:
        if any(isinstance(screen, (ApprovalScreen, CodeReviewScreen)) for screen in self.app.screen_stack):
            return
        with self.host.lock:
            quarantined = dict(self.host.session.code_arms.quarantined)
            name = next(iter(quarantined), None)
            spec = self.host.session.pool.get(name) if name else None
            if name and spec is None:   # a method's code (HyperAgent's allocator), not an arm
                from engine.proposers import owned_code

                planner = name.startswith("planner ")
                spec = MethodCode(name, owned_code(self.host.session).get(name, ""),
                                  ("A planner a model wrote" if planner else "HyperAgent's approved allocation code")
                                  + ": it runs only in the sandboxed worker.",
                                  what="Planner code" if planner else "Allocation code")
        if spec is not None:
            self.app.push_screen(CodeReviewScreen(spec, quarantined[name], len(quarantined)),
                                 partial(self._reviewed, name))
            return
        with self.host.lock:
            s = self.host.session
            pending = s.queue.pending
            if not pending:
                self.notify("Nothing is waiting for a decision.")
                return
            p = pending[0]
            reflection = s.reflections[p.reflection] if 0 <= p.reflection < len(s.reflections) else None
            ctx = ProposalContext(p, reflection, window_stats(s, p), len(pending), evidence_episodes(s, p.evidence),
                                  note=self._run_note, pending=list(pending),
                                  retrieval_arms=s.scenario.spec.retrieval_arms)
        self._run_note = ""
        self.app.clear_notifications()  # nothing covers what is being decided
        self.app.push_screen(ApprovalScreen(ctx, partial(self._validate, p)), partial(self._decided, p.id))

    def _validate(self, proposal, edited: dict[str, Any]) -> dict[str, Any]:
        with self.host.lock:
            return self.host.session.validate_edit(proposal, edited)

    def _decided(self, pid: int, decision: Decision | None) -> None:
        if decision is None:
            self.notify(f"Proposal #{pid} stays pending; stepping waits for a decision "
                        f"({self.app.key_for('lab.decide')} opens it).",
                        severity="warning", title="Later")
            return
        if decision.action == "batch" and decision.batch is not None:
            self._decided_batch(decision.batch)
            return
        try:
            if decision.action == "always":
                self.host.decide(pid, "approve", reason=decision.reason, standing=True)
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
        # what the engine recorded: an edit that changed nothing is an approval
        action = "approve" if decision.action == "edit" and self.host.session.queue.get(pid).status == "approved" \
            else decision.action
        self.notify(f"Proposal #{pid} {PAST[action]}.", title="Decided")
        if self.host.session.queue.pending:
            self.call_after_refresh(self.action_decide)
        elif self.host.tour is not None and self.host.tour.cards:
            self.call_after_refresh(self._show_card)

    def _reviewed(self, name: str, decision: str | None) -> None:
        if decision is None:
            self.notify(f"Code policy {name!r} stays quarantined; stepping waits "
                        f"({self.app.key_for('lab.decide')} opens it again).",
                        severity="warning", title="Later")
            return
        try:
            self.host.review_code(name, decision)
        except AELError as err:
            self.notify(str(err), severity="error", title=f"Code policy {name!r}")
            return
        finally:
            self._sync_bindings(False)
            self.redraw(force=True)
        done = "admitted: it runs sandboxed" if decision == "admit" else "rejected: its arm is never sampled"
        self.notify(f"Code policy {name!r} {done}.", title="Reviewed")
        if self._decision_waits():
            self.call_after_refresh(self.action_decide)

    def _decided_batch(self, batch: BatchDecision) -> None:
        """Each ticked proposal in turn; one refused (an invalid arm) is said and stays pending."""
        done: list[int] = []
        for pid in batch.ids:
            try:
                self.host.decide(pid, batch.action, reason=batch.reason)
                done.append(pid)
            except AELError as err:
                self.notify(str(err), severity="error", title=f"Proposal #{pid}")
        self._sync_bindings(False)
        self.redraw(force=True)
        if done:
            self.notify(f"{len(done)} proposal(s) {PAST[batch.action]}: " + ", ".join(f"#{i}" for i in done),
                        title="Decided")
        if self.host.session.queue.pending:
            self.call_after_refresh(self.action_decide)
        elif self.host.tour is not None and self.host.tour.cards:
            self.call_after_refresh(self._show_card)

    def action_audit(self) -> None:
        with self.host.lock:
            audit = list(self.host.session.queue.audit)
        self.app.push_screen(AuditScreen(audit, show_times=self.app.show_times))

    def action_results(self) -> None:
        if self.host.running:
            self.notify("Results are computed when the run is paused (p).", severity="warning")
            return
        if self.host.session.t == 0:
            self.notify("No episode yet: nothing to compare.", severity="warning")
            return
        self.notify("Running the baselines on this world and seed…", timeout=2)
        self._compute_results()

    @work(thread=True, exclusive=True, group="results", exit_on_error=False)
    def _compute_results(self) -> None:
        from ael_tui.lab.results_table import compute_results
        try:
            with self.host.lock:
                table = compute_results(self.host.session)
        except AELError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", title="No results")
            return
        self.app.call_from_thread(self._show_results, table)

    def _show_results(self, table) -> None:
        if not any(isinstance(s, ResultsScreen) for s in self.app.screen_stack):
            self.app.push_screen(ResultsScreen(table))

    def action_rules(self) -> None:
        with self.host.lock:
            rules = list(self.host.session.queue.rules)

        def chosen(kind: str | None) -> None:
            if kind is None:
                return
            self.host.revoke_rule(kind)
            self.redraw(force=True)
            self.notify(f"Standing rule revoked: {kind} proposals now wait for a person.", title="Rules")

        self.app.push_screen(RulesScreen(rules, show_times=self.app.show_times), chosen)

    def action_reflections(self) -> None:
        with self.host.lock:
            s = self.host.session
            reflections, notes = list(s.reflections), proposal_notes(s)
        self.app.push_screen(ReflectionsScreen(reflections, notes))

    # ---------------------------------------------------------------- memory
    def action_focus_filter(self) -> None:
        if self.compact:
            self.show_page("memory")
        self.query_one(MemoryPanel).focus_filter()

    def action_next_tier(self) -> None:
        if self.compact and self.page != "memory":
            self.show_page("memory")
            self.call_after_refresh(self.redraw, True)
            return
        self.query_one(MemoryPanel).next_tier()

    # ------------------------------------------------------------------ tour
    def action_tour(self) -> None:
        """Show the next noticed moment, else decide what is pending, else run to the next moment."""
        host = self.host
        if host.tour is None:
            with host.lock:
                host.tour = TourGuide(host.session, key_for=self.app.key_for)
        tour = host.tour
        if tour.cards:
            self._show_card()
            return
        if host.session.queue.pending:
            self.action_decide()
            return
        if tour.finished or not tour.remaining:
            host.tour = None
            self.notify(f"That was every moment of the tour; {self.app.key_for('lab.tour')} starts it again "
                        "from here.", title="Tour over")
            return
        if host.session.done:
            self.notify("The run is finished: no moment left to run to.", title="Tour")
            return
        self._start("tour")

    def _show_card(self) -> None:
        tour = self.host.tour
        if tour is None or any(isinstance(s, TourCardScreen) for s in self.app.screen_stack):
            return
        card = tour.next_card()
        if card is None:
            return
        if self.compact:
            self.show_page(card.panel)
        self.redraw(force=True)
        remaining = len(tour.remaining) + len(tour.cards)
        number = tour.shown  # cards shown so far, this one included: moments come in any order

        def closed(answer: str | None) -> None:
            if answer == "next":
                self.action_tour()

        self.app.push_screen(TourCardScreen(card, number, remaining), closed)

    # --------------------------------------------------------------- compare
    def action_compare(self) -> None:
        self.host.pause()
        with self.host.lock:
            config = self.host.session.config
        available = selectors_of(config.scenario)
        previous = self._compare
        same_world = previous is not None and previous.lead.config.seed == config.seed and \
            previous.lead.config.scenario == config.scenario
        chosen = previous.names if same_world else default_selectors(available)
        note = "They run offline: this session's LLM settings are not used." if config.llm else ""

        def picked(selectors: list[str] | None) -> None:
            if not selectors:
                return
            if same_world and previous is not None and selectors == previous.names:
                self.app.push_screen(CompareScreen(previous))
                return
            self.notify(f"Building {', '.join(selectors)} on {config.scenario}, seed {config.seed}…", timeout=2)
            self._build_compare(config, selectors)

        self.app.push_screen(CompareSetupScreen(config.scenario, config.seed, available, chosen, note=note), picked)

    @work(thread=True, exclusive=True, group="compare-build", exit_on_error=False)
    def _build_compare(self, config, selectors: list[str]) -> None:
        try:
            host = CompareHost(build_compare(config, selectors), self.host.settings)
        except AELError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", title="Cannot compare")
            return
        self.app.call_from_thread(self.open_compare, host)

    def open_compare(self, host: CompareHost) -> None:
        self._compare = host
        self.app.push_screen(CompareScreen(host))

    # ---------------------------------------------------------------- export
    def screenshot_name(self) -> str:
        return f"lab-{self.host.session_name()}-e{self.host.session.t}"

    def action_export(self) -> None:
        exports = self.host.settings.exports_dir
        default = exports / f"{self.host.session_name()}-e{self.host.session.t}-history"
        self.app.push_screen(
            PromptScreen("Export the history as", value=str(default), placeholder=f"{exports}/name", ok="Export",
                         hint=f"Writes NAME.csv (one row per episode) and NAME.json (with reflections, new arms "
                              f"and decisions); the folder must exist ({exports}/ is created).",
                         input_id="export-path"),
            self._export_to)

    def _exported_sessions(self) -> dict:
        return {self.host.session.config.selector: self.host.session}

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
        try:
            path = self.host.settings.place(Path(text.strip()).expanduser(), "save")
        except AELError as err:  # before `exists`: a served lab tells nothing about other folders
            self.notify(str(err), severity="error", title="Not saved")
            return
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
