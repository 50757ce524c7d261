"""The lab shows a plugin variant's panel that came through the entry-point group `ael_lab.panels`
(examples/plugin-world, installed on this process's path alone): nothing in the lab names it."""

from __future__ import annotations

import sys

import pytest

import scenarios
from engine import plugin_probe, plugins
from engine.method_base import METHODS
from engine.variants import VARIANTS
from tests.plugin_world_dist import plugin_world_dist


@pytest.fixture
def installed(monkeypatch, tmp_path):
    """The example's distribution on the path; the registries as a new process finds them, restored after.
    The child probe is the plugin guard's to test (tests/process/test_plugin_guard.py): here it admits."""
    from ael_tui.lab import panels as lab_panels

    monkeypatch.setattr(plugins, "_loaded", set())
    monkeypatch.setattr(plugins, "NOTICES", [])
    monkeypatch.setattr(plugins, "_admitted", {})
    monkeypatch.setattr(plugins, "_probed", {})
    monkeypatch.setattr(plugin_probe, "probe", lambda dist, values, metadata: {"failed": "", "verdicts": {}})
    monkeypatch.syspath_prepend(str(plugin_world_dist(tmp_path / "site")))
    saved = [(r, dict(r)) for r in (scenarios.REGISTRY, METHODS, VARIANTS, lab_panels.PANELS)]
    import engine.methods as methods
    import engine.variants.session_variants as variant_set

    methods.PLUGINS.read()  # as the import of engine.methods does in a new process
    variant_set.PLUGINS.read()
    yield
    for registry, entries in saved:
        registry.clear()
        registry.update(entries)
    for name in [m for m in sys.modules if m.startswith("ael_plugin_world")]:
        del sys.modules[name]


async def test_the_lab_shows_the_panel_a_plugin_declares_in_ael_lab_panels(installed):
    from engine.session import Session, SessionConfig
    from tests.tui_helpers import make_app, settle

    config = SessionConfig(scenario="plugin-world", seed=4, selector="lamp-greedy", variants=["lamp-log"])
    s = Session(config, scenarios.make_scenario("plugin-world", 4, {}))
    app = make_app(s)
    async with app.run_test(size=(160, 48)) as pilot:
        lab = app.screen
        assert lab.query_one("#lamp-log-box").display and plugins.NOTICES == []
        for _ in range(3):
            await pilot.press("space")
            await settle(pilot)
        lab.redraw(force=True)
        panel = lab.query_one("#lamp-log")
        shown = [[cell for cell in column.cells] for column in panel.shown.columns]
    log = s.variants.get("lamp-log")
    assert s.t == 3 and shown[0] == ["red", "green"]
    assert shown[1] == [str(log.lit.get("red", 0)), str(log.lit.get("green", 0))]
    assert sum(map(int, shown[1] + shown[2])) == 3  # every night counted, lit or dark
