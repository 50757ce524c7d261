"""The compare view: one stream, several selectors, stepped together.

Each selector runs its own session on the same scenario and seed, with
approvals automatic; a worker thread steps them in lockstep through the
`CompareHost` (space, w, r, g like the lab; p or Escape pauses). The chart puts
every selector's rolling curve on one set of axes with the regime boundaries
and each selector's new arms; below it, each selector's posteriors as interval
bars; beside it, a timeline of what happened, so a class can see what
reflection changes, and when.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen

from ael_tui.actions import SaysWhy, bindings_for, hands_over
from ael_tui.compare.lockstep import CompareHost
from ael_tui.widgets.readouts import compare_status, posterior_rows, progress_data, selector_summary
from ael_tui.compare.arm_bars import ArmBars
from ael_tui.widgets.charts.compare_pictures import ComparePictures
from ael_lab.drawing import picture_source
from ael_tui.compare.compare_chart import RICH_COLOURS, CompareChart
from ael_tui.widgets.status_bar import CompareStatusBar
from ael_tui.compare.timeline import Timeline
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.widgets.export_answer import export_answer
from ael_tui.widgets.run_controls import RunControls
from ael_tui.widgets.run_loop import RUN_MODES
from ael_tui.widgets.steady_footer import SteadyFooter

PLOT_EVERY = 0.25


def _fmt(v: float | None, kind: str) -> str:
    if v is None:
        return "—"
    return f"{v:.2f}" if kind != "equity" else f"{v:.3f}×"


def arms_subtitle(s, summary) -> str:
    """Under a selector's bars: the episodes they stand at (a branch and its original may not
    have played as many), its metric, its reflections and the arms it added."""
    parts = [f"{s.t} ep", f"{summary.kind} {_fmt(summary.overall, summary.kind)}"]
    if s.reflector is not None:
        parts.append(f"{summary.reflections} refl")
    if summary.arms_added:
        parts.append("+" + ",".join(summary.arms_added))
    return " · ".join(parts)


class CompareScreen(SaysWhy, Screen):
    ACTION_SCOPE = "compare"
    BINDINGS = bindings_for("compare")
    AUTO_FOCUS = "#compare-timeline"  # not the chart (focusable for S and k): the screen's keys lead the footer

    # the host's version the panels show; repaint=False: a reactive on a screen repaints the
    # whole screen by default (a full redraw per step), and each panel repaints itself
    shown = reactive(-1, init=False, repaint=False)

    # the run keys, handed over to the object that owns running
    action_step = hands_over("runs", "start", "step")
    action_run_window = hands_over("runs", "start", "window")
    action_run_reflection = hands_over("runs", "start", "reflection")
    action_run_phase = hands_over("runs", "start", "phase")
    action_pause = hands_over("runs", "pause")
    action_faster = hands_over("runs", "faster")
    action_slower = hands_over("runs", "slower")

    def __init__(self, host: CompareHost) -> None:
        super().__init__()
        self.host = host
        self.colours = {name: RICH_COLOURS[i % len(RICH_COLOURS)] for i, name in enumerate(host.names)}
        self._drawn = -1           # the host's version the arm bars and timeline show
        self._status_key = None
        self.runs = RunControls(host, self.ACTION_SCOPE)  # the run keys: start, pause, speed

    def compose(self) -> ComposeResult:
        yield self.runs
        yield CompareStatusBar(id="compare-status")
        with Horizontal(id="compare-top"):
            yield CompareChart(PLOT_EVERY, id="compare-chart", classes="panel")
            yield Timeline(self.colours, id="compare-timeline", classes="panel")
        yield ComparePictures(id="compare-pictures", classes="panel")
        with Horizontal(id="compare-arms"):
            for i, name in enumerate(self.host.names):
                yield ArmBars(id=f"arms-{i}", classes="panel arm-bars")
        yield SteadyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#compare-chart").border_title = "Progress, every selector"
        self.query_one("#compare-timeline").border_title = "What happened"
        for i, name in enumerate(self.host.names):
            box = self.query_one(f"#arms-{i}")
            box.border_title = f"[{self.colours[name]}]■[/] {name}"
        self.redraw(force=True)

    def on_unmount(self) -> None:
        self.host.pause()

    def on_screen_suspend(self) -> None:
        self.host.pause()  # back in the lab: a comparison never runs unseen

    def on_screen_resume(self) -> None:
        self.runs.listen()

    def on_resize(self) -> None:
        self.set_class(self.size.height < 42 or self.size.width < 120, "-compact")
        self.refresh_bindings()  # i (pictures) is a small screen's key
        self.call_after_refresh(self.redraw, True)

    # ------------------------------------------------------------ redraw
    def on_run_controls_stepped(self, message: RunControls.Stepped) -> None:
        self.shown = self.host.version

    def watch_shown(self) -> None:
        self.redraw()

    def redraw(self, force: bool = False) -> None:
        """Bring the panels up to the host's version (skipped if the engine holds the lock:
        the step holding it posts `Stepped` when done). The chart throttles itself
        (`LineChart`); `force` draws it at once."""
        host = self.host
        if not host.lock.acquire(timeout=0.02):
            return
        try:
            v = host.version
            key = (v, host.running, host.settings.delay)
            if force or key != self._status_key:
                self.query_one(CompareStatusBar).show_compare(compare_status(host.sessions), len(host.sessions),
                                                              RUN_MODES.get(host.running or ""), host.settings.delay)
                self._status_key = key
            if not (force or v != self._drawn):
                return
            data = {name: progress_data(s) for name, s in host.sessions.items()}
            pictures = [picture_source(s, list(s.history), name) for name, s in host.sessions.items()]
            self.query_one(ComparePictures).show(pictures, self.colours, now=force)
            for i, (name, s) in enumerate(host.sessions.items()):
                box = self.query_one(f"#arms-{i}", ArmBars)
                box.show(posterior_rows(s))
                subtitle = arms_subtitle(s, selector_summary(name, s, data[name]))
                if box.border_subtitle != subtitle:
                    box.border_subtitle = subtitle
            self.query_one(Timeline).show(host.timeline)
            chart = self.query_one(CompareChart)
            if chart.size.width > 0:  # before the first layout it has no size: the resize draws it
                chart.show_curves(list(data.items()), pictures, now=force)
            self._drawn = v
        finally:
            host.lock.release()

    # ----------------------------------------------------------- running
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """False hides the key (and turns it off): the run keys or pause, not both."""
        if action == "pictures":
            return self.has_class("-compact")  # a large screen shows the pictures and the posteriors
        allowed = self.runs.allows(action)
        return True if allowed is None else allowed

    def why_not(self, action: str, key: str) -> str | None:
        """What a key hidden by `check_action` says when pressed (SaysWhy.on_key)."""
        return self.runs.why_not(action, key)

    def on_run_controls_changed(self, message: RunControls.Changed) -> None:
        self.redraw()

    def on_run_controls_run_keys_due(self, message: RunControls.RunKeysDue) -> None:
        self.refresh_bindings()

    def on_run_controls_failed(self, message: RunControls.Failed) -> None:
        self.refresh_bindings()
        self.redraw(force=True)

    def on_run_controls_stopped(self, message: RunControls.Stopped) -> None:
        o = message.outcome  # the host has cleared `running` already
        was = o.mode
        if was != "step":
            self.refresh_bindings()
        self.redraw(force=True)
        if o.reason == "refused":
            self.notify(o.message, severity="error")
        elif o.reason == "finished":
            self.notify("Every selector has finished the stream.", title="Finished")
        elif o.reason == "reflected":
            with self.host.lock:
                last = self.host.t - 1
                who = [e.selector for e in self.host.timeline if e.kind == "reflection" and e.episode == last]
                arms = [e.text for e in self.host.timeline if e.kind == "arm" and e.episode == last]
            said = f"{' and '.join(str(w) for w in who)} reflected at episode {last}" + (
                f"; {arms[0]}" if arms else "") + ". The timeline has the diagnosis."
            self.notify(said, title="Reflection", timeout=5)

    def action_pictures(self) -> None:
        """A small screen: the pictures row in place of the posterior bars, or back."""
        self.toggle_class("-pictures")

    def action_close(self) -> None:
        self.host.pause()
        self.app.pop_screen()

    # ------------------------------------------------------------ export
    def _export_name(self) -> str:
        with self.host.lock:  # the sessions' episode, read as the engine's thread leaves it
            c, t = self.host.lead.config, self.host.t
        return f"compare-{c.scenario}-s{c.seed}-e{t}"

    def default_export_base(self) -> Path:
        return self.host.settings.exports_dir / self._export_name()

    def screenshot_name(self) -> str:
        return self._export_name()

    def action_export(self) -> None:
        self.host.pause()
        self.app.push_screen(
            PromptScreen("Export every selector's history as", value=str(self.default_export_base()),
                         placeholder="exports/name", ok="Export", input_id="export-path", required="a path",
                         hint="Writes NAME.csv (one row per episode and selector) and NAME.json; "
                              f"the folder must exist ({self.host.settings.exports_dir}/ is created)."),
            partial(export_answer, self, self.host, lambda: self.host.sessions))
