"""The variants in the lab: the start screen's field, the status line, the planner and tool panels."""

from __future__ import annotations

from textual.widgets import Input

from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.files.start_screen import StartScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.widgets.status_bar import StatusBar
from ael_tui.lab.variant_panels import PlannerPanel, ToolPanel
from tests.tui_helpers import frozen_lab, make_app, notifications, settle  # noqa: F401

SIZE = (160, 48)


def portfolio(variants: list[str]):
    return build_session(NewSession("portfolio", 42, "ts+reflection", "auto", options={"data": "synthetic"},
                                    variants=variants))


def text_of(renderable) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


async def test_the_planner_and_tool_panels_show_linucb_and_the_tool_posteriors():
    s = portfolio(["planners", "per-tool", "cold-start"])
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        lab = app.screen
        assert isinstance(lab, LabScreen) and lab.has_class("-variants")
        for _ in range(20):
            await pilot.press("space")
            await settle(pilot)
        await settle(pilot, 4)
        lab.redraw(force=True)
        planners, tools = text_of(lab.query_one(PlannerPanel).shown), text_of(lab.query_one(ToolPanel).shown)
        status = text_of(lab.query_one(StatusBar).render())
    assert s.t == 20
    assert "cot_reasoning" in planners and "θ bias" in planners and "x now" in planners and "trailing return" in planners
    chosen = s.variants.get("planners").last
    assert chosen in planners
    assert "momentum" in tools and "prior" in tools and "+0/−3" in tools  # the composite, rated 1
    assert "variant planners,per-tool,cold-start" in status


async def test_a_session_without_variants_has_no_variant_row():
    s = build_session(NewSession("synthetic", 42, "ts+reflection", "auto"))
    app = make_app(s)
    async with app.run_test(size=SIZE):
        assert not app.screen.has_class("-variants")
        assert not app.screen.query_one("#row-variants").display or not app.screen.has_class("-variants")


async def test_the_start_screen_takes_variants_and_refuses_one_with_no_meaning_in_a_notification():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        start = app.screen
        assert isinstance(start, StartScreen)
        start.query_one("#variants", Input).value = "no-tools"
        start.action_start_session()  # the default scenario is synthetic: no tools there
        await settle(pilot)
        assert any("no meaning for the synthetic scenario" in n for n in notifications(app))
        start.query_one("#variants", Input).value = "bogus"
        start.action_start_session()
        await settle(pilot)
        assert any("unknown variant 'bogus'" in n for n in notifications(app))


async def test_on_a_narrow_screen_the_planner_and_tool_tables_keep_their_columns_and_scroll_sideways():
    s = portfolio(["planners", "per-tool"])
    app = make_app(s)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(3):
            await pilot.press("space")
            await settle(pilot)
        lab = app.screen
        lab.show_page("progress")  # the compact page that holds the variants' row
        lab.redraw(force=True)
        await settle(pilot, 3)
        for panel, box in ((PlannerPanel, "#planners-box"), (ToolPanel, "#tools-box")):
            widget, container = lab.query_one(panel), lab.query_one(box)
            natural = len(text_of(widget.shown).splitlines()[0].rstrip())
            assert widget.size.width >= natural  # every column whole, not cut to "θ…"
            assert container.virtual_size.width > container.size.width  # reached by scrolling sideways
