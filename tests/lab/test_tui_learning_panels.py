"""The skills and credit panels: shown for sessions running those variants, with this run's numbers."""

from __future__ import annotations

from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.learning_panels import CreditPanel, SkillsPanel
from ael_tui.lab.lab_screen import LabScreen
from tests.tui_helpers import make_app, settle  # noqa: F401
from tests.lab.test_tui_variants import SIZE, text_of


def portfolio(variants: list[str]):
    return build_session(NewSession("portfolio", 42, "ts+reflection", "auto", options={"data": "synthetic"},
                                    variants=variants))


async def test_skills_and_credit_panels_show_the_runs_skills_and_shapley_values():
    s = portfolio(["skills", "credit=fcc"])
    s.run(until=56)  # past the first skills
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        lab = app.screen
        assert isinstance(lab, LabScreen) and lab.has_class("-variants")
        await pilot.press("space")
        await settle(pilot, 4)
        lab.redraw(force=True)
        skills, credit = text_of(lab.query_one(SkillsPanel).shown), text_of(lab.query_one(CreditPanel).shown)
        assert lab.query_one("#skills-box").display and lab.query_one("#credit-box").display
        assert not lab.query_one("#planners-box").display
    v = s.variants.get("skills")
    assert v.skills and v.skills[0]["text"][:30] in skills
    c = s.variants.get("credit")
    assert f"bar {c.last_episode}" in credit and "Shapley" in credit and "planner+tools+memory" in credit
    assert f"{c.last['memory']['shapley']:+.2f}" in credit


async def test_help_has_a_paragraph_for_each_panel():
    from ael_tui.help_screen import VARIANT_PANELS

    titles = [t for t, _ in VARIANT_PANELS]
    assert "Skills" in titles and "Credit per module" in titles
