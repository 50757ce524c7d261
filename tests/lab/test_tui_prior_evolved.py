"""EvoTool, FactorMiner and HyperAgent in the lab: their memories are the memory panel's method
tab, the help has a paragraph for each, and the specs offer them where the paper ran them."""

from __future__ import annotations

import pytest

from ael_tui.widgets.opening import NewSession, build_session, selectors_of
from ael_tui.help_screen import panels_text
from tests.tui_helpers import FakeClock, frozen_lab, make_app, method_memory, settle  # noqa: F401

SIZE = (160, 48)


def test_the_specs_offer_them_where_the_paper_ran_them_and_the_help_describes_each():
    assert {"evotool", "factorminer", "hyperagent"} <= set(selectors_of("portfolio"))
    assert {"evotool", "factorminer"} <= set(selectors_of("support")) and "hyperagent" not in selectors_of("support")
    text = panels_text().plain
    for name in ("evotool", "factorminer", "hyperagent"):
        assert f"{name}. " in text


@pytest.mark.parametrize("scenario,selector,title", [("support", "evotool", "Tool policies"),
                                                     ("portfolio", "factorminer", "Skills"),
                                                     ("portfolio", "hyperagent", "Generations")])
async def test_the_method_memory_tab_shows_its_state(scenario, selector, title):
    session = build_session(NewSession(scenario, 42, selector, "auto"))
    app = make_app(session, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await pilot.press("space")
            await settle(pilot)
        view = await method_memory(app, pilot)
        assert view.display and view.tables[0].title.startswith(title)
