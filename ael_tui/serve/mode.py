"""What a served lab may do: the settings `ael-lab serve` hands each visitor's app.

Visitors are untrusted. A served lab reads and writes files only inside its
sessions folder (`confine`), starts LLM backends only when the teacher said
`--allow-llm` (`check_new`, `admit`), downloads nothing, and reads data only
from what the teacher gave: the portfolio's offline generator (a data folder
would read the teacher's disk, Yahoo would use the teacher's network on every
visitor's behalf) and the news world's articles from the teacher's local copy
(`--news-data`), offered only when there is one (`scenario_options`, and
`make_scenario` for every session a visitor builds or loads). A world that reads a
file the person names (the stream world's table, FILE_DATA) reads it only from the
sessions folder, confined as a save is (`confined_data`), its preview too.

Everything the visitor's process writes for itself (its home, temporary files,
caches, scikit-learn's data home) is under `.ael-lab/` in the sessions folder
(`private_env`), a folder the visitor cannot name (`confine` refuses it).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ael_lab import AELError
from ael_lab.host import NO_DOWNLOADS

from ael_cli.serve_flags import DEFAULT_FOLDER_QUOTA_MIB, DEFAULT_QUOTA_MIB

ENV = "AEL_LAB_SERVED"  # the JSON of a ServedMode, set by the server in each app's environment
PRIVATE = ".ael-lab"    # the lab's own files inside the sessions folder (home, tmp, caches)
PRIVATE_DIRS = ("home", "tmp", "cache", "cache/support", "scikit_learn_data")
# the worlds whose `data` is a file a visitor may name: read only from the sessions folder
# (the teacher puts it there), the path confined as a save's is, before anything reads it
FILE_DATA = {"stream": "tickets.csv"}  # world -> an example name for the refusal


@dataclass(frozen=True)
class ServedMode:
    root: str                      # the sessions folder (absolute)
    allow_llm: bool = False
    scenario: str | None = None    # open every visitor's lab on this scenario...
    seed: int = 42
    selector: str = "ts+reflection"
    tour: bool = False             # ...at the tour's first card
    news_data: str | None = None   # the teacher's copy of the 20 Newsgroups articles (absolute), or no news
    quota_mib: float = DEFAULT_QUOTA_MIB
    folder_quota_mib: float = DEFAULT_FOLDER_QUOTA_MIB

    @staticmethod
    def local_news(path: str) -> str:
        """The teacher's copy of the 20 Newsgroups articles (`--news-data`), read once now: a bad
        folder is one line when the server starts, not an error on every visitor's screen."""
        from scenarios.news.corpus import read_local

        read_local(path, flag="--news-data")
        return path

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

    @property
    def private(self) -> Path:
        return self.folder / PRIVATE

    def confine(self, path: Path, what: str = "file", example: str = "mysession.json") -> Path:
        """`path` inside the sessions folder, or AELError. A relative path is taken inside the
        folder; `..` is refused wherever it is, and so is anything that resolves outside
        (an absolute path elsewhere, `~`, a symlink leading out) or into the lab's own
        `.ael-lab/` (its caches: a visitor's file there could change another's results).
        Every path a visitor names comes here: saves, loads, exports, data files."""
        text = str(path)
        refuse = AELError(f"{what}: {text!r} is outside this lab's sessions folder; "
                          f"give a name such as {example}")
        if not text.strip() or "\x00" in text or text.startswith("~") or ".." in Path(text).parts:
            raise refuse
        folder = self.folder
        try:
            resolved = (folder / path).resolve()
        except (OSError, RuntimeError, ValueError):  # a symlink loop, a name the OS refuses
            raise refuse from None
        if resolved == folder or not resolved.is_relative_to(folder):
            raise refuse
        if resolved.is_relative_to(self.private):
            raise AELError(f"{what}: {text!r} is in {PRIVATE}/, the lab's own folder; give another name")
        return resolved

    # ------------------------------------------------------------ environment
    def private_env(self, keys_file: str | None = None) -> dict[str, str]:
        """The variables that keep a visitor's process writing inside the sessions folder
        (its home, temporary files, every cache, scikit-learn's data home; no bytecode
        written beside the code) and off the network for data. `keys_file`: the teacher's
        keymap, which a home moved into the folder would no longer find."""
        p = self.private
        env = {"HOME": str(p / "home"), "TMPDIR": str(p / "tmp"), "TEMP": str(p / "tmp"), "TMP": str(p / "tmp"),
               "XDG_CACHE_HOME": str(p / "cache"), "XDG_DATA_HOME": str(p / "home" / ".local" / "share"),
               "XDG_STATE_HOME": str(p / "home" / ".local" / "state"),
               "AEL_LAB_CACHE_DIR": str(p / "cache" / "support"), "SCIKIT_LEARN_DATA": str(p / "scikit_learn_data"),
               "MPLCONFIGDIR": str(p / "cache" / "matplotlib"), "PYTHONDONTWRITEBYTECODE": "1",
               NO_DOWNLOADS: "1"}
        if keys_file:
            env["AEL_LAB_KEYS"] = keys_file
        return env

    def prepare(self) -> None:
        """Create the lab's own folders (before the first visitor: TMPDIR must exist, or
        Python would fall back to /tmp)."""
        for name in PRIVATE_DIRS:
            (self.private / name).mkdir(parents=True, exist_ok=True)

    # ---------------------------------------------------------------- sessions
    def check_new(self, agent: str, reflector: str, llm: dict[str, Any] | None, data: str | None) -> None:
        """Refuse a new session a served lab must not start (AELError says why)."""
        uses_llm = agent != "offline" or reflector != "offline" or bool(llm)
        if uses_llm and not self.allow_llm:
            raise AELError("this lab is served offline: choose the offline agent and reflector")
        if data not in (None, "", "synthetic"):
            raise AELError("this lab is served with the synthetic market only")

    def unavailable(self, scenario: str) -> str:
        """Why a served lab does not offer `scenario` ("" when it does)."""
        if scenario == "news" and self.news_data is None:
            return ("news is not served here: its articles would be downloaded, and the teacher gave no local "
                    "copy (ael-lab serve --news-data DIR)")
        return ""

    def scenario_options(self, scenario: str, options: dict[str, Any] | None) -> dict[str, Any]:
        """The options a new served session of `scenario` runs with: the news world reads the
        teacher's copy of its articles (a visitor's choice of source is refused), every other
        option is checked by `check_options`."""
        options = dict(options or {})
        if scenario == "news":
            if why := self.unavailable(scenario):
                raise AELError(why)
            if options.get("data") not in (None, "", "sklearn", self.news_data):
                raise AELError("news: a served lab reads the teacher's copy of the articles; leave Articles "
                               "at its first choice")
            options["data"] = self.news_data
        options = self.confined_data(scenario, options)
        self.check_options(scenario, options)
        return options

    def confined_data(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        """`options` with a world's data file (FILE_DATA) placed in the sessions folder (its
        absolute path there: a save's relative name is read from the folder, never from
        wherever the process stands), AELError when it is outside."""
        data = options.get("data")
        if scenario not in FILE_DATA or data in (None, ""):
            return options
        placed = self.confine(Path(str(data)), "data file", FILE_DATA[scenario])
        return {**options, "data": str(placed)}

    def check_options(self, scenario: str, options: dict[str, Any] | None) -> None:
        """Refuse scenario options that would read or write outside the folder, or download."""
        options = options or {}
        data = options.get("data")
        if scenario == "news":
            if why := self.unavailable(scenario):
                raise AELError(why)
            if data != self.news_data:
                raise AELError(f"this news session reads its articles from {data or 'a download'}; a served lab "
                               "reads only the teacher's copy: start a new news session here")
        elif scenario in FILE_DATA:
            self.confined_data(scenario, options)  # AELError when its data file is outside the folder
        elif data not in (None, "", "synthetic"):
            raise AELError("this session reads data from outside; a served lab uses the synthetic market")
        if options.get("cache_dir") is not None:
            raise AELError("this session names a cache folder; a served lab keeps its caches itself")

    def make_scenario(self, name: str, seed: int, options: dict[str, Any] | None = None):
        """`scenarios.make_scenario`, after `check_options`: what a served lab builds and
        loads sessions with, so nothing is read or fetched before the check."""
        from ael_lab.worlds import make_scenario

        self.check_options(name, options)
        return make_scenario(name, seed, self.confined_data(name, options) if options else options)

    def admit(self, session) -> None:
        """Refuse a loaded session whose settings call a model, unless the teacher allowed it."""
        llm = getattr(session.config, "llm", None) or {}
        uses = any(llm.get(role, "offline") != "offline" for role in ("agent", "reflector"))
        if uses and not self.allow_llm:
            raise AELError("this session calls a language model, and this lab is served offline; "
                           "open it on your own machine")
        self.check_options(session.config.scenario, session.config.scenario_options)
