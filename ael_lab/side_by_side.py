"""Several selectors on one world's stream: one session each, from one config with its selector
replaced (the compare view's sessions, the oracle run a regret picture is measured against).
No Textual: the compare view steps these in lockstep (ael_tui/compare/lockstep.py)."""

from __future__ import annotations

from dataclasses import replace

from engine.errors import AELError
from engine.session import Session, SessionConfig
from scenarios import make_scenario, spec_of

MAX_SELECTORS = 5


def build_compare(config: SessionConfig, selectors: list[str], scenario=None) -> dict[str, Session]:
    """One session per selector, from `config` with its selector replaced and approvals
    automatic. Offline: an LLM config is dropped, so a comparison costs nothing and
    never writes a cassette. `scenario` (an instance) is reused when the scenario
    class says instances may be shared."""
    if not 1 <= len(selectors) <= MAX_SELECTORS:
        raise AELError(f"compare: choose between 1 and {MAX_SELECTORS} selectors")
    if len(set(selectors)) != len(selectors):
        raise AELError("compare: a selector is chosen twice")
    shareable = spec_of(config.scenario).shareable
    if scenario is None and shareable:
        scenario = make_scenario(config.scenario, config.seed, config.scenario_options)
    sessions = {}
    for name in selectors:
        cfg = replace(config, selector=name, approval="auto", llm={})
        world = scenario if shareable else make_scenario(cfg.scenario, cfg.seed, cfg.scenario_options)
        sessions[name] = Session(cfg, world)
    return sessions
