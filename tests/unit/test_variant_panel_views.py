"""Each variant with a lab panel returns that panel's data (`panel_view`, as a prior method's
`memory_view()`), and the lab's panels read that and nothing else of a variant."""

from __future__ import annotations

import pytest

from ael_tui.lab.panels import PANELS
from engine.session import Session, SessionConfig
from engine.variants.panel_views import PlannerView, SkillsView, ToolPosterior, ToolPrior, tool_rows
from engine.variants.tools import prior_counts
from scenarios import make_scenario

pytestmark = pytest.mark.heavy  # one portfolio run of 60 bars with every panel's variant: seconds

VARIANTS = ["planners", "per-tool", "cold-start", "skills", "credit=fcc"]


@pytest.fixture(scope="module")
def session() -> Session:
    c = SessionConfig(scenario="portfolio", seed=42, selector="ts+reflection", episodes=80, variants=VARIANTS)
    s = Session(c, make_scenario("portfolio", 42, {"data": "synthetic"}))
    s.run(until=60)  # past the first skills and the first credited bars
    return s


def test_each_variant_with_a_panel_returns_what_its_panel_shows(session):
    planners = session.variants.get("planners")
    view = planners.panel_view(session)
    assert isinstance(view, PlannerView) and [r.name for r in view.rows] == list(planners.arms)
    assert [r.name for r in view.rows if r.chosen] == [planners.last]
    assert view.features == tuple(name for name, _ in session.scenario.planner_features())

    per_tool = session.variants.get("per-tool").panel_view(session)
    assert set(per_tool) == set(session.scenario.tool_names())
    assert {n for n, p in per_tool.items() if p.shown} == set(session.variants.get("per-tool").last)
    cold = session.variants.get("cold-start")
    assert cold.panel_view(session) == {t: ToolPrior(r, prior_counts(r)) for t, r in cold.tool_ratings.items()}

    skills = session.variants.get("skills").panel_view(session)
    assert isinstance(skills, SkillsView) and skills.rows and [r.used_now for r in skills.rows].count(True) >= 1
    credit = session.variants.get("credit").panel_view(session)
    assert credit.episode == 59 and credit.parts["memory"] and credit.mode == "fcc"


def test_a_variant_without_a_panel_returns_none(session):
    from engine.variants.session_variants import parse_variant

    assert parse_variant("no-tools").panel_view(session) is None


class PanelViewOnly:
    """A variant seen through its panel data alone: any other attribute the lab reads fails."""

    def __init__(self, variant):
        self._variant = variant

    def panel_view(self, session):
        return self._variant.panel_view(session._session)

    def __getattr__(self, name):
        raise AssertionError(f"the lab read {name!r} of a variant, not its panel_view")


class Watched:
    """The session as the lab's panels see it, its variants replaced by `PanelViewOnly`."""

    def __init__(self, session: Session):
        self._session = session
        self.variants = {v.name: PanelViewOnly(v) for v in session.variants.items}
        self.method = session.method

    def __getattr__(self, name):
        return getattr(self._session, name)


def test_the_labs_panels_read_only_the_variants_panel_view(session):
    watched = Watched(session)
    for panel in PANELS.values():
        if panel.variants:
            assert panel.shown(watched)
            assert panel.view(watched) == panel.view(session), panel.name


def test_the_tools_rows_are_per_tools_posteriors_beside_cold_starts_priors():
    post = {"a": ToolPosterior(2.0, 1.0, 3, 0.7, True), "b": ToolPosterior(1.0, 2.0, 1, None, False)}
    prior = {"b": ToolPrior(1, (0, 3)), "c": ToolPrior(5, (3, 0))}
    rows = tool_rows(post, prior)
    assert [(r.name, r.alpha, r.shown, r.prior, r.rating) for r in rows] == [
        ("a", 2.0, True, None, None), ("b", 1.0, False, (0, 3), 1)]
    # before per-tool's first step (no tools yet): cold start's tools, none shown
    assert [(r.name, r.alpha, r.pulls, r.shown) for r in tool_rows({}, prior)] == [("b", None, 0, False),
                                                                                   ("c", None, 0, False)]
    # without per-tool: every tool counts as shown
    assert all(r.shown and r.alpha is None for r in tool_rows(None, prior))
    assert tool_rows(None, None) == []
