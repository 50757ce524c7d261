"""Building and loading sessions for the lab (no widgets here)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import AELError
from engine.persistence import load_session
from engine.session import Session, SessionConfig
from scenarios import REGISTRY, make_scenario, scenario_class

APPROVAL_MODES = ("manual", "auto")
DATA_SOURCES = ("synthetic", "yahoo", "folder")


def scenario_availability() -> dict[str, str]:
    """Scenario name -> "" if it can be used now, else why not. Imports each scenario."""
    out = {}
    for name in REGISTRY:
        try:
            scenario_class(name)
            out[name] = ""
        except AELError as err:
            out[name] = str(err)
    return out


def selectors_of(scenario: str) -> list[str]:
    try:
        return list(getattr(scenario_class(scenario), "all_selectors", None) or ["ts+reflection"])
    except AELError:
        return ["ts+reflection"]


def usable_backends(role: str) -> list[tuple[str, str]]:
    """(value, label) of the agent or reflector backends that work now.

    Only the offline backend is wired into sessions so far: `SessionConfig` has
    no field that picks an LLM agent or reflector. When it has, list the
    providers whose SDK imports and whose API key is set here.
    """
    return [("offline", "offline (no API calls, $0)")]


@dataclass
class NewSession:
    scenario: str
    seed: int = 42
    selector: str = "ts+reflection"
    approval: str = "manual"
    agent: str = "offline"
    reflector: str = "offline"
    data: str | None = None              # portfolio only: synthetic, yahoo or a folder

    def config(self) -> SessionConfig:
        if self.approval not in APPROVAL_MODES:
            raise AELError(f"approval mode {self.approval!r}: expected manual or auto")
        options: dict[str, Any] = {}
        if self.data not in (None, ""):
            if self.scenario != "portfolio":
                raise AELError("a data source applies only to the portfolio scenario")
            options["data"] = self.data
        return SessionConfig(scenario=self.scenario, seed=self.seed, selector=self.selector,
                             approval=self.approval, scenario_options=options)


def build_session(spec: NewSession) -> Session:
    """A new session; AELError for anything a person can fix (unknown selector, bad data...)."""
    if spec.seed < 0:
        raise AELError("seed: must be a non-negative integer")
    config = spec.config()
    from engine.bandits import parse_selector

    parse_selector(config.selector)
    scenario = make_scenario(config.scenario, config.seed, config.scenario_options)
    return Session(config, scenario)


def open_session(path: Path) -> Session:
    return load_session(path, make_scenario)
