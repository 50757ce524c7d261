"""Building and loading sessions for the lab (no widgets here)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import ael_lab
from ael_lab import AELError
from ael_lab.runs import Session
from ael_lab.store import load_session
from ael_lab.worlds import make_scenario

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
    from ael_lab.llm import local_model_unusable  # finds llama_cpp without importing it

    if not local_model_unusable():
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

    def llm_settings(self) -> dict[str, Any] | None:
        """Who plays the agent and the reflector, as `ael_lab.new`'s `llm` takes it: the full
        config `ael-lab lab`'s flags gave, else the start screen's two choices (None: offline)."""
        if self.llm:
            return dict(self.llm)
        if self.agent == "offline" and self.reflector == "offline":
            return None
        return {"agent": self.agent, "reflector": self.reflector}


def build_session(spec: NewSession) -> Session:
    """A new session, built by `ael_lab.new` as a script's is; AELError for anything a person can
    fix (a seed the save cannot hold, an unknown selector, a model agent in a world without one...)."""
    if spec.approval not in APPROVAL_MODES:
        raise AELError(f"approval mode {spec.approval!r}: expected manual or auto")
    return ael_lab.new(spec.scenario, spec.seed, approval=spec.approval, selector=spec.selector,
                       variants=spec.variants or (), llm=spec.llm_settings(), options=spec.options,
                       reflector_options=spec.reflector_options).engine


def open_session(path: Path, llm_url: str | None = None) -> Session:
    return load_session(path, make_scenario, llm_url=llm_url)
