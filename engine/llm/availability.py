"""Which providers can be used here and now, without importing any SDK."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Mapping

from . import local_model
from .settings import DEFAULT_MODELS, PROVIDERS


@dataclass(frozen=True)
class ProviderStatus:
    """Whether a provider would work: its SDK is installed and its key (or URL) is set."""

    provider: str
    usable: bool
    why: str          # "" when usable, else what is missing, e.g. "set ANTHROPIC_API_KEY"
    model: str        # the model it would use by default ("" if none is known)


def provider_status(env: Mapping[str, str]) -> list[ProviderStatus]:
    """One status per provider, in `PROVIDERS` order. Looks for the SDKs with
    `importlib.util.find_spec`, so no SDK code runs (only the empty `google`
    namespace package is imported) and no socket is opened."""
    out = []
    for name in PROVIDERS:
        model = DEFAULT_MODELS.get(name, "")
        if name == "offline":
            out.append(ProviderStatus(name, True, "", model))
        elif name == "anthropic":
            out.append(_status(name, model, "anthropic", env.get("ANTHROPIC_API_KEY"), "set ANTHROPIC_API_KEY"))
        elif name == "local":
            why = local_model.why_unusable()
            out.append(ProviderStatus(name, not why, why, model))
        elif name == "gemini":
            key = env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY")
            out.append(_status(name, model, "google.genai", key, "set GEMINI_API_KEY or GOOGLE_API_KEY"))
        else:
            model = env.get("AEL_OPENAI_MODEL", "")
            missing = [v for v in ("AEL_OPENAI_BASE_URL", "AEL_OPENAI_MODEL") if not env.get(v)]
            out.append(ProviderStatus(name, not missing, f"set {' and '.join(missing)}" if missing else "", model))
    return out


def _status(name: str, model: str, module: str, key: str | None, advice: str) -> ProviderStatus:
    if not _installed(module):
        return ProviderStatus(name, False, f"the {module.split('.')[0]} SDK is not installed", model)
    if not key:
        return ProviderStatus(name, False, advice, model)
    return ProviderStatus(name, True, "", model)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package is missing
        return False
