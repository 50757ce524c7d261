"""Who plays the agent and the reflector, as the command line and the start screen set it:
the model settings, one cassette shared by a command's sessions, the line that says how many
calls fell back offline, and whether the local model can run here (docs/api.md, "For the
front ends"). `ael_lab.new(..., llm={...})` takes the same settings as a dict."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "LLMConfig": "engine.llm.setup:LLMConfig",
    "shared_cassette": "engine.llm.setup:shared_cassette",
    "fallback_line": "engine.llm.setup:fallback_line",
    "local_model_unusable": "engine.llm.local_model:why_unusable",
    "import_sdks": "engine.llm.providers:import_sdks",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
