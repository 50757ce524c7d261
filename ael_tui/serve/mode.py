"""What a served lab may do: the settings `ael-lab serve` hands each visitor's app.

Visitors are untrusted. A served lab reads and writes files only inside its
sessions folder (`confine`), starts LLM backends only when the teacher said
`--allow-llm` (`check_new`, `admit`), and reads market data only from the
offline generator (a data folder would read the teacher's disk, Yahoo would
use the teacher's network on every visitor's behalf).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.errors import AELError

ENV = "AEL_LAB_SERVED"  # the JSON of a ServedMode, set by the server in each app's environment


@dataclass(frozen=True)
class ServedMode:
    root: str                      # the sessions folder (absolute)
    allow_llm: bool = False
    scenario: str | None = None    # open every visitor's lab on this scenario...
    seed: int = 42
    selector: str = "ts+reflection"
    tour: bool = False             # ...at the tour's first card

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "ServedMode | None":
        text = (os.environ if env is None else env).get(ENV)
        if not text:
            return None
        return cls(**json.loads(text))

    @property
    def folder(self) -> Path:
        return Path(self.root).resolve()

    def confine(self, path: Path, what: str = "file") -> Path:
        """`path` inside the sessions folder, or AELError. A relative path is taken inside the
        folder; `..` is refused wherever it is, and so is anything that resolves outside
        (an absolute path elsewhere, `~`, a symlink leading out)."""
        text = str(path)
        refuse = AELError(f"{what}: {text!r} is outside this lab's sessions folder; "
                          "give a name such as mysession.json")
        if not text.strip() or "\x00" in text or text.startswith("~") or ".." in Path(text).parts:
            raise refuse
        folder = self.folder
        try:
            resolved = (folder / path).resolve()
        except (OSError, RuntimeError, ValueError):  # a symlink loop, a name the OS refuses
            raise refuse from None
        if resolved == folder or not resolved.is_relative_to(folder):
            raise refuse
        return resolved

    def check_new(self, agent: str, reflector: str, llm: dict[str, Any] | None, data: str | None) -> None:
        """Refuse a new session a served lab must not start (AELError says why)."""
        uses_llm = agent != "offline" or reflector != "offline" or bool(llm)
        if uses_llm and not self.allow_llm:
            raise AELError("this lab is served offline: choose the offline agent and reflector")
        if data not in (None, "", "synthetic"):
            raise AELError("this lab is served with the synthetic market only")

    def admit(self, session) -> None:
        """Refuse a loaded session whose settings call a model, unless the teacher allowed it."""
        llm = getattr(session.config, "llm", None) or {}
        uses = any(llm.get(role, "offline") != "offline" for role in ("agent", "reflector"))
        if uses and not self.allow_llm:
            raise AELError("this session calls a language model, and this lab is served offline; "
                           "open it on your own machine")
        data = (session.config.scenario_options or {}).get("data")
        if data not in (None, "", "synthetic"):
            raise AELError("this session reads market data from outside; a served lab uses the synthetic market")
