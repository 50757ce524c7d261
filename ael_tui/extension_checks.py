"""The public conformance checks of an extension: `check_scenario`, `check_method`, `check_variant`.

Every registered scenario, method and variant passes them in the suite
(tests/unit/test_conformance.py parametrizes over the registries), so a new extension
gets these tests without writing them. Each runs the engine's checks
(engine/conformance.py: builds, steps, saves mid-run and resumes exactly, its
saved state fits its model, refuses a bad option in one line) on the registered
scenarios, then checks what a person sees: the extension is in `ael-lab run
--help`, in the start screen's lists and in the compare view's list. The screens
are not started: the checks read the functions those lists are built from
(`scenario_availability`, `selectors_of`, `variant_names`), which keeps them fast.
"""

from __future__ import annotations

import contextlib
import io

import scenarios
from engine import conformance as engine_checks
from engine.conformance import ConformanceError


def run_help() -> str:
    """`ael-lab run --help`, as printed, without its white space (argparse wraps lines, at
    hyphens too)."""
    from ael_cli.main import build_parser

    parser = build_parser()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        parser.parse_args(["run", "--help"])
    return squeeze(out.getvalue())


def squeeze(text: str) -> str:
    return "".join(text.split())


def check_scenario(name: str, *, seed: int = 3, options: dict | None = None) -> None:
    """The engine's checks, then: in `run --help` with its summary, on the start screen's
    list of worlds (available in this build), and its selectors in the start screen's and
    the compare view's lists."""
    from ael_tui.widgets.opening import scenario_availability, selectors_of

    engine_checks.check_scenario(name, scenarios.spec_of, scenarios.make_scenario, seed=seed, options=options)
    spec = scenarios.spec_of(name)
    if squeeze(f"{name}: {spec.summary}") not in run_help():
        raise ConformanceError(f"scenario {name}: not described in `ael-lab run --help`")
    availability = scenario_availability()
    if name not in availability or availability[name]:
        raise ConformanceError(f"scenario {name}: not offered by the start screen ({availability.get(name)})")
    offered = selectors_of(name)
    if list(spec.selectors) != offered[: len(spec.selectors)]:
        raise ConformanceError(f"scenario {name}: the start screen and the compare view do not list its selectors")


def check_method(name: str, *, seed: int = 3) -> str:
    """The engine's checks on the first scenario that offers the method, then: in `run --help`
    (the selector's list) and in the start screen's and compare view's selector lists of every
    scenario that offers it. The scenario it ran on."""
    from engine.methods import method_help
    from ael_tui.widgets.opening import selectors_of

    names = scenarios.scenario_names()
    scenario = engine_checks.check_method(name, scenarios.spec_of, scenarios.make_scenario, names, seed=seed)
    shown = [h.split(":")[0] for h in method_help().split(";")[0].split(", ")]
    if name not in shown or squeeze(method_help()) not in run_help():
        raise ConformanceError(f"method {name}: not listed in `ael-lab run --help`")
    _check_prior_help(name)
    for where in engine_checks.offering_scenarios(name, scenarios.spec_of, names):
        text = engine_checks.method_text(name, where, scenarios.spec_of)
        if text not in selectors_of(where):
            raise ConformanceError(f"method {name}: {where} offers it, but the start screen and the compare "
                                   "view do not list it")
    return scenario


def _check_prior_help(name: str) -> None:
    """A prior method (engine/prior) says in the lab's help what it keeps and how it differs from AEL."""
    from engine.methods import METHODS
    from engine.prior import PriorMethod
    from ael_tui.help_screen import panels_text

    if issubclass(METHODS[name], PriorMethod) and f"{name}. " not in panels_text(lambda _: "?").plain:
        raise ConformanceError(f"method {name}: a prior method without its paragraph in the lab's help "
                               "(set its class's `help`)")


def check_variant(name: str, *, seed: int = 3) -> str:
    """The engine's checks on the first scenario the variant applies to, then: in `run --help`
    (`--variant`) and in the lab's help (F1, which the start screen's Variants field points
    to), and the lab's panels declared for it read its session without failing. The scenario
    it ran on."""
    from engine.variants.session_variants import variant_names
    from ael_tui.lab.panels import panels_for
    from ael_cli.flags.variant_flags import variants_help

    names = scenarios.scenario_names()
    scenario = engine_checks.check_variant(name, scenarios.spec_of, scenarios.make_scenario, names, seed=seed)
    help_parts = [squeeze(part) for part in variants_help().split("; ")]
    if name not in variant_names() or not any(p.startswith(squeeze(name)) and p in run_help() for p in help_parts):
        raise ConformanceError(f"variant {name}: not listed in `ael-lab run --help` (--variant) or the lab's help")
    from engine.session import Session, SessionConfig

    spec = scenarios.spec_of(scenario)
    selector = next((s for s in spec.selectors if s.endswith("+reflection")), spec.selectors[0])
    session = Session(SessionConfig(scenario=scenario, seed=seed, selector=selector, variants=[name]),
                      scenarios.make_scenario(scenario, seed, {}))
    for panel in panels_for(session):
        panel.view(session)  # before the first step
    session.run(until=min(session.n_episodes, session.warmup + 3))
    for panel in panels_for(session):
        panel.view(session)
    return scenario
