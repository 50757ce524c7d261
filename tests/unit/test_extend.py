"""The public face of extending (ael_lab/extend): register_*, the checks as pytest cases with
expected failures declared on the class, and a method that names the worlds it offers itself to."""

from __future__ import annotations

import pytest

import ael_lab
from engine.bandits import RoundRobin
from engine.errors import AELError
from engine.method_base import METHODS, Method
from engine.registry import RegistryError


class Unsummarised(Method):
    name = "unsummarised-test"
    summary = ""                      # fails `described`, and says so
    selector_class = RoundRobin
    worlds = ("synthetic",)
    expected_failures = {"described": "a summary is still to be written"}


class Overcautious(Method):
    name = "overcautious-test"
    summary = "every arm in turn, offered to synthetic only (a test method)"
    selector_class = RoundRobin
    worlds = ("synthetic",)
    expected_failures = {"listed": "declared, but it passes"}


@pytest.fixture
def methods():
    for cls in (Unsummarised, Overcautious):
        ael_lab.register_method(cls)
    yield
    for cls in (Unsummarised, Overcautious):
        METHODS.unregister(cls.name)


def _case(cases, name):
    return next(c for c in cases if c.name == name)


def test_the_cases_are_made_without_the_registry_and_read_it_when_they_run():
    cases = list(ael_lab.check_method("not-registered-yet"))
    assert [str(c) for c in cases][:2] == ["method:not-registered-yet:described", "method:not-registered-yet:offered"]
    with pytest.raises(ael_lab.ConformanceError, match="method not-registered-yet: is not registered"):
        cases[0]()


def test_a_declared_failure_that_fails_is_an_xfail_with_its_reason(methods):
    case = _case(ael_lab.check_method("unsummarised-test"), "described")
    assert case.expected_failure == "a summary is still to be written"
    with pytest.raises(pytest.xfail.Exception, match="a summary is still to be written .*has no summary"):
        case()


def test_a_declared_failure_that_passes_fails_strictly(methods):
    case = _case(ael_lab.check_method("overcautious-test"), "listed")
    with pytest.raises(ael_lab.ConformanceError, match="listed passes, but its class declares it an expected failure"):
        case()


def test_a_declaration_naming_no_check_fails(methods, monkeypatch):
    monkeypatch.setattr(Overcautious, "expected_failures", {"resumes": "a typo of resumes_exactly"})
    with pytest.raises(ael_lab.ConformanceError, match="expected_failures names 'resumes', which is no check"):
        _case(ael_lab.check_method("overcautious-test"), "described")()


def test_a_method_offers_itself_to_its_worlds_and_is_refused_elsewhere_in_one_line(methods):
    from ael_lab.extend import offering_scenarios, selectors_of

    assert "overcautious-test" in selectors_of("synthetic") and "overcautious-test" not in selectors_of("support")
    assert offering_scenarios("overcautious-test") == ["synthetic"]
    ael_lab.new("synthetic", seed=1, selector="overcautious-test").step(3)
    with pytest.raises(AELError, match=r"^selector 'overcautious-test' is offered in synthetic, not in support$"):
        ael_lab.new("support", seed=1, selector="overcautious-test")


def test_register_takes_only_what_its_registry_holds():
    with pytest.raises(RegistryError, match="register_method takes a Method subclass"):
        ael_lab.register_method(RoundRobin)
    with pytest.raises(RegistryError, match="register_variant takes a Variant subclass"):
        ael_lab.register_variant(Overcautious)
    with pytest.raises(RegistryError, match="a scenario name must be lower-case"):
        ael_lab.register_scenario("Bad Name", "tests.tiny_scenario.spec")


def test_a_panel_is_probed_apart_so_a_command_never_imports_it_even_in_a_child(monkeypatch):
    """A distribution's world, method and variant are probed together when a command reads them;
    its `ael_lab.panels` entry only when the lab does, in a probe of its own."""
    from types import SimpleNamespace

    from engine import plugin_probe, plugins

    dist = SimpleNamespace(name="lamps", version="1.0", read_text=lambda name: "")
    dist.entry_points = [SimpleNamespace(name=n, value=v, group=g, dist=dist) for n, v, g in (
        ("w", "lamps_world", plugins.SCENARIOS), ("m", "lamps_x:M", plugins.METHODS),
        ("p", "lamps_panel:PANEL", plugins.PANELS))]

    probed = []
    monkeypatch.setattr(plugins, "_probed", {})
    monkeypatch.setattr(plugin_probe, "probe", lambda key, values, meta: probed.append(values) or
                        {"failed": "", "verdicts": {}})
    world, _, panel = dist.entry_points
    plugins._probe(world)
    plugins._probe(panel)
    assert probed == [["lamps_world", "lamps_x:M"], ["lamps_panel:PANEL"]]
