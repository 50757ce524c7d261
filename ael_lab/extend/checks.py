"""The public conformance checks: `check_scenario`, `check_method`, `check_variant`.

Each yields the checks of one registered extension as separate cases (as scikit-learn's
`check_estimator(generate_only=True)` and `parametrize_with_checks`), which a plugin's own
suite turns into pytest cases with one line:

    @pytest.mark.parametrize("check", ael_lab.check_scenario("my-world"), ids=str)
    def test_my_world(check):
        check()

A check that the extension's class declares it fails, `expected_failures = {"NAME": "why"}`
(on the scenario class, the method class, the variant class), is an expected failure: it
reports as xfail with the reason, and once it passes it fails, saying to take the
declaration away (a strict xfail). An unknown NAME in the declaration fails too.

The cases are made without reading a registry, so a suite may generate them at collection
and register its extension in a fixture (registered for the tests, gone after them); each
case reads the registries, and its class's declaration, when it runs.

What each checks: the engine's machinery (engine/conformance.py: builds, steps, saves mid-run
and resumes exactly, rewinds and branches exactly, its saved state fits its model, a bad
option is one line), and that the extension is listed where every front end reads its lists
(`listed`: the registry, the selectors a world offers, the method and variant help lines).
The runs that several checks compare with are made once per extension and shared by its
checks. The lab adds its own half (its help screen, its panels: ael_tui/extension_checks.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import scenarios
from engine import conformance as machinery
from engine.conformance import ConformanceError
from engine.errors import AELError
from engine.method_base import METHODS, method_help, offers, parse_method
from engine.session import Session, SessionConfig
from engine.variants import VARIANTS

from ael_lab.extend.lists import selectors_of

SCENARIO_CHECKS = ("described", "refuses_bad_options", "resumes_exactly", "goes_back_exactly",
                   "saved_state_fits_model", "listed")
METHOD_CHECKS = ("described", "offered", "refuses_bad_options", "resumes_exactly", "goes_back_exactly",
                 "saved_state_fits_model", "listed")
VARIANT_CHECKS = ("described", "refuses_bad_options", "refused_where_meaningless", "resumes_exactly",
                  "goes_back_exactly", "saved_state_fits_model", "listed")


@dataclass(eq=False)
class Check:
    """One check of one extension: call it (a pytest case calls it); `str()` is its id."""

    kind: str                    # "scenario", "method", "variant"
    extension: str
    name: str
    run: Callable[[], None] = field(repr=False)
    declared: Callable[[], dict[str, str]] = field(repr=False, default=dict)  # its class's expected_failures

    def __str__(self) -> str:
        return f"{self.kind}:{self.extension}:{self.name}"

    @property
    def expected_failure(self) -> str:
        """The reason its class declares this check fails, "" when it must pass."""
        return self.declared().get(self.name, "")

    def __call__(self) -> None:
        expected = self.expected_failure
        try:
            self.run()
        except ConformanceError as err:
            if not expected:
                raise
            import pytest  # only a declared expected failure needs it: a plugin's suite runs pytest

            pytest.xfail(f"{expected} ({err})")
        if expected:
            raise ConformanceError(f"{self.kind} {self.extension}: {self.name} passes, but its class declares it "
                                   f"an expected failure ({expected!r}): drop it from expected_failures")


def _declared(kind: str, name: str, cls: type, known: tuple[str, ...]) -> dict[str, str]:
    declared = getattr(cls, "expected_failures", None) or {}
    if not isinstance(declared, dict) or not all(isinstance(v, str) and v for v in declared.values()):
        raise ConformanceError(f"{kind} {name}: expected_failures must map a check's name to why it fails")
    wrong = sorted(set(declared) - set(known))
    if wrong:
        raise ConformanceError(f"{kind} {name}: expected_failures names {wrong[0]!r}, which is no check "
                               f"(one of {', '.join(known)})")
    return dict(declared)


def _cases(kind: str, name: str, cls: Callable[[], type], checks: dict[str, Callable[[], None]],
           known: tuple[str, ...]) -> Iterator[Check]:
    """One case per known check; the class (and its declaration) is read when a case runs."""
    for check in known:
        yield Check(kind, name, check, checks[check], lambda: _declared(kind, name, cls(), known))


class _Runs:
    """The straight run several checks compare with, made at most once (the first check that needs it)."""

    def __init__(self, what: str, config: Callable[[], SessionConfig]):
        self.what, self._config, self._straight = what, config, None

    def config(self) -> SessionConfig:
        return self._config()

    def straight(self) -> Session:
        if self._straight is None:
            self._straight = machinery.straight_run(self.what, self.config(), scenarios.make_scenario)
        return self._straight

    def resumes(self) -> None:
        machinery.check_resume(self.what, self.config(), scenarios.make_scenario, straight=self.straight())

    def goes_back(self) -> None:
        straight = self.straight()
        machinery.check_time_travel(self.what, straight, machinery.cut_of(straight), scenarios.make_scenario)

    def saved_state(self) -> None:
        machinery.check_saved_state(self.what, self.straight())


def reflecting_selector(scenario: str) -> str:
    """The selector a check runs a world with: its first with reflection, else its first."""
    spec = scenarios.spec_of(scenario)
    return next((s for s in spec.selectors if s.endswith("+reflection")), spec.selectors[0])


def _refuses_bad_options(what: str, parse: Callable[[str], Any], base: str, options) -> None:
    machinery.one_line_refusal(what, lambda: parse(f"{base}(no_such_option=1)"), "no_such_option")
    for option in options:
        bad = machinery.bad_value(option)
        if bad is not None:
            machinery.one_line_refusal(f"{what} option {option.name}", lambda o=option, v=bad: parse(f"{base}({o.name}={v})"))


def _fail(what: str, message: str) -> ConformanceError:
    return ConformanceError(f"{what}: {message}")


# ------------------------------------------------------------------ a world
def check_scenario(name: str, *, seed: int = 3, options: dict | None = None) -> Iterator[Check]:
    """The checks of the registered world `name` (with `options`: say a data folder a test gives)."""
    what = f"scenario {name}"
    runs = _Runs(what, lambda: SessionConfig(scenario=name, seed=seed, selector=reflecting_selector(name),
                                             approval="auto", scenario_options=dict(options or {})))

    def described() -> None:
        spec = scenarios.spec_of(name)
        if spec.name != name or not spec.summary or not spec.selectors:
            raise _fail(what, "its spec must carry its own name, a summary and at least one selector")
        for text in spec.selectors:
            try:
                parse_method(text)
            except AELError as err:
                raise _fail(what, f"offers {text!r}, which is not a registered method ({err})") from err
        for option in spec.options:
            if not option.help:
                raise _fail(what, f"option {option.name!r} has no help")

    def refuses_bad_options() -> None:
        make = scenarios.make_scenario
        machinery.one_line_refusal(what, lambda: make(name, seed, {"no_such_option": 1}), "no_such_option")
        for option in scenarios.spec_of(name).options:
            bad = machinery.bad_value(option)
            if bad is not None:
                machinery.one_line_refusal(f"{what} option {option.name}",
                                           lambda o=option, v=bad: make(name, seed, {o.name: v}))

    def listed() -> None:
        if name not in scenarios.scenario_names():
            raise _fail(what, "is not registered")
        try:
            scenarios.scenario_class(name)
        except AELError as err:
            raise _fail(what, f"registered but not usable in this build ({err})") from err
        spec = scenarios.spec_of(name)
        if selectors_of(name)[: len(spec.selectors)] != list(spec.selectors):
            raise _fail(what, "the lists of selectors the start screen and the compare view read do not begin "
                        "with its own")

    checks = {"described": described, "refuses_bad_options": refuses_bad_options, "resumes_exactly": runs.resumes,
              "goes_back_exactly": runs.goes_back, "saved_state_fits_model": runs.saved_state, "listed": listed}
    yield from _cases("scenario", name, lambda: _scenario_class(name), checks, SCENARIO_CHECKS)


def _scenario_class(name: str) -> type:
    try:
        return scenarios.scenario_class(name)
    except AELError:
        return object  # no class to read declarations from: `listed` says why it cannot be used


def _registered(what: str, registry, name: str) -> type:
    cls = registry.get(name)
    if cls is None:
        raise _fail(what, "is not registered")
    return cls


# ------------------------------------------------------------------ a method
def offering_scenarios(method: str) -> list[str]:
    """The registered worlds that offer `method`: their spec lists it, or it names them (`worlds`)."""
    return [s for s in scenarios.scenario_names() if offers(scenarios.spec_of(s), method)]


def method_text(method: str, scenario: str) -> str:
    """How the world offers the method (`fixed:none`), else its bare name."""
    spec = scenarios.spec_of(scenario)
    for text in (*spec.selectors, *spec.prior_methods):
        try:
            if parse_method(text).name == method:
                return text
        except AELError:
            continue
    return method


def check_method(name: str, *, seed: int = 3) -> Iterator[Check]:
    """The checks of the registered method `name`, run on the first world that offers it."""
    what = f"method {name}"

    def cls() -> type:
        return _registered(what, METHODS, name)

    def first_world() -> str:
        offered = offering_scenarios(name)
        if not offered:
            raise _fail(what, "no world offers it (a spec's selectors or prior_methods, or the method's "
                        "`worlds`): no one can run it")
        return offered[0]

    def bare() -> str:  # NAME or NAME:ARGUMENT, as the world offers it
        return method_text(name, first_world()).removesuffix("+reflection")

    runs = _Runs(what, lambda: SessionConfig(scenario=first_world(), seed=seed, approval="auto",
                                             selector=method_text(name, first_world())))

    def described() -> None:
        if not cls().summary:
            raise _fail(what, "has no summary")
        for world in cls().worlds:
            if world not in scenarios.scenario_names():
                raise _fail(what, f"offers itself to {world!r}, which is not a registered world")

    def listed() -> None:
        if name not in [h.split(":")[0] for h in method_help().split(";")[0].split(", ")]:
            raise _fail(what, "not in the methods' help line (`--selector`)")
        for where in offering_scenarios(name):
            if method_text(name, where) not in selectors_of(where):
                raise _fail(what, f"{where} offers it, but the lists the start screen and the compare view "
                            "read do not")

    checks = {"described": described, "offered": first_world,
              "refuses_bad_options": lambda: _refuses_bad_options(what, parse_method, bare(), cls().options),
              "resumes_exactly": runs.resumes, "goes_back_exactly": runs.goes_back,
              "saved_state_fits_model": runs.saved_state, "listed": listed}
    yield from _cases("method", name, cls, checks, METHOD_CHECKS)


# ------------------------------------------------------------------ a variant
def check_variant(name: str, *, seed: int = 3) -> Iterator[Check]:
    """The checks of the registered variant `name`, run on the first world it applies to."""
    from engine.variants.session_variants import check_variants, parse_variant, variant_help, variant_names

    what = f"variant {name}"

    def cls() -> type:
        return _registered(what, VARIANTS, name)

    def applies() -> list[str]:
        return [s for s in scenarios.scenario_names() if not cls().scenarios or s in cls().scenarios]

    def first_world() -> str:
        if not applies():
            raise _fail(what, f"applies to {', '.join(cls().scenarios)}, none of which is registered")
        return applies()[0]

    runs = _Runs(what, lambda: SessionConfig(scenario=first_world(), seed=seed, approval="auto",
                                             selector=reflecting_selector(first_world()), variants=[name]))

    def described() -> None:
        if not cls().summary:
            raise _fail(what, "has no summary")
        parse_variant(name)

    def refused_where_meaningless() -> None:
        elsewhere = [s for s in scenarios.scenario_names() if s not in applies()]
        if elsewhere:
            machinery.one_line_refusal(what, lambda: check_variants([name], elsewhere[0]), "no meaning")

    def listed() -> None:
        if name not in variant_names() or name not in [v.split("=")[0] for v in variant_help().split(", ")]:
            raise _fail(what, "not in the variants' help line (`--variant`, the lab's help)")

    checks = {"described": described,
              "refuses_bad_options": lambda: _refuses_bad_options(what, parse_variant, name, cls().options),
              "refused_where_meaningless": refused_where_meaningless, "resumes_exactly": runs.resumes,
              "goes_back_exactly": runs.goes_back, "saved_state_fits_model": runs.saved_state, "listed": listed}
    yield from _cases("variant", name, cls, checks, VARIANT_CHECKS)
