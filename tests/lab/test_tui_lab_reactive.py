"""The lab's panels follow the engine through messages and reactive state (issue 12 item 4):
no timer polls the session, the host alone owns `running`, and the pieces that make a
step cheap (one braille chart, a throttle, a footer that rebuilds only on change)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ael_tui.clock import Clock
from ael_tui.config import LabSettings
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.status_bar import StatusBar
from ael_tui.widgets.line_chart import Axis, Chart, Series, draw, quarters
from ael_tui.memory.memory_panel import EntryDetail
from ael_tui.widgets.throttle import Throttle
from tests.tui_helpers import FakeClock, count_rebuilds, frozen_lab, make_app, settle, synthetic  # noqa: F401


# ---------------------------------------------------------------- the host owns `running`
def test_the_run_loop_clears_running_itself_whatever_ends_the_run():
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0))
    assert host.begin("window") is None and host.running == "window"
    assert host.begin("step") == "already running one slow window"
    host.run("window")
    assert host.running is None  # no interface needed to clear it

    host.session.step = lambda: (_ for _ in ()).throw(RuntimeError("an engine bug"))
    assert host.begin("step") is None
    with pytest.raises(RuntimeError):
        host.run("step")
    assert host.running is None


def test_a_press_queues_only_into_a_step_run_that_is_going():
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0))
    assert not host.queue_step()  # no run: the press starts one instead
    assert host.begin("step") is None
    assert host.queue_step() and host.queue_step()
    outcome = host.run("step")
    assert (outcome.steps, host.session.t, host.running, host.queued_steps) == (3, 3, None, 0)
    assert not host.queue_step()  # over: a later press starts a new run


def test_a_run_that_ended_does_not_clear_the_next_runs_claim():
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0))
    host.begin("step")
    first = host._run_id
    host.running = None  # as the loop does when its last queued step is taken
    assert host.begin("step") is None
    host._end_run(first)  # the first run's worker ends after the second run was claimed
    assert host.running == "step"


# ------------------------------------------------------------------- messages, no polling
async def test_the_lab_runs_no_polling_timer_and_panels_follow_a_stepping_thread():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LabScreen)
        polling = [t for t in screen._timers if t._repeat is None and t.name != "screen_update"]  # (Textual's frames)
        assert not polling, "a repeating timer polls the session"
        host = screen.host
        assert host.begin("window") is None
        worker = threading.Thread(target=host.run, args=("window",))  # the engine, off the UI thread
        worker.start()
        worker.join(10)
        await settle(pilot)
        assert host.session.t == 13
        assert "episode 13/" in str(screen.query_one(StatusBar).render())
        assert screen.query_one(EpisodeLog).row_count == 13
        assert screen.view is not None and screen.view.version == host.version


async def test_a_view_is_skipped_while_the_engine_holds_the_lock_and_taken_when_it_posts():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen, host = app.screen, app.screen.host
        shown = screen.view
        holding, done = threading.Event(), threading.Event()

        def episode():  # the engine's thread, in the middle of an episode
            with host.lock:
                host.session.step()
                host.version += 1
                holding.set()
                done.wait(5)

        engine = threading.Thread(target=episode)
        engine.start()
        assert holding.wait(5)
        screen.redraw()
        assert screen.view is shown  # it did not wait for the episode
        done.set()
        engine.join(5)
        host.on_step()  # what the loop does once the lock is released
        await settle(pilot)
        assert screen.view is not shown and screen.view.status.t == 1


# ------------------------------------------------------------- a step repaints in parts
@pytest.mark.parametrize("size", [(160, 48), (100, 30)])
async def test_a_screen_repainted_line_by_line_is_the_screen_drawn_whole(size):
    """A step repaints only what changed: the status line, the chart lines a curve moved,
    the memory border's counts, the log lines it had not drawn yet. After steps at a
    person's pace, what the screen holds is what a new lab shows of the same session."""
    def support(t):
        s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
        s.run(until=t)
        return s

    clock = FakeClock()
    stepped = make_app(support(30), clock=clock)  # (early: the scrollbars' thumbs move as the lists grow)
    async with stepped.run_test(size=size) as pilot:
        await settle(pilot)
        clock.advance(0.3)
        await settle(pilot)
        for _ in range(4):
            await pilot.press("space")
            await settle(pilot)
            clock.advance(0.3)  # a person's pace: the charts' throttle draws this step too
        await settle(pilot)
        assert stepped.screen.host.session.t == 34
        by_parts = stepped.export_screenshot()

    clock = FakeClock()
    whole = make_app(support(34), clock=clock)
    async with whole.run_test(size=size) as pilot:
        await settle(pilot)
        clock.advance(0.3)
        await settle(pilot)
        drawn_whole = whole.export_screenshot()
    assert by_parts == drawn_whole


# ------------------------------------------------------------------------------ the chart
def _text(lines) -> list[str]:
    return [strip.text for strip in lines]


@pytest.mark.parametrize("height", range(8, 40, 3))
def test_every_y_label_is_drawn_at_every_height(height):
    x = np.arange(300)
    chart = Chart("t", "t", (0, 300), Axis(0.0, 1.0, quarters(0.0, 1.0)),
                  series=[Series(None, x, np.sin(x / 20) ** 2, "cyan")])
    text = "\n".join(_text(draw(chart, 90, height)))
    for label in ("0.00┤", "0.25┤", "0.50┤", "0.75┤", "1.00┤"):
        assert label in text, (height, label)


def test_the_chart_draws_its_marks_names_legend_and_right_axis():
    x = np.arange(200)
    chart = Chart("equity", "equity", (0, 200), Axis(0.9, 1.1, quarters(0.9, 1.1), "{:.3f}"),
                  Axis(-0.2, 0.0, quarters(-0.2, 0.0), "{:.0%}"),
                  series=[Series("equity", x, 1 + 0.05 * np.sin(x / 30), "cyan"),
                          Series("drawdown", x, -0.1 * np.abs(np.sin(x / 30)), "red", right=True)],
                  vlines=[(100, "grey50")], marks=[(50, 1.0, "R", "magenta")],
                  names=[(0, "R0", "grey50"), (100, "R1", "grey50")], names_at_top=False,
                  legend=[("equity", "cyan"), ("drawdown", "red")])
    lines = draw(chart, 80, 16)
    text = "\n".join(_text(lines))
    assert "1.100┤" in text and "0.900┤" in text and "├0%" in text and "├-20%" in text
    assert "━ equity" in text and "━ drawdown" in text and "R0" in text and "R1" in text and "R" in text
    assert "│" in text and "200" in text.splitlines()[-1]
    colours = {seg.style.color.name for strip in lines for seg in strip
               if seg.style and seg.style.color and "\u2800" < seg.text[:1] <= "\u28ff"}
    assert {"cyan", "red"} <= colours


def test_an_equal_chart_is_not_drawn_again():
    x = np.arange(10)
    a = Chart("t", "t", (0, 10), Axis(0.0, 1.0, quarters(0.0, 1.0)), series=[Series(None, x, x / 10, "cyan")])
    b = Chart("t", "t", (0, 10), Axis(0.0, 1.0, quarters(0.0, 1.0)), series=[Series(None, x.copy(), x / 10, "cyan")])
    assert a.same_as(b)
    b.series[0].y[3] = 0.9
    assert not a.same_as(b)


# ---------------------------------------------------------------------------- the throttle
def test_the_throttle_draws_at_once_then_once_at_the_end_of_the_interval():
    clock, drawn = FakeClock(start=100.0), []

    def set_timer(wait, callback):  # the widget's: the clock's timers stand in for it
        raise AssertionError("a lab clock's timer, not the widget's")

    throttle = Throttle(set_timer, 0.25, lambda: drawn.append(clock()), clock)
    throttle()
    assert drawn == [100.0] and not throttle.waiting
    clock.advance(0.125)
    throttle()
    throttle()  # however many calls come meanwhile: one draw when the interval ends
    assert drawn == [100.0] and throttle.waiting and [t.due for t in clock.timers] == [100.25]
    clock.advance(0.0625)
    assert drawn == [100.0] and throttle.waiting
    clock.advance(0.0625)
    assert drawn == [100.0, 100.25] and not throttle.waiting
    throttle.now()  # a forced draw stops nothing that is not waiting, and draws at once
    assert drawn == [100.0, 100.25, 100.25]


def test_the_system_clock_hands_its_timers_to_the_widget():
    timers = []
    timer = Clock().later(lambda wait, callback: timers.append((wait, callback)) or "timer", 0.15, print)
    assert timer == "timer" and timers == [(0.15, print)]


# ------------------------------------------------------------------------------ the footer
async def test_the_footer_rebuilds_only_when_its_keys_change():
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        footer, rebuilt = count_rebuilds(app)
        app.screen.refresh_bindings()  # nothing changed: a focus signal, say
        await settle(pilot)
        assert not rebuilt
        footer.show_command_palette = False  # what a narrow lab does (on_resize), then refreshes
        app.screen.refresh_bindings()
        await settle(pilot)
        assert rebuilt


async def test_a_run_gets_its_keys_in_the_footer_only_once_it_has_gone_on_for_a_moment():
    """A run of a few dozen milliseconds leaves the footer alone (rebuilding it re-lays the
    screen: a flicker, and the run's last frame waited for it); a longer one shows pause
    after RUN_KEYS_AFTER, even while an episode holds the session, and the run keys return
    when it ends."""
    from ael_tui.widgets.run_loop import RUN_KEYS_AFTER

    def keys(app) -> set[str]:
        return {key.action for key in app.screen.query("FooterKey")}

    clock = FakeClock()
    app = make_app(synthetic(approval="auto"), clock=clock)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        rebuilt = count_rebuilds(app)[1]
        idle = keys(app)
        assert "pause" not in idle and "run_window" in idle
        await pilot.press("w")  # one slow window: 13 episodes, over before the clock moves
        await settle(pilot)
        clock.advance(RUN_KEYS_AFTER + 0.1)  # the run keys' timer: the run is over, nothing to show
        await settle(pilot)
        assert app.screen.host.session.t == 13 and not rebuilt and keys(app) == idle

        host = app.screen.host
        holding, release = threading.Event(), threading.Event()
        step = host.session.step

        def slow_step():  # an episode that takes its time (an LLM's), holding the session
            holding.set()
            release.wait(5)
            return step()

        host.session.step = slow_step
        await pilot.press("w")
        assert holding.wait(5)
        clock.advance(RUN_KEYS_AFTER + 0.2)
        await pilot.pause()  # (not settle: the run goes on until `release`)
        await pilot.pause()
        shown = keys(app)
        assert "pause" in shown and "run_window" not in shown  # the engine still holds the lock
        host.session.step = step
        release.set()
        await settle(pilot)
        assert host.running is None and keys(app) == idle


# ---------------------------------------------------------------------- the memory detail
async def test_the_entry_detail_scrolls_itself_and_keeps_its_size():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        detail = app.screen.query_one(EntryDetail)
        size = detail.size
        detail.update("one line")
        await pilot.pause()
        assert detail.virtual_size.height == 1
        detail.update("\n".join(f"line {i}" for i in range(12)))
        await pilot.pause()
        assert detail.size == size and detail.virtual_size.height == 12 and detail.max_scroll_y > 0
        detail.scroll_to(y=detail.max_scroll_y, animate=False, immediate=True)
        await pilot.pause()
        assert "line 11" in "".join(detail.render_line(y).text for y in range(detail.size.height))


# ------------------------------------------------------------ row lists keep their styles
async def test_a_row_list_recolours_its_cursor_when_focus_or_theme_changes():
    """The line styles are worked out once per style change (not per line): focus, which
    gives the cursor its accent, and a new theme must still show."""
    from textual.app import App

    class OneLog(App):
        def compose(self):
            yield EpisodeLog(id="log")

    def cursor_background(log: EpisodeLog):
        return log.render_line(1 + log.cursor - round(log.scroll_offset.y))._segments[0].style.bgcolor

    app = OneLog()
    async with app.run_test(size=(80, 10)) as pilot:
        log = app.query_one(EpisodeLog)
        log.set_rows([{"episode": i, "phase": "train", "policy": "recent", "action": "a", "result": "ok",
                       "reward": 1.0} for i in range(5)])
        await pilot.pause()
        app.set_focus(None)
        await pilot.pause()
        unfocused = cursor_background(log)
        log.focus()
        await pilot.pause()
        focused = cursor_background(log)
        assert focused != unfocused
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        assert cursor_background(log) != focused


async def test_the_status_line_keeps_its_drawn_lines_until_its_text_or_theme_changes():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        status = app.screen.query_one(StatusBar)
        first = status.render_line(0)
        assert status.render_line(0) is first  # kept: nothing changed
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        recoloured = status.render_line(0)
        assert recoloured.text == first.text and list(recoloured) != list(first)
        await pilot.press("space")
        await settle(pilot)
        assert "episode 1/" in status.render_line(0).text


async def test_a_row_lists_scrollbar_repaints_when_its_thumb_moves_and_only_then():
    """A log growing by a row at a time: the bar drawn is always the bar of the current
    length and scroll (followed to the end, or scrolled up and left there), and most rows
    do not move the thumb by a visible eighth of a cell, so most do not repaint it."""
    from textual.app import App
    from textual.geometry import Region
    from textual.scrollbar import ScrollBarRender

    class OneLog(App):
        def compose(self):
            yield EpisodeLog(id="log")

    def record(i):
        return {"episode": i, "phase": "train", "policy": "p", "action": "a", "result": "ok", "reward": 1.0}

    def shown(bar) -> str:  # the bar's lines as the screen holds them (its kept lines unless repainted)
        return "".join(strip.text for strip in bar.render_lines(Region(0, 0, 1, bar.size.height)))

    def due(log) -> str:  # the bar Textual's renderer draws for the list's length and scroll now
        return "".join(s.text for s in ScrollBarRender.render_bar(
            log.size.height, log.virtual_size.height, log.size.height, float(log.scroll_offset.y), 1,
            True).segments)

    app = OneLog()
    async with app.run_test(size=(80, 12)) as pilot:
        log = app.query_one(EpisodeLog)
        rows = [record(i) for i in range(300)]
        log.set_rows(list(rows))
        await pilot.pause()
        bar = log.vertical_scrollbar
        drawn = []
        render = bar.render
        bar.render = lambda: (drawn.append(1), render())[1]
        for moved_up in (False, True):
            if moved_up:
                log.focus()
                for _ in range(3):
                    await pilot.press("pageup")
            drawn.clear()
            for _ in range(40):
                rows.append(record(len(rows)))
                log.set_rows(list(rows))
                await pilot.pause()
                assert shown(bar) == due(log)  # what shows is what is due
            assert len(drawn) < 20  # the thumb moved on a few of the 40 rows only
            assert moved_up or round(log.scroll_offset.y) == log.max_scroll_y
        assert log.cursor < len(rows) - 20  # the scrolled-up view stayed where it was left


# ---------------------------------------------------------------- the heap is the lab's only in its own process
async def test_only_a_lab_that_owns_its_process_freezes_the_garbage_collectors_heap():
    import gc

    from ael_tui.app import AelLab

    async def freeze_count_after_a_lab(tends: bool) -> int:
        app = AelLab(synthetic(approval="auto"), settings=LabSettings(delay=0.0, tends_heap=tends),
                     cursor_blink=False, show_times=False)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
        return gc.get_freeze_count()

    before = gc.get_freeze_count()  # (the suite's conftest froze what collection imported)
    assert await freeze_count_after_a_lab(False) <= before  # nothing more frozen: a test runner's heap is not the lab's
    gc.unfreeze()
    try:
        assert await freeze_count_after_a_lab(True) > 0
    finally:
        gc.freeze()
