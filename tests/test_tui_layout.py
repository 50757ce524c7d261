"""Small terminals and leaving: the footer and every panel at 100×30, all at once at
160×48, and quitting with unsaved progress asks first."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Footer

from ael_tui.screens.dialogs import ConfirmScreen
from ael_tui.screens.lab import LabScreen
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
