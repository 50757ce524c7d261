"""The start screen's scenario fields come from the scenarios' descriptions."""

import pytest
from textual.app import App
from textual.containers import Grid
from textual.widgets import Input, Select

from ael_tui.files.scenario_fields import OTHER, option_fields, option_values, show_for
from engine.errors import AELError
from scenarios import spec_of


class _Form(App):
    def compose(self):
        with Grid(id="form"):
            yield from option_fields([spec_of(n) for n in ("synthetic", "support", "portfolio")])


async def test_only_the_chosen_scenarios_fields_show_and_other_opens_a_text_field():
    app = _Form()
    async with app.run_test():
        show_for(app.screen, "synthetic")
        assert not any(w.display for w in app.screen.query(".scenario-option"))
        show_for(app.screen, "portfolio")
        data = app.screen.query_one("#opt-portfolio-data", Select)
        assert data.display and not app.screen.query_one("#opt-portfolio-data-other", Input).display
        assert option_values(app.screen, spec_of("portfolio")) == {}  # the default is left out
        data.value = "yahoo"
        assert option_values(app.screen, spec_of("portfolio")) == {"data": "yahoo"}
        data.value = OTHER
        show_for(app.screen, "portfolio")
        folder = app.screen.query_one("#opt-portfolio-data-other", Input)
        assert folder.display
        with pytest.raises(AELError, match="market data: type a folder"):
            option_values(app.screen, spec_of("portfolio"))
        folder.value = "/some/where"
        assert option_values(app.screen, spec_of("portfolio")) == {"data": "/some/where"}
