"""Building and loading sessions for the lab (no widgets here)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Mapping

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


def _llm_wired() -> bool:
    """Whether this build's sessions take an LLM configuration (`SessionConfig.llm`)."""
    return "llm" in {f.name for f in fields(SessionConfig)}


def usable_backends(role: str, env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(value, label) of the agent or reflector backends that can work here and now:
    offline always; a provider only if sessions take an LLM configuration and its
    key (or, for an OpenAI-compatible server, its URL) is in the environment; the
    local model only when the local extra is installed."""
    env = os.environ if env is None else env
    out = [("offline", "offline (no API calls, $0)")]
    if not _llm_wired():
        return out
    if env.get("ANTHROPIC_API_KEY"):
        out.append(("anthropic", "Anthropic (ANTHROPIC_API_KEY)"))
    if env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY"):
        out.append(("gemini", "Google Gemini (GEMINI_API_KEY)"))
    if env.get("AEL_OPENAI_BASE_URL"):
        out.append(("openai-compatible", "OpenAI-compatible server (AEL_OPENAI_BASE_URL)"))
    from engine.llm.local_model import why_unusable  # finds llama_cpp without importing it

    if not why_unusable():
        out.append(("local", "local SmolLM2-135M (no key, no network; shows the loop, not insight)"))
    return out


@dataclass
class NewSession:
    scenario: str
    seed: int = 42
    selector: str = "ts+reflection"
    approval: str = "manual"
    agent: str = "offline"
    reflector: str = "offline"
    data: str | None = None              # portfolio only: synthetic, yahoo or a folder
    llm: dict[str, Any] | None = None    # a full LLMConfig dict (`ael-lab lab` flags); overrides agent/reflector

    def config(self) -> SessionConfig:
        if self.approval not in APPROVAL_MODES:
            raise AELError(f"approval mode {self.approval!r}: expected manual or auto")
        options: dict[str, Any] = {}
        if self.data not in (None, ""):
            if self.scenario != "portfolio":
                raise AELError("a data source applies only to the portfolio scenario")
            options["data"] = self.data
        extra: dict[str, Any] = {}
        if self.llm:
            if not _llm_wired():
                raise AELError("this build runs offline only: drop the LLM flags")
            extra["llm"] = dict(self.llm)
        elif self.agent != "offline" or self.reflector != "offline":
            if not _llm_wired():
                raise AELError("this build runs offline only: choose the offline agent and reflector")
            if self.agent != "offline" and not scenario_class(self.scenario).llm_agent:
                raise AELError(f"the {self.scenario} scenario has no agent a model could play: "
                               "choose the offline agent")
            extra["llm"] = {"agent": self.agent, "reflector": self.reflector}
        return SessionConfig(scenario=self.scenario, seed=self.seed, selector=self.selector,
                             approval=self.approval, scenario_options=options, **extra)


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
