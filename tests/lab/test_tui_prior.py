"""A prior method in the lab: its own memory is the memory panel's last tab, and the help
says what each prior method keeps and how it differs from AEL."""

from __future__ import annotations


from ael_tui.widgets.opening import NewSession, build_session, selectors_of
from ael_tui.help_screen import panels_text
from engine.methods import METHODS
from engine.prior import PriorMethod
from tests.tui_helpers import FakeClock, frozen_lab, make_app, method_memory, settle, until  # noqa: F401

SIZE = (160, 48)


def prior_method_names() -> list[str]:
    names = [name for name, cls in METHODS.items() if issubclass(cls, PriorMethod)]
    assert {"reflexion", "expel", "meta-reflexion"} <= set(names)
    return names


async def test_the_reflexion_window_is_shown_in_the_memory_panel():
    session = build_session(NewSession("support", 42, "reflexion", "auto"))
    app = make_app(session, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await pilot.press("space")
            await settle(pilot)
        view = await method_memory(app, pilot)
        await until(pilot, lambda: "3/20" in view.tables[0].title)  # the panel redraws on a throttle
        assert view.display and view.tables[0].title.startswith("Critique window (3/20")
        assert [r[0] for r in view.tables[0].rows] == ["2", "1", "0"]  # newest first


def test_the_specs_offer_the_prior_methods_and_the_help_describes_each():
    assert {"reflexion", "expel", "meta-reflexion"} <= set(selectors_of("support"))
    assert {"reflexion", "expel", "meta-reflexion"} <= set(selectors_of("portfolio"))
    assert "reflexion" not in selectors_of("synthetic")
    text = panels_text().plain
    for name in prior_method_names():  # every registered prior method, not a list kept by hand
        assert f"{name}. " in text
    assert "Unlike AEL" in text
