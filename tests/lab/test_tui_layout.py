"""Small terminals and leaving: the footer and every panel at 100×30, all at once at
160×48, and quitting with unsaved progress asks first."""

from __future__ import annotations

from pathlib import Path

from textual.geometry import Region
from textual.widgets import Footer

from ael_tui.widgets.dialogs import ConfirmScreen
from ael_tui.lab.lab_screen import LabScreen
from tests.tui_helpers import frozen_lab, make_app, settle, synthetic  # noqa: F401

PANELS = ("#posteriors-box", "#density", "#progress", "#reflection-box", "#memory", "#log")


def visible(screen, selector: str) -> bool:
    """On screen, whole, with room for content (a border and at least 3 lines inside)."""
    widget = screen.query_one(selector)
    region = widget.region
    return widget.display and region.height >= 5 and region.width >= 20 and \
        Region(0, 0, *screen.size).contains_region(region)


async def test_at_100x30_the_footer_is_on_screen():
    app = make_app(synthetic())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(Footer).region
        assert footer.height == 1 and footer.y == 29 and footer.width == 100
        assert app.screen.has_class("-compact")


async def test_at_100x30_every_panel_is_reachable_without_scrolling():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("w")
        await settle(pilot)
        seen = set()
        for _ in range(4):
            await pilot.pause()
            seen |= {p for p in PANELS if visible(app.screen, p)}
            assert app.screen.query_one("#lab-body").max_scroll_y == 0
            await pilot.press("v")
        assert seen == set(PANELS)


async def test_the_memory_keys_bring_the_memory_panels_forward_on_a_small_screen():
    app = make_app(synthetic())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        assert app.lab.page == "memory" and visible(app.screen, "#memory")
        assert app.focused.id == "memory-filter"


async def test_at_160x48_every_panel_is_visible_at_once():
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        assert not app.screen.has_class("-compact")
        assert all(visible(app.screen, p) for p in PANELS)
        assert app.screen.query_one(Footer).region.y == 47


# ------------------------------------------------------------------ quit
async def test_quitting_with_unsaved_progress_asks_and_n_stays():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


async def test_quitting_with_nothing_unsaved_does_not_ask():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert not app.lab.host.unsaved
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_at_100x30_every_posterior_column_and_the_status_line_are_whole():
    """Issue 13 item 6: the table stopped at "90% int" and the status line was cut."""
    from ael_tui.widgets.opening import NewSession, build_session
    from ael_tui.lab.posteriors import PosteriorTable
    from ael_tui.widgets.status_bar import StatusBar
    s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
    s.run(until=930)
    app = make_app(s)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(PosteriorTable)
        assert table.get_content_width(None, None) <= table.content_region.width
        assert table.content_region.right <= 100
        lines = [strip.text for strip in (table.render_line(y) for y in range(len(s.selector.arms) + 1))]
        header = lines[0]
        for column in ("arm", "α", "β", "mean", "90% int.", "pulls", "last", "now", "added"):
            assert column in header, column
        assert any("route_aware +" in line and line.rstrip().endswith("920") for line in lines)
        assert any("◀" in line for line in lines)
        status = app.screen.query_one(StatusBar)
        for line in str(status.render()).splitlines():
            assert len(line) <= 100 and "…" not in line


async def test_the_progress_chart_labels_every_quarter_of_its_y_axis_and_a_small_footer_is_not_overlaid():
    """Issue 13 item 6: a y label was skipped at 160×48; at 80×24 the palette hint covered keys."""
    from ael_tui.lab.progress_chart import ProgressChart
    s = synthetic(approval="auto")
    s.run(until=60)
    app = make_app(s)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        chart = app.screen.query_one(ProgressChart)
        text = "\n".join(chart.render_line(y).text for y in range(chart.size.height))
        for label in ("0.00", "0.25", "0.50", "0.75", "1.00"):
            assert f"{label}┤" in text, label
    app = make_app(synthetic())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        shown = [k.region for k in app.screen.query_one(Footer).query("FooterKey") if k.display]
        assert all(not a.overlaps(b) for i, a in enumerate(shown) for b in shown[i + 1:])


async def test_quitting_asks_the_same_question_as_leaving_the_lab_another_way_and_only_once():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("ctrl+q")  # a second press does not stack a second question
        await pilot.pause()
        assert sum(isinstance(s, ConfirmScreen) for s in app.screen_stack) == 1
        quit_question = app.screen.question
        assert (app.screen.yes, app.screen.no) == ("Quit", "Stay")
        await pilot.press("n")
        await pilot.pause()
        app.open_saved_session(Path("saves/another.json"))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == quit_question.replace("Quit", "Open the save").replace("Stay", "No")
        assert "Episode 1 of the open session has progress no file holds" in quit_question
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen) and app.is_running
