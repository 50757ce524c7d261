"""What a served lab may do: the settings `ael-lab serve` hands each visitor's app.

Visitors are untrusted. A served lab reads and writes files only inside its
sessions folder (`confine`), starts LLM backends only when the teacher said
`--allow-llm` (`check_new`, `admit`), downloads nothing, and reads data only
from what the teacher gave: the portfolio's offline generator (a data folder
would read the teacher's disk, Yahoo would use the teacher's network on every
visitor's behalf) and a world that reads a local copy of its data (the news world's
articles) from the teacher's (`--NAME-data`), offered only when there is one
(`scenario_options`, and `make_scenario` for every session a visitor builds or loads).
A world that reads a file the person names (the stream world's table) reads it only from
the sessions folder, confined as a save is (`confined_data`), its preview too. What each
world's data is, it says itself (`ScenarioSpec.served_data`): no world is named here.

Everything the visitor's process writes for itself (its home, temporary files,
caches, scikit-learn's data home) is under `.ael-lab/` in the sessions folder
(`private_env`), a folder the visitor cannot name (`confine` refuses it).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from ael_lab import AELError
from ael_lab.host import NO_DOWNLOADS
from ael_lab.worlds import check_local_copy, spec_of

from ael_cli.serve_flags import DEFAULT_FOLDER_QUOTA_MIB, DEFAULT_QUOTA_MIB

if TYPE_CHECKING:
    from ael_lab.runs import Session

ENV = "AEL_LAB_SERVED"  # the JSON of a ServedMode, set by the server in each app's environment
PRIVATE = ".ael-lab"    # the lab's own files inside the sessions folder (home, tmp, caches)
PRIVATE_DIRS = ("home", "tmp", "cache", "cache/support", "scikit_learn_data")


@dataclass(frozen=True)
class ServedMode:
    root: str                      # the sessions folder (absolute)
    allow_llm: bool = False
    scenario: str | None = None    # open every visitor's lab on this scenario...
    seed: int = 42
    selector: str = "ts+reflection"
    tour: bool = False             # ...at the tour's first card
    local_copies: dict[str, str] = field(default_factory=dict)  # world -> the teacher's copy of its data (absolute)
    quota_mib: float = DEFAULT_QUOTA_MIB
    folder_quota_mib: float = DEFAULT_FOLDER_QUOTA_MIB

    @staticmethod
    def local_copy(scenario: str, path: str) -> str:
        """The teacher's copy of a world's data (`--NAME-data`), read once now: a bad folder is one
        line when the server starts, not an error on every visitor's screen."""
        return check_local_copy(scenario, path, flag=f"--{scenario}-data")

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
    def check_new(self, agent: str, reflector: str, llm: dict[str, Any] | None) -> None:
        """Refuse a new session a served lab must not start (AELError says why); its data is
        `scenario_options`'s to check, by what its world says of it."""
        uses_llm = agent != "offline" or reflector != "offline" or bool(llm)
        if uses_llm and not self.allow_llm:
            raise AELError("this lab is served offline: choose the offline agent and reflector")

    def unavailable(self, scenario: str) -> str:
        """Why a served lab does not offer `scenario` ("" when it does)."""
        if _served_data(scenario) == "local" and scenario not in self.local_copies:
            return (f"{scenario} is not served here: its data would be downloaded, and the teacher gave no local "
                    f"copy (ael-lab serve --{scenario}-data DIR)")
        return ""

    def scenario_options(self, scenario: str, options: dict[str, Any] | None) -> dict[str, Any]:
        """The options a new served session of `scenario` runs with: a world served from a local
        copy reads the teacher's (a visitor's choice of source is refused), every other option is
        checked by `check_options`."""
        options = dict(options or {})
        if _served_data(scenario) == "local":
            if why := self.unavailable(scenario):
                raise AELError(why)
            data = _data_option(scenario)
            if options.get("data") not in (None, "", data.default if data else None, self.local_copies[scenario]):
                label = data.label if data and data.label else "its data"
                raise AELError(f"{scenario}: a served lab reads the teacher's copy of its data; leave {label} "
                               "at its first choice")
            options["data"] = self.local_copies[scenario]
        options = self.confined_data(scenario, options)
        self.check_options(scenario, options)
        return options

    def confined_data(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        """`options` with a world's data file (FILE_DATA) placed in the sessions folder (its
        absolute path there: a save's relative name is read from the folder, never from
        wherever the process stands), AELError when it is outside."""
        data = options.get("data")
        if _served_data(scenario) != "file" or data in (None, ""):
            return options
        placed = self.confine(Path(str(data)), "data file", _data_example(scenario))
        return {**options, "data": str(placed)}

    def check_options(self, scenario: str, options: dict[str, Any] | None) -> None:
        """Refuse scenario options that would read or write outside the folder, or download."""
        options = options or {}
        data, served = options.get("data"), _served_data(scenario)
        if served == "local":
            if why := self.unavailable(scenario):
                raise AELError(why)
            if data != self.local_copies[scenario]:
                raise AELError(f"this {scenario} session reads its data from {data or 'a download'}; a served lab "
                               f"reads only the teacher's copy: start a new {scenario} session here")
        elif served == "file":
            self.confined_data(scenario, options)  # AELError when its data file is outside the folder
        elif data not in (None, "", *_offline_data(scenario)):
            raise AELError(f"this session reads data from outside; a served lab uses {_offline_label(scenario)}")
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


# ---------------------------------------------------------------- what each world says of its data
def _served_data(scenario: str) -> str:
    """The world's `ScenarioSpec.served_data` ("offline" for a name no world is registered under:
    the session is refused where it is built, in one line)."""
    try:
        return spec_of(scenario).served_data
    except AELError:
        return "offline"


def _data_option(scenario: str):
    try:
        return spec_of(scenario).option("data")
    except AELError:
        return None


def _offline_data(scenario: str) -> tuple[str, ...]:
    """The `data` a served lab accepts of an offline world: its default (the synthetic market)."""
    option = _data_option(scenario)
    return (option.default,) if option is not None and option.default else ()


def _offline_label(scenario: str) -> str:
    """What the offline data is called (the start screen's label of its choice: "the synthetic market
    (offline)"), or that there is none."""
    option = _data_option(scenario)
    if option is None or not option.default:
        return "no data from outside"
    label = next((c.label for c in option.choices if c.value == option.default), option.default)
    return f"the {label}"


def _data_example(scenario: str) -> str:
    """A file name like the world's data option's example (tickets.csv): the hint of a refusal."""
    option = _data_option(scenario)
    return PurePath(option.example).name if option is not None and option.example else "data.csv"


def first_session(mode: ServedMode) -> Session | None:
    """The teacher's scenario and seed, or None for the start screen. Here, not beside the
    lab: the server builds it once to check the teacher's flags, and imports no Textual app for
    that (a third of its start's CPU, the lab's import; the fork server imports the lab anyway)."""
    if mode.scenario is None:
        return None
    from ..widgets.opening import NewSession, build_session

    return build_session(NewSession(mode.scenario, mode.seed, mode.selector,
                                    options=mode.scenario_options(mode.scenario, None)))
