"""The lists every front end reads of the registries: the worlds usable in this build, the
selectors a world offers. The start screen, the compare view, `ael-lab chart` and the
conformance checks' `listed` read them here, so an extension a check finds listed is one a
person finds listed."""

from __future__ import annotations

from engine.errors import AELError
from scenarios import scenario_class, scenario_names, spec_of


def scenario_availability() -> dict[str, str]:
    """Scenario name -> "" if it can be used now, else why not (a registered scenario whose
    libraries are not installed). Imports each scenario."""
    out = {}
    for name in scenario_names():
        try:
            scenario_class(name)
            out[name] = ""
        except AELError as err:
            out[name] = str(err)
    return out


def selectors_of(scenario: str) -> list[str]:
    """The session methods the scenario offers (baselines are not sessions), its prior methods
    and the methods that offer themselves to it (`Method.worlds`) last."""
    spec = spec_of(scenario)
    return [*spec.selectors, *spec.offered_methods]
