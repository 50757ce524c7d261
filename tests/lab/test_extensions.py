"""An extension is one place: a world with run state (tests/ext_world/), a method with saved
state (tests/ext_method.py) and a variant with saved state and a lab panel
(tests/ext_variant.py), each written only in its own folder or module and registered here
with one line, save and resume exactly and pass the conformance checks, with no edit to
engine/store/session_schema.py or the lab's screens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scenarios
from ael_tui.extension_checks import check_method, check_scenario, check_variant
from ael_tui.lab import panels as lab_panels
from ael_tui.lab.lab_view import _variant_views, variant_panels
from engine.conformance import ConformanceError, check_saved_state
from engine.errors import AELError
from engine.methods import METHODS, register_method
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from engine.variants import VARIANTS, register_variant
from tests.ext_method import Tally
from tests.ext_variant import PANEL, Streaks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def extensions():
    scenarios.register("urns", "tests.ext_world.spec")   # the world's one registry line
    register_method(Tally)                               # the method's
    register_variant(Streaks)                            # the variant's
    lab_panels.register_panel(PANEL)                     # and its panel's
    yield
    scenarios.unregister("urns")
    METHODS.pop(Tally.name, None)
    VARIANTS.pop(Streaks.name, None)
    lab_panels.unregister_panel(PANEL.name)


def urns(selector="tally", variants=(), seed=5) -> Session:
    config = SessionConfig(scenario="urns", seed=seed, selector=selector, approval="auto", variants=list(variants))
    return Session(config, scenarios.make_scenario("urns", seed, {}))


def test_the_world_the_method_and_the_variant_pass_the_conformance_checks(extensions):
    check_scenario("urns")
    assert check_method("tally") == "urns"
    assert check_variant("streaks") == "urns"


def test_their_state_is_saved_and_resumed_exactly(extensions, tmp_path):
    straight = urns(variants=["streaks"])
    straight.run()
    part = urns(variants=["streaks"])
    part.run(until=23)
    save_session(part, tmp_path / "s.json")
    saved = json.loads((tmp_path / "s.json").read_text())["session"]
    assert set(saved["scenario_state"]) == {"red", "blue"} and saved["method"]["seen"] == 23
    assert saved["variants"]["streaks"]["best"] >= 1
    again = load_session(tmp_path / "s.json", scenarios.make_scenario)
    again.run()
    assert again.history == straight.history
    for key in ("scenario_state", "method", "variants", "selector"):
        assert again.to_dict()[key] == straight.to_dict()[key]


@pytest.mark.parametrize("where, value, words", [
    (("scenario_state", "red"), [1, 2], "session.scenario_state.red"),
    (("scenario_state", "green"), [1, 1, 1], "session.scenario_state.green"),
    (("method", "wins"), "many", "method.wins"),
    (("method", "last"), [999], "a record of episode 999"),
    (("variants", "streaks", "best"), -1, "variants.streaks.best"),
])
def test_their_bad_state_in_a_save_is_refused_in_one_line_by_their_own_models(extensions, tmp_path, where,
                                                                              value, words):
    s = urns(variants=["streaks"])
    s.run(until=20)
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    node = doc["session"]
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(AELError) as err:
        load_session(tmp_path / "bad.json", scenarios.make_scenario)
    assert "\n" not in str(err.value) and words in str(err.value)


def test_the_variants_panel_is_found_through_the_registry(extensions):
    s = urns(selector="ts", variants=["streaks"])
    assert variant_panels(s)["streaks"] and not variant_panels(urns(selector="ts"))["streaks"]
    s.run(until=30)
    view = _variant_views(s)["streaks"]
    assert view == {"streak": s.variants.get("streaks").streak, "best": s.variants.get("streaks").best}


async def test_the_lab_shows_the_registered_panel_without_naming_it(extensions):
    from tests.ext_variant import StreakPanel
    from tests.tui_helpers import make_app, settle

    s = urns(selector="ts", variants=["streaks"])
    app = make_app(s)
    async with app.run_test(size=(160, 48)) as pilot:
        lab = app.screen
        assert lab.has_class("-variants") and lab.query_one("#streaks-box").display
        assert not lab.query_one("#planners-box").display
        for _ in range(12):
            await pilot.press("space")
            await settle(pilot)
        lab.redraw(force=True)
        text = str(lab.query_one(StreakPanel).render())
    assert s.t == 12 and f"best {s.variants.get('streaks').best}" in text


def test_nothing_central_names_them():
    """The proof's other half: the engine's save schema and the lab's screens never name them."""
    central = [ROOT / "engine" / "store" / "session_schema.py", ROOT / "ael_tui" / "lab" / "lab_screen.py",
               ROOT / "ael_tui" / "lab" / "lab_view.py", ROOT / "scenarios" / "__init__.py"]
    for path in central:
        text = path.read_text()
        assert not any(word in text for word in ("urns", "tally", "Tally", "streaks", "Streak")), path


def test_a_method_that_saves_state_without_a_model_fails_the_check(extensions):
    class Unmodelled(Tally):
        name = "tally-unmodelled"
        state_model = None

    s = urns()
    s.method = Unmodelled()
    s.run(until=10)
    with pytest.raises(ConformanceError, match="declares no state_model"):
        check_saved_state("tally-unmodelled", s)


def test_a_state_model_that_cannot_be_imported_fails_the_check(extensions):
    from engine.deferred import Deferred

    class Misnamed(Tally):
        name = "tally-misnamed"
        state_model = Deferred("tests.ext_method", "TallyStat")

    s = urns()
    s.method = Misnamed()
    s.run(until=5)
    with pytest.raises(ConformanceError, match="cannot be imported"):
        check_saved_state("tally-misnamed", s)


def test_a_world_without_a_state_model_refuses_a_save_that_holds_run_state(tmp_path):
    good = ROOT / "tests" / "bad_documents" / "good" / "session.json"   # a synthetic save: its world keeps none
    doc = json.loads(good.read_text())
    doc["session"]["scenario_state"] = {"articles": 12}   # a key the old shared ScenarioState let any world hold
    (tmp_path / "s.json").write_text(json.dumps(doc))
    with pytest.raises(AELError) as err:
        load_session(tmp_path / "s.json", scenarios.make_scenario)
    assert "\n" not in str(err.value) and "session.scenario_state" in str(err.value)
    assert "keeps no run state" in str(err.value) and str(err.value).count("s.json") == 1
