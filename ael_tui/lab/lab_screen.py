"""The lab screen: every panel of a running session, the keys that drive it, and the
routing between the objects that own the lab's concerns.

Each concern is one object with its state, its logic and a public interface, composed
here as a widget that draws nothing: the runs (`LabRuns`, lab_runs.py), the decisions
(`Decisions`, lab_decisions.py), the records (`Records`, lab_records.py), the guided tour
(`Tour`, lab_tour.py), and files, compare and settings (`Files`, lab_files.py). They
talk to the screen by messages (`RunControls.Stepped`, `RunControls.Stopped`,
`Decisions.Decided`, `Tour.CardDue`, ...), and the screen routes each to the panels or
to the object it concerns; no object calls another's. The screen keeps the `BINDINGS`
(from actions.py: Textual looks a key up only in the focused widget and its ancestors,
so keys of an unfocused object would not fire from anywhere on the screen), and each
action hands over to its object in one line; a key that matters only on a focused panel
is that panel's own binding (the episode log's / and Enter, a chart's S and k).

The panels, core and extension alike, are entries of the panel registry (panels.py):
the screen composes each in its row, titles it and gives it its part of every view.

Engine work runs in one thread worker of `LabRuns` through the session host; this screen
never steps the session itself. After every step of a longer run the host's `on_step`
posts `Stepped` (a newer one replaces one still queued); the screen then takes a
`LabView` of the session under the host's lock into its reactive `view`, and
`watch_view` gives each panel its part. The cheap panels update at once; the
charts, the density plot and the memory table at most every PLOT_EVERY seconds
(`Throttle`), each only when its data changed. No timer polls the session.

Below 120 columns or 42 rows the screen takes the class `-compact` and shows one group
of panels at a time (bandit, progress, memory, episodes), chosen with the tabs or v;
lab.tcss does the layout.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.geometry import Size
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Tab, Tabs

from ael_tui.actions import SaysWhy, bindings_for, hands_over
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.lab.lab_decisions import Decisions
from ael_tui.lab.lab_files import Files
from ael_tui.lab.lab_records import Records
from ael_tui.lab.lab_runs import LabRuns
from ael_tui.lab.lab_tour import Tour
from ael_tui.lab.lab_view import LabView, take_view, variant_panels
from ael_tui.lab.posteriors import DensityPlot
from ael_tui.lab.progress_chart import ProgressChart, ProgressPanel
from ael_tui.lab.episode_inputs import InputTexts
from ael_tui.lab.records import inspect_episode
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.status_bar import StatusBar
from ael_tui.lab.time_travel_keys import TimeTravelKeys
from ael_tui.lab.panels import PANELS, PLOT_EVERY, ROWS, LabPanel, in_row
from ael_tui.memory.memory_panel import MemoryPanel
from ael_tui.memory.method_memory import method_label, method_tables
from ael_tui.widgets.parts import Parts
from ael_tui.widgets.readouts import memory_entry, memory_rows
from ael_tui.widgets.run_controls import RunControls
from ael_tui.widgets.steady_footer import SteadyFooter
from ael_tui.widgets.shared_heap import settle_heap_soon
from ael_tui.widgets.throttle import Throttle

LOCK_WAIT = 0.02        # a redraw waits this long for the engine's lock, else the step holding it
                        # posts `Stepped` when it ends and the redraw happens then
PAGES = ("bandit", "progress", "memory", "episodes")
PAGE_FOCUS = {"bandit": "#row-bandit", "progress": "#progress", "memory": "#memory", "episodes": "#log"}
COMPACT_BELOW = (120, 42)  # columns, rows: below either, one group of panels at a time


def _boxed(p: LabPanel) -> ComposeResult:
    """A panel in its box (`#NAME-box`), or alone when the widget is its own box."""
    if not p.box:
        yield p.build()
        return
    box = ScrollableContainer if p.scrolls_sideways else Vertical if p.box == "column" else VerticalScroll
    with box(id=f"{p.name}-box", classes="panel"):
        yield p.build()


def _breakpoint(dimension: int, breakpoints: list[tuple[int, str]]) -> str | None:
    """The class Textual's screen gives `dimension` (the highest breakpoint it reaches)."""
    for at, name in sorted(breakpoints, reverse=True):
        if dimension >= at:
            return name
    return None


class LabScreen(SaysWhy, Screen):
    ACTION_SCOPE = "lab"
    BINDINGS = bindings_for("lab")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    # -snug: 42-47 rows, what a browser of 1400x900 gives a served lab (about 150x43): the
    # bandit row gives up two rows so the progress chart keeps the 12 it has at 160x48
    VERTICAL_BREAKPOINTS = [(0, "-short"), (42, "-snug"), (48, "-tall")]

    # repaint=False: a reactive on a screen repaints the whole screen by default (a full redraw
    # per step); each panel repaints itself when its part changes
    view: reactive[LabView | None] = reactive(None, init=False, always_update=True, repaint=False)

    # the keys, each handed over to the object that owns what it does
    action_step = hands_over("runs", "step")
    action_run_window = hands_over("runs", "start", "window")
    action_run_reflection = hands_over("runs", "start", "reflection")
    action_run_each_reflection = hands_over("runs", "start", "each_reflection")
    action_run_phase = hands_over("runs", "start", "phase")
    action_pause = hands_over("runs", "pause")
    action_faster = hands_over("runs", "faster")
    action_slower = hands_over("runs", "slower")
    action_tour = hands_over("tour", "advance")
    action_decide = hands_over("decisions", "open")
    action_rules = hands_over("decisions", "rules")
    action_audit = hands_over("records", "audit")
    action_results = hands_over("records", "results")
    action_reflections = hands_over("records", "reflections")
    action_compare = hands_over("files", "compare")
    action_export = hands_over("files", "export")
    action_save = hands_over("files", "save")
    action_load = hands_over("files", "load")
    action_new_session = hands_over("files", "new_session")
    action_settings = hands_over("files", "open_settings")
    action_rewind = hands_over("travel", "ask_rewind")
    action_undo = hands_over("travel", "undo")
    action_branches = hands_over("travel", "compare_branches")

    def __init__(self, host: SessionHost) -> None:
        super().__init__()
        self.host = host
        self.page = PAGES[0]
        self._memory = Throttle(self.set_timer, PLOT_EVERY, self._show_memory, host.settings.clock)
        every = host.settings.frame_every  # a run's views at a reader's pace (a served lab), else each step's
        self._frame = Throttle(self.set_timer, every, self.redraw, host.settings.clock) if every > 0 else None
        self.panel = Parts(self)  # the panels, looked up once: every step gives each its part
        self._footer_state: tuple[bool, bool] | None = None  # what the footer's keys were built for
        self.runs = LabRuns(host, self.ACTION_SCOPE)
        self.tour = Tour(host)
        self.decisions = Decisions(host)
        self.records = Records(host)
        self.files = Files(host)
        self.travel = TimeTravelKeys(host)
        self._classes_for(self.app.size)

    def _classes_for(self, size: Size) -> None:
        """The classes the first resize would give (Textual's breakpoints, the page, compact), set
        before the screen is styled at all. Each change of a screen's classes restyles all of it,
        and the first resize changed them twice (the breakpoints, then show_page): about a tenth
        of a lab's start. If the terminal has another size by the mount, that resize sets the
        right classes as before (at the price of the restyle)."""
        width, height = size
        if not width or not height:
            return  # no size yet (no terminal): the first resize says it
        classes = {name for name in (_breakpoint(width, self.HORIZONTAL_BREAKPOINTS),
                                     _breakpoint(height, self.VERTICAL_BREAKPOINTS)) if name}
        classes.add(f"-page-{self.page}")
        if width < COMPACT_BELOW[0] or height < COMPACT_BELOW[1]:
            classes.add("-compact")
        self.add_class(*classes, update=False)

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield self.runs
        yield self.tour
        yield self.decisions
        yield self.records
        yield self.files
        yield self.travel
        yield StatusBar(id="status")
        yield Tabs(Tab("Bandit", id="page-bandit"), Tab("Progress", id="page-progress"),
                   Tab("Memory", id="page-memory"), Tab("Episodes", id="page-episodes"), id="lab-pages")
        with VerticalScroll(id="lab-body"):
            for row in ROWS:  # every panel, core and extension (lab/panels.py), in its row
                with Horizontal(id=f"row-{row}", classes="lab-row"):
                    for p in in_row(row):
                        yield from _boxed(p)
        yield SteadyFooter(compact=True)

    def on_mount(self) -> None:
        for p in PANELS.values():
            self.query_one(p.titled).border_title = p.title
        for widget in self.query("Input"):
            widget.cursor_blink = self.app.cursor_blink_enabled
        self._show_variant_panels()
        self.panel(EpisodeLog).inputs = InputTexts(lambda: self.host.session.scenario)  # the filter's text:
        self.redraw(force=True)
        # after the first frame: computing it holds the interpreter and would delay that frame
        self.call_after_refresh(self._prepare)
        if self.host.settings.tends_heap:
            settle_heap_soon(self)
        reason, quarantined = self.host.read(
            lambda s: (s.blocked_reason if s.queue.pending else None, bool(s.code_arms.quarantined)))
        if reason:
            self.notify(f"{reason} (press {self.app.key_for('lab.decide')})", severity="warning",
                        title="Decision pending")
        if quarantined:
            self.call_after_refresh(self.decisions.open)  # code from a file: a person looks before anything runs

    def _show_variant_panels(self) -> None:
        """The variants' row, and in it the panels of the variants this session runs
        (a session's variants are fixed when it is built)."""
        shown = self.host.read(variant_panels)
        self.set_class(any(shown.values()), "-variants")
        for name, on in shown.items():
            self.query_one(f"#{name}-box").display = on

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
        changed = compact != self.has_class("-compact")
        self.show_page(self.page, compact=compact)
        if changed:
            self.refresh_bindings()
        self.call_after_refresh(self.redraw, True)

    # ----------------------------------------------------------- pages
    @property
    def compact(self) -> bool:
        return self.has_class("-compact")

    def show_page(self, page: str, compact: bool | None = None) -> None:
        """Which group of panels a compact screen shows (the others keep their state), and
        whether the screen is compact when `compact` is given. One change of the screen's
        classes: each change restyles every widget of the screen (a class at a time, the
        start-up's resize and page were a sixth of a lab's start)."""
        self.page = page
        classes = {f"-page-{p}": p == page for p in PAGES}
        if compact is not None:
            classes["-compact"] = compact
        self.update_classes(classes)
        tabs = self.query_one("#lab-pages", Tabs)
        if tabs.active != f"page-{page}":
            tabs.active = f"page-{page}"

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        if event.tabs.id == "lab-pages" and event.tab is not None and event.tab.id:
            page = event.tab.id.removeprefix("page-")
            if page != self.page:
                self.show_page(page)
                self.call_after_refresh(self.redraw, True)

    def action_next_panels(self) -> None:
        self.show_page(PAGES[(PAGES.index(self.page) + 1) % len(PAGES)])
        self.call_after_refresh(self.redraw, True)
        self.call_after_refresh(self._focus_page)

    def _focus_page(self) -> None:
        """The page `v` showed has the focus, so its own keys work at once (Enter on the
        episodes page opens the highlighted episode; k on the progress page)."""
        target = self.query_one(PAGE_FOCUS[self.page])
        for widget in (target, *target.query("*")):
            if widget.focusable:
                widget.focus()
                return

    # k and S with no chart focused (a focused chart takes them itself)
    def action_chart_kind(self) -> None:
        chart = self._progress_chart_in_view()
        chart.action_chart_kind()
        self.notify(f"The progress chart now shows {chart.kind_label()} (k again for the next; Tab to a chart "
                    "and k switches that one).", title="Chart", timeout=4)

    def action_export_chart(self) -> None:
        chart = self._progress_chart_in_view()
        chart.action_export_chart()

    def _progress_chart_in_view(self) -> ProgressChart:
        """The progress chart, its page shown first on a small screen."""
        if self.compact and self.page != "progress":
            self.show_page("progress")
            self.call_after_refresh(self.redraw, True)
        return self.query_one(ProgressChart)

    # --------------------------------------------------------------- redraws
    def on_run_controls_stepped(self, message: RunControls.Stepped) -> None:
        self.show_notices()
        if self._frame is not None and self.host.running:
            self._frame()  # at most one view per frame_every; the run's end is drawn whole (on_run_controls_stopped)
        else:
            self.redraw()

    def show_notices(self) -> None:
        """What the host could not say itself (an autosave that failed)."""
        while self.host.notices:
            severity, message = self.host.notices.popleft()
            self.notify(message, severity=severity)  # type: ignore[arg-type]

    def redraw(self, force: bool = False) -> None:
        """Take a new `LabView` of the session (skipped if the engine holds the lock past
        LOCK_WAIT: its step posts `Stepped` when done). `force`: the charts and the memory
        table too, at once, whatever their interval (a resize, a decision, a picture)."""
        host = self.host
        if not host.lock.acquire(timeout=LOCK_WAIT):
            return
        try:
            self.view = take_view(host)
        finally:
            host.lock.release()
        if force:
            self._draw_plots(now=True)
            self._memory.now()

    def watch_view(self, old: LabView | None, view: LabView | None) -> None:
        if view is None:
            return
        self.panel(StatusBar).show(view.status, view.running, view.delay, view.autosave_every)
        for p in PANELS.values():
            if p.show is not None:
                p.show(self.panel(p.widget), view)
        for name, data in view.variant_views.items():
            self.panel(PANELS[name].widget).show(data)
        if old is None or old.version != view.version:  # (a run's end, after its last step: the same charts)
            self._draw_plots()
            self._memory()
        if old is None:
            self._footer_state = view.footer_state  # (the footer reads the first view as it composes)
        self._show_footer(view.footer_state)

    def _show_footer(self, state: tuple[bool, bool]) -> None:
        """The footer's keys for `state` (`LabView.footer_state`), rebuilt only if it changed."""
        if state != self._footer_state:
            self._footer_state = state
            self.refresh_bindings()

    def _draw_plots(self, now: bool = False) -> None:
        """The densities and the progress chart of the view (each skips what it shows
        already; one with no size yet, before the first layout or on a hidden page, waits)."""
        view = self.view
        if view is None:
            return
        density, progress = self.panel(DensityPlot), self.panel(ProgressPanel)
        if density.size.width > 0:
            density.show_posteriors(view.arms, view.frozen, now=now)
        if progress.size.width > 0:
            progress.show_progress(view.progress, view.pictures, now=now, travel=view.travel)

    def _show_memory(self) -> None:
        """The memory table (its rows are read from the session, under the lock)."""
        if not self.host.lock.acquire(timeout=LOCK_WAIT):
            return  # the step holding it posts `Stepped` when done, which comes back here
        try:
            panel = self.panel(MemoryPanel)
            panel.set_method(method_label(self.host.session))
            if panel.tier == "method":  # a prior method's own memory (its memory_view)
                panel.show_method(method_tables(self.host.session))
                return
            panel.show_method(None)
            panel.show_rows(memory_rows(self.host.session, panel.tier, panel.needle))
        finally:
            self.host.lock.release()

    def on_episode_log_open(self, event: EpisodeLog.Open) -> None:
        self.app.push_screen(inspect_episode(self.host.read, event.record))

    def on_memory_panel_need_rows(self, event: MemoryPanel.NeedRows) -> None:
        self._memory.now()

    def on_memory_panel_entry_highlighted(self, event: MemoryPanel.EntryHighlighted) -> None:
        entry = self.host.read(lambda s: memory_entry(s, event.tier, event.entry_id))
        self.panel(MemoryPanel).show_entry(entry)

    # ----------------------------------------------------------- time travel
    def on_progress_chart_episode_clicked(self, event: ProgressChart.EpisodeClicked) -> None:
        self.travel.go_to(event.episode)

    def on_time_travel_keys_moved(self, message: TimeTravelKeys.Moved) -> None:
        self.redraw(force=True)
        self.refresh_bindings()  # the branch key comes with an original to compare with

    def on_time_travel_keys_reopened(self, message: TimeTravelKeys.Reopened) -> None:
        self.call_after_refresh(self.decisions.open)

    # ---------------------------------------------------- routing: runs
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """False hides a key from the footer (and disables it): the run keys while a run
        goes, pause while none does, decide with nothing pending, panels on a big screen."""
        if action == "decide":
            return self.view is not None and self.view.decision_waits
        if action == "next_panels":
            return self.compact
        if action == "branches":  # hidden until there is a run to compare the branch with
            return self.host.original is not None
        allowed = self.runs.allows(action)
        return True if allowed is None else allowed

    def why_not(self, action: str, key: str) -> str | None:
        """What a key hidden by `check_action` says when pressed (SaysWhy.on_key)."""
        if action == "decide":
            return "Nothing is waiting for a decision."
        if action == "branches":
            return self.travel.why_no_branch()
        if action == "next_panels":
            return (f"Every panel is in view: {self.app.key_for('lab.panels')} pages through them only on a small "
                    "terminal (below 120 columns or 42 rows).")
        return self.runs.why_not(action, key)

    def on_run_controls_changed(self, message: RunControls.Changed) -> None:
        self.redraw()

    def on_run_controls_run_keys_due(self, message: RunControls.RunKeysDue) -> None:
        self._show_footer((True, self.view is not None and self.view.decision_waits))

    def on_run_controls_failed(self, message: RunControls.Failed) -> None:
        self.redraw(force=True)  # its view refreshes the footer: the run is over

    def on_run_controls_stopped(self, message: RunControls.Stopped) -> None:
        """What opens when a run stops: the tour's card, a decision, the results beside the
        baselines (the runs say the rest)."""
        o = message.outcome  # the host has cleared `running` already
        self.app.refresh_notifications()  # a quiet moment: what waited through the run shows now
        runs = self.runs
        runs.say_suspended(o)
        self.show_notices()
        if o.mode != "step":
            self._footer_state = None  # the view that follows refreshes the footer, whatever else did meanwhile
        self.redraw(force=o.mode != "step")  # one step: its numbers now, the charts on their throttle
        tour_waits = self.tour.has_cards
        if o.reason == "finished":
            if tour_waits:
                self.tour.show_card()
            else:
                self.records.results()  # the end of the last phase: this run beside the baselines
        elif o.reason == "reached" and o.mode == "phase":
            self.records.results()  # the end of a phase
        elif o.reason == "moment":
            self.tour.show_card()
        elif o.reason == "blocked":
            self.decisions.note = runs.passed(o).strip()  # said in the dialog: a notice would cover it
            # (a proposal waits in manual mode, or where a person decided it in the run stepped along again)
            manual_pending = self.host.read(lambda s: bool(s.queue.pending))
            if tour_waits:
                self.tour.show_card()  # the card first; t on it opens the decision
            elif manual_pending:
                self.decisions.open()
            else:
                self.notify(o.message, severity="warning")
        runs.say_stopped(o)

    # ---------------------------------------------------- routing: tour
    def on_tour_card_due(self, message: Tour.CardDue) -> None:
        """The card's panel in view (a compact lab shows one page), then the card over it."""
        if self.compact:
            self.show_page(message.panel)
        self.redraw(force=True)
        self.tour.open_card()

    def on_tour_decision_first(self, message: Tour.DecisionFirst) -> None:
        self.decisions.open()

    def on_tour_run_to_moment(self, message: Tour.RunToMoment) -> None:
        self.runs.start("tour")

    def on_tour_run_asked(self, message: Tour.RunAsked) -> None:
        self.runs.start(message.mode)

    # ------------------------------------------------ routing: decisions
    def on_decisions_decided(self, message: Decisions.Decided) -> None:
        """The panels show the decision; a tour's card that waited for it comes next."""
        self.redraw(force=True)
        if message.settled and self.tour.has_cards:
            self.call_after_refresh(self.tour.show_card)

    # ---------------------------------------------------- routing: files
    def on_files_settings_changed(self, message: Files.SettingsChanged) -> None:
        self.redraw()

    def screenshot_name(self) -> str:
        return self.files.screenshot_name()

    # ---------------------------------------------------------------- memory
    def action_focus_filter(self) -> None:
        if self.compact:
            self.show_page("memory")
        self.panel(MemoryPanel).focus_filter()

    def action_next_tier(self) -> None:
        if self.compact and self.page != "memory":
            self.show_page("memory")
            self.call_after_refresh(self.redraw, True)
            return
        self.panel(MemoryPanel).next_tier()
