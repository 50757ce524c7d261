"""The lab at every size it is designed for (80×24, 100×30, 120×40, 160×48 and a
1400×900 browser, about 157×36): what is drawn over what, dialogs' buttons, the
footer's keys, the status line and the tables' widths (issue 29)."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Button
from ael_tui.compat import Toast

from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.lab_screen import LabScreen
from tests.tui_helpers import frozen_lab, make_app, settle  # noqa: F401

SIZES = [(80, 24), (100, 30), (120, 40), (160, 48), (157, 36)]


def toast_regions(app) -> list[Region]:
    """Where the top screen draws a notification."""
    return [t.region for t in app.screen.query(Toast) if t.display and t.region.area]


def support(approval: str = "manual"):
    return build_session(NewSession("support", 42, "ts+reflection", approval))


def buttons_whole(screen, ids: list[str]) -> None:
    """The dialog on screen, and each button in it, its whole label."""
    whole = Region(0, 0, *screen.app.size)
    box = screen.query_one(".dialog").region
    assert whole.contains_region(box), (screen, box)  # the whole dialog, its border too
    for bid in ids:
        button = screen.query_one(f"#{bid}", Button)
        region = button.region
        assert button.display and region.area, bid
        assert whole.contains_region(region) and box.contains_region(region), (bid, region, box)
        assert region.width >= len(str(button.label)), (bid, region, str(button.label))


async def test_at_80x24_the_second_decision_shows_five_buttons_and_no_notification_over_it():
    """Issue 29 item 1 and 2: `+ + +`, `r`, `y`: "Proposal #1 approved." sat on the next
    dialog's buttons, and `Later (esc)` was cut off the row."""
    app = make_app(support())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("plus", "plus", "plus", "r")
        await settle(pilot, 3)
        assert isinstance(app.screen, ApprovalScreen) and app.screen.proposal.id == 1
        await pilot.press("y")
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen) and app.screen.proposal.id == 2
        buttons_whole(app.screen, ["approve", "edit", "reject", "always", "later"])
        assert toast_regions(app) == []
        waiting = [n.message for n in app.waiting_notifications()]
        assert "Proposal #1 approved." in waiting
        await pilot.press("escape")  # later: back in the lab, what waited is shown
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        await pilot.pause()
        shown = [t._notification.message for t in app.screen.query(Toast)]
        assert "Proposal #1 approved." in shown and app.waiting_notifications() == []
        footer = app.screen.query_one("Footer").region
        assert all(not r.overlaps(footer) for r in toast_regions(app))


def footer_keys(app) -> dict[str, Region]:
    """The footer's keys on screen, each by its key's name, with the region it is drawn in."""
    footer = app.screen.query_one("Footer")
    return {k.key: k.region for k in footer.query("FooterKey") if k.display and k.region.area}


async def test_the_footer_shows_help_save_and_quit_whole_at_every_size():
    """Issue 29 item 4: at 160×48 `F1 Help` was cut by the palette's key (`^▏^p palettee`
    with a decision pending); at 100×30 the footer ended at `R Hist`, at 80×24 at `+-`."""
    for size in SIZES:
        app = make_app(support())
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.pause()
            keys = footer_keys(app)
            screen = Region(0, 0, *size)
            for key in ("f1", "ctrl+s", "ctrl+q"):
                assert key in keys, (size, key, list(keys))
            regions = list(keys.values())
            for region in regions:
                assert screen.contains_region(region), (size, region)
            assert all(not a.overlaps(b) for i, a in enumerate(regions) for b in regions[i + 1:]), size
            assert keys["space"].x == 0  # the lab's own keys first, as many as fit


async def test_at_80x24_the_start_screen_shows_its_title_form_saves_and_start_button_whole():
    """Issue 29 item 3: the title was cut, select values drawn over their borders, the
    Variants placeholder cut, the saves' table showed two cut columns, Start off-screen."""
    from engine.store.persistence import save_session
    from tests.tui_helpers import synthetic

    from ael_tui.files.save_list import SaveTable
    from ael_tui.files.start_screen import StartScreen

    saved = synthetic(approval="auto")
    saved.run(until=40)
    save_session(saved, "saves/synthetic-s42-e40.json")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        whole = Region(0, 0, 80, 24)
        title = screen.query_one("#start-title")
        assert str(title.render()).strip() in title.render_line(0).text and \
            len(str(title.render()).rstrip()) <= 80
        form = screen.query_one("#new-session").region
        for field in screen.query("#new-form Select, #new-form Input"):
            if field.display:
                assert field.region.height == 1 and form.contains_region(field.region), field
        variants = screen.query_one("#variants")
        assert len(variants.placeholder) <= variants.content_region.width
        start = screen.query_one("#start").region
        assert start.area and whole.contains_region(start) and form.contains_region(start)
        table = screen.query_one(SaveTable)
        assert table.row_count == 1
        assert table.virtual_size.width <= table.content_region.width  # every column whole
        assert "synthetic-s42-e40" in table.render_line(1).text
        keys = footer_keys(app)
        assert {"f1", "ctrl+q"} <= set(keys) and all(whole.contains_region(r) for r in keys.values())


async def test_tables_use_their_width_and_keep_the_right_wrong_mark_and_the_cash_share():
    """Issue 29 item 5: the memory table's content column stopped near 48 characters with the
    panel half empty; the episode log cut routes and their ✓/✗ with them; the portfolio log
    cut the cash share."""
    from ael_tui.lab.episode_log import EpisodeLog
    from ael_tui.memory.memory_panel import MemoryTable

    s = support("auto")
    s.run(until=1000)
    app = make_app(s)
    async with app.run_test(size=(157, 36)) as pilot:
        await settle(pilot)
        app.lab.show_page("memory")
        await settle(pilot)
        table = app.screen.query_one(MemoryTable)
        line = table.render_line(1).text
        assert len(line.rstrip()) >= table.size.width - 2, line  # the row reaches the panel's right edge
        widths = table._widths()
        assert widths[2] > 48 and sum(widths) + table.GAP * len(widths) + 1 >= table.size.width - 1
    for size in ((80, 24), (100, 30)):
        app = make_app(s)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.lab.show_page("episodes")
            await settle(pilot)
            log = app.screen.query_one(EpisodeLog)
            top = round(log.scroll_offset.y)
            for y in range(1, log.size.height):
                row = log.rows[top + y - 1]
                mark = "✓" if row["correct"] else "✗"
                text = log.render_line(y).text
                assert mark in text, (size, text)
    p = build_session(NewSession("portfolio", 42, "ts+reflection", "auto", options={"data": "synthetic"}))
    p.run(until=40)
    app = make_app(p)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.lab.show_page("episodes")
        await settle(pilot)
        log = app.screen.query_one(EpisodeLog)
        top = round(log.scroll_offset.y)
        for y in range(1, log.size.height):
            row = log.rows[top + y - 1]
            cash = row["action"][row["action"].rfind("; "):].strip("; ")
            assert cash in log.render_line(y).text, (row["action"], log.render_line(y).text)


def test_a_charts_legend_is_never_drawn_over_its_curves():
    """Issue 29 item 11: the legend sat in the plot's top right rows, over the data."""
    import numpy as np

    from ael_tui.widgets.line_chart import Axis, Chart, Series, draw, quarters

    x = np.arange(100)
    for width, legend in ((80, [("ts", "cyan"), ("ts+reflection", "green")]),
                          (40, [(f"selector number {i}", "red") for i in range(4)])):
        chart = Chart("Progress", "Progress", (0, 100), Axis(0.0, 1.0, quarters(0.0, 1.0)),
                      series=[Series("ts", x, np.ones(100), "cyan"), Series("x", x, np.full(100, 0.9), "green")],
                      legend=legend)
        lines = [strip.text for strip in draw(chart, width, 14)]
        plot = [i for i, line in enumerate(lines) if "┤" in line or "│" in line[:8]]
        assert plot, lines
        for i in plot:
            assert "━" not in lines[i], (width, lines[i])  # no legend in a row of the plot
        top = "\n".join(lines[: plot[0]])
        for name, _ in legend:
            assert f"━ {name}" in top, (width, name, lines)
        assert "⠉" in lines[plot[0]] or "⠛" in lines[plot[0]] or any("\u2800" < c <= "\u28ff" for c in lines[plot[0]])


async def test_ticked_and_unticked_selectors_differ_by_shape_in_the_compare_picker():
    """Issue 29 item 11: `▐X▌` for both, only the colour differed (invisible on a projector)."""
    from ael_tui.widgets.dialogs import CompareSetupScreen

    app = make_app(build_session(NewSession("synthetic", 42, "ts+reflection", "auto")))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareSetupScreen)
        picker = app.screen.query_one("#compare-selectors")
        lines = {picker.get_option_at_index(i).value: picker.render_line(i).text
                 for i in range(picker.option_count)}
        for value, line in lines.items():
            ticked = value in picker.selected
            assert line.lstrip().startswith("▐✓▌" if ticked else "▐ ▌"), (value, line)
        assert any(v in picker.selected for v in lines) and any(v not in picker.selected for v in lines)


def test_a_long_insight_in_the_reflections_history_ends_after_a_word_with_an_ellipsis():
    """Issue 29 item 11: "insight: When the text is ambiguous, route by the endpoint: rece"."""
    from ael_tui.widgets.readouts import cut_at_word, proposal_notes

    s = support("auto")
    s.run(until=925)
    notes = [line for lines in proposal_notes(s).values() for line in lines]
    insights = [p for p in s.queue.proposals if p.kind == "insight"]
    assert insights and any(len(p.payload["insight"]) > 60 for p in insights)
    for p in insights:
        full = p.payload["insight"]
        line = next(n for n in notes if n.startswith(f"proposal #{p.id}, insight: "))
        shown = cut_at_word(full, 60)
        assert line.startswith(f"proposal #{p.id}, insight: {shown}: ")
        if len(full) > 60:
            assert shown.endswith("…") and full.startswith(shown[:-1]) and full[len(shown) - 1] in " ,;:", shown
    assert cut_at_word("route by the endpoint: recent tickets", 26) == "route by the endpoint…"
    assert cut_at_word("short", 26) == "short"


async def test_the_audit_logs_time_column_shows_the_time_to_the_second():
    """Issue 29 item 11: the last column, cut to the date."""
    from ael_tui.lab.records import AuditScreen

    s = support("auto")
    s.run(until=925)
    app = make_app(s)
    app.show_times = True  # the engine's clock is frozen (tui_helpers): 03:04:05
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)
        table = app.screen.query_one("#audit-table")
        header = table.render_line(0).text
        first = table.render_line(1).text
        assert "at (UTC)" in header and "01-02 03:04:05" in first, (header, first)  # issue 41: with its day


async def test_at_every_size_the_status_line_wraps_whole_and_the_decision_shows_every_button():
    """Issue 29 item 2: at 80×24 the status line was cut (`reflector: route-aw…`) and the
    decision's `Later (esc)` was off its row. The paused sign is one the SVG font has (⏸
    was drawn as a box)."""
    from ael_tui.widgets.status_bar import StatusBar

    s = support()
    s.run()  # stops at 920 with the two proposals pending
    for size in SIZES:
        app = make_app(s)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            status = app.screen.query_one(StatusBar)
            lines = [status.render_line(y).text for y in range(status.size.height)]
            joined = " ".join(line.strip() for line in lines)
            assert "…" not in joined and "reflector: route-aware regression" in joined, (size, lines)
            assert "‖ paused" in joined and "⏸" not in joined
            assert all(len(line.rstrip()) <= size[0] for line in lines)
            assert status.size.height == len(status._lines) and status.region.bottom <= size[1]
            await pilot.press("d")
            await settle(pilot)
            assert isinstance(app.screen, ApprovalScreen)
            buttons_whole(app.screen, ["approve", "edit", "reject", "always", "later"])


async def test_at_80x24_the_results_table_shows_every_column_whole():
    """Found trying issue 29 at 80×24: `select…`, `accur…`, `inject…` and a wrapped `(this run)`."""
    from ael_tui.lab.records import ResultsScreen

    s = support("auto")
    s.run(until=300)
    app = make_app(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot, 3)
        assert isinstance(app.screen, ResultsScreen)
        static = app.screen.query_one("#results-table")
        text = "\n".join(static.render_line(y).text for y in range(static.size.height))
        assert "…" not in text and "ts+reflection (this run)" in text, text
        results = app.screen.results
        for column in results.columns:
            for word in column.split():
                assert word in text, (column, text)
        assert static.region.right <= 80


async def test_a_notification_raised_over_a_tour_card_waits_for_it_to_close():
    """Issue 29 item 1: the same toast overlapped tour card 5 at 160×48."""
    from ael_tui.tour.tour_card import TourCardScreen

    app = make_app(build_session(NewSession("synthetic", 42, "ts+reflection", "manual")))
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot, 3)
        assert isinstance(app.screen, TourCardScreen)
        app.notify("raised over the card")
        await pilot.pause()
        await pilot.pause()
        assert toast_regions(app) == []
        assert not any(list(screen.query(Toast)) for screen in app.screen_stack)  # none under it either
        assert "raised over the card" in [n.message for n in app.waiting_notifications()]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.pause()
        assert not isinstance(app.screen, TourCardScreen)
        assert "raised over the card" in [t._notification.message for t in app.screen.query(Toast)]


async def test_at_every_size_every_dialog_the_lab_opens_shows_all_its_buttons():
    """Deliver of issue 29: every dialog shows all its buttons, at every size."""
    from ael_tui.widgets.dialogs import CompareSetupScreen, ConfirmScreen, PromptScreen, SettingsScreen
    from ael_tui.files.load_dialog import LoadScreen

    opened = {"ctrl+s": (PromptScreen, ["ok", "cancel"]), "o": (SettingsScreen, ["ok", "cancel"]),
              "c": (CompareSetupScreen, ["ok", "cancel"]), "ctrl+o": (LoadScreen, ["open", "cancel"]),
              "ctrl+q": (ConfirmScreen, ["yes", "no"])}
    for size in SIZES:
        app = make_app(support("auto"))  # support: 15 selectors to pick from
        async with app.run_test(size=size) as pilot:
            await pilot.press("space")  # progress no file holds: ctrl+q asks
            await settle(pilot)
            for key, (kind, buttons) in opened.items():
                await pilot.press(key)
                await settle(pilot)
                assert isinstance(app.screen, kind), (size, key, app.screen)
                buttons_whole(app.screen, buttons)
                app.screen.dismiss(None)
                await settle(pilot)
                assert isinstance(app.screen, LabScreen)


def test_every_line_of_a_chart_is_as_wide_as_the_chart():
    """A line shorter than it said it was left the previous frame's cells beside it: the
    x axis of a chart with a right axis showed `┘ │──┬` and `208 │ 208`, the legend's row a
    stray `│` (found trying issue 29)."""
    import numpy as np

    from ael_tui.widgets.line_chart import Axis, Chart, Series, draw, quarters

    x = np.arange(100)
    chart = Chart("equity", "equity", (0, 100), Axis(0.9, 1.1, quarters(0.9, 1.1), "{:.3f}"),
                  Axis(-0.2, 0.0, quarters(-0.2, 0.0), "{:.0%}"),
                  series=[Series("equity", x, 1 + 0.05 * np.sin(x / 30), "cyan"),
                          Series("drawdown", x, -0.1 * np.abs(np.sin(x / 30)), "red", right=True)],
                  legend=[("equity", "cyan"), ("drawdown (right)", "red")])
    for width in (40, 60, 94, 150):
        for strip in draw(chart, width, 14):
            assert len(strip.text) == width and strip.cell_length == width, (width, strip.text)
