"""The compare view's bars say how many episodes each run stands at (issue 41 item 4: a branch
and the run it came from, side by side, have not played as many)."""

from __future__ import annotations

import scenarios
from ael_tui.compare.compare_screen import arms_subtitle
from ael_tui.widgets.readouts import progress_data, selector_summary
from engine.session import Session, SessionConfig


def test_each_selectors_bars_name_their_episode_count():
    s = Session(SessionConfig(scenario="synthetic", seed=42, selector="ts"), scenarios.make_scenario("synthetic", 42, {}))
    s.run(until=37)
    text = arms_subtitle(s, selector_summary("ts", s, progress_data(s)))
    assert text.startswith("37 ep · ")
