"""One registry type for every extension point: worlds, methods, variants, lab panels.

Each is a table from a name to an entry, filled one line per entry (a decorator, a
`register` call, an entry point admitted by engine/plugins.py). This is that table,
written once: a name that a person could not type (`--selector`, `--variant`, a widget
id) or that another entry holds is refused in one line (`RegistryError`); `lookup`
names the closest registered name for a typo, as the rest of the command line does
(engine/options.closest); iteration follows registration order, the order `--help`,
the start screen and the lab list them. An entry may be a lazy "module" or
"module:attr" text (the worlds: their spec modules), imported only by `load`, so the
help is built without importing a world's data libraries.

A registry is a mapping (`in`, `[name]`, `get`, `items`, `pop`, `update`...), and
setting a key registers it: the code and tests that treated the four registries as
dicts keep working, with the checks.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import MutableMapping
from typing import Any, Callable, Generic, Iterable, Iterator, Sequence, TypeVar

from .errors import AELError
from .options import closest

T = TypeVar("T")

# what a selector or variant text can name (engine/method_base.py, session_variants.py)
# and a Textual widget id can hold: lower-case, digits, "-" and "_"
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class RegistryError(AELError, ValueError):
    """A registration refused: a bad name, a name taken by another entry, an entry its
    registry's check refuses. One line; a ValueError too, as the registries raised before."""


class Registry(MutableMapping[str, T], Generic[T]):
    """Entries by name. `kind` names one in messages ("method", "lab panel"); `check(name,
    entry)` refuses an entry (raise RegistryError) beyond the name; `attr` is the attribute
    a lazy "module" entry names when it has no ":attr" of its own."""

    def __init__(self, kind: str, entries: Iterable[tuple[str, T]] = (), *,
                 check: Callable[[str, T], None] | None = None, attr: str = ""):
        self.kind = kind
        self.attr = attr
        self._check = check
        self._entries: dict[str, T] = {}
        for name, entry in entries:
            self.register(name, entry)

    # ------------------------------------------------------------ registering
    def check_name(self, name: Any) -> str:
        """`name` if a registry may hold it, else RegistryError saying why."""
        if not isinstance(name, str) or not NAME.fullmatch(name):
            shown = name[:80] if isinstance(name, str) else name
            raise RegistryError(f"a {self.kind} name must be lower-case letters, digits, '-' and '_', "
                                f"starting with a letter or digit, at most 64 (got {shown!r})")
        return name

    def register(self, name: str, entry: T) -> T:
        """Add `entry` under `name`; the same entry again is no change (a module imported
        twice, a test's fixture), another entry under a taken name is refused."""
        self.check_name(name)
        taken = self._entries.get(name, entry)
        if taken is not entry and taken != entry:
            raise RegistryError(f"a {self.kind} named {name!r} is already registered")
        if self._check is not None:
            self._check(name, entry)
        self._entries[name] = entry
        return entry

    def add(self, entry: T) -> T:
        """Register an entry under its own `name`: the decorator of a method or variant class."""
        self.register(getattr(entry, "name", None), entry)  # type: ignore[arg-type]
        return entry

    def unregister(self, name: str) -> None:
        """Remove `name` if it is registered (a test's world, a plugin's entry in a test)."""
        self._entries.pop(name, None)

    # ------------------------------------------------------------ reading
    def names(self) -> list[str]:
        return list(self._entries)

    def closest(self, word: str, extra: Sequence[str] = ()) -> str | None:
        """The registered name (or one of `extra`) that `word` looks like a typo of, or None."""
        return closest(word, [*extra, *self._entries])

    def unknown(self, name: str) -> AELError:
        """The one line for a name nothing is registered under, with the closest if one is close."""
        guess = self.closest(name)
        hint = f": did you mean {guess!r}?" if guess else ""
        return AELError(f"unknown {self.kind} {name!r}{hint} (expected one of {', '.join(self._entries)})")

    def lookup(self, name: str) -> T:
        """The entry registered under `name`; AELError (did you mean...) for another name."""
        if name not in self._entries:
            raise self.unknown(name)
        return self._entries[name]

    def load(self, name: str) -> Any:
        """The object a lazy entry names, imported now ("module" reads the registry's `attr`,
        "module:attr" its own); an entry that is not a text is itself."""
        entry = self.lookup(name)
        if not isinstance(entry, str):
            return entry
        module, _, attr = entry.partition(":")
        return getattr(importlib.import_module(module.strip()), attr.strip() or self.attr)

    # ------------------------------------------------------------ the mapping
    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __setitem__(self, name: str, entry: T) -> None:
        self.register(name, entry)

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()!r})"
