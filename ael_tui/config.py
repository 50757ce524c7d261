"""What the lab reads from outside: the keymap file and the run settings.

The keymap is a JSON object mapping binding ids (see `actions.py`) to keys,
e.g. `{"lab.step": "n", "lab.pause": "p,escape"}`. It is read from
`$AEL_LAB_KEYS` if set, else `$XDG_CONFIG_HOME/ael-lab/keys.json` (by default
`~/.config/ael-lab/keys.json`). A missing file is no keymap; a bad one is
reported (one line each) and the parts that make sense are still used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ael_lab import AELError
from ael_lab.store import MAX_KEYS_BYTES, parse_json, read_capped

from ael_tui.actions import BY_ID
from ael_tui.clock import SYSTEM_CLOCK, Clock

KEYS_ENV = "AEL_LAB_KEYS"
SAVES_ENV = "AEL_LAB_SAVES"
MAX_KEY_TEXT = 200  # characters of one binding's keys: "ctrl+shift+n,f5" is 15

# Delay between episodes while running, in seconds; "+" moves left, "-" right.
DELAYS: tuple[float, ...] = (0.0, 0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
DEFAULT_DELAY = 0.05


def keys_path() -> Path:
    env = os.environ.get(KEYS_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ael-lab" / "keys.json"


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(keymap, problems): the usable id -> key entries, and one line per problem."""
    path = keys_path() if path is None else path
    if not path.exists():
        return {}, []
    try:  # capped in size and depth before it is parsed or walked (engine.store.documents)
        raw = parse_json(read_capped(path, MAX_KEYS_BYTES, "keys file"), path, "keys file", depth=4)
    except AELError as err:
        return {}, [f"{err}; default keys used"]
    if not isinstance(raw, dict):
        return {}, [f"{path}: expected an object mapping binding ids to keys; default keys used"]
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in raw.items():
        if binding_id not in BY_ID:
            problems.append(f"{path}: no binding with id {binding_id!r} (ignored)")
            continue
        if isinstance(keys, list) and keys and all(isinstance(k, str) and k.strip() for k in keys):
            keys = ",".join(k.strip() for k in keys)
        if not isinstance(keys, str) or not keys.strip() or len(keys) > MAX_KEY_TEXT:
            problems.append(f"{path}: {binding_id!r} needs a key such as \"n\" or \"ctrl+n\" (ignored)")
            continue
        keys = ",".join(k.strip() for k in keys.split(",") if k.strip())
        unknown = [k for k in keys.split(",") if not is_key_name(k)]
        if unknown:
            problems.append(f"{path}: {binding_id!r}: {unknown[0]!r} is not a key name (such as \"n\", \"f5\", "
                            "\"ctrl+n\", \"escape\", \"question_mark\"; ignored)")
            continue
        keymap[binding_id] = keys
    problems += _drop_clashes(keymap, path)
    return keymap, problems


MODIFIERS = frozenset(("ctrl", "shift", "alt", "meta", "super", "hyper"))


def _named_keys() -> frozenset[str]:
    from textual.keys import KEY_ALIASES, Keys

    from ael_tui.compat import character_to_key

    names = {k.value.split("+")[-1] for k in Keys if not k.value.startswith("<")}
    names |= {character_to_key(chr(i)) for i in range(33, 127)}
    names |= {a.split("+")[-1] for aliases in KEY_ALIASES.values() for a in aliases} | set(KEY_ALIASES)
    return frozenset(names)


def is_key_name(key: str) -> bool:
    """A key Textual can bind: a character, or modifiers+a named key ("ctrl+n", "f5", "question_mark")."""
    *mods, base = key.split("+") if key != "+" else ["+"]
    if any(m not in MODIFIERS for m in mods) or len(set(mods)) != len(mods):
        return False
    if len(base) == 1:
        return base.isprintable() and (not mods or base.isalnum())
    return base in _named_keys()


def _normal(key: str) -> str:
    from ael_tui.compat import character_to_key

    return character_to_key(key) if len(key) == 1 else key  # as Textual reads a keymap: "?" is question_mark


def _keys_of(action, keymap: dict[str, str]) -> set[str]:
    return {_normal(k) for k in keymap.get(action.id, action.key).split(",")}


def _drop_clashes(keymap: dict[str, str], path: Path) -> list[str]:
    """Entries that would put two actions on one key where both answer (one scope, or the
    app's and any other), unless the defaults already share it (escape pauses, else closes):
    each such entry is dropped, with one line naming both actions."""
    from ael_tui.actions import ACTIONS

    problems: list[str] = []
    while True:
        clash = None
        for binding_id in keymap:
            mine = BY_ID[binding_id]
            for other in ACTIONS:
                if other.id == binding_id or not (other.scope == mine.scope or "app" in (other.scope, mine.scope)):
                    continue
                shared = (_keys_of(mine, keymap) & _keys_of(other, keymap)) - (_keys_of(mine, {}) & _keys_of(other, {}))
                if shared:
                    clash = (binding_id, other.id, sorted(shared)[0])
                    break
            if clash:
                break
        if clash is None:
            return problems
        binding_id, other_id, key = clash
        problems.append(f"{path}: {binding_id!r} and {other_id!r} would both be on {key!r}; one key runs one "
                        f"action ({binding_id!r} ignored)")
        del keymap[binding_id]


def default_saves_dir() -> Path:
    return Path(os.environ.get(SAVES_ENV) or "saves")


@dataclass
class LabSettings:
    """Settings of the running lab (not saved with a session)."""

    delay: float = DEFAULT_DELAY
    autosave_every: int = 0          # episodes; 0 = off
    saves_dir: Path = field(default_factory=default_saves_dir)
    exports_dir: Path = Path("exports")  # CSV, JSON and SVG exports: never mixed into the saves lists
    served: Any = None               # a serve.quota.VisitorFiles when a browser visitor drives this lab
    clock: Clock = SYSTEM_CLOCK      # redraw throttles, the run keys' delay, the wait between episodes
    # seconds between two views of a run in progress (0: a view after every episode). A served lab
    # sets it (ael_tui/serve/lab.py): its frames cross a class's network, so a run draws at a
    # person's reading pace, its last state always shown, instead of every episode
    frame_every: float = 0.0
    # the lab is its process's only program (`ael-lab lab`, a served lab): it may move what a
    # session holds out of the garbage collector's sight (widgets/shared_heap.py). Off inside
    # another program (a test runner, a notebook), whose heap is not the lab's to freeze
    tends_heap: bool = False

    def place(self, path: Path, what: str = "file") -> Path:
        """Where a path a person typed may be used: itself, or for a served lab
        (`ael-lab serve`) the same inside its sessions folder, else AELError."""
        return path if self.served is None else self.served.confine(path, what)

    def readable(self, path: Path, what: str = "file", example: str = "mysession.json") -> Path:
        """Where a file a person named may be read (a data file's preview): itself, or for a
        served lab the same inside its sessions folder, else AELError."""
        return path if self.served is None else self.served.readable(path, what, example)

    def faster(self) -> float:
        slower = [d for d in DELAYS if d < self.delay]
        self.delay = slower[-1] if slower else DELAYS[0]
        return self.delay

    def slower(self) -> float:
        longer = [d for d in DELAYS if d > self.delay]
        self.delay = longer[0] if longer else DELAYS[-1]
        return self.delay
