"""Building and loading sessions for the lab (no widgets here)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from engine.errors import AELError
from engine.store.persistence import load_session
from engine.session import Session, SessionConfig
from scenarios import make_scenario, spec_of

from ael_lab.extend import scenario_availability, selectors_of  # noqa: F401 - the lists every front end reads

APPROVAL_MODES = ("manual", "auto")


def usable_backends(role: str, env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(value, label) of the agent or reflector backends that can work here and now:
    offline always; a provider only if its key (or, for an OpenAI-compatible server,
    its URL) is in the environment; the local model only when the local extra is installed."""
    env = os.environ if env is None else env
    out = [("offline", "offline (no API calls, $0)")]
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
    options: dict[str, Any] | None = None  # the scenario's options (its spec's), e.g. the portfolio's data
    llm: dict[str, Any] | None = None    # a full LLMConfig dict (`ael-lab lab` flags); overrides agent/reflector
    reflector_options: dict[str, Any] | None = None  # `ael-lab lab --trigger/--reflect-*` (as `ael-lab run`)
    variants: list[str] | None = None    # `--variant` / the start screen's Variants field (engine/variants/__init__.py)

    def config(self) -> SessionConfig:
        if self.approval not in APPROVAL_MODES:
            raise AELError(f"approval mode {self.approval!r}: expected manual or auto")
        options = dict(self.options or {})
        extra: dict[str, Any] = {}
        if self.llm:
            extra["llm"] = dict(self.llm)
        elif self.agent != "offline" or self.reflector != "offline":
            if self.agent != "offline" and not spec_of(self.scenario).uses_llm:
                raise AELError(f"the {self.scenario} scenario has no agent a model could play: "
                               "choose the offline agent")
            extra["llm"] = {"agent": self.agent, "reflector": self.reflector}
        if self.reflector_options:
            extra["reflector_options"] = dict(self.reflector_options)
            if "cadence" in self.reflector_options:  # as `ael-lab run`: the slow window is the cadence
                extra["slow_window"] = self.reflector_options["cadence"]
        if self.variants:
            from engine.variants.session_variants import check_variants

            extra["variants"] = [v.text for v in check_variants(self.variants, self.scenario)]
        return SessionConfig(scenario=self.scenario, seed=self.seed, selector=self.selector,
                             approval=self.approval, scenario_options=options, **extra)


def build_session(spec: NewSession) -> Session:
    """A new session; AELError for anything a person can fix (unknown selector, bad data...)."""
    from ael_cli.flags.values import check_seed

    check_seed(spec.seed)  # the save's bounds (engine/limits.py): what starts here can be saved and resumed
    config = spec.config()
    from engine.methods import parse_method

    parse_method(config.selector)
    scenario = make_scenario(config.scenario, config.seed, config.scenario_options)
    return Session(config, scenario)


def open_session(path: Path, llm_url: str | None = None) -> Session:
    return load_session(path, make_scenario, llm_url=llm_url)
