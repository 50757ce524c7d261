"""One registry type (engine/registry.py) behind the worlds, methods, variants and lab panels,
and one admission of entry-point plugins (engine/plugins.Kind) behind the three groups."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

import engine.methods as methods
import engine.variants.session_variants as variant_set
import scenarios
from ael_tui.lab import panels as lab_panels
from engine import plugins
from engine.errors import AELError
from engine.method_base import METHODS, Method, register_method
from engine.registry import Registry, RegistryError
from engine.variants import VARIANTS, Variant, register_variant


def test_names_register_in_order_and_read_as_a_mapping():
    r: Registry[int] = Registry("thing", [("b", 2), ("a", 1)])
    r["c"] = 3
    assert list(r) == ["b", "a", "c"] and r.names() == ["b", "a", "c"] and len(r) == 3
    assert "a" in r and r["a"] == 1 and r.get("z") is None and dict(r) == {"b": 2, "a": 1, "c": 3}
    assert r.pop("a") == 1 and r.pop("a", None) is None
    r.unregister("z")  # nothing there: no error
    r.clear()
    r.update({"x": 9})
    assert list(r.items()) == [("x", 9)]


def test_a_taken_name_is_refused_in_one_line_and_the_same_entry_again_is_no_change():
    r: Registry[str] = Registry("world", [("lamps", "pkg.lamps")])
    r.register("lamps", "pkg.lamps")
    with pytest.raises(RegistryError, match="^a world named 'lamps' is already registered$") as err:
        r.register("lamps", "other.lamps")
    assert isinstance(err.value, AELError) and isinstance(err.value, ValueError)
    with pytest.raises(RegistryError):
        r["lamps"] = "other.lamps"  # setting a key registers it: the same check
    assert r["lamps"] == "pkg.lamps"


@pytest.mark.parametrize("name", ["", "Lamps", "two words", "-lead", "a" * 65, "x\x1b[2J", "naïve", None, 3])
def test_a_name_no_one_could_type_is_refused(name):
    r: Registry[int] = Registry("world")
    with pytest.raises(RegistryError, match="a world name must be lower-case letters"):
        r.register(name, 1)
    assert len(r) == 0


def test_lookup_says_did_you_mean_and_what_is_registered():
    r: Registry[int] = Registry("world", [("portfolio", 1), ("support", 2)])
    assert r.lookup("support") == 2
    with pytest.raises(AELError, match=r"^unknown world 'portfolo': did you mean 'portfolio'\? "
                                       r"\(expected one of portfolio, support\)$"):
        r.lookup("portfolo")
    with pytest.raises(AELError, match=r"^unknown world 'zzz' \(expected one of portfolio, support\)$"):
        r.lookup("zzz")


def test_a_lazy_entry_is_imported_only_when_loaded(tmp_path, monkeypatch):
    (tmp_path / "ael_test_lazy_entry.py").write_text("SPEC = 'the spec'\nOTHER = 'the other'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r: Registry[str] = Registry("world", [("a", "ael_test_lazy_entry"), ("b", "ael_test_lazy_entry:OTHER")],
                                attr="SPEC")
    assert "ael_test_lazy_entry" not in sys.modules
    assert r.load("a") == "the spec" and r.load("b") == "the other"
    del sys.modules["ael_test_lazy_entry"]


def test_the_four_registries_are_the_one_type():
    for registry in (scenarios.REGISTRY, METHODS, VARIANTS, lab_panels.PANELS):
        assert isinstance(registry, Registry)
    assert methods.METHODS is METHODS and variant_set.VARIANTS is VARIANTS


def test_an_unknown_scenario_names_the_closest():
    with pytest.raises(AELError, match=r"unknown scenario 'portfolo': did you mean 'portfolio'\?"):
        scenarios.spec_of("portfolo")


def test_a_scenario_registered_over_another_is_refused_and_the_first_kept():
    scenarios.register("tiny", "tests.tiny_scenario.spec")
    try:
        scenarios.register("tiny", "tests.tiny_scenario.spec")  # a worker given the same line again
        with pytest.raises(RegistryError, match="a scenario named 'tiny' is already registered"):
            scenarios.register("tiny", "tests.ext_world.spec")
        with pytest.raises(RegistryError, match="already registered"):
            scenarios.register("portfolio", "tests.tiny_scenario.spec")
        assert scenarios.REGISTRY["tiny"] == "tests.tiny_scenario.spec"
        assert scenarios.REGISTRY["portfolio"] == "scenarios.portfolio.spec"
    finally:
        scenarios.unregister("tiny")


def test_a_method_or_variant_class_with_a_name_no_selector_text_can_reach_is_refused():
    class Spaced(Method):
        name = "two words"
        summary = "unreachable"

    class Shouting(Variant):
        name = "LOUD"
        summary = "unreachable"

    with pytest.raises(RegistryError, match="method name must be"):
        register_method(Spaced)
    with pytest.raises(RegistryError, match="variant name must be"):
        register_variant(Shouting)
    assert "two words" not in METHODS and "LOUD" not in VARIANTS


def test_a_lab_panel_must_name_what_it_shows_and_keep_its_name():
    panel = lab_panels.LabPanel("nothing", "Nothing", object, lambda s: None)
    with pytest.raises(RegistryError, match="lab panel 'nothing': name the variants or methods it shows"):
        lab_panels.register_panel(panel)
    planners = lab_panels.PANELS["planners"]
    with pytest.raises(RegistryError, match="a lab panel named 'planners' is already registered"):
        lab_panels.register_panel(lab_panels.LabPanel("planners", "Other", object, lambda s: None,
                                                      variants=("planners",)))
    assert lab_panels.PANELS["planners"] is planners and "nothing" not in lab_panels.PANELS


# ------------------------------------------------------------------ one admission for the three groups
@dataclass
class EntryPoint:
    """An entry point as importlib.metadata gives one, its object given instead of imported."""

    name: str
    value: str
    obj: object = None

    def load(self):
        return self.obj


class Counted(Method):
    name = "counted"
    summary = "a method a plugin adds"
    selector_class = METHODS["rr"].selector_class


@pytest.fixture
def method_kind():
    kind = plugins.Kind("ael_lab.test", Registry("method", [("ts", METHODS["ts"])]), "an engine.methods.Method "
                        "subclass", plugins.subclass_of(Method))
    return kind


def test_the_admission_registers_a_plugin_named_as_its_entry_point(method_kind):
    method_kind.admit(EntryPoint("counted", "pkg:Counted", Counted))
    assert method_kind.registry["counted"] is Counted


@pytest.mark.parametrize("ep, why", [
    (EntryPoint("ts", "pkg:Counted", Counted), "^the method name 'ts' is taken$"),
    (EntryPoint("counted", "pkg:Nope", 3), "^pkg:Nope is not an engine.methods.Method subclass$"),
    (EntryPoint("other", "pkg:Counted", Counted), "^pkg:Counted is named 'counted', not 'other'$"),
    (EntryPoint("Bad Name", "pkg:Counted", Counted), "method name must be lower-case"),
])
def test_the_admission_refuses_in_one_line(method_kind, ep, why):
    with pytest.raises(AELError, match=why):
        method_kind.admit(ep)
    assert list(method_kind.registry) == ["ts"]


def test_a_hostile_name_is_refused_before_the_plugin_is_imported(method_kind):
    class Loud(EntryPoint):
        def load(self):
            raise AssertionError("imported")

    with pytest.raises(RegistryError):
        method_kind.admit(Loud("x\x1b]0;pwned\x07", "pkg:Thing"))


def test_the_three_groups_admit_through_the_one_kind():
    assert scenarios.PLUGINS.group == plugins.SCENARIOS and scenarios.PLUGINS.registry is scenarios.REGISTRY
    assert methods.PLUGINS.group == plugins.METHODS and methods.PLUGINS.registry is METHODS
    assert variant_set.PLUGINS.group == plugins.VARIANTS and variant_set.PLUGINS.registry is VARIANTS
    for kind in (scenarios.PLUGINS, methods.PLUGINS, variant_set.PLUGINS):
        assert isinstance(kind, plugins.Kind)


def test_a_scenario_plugin_is_kept_as_its_spec_module(tmp_path, monkeypatch):
    (tmp_path / "ael_test_registry_world.py").write_text(
        "from tests.tiny_scenario.spec import SPEC\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    kind = plugins.Kind(plugins.SCENARIOS, Registry("scenario", attr="SPEC"), scenarios.PLUGINS.expected,
                        scenarios.PLUGINS.accepts, scenarios.PLUGINS.imported, scenarios.PLUGINS.entry)
    kind.admit(EntryPoint("tiny", "ael_test_registry_world:SPEC"))
    assert kind.registry["tiny"] == "ael_test_registry_world" and kind.registry.load("tiny").name == "tiny"
    with pytest.raises(AELError, match="^ael_test_registry_world is named 'tiny', not 'tinier'$"):
        kind.admit(EntryPoint("tinier", "ael_test_registry_world"))
    (tmp_path / "ael_test_registry_empty.py").write_text("SPEC = 3\n")
    with pytest.raises(AELError, match="is not a module holding SPEC"):
        kind.admit(EntryPoint("empty", "ael_test_registry_empty"))
    for name in ("ael_test_registry_world", "ael_test_registry_empty"):
        sys.modules.pop(name, None)
