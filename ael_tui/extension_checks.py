"""The lab's and the command line's half of the conformance checks, on top of the public ones.

Every registered scenario, method and variant passes them in the suite
(tests/unit/test_conformance.py parametrizes over the registries), so a new extension
gets these tests without writing them. Each runs every case of the public checks
(`ael_lab.check_scenario`, `check_method`, `check_variant`: ael_lab/extend/checks.py),
then checks what a person sees beyond the lists they read: the extension is in
`ael-lab run --help`, a prior method has its paragraph in the lab's help, and the lab's
panels declared for a variant read its session without failing. The screens are not started.
"""

from __future__ import annotations

import contextlib
import io

from ael_lab import ConformanceError
from ael_lab.worlds import make_scenario, spec_of

import ael_lab as public


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


def _all(checks) -> None:
    for check in checks:
        check()


def check_scenario(name: str, *, seed: int = 3, options: dict | None = None) -> None:
    """The public checks, then: in `run --help` with its summary."""
    _all(public.check_scenario(name, seed=seed, options=options))
    spec = spec_of(name)
    if squeeze(f"{name}: {spec.summary}") not in run_help():
        raise ConformanceError(f"scenario {name}: not described in `ael-lab run --help`")


def check_method(name: str, *, seed: int = 3) -> str:
    """The public checks, then: in `run --help` (the selector's list), and a prior method's
    paragraph in the lab's help. The world it ran on."""
    from ael_lab.extend import offering_scenarios
    from ael_lab.selectors import method_help

    _all(public.check_method(name, seed=seed))
    if squeeze(method_help()) not in run_help():
        raise ConformanceError(f"method {name}: not listed in `ael-lab run --help`")
    _check_prior_help(name)
    return offering_scenarios(name)[0]


def _check_prior_help(name: str) -> None:
    """A prior method (engine/prior) says in the lab's help what it keeps and how it differs from AEL."""
    from ael_lab.selectors import METHODS, PriorMethod
    from ael_tui.help_screen import panels_text

    if issubclass(METHODS[name], PriorMethod) and f"{name}. " not in panels_text(lambda _: "?").plain:
        raise ConformanceError(f"method {name}: a prior method without its paragraph in the lab's help "
                               "(set its class's `help`)")


def check_variant(name: str, *, seed: int = 3) -> str:
    """The public checks, then: in `run --help` (`--variant`), and the lab's panels declared for
    it (core and from `ael_lab.panels` entry points) read its session without failing. The world
    it ran on."""
    from ael_cli.flags.variant_flags import variants_help
    from ael_lab.extend import reflecting_selector
    from ael_tui.lab.panels import panels_for
    from ael_lab.runs import Session, SessionConfig
    from ael_lab.selectors import VARIANTS

    _all(public.check_variant(name, seed=seed))
    help_parts = [squeeze(part) for part in variants_help().split("; ")]
    if not any(p.startswith(squeeze(name)) and p in run_help() for p in help_parts):
        raise ConformanceError(f"variant {name}: not listed in `ael-lab run --help` (--variant)")
    cls = VARIANTS[name]
    scenario = next(s for s in public.scenario_names() if not cls.scenarios or s in cls.scenarios)
    session = Session(SessionConfig(scenario=scenario, seed=seed, selector=reflecting_selector(scenario),
                                    variants=[name]), make_scenario(scenario, seed, {}))
    for panel in panels_for(session):
        panel.view(session)  # before the first step
    session.run(until=min(session.n_episodes, session.warmup + 3))
    for panel in panels_for(session):
        panel.view(session)
    return scenario
